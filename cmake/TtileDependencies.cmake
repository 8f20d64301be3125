# Third-party dependencies, all from Debian 12 packages (scripts/setup).

# LLVM's package accepts a request only when major.minor match (a bare "19"
# means 19.0 and matches nothing); every LLVM 19 release is 19.1.x.
find_package(LLVM 19.1 REQUIRED CONFIG
  HINTS /usr/lib/llvm-19/lib/cmake/llvm)
message(STATUS "ttile: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")

# <ttile/Version.h> is generated here, where LLVM's version is known: kernels
# and cached tuning results are only valid for the LLVM that produced them, so
# the header records both versions. It is public and installed.
configure_file(${PROJECT_SOURCE_DIR}/include/ttile/Version.h.in
               ${PROJECT_BINARY_DIR}/include/ttile/Version.h @ONLY)

# libLLVM is one shared library in Debian; link it as a whole.
add_library(ttile_llvm INTERFACE)
target_include_directories(ttile_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(ttile_llvm INTERFACE ${LLVM_DEFINITIONS})
if(LLVM_LINK_LLVM_DYLIB)
  target_link_libraries(ttile_llvm INTERFACE LLVM)
else()
  llvm_map_components_to_libnames(TTILE_LLVM_LIBS
    core support orcjit passes native nativecodegen target targetparser
    mc mcparser object analysis transformutils)
  target_link_libraries(ttile_llvm INTERFACE ${TTILE_LLVM_LIBS})
endif()

find_package(spdlog REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  # Debian's libcli11-dev ships the header without a CMake package.
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
endif()
find_package(Threads REQUIRED)

set(TTILE_HAVE_PAPI OFF)
if(TTILE_WITH_PAPI)
  find_path(PAPI_INCLUDE_DIR papi.h)
  find_library(PAPI_LIBRARY papi)
  if(PAPI_INCLUDE_DIR AND PAPI_LIBRARY)
    set(TTILE_HAVE_PAPI ON)
    add_library(ttile_papi INTERFACE)
    target_include_directories(ttile_papi SYSTEM INTERFACE ${PAPI_INCLUDE_DIR})
    target_link_libraries(ttile_papi INTERFACE ${PAPI_LIBRARY})
  endif()
endif()
if(TTILE_HAVE_PAPI)
  message(STATUS "ttile: PAPI found (${PAPI_LIBRARY}); hardware counters enabled")
else()
  message(STATUS "ttile: PAPI not found; timing falls back to the steady clock and TSC")
endif()

# oneDNN: only ttile-bench uses it, as the baseline it compares with. Not in
# the sanitizer trees: libdnnl is not instrumented, and its OpenMP threads
# would give ThreadSanitizer false reports.
set(TTILE_HAVE_ONEDNN OFF)
if(TTILE_WITH_ONEDNN AND NOT TTILE_ENABLE_SANITIZERS AND NOT TTILE_ENABLE_TSAN)
  find_package(DNNL)
  set(TTILE_HAVE_ONEDNN ${DNNL_FOUND})
endif()
if(TTILE_HAVE_ONEDNN)
  message(STATUS "ttile: oneDNN ${DNNL_VERSION} found (${DNNL_LIBRARY}); ttile-bench compares with it")
else()
  message(STATUS "ttile: oneDNN not found; ttile-bench measures ttile alone")
endif()

# libxsmm: a peer of `ttile-bench matmul` on small products. Debian 12's
# libxsmm-dev (1.17) has static libraries only, so it is linked, with
# libxsmmnoblas, whose stubs stand in for the BLAS that libxsmm's fallback
# would call (the bench measures its dispatched kernels only). Left out of
# the sanitizer trees, like oneDNN.
set(TTILE_HAVE_LIBXSMM OFF)
if(NOT TTILE_ENABLE_SANITIZERS AND NOT TTILE_ENABLE_TSAN)
  find_path(LIBXSMM_INCLUDE_DIR libxsmm.h)
  find_library(LIBXSMM_LIBRARY xsmm)
  find_library(LIBXSMM_NOBLAS_LIBRARY xsmmnoblas)
  if(LIBXSMM_INCLUDE_DIR AND LIBXSMM_LIBRARY AND LIBXSMM_NOBLAS_LIBRARY)
    set(TTILE_HAVE_LIBXSMM ON)
    add_library(ttile_libxsmm INTERFACE)
    target_include_directories(ttile_libxsmm SYSTEM INTERFACE ${LIBXSMM_INCLUDE_DIR})
    target_link_libraries(ttile_libxsmm INTERFACE ${LIBXSMM_LIBRARY}
      ${LIBXSMM_NOBLAS_LIBRARY} Threads::Threads rt ${CMAKE_DL_LIBS} m)
  endif()
endif()
if(TTILE_HAVE_LIBXSMM)
  message(STATUS "ttile: libxsmm found (${LIBXSMM_LIBRARY}); ttile-bench matmul compares with it")
else()
  message(STATUS "ttile: libxsmm not found; ttile-bench matmul runs without it")
endif()

# Eigen's Tensor contraction: a peer of `ttile-bench contraction`, header
# only, and heavy to compile; left out of the sanitizer trees, like oneDNN.
set(TTILE_HAVE_EIGEN OFF)
if(NOT TTILE_ENABLE_SANITIZERS AND NOT TTILE_ENABLE_TSAN)
  find_package(Eigen3 3.3 CONFIG QUIET)
  set(TTILE_HAVE_EIGEN ${Eigen3_FOUND})
endif()
if(TTILE_HAVE_EIGEN)
  message(STATUS "ttile: Eigen ${Eigen3_VERSION} found; ttile-bench contraction compares with its Tensor module")
else()
  message(STATUS "ttile: Eigen not found; ttile-bench contraction runs without it")
endif()

# The Python module (bindings/python): pybind11 and the interpreter's
# headers, found together so that the module matches the interpreter that
# runs its test.
set(TTILE_HAVE_PYTHON OFF)
if(TTILE_WITH_PYTHON)
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  if(Python3_Development.Module_FOUND)
    set(PYBIND11_FINDPYTHON ON)
    find_package(pybind11 CONFIG QUIET)
  endif()
  if(pybind11_FOUND)
    set(TTILE_HAVE_PYTHON ON)
    message(STATUS "ttile: the Python module is built for ${Python3_EXECUTABLE} (pybind11 ${pybind11_VERSION})")
  else()
    message(STATUS "ttile: pybind11 or Python's headers not found (Debian: pybind11-dev python3-dev); no Python module")
  endif()
endif()

# ONNX Runtime's C and C++ API headers, for the custom-op library
# (bindings/onnxruntime). scripts/setup puts Debian 13's (API version 21)
# into /opt/onnxruntime/include; the runtime is PyPI's wheel, loaded by
# ONNX Runtime itself. Not in the sanitizer trees: the library is loaded
# into an uninstrumented Python.
set(TTILE_HAVE_ONNXRUNTIME OFF)
if(TTILE_WITH_ONNXRUNTIME AND NOT TTILE_ENABLE_SANITIZERS AND NOT TTILE_ENABLE_TSAN)
  find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_cxx_api.h
    HINTS /opt/onnxruntime/include/onnxruntime /usr/include/onnxruntime)
  if(ONNXRUNTIME_INCLUDE_DIR)
    set(TTILE_HAVE_ONNXRUNTIME ON)
  endif()
endif()
if(TTILE_HAVE_ONNXRUNTIME)
  message(STATUS "ttile: ONNX Runtime headers found (${ONNXRUNTIME_INCLUDE_DIR}); building libttile-onnxruntime.so")
else()
  message(STATUS "ttile: ONNX Runtime headers not found (scripts/setup puts them in /opt/onnxruntime); no libttile-onnxruntime.so")
endif()

if(TTILE_BUILD_TESTS)
  find_package(GTest REQUIRED)
  # lit and FileCheck come from llvm-19-tools. LLVM's own copies are preferred
  # over a lit from pip or a FileCheck of another LLVM on PATH, so that the
  # test suite sees one consistent LLVM.
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  find_program(TTILE_LIT NAMES lit.py lit
    HINTS ${LLVM_TOOLS_BINARY_DIR}/../build/utils/lit
          /usr/lib/llvm-19/build/utils/lit /usr/lib/llvm-19/bin)
  find_program(TTILE_FILECHECK NAMES FileCheck
    HINTS ${LLVM_TOOLS_BINARY_DIR} /usr/lib/llvm-19/bin)
  if(NOT TTILE_LIT OR NOT TTILE_FILECHECK)
    message(FATAL_ERROR "ttile: lit or FileCheck not found; install llvm-19-tools "
                        "(scripts/setup) or configure with -DTTILE_BUILD_TESTS=OFF")
  endif()
endif()
