# Finds oneDNN (libdnnl), the optional baseline of `ttile-bench compare`.
#
# Looks for the headers in DNNL_ROOT when given, then in /opt/onednn, where
# scripts/setup installs PyPI's build (pip puts it in <prefix>/local/ under
# Debian's own python3, in <prefix>/ under others), then in the system
# paths, where Debian's libdnnl-dev puts its build: the first found wins, so
# a newer pip build is preferred to Debian's older one. The library is taken
# from the installation whose headers were found.
#
# Defines DNNL_FOUND, DNNL_VERSION (from dnnl_version.h) and the imported
# target DNNL::dnnl.

find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp
  HINTS ${DNNL_ROOT} /opt/onednn
  PATH_SUFFIXES include local/include)
# The library of the same installation as the headers, never another's.
if(DNNL_INCLUDE_DIR)
  get_filename_component(dnnl_prefix ${DNNL_INCLUDE_DIR} DIRECTORY)
  find_library(DNNL_LIBRARY dnnl
    HINTS ${dnnl_prefix}
    PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE}
    NO_DEFAULT_PATH)
endif()

if(DNNL_INCLUDE_DIR AND EXISTS ${DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h)
  file(STRINGS ${DNNL_INCLUDE_DIR}/oneapi/dnnl/dnnl_version.h version_lines
    REGEX "#define DNNL_VERSION_(MAJOR|MINOR|PATCH) ")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    string(REGEX REPLACE ".*#define DNNL_VERSION_${part} ([0-9]+).*" "\\1"
      DNNL_VERSION_${part} "${version_lines}")
  endforeach()
  set(DNNL_VERSION ${DNNL_VERSION_MAJOR}.${DNNL_VERSION_MINOR}.${DNNL_VERSION_PATCH})
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(DNNL
  REQUIRED_VARS DNNL_LIBRARY DNNL_INCLUDE_DIR
  VERSION_VAR DNNL_VERSION)

if(DNNL_FOUND AND NOT TARGET DNNL::dnnl)
  add_library(DNNL::dnnl SHARED IMPORTED)
  set_target_properties(DNNL::dnnl PROPERTIES
    IMPORTED_LOCATION ${DNNL_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${DNNL_INCLUDE_DIR})
endif()
mark_as_advanced(DNNL_INCLUDE_DIR DNNL_LIBRARY)
