# Runs cmake/CheckGraderIncludes.cmake on a made-up source tree: a grader file that includes a simulator
# header must be refused, naming its file and line; harness/backend.h in the library, and
# harness/backends.h in cli.cc, must pass.
# Usage: cmake -DSCRIPT=<CheckGraderIncludes.cmake> -DWORK=<scratch folder> -P grader_includes_check.cmake
set(root "${WORK}/grader-includes-root")
file(REMOVE_RECURSE "${root}")
file(WRITE "${root}/grader/good.cc" "#include \"harness/backend.h\"\n")
file(WRITE "${root}/grader/cli.cc" "#include \"harness/backends.h\"\n")
file(WRITE "${root}/grader/bad.h" "// [a grader header]; with a list separator\n\n  #  include <harness/sim/hazards.h>\n")
execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -DSTAMP=${root}/checked -P "${SCRIPT}"
                RESULT_VARIABLE status ERROR_VARIABLE output)
# CMake wraps a message's lines: compare with every run of white space as one space.
string(REGEX REPLACE "[ \t\n]+" " " output "${output}")
if(status EQUAL 0)
  message(FATAL_ERROR "the check passed grader/bad.h, which includes harness/sim/hazards.h")
endif()
if(NOT output MATCHES "grader/bad\\.h:3: includes harness/sim/hazards\\.h, which the grader library may not use")
  message(FATAL_ERROR "the check's refusal does not name grader/bad.h:3:\n${output}")
endif()
if(output MATCHES "grader/(good|cli)\\.cc:[0-9]")
  message(FATAL_ERROR "the check refused a file it should pass:\n${output}")
endif()
file(REMOVE "${root}/grader/bad.h")
execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -DSTAMP=${root}/checked -P "${SCRIPT}"
                RESULT_VARIABLE status ERROR_VARIABLE output)
if(NOT status EQUAL 0 OR NOT EXISTS "${root}/checked")
  message(FATAL_ERROR "the check refused a tree without backend headers in the grader:\n${output}")
endif()
file(REMOVE_RECURSE "${root}")
