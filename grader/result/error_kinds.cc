// A result's verdict and error kinds in one line (see error_kinds.h).
#include "grader/result/error_kinds.h"

#include <algorithm>
#include <vector>

namespace gpugrade {

std::string kinds_of(const Result& result) {
  std::vector<std::string> kinds;
  for (const Finding& f : result.findings)
    if (f.severity == Severity::kError) kinds.emplace_back(to_string(f.kind));
  std::sort(kinds.begin(), kinds.end());
  kinds.erase(std::unique(kinds.begin(), kinds.end()), kinds.end());
  std::string out;
  for (const std::string& k : kinds) out += (out.empty() ? "" : ", ") + k;
  return out;
}

std::string verdict_and_kinds(const Result& result) {
  const std::string kinds = kinds_of(result);
  return kinds.empty() ? std::string(to_string(result.verdict))
                       : std::string(to_string(result.verdict)) + ": " + kinds;
}

}  // namespace gpugrade
