# The build without Kokkos Kernels: configures kflow with
# KFLOW_ENABLE_KOKKOS_KERNELS=OFF in a scratch directory and compiles the
# translation units whose code differs without it (the spmv, poisson and
# tridiag benchmarks: their Kokkos Kernels rows say "not in this build";
# mac2d, vorticity2d and split3d: the kk_* methods are a configuration error;
# the model library's solver keys), failing on an error or on any compiler warning.
# The rest of kflow does not see the switch.
#
# One precision (double) of each: the #ifdef'd code is the same in every
# precision.  -O0: the code that differs is front-end work (declarations,
# unused names, the branches left), and the whole set compiles in about a
# tenth of a Release build's CPU time, so the test stays well inside its
# timeout on a loaded machine.
#   cmake -DSOURCE=<kflow source> -DWORK=<scratch dir> -DCXX=<compiler>
#         -DKOKKOS_DIR=<Kokkos_DIR> -DTOMLPP_DIR=<tomlplusplus_DIR>
#         -DTOMLPP_INCLUDE=<KFLOW_TOMLPP_INCLUDE> -DGENERATOR=<generator> -P run.cmake
foreach(v SOURCE WORK CXX KOKKOS_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK} -G ${GENERATOR}
                        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O0
                        -DCMAKE_CXX_COMPILER=${CXX}
                        -DKokkos_DIR=${KOKKOS_DIR} -Dtomlplusplus_DIR=${TOMLPP_DIR}
                        -DKFLOW_TOMLPP_INCLUDE=${TOMLPP_INCLUDE} -DKFLOW_ENABLE_VTK=OFF
                        -DKFLOW_ENABLE_HYPRE=OFF -DKFLOW_BUILD_TESTS=OFF -DKFLOW_CCACHE=OFF
                        -DKFLOW_ENABLE_KOKKOS_KERNELS=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "Kokkos Kernels disabled")
  message(FATAL_ERROR "no-Kokkos-Kernels configure failed (${rc}):\n${out}\n${err}")
endif()

# The objects: with Ninja, the double-precision units of one backend (the
# generated sources name it); with other generators, the whole targets.
set(targets kflow_bench_spmv kflow_bench_poisson kflow_bench_tridiag kflow_model_mac2d
            kflow_model_vorticity2d kflow_model_split3d kflow_model)
if(GENERATOR STREQUAL "Ninja")
  set(objects src/model/CMakeFiles/kflow_model.dir/case_solver.cpp.o)
  foreach(entry "bench/linalg|kflow_bench_spmv|bench_spmv" "bench/linalg|kflow_bench_poisson|bench_poisson"
                "bench/linalg|kflow_bench_tridiag|bench_tridiag" "physics/mac2d|kflow_model_mac2d|mac2d"
                "physics/vorticity2d|kflow_model_vorticity2d|vorticity2d"
                "physics/split3d|kflow_model_split3d|split3d")
    string(REPLACE "|" ";" parts "${entry}")
    list(GET parts 0 dir)
    list(GET parts 1 target)
    list(GET parts 2 stem)
    file(GLOB generated RELATIVE ${WORK}/${dir} ${WORK}/${dir}/${stem}_*_double.cpp)
    list(SORT generated)
    if(NOT generated)
      message(FATAL_ERROR "no-Kokkos-Kernels build: no generated ${dir}/${stem}_*_double.cpp")
    endif()
    list(GET generated 0 unit)
    list(APPEND objects ${dir}/CMakeFiles/${target}.dir/${unit}.o)
  endforeach()
  set(targets ${objects})
endif()
# --clean-first: a rerun with the objects up to date would print no warning.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} --clean-first --target ${targets}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "no-Kokkos-Kernels build failed (${rc})")
endif()
if("${out}${err}" MATCHES "warning:")
  message(FATAL_ERROR "no-Kokkos-Kernels build: compiler warnings (above)")
endif()
