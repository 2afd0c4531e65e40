# Kokkos Kernels for kflow: sets KFLOW_HAVE_KOKKOSKERNELS (ON/OFF) and
# KFLOW_KOKKOSKERNELS_INFO (one line for `kflow info`), and when ON defines
# the INTERFACE target kflow_kokkoskernels (not exported): the Kokkos Kernels
# headers as SYSTEM includes (their warnings are not ours), the library where
# there is one, and the definition KFLOW_HAVE_KOKKOSKERNELS.
#
# Where it looks, in order:
#  1. an installed Kokkos Kernels CMake package (find_package(KokkosKernels));
#  2. a header-only prefix: KokkosKernels_config.h and KokkosSparse_spmv.hpp
#     under ${KFLOW_KOKKOS_KERNELS_ROOT}/include (cache variable; default: the
#     environment variable of that name, else /opt/kokkos-kernels).  The
#     toolchain root holds one (tools/bootstrap.sh: the headers of Debian's
#     libtrilinos-kokkos-kernels-dev with explicit instantiation and
#     third-party libraries turned off in the config header, so every kernel is
#     instantiated in kflow's own translation units and nothing is linked).
set(KFLOW_HAVE_KOKKOSKERNELS OFF)
set(KFLOW_KOKKOSKERNELS_INFO "not in this build")
if(NOT KFLOW_ENABLE_KOKKOS_KERNELS)
  set(KFLOW_KOKKOSKERNELS_INFO "not in this build (KFLOW_ENABLE_KOKKOS_KERNELS=OFF)")
  message(STATUS "kflow: Kokkos Kernels disabled (KFLOW_ENABLE_KOKKOS_KERNELS=OFF)")
  return()
endif()

find_package(KokkosKernels CONFIG QUIET)
if(KokkosKernels_FOUND AND TARGET Kokkos::kokkoskernels)
  add_library(kflow_kokkoskernels INTERFACE)
  target_link_libraries(kflow_kokkoskernels INTERFACE Kokkos::kokkoskernels)
  target_compile_definitions(kflow_kokkoskernels INTERFACE KFLOW_HAVE_KOKKOSKERNELS)
  set(KFLOW_HAVE_KOKKOSKERNELS ON)
  set(KFLOW_KOKKOSKERNELS_INFO "${KokkosKernels_VERSION} (package: ${KokkosKernels_DIR})")
  message(STATUS "kflow: Kokkos Kernels ${KokkosKernels_VERSION} found (${KokkosKernels_DIR})")
  return()
endif()

set(_kk_default /opt/kokkos-kernels)
if(DEFINED ENV{KFLOW_KOKKOS_KERNELS_ROOT})
  set(_kk_default "$ENV{KFLOW_KOKKOS_KERNELS_ROOT}")
endif()
set(KFLOW_KOKKOS_KERNELS_ROOT "${_kk_default}" CACHE PATH
    "Header-only Kokkos Kernels prefix: its include/ holds KokkosKernels_config.h (tools/bootstrap.sh)")
set(KFLOW_KOKKOSKERNELS_INCLUDE_DIR "${KFLOW_KOKKOS_KERNELS_ROOT}/include")
if(NOT EXISTS "${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}/KokkosKernels_config.h"
   OR NOT EXISTS "${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}/KokkosSparse_spmv.hpp")
  message(STATUS "kflow: Kokkos Kernels not found (no KokkosKernels package, no header-only prefix at "
                 "KFLOW_KOKKOS_KERNELS_ROOT=${KFLOW_KOKKOS_KERNELS_ROOT}): its features are not built")
  return()
endif()

# Only a config header that announces no explicit instantiation and no
# third-party library can be used header-only.
set(_kk_cfg "${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}/KokkosKernels_config.h")
file(STRINGS "${_kk_cfg}" _kk_bad REGEX "^#define (KOKKOSKERNELS_INST_|KOKKOSKERNELS_ENABLE_TPL_|KOKKOSKERNELS_ETI_ONLY)")
file(STRINGS "${_kk_cfg}" _kk_ver REGEX "^#define KOKKOSKERNELS_VERSION_(MAJOR|MINOR|PATCH) ")
string(REGEX REPLACE "[^;]*_(MAJOR|MINOR|PATCH) +([0-9]+)" "\\2" _kk_ver "${_kk_ver}")
string(REPLACE ";" "." _kk_ver "${_kk_ver}")
if(_kk_bad)
  message(STATUS "kflow: Kokkos Kernels headers in ${KFLOW_KOKKOSKERNELS_INCLUDE_DIR} announce explicit "
                 "instantiations or third-party libraries (${_kk_bad}) and have no library here: not used")
  return()
endif()
# Kokkos Kernels releases go with their Kokkos major version: 5.x headers are
# used with a Kokkos 5 only (tested: Kokkos Kernels 5.0.2 on Kokkos 5.2.2).
if(_kk_ver VERSION_GREATER_EQUAL 5 AND Kokkos_VERSION VERSION_LESS 5)
  message(STATUS "kflow: Kokkos Kernels ${_kk_ver} headers need Kokkos 5; this Kokkos is ${Kokkos_VERSION}: not used")
  return()
endif()
add_library(kflow_kokkoskernels INTERFACE)
target_include_directories(kflow_kokkoskernels SYSTEM INTERFACE "${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}")
target_link_libraries(kflow_kokkoskernels INTERFACE Kokkos::kokkos)
target_compile_definitions(kflow_kokkoskernels INTERFACE KFLOW_HAVE_KOKKOSKERNELS)
set(KFLOW_HAVE_KOKKOSKERNELS ON)
set(_kk_src "")
get_filename_component(_kk_prefix "${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}" DIRECTORY)
if(EXISTS "${_kk_prefix}/share/source")
  file(STRINGS "${_kk_prefix}/share/source" _kk_src REGEX "^version=")
  string(REPLACE "version=" ", Debian " _kk_src "${_kk_src}")
endif()
set(KFLOW_KOKKOSKERNELS_INFO "${_kk_ver} (header-only: ${_kk_prefix}${_kk_src})")
message(STATUS "kflow: Kokkos Kernels ${_kk_ver} found, header-only (${KFLOW_KOKKOSKERNELS_INCLUDE_DIR}${_kk_src})")
