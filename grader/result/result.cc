// The JSON form of results and findings: the stable contract in docs/result-contract.md.
#include "grader/result/result.h"

#include <fmt/format.h>

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
  // Strict GPU grading only: "sim", "gpu" or "sim+gpu". Absent when one backend graded.
  if (!finding.backend.empty()) out["backend"] = finding.backend;
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
  if (!result.device_output.empty() || result.device_output_dropped != 0) {
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const PrintedLine& line : result.device_output) {
      nlohmann::ordered_json l;
      l["variant"] = line.variant;
      l["size"] = line.size;
      l["block"] = line.block;
      l["thread"] = line.thread;
      l["text"] = line.text;
      lines.push_back(std::move(l));
    }
    out["device_output"] = {{"lines", std::move(lines)}, {"more", result.device_output_dropped}};
  }
  return out;
}

namespace {

size_t json_bytes(const nlohmann::ordered_json& json) {
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).size();
}

// Cuts `text` to at most `keep` bytes (at a character's start), saying how many were left out.
void cut_text(std::string& text, size_t keep) {
  if (text.size() <= keep) return;
  size_t at = keep;
  while (at > 0 && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
  const size_t left_out = text.size() - at;
  text.resize(at);
  text += " [" + with_thousands(left_out) + " more bytes left out]";
}

}  // namespace

void fit_result(Result& result, size_t max_bytes) {
  if (json_bytes(to_json(result)) <= max_bytes) return;
  constexpr size_t kTextBytes = 4096;
  for (Finding& f : result.findings) {
    cut_text(f.message, kTextBytes);
    if (json_bytes(f.details) > kTextBytes)
      f.details = {{"left_out", "the details were larger than " + with_thousands(kTextBytes) + " bytes"}};
  }
  for (PrintedLine& line : result.device_output) cut_text(line.text, kTextBytes);
  cut_text(result.note, kTextBytes);
  if (json_bytes(to_json(result)) <= max_bytes) return;
  // Findings are in order of importance (errors first), so the first ones are kept: as many as fit in the
  // half of the bound that the rest of the result may not need.
  size_t kept = 0, used = 0;
  for (; kept < result.findings.size(); ++kept) {
    const size_t bytes = json_bytes(to_json(result.findings[kept])) + 1;  // and its comma
    if (used + bytes > max_bytes / 2) break;
    used += bytes;
  }
  if (kept < result.findings.size()) {
    const size_t left_out = result.findings.size() - kept;
    result.findings.resize(kept);
    result.note +=
        (result.note.empty() ? "" : " ") +
        fmt::format(
            "{} more finding{} left out of this report, which may take at most {} bytes; the "
            "verdict counts them all.",
            with_thousands(left_out), left_out == 1 ? " was" : "s were", with_thousands(max_bytes));
  }
  if (json_bytes(to_json(result)) <= max_bytes) return;
  result.metrics = nlohmann::json::object();
  result.note += " The metrics were left out for the same reason.";
}

std::optional<Result> result_from_json(const nlohmann::json& json) {
  if (!json.is_object() || !json.contains("exercise") || !json.contains("findings") ||
      !json["findings"].is_array())
    return std::nullopt;
  try {
    Result result;
    result.exercise = json.at("exercise").get<std::string>();
    result.submission = json.value("submission", "");
    result.backend = json.value("backend", "");
    // The JSON names the backend rather than its capabilities (the contract keeps it so); of the two it
    // can name, only the GPU gives kernel times instead of instruction counts.
    result.run_figure =
        result.backend == "gpu" ? RunFigure::kKernelMilliseconds : RunFigure::kThreadInstructions;
    result.verdict = json.value("verdict", "fail") == "pass" ? Verdict::kPass : Verdict::kFail;
    result.points = json.value("points", 0);
    result.max_points = json.value("max_points", 0);
    for (const nlohmann::json& f : json["findings"]) {
      Finding finding;
      const std::optional<FindingKind> kind = parse_finding_kind(f.value("kind", ""));
      if (!kind) return std::nullopt;
      finding.kind = *kind;
      finding.severity = f.value("severity", "error") == "warning" ? Severity::kWarning : Severity::kError;
      finding.message = f.value("message", "");
      finding.file = f.value("file", "");
      finding.line = f.value("line", 0);
      finding.variant = f.value("variant", "");
      finding.size = f.value("size", "");
      finding.details = f.value("details", nlohmann::json::object());
      result.findings.push_back(std::move(finding));
    }
    for (const nlohmann::json& r : json.value("runs", nlohmann::json::array())) {
      Run run;
      run.variant = r.value("variant", "");
      run.size = r.value("size", "");
      run.verdict = r.value("verdict", "fail") == "pass" ? Verdict::kPass : Verdict::kFail;
      run.thread_instructions = r.value("thread_instructions", uint64_t{0});
      run.seconds = r.value("seconds", 0.0);
      result.runs.push_back(std::move(run));
    }
    result.metrics = json.value("metrics", nlohmann::json::object());
    result.note = json.value("note", "");
    if (json.contains("device_output")) {
      const nlohmann::json& output = json["device_output"];
      for (const nlohmann::json& l : output.value("lines", nlohmann::json::array())) {
        PrintedLine line;
        line.variant = l.value("variant", "");
        line.size = l.value("size", "");
        line.block = l.value("block", std::array<uint32_t, 3>{});
        line.thread = l.value("thread", std::array<uint32_t, 3>{});
        line.text = l.value("text", "");
        result.device_output.push_back(std::move(line));
      }
      result.device_output_dropped = output.value("more", uint64_t{0});
    }
    return result;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a field of the wrong type: not a result this version wrote
  }
}

std::string with_thousands(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string detail_text(const nlohmann::json& details, const char* key) {
  const auto it = details.find(key);
  return it != details.end() && it->is_string() ? it->get<std::string>() : "";
}

int detail_int(const nlohmann::json& details, const char* key) {
  const auto it = details.find(key);
  return it != details.end() && it->is_number_integer() ? it->get<int>() : 0;
}

}  // namespace gpugrade
