// Every escape the grader applies to text from outside, one per target format. Each walks the text as UTF-8
// by the table of well-formed byte sequences (Unicode 15, table 3-7), so that a format never sees a byte it
// cannot hold.
#include "grader/result/text_escape.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpugrade {
namespace {

// The length of the well-formed sequence at text[pos], or 0 when the byte there does not start one.
size_t sequence_length(std::string_view text, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(pos);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // no overlong forms
    if (lead == 0xED) high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // no overlong forms
    if (lead == 0xF4) high = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (pos + length > text.size()) return 0;
  if (byte(pos + 1) < low || byte(pos + 1) > high) return 0;
  for (size_t i = 2; i < length; ++i)
    if (byte(pos + i) < 0x80 || byte(pos + i) > 0xBF) return 0;
  return length;
}

// The code point of a well-formed sequence of `length` bytes at text[pos].
char32_t code_point(std::string_view text, size_t pos, size_t length) {
  const auto byte = [&](size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[pos + i]));
  };
  if (length == 1) return byte(0);
  char32_t value = byte(0) & (0xFF >> (length + 1));
  for (size_t i = 1; i < length; ++i) value = value << 6 | (byte(i) & 0x3F);
  return value;
}

bool is_bidi_control(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

// What a terminal must not be handed raw: it moves the cursor, rings, reorders or breaks the line.
bool is_control(char32_t c) {
  return (c < 0x20 && c != '\t') || (c >= 0x7F && c <= 0x9F) || is_bidi_control(c);
}

// White space that GitHub's runner trims from a line before it looks for `::` (.NET's Char.IsWhiteSpace).
bool is_runner_white_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool is_word_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `word` (lower case) ends just before `at` in `line`, starting a word.
bool follows(std::string_view line, size_t at, std::string_view word) {
  if (at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[at - word.size() + i])) != word[i]) return false;
  return at == word.size() || !is_word_character(line[at - word.size() - 1]);
}

// Whether the character at `at` of `line` could start or end markup (GitHub's flavour) there, and so needs
// its backslash. `block_start`: the line's first character may start a block (a heading, a list item, a
// quote), as it does after a list item's "- ".
bool markup_at(std::string_view line, size_t at, bool block_start) {
  const char c = line[at];
  const char after = at + 1 < line.size() ? line[at + 1] : ' ';
  const bool first = block_start && at == 0;
  // An ordered list item's number (at most 9 digits) ends with '.' or ')' where a block starts: "12. ".
  if ((c == '.' || c == ')') && block_start && at > 0 && at <= 9 &&
      std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(at),
                  [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))
    return true;
  switch (c) {
    case '\\':  // an escape of what follows
    case '`':   // a code span
    case '*':   // emphasis, also inside a word
    case '~':   // strikethrough, also a fence
    case '[':   // a link, an image, a footnote, a reference
    case '<':   // raw HTML, an autolink
    case '|':   // a table cell
    case '$':   // math
      return true;
    case '&':  // a character reference: &amp; &#60;
      return std::isalnum(static_cast<unsigned char>(after)) || after == '#';
    case ':':  // an autolink: http:// https:// ftp://
      return after == '/';
    case '.':  // an autolink: www.
      return follows(line, at, "www");
    case '#':  // a heading, and on GitHub an issue reference (#12)
      return first || std::isdigit(static_cast<unsigned char>(after));
    case '>':
    case '-':
    case '+':
    case '=':  // a quote, a list item, a setext underline
      return first;
    default:
      break;
  }
  return false;
}

// Calls `piece(line)` for each line of `text` and `line_break()` between two lines; CR LF, CR and LF each end
// a line.
template <class Piece, class Break>
void for_each_line(std::string_view text, Piece piece, Break line_break) {
  for (size_t start = 0;;) {
    const size_t end = text.find_first_of("\r\n", start);
    piece(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return;
    line_break();
    start = end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
  }
}

// The longest run of backticks in `text`.
size_t longest_backtick_run(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

}  // namespace

std::string escape_invalid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t length = sequence_length(text, pos);
    if (length == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[pos]));
      ++pos;
    } else {
      out.append(text, pos, length);
      pos += length;
    }
  }
  return out;
}

std::string escape_for_terminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const size_t length = sequence_length(text, pos);
    const char32_t c = length == 0 ? 0 : code_point(text, pos, length);
    if (length == 0 || (length == 1 && is_control(c))) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[pos]));
      ++pos;
      continue;
    }
    if (is_control(c))
      out += fmt::format("\\u{{{:04X}}}", static_cast<uint32_t>(c));
    else
      out.append(text, pos, length);
    pos += length;
  }
  return out;
}

std::string guard_workflow_commands(std::string_view document, RunnerEscapes escapes) {
  std::string out;
  out.reserve(document.size());
  for (size_t start = 0; start < document.size();) {
    size_t end = document.find_first_of("\r\n", start);
    if (end == std::string_view::npos) end = document.size();
    const std::string_view line = document.substr(start, end - start);
    size_t text = 0;  // where the line's first character past white space starts
    while (text < line.size()) {
      const size_t length = sequence_length(line, text);
      if (length == 0 || !is_runner_white_space(code_point(line, text, length))) break;
      text += length;
    }
    out.append(line.substr(0, text));
    for (size_t i = text; i < line.size();) {
      if (i == text && line.substr(i, 2) == "::") {
        out += escapes.colon;
        ++i;
      } else if (line.substr(i, 3) == "##[") {
        out += '#';
        out += escapes.hash;
        out += '[';
        i += 3;
      } else {
        out += line[i++];
      }
    }
    const size_t next = document.find_first_not_of("\r\n", end);
    out.append(document.substr(end, (next == std::string_view::npos ? document.size() : next) - end));
    start = next == std::string_view::npos ? document.size() : next;
  }
  return out;
}

std::string escape_workflow_command_value(std::string_view text, bool property) {
  std::string out;
  for (char c : escape_invalid_utf8(text)) {
    switch (c) {
      case '%':
        out += "%25";
        break;
      case '\r':
        out += "%0D";
        break;
      case '\n':
        out += "%0A";
        break;
      case ':':
        out += property ? "%3A" : ":";
        break;
      case ',':
        out += property ? "%2C" : ",";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escape_xml(std::string_view text, bool attribute) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t length = sequence_length(text, i);
    const char32_t c = length == 0 ? 0 : code_point(text, i, length);
    const bool allowed =
        length != 0 && (c >= 0x20 || c == '\t' || c == '\n' || c == '\r') && c != 0xFFFE && c != 0xFFFF;
    i += std::max<size_t>(length, 1);
    if (!allowed) {
      out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 cannot hold this character at all
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += attribute ? "&quot;" : "\"";
        break;
      case '\n':
        out += attribute ? "&#10;" : "\n";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += attribute ? "&#9;" : "\t";
        break;
      default:
        out.append(text.substr(i - length, length));
    }
  }
  return guard_workflow_commands(out, kMarkupRunnerEscapes);
}

std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : escape_invalid_utf8(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return guard_workflow_commands(out, kMarkupRunnerEscapes);
}

std::string escape_markdown(std::string_view text) {
  std::string out;
  // White space where a list item or heading starts its text would make an indented code block of it.
  const size_t indent = std::min(text.find_first_not_of(" \t"), text.size());
  for (char c : text.substr(0, indent)) out += c == ' ' ? "&#32;" : "&#9;";
  text.remove_prefix(indent);
  bool starts_block = true;  // the text's first character may start a heading, a list, a quote, a fence
  for_each_line(
      text,
      [&](std::string_view line) {
        const std::string shown = escape_for_terminal(line);
        for (size_t i = 0; i < shown.size(); ++i) {
          const char c = shown[i];
          // GitHub links `a@b.c` whatever is escaped in it; a code span keeps the '@' out of the address.
          if (c == '@') {
            out += "`@`";
            continue;
          }
          // `_` is emphasis, except a run of them with a letter or digit on both sides (snake_case).
          if (c == '_') {
            size_t end = i;
            while (end < shown.size() && shown[end] == '_') ++end;
            const bool in_word = i > 0 && std::isalnum(static_cast<unsigned char>(shown[i - 1])) &&
                                 end < shown.size() && std::isalnum(static_cast<unsigned char>(shown[end]));
            for (; i < end; ++i) out += in_word ? "_" : "\\_";
            --i;
            continue;
          }
          if (markup_at(shown, i, starts_block)) out += '\\';
          out += c;
        }
        starts_block = false;  // a line break is <br>: what follows it is on the same source line
      },
      [&] { out += "<br>"; });
  return out;
}

std::string markdown_code(std::string_view text) {
  std::string shown;
  for (char c : escape_for_terminal(text)) {
    if (c == '|') shown += '\\';
    shown += c;
  }
  // Markdown has no escapes inside code: a command is broken as the terminal would show it.
  shown = guard_workflow_commands(shown, kTerminalRunnerEscapes);
  const std::string fence(longest_backtick_run(shown) + 1, '`');
  const bool pad = !shown.empty() && (shown.front() == '`' || shown.back() == '`');
  return fence + (pad ? " " : "") + shown + (pad ? " " : "") + fence;
}

std::string markdown_code_block(std::string_view lines) {
  if (lines.ends_with('\n')) lines.remove_suffix(1);
  if (lines.ends_with('\r')) lines.remove_suffix(1);
  std::string shown;
  for_each_line(
      lines, [&](std::string_view line) { shown += escape_for_terminal(line); }, [&] { shown += '\n'; });
  shown = guard_workflow_commands(shown, kTerminalRunnerEscapes);
  const std::string fence(std::max<size_t>(3, longest_backtick_run(shown) + 1), '`');
  return fence + '\n' + shown + '\n' + fence + '\n';
}

std::string escape_csv_field(std::string_view text) {
  std::string field(text);
  // A spreadsheet reads these as the start of a formula (or, for TAB and CR, skips to one).
  if (!field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos)
    field.insert(0, 1, '\'');
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace gpugrade
