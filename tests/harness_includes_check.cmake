# Runs cmake/CheckHarnessIncludes.cmake on a made-up source tree: an interpreter file that includes the
# checkers, a checker that includes the simulator's backend, the parser that includes the simulator, the
# GPU backend that includes the simulator, the core that includes a backend and any harness file that
# includes the grader must each be refused, naming its file and line; includes of a layer below must pass.
# Usage: cmake -DSCRIPT=<CheckHarnessIncludes.cmake> -DWORK=<scratch folder> -P harness_includes_check.cmake
set(root "${WORK}/harness-includes-root")
file(REMOVE_RECURSE "${root}")
file(WRITE "${root}/os/file.cc" "#include \"os/file.h\"\n")
file(WRITE "${root}/harness/backend.h" "#include \"harness/finding.h\"\n#include <vector>\n")
file(WRITE "${root}/harness/backends.cc" "#include \"harness/sim/sim_backend.h\"\n#include \"harness/gpu/gpu_backend.h\"\n")
file(WRITE "${root}/harness/ptx/module.h" "#include \"harness/backend.h\"\n")
file(WRITE "${root}/harness/sim/interpreter.cc" "#include \"harness/ptx/module.h\"\n#include \"harness/sim/access.h\"\n\n#include \"harness/sim/hazards.h\"\n")
file(WRITE "${root}/harness/sim/hazards.h" "// [a checker]; with a list separator\n#include \"harness/sim/access.h\"\n#include \"harness/sim/sim_backend.h\"\n")
file(WRITE "${root}/harness/sim/sim_backend.cc" "#include \"harness/sim/hazards.h\"\n#include \"harness/sim/interpreter.h\"\n")
file(WRITE "${root}/harness/ptx/parse.cc" "\n#include \"harness/sim/kernel.h\"\n")
file(WRITE "${root}/harness/gpu/job.cc" "#include \"os/process.h\"\n#include \"harness/sim/half.h\"\n")
file(WRITE "${root}/harness/banks.cc" "#include \"harness/gpu/job.h\"\n")
file(WRITE "${root}/os/process.cc" "#include \"harness/backend.h\"\n")
file(WRITE "${root}/harness/finding.cc" "#include \"grader/result/result.h\"\n")

execute_process(COMMAND "${CMAKE_COMMAND}" -DROOT=${root} -DSTAMP=${root}/checked -P "${SCRIPT}"
                RESULT_VARIABLE status ERROR_VARIABLE output)
# CMake wraps a message's lines: compare with every run of white space as one space.
string(REGEX REPLACE "[ \t\n]+" " " output "${output}")
if(status EQUAL 0)
  message(FATAL_ERROR "the check passed a harness whose layers include the layers above them")
endif()
foreach(expected
    "harness/sim/interpreter\\.cc:4: includes harness/sim/hazards\\.h \\(layer checkers\\), but the interpreter layer may use only interpreter, ptx, core, os"
    "harness/sim/hazards\\.h:3: includes harness/sim/sim_backend\\.h \\(layer sim_backend\\), but the checkers layer"
    "harness/ptx/parse\\.cc:2: includes harness/sim/kernel\\.h \\(layer interpreter\\), but the ptx layer"
    "harness/gpu/job\\.cc:2: includes harness/sim/half\\.h \\(layer interpreter\\), but the gpu layer"
    "harness/banks\\.cc:1: includes harness/gpu/job\\.h \\(layer gpu\\), but the core layer"
    "os/process\\.cc:1: includes harness/backend\\.h \\(layer core\\), but the os layer may use only os:"
    "harness/finding\\.cc:1: includes grader/result/result\\.h: the harness runs kernels for any caller")
  if(NOT output MATCHES "${expected}")
    message(FATAL_ERROR "the check's refusal lacks '${expected}':\n${output}")
  endif()
endforeach()
foreach(passed "harness/backends\\.cc:[0-9]+:" "harness/sim/sim_backend\\.cc:[0-9]+:" "harness/ptx/module\\.h:[0-9]+:"
        "os/file\\.cc:[0-9]+:" "harness/backend\\.h:[0-9]+:" "harness/sim/interpreter\\.cc:[12]:" "harness/sim/hazards\\.h:2:")
  if(output MATCHES "${passed} includes")
    message(FATAL_ERROR "the check refused an include of a layer below (${passed}):\n${output}")
  endif()
endforeach()
