# The headers nearly every file of a target includes (nlohmann/json through harness/finding.h, fmt, the
# standard containers; GoogleTest in the tests) take 5 to 10 s to parse, longer than most of the files
# that include them. A target with many files parses them once, into a precompiled header, instead of
# once per file: on the 2-core CI machine that is several minutes of a clean build.
#
# ccache caches such builds only when told that the precompiled header's timestamps do not matter:
#   export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
option(GPUGRADE_PRECOMPILED_HEADERS "Parse the headers every file includes once per target" ON)

function(gpugrade_precompile_headers target)
  if(NOT GPUGRADE_PRECOMPILED_HEADERS)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    <algorithm> <cstdint> <filesystem> <map> <optional> <string> <string_view> <vector>
    <fmt/format.h> <nlohmann/json.hpp> ${ARGN})
  # Once <string> comes from a precompiled header, GCC 12 no longer treats the code it inlines as a system
  # header's, and reports its known false positives on that memcpy (`std::string(n, c) + "..."`,
  # `s + "literal"`, push_back("literal")) as errors under -Werror.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread)
  endif()
endfunction()

# A target whose flags match `owner`'s uses owner's precompiled header instead of making its own (the
# grader's stages: one parse for all of them). `owner` itself gets the header.
function(gpugrade_reuse_precompiled_headers target owner)
  if(target STREQUAL owner)
    gpugrade_precompile_headers(${target})
    return()
  endif()
  if(NOT GPUGRADE_PRECOMPILED_HEADERS)
    return()
  endif()
  target_precompile_headers(${target} REUSE_FROM ${owner})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Wno-array-bounds -Wno-stringop-overflow -Wno-stringop-overread)
  endif()
endfunction()
