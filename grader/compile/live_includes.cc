// The refused includes that the compiler's preprocessor reaches (live_includes.h).
#include "grader/compile/live_includes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>

namespace gpugrade {
namespace {

constexpr std::string_view kMarker = "#pragma gpugrade_refused_include ";

// `text` with physical line `line` (1-based) replaced by `replacement`; unchanged when it has fewer lines.
std::string with_line(const std::string& text, int line, const std::string& replacement) {
  size_t start = 0;
  for (int at = 1; at < line; ++at) {
    start = text.find('\n', start);
    if (start == std::string::npos) return text;
    ++start;
  }
  size_t end = text.find('\n', start);
  if (end == std::string::npos) end = text.size();
  std::string out = text;
  out.replace(start, end - start, replacement);
  return out;
}

// The file a finding names, in `request`: the source, or one of its headers; null when neither.
std::string* file_of(CompileRequest& request, const Finding& finding) {
  if (finding.file == request.display_path) return &request.source.bytes;
  for (SourceFile& header : request.headers)
    if (finding.file == fmt::format("{}/{}", request.headers_display_dir, header.name)) return &header.bytes;
  return nullptr;
}

}  // namespace

std::vector<Finding> keep_reached_includes(std::vector<Finding> refused, const CompileRequest& base,
                                           const std::vector<std::vector<Define>>& variants,
                                           Compiler& compiler) {
  const bool only_includes = std::all_of(refused.begin(), refused.end(), [](const Finding& f) {
    return f.kind == FindingKind::kRejectedSource && f.details.contains("header") && f.line > 0;
  });
  if (refused.empty() || !only_includes || variants.empty()) return refused;
  CompileRequest marked = base;
  for (size_t i = 0; i < refused.size(); ++i) {
    std::string* text = file_of(marked, refused[i]);
    if (text == nullptr) return refused;
    *text = with_line(*text, refused[i].line, fmt::format("{}{}", kMarker, i));
  }
  std::set<size_t> reached;
  for (const std::vector<Define>& defines : variants) {
    marked.defines = defines;
    const std::optional<std::string> preprocessed = compiler.preprocess(marked);
    if (!preprocessed) return refused;
    for (size_t at = preprocessed->find(kMarker); at != std::string::npos;
         at = preprocessed->find(kMarker, at + 1)) {
      size_t index = 0;
      size_t digit = at + kMarker.size();
      if (digit >= preprocessed->size() || !std::isdigit(static_cast<unsigned char>((*preprocessed)[digit])))
        continue;
      for (; digit < preprocessed->size() && std::isdigit(static_cast<unsigned char>((*preprocessed)[digit]));
           ++digit)
        index = index * 10 + static_cast<size_t>((*preprocessed)[digit] - '0');
      reached.insert(index);
    }
  }
  std::vector<Finding> kept;
  for (size_t i = 0; i < refused.size(); ++i)
    if (reached.count(i) != 0) kept.push_back(std::move(refused[i]));
  return kept;
}

}  // namespace gpugrade
