# The build without Kokkos Kernels: configures kflow with
# KFLOW_ENABLE_KOKKOS_KERNELS=OFF in a scratch directory and compiles the
# targets whose code differs without it (the spmv and poisson benchmarks:
# their Kokkos Kernels rows say "not in this build"; mac2d: method "kk_cg" is
# a configuration error), failing on an error or on any compiler warning.
# The rest of kflow does not see the switch.
#   cmake -DSOURCE=<kflow source> -DWORK=<scratch dir> -DCXX=<compiler>
#         -DKOKKOS_DIR=<Kokkos_DIR> -DTOMLPP_DIR=<tomlplusplus_DIR>
#         -DTOMLPP_INCLUDE=<KFLOW_TOMLPP_INCLUDE> -DGENERATOR=<generator> -P run.cmake
foreach(v SOURCE WORK CXX KOKKOS_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK} -G ${GENERATOR}
                        -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX}
                        -DKokkos_DIR=${KOKKOS_DIR} -Dtomlplusplus_DIR=${TOMLPP_DIR}
                        -DKFLOW_TOMLPP_INCLUDE=${TOMLPP_INCLUDE} -DKFLOW_ENABLE_VTK=OFF
                        -DKFLOW_ENABLE_HYPRE=OFF -DKFLOW_BUILD_TESTS=OFF
                        -DKFLOW_ENABLE_KOKKOS_KERNELS=OFF
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "Kokkos Kernels disabled")
  message(FATAL_ERROR "no-Kokkos-Kernels configure failed (${rc}):\n${out}\n${err}")
endif()
# --clean-first: a rerun with the objects up to date would print no warning.
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} --clean-first --target kflow_bench_spmv
                        kflow_bench_poisson kflow_bench_tridiag kflow_model_mac2d
                        kflow_model_vorticity2d kflow_model_split3d kflow_core
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "no-Kokkos-Kernels build failed (${rc})")
endif()
if("${out}${err}" MATCHES "warning:")
  message(FATAL_ERROR "no-Kokkos-Kernels build: compiler warnings (above)")
endif()
