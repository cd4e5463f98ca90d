# The layering, enforced by the build: a target sees the headers of a
# library under src/ only when it links that library.
#
# Every source includes project headers as "<folder>/<name>.h" (relative to
# src/). Instead of putting src/ itself on the include path, which would let
# any folder include any other, each library links its own headers into a
# folder of the build tree, <build>/include/<target>/<folder>/<name>.h, and
# makes that folder its PUBLIC include directory: the headers reach the
# library and what links it, and nothing else. A header of a library a
# target does not link is "No such file or directory".

# xfer_headers(<target> FOLDERS <folder>... [EXCLUDE <header>...]
#              [HEADERS <header>...])
# Exposes every *.h of each FOLDER (relative to src/, not recursive) except
# EXCLUDE, plus each single HEADER (relative to src/), as headers of
# <target>. The lists are globbed again when a header is added or removed.
function(xfer_headers target)
  cmake_parse_arguments(H "" "" "FOLDERS;EXCLUDE;HEADERS" ${ARGN})
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  file(REMOVE_RECURSE ${root})
  set(headers ${H_HEADERS})
  foreach(folder IN LISTS H_FOLDERS)
    file(GLOB found CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/src
         ${PROJECT_SOURCE_DIR}/src/${folder}/*.h)
    list(APPEND headers ${found})
  endforeach()
  if(H_EXCLUDE)
    list(REMOVE_ITEM headers ${H_EXCLUDE})
  endif()
  foreach(header IN LISTS headers)
    get_filename_component(dir ${root}/${header} DIRECTORY)
    file(MAKE_DIRECTORY ${dir})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${header} ${root}/${header} SYMBOLIC)
  endforeach()
  file(MAKE_DIRECTORY ${root})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()
