// The source screen: a small preprocessor-aware scanner (line splices, comments, string, character and raw
// string literals) that finds directives the way the preprocessor would, and judges each include.
#include "grader/compile/screen.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "os/file.h"

namespace gpugrade {
namespace {

constexpr std::array<std::string_view, 11> kCudaHeaders = {"cuda_runtime.h",
                                                           "cuda_runtime_api.h",
                                                           "device_launch_parameters.h",
                                                           "cuda_fp16.h",
                                                           "cuda_bf16.h",
                                                           "cuda_fp8.h",
                                                           "mma.h",
                                                           "cuda_pipeline.h",
                                                           "cuda_awbarrier.h",
                                                           "cooperative_groups.h",
                                                           "math_constants.h"};

// The C and C++ standard libraries' headers, by their standard names. A homework file has host code with
// its own headers (<iostream>, <time.h>); none of its host code runs, so a standard header is harmless, and a
// fixed list of names is what keeps the screen from reading a path the submission chose.
constexpr std::array<std::string_view, 133> kStandardHeaders = {"algorithm",
                                                                "any",
                                                                "array",
                                                                "atomic",
                                                                "barrier",
                                                                "bit",
                                                                "bitset",
                                                                "cassert",
                                                                "ccomplex",
                                                                "cctype",
                                                                "cerrno",
                                                                "cfenv",
                                                                "cfloat",
                                                                "charconv",
                                                                "chrono",
                                                                "cinttypes",
                                                                "ciso646",
                                                                "climits",
                                                                "clocale",
                                                                "cmath",
                                                                "codecvt",
                                                                "compare",
                                                                "complex",
                                                                "concepts",
                                                                "condition_variable",
                                                                "coroutine",
                                                                "csetjmp",
                                                                "csignal",
                                                                "cstdalign",
                                                                "cstdarg",
                                                                "cstdbool",
                                                                "cstddef",
                                                                "cstdint",
                                                                "cstdio",
                                                                "cstdlib",
                                                                "cstring",
                                                                "ctgmath",
                                                                "ctime",
                                                                "cuchar",
                                                                "cwchar",
                                                                "cwctype",
                                                                "deque",
                                                                "exception",
                                                                "execution",
                                                                "expected",
                                                                "filesystem",
                                                                "format",
                                                                "forward_list",
                                                                "fstream",
                                                                "functional",
                                                                "future",
                                                                "initializer_list",
                                                                "iomanip",
                                                                "ios",
                                                                "iosfwd",
                                                                "iostream",
                                                                "istream",
                                                                "iterator",
                                                                "latch",
                                                                "limits",
                                                                "list",
                                                                "locale",
                                                                "map",
                                                                "memory",
                                                                "memory_resource",
                                                                "mutex",
                                                                "new",
                                                                "numbers",
                                                                "numeric",
                                                                "optional",
                                                                "ostream",
                                                                "queue",
                                                                "random",
                                                                "ranges",
                                                                "ratio",
                                                                "regex",
                                                                "scoped_allocator",
                                                                "semaphore",
                                                                "set",
                                                                "shared_mutex",
                                                                "source_location",
                                                                "span",
                                                                "sstream",
                                                                "stack",
                                                                "stdexcept",
                                                                "stop_token",
                                                                "streambuf",
                                                                "string",
                                                                "string_view",
                                                                "strstream",
                                                                "syncstream",
                                                                "system_error",
                                                                "thread",
                                                                "tuple",
                                                                "type_traits",
                                                                "typeindex",
                                                                "typeinfo",
                                                                "unordered_map",
                                                                "unordered_set",
                                                                "utility",
                                                                "valarray",
                                                                "variant",
                                                                "vector",
                                                                "version",
                                                                "assert.h",
                                                                "complex.h",
                                                                "ctype.h",
                                                                "errno.h",
                                                                "fenv.h",
                                                                "float.h",
                                                                "inttypes.h",
                                                                "iso646.h",
                                                                "limits.h",
                                                                "locale.h",
                                                                "math.h",
                                                                "setjmp.h",
                                                                "signal.h",
                                                                "stdalign.h",
                                                                "stdarg.h",
                                                                "stdatomic.h",
                                                                "stdbool.h",
                                                                "stddef.h",
                                                                "stdint.h",
                                                                "stdio.h",
                                                                "stdlib.h",
                                                                "stdnoreturn.h",
                                                                "string.h",
                                                                "tgmath.h",
                                                                "threads.h",
                                                                "time.h",
                                                                "uchar.h",
                                                                "wchar.h",
                                                                "wctype.h"};

// Folders of headers allowed as a whole: cooperative groups and libcu++.
constexpr std::array<std::string_view, 2> kAllowedFolders = {"cooperative_groups/", "cuda/"};

bool escapes_folder(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos) return true;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    if (path.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

// The text after translation phase 2: backslash-newlines removed, with each character's physical line.
struct SplicedText {
  std::string text;
  std::vector<int> line_of;
};

SplicedText splice(std::string_view source) {
  SplicedText out;
  int line = 1;
  for (size_t i = 0; i < source.size(); ++i) {
    char c = source[i];
    if (c == '\\') {
      size_t next = i + 1;
      if (next < source.size() && source[next] == '\r') ++next;
      if (next < source.size() && source[next] == '\n') {
        ++line;
        i = next;
        continue;
      }
    }
    out.text.push_back(c);
    out.line_of.push_back(line);
    if (c == '\n') ++line;
  }
  return out;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

class Screen {
 public:
  Screen(std::string_view display_path, const std::vector<std::string>& folder_files)
      : display_path_(display_path), folder_files_(folder_files) {}

  std::vector<Finding> run(std::string_view source) {
    SplicedText spliced = splice(source);
    const std::string& s = spliced.text;
    bool at_line_start = true;
    size_t i = 0;
    while (i < s.size()) {
      char c = s[i];
      if (c == '\n') {
        at_line_start = true;
        ++i;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (s.compare(i, 2, "//") == 0) {
        i = s.find('\n', i);
        if (i == std::string::npos) i = s.size();
      } else if (s.compare(i, 2, "/*") == 0) {
        i = skip_block_comment(s, i);  // a comment is one space: it leaves at_line_start alone
      } else if (at_line_start && (c == '#' || s.compare(i, 2, "%:") == 0)) {
        size_t body = i + (c == '#' ? 1 : 2);
        size_t end = body;
        std::string directive = directive_text(s, end);
        judge_directive(directive, spliced.line_of[i]);
        i = end;
      } else {
        at_line_start = false;
        size_t end = skip_token(s, i);
        judge_word(std::string_view(s).substr(i, end - i), spliced.line_of[i]);
        i = end;
      }
    }
    return std::move(findings_);
  }

 private:
  static size_t skip_block_comment(const std::string& s, size_t i) {
    size_t end = s.find("*/", i + 2);
    return end == std::string::npos ? s.size() : end + 2;
  }

  // The directive from `pos` to its end of line, comments replaced by spaces; pos ends on the newline.
  static std::string directive_text(const std::string& s, size_t& pos) {
    std::string text;
    while (pos < s.size() && s[pos] != '\n') {
      if (s.compare(pos, 2, "//") == 0) {
        pos = s.find('\n', pos);
        if (pos == std::string::npos) pos = s.size();
      } else if (s.compare(pos, 2, "/*") == 0) {
        pos = skip_block_comment(s, pos);
        text.push_back(' ');
      } else if (s[pos] == '"' || s[pos] == '\'') {
        size_t end = skip_quoted(s, pos);
        text.append(s, pos, end - pos);
        pos = end;
      } else {
        text.push_back(s[pos++]);
      }
    }
    return text;
  }

  // A string or character literal from its opening quote; returns the index after its closing quote.
  static size_t skip_quoted(const std::string& s, size_t i) {
    char quote = s[i++];
    while (i < s.size() && s[i] != quote && s[i] != '\n') i += s[i] == '\\' ? 2 : 1;
    return std::min(i + 1, s.size());
  }

  // Skips one token that is not a directive: identifiers (and the prefixes of raw strings), numbers
  // (whose digit separators are not character literals), literals, and single punctuation characters.
  static size_t skip_token(const std::string& s, size_t i) {
    char c = s[i];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (is_identifier_char(s[i]) || s[i] == '.' || s[i] == '\'' ||
                              ((s[i] == '+' || s[i] == '-') && std::strchr("eEpP", s[i - 1]) != nullptr)))
        ++i;
      return i;
    }
    if (is_identifier_char(c)) {
      size_t start = i;
      while (i < s.size() && is_identifier_char(s[i])) ++i;
      std::string_view word(s.data() + start, i - start);
      bool raw_prefix = word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
      if (raw_prefix && i < s.size() && s[i] == '"') return skip_raw_string(s, i);
      return i;
    }
    if (c == '"' || c == '\'') return skip_quoted(s, i);
    return i + 1;
  }

  // R"delim( ... )delim", from the opening quote.
  static size_t skip_raw_string(const std::string& s, size_t quote) {
    size_t open = s.find('(', quote);
    if (open == std::string::npos) return s.size();
    std::string closing = ")" + s.substr(quote + 1, open - quote - 1) + "\"";
    size_t end = s.find(closing, open);
    return end == std::string::npos ? s.size() : end + closing.size();
  }

  void reject(int line, std::string message, std::string_view header) {
    Finding finding;
    finding.kind = FindingKind::kRejectedSource;
    finding.message = std::move(message);
    finding.file = display_path_;
    finding.line = line;
    if (!header.empty()) finding.details["header"] = std::string(header);
    findings_.push_back(std::move(finding));
  }

  // Words that let a submission learn about the grading machine's files, or run a pragma the screen never
  // sees as a directive. (Token pasting can still spell them; the compiler's sandbox is the wall behind
  // this.)
  void judge_word(std::string_view word, int line) {
    if (word == "_Pragma") {
      reject(
          line,
          "_Pragma is not allowed: the screen cannot judge a pragma made inside code or a macro; write the "
          "#pragma on a line of its own instead",
          "");
    } else if (word == "__has_include" || word == "__has_include_next") {
      reject(
          line,
          fmt::format("{} is not allowed: it asks whether a file exists on the grading machine; include the "
                      "headers you need directly",
                      word),
          "");
    }
  }

  // judge_word for each identifier of a directive's text, outside its string and character literals.
  void judge_directive_words(std::string_view text, int line) {
    for (size_t i = 0; i < text.size();) {
      if (text[i] == '"' || text[i] == '\'') {
        char quote = text[i++];
        while (i < text.size() && text[i] != quote) i += text[i] == '\\' ? 2 : 1;
        ++i;
      } else if (is_identifier_char(text[i])) {
        size_t start = i;
        while (i < text.size() && is_identifier_char(text[i])) ++i;
        judge_word(text.substr(start, i - start), line);
      } else {
        ++i;
      }
    }
  }

  void judge_directive(std::string_view text, int line) {
    text = trim(text);
    size_t name_end = 0;
    while (name_end < text.size() && is_identifier_char(text[name_end])) ++name_end;
    std::string_view name = text.substr(0, name_end);
    std::string_view rest = trim(text.substr(name_end));
    judge_directive_words(rest, line);
    if (name == "include" || name == "include_next" || name == "import") {
      judge_include(name, rest, line);
    } else if (name == "line") {
      reject(line, "#line is not allowed: it would make findings point at the wrong file and line; remove it",
             "");
    } else if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) {
      reject(
          line,
          "a line marker (`# 12 \"file\"`) is not allowed: it would make findings point at another file and "
          "line; remove it",
          "");
    } else if (name == "pragma" && rest.starts_with("GCC") &&
               trim(rest.substr(3)).starts_with("dependency")) {
      reject(line, "#pragma GCC dependency is not allowed: it reads another file; remove it", "");
    }
  }

  void judge_include(std::string_view directive, std::string_view rest, int line) {
    char open = rest.empty() ? '\0' : rest.front();
    size_t close = open == '<' ? rest.find('>', 1) : open == '"' ? rest.find('"', 1) : std::string_view::npos;
    if (close == std::string_view::npos) {
      reject(line,
             fmt::format("#{} {} is not allowed: write the header's name out, e.g. #include <cstdint>",
                         directive, rest),
             rest);
      return;
    }
    std::string_view header = rest.substr(1, close - 1);
    std::string written = fmt::format("#{} {}{}{}", directive, open, header, open == '<' ? '>' : '"');
    if (open == '"' && !escapes_folder(header)) {
      std::string_view local = header;
      while (local.starts_with("./")) local.remove_prefix(2);
      if (std::find(folder_files_.begin(), folder_files_.end(), local) != folder_files_.end()) return;
    }
    if (!escapes_folder(header) && is_allowed_system_header(header)) return;
    std::string why;
    if (open == '"' && escapes_folder(header)) {
      why = "a quoted include must name a file of the exercise's folder, without '..' or an absolute path";
    } else if (open == '"') {
      why = "the exercise's folder has no such file";
    } else {
      why =
          "only CUDA headers (cuda_runtime.h, cuda_fp16.h, cooperative_groups.h, cuda/std/...), the C and "
          "C++ standard headers (<cstdint>, <iostream>, <time.h>, ...), and the exercise's own headers can "
          "be "
          "included";
    }
    reject(line, fmt::format("{} is not allowed: {}; remove it", written, why), header);
  }

  std::string display_path_;
  const std::vector<std::string>& folder_files_;
  std::vector<Finding> findings_;
};

bool has_header_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  return ext == ".h" || ext == ".cuh" || ext == ".hpp" || ext == ".inc";
}

}  // namespace

bool is_allowed_system_header(std::string_view header) {
  if (escapes_folder(header)) return false;
  auto listed = [header](const auto& table) {
    return std::find(table.begin(), table.end(), header) != table.end();
  };
  if (listed(kCudaHeaders) || listed(kStandardHeaders)) return true;
  return std::any_of(kAllowedFolders.begin(), kAllowedFolders.end(),
                     [header](std::string_view folder) { return header.starts_with(folder); });
}

std::vector<Finding> screen_source(std::string_view text, std::string_view display_path,
                                   const std::vector<std::string>& folder_files) {
  return Screen(display_path, folder_files).run(text);
}

std::vector<Finding> screen_submission(const SourceFile& submission, std::string_view display_path,
                                       const std::vector<SourceFile>& folder_headers,
                                       std::string_view folder_display) {
  std::vector<std::string> names;
  for (const SourceFile& header : folder_headers) names.push_back(header.name);
  std::vector<Finding> findings = screen_source(submission.bytes, display_path, names);
  for (const SourceFile& header : folder_headers) {
    std::vector<Finding> more =
        screen_source(header.bytes, fmt::format("{}/{}", folder_display, header.name), names);
    findings.insert(findings.end(), more.begin(), more.end());
  }
  return findings;
}

std::optional<std::vector<SourceFile>> read_folder_headers(const std::filesystem::path& folder,
                                                           std::string* error) {
  std::error_code ec;
  std::vector<SourceFile> headers;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec) || !has_header_extension(entry.path())) continue;
    std::optional<std::string> bytes = read_file_bytes(entry.path());
    if (!bytes) {
      *error = fmt::format("cannot read {}", entry.path().string());
      return std::nullopt;
    }
    headers.push_back({entry.path().filename().string(), std::move(*bytes)});
  }
  if (ec) {
    *error = fmt::format("cannot read the folder {}: {}", folder.string(), ec.message());
    return std::nullopt;
  }
  std::sort(headers.begin(), headers.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.name < b.name; });
  return headers;
}

}  // namespace gpugrade
