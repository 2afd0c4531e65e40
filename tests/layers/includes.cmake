# The include rule of the model layer: physics/ (the models) and src/model
# (the API they see) include of kflow only kflow/model, kflow/linalg and
# kflow/geometry, never kflow/core or kflow/io (docs/design.md, Layers).
# Fails naming every file and line that breaks it.
#   cmake -DSOURCE=<kflow source> -P includes.cmake
if(NOT DEFINED SOURCE)
  message(FATAL_ERROR "includes.cmake: -DSOURCE=... is required")
endif()
file(GLOB_RECURSE files LIST_DIRECTORIES false
     ${SOURCE}/physics/*.hpp ${SOURCE}/physics/*.cpp ${SOURCE}/physics/*.in
     ${SOURCE}/src/model/*.hpp ${SOURCE}/src/model/*.cpp ${SOURCE}/src/model/*.in)
list(LENGTH files count)
if(count LESS 20)
  message(FATAL_ERROR "includes.cmake: only ${count} files under physics/ and src/model")
endif()
set(bad "")
foreach(f IN LISTS files)
  file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]kflow/")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "[\"<]kflow/(model|linalg|geometry)/")
      file(RELATIVE_PATH rel ${SOURCE} ${f})
      string(APPEND bad "  ${rel}: ${line}\n")
    endif()
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "physics/ and src/model include only kflow/model, kflow/linalg and "
                      "kflow/geometry of kflow (docs/design.md, Layers); these do not:\n${bad}")
endif()
message("kflow layers: ${count} files under physics/ and src/model include only "
        "kflow/model, kflow/linalg and kflow/geometry")
