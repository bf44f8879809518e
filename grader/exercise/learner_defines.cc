// Reading a submission's learner defines from its text. See learner_defines.h.
#include "grader/exercise/learner_defines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "grader/exercise/expr.h"

namespace gpugrade {
namespace {

// The text with comments and string and character literals blanked to spaces, lines and columns kept, so
// that `// #define BLOCK_SIZE 64` or a string holding one is not read as a definition.
std::string blank_comments_and_strings(std::string_view text) {
  std::string out(text);
  enum class State { kCode, kLineComment, kBlockComment, kString, kChar } state = State::kCode;
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case State::kCode:
        if (c == '/' && next == '/')
          state = State::kLineComment;
        else if (c == '/' && next == '*')
          state = State::kBlockComment;
        else if (c == '"')
          state = State::kString;
        else if (c == '\'')
          state = State::kChar;
        else
          continue;
        out[i] = ' ';
        if (state == State::kLineComment || state == State::kBlockComment) out[++i] = ' ';
        break;
      case State::kLineComment:
        if (c == '\n')
          state = State::kCode;
        else
          out[i] = ' ';
        break;
      case State::kBlockComment:
        if (c == '*' && next == '/') {
          out[i] = out[i + 1] = ' ';
          ++i;
          state = State::kCode;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case State::kString:
      case State::kChar:
        if (c == '\\' && next != '\n') {
          out[i] = ' ';
          if (i + 1 < out.size()) out[++i] = ' ';
        } else if (c == '\n' || c == (state == State::kString ? '"' : '\'')) {
          if (c != '\n') out[i] = ' ';
          state = State::kCode;
        } else {
          out[i] = ' ';
        }
        break;
    }
  }
  return out;
}

std::string trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r");
  return std::string(text.substr(begin, end - begin + 1));
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A number or an expression of numbers, integer suffixes (256u, 64UL) allowed; anything else is nullopt.
std::optional<int64_t> value_of(std::string_view text) {
  std::string plain;
  for (size_t i = 0; i < text.size();) {
    const bool starts_number =
        std::isdigit(static_cast<unsigned char>(text[i])) && (i == 0 || !is_word_char(text[i - 1]));
    if (!starts_number) {
      plain += text[i++];
      continue;
    }
    size_t digits = i;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    size_t suffix = digits;
    while (suffix < text.size() && std::strchr("uUlL", text[suffix]) != nullptr) ++suffix;
    plain.append(text.substr(i, digits - i));
    // A suffix is dropped only when it ends the literal (256u); anything else stays for the parser to refuse.
    i = suffix < text.size() && is_word_char(text[suffix]) ? digits : suffix;
  }
  std::string error;
  std::optional<Expr> expr = Expr::parse(plain, &error);
  if (!expr || !expr->variables().empty()) return std::nullopt;
  return expr->eval({}, &error);
}

// `# define NAME value` (not a function-like macro): the value's text, else nullopt.
std::optional<std::string> macro_value(std::string_view line, std::string_view name) {
  size_t at = line.find_first_not_of(" \t");
  if (at == std::string_view::npos || line[at] != '#') return std::nullopt;
  at = line.find_first_not_of(" \t", at + 1);
  if (at == std::string_view::npos || line.compare(at, 6, "define") != 0) return std::nullopt;
  at += 6;
  const size_t name_at = line.find_first_not_of(" \t", at);
  if (name_at == at || name_at == std::string_view::npos || line.compare(name_at, name.size(), name) != 0)
    return std::nullopt;
  const size_t after = name_at + name.size();
  if (after < line.size() && line[after] != ' ' && line[after] != '\t') return std::nullopt;
  return trim(line.substr(std::min(after, line.size())));
}

// `[static] constexpr|const <type words> NAME = value;` or `{value}` in one statement: the value's text.
std::optional<std::string> constant_value(std::string_view line, std::string_view name) {
  for (size_t p = line.find(name); p != std::string_view::npos; p = line.find(name, p + 1)) {
    const size_t after = p + name.size();
    if ((p > 0 && is_word_char(line[p - 1])) || (after < line.size() && is_word_char(line[after]))) continue;
    // The words before it in its statement: identifiers only (no '*', '&', '('), with const or constexpr
    // among them and a type after it.
    const size_t boundary = p == 0 ? std::string_view::npos : line.find_last_of(";{}", p - 1);
    const size_t from = boundary == std::string_view::npos ? 0 : boundary + 1;
    const std::string_view before = line.substr(from, p - from);
    bool words_only = true, qualified = false, typed = false;
    for (size_t w = 0; w < before.size();) {
      if (before[w] == ' ' || before[w] == '\t') {
        ++w;
        continue;
      }
      size_t e = w;
      while (e < before.size() && (is_word_char(before[e]) || before[e] == ':')) ++e;
      if (e == w) {
        words_only = false;
        break;
      }
      const std::string_view word = before.substr(w, e - w);
      if (word == "const" || word == "constexpr") {
        qualified = true;
        typed = false;
      } else if (qualified) {
        typed = true;
      }
      w = e;
    }
    if (!words_only || !qualified || !typed) continue;
    size_t v = line.find_first_not_of(" \t", after);
    if (v == std::string_view::npos) continue;
    if (line[v] == '=' && (v + 1 >= line.size() || line[v + 1] != '=')) {
      const size_t stop = line.find_first_of(";,{}", v + 1);
      return trim(line.substr(v + 1, (stop == std::string_view::npos ? line.size() : stop) - v - 1));
    }
    if (line[v] == '{') {
      const size_t stop = line.find('}', v + 1);
      return trim(line.substr(v + 1, (stop == std::string_view::npos ? line.size() : stop) - v - 1));
    }
  }
  return std::nullopt;
}

Finding refusal(const std::string& file, int line, const LearnerDefine& chosen, std::string message) {
  Finding finding;
  finding.kind = FindingKind::kRejectedSource;
  finding.file = file;
  finding.line = line;
  finding.message = std::move(message);
  finding.details = {{"define", chosen.name}, {"allowed", chosen.allowed()}};
  return finding;
}

// Whether the definition at `line` (1-based) sits under `#ifndef NAME` or `#if !defined(NAME)` on the
// nearest line before it that is not blank: a definition that yields to -D.
bool yields_to_command_line(std::string_view text, int line, std::string_view name) {
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size() && static_cast<int>(lines.size()) < line - 1;) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(trim(text.substr(at, end - at)));
    at = end + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) return false;
  std::string guard;
  for (char c : lines.back())
    if (c != ' ' && c != '\t') guard += c;
  return guard == fmt::format("#ifndef{}", name) || guard == fmt::format("#if!defined({})", name) ||
         guard == fmt::format("#if!defined{}", name);
}

}  // namespace

std::vector<SourceDefinition> find_definitions(std::string_view text, std::string_view name) {
  const std::string code = blank_comments_and_strings(text);
  std::vector<SourceDefinition> found;
  int line_number = 0;
  for (size_t at = 0; at <= code.size();) {
    const size_t end = std::min(code.find('\n', at), code.size());
    const std::string_view line(code.data() + at, end - at);
    ++line_number;
    std::optional<std::string> value = macro_value(line, name);
    if (!value) value = constant_value(line, name);
    if (value) found.push_back({line_number, *value, value_of(*value)});
    at = end + 1;
  }
  return found;
}

std::optional<Exercise> with_learner_defines(const Exercise& exercise, std::string_view text,
                                             const std::string& display_path,
                                             std::vector<Finding>* findings) {
  Exercise chosen_exercise = exercise;
  const size_t findings_before = findings->size();
  for (const LearnerDefine& chosen : exercise.learner_defines) {
    const std::vector<SourceDefinition> definitions = find_definitions(text, chosen.name);
    int64_t value = chosen.fallback;
    int line = 0;
    if (!definitions.empty()) {
      bool readable = true;
      for (const SourceDefinition& d : definitions) {
        if (d.value) continue;
        readable = false;
        findings->push_back(refusal(
            display_path, d.line, chosen,
            fmt::format("the grader reads {} from this line without compiling it, so its value must be a "
                        "number or an "
                        "expression of numbers such as 8 * 32; '{}' is neither (this exercise allows {})",
                        chosen.name, d.text, chosen.allowed())));
      }
      if (!readable) continue;
      const SourceDefinition& first = definitions.front();
      auto differs = std::find_if(definitions.begin(), definitions.end(),
                                  [&](const SourceDefinition& d) { return *d.value != *first.value; });
      if (differs != definitions.end()) {
        findings->push_back(refusal(
            display_path, differs->line, chosen,
            fmt::format(
                "{} is defined again here as {} (it is {} at line {}); the grader reads the file without the "
                "preprocessor, so define it once",
                chosen.name, *differs->value, *first.value, first.line)));
        continue;
      }
      value = *first.value;
      line = first.line;
      if (!chosen.allows(value)) {
        findings->push_back(
            refusal(display_path, line, chosen,
                    fmt::format("{} is {}, but this exercise allows {}{}{}", chosen.name, value,
                                chosen.allowed(), chosen.message.empty() ? "" : ": ", chosen.message)));
        continue;
      }
      for (Variant& variant : chosen_exercise.variants) variant.source_defines.push_back(chosen.name);
    }
    std::string error;
    if (!set_learner_define(chosen_exercise, chosen.name, value, &error))
      findings->push_back(
          refusal(display_path, line, chosen, fmt::format("with {} = {}, {}", chosen.name, value, error)));
  }
  if (findings->size() != findings_before) return std::nullopt;
  return chosen_exercise;
}

std::optional<Exercise> with_file_defines(const Exercise& exercise, std::string_view text,
                                          const std::string& display_path, std::vector<Finding>* findings) {
  Exercise respected = exercise;
  const size_t findings_before = findings->size();
  std::vector<std::string> names;
  for (const Variant& variant : exercise.variants)
    for (const auto& [name, value] : variant.defines)
      if (std::find(names.begin(), names.end(), name) == names.end() &&
          std::find(variant.source_defines.begin(), variant.source_defines.end(), name) ==
              variant.source_defines.end())
        names.push_back(name);
  const std::string yaml = (exercise.display_dir / "exercise.yaml").generic_string();
  for (const std::string& name : names) {
    std::vector<SourceDefinition> definitions = find_definitions(text, name);
    std::erase_if(definitions,
                  [&](const SourceDefinition& d) { return yields_to_command_line(text, d.line, name); });
    if (definitions.empty()) continue;
    std::vector<std::string> values;  // "16 (variant 16x16)", one per variant whose value the file overrides
    for (const Variant& variant : exercise.variants)
      for (const auto& [defined, value] : variant.defines)
        if (defined == name && std::any_of(definitions.begin(), definitions.end(),
                                           [&](const SourceDefinition& d) { return d.value != value; }))
          values.push_back(fmt::format("{} in variant {}", value, variant.label));
    if (values.empty()) {
      for (Variant& variant : respected.variants) variant.source_defines.push_back(name);
      continue;
    }
    const SourceDefinition& first = definitions.front();
    Finding finding;
    finding.kind = FindingKind::kRejectedSource;
    finding.file = display_path;
    finding.line = first.line;
    finding.message = fmt::format(
        "this line defines {} as {}, but the exercise sets {} itself ({} in {}'s variants), so the compiler "
        "would see both; remove this definition, or guard it with `#ifndef {}`, so that each variant's value "
        "reaches the code",
        name, first.text, name, fmt::join(values, ", "), yaml, name);
    finding.details = {{"define", name}, {"exercise", yaml}};
    findings->push_back(std::move(finding));
  }
  if (findings->size() != findings_before) return std::nullopt;
  return respected;
}

}  // namespace gpugrade
