// The gradebook CSV, per-student reports and the class summary; and the result contract read back from JSON.
#include "grader/class/gradebook.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"

namespace gpugrade {
namespace {

int total_points(const StudentResults& s) {
  int total = 0;
  for (const Result& r : s.results) total += r.points;
  return total;
}

int max_points(const StudentResults& s) {
  int total = 0;
  for (const Result& r : s.results) total += r.max_points;
  return total;
}

template <typename T>
bool read_field(const nlohmann::json& json, const char* key, T* out, std::string* error) {
  if (!json.contains(key)) {
    *error = fmt::format("no '{}' in the result", key);
    return false;
  }
  try {
    *out = json.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    *error = fmt::format("'{}' in the result has the wrong type", key);
    return false;
  }
  return true;
}

}  // namespace

void write_gradebook_csv(const std::vector<GradebookColumn>& columns,
                         const std::vector<StudentResults>& students, std::ostream& out) {
  out << "student";
  for (const GradebookColumn& c : columns) out << ',' << escape_csv_field(c.exercise);
  const bool problems = std::any_of(students.begin(), students.end(),
                                    [](const StudentResults& s) { return !s.problem.empty(); });
  out << ",total" << (problems ? ",problem" : "") << '\n';
  for (const StudentResults& s : students) {
    out << escape_csv_field(s.student);
    for (const Result& r : s.results) out << ',' << r.points;
    out << ',' << total_points(s);
    if (problems) out << ',' << escape_csv_field(s.problem);
    out << '\n';
  }
}

nlohmann::ordered_json student_json(const StudentResults& student) {
  nlohmann::ordered_json out;
  out["student"] = student.student;
  out["points"] = total_points(student);
  out["max_points"] = max_points(student);
  if (!student.problem.empty()) out["problem"] = student.problem;
  if (!student.warnings.empty()) out["warnings"] = student.warnings;
  out["results"] = nlohmann::ordered_json::array();
  for (const Result& r : student.results) out["results"].push_back(to_json(r));
  return out;
}

void write_student_markdown(const StudentResults& student, std::ostream& out) {
  out << fmt::format("# {}: {} of {} points\n\n", escape_markdown(student.student), total_points(student),
                     max_points(student));
  write_markdown(student.results, out, {});
}

void write_class_summary(const std::vector<GradebookColumn>& columns,
                         const std::vector<StudentResults>& students, std::ostream& out) {
  out << fmt::format("# Class summary: {} students, {} exercises\n\n", students.size(), columns.size());
  out << "| exercise | submitted | passed | mean points |\n| --- | ---: | ---: | ---: |\n";
  for (size_t c = 0; c < columns.size(); ++c) {
    int submitted = 0, passed = 0, points = 0;
    for (const StudentResults& s : students) {
      const Result& r = s.results[c];
      if (!r.submission.empty()) ++submitted;
      if (r.verdict == Verdict::kPass) ++passed;
      points += r.points;
    }
    double mean = students.empty() ? 0.0 : static_cast<double>(points) / static_cast<double>(students.size());
    out << fmt::format("| {} | {} | {} | {:.1f} of {} |\n", escape_markdown(columns[c].exercise), submitted,
                       passed, mean, columns[c].points);
  }
  // Rows that were not graded, and rows to look at, before anything about the exercises: a gradebook with
  // such a row is not ready to upload.
  const size_t not_graded = static_cast<size_t>(std::count_if(
      students.begin(), students.end(), [](const StudentResults& s) { return !s.problem.empty(); }));
  const size_t to_check = static_cast<size_t>(std::count_if(
      students.begin(), students.end(), [](const StudentResults& s) { return !s.warnings.empty(); }));
  if (not_graded + to_check > 0) {
    out << fmt::format("\n## Roster: {} row{} not graded, {} to check\n\n", not_graded,
                       not_graded == 1 ? "" : "s", to_check);
    for (const StudentResults& s : students) {
      if (!s.problem.empty())
        out << fmt::format("- {}: not graded: {}\n", markdown_code(s.student), escape_markdown(s.problem));
      for (const std::string& w : s.warnings)
        out << fmt::format("- {}: check: {}\n", markdown_code(s.student), escape_markdown(w));
    }
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    // Each kind counts a student once, however many findings of it their submission got.
    std::map<std::string, int> students_with;
    std::map<std::string, std::string> example;
    for (const StudentResults& s : students) {
      std::map<std::string, bool> seen;
      for (const Finding& f : s.results[c].findings) {
        if (f.severity != Severity::kError) continue;
        std::string kind(to_string(f.kind));
        if (seen[kind]) continue;
        seen[kind] = true;
        ++students_with[kind];
        if (!example.count(kind)) example[kind] = finding_line(f);
      }
    }
    out << fmt::format("\n## {}\n\n", escape_markdown(columns[c].exercise));
    if (students_with.empty()) {
      out << "No errors in any submission.\n";
      continue;
    }
    std::vector<std::pair<std::string, int>> ranked(students_with.begin(), students_with.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [kind, count] : ranked)
      out << fmt::format("- **{}**: {} student{}, e.g. {}\n", kind, count, count == 1 ? "" : "s",
                         markdown_code(example[kind]));
  }
}

std::optional<Result> result_from_json(const nlohmann::json& json, std::string* error) {
  if (!json.is_object()) {
    *error = "the result is not a JSON object";
    return std::nullopt;
  }
  Result r;
  std::string verdict;
  if (!read_field(json, "exercise", &r.exercise, error) ||
      !read_field(json, "submission", &r.submission, error) ||
      !read_field(json, "backend", &r.backend, error) || !read_field(json, "verdict", &verdict, error) ||
      !read_field(json, "points", &r.points, error) || !read_field(json, "max_points", &r.max_points, error))
    return std::nullopt;
  r.verdict = verdict == "pass" ? Verdict::kPass : Verdict::kFail;
  if (json.contains("note") && json["note"].is_string()) r.note = json["note"].get<std::string>();
  if (json.contains("metrics")) r.metrics = json["metrics"];
  if (!json.contains("findings") || !json["findings"].is_array() || !json.contains("runs") ||
      !json["runs"].is_array()) {
    *error = "the result has no findings or runs list";
    return std::nullopt;
  }
  for (const nlohmann::json& f : json["findings"]) {
    Finding finding;
    std::string kind, severity;
    if (!read_field(f, "kind", &kind, error) || !read_field(f, "severity", &severity, error) ||
        !read_field(f, "message", &finding.message, error) || !read_field(f, "file", &finding.file, error) ||
        !read_field(f, "line", &finding.line, error) || !read_field(f, "variant", &finding.variant, error) ||
        !read_field(f, "size", &finding.size, error))
      return std::nullopt;
    std::optional<FindingKind> parsed = parse_finding_kind(kind);
    if (!parsed) {
      *error = fmt::format("unknown finding kind '{}'", kind);
      return std::nullopt;
    }
    finding.kind = *parsed;
    finding.severity = severity == "warning" ? Severity::kWarning : Severity::kError;
    if (f.contains("details")) finding.details = f["details"];
    r.findings.push_back(std::move(finding));
  }
  for (const nlohmann::json& j : json["runs"]) {
    Run run;
    std::string run_verdict;
    if (!read_field(j, "variant", &run.variant, error) || !read_field(j, "size", &run.size, error) ||
        !read_field(j, "verdict", &run_verdict, error) ||
        !read_field(j, "thread_instructions", &run.thread_instructions, error) ||
        !read_field(j, "seconds", &run.seconds, error))
      return std::nullopt;
    run.verdict = run_verdict == "pass" ? Verdict::kPass : Verdict::kFail;
    r.runs.push_back(std::move(run));
  }
  return r;
}

}  // namespace gpugrade
