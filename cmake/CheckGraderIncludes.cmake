# Keeps the grader's house in order, before any of it compiles. Fails, naming file:line, when
#  - a file of a grader stage (grader/<stage>/) includes a header of harness/sim, harness/gpu or harness/ptx,
#    or harness/backends.h: the grader knows backends only through harness/backend.h; grader/cli.cc and
#    main.cc, on top, make the backends through harness/backends.h;
#  - a file of a stage includes another stage's header that its gpugrade_grader_stage(... USES ...) does not
#    name (exercise/ including judge/, say), or a header of the top (grader/cli.h);
#  - a source sits in a folder of grader/ that is no stage.
# Usage: cmake -DROOT=<source dir> "-DSTAGES=<stage>=<used>,<used>;..." -DSTAMP=<file written when it passes>
#              -P CheckGraderIncludes.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/SourceIncludes.cmake)
set(stages "")
foreach(entry IN LISTS STAGES)
  string(REGEX MATCH "^([a-z_]+)=(.*)$" ignored "${entry}")
  list(APPEND stages "${CMAKE_MATCH_1}")
  string(REPLACE "," ";" "uses_${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}")
endforeach()

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/grader/*.cc" "${ROOT}/grader/*.h")
list(SORT files)
set(refused "")
foreach(file IN LISTS files)
  if(NOT file MATCHES "^grader/([^/]+)/")
    continue()  # the top: cli.cc, cli.h, main.cc may use every stage and the backends
  endif()
  set(stage "${CMAKE_MATCH_1}")
  if(NOT stage IN_LIST stages)
    string(APPEND refused "${file}:1: grader/${stage}/ is no stage of the grader: move the file into one, or "
                          "add the folder with gpugrade_grader_stage() in grader/CMakeLists.txt\n")
    continue()
  endif()
  set(allowed "${stage};${uses_${stage}}")
  source_includes("${ROOT}/${file}" includes)
  foreach(entry IN LISTS includes)
    string(REGEX MATCH "^([0-9]+)=(.*)$" ignored "${entry}")
    set(number "${CMAKE_MATCH_1}")
    set(included "${CMAKE_MATCH_2}")
    if(included MATCHES "^harness/(sim|gpu|ptx)/|^harness/backends\\.h$")
      string(APPEND refused "${file}:${number}: includes ${included}, which the grader library may not use: ask "
                            "the Backend (harness/backend.h) for its capabilities(), or make backends in "
                            "grader/cli.cc through harness/backends.h\n")
    elseif(included MATCHES "^grader/([^/]+)/")
      if(NOT CMAKE_MATCH_1 IN_LIST allowed)
        string(REPLACE ";" ", " named "${uses_${stage}}")
        if(named STREQUAL "")
          set(named "none")
        endif()
        string(APPEND refused "${file}:${number}: includes ${included}, but the ${stage} stage uses only "
                              "${named}: move what it needs down to a stage it uses, or name "
                              "${CMAKE_MATCH_1} in its USES if ${CMAKE_MATCH_1} sits below ${stage} "
                              "(docs/architecture.md)\n")
      endif()
    elseif(included MATCHES "^grader/[^/]+$")
      string(APPEND refused "${file}:${number}: includes ${included}, the command line on top of the grader, "
                            "which no stage may use: hand what the stage needs in from grader/cli.cc\n")
    endif()
  endforeach()
endforeach()
if(refused)
  message(FATAL_ERROR "${refused}")
endif()
file(TOUCH "${STAMP}")
