# Keeps the harness's house in order, before any of it compiles: each file of harness/ and os/ sits on a
# layer, and may include only its own layer and the layers below it. Fails, naming file:line and the rule.
# The layers, from the floor up:
#   os            os/                       whole files, scratch folders, child processes
#   core          harness/*.h, *.cc         the Backend interface, findings, the bank model
#   ptx           harness/ptx/              PTX text to a decoded module
#   gpu           harness/gpu/              the CUDA driver API (beside ptx and sim, never above them)
#   interpreter   harness/sim/ but below    a block's threads run on the CPU; reports accesses (access.h)
#   checkers      harness/sim/ hazard*, shadow*, access_cost*, access_samples*: observe the accesses
#   sim_backend   harness/sim/sim_backend*  launches, with the checkers attached
#   factory       harness/backends.cc       the one place that names the backends
# Usage: cmake -DROOT=<source dir> -DSTAMP=<file written when it passes> -P CheckHarnessIncludes.cmake
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/SourceIncludes.cmake)

# The layer of a path relative to ROOT, or "" for a path outside the harness and os/.
function(layer_of path out)
  if(path MATCHES "^os/")
    set(layer os)
  elseif(path STREQUAL "harness/backends.cc")
    set(layer factory)
  elseif(path MATCHES "^harness/[^/]+$")
    set(layer core)
  elseif(path MATCHES "^harness/ptx/")
    set(layer ptx)
  elseif(path MATCHES "^harness/gpu/")
    set(layer gpu)
  elseif(path MATCHES "^harness/sim/sim_backend")
    set(layer sim_backend)
  elseif(path MATCHES "^harness/sim/(hazard|shadow|access_cost|access_samples)")
    set(layer checkers)
  elseif(path MATCHES "^harness/sim/")
    set(layer interpreter)
  else()
    set(layer "")
  endif()
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# What each layer may include besides itself.
set(below_os "")
set(below_core os)
set(below_ptx core os)
set(below_gpu core os)
set(below_interpreter ptx core os)
set(below_checkers interpreter ptx core os)
set(below_sim_backend checkers interpreter ptx core os)
set(below_factory sim_backend checkers interpreter gpu ptx core os)

file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/harness/*.cc" "${ROOT}/harness/*.h" "${ROOT}/os/*.cc"
     "${ROOT}/os/*.h")
list(SORT files)
set(refused "")
foreach(file IN LISTS files)
  layer_of("${file}" layer)
  set(allowed ${layer} ${below_${layer}})
  source_includes("${ROOT}/${file}" includes)
  foreach(entry IN LISTS includes)
    string(REGEX MATCH "^([0-9]+)=(.*)$" ignored "${entry}")
    set(number "${CMAKE_MATCH_1}")
    set(included "${CMAKE_MATCH_2}")
    if(included MATCHES "^grader/")
      string(APPEND refused "${file}:${number}: includes ${included}: the harness runs kernels for any caller "
                            "and knows nothing of the grader; hand what it needs in through harness/backend.h\n")
      continue()
    endif()
    layer_of("${included}" included_layer)
    if(included_layer STREQUAL "" OR included_layer IN_LIST allowed)
      continue()
    endif()
    string(REPLACE ";" ", " named "${allowed}")
    string(APPEND refused "${file}:${number}: includes ${included} (layer ${included_layer}), but the "
                          "${layer} layer may use only ${named}: move what it needs down, or hand it in "
                          "from above (cmake/CheckHarnessIncludes.cmake lists the layers)\n")
  endforeach()
endforeach()
if(refused)
  message(FATAL_ERROR "${refused}")
endif()
file(TOUCH "${STAMP}")
