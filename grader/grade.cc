// The judge: runs a submission through the pipeline and decides. The harness observes; everything that
// turns observations into a verdict (comparison with the reference, limits, folding) happens here.
#include "grader/grade.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <tuple>

#include "grader/kernel_lookup.h"
#include "grader/reference.h"
#include "grader/report_lines.h"
#include "grader/screen.h"
#include "grader/shared_shapes.h"
#include "harness/poison.h"

namespace gpugrade {
namespace {

// How many differing elements a wrong-output finding lists.
constexpr size_t kListedMismatches = 5;
constexpr size_t kPictureCells = 16384;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <typename T>
void store(std::vector<std::byte>& bytes, size_t index, T value) {
  std::memcpy(bytes.data() + index * sizeof(T), &value, sizeof(T));
}

template <typename T>
T load(const std::vector<std::byte>& bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

// Fills one buffer as its spec says. Random values are a pure function of (seed, buffer, element), so a
// failure reproduces and no library's distribution can change the data between platforms.
Buffer make_buffer(const BufferSpec& spec, uint64_t count, uint64_t seed, size_t buffer_index) {
  Buffer buffer;
  buffer.name = spec.name;
  buffer.element_size = element_size(spec.type);
  buffer.bytes.resize(count * buffer.element_size);
  const uint64_t stream = splitmix64(seed ^ (uint64_t{buffer_index} << 48));
  for (uint64_t i = 0; i < count; ++i) {
    if (spec.init == BufferInit::kPoison) {
      for (uint32_t w = 0; w < buffer.element_size / 4; ++w) store(buffer.bytes, i * buffer.element_size / 4 + w, kOutputPoisonWord);
      continue;
    }
    const uint64_t bits = splitmix64(stream + i);
    double real = 0;
    int64_t integer = 0;
    switch (spec.init) {
      case BufferInit::kRandom:
        real = static_cast<double>(bits >> 40) / double(1 << 23) - 1.0;  // [-1, 1) on a 2^-23 grid
        integer = static_cast<int64_t>(bits % 2001) - 1000;
        break;
      case BufferInit::kIota:
        real = static_cast<double>(i);
        integer = static_cast<int64_t>(i);
        break;
      case BufferInit::kConstant:
        real = spec.constant;
        integer = static_cast<int64_t>(spec.constant);
        break;
      case BufferInit::kZero:
      case BufferInit::kPoison:
        break;
    }
    switch (spec.type) {
      case ElementType::kFloat: store(buffer.bytes, i, static_cast<float>(real)); break;
      case ElementType::kDouble: store(buffer.bytes, i, real); break;
      case ElementType::kInt: store(buffer.bytes, i, static_cast<int32_t>(integer)); break;
      case ElementType::kUnsigned:
        store(buffer.bytes, i, static_cast<uint32_t>(spec.init == BufferInit::kRandom ? bits % 1000000 : integer));
        break;
    }
  }
  return buffer;
}

// One element as a number for comparison and as text for messages.
struct Element {
  double value = 0;
  uint64_t bits = 0;
  bool floating = false;
  bool single = false;  // a float rather than a double
};

Element element_at(const Buffer& buffer, ElementType type, size_t index) {
  switch (type) {
    case ElementType::kFloat: {
      float f = load<float>(buffer.bytes, index);
      return {f, std::bit_cast<uint32_t>(f), true, true};
    }
    case ElementType::kDouble: {
      double d = load<double>(buffer.bytes, index);
      return {d, std::bit_cast<uint64_t>(d), true};
    }
    case ElementType::kInt: {
      int32_t v = load<int32_t>(buffer.bytes, index);
      return {static_cast<double>(v), static_cast<uint32_t>(v), false};
    }
    case ElementType::kUnsigned: {
      uint32_t v = load<uint32_t>(buffer.bytes, index);
      return {static_cast<double>(v), v, false};
    }
  }
  return {};
}

// Shortest text that reads back as the same value, in the element's own width.
std::string show(const Element& e) {
  if (!e.floating) return fmt::format("{}", static_cast<int64_t>(e.value));
  if (std::isnan(e.value)) return fmt::format("NaN (0x{:X})", e.bits);
  if (e.single) return fmt::format("{}", static_cast<float>(e.value));
  return fmt::format("{}", e.value);
}

bool is_output_poison(const Buffer& buffer, size_t index) {
  for (uint32_t w = 0; w < buffer.element_size / 4; ++w)
    if (load<uint32_t>(buffer.bytes, index * buffer.element_size / 4 + w) != kOutputPoisonWord) return false;
  return true;
}

bool same(const Element& got, const Element& want, const Compare& compare) {
  if (got.bits == want.bits) return true;
  if (!got.floating) return compare.exact ? false : std::fabs(got.value - want.value) <= compare.abs + compare.rel * std::fabs(want.value);
  if (std::isnan(got.value) || std::isnan(want.value)) return std::isnan(got.value) && std::isnan(want.value);
  if (compare.exact) return got.value == want.value;  // +0 and -0
  return std::fabs(got.value - want.value) <= compare.abs + compare.rel * std::fabs(want.value);
}

// Compares one output buffer with the reference's: wrong-output and unwritten-output findings.
void compare_output(const BufferSpec& spec, const Buffer& got, const Buffer& want, const Compare& compare,
                    const std::string& file, std::vector<Finding>& findings) {
  const size_t count = want.bytes.size() / want.element_size;
  size_t wrong = 0, unwritten = 0;
  nlohmann::json wrong_list = nlohmann::json::array(), unwritten_list = nlohmann::json::array();
  std::string first_wrong, first_unwritten;
  // Every wrong and unwritten element (up to kPictureCells each), for the HTML report's heat map.
  nlohmann::json wrong_cells = nlohmann::json::array(), unwritten_cells = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i) {
    Element g = element_at(got, spec.type, i), w = element_at(want, spec.type, i);
    if (same(g, w, compare)) continue;
    nlohmann::json& cells = is_output_poison(got, i) ? unwritten_cells : wrong_cells;
    if (cells.size() < kPictureCells) cells.push_back(i);
    if (is_output_poison(got, i)) {
      if (unwritten++ < kListedMismatches) {
        unwritten_list.push_back({{"index", i}, {"expected", show(w)}});
        if (first_unwritten.empty()) first_unwritten = fmt::format("{}[{}] (expected {})", spec.name, i, show(w));
      }
      continue;
    }
    if (wrong++ < kListedMismatches) {
      std::string note;
      if (g.floating && spec.type == ElementType::kFloat && is_poison_word(static_cast<uint32_t>(g.bits)))
        note = fmt::format(", the poison of a shared-memory word no thread of block {} wrote",
                           (g.bits & 0xFFFF) - 1);
      wrong_list.push_back({{"index", i}, {"expected", show(w)}, {"got", show(g)}});
      if (first_wrong.empty())
        first_wrong = fmt::format("{}[{}]: expected {}, got {}{}", spec.name, i, show(w), show(g), note);
    }
  }
  if (wrong > 0) {
    Finding f;
    f.kind = FindingKind::kWrongOutput;
    f.file = file;
    f.message = fmt::format("{} of {} elements of '{}' differ from the reference; the first is {}",
                            with_thousands(wrong), with_thousands(count), spec.name, first_wrong);
    f.details = {{"buffer", spec.name}, {"mismatches", wrong}, {"elements", count}, {"first", wrong_list},
                 {"cells", std::move(wrong_cells)}};
    findings.push_back(std::move(f));
  }
  if (unwritten > 0) {
    Finding f;
    f.kind = FindingKind::kUnwrittenOutput;
    f.file = file;
    f.message = fmt::format("{} of {} elements of '{}' were never written (they still hold the poison they "
                            "started with); the first is {}",
                            with_thousands(unwritten), with_thousands(count), spec.name, first_unwritten);
    f.details = {{"buffer", spec.name}, {"unwritten", unwritten}, {"elements", count}, {"first", unwritten_list},
                 {"cells", std::move(unwritten_cells)}};
    findings.push_back(std::move(f));
  }
}

void check_input(const BufferSpec& spec, const Buffer& before, const Buffer& after, const std::string& file,
                 std::vector<Finding>& findings) {
  if (before.bytes == after.bytes) return;
  const size_t count = before.bytes.size() / before.element_size;
  size_t changed = 0, first = count;
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(before.bytes.data() + i * before.element_size, after.bytes.data() + i * after.element_size,
                    before.element_size) == 0)
      continue;
    if (changed++ == 0) first = i;
  }
  Finding f;
  f.kind = FindingKind::kModifiedInput;
  f.file = file;
  f.message = fmt::format("the kernel changed {} of {} elements of its input '{}' (the first is {}[{}]: it "
                          "was {}, the kernel left {}); inputs must stay as they were",
                          with_thousands(changed), with_thousands(count), spec.name, spec.name, first,
                          show(element_at(before, spec.type, first)), show(element_at(after, spec.type, first)));
  f.details = {{"buffer", spec.name}, {"changed", changed}, {"first", first}};
  findings.push_back(std::move(f));
}

Finding config_finding(FindingKind kind, std::string message, const std::string& file, int line) {
  Finding f;
  f.kind = kind;
  f.message = std::move(message);
  f.file = file;
  f.line = line;
  return f;
}

std::vector<Finding> check_requirements(const Requirements& requires_, const KernelTraits& kernel,
                                        const std::string& file) {
  std::vector<Finding> findings;
  auto missing = [&](const char* requirement, const char* message) {
    Finding f = config_finding(FindingKind::kMissingRequirement, message, file, kernel.line);
    f.details["requirement"] = requirement;
    findings.push_back(std::move(f));
  };
  if (requires_.shared_memory && kernel.static_shared_bytes == 0 && !kernel.uses_dynamic_shared)
    missing("shared_memory",
            "the kernel uses no shared memory; this exercise stages each tile through a __shared__ array");
  if (requires_.barrier && !kernel.uses_barrier)
    missing("barrier",
            "the kernel has no __syncthreads(); threads read tile elements that other threads wrote, so they "
            "must wait for them");
  if (requires_.dynamic_shared_memory && !kernel.uses_dynamic_shared)
    missing("dynamic_shared_memory",
            "the kernel uses no dynamic shared memory; declare the tile as `extern __shared__ float tile[];` and "
            "let the launch size it");
  return findings;
}

// The checkers' per-line figures for one variant, summed over its sizes.
struct LineFigures {
  std::map<std::pair<std::string, int>, SharedLineStats> shared;
  std::map<std::pair<std::string, int>, GlobalLineStats> global;

  void add(const Observations& obs) {
    for (const SharedLineStats& s : obs.shared_lines) {
      SharedLineStats& t = shared[{s.file, s.line}];
      t.file = s.file;
      t.line = s.line;
      t.requests += s.requests;
      t.wavefronts += s.wavefronts;
      t.worst_ways = std::max(t.worst_ways, s.worst_ways);
    }
    for (const GlobalLineStats& g : obs.global_lines) {
      GlobalLineStats& t = global[{g.file, g.line}];
      t.file = g.file;
      t.line = g.line;
      t.requests += g.requests;
      t.sectors += g.sectors;
      t.min_sectors += g.min_sectors;
    }
  }
};

void judge_line_figures(const LineFigures& figures, const SimPerformance& limits, const std::string& variant,
                        std::vector<Finding>& findings, nlohmann::json& metrics) {
  for (const auto& [key, s] : figures.shared) {
    metrics["shared"].push_back({{"variant", variant}, {"file", s.file}, {"line", s.line},
                                 {"requests", s.requests}, {"wavefronts", s.wavefronts},
                                 {"worst_ways", s.worst_ways}});
    if (limits.max_bank_conflict_ways && s.worst_ways > *limits.max_bank_conflict_ways) {
      Finding f = config_finding(
          FindingKind::kBankConflict,
          fmt::format("{}-way bank conflict: {} wavefronts per request where 1 is possible (the limit is {}); "
                      "pad the tile's rows so a column's elements fall in different banks",
                      s.worst_ways, s.worst_ways, *limits.max_bank_conflict_ways),
          s.file, s.line);
      f.variant = variant;
      f.details = {{"worst_ways", s.worst_ways}, {"requests", s.requests}, {"wavefronts", s.wavefronts}};
      findings.push_back(std::move(f));
    }
  }
  for (const auto& [key, g] : figures.global) {
    const double ratio = g.min_sectors ? static_cast<double>(g.sectors) / static_cast<double>(g.min_sectors) : 1.0;
    metrics["global"].push_back({{"variant", variant}, {"file", g.file}, {"line", g.line},
                                 {"requests", g.requests}, {"sectors", g.sectors},
                                 {"min_sectors", g.min_sectors}, {"sector_ratio", ratio}});
    if (limits.max_sector_ratio && ratio > *limits.max_sector_ratio) {
      Finding f = config_finding(
          FindingKind::kUncoalesced,
          fmt::format("global accesses touch {:.1f} times the 32-byte sectors they need ({} sectors where {} would "
                      "do; the limit is {:.1f}); let neighbouring threads (threadIdx.x) touch neighbouring "
                      "addresses",
                      ratio, with_thousands(g.sectors), with_thousands(g.min_sectors), *limits.max_sector_ratio),
          g.file, g.line);
      f.variant = variant;
      f.details = {{"sector_ratio", ratio}, {"requests", g.requests}, {"sectors", g.sectors},
                   {"min_sectors", g.min_sectors}};
      findings.push_back(std::move(f));
    }
  }
}

// One finding per bug: the same kind at the same line is folded across runs and keeps the first run's
// message; details.runs counts the runs it was seen in. A finding seen in every run names no variant.
std::vector<Finding> fold(std::vector<Finding> findings, size_t total_runs) {
  std::vector<Finding> out;
  std::map<std::tuple<int, int, std::string, int, std::string>, size_t> seen;
  std::map<size_t, std::vector<std::pair<std::string, std::string>>> where;
  for (Finding& f : findings) {
    // What tells two findings of one kind at one line apart: the hazard, the requirement, the buffer.
    std::string hazard;
    for (const char* field : {"hazard", "requirement", "buffer"})
      if (f.details.contains(field)) hazard += f.details[field].dump();
    auto key = std::make_tuple(static_cast<int>(f.kind), static_cast<int>(f.severity), f.file, f.line, hazard);
    auto [it, inserted] = seen.try_emplace(key, out.size());
    if (inserted) out.push_back(f);
    where[it->second].emplace_back(f.variant, f.size);
  }
  for (auto& [index, runs] : where) {
    std::sort(runs.begin(), runs.end());
    runs.erase(std::unique(runs.begin(), runs.end()), runs.end());
    Finding& f = out[index];
    if (runs.size() > 1) f.details["runs"] = runs.size();
    if (total_runs > 1 && runs.size() == total_runs) {
      // The message's figures still come from one run: say which, so "1 of 1 elements" reads right.
      f.details["figures_from"] = f.size.empty() ? f.variant : fmt::format("{}, {}", f.variant, f.size);
      f.variant.clear();
      f.size.clear();
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.severity, a.file, a.line) < std::tie(b.severity, b.file, b.line);
  });
  return out;
}

std::vector<Define> defines_of(const Variant& variant) {
  std::vector<Define> defines;
  for (const auto& [name, value] : variant.defines) defines.push_back({name, std::to_string(value)});
  return defines;
}

std::vector<ReferenceParam> reference_params(const Exercise& exercise) {
  std::vector<ReferenceParam> params;
  for (const ParamSpec& p : exercise.kernel.params) params.push_back({p.type, p.pointer});
  return params;
}

ExpectedKernel expected_kernel(const Exercise& exercise) {
  ExpectedKernel expected{exercise.kernel.name, {}};
  for (const ParamSpec& p : exercise.kernel.params) expected.params.push_back({p.name, p.type});
  return expected;
}

// A compiled, loaded variant whose kernel was found.
struct Built {
  std::unique_ptr<Program> program;
  const KernelTraits* kernel = nullptr;
};

// Compiles and loads one variant of `source`, and finds `exercise`'s kernel in it. Findings explain why
// when nothing comes back, and *stopped says at which step in a sentence.
std::optional<Built> build_variant(const Exercise& exercise, const Variant& variant, const Submission& source,
                                   const std::vector<SourceFile>& headers, Toolchain& toolchain,
                                   const std::string& arch, std::vector<Finding>& findings,
                                   std::string* stopped = nullptr) {
  auto stop = [&](std::string why) -> std::optional<Built> {
    if (stopped) *stopped = std::move(why);
    return std::nullopt;
  };
  CompileRequest request;
  request.source = {std::filesystem::path(exercise.kernel.file).filename().string(), source.text};
  request.display_path = source.display_path;
  request.headers = headers;
  request.headers_display_dir = exercise.display_dir.string();
  request.defines = defines_of(variant);
  request.arch = arch;
  CompileOutput compiled = toolchain.compiler.compile(request);
  for (Finding& f : compiled.findings) {
    f.variant = variant.label;
    findings.push_back(std::move(f));
  }
  if (!compiled.ok()) return stop("The submission did not compile; nothing ran.");
  Loaded loaded = toolchain.backend.load(compiled.ptx);
  for (Finding& f : loaded.findings) {
    if (f.file.empty()) f.file = source.display_path;
    f.variant = variant.label;
    findings.push_back(std::move(f));
  }
  if (!loaded.program)
    return stop(fmt::format("It compiled, but the {} backend could not load it; nothing ran.", toolchain.backend.name()));
  KernelMatch match = find_kernel(loaded.program->kernels(), expected_kernel(exercise), source.display_path);
  for (Finding& f : match.findings) findings.push_back(std::move(f));
  if (!match.kernel) return stop("The exercise's kernel was not found in the submission; nothing ran.");
  return Built{std::move(loaded.program), match.kernel};
}

std::optional<LaunchRequest> make_launch(const Exercise& exercise, const Variant& variant, const Size& size,
                                         const std::string& entry, uint64_t seed, std::string* error) {
  std::optional<LaunchShape> shape = evaluate_launch(exercise, variant, size, error);
  if (!shape) return std::nullopt;
  LaunchRequest request;
  request.entry = entry;
  request.grid = shape->grid;
  request.block = shape->block;
  request.dynamic_shared_bytes = shape->dynamic_shared_bytes;
  request.args = shape->args;
  for (size_t b = 0; b < exercise.buffers.size(); ++b)
    request.buffers.push_back(make_buffer(exercise.buffers[b], shape->buffer_counts[b], seed, b));
  request.instruction_budget = exercise.instruction_budget;
  request.checks.intra_warp_races_are_errors = exercise.intra_warp_races_are_errors;
  return request;
}

// --sanitize: a variant's correctness launches are re-run under the backend's external checker
// (compute-sanitizer on the GPU), all in one series; its race and barrier findings join each run's own.
struct SanitizerTally {
  // compute-sanitizer names a source file by its last component: the learner's path for each name.
  std::map<std::string, std::string> paths;
  size_t checked = 0;
  std::vector<std::string> unfinished;  // why runs could not be checked, once per distinct reason

  std::string path_of(const std::string& reported) const {
    auto it = paths.find(std::filesystem::path(reported).filename().string());
    return it == paths.end() ? reported : it->second;
  }

  // `launches` are the correctness launches of one variant; `runs` the index of each one's Run in `result`.
  void check(Backend& backend, Program& program, const std::vector<LaunchRequest>& launches,
             const std::vector<size_t>& runs, Result& result, std::vector<Finding>& findings) {
    if (launches.empty()) return;
    SanitizerOutcome outcome = backend.sanitize(program, launches);
    if (!outcome.ran || outcome.findings.size() != launches.size()) {
      const std::string why = outcome.ran ? "the sanitizer's report did not cover every launch" : outcome.why_not;
      if (std::find(unfinished.begin(), unfinished.end(), why) == unfinished.end()) unfinished.push_back(why);
      return;
    }
    checked += launches.size();
    for (size_t k = 0; k < launches.size(); ++k) {
      Run& run = result.runs[runs[k]];
      for (Finding& f : outcome.findings[k]) {
        f.file = path_of(f.file);
        if (f.details.contains("other_file"))
          f.details["other_file"] = path_of(f.details["other_file"].get<std::string>());
        f.variant = run.variant;
        f.size = run.size;
        if (f.severity == Severity::kError) run.verdict = Verdict::kFail;
        findings.push_back(std::move(f));
      }
    }
  }

  // What the user needs to trust a clean result: how many runs the sanitizer saw, and why not the rest.
  void report(Result& result) const {
    result.metrics["sanitizer"] = {{"checked_runs", checked}, {"unchecked", unfinished}};
    if (unfinished.empty()) return;
    std::string note = fmt::format("--sanitize: {} runs were checked; others could not be: {}.", checked,
                                   fmt::join(unfinished, "; "));
    result.note = result.note.empty() ? note : result.note + " " + note;
  }
};

// Times the submission against the baseline exercise's solution on the GPU and judges the ratio.
void judge_throughput(const Exercise& exercise, const Built& subject, Toolchain& toolchain, const GradeOptions& options, uint64_t seed, Result& result) {
  const GpuPerformance& perf = *exercise.performance.gpu;
  const Variant& variant = exercise.variants[perf.variant];
  std::vector<std::string> errors;
  std::filesystem::path baseline_dir = exercise.dir.parent_path() / perf.baseline;
  std::optional<Exercise> baseline = load_exercise(baseline_dir, &errors);
  auto fail = [&](std::string message) {
    result.findings.push_back(config_finding(FindingKind::kRuntimeError, std::move(message), "", 0));
  };
  if (!baseline) return fail(fmt::format("cannot load the baseline exercise '{}' to time against", perf.baseline));
  std::filesystem::path solution = options.solutions_dir / perf.baseline / baseline->kernel.file;
  std::ifstream in(solution, std::ios::binary);
  if (!in) return fail(fmt::format("cannot read the baseline's solution {}", solution.string()));
  Submission baseline_source{std::string(std::istreambuf_iterator<char>(in), {}), solution.string()};
  std::string error;
  std::optional<std::vector<SourceFile>> headers = read_folder_headers(baseline->dir, &error);
  if (!headers) return fail(error);
  std::vector<Finding> build_findings;
  std::optional<Built> base = build_variant(*baseline, variant, baseline_source, *headers, toolchain, options.arch,
                                            build_findings);
  if (!base) return fail(fmt::format("the baseline's solution {} does not build at variant {}", solution.string(),
                                     variant.label));
  std::optional<LaunchRequest> subject_launch = make_launch(exercise, variant, perf.size, subject.kernel->entry, seed, &error);
  std::optional<LaunchRequest> baseline_launch =
      make_launch(*baseline, variant, perf.size, base->kernel->entry, seed, &error);
  Bindings bindings = bindings_for(variant, perf.size);
  std::optional<int64_t> bytes = perf.bytes.eval(bindings, &error);
  if (!subject_launch || !baseline_launch || !bytes) return fail("cannot set up the timing run: " + error);
  TimingRequest request{subject.program.get(), *subject_launch, base->program.get(), *baseline_launch,
                        static_cast<uint64_t>(*bytes)};
  std::optional<TimingResult> timing = toolchain.backend.time(request);
  if (!timing) return;
  for (Finding& f : timing->findings) result.findings.push_back(std::move(f));
  auto figures = [](const Timing& t) {
    return nlohmann::json{{"median_ms", t.median_ms}, {"gb_per_s", t.gb_per_s}, {"spread", t.spread}};
  };
  result.metrics["throughput"] = {{"variant", variant.label}, {"size", perf.size.label()},
                                  {"subject", figures(timing->subject)}, {"baseline", figures(timing->baseline)},
                                  {"memcpy_dtod", figures(timing->memcpy_dtod)}, {"ratio", timing->ratio},
                                  {"min_ratio", perf.min_ratio}, {"baseline_exercise", perf.baseline}};
  if (timing->subject.gb_per_s > 0 && timing->ratio < perf.min_ratio) {
    Finding f = config_finding(
        FindingKind::kTooSlow,
        fmt::format("{:.0f} GB/s is {:.2f} of the {} baseline's {:.0f} GB/s at {} ({}); the exercise asks for "
                    "{:.2f} (cuMemcpyDtoD reached {:.0f} GB/s)",
                    timing->subject.gb_per_s, timing->ratio, perf.baseline, timing->baseline.gb_per_s, variant.label,
                    perf.size.label(), perf.min_ratio, timing->memcpy_dtod.gb_per_s),
        result.submission, 0);
    f.variant = variant.label;
    f.size = perf.size.label();
    f.details = result.metrics["throughput"];
    result.findings.push_back(std::move(f));
  }
}

}  // namespace

std::optional<Result> grade(const Exercise& exercise, const Submission& submission, Toolchain& toolchain,
                            const GradeOptions& options, std::string* error) {
  Result result;
  result.exercise = exercise.id;
  result.submission = submission.display_path;
  result.backend = toolchain.backend.name();
  result.run_figure = toolchain.backend.capabilities().run_figure;
  result.max_points = exercise.points;
  const uint64_t seed = options.seed.value_or(exercise.seed);
  const std::string& file = submission.display_path;

  std::optional<std::vector<SourceFile>> headers = read_folder_headers(exercise.dir, error);
  if (!headers) return std::nullopt;
  const std::string source_name = std::filesystem::path(exercise.kernel.file).filename().string();
  result.findings = screen_submission({source_name, submission.text}, file, *headers,
                                      exercise.display_dir.string());
  if (!result.findings.empty()) {
    result.note = "The source was refused before compiling; nothing ran.";
    return result;
  }

  std::filesystem::path reference_path = exercise.dir / exercise.reference;
  std::optional<ReferenceRunner> reference =
      ReferenceRunner::build(reference_path, exercise.kernel.name, reference_params(exercise), toolchain.cache, error);
  if (!reference) return std::nullopt;

  std::vector<Finding> findings;
  SanitizerTally sanitizer;
  for (const SourceFile& header : *headers)
    sanitizer.paths[header.name] = (exercise.display_dir / header.name).string();
  sanitizer.paths[std::filesystem::path(file).filename().string()] = file;
  std::optional<Built> timed;
  std::vector<Size> sizes = exercise.sizes;
  if (toolchain.backend.capabilities().times_kernels)
    sizes.insert(sizes.end(), exercise.gpu_sizes.begin(), exercise.gpu_sizes.end());
  const size_t total_runs = exercise.variants.size() * sizes.size();
  bool requirements_checked = false;
  for (const Variant& variant : exercise.variants) {
    std::optional<Built> built =
        build_variant(exercise, variant, submission, *headers, toolchain, options.arch, findings, &result.note);
    if (!built) break;
    if (!requirements_checked) {
      requirements_checked = true;
      for (Finding& f : check_requirements(exercise.requirements, *built->kernel, file)) findings.push_back(std::move(f));
    }
    Bindings defines;
    for (const auto& [name, value] : variant.defines) defines[name] = value;
    std::vector<SharedShape> shapes = find_shared_shapes(submission.text, defines);
    LineFigures figures;
    std::vector<LaunchRequest> to_sanitize;
    std::vector<size_t> to_sanitize_runs;
    for (size_t s = 0; s < sizes.size(); ++s) {
      const Size& size = sizes[s];
      std::optional<LaunchRequest> launch = make_launch(exercise, variant, size, built->kernel->entry, seed, error);
      if (!launch) return std::nullopt;
      launch->shared_shapes = shapes;
      std::vector<Buffer> expected = launch->buffers;
      std::string reference_error;
      if (!reference->run(launch->args, expected, &reference_error)) {
        *error = fmt::format("{}: the reference failed at {} {}: {}", reference_path.string(), variant.label,
                             size.label(), reference_error);
        return std::nullopt;
      }
      Observations obs = toolchain.backend.launch(*built->program, *launch);
      std::vector<Finding> run_findings = std::move(obs.findings);
      if (obs.completed && obs.buffers.size() == launch->buffers.size()) {
        for (size_t b = 0; b < exercise.buffers.size(); ++b) {
          const BufferSpec& spec = exercise.buffers[b];
          if (spec.output)
            compare_output(spec, obs.buffers[b], expected[b], exercise.compare, file, run_findings);
          else
            check_input(spec, launch->buffers[b], obs.buffers[b], file, run_findings);
        }
      }
      obs.findings.clear();
      figures.add(obs);
      Run run{variant.label, size.label(), Verdict::kPass, obs.thread_instructions, obs.seconds};
      const bool timed_out = std::any_of(run_findings.begin(), run_findings.end(),
                                         [](const Finding& f) { return f.kind == FindingKind::kTimeout; });
      // A kernel that never ends would hold the sanitizer for its whole (much longer) limit, one that
      // faulted has said what is wrong, and gpu_sizes are too large for racecheck's pace.
      const bool faulted = !obs.completed;
      if (options.sanitize && !faulted && s < exercise.sizes.size()) {
        to_sanitize.push_back(*launch);
        to_sanitize_runs.push_back(result.runs.size());
      }
      for (Finding& f : run_findings) {
        if (f.severity == Severity::kError) run.verdict = Verdict::kFail;
        if (f.file.empty()) f.file = file;  // a GPU timeout or fault names no line, but it is the submission's
        f.variant = variant.label;
        f.size = size.label();
        findings.push_back(std::move(f));
      }
      result.runs.push_back(run);
      // A kernel that never ends at one size will not end at a larger one: each further run would only
      // spend its whole budget (on a GPU, its wall-clock limit) to say the same.
      if (timed_out) {
        result.note = "After a timeout, the larger sizes of that variant were not run.";
        break;
      }
    }
    sanitizer.check(toolchain.backend, *built->program, to_sanitize, to_sanitize_runs, result, findings);
    judge_line_figures(figures, exercise.performance.sim, variant.label, findings, result.metrics);
    if (exercise.performance.gpu && &variant == &exercise.variants[exercise.performance.gpu->variant])
      timed = std::move(built);
  }
  if (options.sanitize) sanitizer.report(result);
  result.findings = fold(std::move(findings), total_runs);
  const bool correct = std::none_of(result.findings.begin(), result.findings.end(),
                                    [](const Finding& f) { return f.severity == Severity::kError; });
  if (correct && timed && toolchain.backend.capabilities().times_kernels)
    judge_throughput(exercise, *timed, toolchain, options, seed, result);
  const bool pass = !result.runs.empty() &&
                    std::none_of(result.findings.begin(), result.findings.end(),
                                 [](const Finding& f) { return f.severity == Severity::kError; });
  result.verdict = pass ? Verdict::kPass : Verdict::kFail;
  result.points = pass ? exercise.points : 0;
  return result;
}

}  // namespace gpugrade
