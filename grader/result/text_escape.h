// Text from outside the grader (compiler messages, file names) as valid UTF-8, so that every report format
// can carry it: JSON and XML cannot hold invalid bytes, and a terminal would print them as garbage.
#pragma once

#include <string>
#include <string_view>

namespace gpugrade {

// `text` with each byte that is not part of a well-formed UTF-8 sequence written as `\xNN` (two
// upper-case hex digits); valid text, ASCII or not, is returned unchanged. Overlong forms, surrogates and
// code points past U+10FFFF count as invalid, as they do for JSON and XML parsers.
std::string escape_invalid_utf8(std::string_view text);

}  // namespace gpugrade
