# Fails when a file of the grader library includes a header of harness/sim, harness/gpu or harness/ptx, or
# harness/backends.h: the grader knows backends only through harness/backend.h. grader/cli.cc and main.cc
# make the backends through harness/backends.h and are not part of the library.
# Usage: cmake -DROOT=<source dir> -DSTAMP=<file written when the check passes> -P CheckGraderIncludes.cmake
file(GLOB files "${ROOT}/grader/*.cc" "${ROOT}/grader/*.h")
list(REMOVE_ITEM files "${ROOT}/grader/main.cc" "${ROOT}/grader/cli.cc")
set(refused "")
foreach(file IN LISTS files)
  # One list element per line: the characters CMake lists treat specially are replaced first (an empty
  # line still counts, since CMake keeps empty elements of a list it splits this way).
  file(READ "${file}" text)
  string(REGEX REPLACE "[][;\\]" "_" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<](harness/(sim|gpu|ptx)/[^\">]*|harness/backends\\.h)[\">]")
      file(RELATIVE_PATH shown "${ROOT}" "${file}")
      string(APPEND refused "${shown}:${number}: includes ${CMAKE_MATCH_1}, which the grader library may not "
                            "use: ask the Backend (harness/backend.h) for its capabilities(), or make backends "
                            "in grader/cli.cc through harness/backends.h\n")
    endif()
  endforeach()
endforeach()
if(refused)
  message(FATAL_ERROR "${refused}")
endif()
file(TOUCH "${STAMP}")
