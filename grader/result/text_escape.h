// Text from outside the grader (compiler messages, file names, device printf, student ids) made safe for each
// place the grader writes it: one function per target format, so that no reporter escapes on its own.
// SECURITY.md says what these promise; tests/fuzz checks each format against arbitrary text.
#pragma once

#include <string>
#include <string_view>

namespace gpugrade {

// `text` with each byte that is not part of a well-formed UTF-8 sequence written as `\xNN` (two
// upper-case hex digits); valid text, ASCII or not, is returned unchanged. Overlong forms, surrogates and
// code points past U+10FFFF count as invalid, as they do for JSON and XML parsers.
std::string escape_invalid_utf8(std::string_view text);

// One field of learner text as a terminal or a CI log shows it, on one line: invalid UTF-8 and every control
// character but TAB (C0 with CR and LF, DEL, C1) as `\xNN`, and the bidirectional controls that reorder
// what a reader sees (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) as `\u{NNNN}`. No escape
// sequence, BEL, carriage return or line break of the text reaches the terminal.
std::string escape_for_terminal(std::string_view text);

// How a format writes ':' and '#' without their plain bytes (e.g. `\x3A`, `&#58;`, `\u003a`).
struct RunnerEscapes {
  std::string_view colon;
  std::string_view hash;
};
inline constexpr RunnerEscapes kTerminalRunnerEscapes{"\\x3A", "\\x23"};
inline constexpr RunnerEscapes kJsonRunnerEscapes{"\\u003a", "\\u0023"};  // in a JSON string
inline constexpr RunnerEscapes kMarkupRunnerEscapes{"&#58;", "&#35;"};    // in XML or HTML text

// `document` with no line a CI runner reads as a workflow command: GitHub Actions takes a line whose first
// characters past white space are `::`, and `##[` anywhere in a line. The first ':' of such a line and the
// second '#' of each `##[` are written as `escapes` gives. CR, CR LF and LF each end a line.
std::string guard_workflow_commands(std::string_view document, RunnerEscapes escapes);

// A value of a GitHub workflow command (`::error file=F,title=T::message`): one line whatever it holds,
// `%`, CR and LF percent-encoded; in a property, also ',' and ':', which end it. Invalid UTF-8 as `\xNN`.
std::string escape_workflow_command_value(std::string_view text, bool property);

// Element text (`attribute` false) or an attribute value of XML 1.0: markup escaped, and every character
// XML 1.0 cannot hold (C0 controls but TAB, LF and CR; U+FFFE, U+FFFF; invalid UTF-8) as U+FFFD. Line breaks
// in attributes are character references, so that a parser keeps them. No line of the result is a runner's
// workflow command.
std::string escape_xml(std::string_view text, bool attribute);

// Text in HTML element content or a quoted attribute value: `&`, `<`, `>`, `"` and `'` as references,
// invalid UTF-8 as `\xNN`. No line of the result is a runner's workflow command.
std::string escape_html(std::string_view text);

// Learner text in markdown (GitHub's flavour) as plain, inline text, readable in the raw file: a backslash
// only before what could start or end markup where it stands, so that nothing in it is markup, raw HTML or
// an autolink. Always: \ ` * ~ [ < | $; `_` unless inside a word (snake_case stays as it is); `&` before a
// reference's name; `:` of `://` and `.` of `www.` (autolinks); `#` before a digit (an issue reference);
// at the text's start, what starts a block (# > - + = and an ordered list's `1.` or `1)`). '@' becomes a
// code span (GitHub links an address `a@b.c` even with every character escaped); line breaks (CR, CR LF,
// LF) `<br>`, so the text stays on one source line; control and bidi characters as escape_for_terminal
// writes them; white space that starts it character references. Safe in a table cell, a heading and a list
// item.
std::string escape_markdown(std::string_view text);

// `text` as a markdown code span on one line: fenced by more backticks than any run inside, line breaks and
// controls as escape_for_terminal writes them, `|` escaped (GitHub splits table cells at it even in code).
std::string markdown_code(std::string_view text);

// `lines` (one per line) as a fenced markdown code block that no line can close: the fence is longer than
// any run of backticks inside, and each line is shown as escape_for_terminal writes it.
std::string markdown_code_block(std::string_view lines);

// One CSV field (RFC 4180) that a spreadsheet shows as text, never as a formula: a field starting with `=`,
// `+`, `-`, `@`, TAB or CR gets a leading `'`; a field with `,`, `"`, CR or LF is quoted.
std::string escape_csv_field(std::string_view text);

}  // namespace gpugrade
