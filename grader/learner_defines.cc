// Reading a submission's learner defines from its text. See learner_defines.h.
#include "grader/learner_defines.h"

#include <fmt/format.h>

#include <regex>

#include "grader/expr.h"

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

// A number or an expression of numbers, integer suffixes (256u, 64UL) allowed; anything else is nullopt.
std::optional<int64_t> value_of(const std::string& text) {
  static const std::regex suffix(R"(\b([0-9]+)[uUlL]+\b)");
  const std::string plain = std::regex_replace(text, suffix, "$1");
  std::string error;
  std::optional<Expr> expr = Expr::parse(plain, &error);
  if (!expr || !expr->variables().empty()) return std::nullopt;
  return expr->eval({}, &error);
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

}  // namespace

std::vector<SourceDefinition> find_definitions(std::string_view text, std::string_view name) {
  const std::string code = blank_comments_and_strings(text);
  const std::string n(name);
  const std::regex define(R"(^\s*#\s*define\s+)" + n + R"((\s.*)?$)");
  const std::regex constant(R"((?:^|[^A-Za-z0-9_])(?:constexpr|const)\s+(?:[A-Za-z_:][A-Za-z0-9_:]*\s+)+)" +
                            n + R"(\s*(?:=\s*([^;,{}]*)|\{([^}]*)\}))");
  std::vector<SourceDefinition> found;
  int line_number = 0;
  for (size_t at = 0; at <= code.size();) {
    const size_t end = std::min(code.find('\n', at), code.size());
    const std::string line = code.substr(at, end - at);
    ++line_number;
    std::smatch match;
    if (std::regex_match(line, match, define)) {
      SourceDefinition definition{line_number, trim(match[1].str()), std::nullopt};
      definition.value = value_of(definition.text);
      found.push_back(std::move(definition));
    } else if (std::regex_search(line, match, constant)) {
      SourceDefinition definition{line_number, trim(match[1].matched ? match[1].str() : match[2].str()),
                                  std::nullopt};
      definition.value = value_of(definition.text);
      found.push_back(std::move(definition));
    }
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

}  // namespace gpugrade
