# The installable library and its CMake package.
#
# Inside the build, ttile is a set of static component libraries
# (ttileSupport, ttileSpec, ...). What is installed is one shared library,
# libttile.so, that contains all of them, plus the public headers under
# include/ttile. A consumer writes
#
#   find_package(ttile REQUIRED)
#   target_link_libraries(app PRIVATE ttile::ttile)
#
# and sees neither the components nor LLVM: those are private to libttile.so.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The components that exist so far, in dependency order. Later components
# join the library by existing; nothing here needs editing when they land.
set(TTILE_COMPONENT_TARGETS)
foreach(c IN ITEMS Support Spec Scheme CodeGen JIT Measure Cache Search Runtime)
  if(TARGET ttile${c})
    list(APPEND TTILE_COMPONENT_TARGETS ttile${c})
  endif()
endforeach()

# add_library needs a source; the component archives supply the code.
set(TTILE_EMPTY_SOURCE ${PROJECT_BINARY_DIR}/ttile_empty.cpp)
file(CONFIGURE OUTPUT ${TTILE_EMPTY_SOURCE}
     CONTENT "// libttile.so is made of the ttile component archives.\n")

add_library(ttile SHARED ${TTILE_EMPTY_SOURCE})
add_library(ttile::ttile ALIAS ttile)
set_target_properties(ttile PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  EXPORT_NAME ttile)

# WHOLE_ARCHIVE keeps every object of every component, not only those that
# the (empty) source references: the public API lives in the archives. The
# components are wrapped in BUILD_INTERFACE so that they stay out of the
# exported interface; a consumer links libttile.so alone.
#
# The components also reach the link line plainly, through each other's
# PUBLIC dependencies (ttileSpec -> ttileSupport); the override settles that
# conflict in favour of WHOLE_ARCHIVE. They are listed users first: CMake
# repeats a library that precedes one of its users, and an archive repeated
# whole defines every symbol twice.
if(TTILE_COMPONENT_TARGETS)
  set(link_order ${TTILE_COMPONENT_TARGETS})
  list(REVERSE link_order)
  target_link_libraries(ttile PRIVATE
    "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${link_order}>>")
  string(REPLACE ";" "," components_csv "${TTILE_COMPONENT_TARGETS}")
  set_property(TARGET ttile PROPERTY
    LINK_LIBRARY_OVERRIDE "WHOLE_ARCHIVE,${components_csv}")
endif()
target_link_libraries(ttile PRIVATE
  $<BUILD_INTERFACE:ttile_llvm> $<BUILD_INTERFACE:spdlog::spdlog> Threads::Threads)
if(TARGET ttile_papi)
  target_link_libraries(ttile PRIVATE $<BUILD_INTERFACE:ttile_papi>)
endif()
# The API alone is exported: the components are compiled with hidden
# visibility, and the version script also keeps local what their code
# instantiates of the standard library's templates (default visibility by
# the library's own attributes).
set(TTILE_VERSION_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/libttile.map)
target_link_options(ttile PRIVATE "LINKER:--version-script=${TTILE_VERSION_SCRIPT}")
set_property(TARGET ttile APPEND PROPERTY LINK_DEPENDS ${TTILE_VERSION_SCRIPT})
# A missing symbol in a component must fail here, not in a consumer's link.
# (Not under the sanitizers: their runtime is linked into executables only.)
if(NOT TTILE_ENABLE_SANITIZERS)
  target_link_options(ttile PRIVATE LINKER:--no-undefined)
endif()

target_include_directories(ttile PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The public headers need C++17 (ttile itself is C++20, privately):
# examples/matmul is built as C++17 by scripts/test-examples.
target_compile_features(ttile PUBLIC cxx_std_17)

install(TARGETS ttile EXPORT ttileTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# Public headers: include/ttile/*.h and the generated Version.h. Private
# headers stay in lib/<Component>.
file(GLOB TTILE_PUBLIC_HEADERS CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/include/ttile/*.h)
install(FILES ${TTILE_PUBLIC_HEADERS}
              ${PROJECT_BINARY_DIR}/include/ttile/Version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ttile)

# The command-line tools install themselves (tools/<name>/CMakeLists.txt).

set(TTILE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/ttile)
install(EXPORT ttileTargets
  NAMESPACE ttile::
  FILE ttileTargets.cmake
  DESTINATION ${TTILE_INSTALL_CMAKEDIR})

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ttileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ttileConfig.cmake
  INSTALL_DESTINATION ${TTILE_INSTALL_CMAKEDIR})
# 0.x releases make no compatibility promise beyond the minor version.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/ttileConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/ttileConfig.cmake
  ${PROJECT_BINARY_DIR}/ttileConfigVersion.cmake
  DESTINATION ${TTILE_INSTALL_CMAKEDIR})

# pkg-config, for builds without CMake: `cc app.c $(pkg-config --cflags
# --libs ttile)`. The prefix is found from the .pc file's own place
# (${pcfiledir}), so that an installation moved or made with
# `cmake --install --prefix` elsewhere still finds its files.
file(RELATIVE_PATH TTILE_PC_TO_PREFIX
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" TTILE_PC_TO_PREFIX "${TTILE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ttile.pc.in
               ${PROJECT_BINARY_DIR}/ttile.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ttile.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
