// The JSON form of results and findings: the stable contract in docs/result-contract.md.
#include "grader/result.h"

namespace gpugrade {

std::string_view to_string(Verdict verdict) { return verdict == Verdict::kPass ? "pass" : "fail"; }

nlohmann::ordered_json to_json(const Finding& finding) {
  // Field order is fixed (ordered_json) so that the same result prints byte-identical JSON on every run.
  nlohmann::ordered_json out;
  out["kind"] = to_string(finding.kind);
  out["severity"] = to_string(finding.severity);
  out["message"] = finding.message;
  out["file"] = finding.file;
  out["line"] = finding.line;
  out["variant"] = finding.variant;
  out["size"] = finding.size;
  out["details"] = finding.details;
  return out;
}

nlohmann::ordered_json to_json(const Result& result) {
  nlohmann::ordered_json out;
  out["exercise"] = result.exercise;
  out["submission"] = result.submission;
  out["backend"] = result.backend;
  out["verdict"] = to_string(result.verdict);
  out["points"] = result.points;
  out["max_points"] = result.max_points;
  out["findings"] = nlohmann::ordered_json::array();
  for (const Finding& finding : result.findings) out["findings"].push_back(to_json(finding));
  out["runs"] = nlohmann::ordered_json::array();
  for (const Run& run : result.runs) {
    nlohmann::ordered_json r;
    r["variant"] = run.variant;
    r["size"] = run.size;
    r["verdict"] = to_string(run.verdict);
    r["thread_instructions"] = run.thread_instructions;
    r["seconds"] = run.seconds;
    out["runs"].push_back(std::move(r));
  }
  out["metrics"] = result.metrics;
  if (!result.note.empty()) out["note"] = result.note;
  return out;
}

}  // namespace gpugrade
