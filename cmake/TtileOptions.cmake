# Build options and warning flags shared by every ttile target.

option(TTILE_BUILD_TESTS "Build the unit tests and the lit test suite" ON)
option(TTILE_ENABLE_SANITIZERS "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(TTILE_ENABLE_TSAN "Build with ThreadSanitizer (the concurrency stage of scripts/test)" OFF)
option(TTILE_ENABLE_FUZZERS "Build the libFuzzer targets (requires Clang)" OFF)
option(TTILE_WITH_PAPI "Use PAPI for hardware counters when it is found" ON)
option(TTILE_WITH_PYTHON "Build the Python module when pybind11 and Python's headers are found" ON)
option(TTILE_WITH_ONEDNN "Compare with oneDNN in ttile-bench when it is found" ON)
option(TTILE_WITH_ONNXRUNTIME "Build the ONNX Runtime custom-op library when its headers are found" ON)

# Warnings apply to ttile's own code only, through this interface target.
add_library(ttile_warnings INTERFACE)
target_compile_options(ttile_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Wunused -Woverloaded-virtual -Wnull-dereference
  -Wimplicit-fallthrough)

if(TTILE_ENABLE_SANITIZERS)
  # -fsanitize=function checks every indirect call by reading a signature
  # stored just before the callee; JIT-compiled kernels have none, and the
  # read faults when a kernel starts a page. ttile calls JIT code by design.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=function
                      -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

if(TTILE_ENABLE_TSAN)
  if(TTILE_ENABLE_SANITIZERS)
    message(FATAL_ERROR "TTILE_ENABLE_TSAN and TTILE_ENABLE_SANITIZERS exclude "
                        "each other: ThreadSanitizer cannot run with AddressSanitizer")
  endif()
  # Only ttile's own code is instrumented: LLVM's shared library and the
  # JIT-compiled kernels are not, so TSan sees ttile's threads, locks and
  # atomics, not the kernels' loads and stores (scripts/tsan.supp).
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# ccache makes the several build trees of a developer (plain, sanitizers,
# fuzzers) cheap; CI's clean clone gains nothing but loses nothing either.
find_program(TTILE_CCACHE ccache)
if(TTILE_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER ${TTILE_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${TTILE_CCACHE})
endif()
