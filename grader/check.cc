// `gpugrade check` and `gpugrade new`: an exercise proves itself by grading its solution, its stub and its
// mutants; a new exercise starts from a scaffold that already does.
#include "grader/check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

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

std::string describe(const Result& result) {
  std::string kinds = kinds_of(result);
  return kinds.empty() ? std::string(to_string(result.verdict))
                       : fmt::format("{}: {}", to_string(result.verdict), kinds);
}

// What `spec` must get on this toolchain's backend; `dropped` names the kinds left out as unseeable. A
// backend that observes every kind (the simulator with its checkers) is held to `expect:`; one that does
// not (a GPU, whose races and diverged barriers only compute-sanitizer sees) to `expect on gpu:`, else to
// `expect:` less what it cannot see.
Expectation expectation_for(const MutantSpec& spec, const Toolchain& toolchain, const GradeOptions& options,
                            std::vector<std::string>* dropped) {
  const Capabilities& backend = toolchain.backend.capabilities();
  if (backend.observes_every_kind(options.sanitize)) return spec.expect;
  if (options.sanitize && spec.expect_on_gpu_sanitized) return *spec.expect_on_gpu_sanitized;
  if (spec.expect_on_gpu) return *spec.expect_on_gpu;
  Expectation expect{spec.expect.verdict, {}};
  for (FindingKind kind : spec.expect.kinds) {
    if (backend.observes(kind, options.sanitize))
      expect.kinds.push_back(kind);
    else
      dropped->emplace_back(to_string(kind));
  }
  return expect;
}

// Grades one file and compares the result with what it should get.
bool check_one(const Exercise& exercise, const fs::path& file, const std::string& label, const Expectation& expect,
               const std::vector<std::string>& dropped, Toolchain& toolchain, const GradeOptions& options,
               CheckReport& report, std::string* error) {
  const Verdict verdict = expect.verdict;
  const std::vector<FindingKind>& kinds = expect.kinds;
  CheckRow row;
  row.exercise = exercise.id;
  row.submission = label;
  row.expected = std::string(to_string(verdict));
  for (FindingKind k : kinds) row.expected += fmt::format(" {}", to_string(k));
  if (!dropped.empty()) row.expected += fmt::format(" (not on a gpu: {})", fmt::join(dropped, ", "));
  std::optional<std::string> text = read_text(file);
  if (!text) {
    row.got = "missing";
    row.why = fmt::format("cannot read {}", file.string());
    report.add(std::move(row));
    return true;
  }
  std::optional<Result> result = grade(exercise, {*text, file.string()}, toolchain, options, error);
  if (!result) return false;
  row.got = describe(*result);
  std::vector<std::string> missing;
  for (FindingKind k : kinds)
    if (std::none_of(result->findings.begin(), result->findings.end(),
                     [&](const Finding& f) { return f.kind == k && f.severity == Severity::kError; }))
      missing.emplace_back(to_string(k));
  row.ok = result->verdict == verdict && missing.empty();
  if (result->verdict != verdict)
    row.why = fmt::format("expected {}, got {}", to_string(verdict), to_string(result->verdict));
  else if (!missing.empty())
    row.why = fmt::format("no {} finding", fmt::join(missing, " or "));
  report.add(std::move(row));
  return true;
}

}  // namespace

void CheckReport::add(CheckRow row) {
  rows.push_back(std::move(row));
  if (on_row) on_row(rows.back());
}

bool CheckReport::ok() const {
  return invalid.empty() && std::all_of(rows.begin(), rows.end(), [](const CheckRow& r) { return r.ok; });
}

std::optional<MutantSpec> read_mutant_spec(const fs::path& file, const std::string& display_path, std::string* error) {
  std::optional<std::string> text = read_text(file);
  if (!text) {
    *error = fmt::format("{}: cannot read the mutant", display_path);
    return std::nullopt;
  }
  MutantSpec spec;
  spec.file = file;
  std::istringstream lines(*text);
  std::string line;
  static const std::regex kField(R"(^\s*//\s*(mutant|expect|expect on gpu|expect on gpu with --sanitize):\s*(.*?)\s*$)");
  bool expect_seen = false;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::smatch m;
    if (!std::regex_match(line, m, kField)) {
      if (line.rfind("//", 0) == 0 || line.empty()) continue;
      break;  // the declarations live in the leading comment
    }
    if (m[1] == "mutant") {
      spec.description = m[2];
      continue;
    }
    expect_seen = expect_seen || m[1] == "expect";
    Expectation& expect = m[1] == "expect"          ? spec.expect
                          : m[1] == "expect on gpu" ? spec.expect_on_gpu.emplace()
                                                    : spec.expect_on_gpu_sanitized.emplace();
    std::istringstream words(m[2]);
    std::string word;
    words >> word;
    if (word != "pass" && word != "fail") {
      *error = fmt::format("{}:{}: expected `// {}: pass|fail KIND...`, got verdict '{}'", display_path, number,
                           m[1].str(), word);
      return std::nullopt;
    }
    expect.verdict = word == "pass" ? Verdict::kPass : Verdict::kFail;
    while (words >> word) {
      std::optional<FindingKind> kind = parse_finding_kind(word);
      if (!kind) {
        *error = fmt::format("{}:{}: '{}' is not a finding kind (docs/result-contract.md lists them)", display_path,
                             number, word);
        return std::nullopt;
      }
      expect.kinds.push_back(*kind);
    }
  }
  if (!expect_seen) {
    *error = fmt::format("{}:1: a mutant declares what it must get in its leading comment: "
                         "`// expect: fail KIND...`",
                         display_path);
    return std::nullopt;
  }
  return spec;
}

bool check_exercise(const Exercise& exercise, const fs::path& root, Toolchain& toolchain, const GradeOptions& options,
                    CheckReport& report, std::string* error) {
  const fs::path solutions = root / "solutions" / exercise.id;
  if (!check_one(exercise, solutions / exercise.kernel.file, "solution", {Verdict::kPass, {}}, {}, toolchain,
                 options, report, error))
    return false;
  if (!check_one(exercise, exercise.dir / exercise.kernel.file, "stub", {Verdict::kFail, {}}, {}, toolchain,
                 options, report, error))
    return false;
  std::vector<fs::path> mutants;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(solutions / "mutants", ec))
    if (entry.is_regular_file() && entry.path().extension() == ".cu") mutants.push_back(entry.path());
  std::sort(mutants.begin(), mutants.end());
  for (const fs::path& file : mutants) {
    std::optional<MutantSpec> spec = read_mutant_spec(file, file.string(), error);
    if (!spec) return false;
    std::vector<std::string> dropped;
    const Expectation expect = expectation_for(*spec, toolchain, options, &dropped);
    if (!check_one(exercise, file, "mutants/" + file.filename().string(), expect, dropped, toolchain, options,
                   report, error))
      return false;
  }
  return true;
}

void write_check_report(const CheckReport& report, std::ostream& out, bool json) {
  if (json) {
    nlohmann::ordered_json all;
    all["ok"] = report.ok();
    all["invalid"] = nlohmann::ordered_json::array();
    for (const InvalidExercise& e : report.invalid) all["invalid"].push_back({{"file", e.file}, {"errors", e.errors}});
    all["rows"] = nlohmann::ordered_json::array();
    for (const CheckRow& r : report.rows)
      all["rows"].push_back({{"exercise", r.exercise}, {"submission", r.submission}, {"expected", r.expected},
                             {"got", r.got}, {"ok", r.ok}, {"why", r.why}});
    out << all.dump(2) << '\n';
    return;
  }
  for (const InvalidExercise& e : report.invalid)
    for (const std::string& line : e.errors) out << line << '\n';
  size_t w_ex = 8, w_sub = 10, w_exp = 8;
  for (const CheckRow& r : report.rows) {
    w_ex = std::max(w_ex, r.exercise.size());
    w_sub = std::max(w_sub, r.submission.size());
    w_exp = std::max(w_exp, r.expected.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "exercise", w_ex, "submission", w_sub, "expected", w_exp, "got");
  size_t bad = 0;
  for (const CheckRow& r : report.rows) {
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}{}\n", r.exercise, w_ex, r.submission, w_sub, r.expected, w_exp,
                       r.got, r.ok ? "" : "   <-- " + r.why);
    bad += !r.ok;
  }
  out << fmt::format("{} of {} checks as expected{}\n", report.rows.size() - bad, report.rows.size(),
                     report.invalid.empty() ? "" : fmt::format(", {} invalid exercise(s)", report.invalid.size()));
}

bool scaffold_exercise(const fs::path& root, const std::string& id, std::vector<std::string>* created,
                       std::string* error) {
  static const std::regex kId("[a-z][a-z0-9-]*");
  if (!std::regex_match(id, kId)) {
    *error = fmt::format("'{}' is not an exercise id: use lowercase letters, digits and '-', starting with a letter",
                         id);
    return false;
  }
  const fs::path exercise = root / "exercises" / id, solution = root / "solutions" / id;
  if (fs::exists(exercise) || fs::exists(solution)) {
    *error = fmt::format("{} or {} already exists", exercise.string(), solution.string());
    return false;
  }
  // The kernel is named after nothing in particular so every scaffold compiles as it is: `scale`.
  const std::vector<std::pair<fs::path, std::string>> files = {
      {exercise / "exercise.yaml",
       fmt::format(R"yaml(# yaml-language-server: $schema=../schema.json
id: {0}
title: Scale a vector (edit me)
points: 1
kernel:
  file: {0}.cu
  name: scale
  params:
    - {{name: out, type: "float*",       buffer: out}}
    - {{name: in,  type: "const float*", buffer: in}}
    - {{name: n,   type: int,            value: n}}
buffers:
  in:  {{type: float, count: n, init: random}}
  out: {{type: float, count: n, init: poison, output: true}}
reference: reference.cpp
compare: {{exact: true}}
variants:
  - {{defines: {{BLOCK: 128}}, block: [BLOCK]}}
  - {{defines: {{BLOCK: 32}},  block: [BLOCK]}}
grid: ["ceil_div(n, BLOCK)"]
sizes:
  - {{n: 1}}
  - {{n: 1000}}
performance:
  sim: {{max_sector_ratio: 2.0}}
hints:
  - "One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x."
)yaml",
                   id)},
      {exercise / (id + ".cu"),
       "// The stub learners edit: out[i] = 2 * in[i] for every i < n. README.md explains the task.\n"
       "__global__ void scale(float* out, const float* in, int n) {\n"
       "  // TODO: compute this thread's element and scale it; guard against i >= n.\n"
       "}\n"},
      {exercise / "reference.cpp",
       "// What the kernel must compute, run on the host by the grader.\n"
       "void scale(float* out, const float* in, int n) {\n"
       "  for (int i = 0; i < n; ++i) out[i] = 2.0f * in[i];\n"
       "}\n"},
      {exercise / "README.md",
       fmt::format("# {}\n\nWrite the lesson here: what the learner does, and why the hardware rewards it.\n\n"
                   "Run `gpugrade grade {}` to grade your kernel.\n",
                   id, id)},
      {solution / (id + ".cu"),
       "// The solution: one thread per element, guarded against the last block's extra threads.\n"
       "__global__ void scale(float* out, const float* in, int n) {\n"
       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i < n) out[i] = 2.0f * in[i];\n"
       "}\n"},
      {solution / "mutants" / "guard-off-by-one.cu",
       "// mutant: the guard lets the thread just past the end through\n"
       "// expect: fail out-of-bounds\n"
       "__global__ void scale(float* out, const float* in, int n) {\n"
       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i <= n) out[i] = 2.0f * in[i];\n"
       "}\n"},
  };
  for (const auto& [path, text] : files) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) {
      *error = fmt::format("cannot write {}", path.string());
      return false;
    }
    created->push_back(path.string());
  }
  return true;
}

}  // namespace gpugrade
