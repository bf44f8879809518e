// Text from outside as each format writes it: invalid UTF-8 and terminal controls as \xNN, runner commands
// broken, markup escaped, formulas defused; valid plain text (ASCII or not) untouched.
#include "grader/result/text_escape.h"

#include <gtest/gtest.h>

#include "tests/fuzz/output_checks.h"

namespace gpugrade {
namespace {

// Plain text as cmark-gfm writes it in HTML.
std::string escape_html_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

TEST(TextEscape, ValidTextIsUnchanged) {
  EXPECT_EQ(escape_invalid_utf8("plain ascii\n"), "plain ascii\n");
  EXPECT_EQ(escape_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
}

TEST(TextEscape, EachInvalidByteIsWrittenInHex) {
  EXPECT_EQ(escape_invalid_utf8("caf\xE9"), "caf\\xE9");  // Latin-1, not UTF-8
  EXPECT_EQ(escape_invalid_utf8("\xFF\xFE"), "\\xFF\\xFE");
  EXPECT_EQ(escape_invalid_utf8("\xC0\xAF"), "\\xC0\\xAF");                    // an overlong '/'
  EXPECT_EQ(escape_invalid_utf8("\xED\xA0\x80"), "\\xED\\xA0\\x80");           // a surrogate
  EXPECT_EQ(escape_invalid_utf8("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  EXPECT_EQ(escape_invalid_utf8("ok\xE2\x82"), "ok\\xE2\\x82");                // cut short at the end
  EXPECT_EQ(escape_invalid_utf8("\xE2\x82x"), "\\xE2\\x82x");                  // cut short by ASCII
}

TEST(TextEscape, TerminalControlsAreShownNotObeyed) {
  EXPECT_EQ(escape_for_terminal("caf\xC3\xA9\tok"), "caf\xC3\xA9\tok");
  EXPECT_EQ(escape_for_terminal("\x1B[2J\x1B]0;t\x07"),
            "\\x1B[2J\\x1B]0;t\\x07");  // clear screen, title, bell
  EXPECT_EQ(escape_for_terminal("fake\rcopy: PASS\nnext"), "fake\\x0Dcopy: PASS\\x0Anext");
  EXPECT_EQ(escape_for_terminal("del\x7F c1\xC2\x9B"), "del\\x7F c1\\u{009B}");  // DEL; C1 CSI
  EXPECT_EQ(escape_for_terminal("a\xE2\x80\xAE"
                                "b\xE2\x81\xA6"),
            "a\\u{202E}b\\u{2066}");                  // bidi overrides
  EXPECT_EQ(escape_for_terminal("x\x9B"), "x\\x9B");  // a lone C1 byte
}

TEST(TextEscape, NoLineBecomesARunnerCommand) {
  EXPECT_EQ(guard_workflow_commands("plain: text\n", kTerminalRunnerEscapes), "plain: text\n");
  EXPECT_EQ(guard_workflow_commands("::add-mask::x", kTerminalRunnerEscapes), "\\x3A:add-mask::x");
  EXPECT_EQ(guard_workflow_commands("ok\n \t::error::x", kTerminalRunnerEscapes), "ok\n \t\\x3A:error::x");
  EXPECT_EQ(guard_workflow_commands("a\r::x::y\r\n::z::w", kTerminalRunnerEscapes),
            "a\r\\x3A:x::y\r\n\\x3A:z::w");
  EXPECT_EQ(guard_workflow_commands("\xC2\xA0::x::y", kTerminalRunnerEscapes),
            "\xC2\xA0\\x3A:x::y");  // NBSP is trimmed
  EXPECT_EQ(guard_workflow_commands("a ##[error]b ###[c", kTerminalRunnerEscapes),
            "a #\\x23[error]b ##\\x23[c");
  EXPECT_EQ(guard_workflow_commands("mid :: line", kTerminalRunnerEscapes), "mid :: line");
  EXPECT_EQ(guard_workflow_commands("\"##[x\"", kJsonRunnerEscapes), "\"#\\u0023[x\"");
}

TEST(TextEscape, XmlHoldsOnlyWhatXmlMay) {
  EXPECT_EQ(escape_xml("a<b>&\"c\"", true), "a&lt;b&gt;&amp;&quot;c&quot;");
  EXPECT_EQ(escape_xml("x\xEF\xBF\xBEy\xEF\xBF\xBFz", false),
            "x\xEF\xBF\xBDy\xEF\xBF\xBDz");  // U+FFFE, U+FFFF
  EXPECT_EQ(escape_xml("\x01\xFF", false), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(escape_xml("line\n::add-mask::x", false), "line\n&#58;:add-mask::x");
}

TEST(TextEscape, MarkdownTextIsNeverMarkup) {
  EXPECT_EQ(escape_markdown("plain words"), "plain words");
  EXPECT_EQ(escape_markdown("<img src=x>"), "\\<img src=x>");
  EXPECT_EQ(escape_markdown("https://e.x"), "https\\://e.x");
  EXPECT_EQ(escape_markdown("see www.e.x"), "see www\\.e.x");
  EXPECT_EQ(escape_markdown("a\r\nb\rc\nd"), "a<br>b<br>c<br>d");
  EXPECT_EQ(escape_markdown("me@evil.example"), "me`@`evil.example");
  EXPECT_EQ(escape_markdown("  \tcode"), "&#32;&#32;&#9;code");  // not an indented code block after "- "
  EXPECT_EQ(escape_markdown("\x1B[0m"), "\\\\x1B\\[0m");
}

// A raw .md report stays readable: a backslash only where the character could be markup where it stands.
TEST(TextEscape, MarkdownEscapesOnlyWhatCouldBeMarkupThere) {
  EXPECT_EQ(escape_markdown("out_of_range at tile[ty][tx] (float*), 1.5 - 2 = -0.5; done: 3/4 (75%)!"),
            "out_of_range at tile\\[ty]\\[tx] (float\\*), 1.5 - 2 = -0.5; done: 3/4 (75%)!");
  EXPECT_EQ(escape_markdown("_a_ __b__ a_b_ c__d"), "\\_a\\_ \\_\\_b\\_\\_ a_b\\_ c__d");
  EXPECT_EQ(escape_markdown("a & b &amp; &#60;"), "a & b \\&amp; \\&\\#60;");
  EXPECT_EQ(escape_markdown("~~x~~ `y` $z$ a|b \\n"), "\\~\\~x\\~\\~ \\`y\\` \\$z\\$ a\\|b \\\\n");
  EXPECT_EQ(escape_markdown("see #12, not C# or #x"), "see \\#12, not C# or #x");
  // At the text's start, what starts a block there; the same characters later are plain.
  for (const char* block : {"# h", "> q", "- l", "+ l", "= s", "1. o", "12) o"}) {
    const std::string escaped = escape_markdown(block);
    EXPECT_NE(escaped.find('\\'), std::string::npos) << block << " -> " << escaped;
    EXPECT_EQ(escape_markdown(std::string("x ") + block), std::string("x ") + block);
  }
  EXPECT_EQ(escape_markdown("1. o"), "1\\. o");
  EXPECT_EQ(escape_markdown("a\n# not a heading after a break"), "a<br># not a heading after a break");
  // Whatever is left unescaped renders as the text itself, in a list item and in a table cell.
  for (const char* text :
       {"out_of_range at tile[ty][tx] (float*), 1.5 - 2 = -0.5; done: 3/4 (75%)!",
        "a_b_ c__d x & y; C# 1.5 -2 +3 a=b a>b? (x) {y} 'q' \"r\" ^ ! :: ..", "www2.e.x"}) {
    const std::string item = checks::render_markdown(std::string("- ") + escape_markdown(text) + "\n");
    EXPECT_EQ(item, "<ul>\n<li>" + escape_html_text(text) + "</li>\n</ul>\n") << text;
    const std::string cell = checks::render_markdown("| h |\n| --- |\n| " + escape_markdown(text) + " |\n");
    EXPECT_NE(cell.find("<td>" + escape_html_text(text) + "</td>"), std::string::npos) << cell;
  }
}

TEST(TextEscape, MarkdownCodeCannotBeClosedFromInside) {
  EXPECT_EQ(markdown_code("a`b"), "``a`b``");
  EXPECT_EQ(markdown_code("`x"), "`` `x ``");
  EXPECT_EQ(markdown_code("a|b"), "`a\\|b`");
  EXPECT_EQ(markdown_code("a\nb"), "`a\\x0Ab`");
  EXPECT_EQ(markdown_code_block("one\n```\ntwo\n"), "````\none\n```\ntwo\n````\n");
  EXPECT_EQ(markdown_code_block("a\rb"), "```\na\nb\n```\n");
}

TEST(TextEscape, CsvFieldsAreNeverFormulas) {
  EXPECT_EQ(escape_csv_field("ann"), "ann");
  EXPECT_EQ(escape_csv_field("=1+1"), "'=1+1");
  EXPECT_EQ(escape_csv_field("+1"), "'+1");
  EXPECT_EQ(escape_csv_field("-1"), "'-1");
  EXPECT_EQ(escape_csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(escape_csv_field("\t=1"), "'\t=1");
  EXPECT_EQ(escape_csv_field("\r=1"), "\"'\r=1\"");
  EXPECT_EQ(escape_csv_field("=HYPERLINK(\"u\",\"t\")"), "\"'=HYPERLINK(\"\"u\"\",\"\"t\"\")\"");
}

}  // namespace
}  // namespace gpugrade
