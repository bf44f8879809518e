// Invalid UTF-8 as users see it: each bad byte written \xNN, valid text (ASCII or not) untouched.
#include "grader/result/text_escape.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

TEST(TextEscape, ValidTextIsUnchanged) {
  EXPECT_EQ(escape_invalid_utf8("plain ascii\n"), "plain ascii\n");
  EXPECT_EQ(escape_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(TextEscape, EachInvalidByteIsWrittenInHex) {
  EXPECT_EQ(escape_invalid_utf8("caf\xE9"), "caf\\xE9");           // Latin-1, not UTF-8
  EXPECT_EQ(escape_invalid_utf8("\xFF\xFE"), "\\xFF\\xFE");
  EXPECT_EQ(escape_invalid_utf8("\xC0\xAF"), "\\xC0\\xAF");         // an overlong '/'
  EXPECT_EQ(escape_invalid_utf8("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
  EXPECT_EQ(escape_invalid_utf8("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(escape_invalid_utf8("ok\xE2\x82"), "ok\\xE2\\x82");     // cut short at the end
  EXPECT_EQ(escape_invalid_utf8("\xE2\x82x"), "\\xE2\\x82x");       // cut short by ASCII
}

}  // namespace
}  // namespace gpugrade
