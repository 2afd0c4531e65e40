# Runs kflow with ARGS (separated by "@@"), then checks the exit status
# (RC: a number, or "nonzero") and that stdout+stderr match every regular
# expression in REGEX (separated by "@@").
string(REPLACE "@@" ";" args "${ARGS}")
execute_process(COMMAND ${KFLOW} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${WORKDIR})
set(all "${out}${err}")
message("exit status ${rc}\n${all}")
if(RC STREQUAL "nonzero")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a non-zero exit status, got 0")
  endif()
elseif(NOT rc EQUAL RC)
  message(FATAL_ERROR "expected exit status ${RC}, got ${rc}")
endif()
string(REPLACE "@@" ";" regexes "${REGEX}")
foreach(re IN LISTS regexes)
  if(NOT all MATCHES "${re}")
    message(FATAL_ERROR "output does not match '${re}'")
  endif()
endforeach()
