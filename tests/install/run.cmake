# Installs this build of kflow into a scratch prefix under the build tree,
# then configures, builds and runs tests/install/consumer against it: the
# check that kflow::linalg is usable from another project.
#   cmake -DBUILD=<kflow build> -DWORK=<scratch dir> -DCONSUMER=<source>
#         -DCXX=<compiler> -DKOKKOS_DIR=<Kokkos_DIR> -P run.cmake
foreach(v BUILD WORK CONSUMER CXX KOKKOS_DIR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run.cmake: -D${v}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: '${ARGN}' failed (${rc})")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD} --prefix ${WORK}/prefix)
step(${CMAKE_COMMAND} -S ${CONSUMER} -B ${WORK}/build -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${WORK}/prefix -DKokkos_DIR=${KOKKOS_DIR})
step(${CMAKE_COMMAND} --build ${WORK}/build)
step(${WORK}/build/consumer)
