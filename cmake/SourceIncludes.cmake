# source_includes(PATH OUT): the #include lines of the file at PATH, as a list of "LINE=HEADER" entries
# (quoted and angle-bracket includes alike), for the layering checks (CheckGraderIncludes.cmake,
# CheckHarnessIncludes.cmake) to judge each with its line number.
function(source_includes path out)
  # One list element per line: the characters CMake lists treat specially are replaced first (an empty
  # line still counts, since CMake keeps empty elements of a list it splits this way).
  file(READ "${path}" text)
  string(REGEX REPLACE "[][;\\]" "_" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  set(found "")
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    if(line MATCHES "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]*)[\">]")
      list(APPEND found "${number}=${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
