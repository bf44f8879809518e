# Runs cmake/CheckGraderIncludes.cmake on a made-up source tree: a grader stage's file that includes a
# simulator header, or a stage it does not use, or the command line, must be refused, naming its file and
# line; harness/backend.h and a used stage's header in a stage, and harness/backends.h in cli.cc, must pass.
# Usage: cmake -DSCRIPT=<CheckGraderIncludes.cmake> -DWORK=<scratch folder> -P grader_includes_check.cmake
set(root "${WORK}/grader-includes-root")
set(stages "exercise=" "judge=exercise" "report=exercise")
file(REMOVE_RECURSE "${root}")
file(WRITE "${root}/grader/exercise/good.cc" "#include \"harness/backend.h\"\n")
file(WRITE "${root}/grader/judge/good.cc" "#include \"grader/exercise/good.h\"\n#include \"grader/judge/x.h\"\n")
file(WRITE "${root}/grader/cli.cc" "#include \"harness/backends.h\"\n#include \"grader/report/r.h\"\n")
file(WRITE "${root}/grader/judge/bad.h" "// [a grader header]; with a list separator\n\n  #  include <harness/sim/hazards.h>\n")
file(WRITE "${root}/grader/exercise/upward.cc" "// the definition reaching up\n#include \"grader/judge/grade.h\"\n")
file(WRITE "${root}/grader/report/sideways.cc" "\n\n\n#include \"grader/judge/grade.h\"\n")
file(WRITE "${root}/grader/judge/top.cc" "#include \"grader/cli.h\"\n")
file(WRITE "${root}/grader/misc/loose.cc" "int x;\n")

function(run_check)
  execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} "-DSTAGES=${stages}" -DSTAMP=${root}/checked
                          -P "${SCRIPT}"
                  RESULT_VARIABLE status ERROR_VARIABLE output)
  # CMake wraps a message's lines: compare with every run of white space as one space.
  string(REGEX REPLACE "[ \t\n]+" " " output "${output}")
  set(status "${status}" PARENT_SCOPE)
  set(output "${output}" PARENT_SCOPE)
endfunction()

run_check()
if(status EQUAL 0)
  message(FATAL_ERROR "the check passed a tree with a backend header and upward includes in the grader")
endif()
foreach(expected
    "grader/judge/bad\\.h:3: includes harness/sim/hazards\\.h, which the grader library may not use"
    "grader/exercise/upward\\.cc:2: includes grader/judge/grade\\.h, but the exercise stage uses only none"
    "grader/report/sideways\\.cc:4: includes grader/judge/grade\\.h, but the report stage uses only exercise"
    "grader/judge/top\\.cc:1: includes grader/cli\\.h, the command line on top of the grader"
    "grader/misc/loose\\.cc:1: grader/misc/ is no stage of the grader")
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the check's refusal lacks '${expected}':\n${output}")
  endif()
endforeach()
if(output MATCHES "grader/(exercise/good|judge/good|cli)\\.cc:[0-9]")
  message(FATAL_ERROR "the check refused a file it should pass:\n${output}")
endif()
file(REMOVE "${root}/grader/judge/bad.h" "${root}/grader/exercise/upward.cc" "${root}/grader/report/sideways.cc"
     "${root}/grader/judge/top.cc" "${root}/grader/misc/loose.cc")
run_check()
if(NOT status EQUAL 0 OR NOT EXISTS "${root}/checked")
  message(FATAL_ERROR "the check refused a layered tree:\n${output}")
endif()
file(REMOVE_RECURSE "${root}")
