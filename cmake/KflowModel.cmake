# kflow_add_model(NAME
#                 SOURCES <parse/registration sources>
#                 IMPL <header with the Kokkos implementation>
#                 NAMESPACE <C++ namespace holding make_model<Space, Real>>
#                 PRECISIONS double [float] [float16s] [float16c]
#                 [VARIANTS <v>... HEADER <header declaring make_model>
#                  VARIANT_FUNCTION <function template f<Space, Real, v>>])
#
# Builds the model as an OBJECT library (so that its self-registration is
# never dropped by the linker) with one generated translation unit per
# (backend compiled into Kokkos, precision).  With VARIANTS, the model's
# heavy part is split further: one unit per (backend, precision, variant)
# includes IMPL and explicitly instantiates NAMESPACE::f<Space, Real, v>,
# and the registering unit includes only HEADER, whose make_model<Space,
# Real> dispatches to those (lbm: one unit per velocity set, so that the
# stencils compile side by side).  The generated sources name no absolute
# path, so they are the same bytes in every clone (ccache reuses them).
set(KFLOW_SPACE_serial "Kokkos::Serial")
set(KFLOW_SPACE_openmp "Kokkos::OpenMP")
set(KFLOW_SPACE_cuda "Kokkos::Cuda")
# The template argument per precision name (kflow/model/precision.hpp).
set(KFLOW_REAL_double "double")
set(KFLOW_REAL_float "float")
set(KFLOW_REAL_float16s "kflow::Float16s")
set(KFLOW_REAL_float16c "kflow::Float16c")
# KFLOW_MODELS: the self-registering OBJECT libraries of the kflow program
# (models, and the kernel benchmarks' descriptions); KFLOW_BENCHES: the
# kernel benchmarks' instantiations, which only the companion program
# kflow-bench and the tests link (src/app/CMakeLists.txt).
set(KFLOW_MODELS "" CACHE INTERNAL "")
set(KFLOW_BENCHES "" CACHE INTERNAL "")

function(kflow_add_model NAME)
  cmake_parse_arguments(M "" "IMPL;NAMESPACE;HEADER;VARIANT_FUNCTION" "SOURCES;PRECISIONS;VARIANTS"
                        ${ARGN})
  if(M_VARIANTS AND (NOT M_HEADER OR NOT M_VARIANT_FUNCTION))
    message(FATAL_ERROR "kflow_add_model(${NAME}): VARIANTS needs HEADER and VARIANT_FUNCTION")
  endif()
  set(generated)
  foreach(KFLOW_BACKEND IN LISTS KFLOW_BACKENDS)
    foreach(KFLOW_PRECISION IN LISTS M_PRECISIONS)
      set(KFLOW_MODEL ${NAME})
      set(KFLOW_SPACE ${KFLOW_SPACE_${KFLOW_BACKEND}})
      set(KFLOW_REAL ${KFLOW_REAL_${KFLOW_PRECISION}})
      set(KFLOW_IMPL_HEADER ${M_IMPL})  # found through the include path
      set(KFLOW_FACTORY_HEADER ${M_IMPL})
      if(M_VARIANTS)
        set(KFLOW_FACTORY_HEADER ${M_HEADER})
      endif()
      set(KFLOW_NAMESPACE ${M_NAMESPACE})
      set(out ${CMAKE_CURRENT_BINARY_DIR}/${NAME}_${KFLOW_BACKEND}_${KFLOW_PRECISION}.cpp)
      configure_file(${PROJECT_SOURCE_DIR}/cmake/instantiate.cpp.in ${out} @ONLY)
      list(APPEND generated ${out})
      foreach(KFLOW_VARIANT IN LISTS M_VARIANTS)
        set(KFLOW_VARIANT_FUNCTION ${M_VARIANT_FUNCTION})
        set(out ${CMAKE_CURRENT_BINARY_DIR}/${NAME}_${KFLOW_BACKEND}_${KFLOW_PRECISION}_${KFLOW_VARIANT}.cpp)
        configure_file(${PROJECT_SOURCE_DIR}/cmake/instantiate_variant.cpp.in ${out} @ONLY)
        list(APPEND generated ${out})
      endforeach()
    endforeach()
  endforeach()
  add_library(kflow_model_${NAME} OBJECT ${M_SOURCES} ${generated})
  target_include_directories(kflow_model_${NAME} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(kflow_model_${NAME} PUBLIC kflow::model PRIVATE kflow_physics_common kflow_warnings)
  set(KFLOW_MODELS ${KFLOW_MODELS} kflow_model_${NAME} CACHE INTERNAL "")
endfunction()

# kflow_add_bench(NAME
#                 SOURCES <registration source (KFLOW_REGISTER_BENCH)>
#                 IMPL <header with the Kokkos implementation>
#                 FUNCTION <qualified function template run<Space, Real>(opts, log)>
#                 PRECISIONS double [float] [float16s])
#
# A kernel benchmark (kflow/core/bench.hpp), built like a model: an OBJECT
# library with one generated translation unit per (backend, precision), in
# kflow-bench only; SOURCES (the description, KFLOW_REGISTER_BENCH) go into
# kflow too, so that `kflow list` names every benchmark.
function(kflow_add_bench NAME)
  cmake_parse_arguments(M "" "IMPL;FUNCTION" "SOURCES;PRECISIONS" ${ARGN})
  set(generated)
  foreach(KFLOW_BACKEND IN LISTS KFLOW_BACKENDS)
    foreach(KFLOW_PRECISION IN LISTS M_PRECISIONS)
      set(KFLOW_BENCH ${NAME})
      set(KFLOW_SPACE ${KFLOW_SPACE_${KFLOW_BACKEND}})
      set(KFLOW_REAL ${KFLOW_REAL_${KFLOW_PRECISION}})
      set(KFLOW_IMPL_HEADER ${M_IMPL})  # found through the include path
      set(KFLOW_FUNCTION ${M_FUNCTION})
      set(out ${CMAKE_CURRENT_BINARY_DIR}/bench_${NAME}_${KFLOW_BACKEND}_${KFLOW_PRECISION}.cpp)
      configure_file(${PROJECT_SOURCE_DIR}/cmake/instantiate_bench.cpp.in ${out} @ONLY)
      list(APPEND generated ${out})
    endforeach()
  endforeach()
  add_library(kflow_bench_${NAME} OBJECT ${generated})
  target_include_directories(kflow_bench_${NAME} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(kflow_bench_${NAME} PUBLIC kflow::core PRIVATE kflow_warnings)
  set(KFLOW_BENCHES ${KFLOW_BENCHES} kflow_bench_${NAME} CACHE INTERNAL "")
  if(M_SOURCES)
    add_library(kflow_benchinfo_${NAME} OBJECT ${M_SOURCES})
    target_link_libraries(kflow_benchinfo_${NAME} PUBLIC kflow::core PRIVATE kflow_warnings)
    set(KFLOW_MODELS ${KFLOW_MODELS} kflow_benchinfo_${NAME} CACHE INTERNAL "")
  endif()
endfunction()
