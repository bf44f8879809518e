// Technique counts from PTX text: each body ({...} of the entry and of every .func) is read line by line,
// instructions are classified by their opcode, and a branch to a label above it marks a loop.
#include "grader/exercise/technique.h"

#include <cctype>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpugrade {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_label_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

// The bodies to read: the entries' and every .func's, as line ranges of `lines`.
std::vector<std::pair<size_t, size_t>> bodies(const std::vector<std::string_view>& lines,
                                              const std::vector<std::string_view>& entries) {
  std::vector<std::pair<size_t, size_t>> found;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const size_t at = line.find(".entry ");
    const std::string_view rest =
        at == std::string_view::npos ? std::string_view() : trim(line.substr(at + 7));
    bool is_entry = false;
    for (std::string_view entry : entries)
      is_entry = is_entry || (rest.starts_with(entry) &&
                              (rest.size() == entry.size() || !is_label_char(rest[entry.size()])));
    const bool is_func = line.find(".func ") != std::string_view::npos;
    if (!is_entry && !is_func) continue;
    // The body: from the next line that opens a brace to the brace that closes it.
    size_t open = i;
    while (open < lines.size() && lines[open].find('{') == std::string_view::npos) {
      if (lines[open].find(';') != std::string_view::npos) break;  // a declaration without a body
      ++open;
    }
    if (open >= lines.size() || lines[open].find('{') == std::string_view::npos) continue;
    int depth = 0;
    size_t close = open;
    for (; close < lines.size(); ++close) {
      for (char c : lines[close]) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      if (depth <= 0) break;
    }
    found.emplace_back(open, close);
    i = close;
  }
  return found;
}

// The opcode of an instruction line ("atom.global.add.u32"), skipping a guard (`@%p1`); empty for
// directives, labels and braces.
std::string_view opcode_of(std::string_view line) {
  line = trim(line);
  if (line.starts_with('@')) {
    const size_t space = line.find_first_of(" \t");
    if (space == std::string_view::npos) return {};
    line = trim(line.substr(space));
  }
  if (line.empty() || line.front() == '.' || line.front() == '{' || line.front() == '}' ||
      line.front() == '$')
    return {};
  return line.substr(0, line.find_first_of(" \t;"));
}

bool starts_with_any(std::string_view op, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (op == p || op.starts_with(std::string(p) + ".")) return true;
  return false;
}

// "1 6 5" -> (1, 6): a file index and a line, as .loc writes them.
std::pair<int, int> file_and_line(std::string_view text) {
  int numbers[2] = {0, 0};
  size_t pos = 0;
  for (int& number : numbers) {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])))
      number = number * 10 + (text[pos++] - '0');
  }
  return {numbers[0], numbers[1]};
}

}  // namespace

Technique technique_of(std::string_view ptx, const std::vector<std::string_view>& entries) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start <= ptx.size();) {
    size_t end = ptx.find('\n', start);
    if (end == std::string_view::npos) end = ptx.size();
    std::string_view line = ptx.substr(start, end - start);
    if (size_t comment = line.find("//"); comment != std::string_view::npos) line = line.substr(0, comment);
    lines.push_back(line);
    start = end + 1;
  }
  Technique t;
  for (auto [open, close] : bodies(lines, entries)) {
    std::map<std::string, size_t, std::less<>> labels;
    std::vector<std::pair<size_t, size_t>> loops;        // [label line, branch line]
    std::vector<std::pair<size_t, int>> global_atomics;  // line index, source line
    int source_line = 0;
    int own_file = -1;
    for (size_t i = open; i <= close && i < lines.size(); ++i) {
      const std::string_view line = trim(lines[i]);
      if (line.starts_with(".loc")) {
        // `.loc FILE LINE COLUMN`, and for code inlined from a header (atomicAdd, min) `..., inlined_at FILE
        // LINE COLUMN`: the learner's line is the one in the entry's own file (that of its first .loc).
        auto [file, at] = file_and_line(line.substr(4));
        if (own_file < 0) own_file = file;
        if (file == own_file) {
          source_line = at;
        } else if (size_t inlined = line.find("inlined_at"); inlined != std::string_view::npos) {
          auto [call_file, call_line] = file_and_line(line.substr(inlined + 10));
          if (call_file == own_file) source_line = call_line;
        }
        continue;
      }
      if (!line.empty() && line.back() == ':' && is_label_char(line.front())) {
        labels.emplace(std::string(line.substr(0, line.size() - 1)), i);
        continue;
      }
      const std::string_view op = opcode_of(line);
      if (op.empty()) continue;
      if (starts_with_any(op, {"shfl"})) ++t.shuffles;
      if (starts_with_any(op, {"bar.sync", "bar.red", "barrier.sync", "barrier.red", "barrier.cta.sync",
                               "barrier.cta.red"}))
        ++t.barriers;
      if (starts_with_any(op, {"atom", "red"})) {
        if (op.find(".shared") != std::string_view::npos) {
          ++t.shared_atomics;
        } else {
          ++t.global_atomics;
          global_atomics.emplace_back(i, source_line);
        }
      }
      if (starts_with_any(op, {"bra"})) {
        std::string_view target = trim(line.substr(line.find(op) + op.size()));
        if (!target.empty() && target.back() == ';') target = trim(target.substr(0, target.size() - 1));
        if (auto label = labels.find(target); label != labels.end()) loops.emplace_back(label->second, i);
      }
    }
    for (auto [line, source] : global_atomics) {
      for (auto [first, last] : loops) {
        if (line < first || line > last) continue;
        if (t.global_atomics_in_loops++ == 0) t.first_global_atomic_in_loop_line = source;
        break;
      }
    }
  }
  return t;
}

}  // namespace gpugrade
