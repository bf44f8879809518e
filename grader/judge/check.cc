// `gpugrade check` and `gpugrade new`: an exercise proves itself by grading its solution, its stub and its
// mutants; a new exercise starts from a scaffold that already does.
#include "grader/judge/check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "grader/result/error_kinds.h"
#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// The simulator's access figures: under strict GPU grading the device's timing judges them instead.
bool is_access_figure(FindingKind kind) {
  return kind == FindingKind::kBankConflict || kind == FindingKind::kUncoalesced;
}

// Strict GPU grading (the simulator's pass beside the device) of an exercise timed on the device reports
// every kind `expect:` names but the simulator's access figures, which the device's timing judges instead:
// a mutant written to show a bank conflict or uncoalesced access must be too slow there, as its
// `expect on gpu:` line says, unless something else already fails it (a failing grade is not timed). An
// exercise with no speed bar on the device keeps the simulator's figures as its judge: all of `expect:`.
Expectation strict_expectation(const MutantSpec& spec, bool timed_on_device,
                               std::vector<std::string>* dropped) {
  if (!timed_on_device) return spec.expect;
  Expectation expect{spec.expect.verdict, {}};
  for (FindingKind kind : spec.expect.kinds) {
    if (is_access_figure(kind))
      dropped->emplace_back(to_string(kind));
    else
      expect.kinds.push_back(kind);
  }
  if (spec.expect_on_gpu && expect.kinds.empty())
    for (FindingKind kind : spec.expect_on_gpu->kinds)
      if (kind == FindingKind::kTooSlow) expect.kinds.push_back(kind);
  return expect;
}

// What `spec` must get on this toolchain; `dropped` names the kinds left out as unseeable. Strict GPU
// grading is held to `expect:` less the simulator's access figures (strict_expectation). Otherwise a
// backend that observes every kind (the simulator with its checkers) is held to `expect:`; one that does
// not (a GPU alone, whose races and diverged barriers only compute-sanitizer sees) to `expect on gpu:`,
// else to `expect:` less what it cannot see.
Expectation expectation_for(const MutantSpec& spec, const Exercise& exercise, const Toolchain& toolchain,
                            const GradeOptions& options, std::vector<std::string>* dropped) {
  if (toolchain.simulator) return strict_expectation(spec, exercise.performance.gpu.has_value(), dropped);
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

// "race at line 12" not found among the result's error findings: why the row fails, or "" when all are.
std::string missing_at(const Result& result, const std::vector<ExpectedAt>& at) {
  std::vector<std::string> missing;
  for (const ExpectedAt& want : at) {
    std::vector<int> lines;
    for (const Finding& f : result.findings)
      if (f.kind == want.kind && f.severity == Severity::kError) lines.push_back(f.line);
    if (std::find(lines.begin(), lines.end(), want.line) != lines.end()) continue;
    std::sort(lines.begin(), lines.end());
    lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
    missing.push_back(lines.empty()
                          ? fmt::format("expected {} at line {}, got none", to_string(want.kind), want.line)
                          : fmt::format("expected {} at line {}, got {} at line{} {}", to_string(want.kind),
                                        want.line, to_string(want.kind), lines.size() == 1 ? "" : "s",
                                        fmt::join(lines, ", ")));
  }
  return fmt::format("{}", fmt::join(missing, "; "));
}

// Grades one file and compares the result with what it should get.
bool check_one(const Exercise& exercise, const fs::path& file, const std::string& shown,
               const std::string& label, const Expectation& expect, const std::vector<std::string>& dropped,
               Toolchain& toolchain, const GradeOptions& options, CheckReport& report, std::string* error,
               const std::vector<ExpectedAt>& at = {}) {
  const Verdict verdict = expect.verdict;
  const std::vector<FindingKind>& kinds = expect.kinds;
  CheckRow row;
  row.exercise = exercise.id;
  row.submission = label;
  row.expected = std::string(to_string(verdict));
  for (FindingKind k : kinds) row.expected += fmt::format(" {}", to_string(k));
  if (!dropped.empty())
    row.expected += toolchain.simulator ? fmt::format(" ({}: timed instead)", fmt::join(dropped, ", "))
                                        : fmt::format(" (not on a gpu: {})", fmt::join(dropped, ", "));
  std::optional<std::string> text = read_file_bytes(file);
  if (!text) {
    row.got = "missing";
    row.why = fmt::format("cannot read {}", shown);
    report.add(std::move(row));
    return true;
  }
  std::optional<Result> result = grade(exercise, {*text, shown}, toolchain, options, error);
  if (!result) return false;
  row.got = verdict_and_kinds(*result);
  std::vector<std::string> missing;
  for (FindingKind k : kinds)
    if (std::none_of(result->findings.begin(), result->findings.end(),
                     [&](const Finding& f) { return f.kind == k && f.severity == Severity::kError; }))
      missing.emplace_back(to_string(k));
  const std::string misplaced = missing_at(*result, at);
  row.ok = result->verdict == verdict && missing.empty() && misplaced.empty();
  if (result->verdict != verdict)
    row.why = fmt::format("expected {}, got {}", to_string(verdict), to_string(result->verdict));
  else if (!missing.empty())
    row.why = fmt::format("no {} finding", fmt::join(missing, " or "));
  else if (!misplaced.empty())
    row.why = misplaced;
  report.add(std::move(row));
  return true;
}

// Whitespace runs as one space, none at either end: how a hint and the solution are compared.
std::string squeezed(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// A hint that holds a statement of the solution word for word gives the answer away: each such hint is a
// warning naming the statement's line. Statements shorter than kQuoted characters (`int t = threadIdx.x`)
// are what any answer says, and shared declarations what the lesson asks for: neither is counted.
void warn_about_quoted_solution(const Exercise& exercise, std::string_view solution,
                                const std::string& solution_name, std::vector<std::string>& warnings) {
  constexpr size_t kQuoted = 24;
  for (size_t h = 0; h < exercise.hints.size(); ++h) {
    const std::string hint = squeezed(exercise.hints[h].text);
    int line = 1;
    size_t start = 0;
    bool warned = false;
    for (size_t i = 0; i <= solution.size() && !warned; ++i) {
      const bool end = i == solution.size() || solution[i] == ';' || solution[i] == '{' ||
                       solution[i] == '}' || solution[i] == '\n';
      if (!end) continue;
      const std::string statement = squeezed(solution.substr(start, i - start));
      // Declaring the shared array the lesson asks for is set-up, not the answer.
      const bool comment = statement.starts_with("//") || statement.starts_with("#") ||
                           statement.starts_with("__shared__") || statement.starts_with("extern __shared__");
      if (!comment && statement.size() >= kQuoted && hint.find(statement) != std::string::npos) {
        warnings.push_back(
            fmt::format("{}: warning: hint {} quotes line {} of {} (`{}`): a hint that holds the "
                        "answer teaches nothing; say what to do instead",
                        (exercise.display_dir / "exercise.yaml").generic_string(), h + 1, line, solution_name,
                        statement));
        warned = true;
      }
      if (i < solution.size() && solution[i] == '\n') ++line;
      start = i + 1;
    }
  }
}

}  // namespace

std::vector<fs::path> cu_files(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".cu") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

void CheckReport::add(CheckRow row) {
  rows.push_back(std::move(row));
  if (on_row) on_row(rows.back());
}

bool CheckReport::ok() const {
  return invalid.empty() && std::all_of(rows.begin(), rows.end(), [](const CheckRow& r) { return r.ok; });
}

// `// name: value` with name one of a mutant's fields, both trimmed; nullopt for any other line. Read by
// hand, not with std::regex, whose matcher recurses per character: a long comment line overflowed the stack.
std::optional<std::pair<std::string, std::string>> comment_field(std::string_view line) {
  auto trim_front = [](std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    return text;
  };
  line = trim_front(line);
  if (!line.starts_with("//")) return std::nullopt;
  line = trim_front(line.substr(2));
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view name = line.substr(0, colon);
  if (name != "mutant" && name != "expect" && name != "expect on gpu" &&
      name != "expect on gpu with --sanitize")
    return std::nullopt;
  std::string_view value = trim_front(line.substr(colon + 1));
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) value.remove_suffix(1);
  return std::pair(std::string(name), std::string(value));
}

// `CODE // expect here: KINDS`: whether CODE is blank (the marker stands alone, so it names the next line)
// and the KINDS text; nullopt for any other line. Read by hand, like comment_field.
std::optional<std::pair<bool, std::string>> expect_here(std::string_view line) {
  constexpr std::string_view kMarker = "expect here:";
  for (size_t slash = line.find("//"); slash != std::string_view::npos; slash = line.find("//", slash + 2)) {
    std::string_view rest = line.substr(slash + 2);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    if (!rest.starts_with(kMarker)) continue;
    rest.remove_prefix(kMarker.size());
    const bool alone = line.substr(0, slash).find_first_not_of(" \t") == std::string_view::npos;
    return std::pair(alone, std::string(rest));
  }
  return std::nullopt;
}

std::optional<MutantSpec> read_mutant_spec(const fs::path& file, const std::string& display_path,
                                           std::string* error) {
  std::optional<std::string> text = read_file_bytes(file);
  if (!text) {
    *error = fmt::format("{}: cannot read the mutant", display_path);
    return std::nullopt;
  }
  MutantSpec spec;
  spec.file = file;
  std::istringstream lines(*text);
  std::string line;
  bool expect_seen = false;
  bool leading = true;  // the declarations live in the leading comment; markers anywhere
  for (int number = 1; std::getline(lines, line); ++number) {
    if (std::optional<std::pair<bool, std::string>> here = expect_here(line)) {
      const bool alone = here->first;
      std::istringstream words(here->second);
      std::string word;
      bool any = false;
      while (words >> word) {
        std::optional<FindingKind> kind = parse_finding_kind(word);
        if (!kind) {
          *error = fmt::format("{}:{}: '{}' is not a finding kind (docs/result-contract.md lists them)",
                               display_path, number, word);
          return std::nullopt;
        }
        spec.at.push_back({alone ? number + 1 : number, *kind});
        any = true;
      }
      if (!any) {
        *error = fmt::format("{}:{}: `// expect here:` names the finding kinds this line must get",
                             display_path, number);
        return std::nullopt;
      }
      if (!alone) leading = false;
      continue;
    }
    if (!leading) continue;
    std::optional<std::pair<std::string, std::string>> field = comment_field(line);
    if (!field) {
      if (line.rfind("//", 0) == 0 || line.empty()) continue;
      leading = false;
      continue;
    }
    const auto& [name, value] = *field;
    if (name == "mutant") {
      spec.description = value;
      continue;
    }
    expect_seen = expect_seen || name == "expect";
    Expectation& expect = name == "expect"          ? spec.expect
                          : name == "expect on gpu" ? spec.expect_on_gpu.emplace()
                                                    : spec.expect_on_gpu_sanitized.emplace();
    std::istringstream words(value);
    std::string word;
    words >> word;
    if (word != "pass" && word != "fail") {
      *error = fmt::format("{}:{}: expected `// {}: pass|fail KIND...`, got verdict '{}'", display_path,
                           number, name, word);
      return std::nullopt;
    }
    expect.verdict = word == "pass" ? Verdict::kPass : Verdict::kFail;
    while (words >> word) {
      std::optional<FindingKind> kind = parse_finding_kind(word);
      if (!kind) {
        *error = fmt::format("{}:{}: '{}' is not a finding kind (docs/result-contract.md lists them)",
                             display_path, number, word);
        return std::nullopt;
      }
      expect.kinds.push_back(*kind);
    }
  }
  if (!expect_seen) {
    *error = fmt::format(
        "{}:1: a mutant declares what it must get in its leading comment: "
        "`// expect: fail KIND...`",
        display_path);
    return std::nullopt;
  }
  return spec;
}

// `file`, below the course folder `root`, as messages name it: below the course folder as the exercise's
// display path names that folder. `check` and `grade --submission FILE` from the course folder then name a
// file alike, so its findings read the same and its compile is cached once for both.
std::string display_in_course(const Exercise& exercise, const fs::path& root, const fs::path& file) {
  const fs::path shown = exercise.display_dir.empty() ? exercise.dir : exercise.display_dir;
  const fs::path relative = file.lexically_relative(root);
  if (relative.empty() || *relative.begin() == "..") return file.string();
  return (shown.parent_path().parent_path() / relative).generic_string();
}

bool check_exercise(const Exercise& exercise, const fs::path& root, Toolchain& toolchain,
                    const GradeOptions& options, CheckReport& report, std::string* error) {
  const fs::path solutions = root / "solutions" / exercise.id;
  if (std::optional<std::string> solution = read_file_bytes(solutions / exercise.kernel.file))
    warn_about_quoted_solution(exercise, *solution,
                               ("solutions" / fs::path(exercise.id) / exercise.kernel.file).generic_string(),
                               report.warnings);
  auto shown = [&](const fs::path& file) { return display_in_course(exercise, root, file); };
  if (!check_one(exercise, solutions / exercise.kernel.file, shown(solutions / exercise.kernel.file),
                 "solution", {Verdict::kPass, {}}, {}, toolchain, options, report, error))
    return false;
  const fs::path stub = exercise.dir / exercise.kernel.file;
  if (!check_one(exercise, stub, shown(stub), "stub", {Verdict::kFail, {}}, {}, toolchain, options, report,
                 error))
    return false;
  // Alternative solutions, written the other ways a learner may (calibrate sets speed bars from them),
  // must pass too.
  for (const fs::path& file : cu_files(solutions / "alternatives"))
    if (!check_one(exercise, file, shown(file), "alternatives/" + file.filename().string(),
                   {Verdict::kPass, {}}, {}, toolchain, options, report, error))
      return false;
  for (const fs::path& file : cu_files(solutions / "mutants")) {
    std::optional<MutantSpec> spec = read_mutant_spec(file, shown(file), error);
    if (!spec) return false;
    std::vector<std::string> dropped;
    const Expectation expect = expectation_for(*spec, exercise, toolchain, options, &dropped);
    std::vector<ExpectedAt> at;
    for (const ExpectedAt& marker : spec->at)
      if (toolchain.simulator ? !exercise.performance.gpu || !is_access_figure(marker.kind)
                              : toolchain.backend.capabilities().observes(marker.kind, options.sanitize))
        at.push_back(marker);
    if (!check_one(exercise, file, shown(file), "mutants/" + file.filename().string(), expect, dropped,
                   toolchain, options, report, error, at))
      return false;
  }
  return true;
}

void write_check_report(const CheckReport& report, std::ostream& out, bool json) {
  if (json) {
    nlohmann::ordered_json all;
    all["ok"] = report.ok();
    all["invalid"] = nlohmann::ordered_json::array();
    for (const InvalidExercise& e : report.invalid)
      all["invalid"].push_back({{"file", e.file}, {"errors", e.errors}});
    all["rows"] = nlohmann::ordered_json::array();
    for (const CheckRow& r : report.rows)
      all["rows"].push_back({{"exercise", r.exercise},
                             {"submission", r.submission},
                             {"expected", r.expected},
                             {"got", r.got},
                             {"ok", r.ok},
                             {"why", r.why}});
    all["warnings"] = report.warnings;
    out << all.dump(2) << '\n';
    return;
  }
  for (const InvalidExercise& e : report.invalid)
    for (const std::string& line : e.errors) out << line << '\n';
  for (const std::string& line : report.warnings) out << line << '\n';
  size_t w_ex = 8, w_sub = 10, w_exp = 8;
  for (const CheckRow& r : report.rows) {
    w_ex = std::max(w_ex, r.exercise.size());
    w_sub = std::max(w_sub, r.submission.size());
    w_exp = std::max(w_exp, r.expected.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "exercise", w_ex, "submission", w_sub, "expected", w_exp,
                     "got");
  size_t bad = 0;
  for (const CheckRow& r : report.rows) {
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}{}\n", r.exercise, w_ex, r.submission, w_sub, r.expected,
                       w_exp, r.got, r.ok ? "" : "   <-- " + r.why);
    bad += !r.ok;
  }
  out << fmt::format(
      "{} of {} checks as expected{}\n", report.rows.size() - bad, report.rows.size(),
      report.invalid.empty() ? "" : fmt::format(", {} invalid exercise(s)", report.invalid.size()));
}

bool scaffold_exercise(const fs::path& root, const std::string& id, std::vector<std::string>* created,
                       std::string* error) {
  const bool is_id =
      !id.empty() && id[0] >= 'a' && id[0] <= 'z' && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      });
  if (!is_id) {
    *error = fmt::format(
        "'{}' is not an exercise id: use lowercase letters, digits and '-', starting with a letter", id);
    return false;
  }
  const fs::path exercise = root / "exercises" / id, solution = root / "solutions" / id;
  if (fs::exists(exercise) || fs::exists(solution)) {
    *error = fmt::format("{} or {} already exists", exercise.string(), solution.string());
    return false;
  }
  // The kernel is named after nothing in particular so every scaffold compiles as it is: `scale`.
  const std::vector<std::pair<fs::path, std::string>> files = {
      {exercise / "exercise.yaml", fmt::format(R"yaml(# yaml-language-server: $schema=../schema.json
# docs/exercise-format.md describes every field; the commented lines show more of what format 2 can say.
format: 2
id: {0}
title: Scale a vector (edit me)
points: 1
kernel:
  file: {0}.cu
  name: scale
  params:
    - {{name: out, type: "float*",       buffer: out}}
    - {{name: in,  type: "const float*", buffer: in}}
    - {{name: a,   type: float,          value: 2.5}}  # a number, for float and double parameters
    - {{name: n,   type: int,            value: n}}    # an integer expression over sizes and defines
buffers:
  in:  {{type: float, count: n, init: {{random: {{min: -10, max: 10}}}}}}  # also normal, values, hot, order
  out: {{type: float, count: n, init: poison, output: true, compare: {{ulp: 1}}}}
  # A matrix output names elements out[3][17] with shape: [rows, cols]; an accumulator starts at
  # init: zero; a buffer only the kernels pass between them is intermediate: true.
  # An input the kernel reads from `__constant__ float mask[7];` in its file: constant: mask (no parameter).
reference: reference.cpp  # {{file: reference.cpp, launch: true}} gives it the defines and the launch
variants:
  - {{defines: {{BLOCK: 128}}, block: [BLOCK]}}
  - {{defines: {{BLOCK: 32}},  block: [BLOCK]}}
grid: ["ceil_div(n, BLOCK)"]
sizes:
  - {{n: 1}}
  - {{n: 1000}}
  - {{n: 4096, init: {{in: {{random: {{values: [0, 1]}}}}}}}}  # a size may fill an input its own way
# requires: {{warp_shuffle: {{message: "Use __shfl_down_sync."}}, shared_atomics: true,
#            no_global_atomics_in_loop: true, barriers: {{min: 1}}}}
# pipeline:  # further kernels of the same file, launched in order on the same buffers
#   - {{name: second_pass, params: [...], grid: [1], block: [32]}}
# nvcc_flags: [-use_fast_math]
# learner_defines:  # a define the learner's file chooses (#define BLOCK 256) instead of the variants
#   BLOCK: {{default: 128, min: 32, max: 1024, multiple_of: 32}}  # then no variant defines BLOCK
performance:
  sim: {{max_sector_ratio: 2.0}}
hints:
  - "One thread per element: i = blockIdx.x * blockDim.x + threadIdx.x."
)yaml",
                                               id)},
      {exercise / (id + ".cu"),
       "// The stub learners edit: out[i] = a * in[i] for every i < n. README.md explains the task.\n"
       "__global__ void scale(float* out, const float* in, float a, int n) {\n"
       "  // TODO: compute this thread's element and scale it; guard against i >= n.\n"
       "}\n"},
      {exercise / "reference.cpp",
       "// What the kernel must compute, run on the host by the grader.\n"
       "void scale(float* out, const float* in, float a, int n) {\n"
       "  for (int i = 0; i < n; ++i) out[i] = a * in[i];\n"
       "}\n"},
      {exercise / "README.md",
       fmt::format(
           "# {}\n\nWrite the lesson here: what the learner does, and why the hardware rewards it.\n\n"
           "Run `gpugrade grade {}` to grade your kernel.\n",
           id, id)},
      {solution / (id + ".cu"),
       "// The solution: one thread per element, guarded against the last block's extra threads.\n"
       "__global__ void scale(float* out, const float* in, float a, int n) {\n"
       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i < n) out[i] = a * in[i];\n"
       "}\n"},
      {solution / "mutants" / "guard-off-by-one.cu",
       "// mutant: the guard lets the thread just past the end through\n"
       "// expect: fail out-of-bounds\n"
       "__global__ void scale(float* out, const float* in, float a, int n) {\n"
       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
       "  if (i <= n) out[i] = a * in[i];\n"
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
