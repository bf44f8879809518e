// Batch grading: jobs from the roster, results kept by content hash, a pool of threads each running one
// `gpugrade grade` process at a time (so one submission's crash or endless loop costs only its own limits),
// and the reports written from what came back.
#include "grader/class/batch.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "grader/compile/cache.h"
#include "grader/compile/compile_worker.h"
#include "grader/exercise/exercise.h"
#include "os/file.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

struct CourseExercise {
  std::string id;
  std::string file;  // the kernel file's name
  int points = 0;
  std::string definition;  // hash of everything in the exercise's folder and its solution
  bool file_is_unique = true;
  // Variants times the sizes' elements: a grade's time, roughly, so that the longest grades start first
  // and the last grades of a batch are short ones that fill the workers' ends.
  double work = 0;
};

double work_of(const Exercise& e) {
  double elements = 0;
  for (const Size& size : e.sizes) {
    double product = 1;
    for (const auto& [name, value] : size.values) product *= static_cast<double>(std::max<int64_t>(value, 1));
    elements += product;
  }
  return static_cast<double>(e.variants.size()) * elements;
}

// Every file of exercises/<id>/ and the solution (the GPU's baseline), names and bytes, in name order: when
// any of them changes, earlier grades of the exercise no longer count. The batch's own results folder is
// left out wherever it is: writing it is no change to the exercise.
std::string definition_hash(const fs::path& course, const Exercise& e, const fs::path& out) {
  CacheKey key("exercise-definition 1");
  std::vector<fs::path> files;
  std::error_code ec;
  std::error_code out_ec;
  const fs::path results = fs::weakly_canonical(out, out_ec);
  for (auto it = fs::recursive_directory_iterator(e.dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code ignored;  // an entry that cannot be looked at is left out, as before
    if (it->is_directory(ignored) && fs::weakly_canonical(it->path(), ignored) == results) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file(ignored)) files.push_back(it->path());
  }
  files.push_back(course / "solutions" / e.id / e.kernel.file);
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files)
    key.add(f.lexically_relative(course).string()).add(read_file_bytes(f).value_or(""));
  return key.hex();
}

std::optional<std::vector<CourseExercise>> load_course(const BatchOptions& options, std::string* error) {
  std::vector<CourseExercise> out;
  const std::set<std::string> wanted(options.exercises.begin(), options.exercises.end());
  std::set<std::string> unknown = wanted;
  for (const fs::path& dir : list_exercises(options.course / "exercises")) {
    std::vector<std::string> errors;
    std::optional<Exercise> e = load_exercise(dir, &errors, fs::path("exercises") / dir.filename());
    if (!e) {
      *error = fmt::format("the course's exercise {} does not load:\n{}", dir.filename().string(),
                           errors.empty() ? "" : errors.front());
      return std::nullopt;
    }
    unknown.erase(e->id);
    if (!wanted.empty() && !wanted.count(e->id)) continue;
    out.push_back({e->id, fs::path(e->kernel.file).filename().string(), e->points,
                   definition_hash(options.course, *e, options.out), true, work_of(*e)});
  }
  if (!unknown.empty()) {
    *error = fmt::format("no exercise '{}' in {}", *unknown.begin(), (options.course / "exercises").string());
    return std::nullopt;
  }
  for (CourseExercise& a : out)
    for (const CourseExercise& b : out)
      if (a.id != b.id && a.file == b.file) a.file_is_unique = false;
  return out;
}

bool write_atomically(const fs::path& path, const std::string& bytes, std::string* error) {
  fs::path temp = path;
  temp += fmt::format(".{}.tmp", getpid());
  if (!write_file_bytes(temp, bytes)) {
    *error = fmt::format("cannot write {}", temp.string());
    return false;
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    *error = fmt::format("cannot write {}: {}", path.string(), ec.message());
    return false;
  }
  return true;
}

Finding finding_of(FindingKind kind, std::string message, std::string file) {
  Finding f;
  f.kind = kind;
  f.message = std::move(message);
  f.file = std::move(file);
  return f;
}

Result empty_result(const CourseExercise& e) {
  Result r;
  r.exercise = e.id;
  r.max_points = e.points;
  r.verdict = Verdict::kFail;
  return r;
}

// What batch keeps of a grade's output. A grade's result is fitted to kMaxResultJsonBytes (fit_result), so
// a cut means something went wrong, and the finding says so.
constexpr size_t kGradeOutputBytes = size_t{4} << 20;
static_assert(kMaxResultJsonBytes < kGradeOutputBytes);

// One grade to run: an exercise and a submission's bytes, named by the hash of everything its result
// depends on. Students who handed in identical bytes share it. A result the grader produced is kept in
// out/results/<key>.json for later runs; a timeout of this run is not. A grade that failed for a reason not
// the learner's (the grade said so with exit 2, or its process was killed, or batch could not run it) has
// no result: it is a problem of the student's row, and graded again on the next run.
struct Job {
  const CourseExercise* exercise = nullptr;
  std::string bytes;
  std::string key;
  std::optional<Result> result;
  std::string fault;  // why this run could not grade it, when that was not the submission's doing
};

// A worker's compile worker, lent to each grade it starts (compile_worker.h says how it stays clean).
class CompileWorkerLender : public GradeLender {
 public:
  explicit CompileWorkerLender(std::string program)
      : worker_(std::move(program), kCompileWorkerMemoryBytes) {}

  Loan lend() override {
    Loan loan;
    if (std::string entry = worker_.lend(&loan.descriptors); !entry.empty())
      loan.environment.push_back(std::move(entry));
    return loan;
  }
  void take_back(bool ended_cleanly) override { worker_.take_back(ended_cleanly); }

 private:
  CompileWorker worker_;
};

class Pool {
 public:
  Pool(const BatchOptions& options, std::vector<Job*> jobs, BatchProgress progress)
      : options_(options), jobs_(std::move(jobs)), progress_(progress) {}

  void run() {
    std::vector<std::thread> threads;
    int n = std::max(1, std::min<int>(options_.jobs, static_cast<int>(jobs_.size())));
    for (int t = 0; t < n; ++t) {
      std::vector<std::string> environment = {"NO_COLOR=1"};
      environment.insert(environment.end(), options_.grade_environment.begin(),
                         options_.grade_environment.end());
      if (!options_.gpus.empty())
        environment.push_back("CUDA_VISIBLE_DEVICES=" +
                              options_.gpus[static_cast<size_t>(t) % options_.gpus.size()]);
      threads.emplace_back([this, environment, t] { work(environment, t); });
    }
    for (std::thread& t : threads) t.join();
  }
  size_t graded() const { return graded_; }

 private:
  void work(const std::vector<std::string>& environment, int worker) {
    std::vector<std::unique_ptr<GradeLender>> lenders;
    const fs::path lender_output = options_.out / "work" / fmt::format("launcher.{}.{}", getpid(), worker);
    if (options_.make_lender) {
      std::error_code ec;
      fs::create_directories(lender_output.parent_path(), ec);
      lenders.push_back(options_.make_lender(lender_output.string(), environment));
    }
    if (!options_.compile_worker.empty())
      lenders.push_back(std::make_unique<CompileWorkerLender>(options_.compile_worker));
    for (size_t i = next_++; i < jobs_.size(); i = next_++) {
      grade(*jobs_[i], environment, lenders);
      std::lock_guard<std::mutex> lock(mutex_);
      ++graded_;
      ++progress_.done;
      if (options_.on_progress) options_.on_progress(progress_);
    }
    lenders.clear();
    std::error_code ignored;
    fs::remove(lender_output, ignored);
  }

  // The submission goes in a folder of its own as exercises/<id>/<file>, where the grade process runs, so
  // findings name it as the student's repository does.
  void grade(Job& job, const std::vector<std::string>& environment,
             const std::vector<std::unique_ptr<GradeLender>>& lenders) {
    const CourseExercise& e = *job.exercise;
    const std::string relative = fmt::format("exercises/{}/{}", e.id, e.file);
    fs::path work =
        options_.out / "work" / fmt::format("{}.{}", job.key, getpid());  // shards may share a key
    std::error_code ec;
    fs::create_directories(work / "exercises" / e.id, ec);
    Result failed = empty_result(e);
    failed.submission = relative;
    if (ec || !write_file_bytes(work / relative, job.bytes)) {
      job.fault = fmt::format("the batch could not write the submission for grading into {}", work.string());
      return;
    }
    // --no-last-grade: a student's grade is no state of the course folder (nor is their source).
    std::vector<std::string> argv = {options_.program, "--root",   fs::absolute(options_.course).string(),
                                     "grade",          e.id,       "--submission",
                                     relative,         "--format", "json",
                                     "--no-last-grade"};
    argv.insert(argv.end(), options_.grade_flags.begin(), options_.grade_flags.end());
    // The grade stops itself at the same limit where it can (with the finding that says so); the batch's
    // stop below is for what it cannot, such as a step that will not end.
    argv.insert(argv.end(), {"--time-limit", fmt::format("{:g}", options_.time_limit_seconds)});
    std::vector<std::string> grade_environment = environment;
    std::vector<int> lent_descriptors;
    for (const std::unique_ptr<GradeLender>& lender : lenders) {
      GradeLender::Loan loan = lender->lend();
      grade_environment.insert(grade_environment.end(), loan.environment.begin(), loan.environment.end());
      lent_descriptors.insert(lent_descriptors.end(), loan.descriptors.begin(), loan.descriptors.end());
    }
    ProcessResult run = run_process(argv, {.working_directory = work,
                                           .time_limit_seconds = options_.time_limit_seconds,
                                           .memory_limit_bytes = options_.memory_limit_bytes,
                                           .extra_environment = grade_environment,
                                           .output_limit_bytes = kGradeOutputBytes,
                                           .inherited_fds = lent_descriptors});
    for (const std::unique_ptr<GradeLender>& lender : lenders)
      lender->take_back(run.started && !run.timed_out && run.signal == 0);
    fs::remove_all(work, ec);
    if (run.timed_out) {
      failed.findings.push_back(
          finding_of(FindingKind::kTimeout,
                     fmt::format("grading this submission took longer than {:g} s and was stopped",
                                 options_.time_limit_seconds),
                     relative));
      job.result = failed;
      return;
    }
    if (run.started && (run.exit_code == 0 || run.exit_code == 1)) {
      std::string error;
      nlohmann::json json = nlohmann::json::parse(run.out, nullptr, /*allow_exceptions=*/false);
      if (std::optional<Result> r = result_from_json(json, &error)) {
        job.result = std::move(*r);
        // Kept at once, so that a batch stopped halfway resumes where it was.
        std::string ignored;  // an unwritable result only costs a re-grade next time
        write_atomically(options_.out / "results" / (job.key + ".json"), to_json(*job.result).dump(1),
                         &ignored);
        return;
      }
    }
    // Whatever stopped it, the reason says what happened: a grade's stderr may be empty. None of these is
    // the submission's doing (exit 2: the grade found the course or the grader at fault, and said which).
    const std::string first_error_line = run.err.substr(0, run.err.find('\n'));
    job.fault =
        !run.started      ? run.error
        : run.signal != 0 ? fmt::format("the grading process was killed by signal {}", run.signal)
        : run.out.size() >= kGradeOutputBytes
            ? fmt::format(
                  "its JSON result passed the {} bytes batch reads of a grade and was cut (exit code {})",
                  kGradeOutputBytes, run.exit_code)
        : !first_error_line.empty()
            ? first_error_line
            : fmt::format("it printed no result batch could read (exit code {})", run.exit_code);
  }

  const BatchOptions& options_;
  std::vector<Job*> jobs_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  BatchProgress progress_;
  size_t graded_ = 0;
};

// Rounds of one grade per exercise, the heaviest exercise first in each: a round's grades start the
// workers on different exercises, so that no two build the same reference at once (the first grade of an
// exercise builds it, the next find it in the cache), the long grades go first, and a batch ends on short
// ones that fill the workers' last minutes.
std::vector<Job*> in_grading_order(std::vector<Job*> jobs) {
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job* a, const Job* b) {
    return a->exercise->work != b->exercise->work ? a->exercise->work > b->exercise->work
                                                  : a->exercise < b->exercise;
  });
  std::vector<size_t> round(jobs.size());
  for (size_t i = 0, in_round = 0; i < jobs.size(); ++i) {
    in_round = i > 0 && jobs[i]->exercise == jobs[i - 1]->exercise ? in_round + 1 : 0;
    round[i] = in_round;
  }
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return round[a] < round[b]; });
  std::vector<Job*> ordered;
  for (size_t i : order) ordered.push_back(jobs[i]);
  return ordered;
}

fs::path student_report(const fs::path& out, const Student& student, const char* extension) {
  return out / "students" / (student.file_name + extension);
}

}  // namespace

bool run_batch(const BatchOptions& options, BatchReport* report, std::string* error) {
  std::optional<std::vector<CourseExercise>> course = load_course(options, error);
  if (!course) return false;
  std::optional<Roster> roster = read_roster(options.roster, error);
  if (!roster) return false;
  std::error_code ec;
  fs::create_directories(options.out / "results", ec);
  fs::create_directories(options.out / "students", ec);
  if (ec) {
    *error = fmt::format("cannot create {}: {}", options.out.string(), ec.message());
    return false;
  }

  // What each student handed in for each exercise, and the jobs that grade it.
  CacheKey flags_key("batch-flags 1");
  for (const std::string& f : options.grade_flags) flags_key.add(f);
  const std::string flags = flags_key.hex();
  std::map<std::string, Job> jobs;
  struct Cell {
    SubmittedFile file;
    Job* job = nullptr;
  };
  struct Row {
    const Student* student;
    std::string problem;  // the roster's, or a repository or revision that cannot be read
    std::vector<Cell> cells;
  };
  std::vector<Row> table;
  for (size_t s = 0; s < roster->students.size(); ++s) {
    if (static_cast<int>(s % static_cast<size_t>(options.shards)) != options.shard) continue;
    const Student& student = roster->students[s];
    Row row{&student, student.problem, {}};
    for (const CourseExercise& e : *course) {
      if (!row.problem.empty()) break;
      Cell cell;
      std::string why;
      cell.file = find_submission(student, {e.id, e.file, e.file_is_unique}, &why);
      if (!why.empty()) {
        row.problem = fmt::format("{}: {}", student.source, why);
        break;
      }
      row.cells.push_back(std::move(cell));
    }
    if (!row.problem.empty()) row.cells.assign(course->size(), Cell{});
    for (size_t c = 0; c < row.cells.size() && row.problem.empty(); ++c) {
      Cell& cell = row.cells[c];
      const CourseExercise& e = (*course)[c];
      if (cell.file.status != SubmittedFile::Status::kFound) continue;
      std::string key = CacheKey("batch-grade 1")
                            .add(GPUGRADE_VERSION)
                            .add(flags)
                            .add(e.id)
                            .add(e.definition)
                            .add(cell.file.bytes)
                            .hex();
      Job& job = jobs[key];
      if (job.key.empty()) job = {&e, cell.file.bytes, key, std::nullopt, {}};
      cell.job = &job;
      ++report->grades;
    }
    table.push_back(std::move(row));
  }
  report->students = table.size();
  report->shared = report->grades - jobs.size();

  // Earlier runs' results are reused; the rest are graded.
  std::vector<Job*> to_grade;
  for (auto& [key, job] : jobs) {
    std::optional<std::string> kept = read_file_bytes(options.out / "results" / (key + ".json"));
    std::string ignored;
    if (kept) {
      nlohmann::json json = nlohmann::json::parse(*kept, nullptr, /*allow_exceptions=*/false);
      if (std::optional<Result> r = result_from_json(json, &ignored)) {
        job.result = std::move(*r);
        ++report->reused;
        continue;
      }
    }
    to_grade.push_back(&job);
  }
  to_grade = in_grading_order(std::move(to_grade));
  BatchProgress progress{report->reused, jobs.size(), report->reused};
  if (options.on_progress) options.on_progress(progress);
  Pool pool(options, to_grade, progress);
  pool.run();
  report->graded = pool.graded();
  fs::remove(options.out / "work", ec);

  for (const Row& row : table) {
    StudentResults results{row.student->id, {}, row.problem, row.student->warnings};
    if (!row.problem.empty()) ++report->rows_with_problems;
    // A grade that failed through no fault of the student's makes the row a problem: nothing of it is a
    // grade, and the next run grades it again.
    for (size_t c = 0; c < row.cells.size() && row.problem.empty(); ++c)
      if (const Job* job = row.cells[c].job; job != nullptr && !job->fault.empty())
        results.problem += fmt::format("{}{} was not graded: {}", results.problem.empty() ? "" : "; ",
                                       (*course)[c].id, job->fault);
    if (!results.problem.empty() && row.problem.empty()) {
      results.problem += "; run the batch again once that is fixed";
      ++report->rows_with_problems;
    }
    for (size_t c = 0; c < row.cells.size(); ++c) {
      const CourseExercise& e = (*course)[c];
      const SubmittedFile& file = row.cells[c].file;
      Result r = empty_result(e);
      if (!row.problem.empty()) {
        r.note = "This student's row was not graded: " + row.problem;
        results.results.push_back(std::move(r));
        continue;
      }
      switch (file.status) {
        case SubmittedFile::Status::kFound:
          if (row.cells[c].job->result)
            r = *row.cells[c].job->result;
          else
            r.note = "Not graded: " + row.cells[c].job->fault;
          break;
        case SubmittedFile::Status::kMissing:
          r.note = fmt::format("Not submitted: no exercises/{}/{} among the student's files.", e.id, e.file);
          break;
        case SubmittedFile::Status::kRefused:
          r.submission = file.path;
          r.findings.push_back(finding_of(FindingKind::kRejectedSource, file.refusal, file.path));
          r.note = "The submission was refused before grading; nothing ran.";
          break;
      }
      results.results.push_back(std::move(r));
    }
    std::ostringstream markdown;
    write_student_markdown(results, markdown);
    if (!write_atomically(student_report(options.out, *row.student, ".json"), student_json(results).dump(1),
                          error) ||
        !write_atomically(student_report(options.out, *row.student, ".md"), markdown.str(), error))
      return false;
  }
  return options.shards > 1 || collect_batch(options, error, &report->rows_with_problems);
}

bool collect_batch(const BatchOptions& options, std::string* error, size_t* rows_with_problems) {
  std::optional<std::vector<CourseExercise>> course = load_course(options, error);
  if (!course) return false;
  std::optional<Roster> roster = read_roster(options.roster, error);
  if (!roster) return false;
  std::vector<GradebookColumn> columns;
  for (const CourseExercise& e : *course) columns.push_back({e.id, e.points});
  std::vector<StudentResults> students;
  std::vector<std::string> missing;
  for (const Student& student : roster->students) {
    std::optional<std::string> text = read_file_bytes(student_report(options.out, student, ".json"));
    nlohmann::json json = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    StudentResults results{student.id, {}, {}, {}};
    if (json.is_object()) {
      if (json.contains("problem") && json["problem"].is_string()) results.problem = json["problem"];
      if (json.contains("warnings") && json["warnings"].is_array())
        for (const nlohmann::json& w : json["warnings"])
          if (w.is_string()) results.warnings.push_back(w);
    }
    bool complete = json.is_object() && json.contains("results") && json["results"].is_array();
    if (complete) {
      std::map<std::string, Result> by_exercise;
      for (const nlohmann::json& r : json["results"]) {
        std::string ignored;
        if (std::optional<Result> parsed = result_from_json(r, &ignored))
          by_exercise[parsed->exercise] = *parsed;
      }
      for (const CourseExercise& e : *course) {
        auto it = by_exercise.find(e.id);
        if (it == by_exercise.end())
          complete = false;
        else
          results.results.push_back(it->second);
      }
    }
    if (!complete) {
      missing.push_back(student.id);
      continue;
    }
    students.push_back(std::move(results));
  }
  if (!missing.empty()) {
    std::string names;
    for (size_t i = 0; i < missing.size() && i < 10; ++i) names += (i ? ", " : "") + missing[i];
    *error = fmt::format(
        "{} student{} have no complete report in {} ({}{}); grade them (gpugrade batch) before "
        "collecting",
        missing.size(), missing.size() == 1 ? "" : "s", (options.out / "students").string(), names,
        missing.size() > 10 ? ", ..." : "");
    return false;
  }
  if (rows_with_problems != nullptr)
    *rows_with_problems = static_cast<size_t>(std::count_if(
        students.begin(), students.end(), [](const StudentResults& s) { return !s.problem.empty(); }));
  std::ostringstream csv, summary;
  write_gradebook_csv(columns, students, csv);
  write_class_summary(columns, students, summary);
  return write_atomically(options.out / "gradebook.csv", csv.str(), error) &&
         write_atomically(options.out / "summary.md", summary.str(), error);
}

}  // namespace gpugrade
