// `gpugrade batch` on a small class: the gradebook matches each student's grade as `gpugrade grade` gives it,
// links and missing files are findings, and a re-run grades only what changed (the roster: roster_test.cc).
#include "grader/class/batch.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "harness/gpu/launcher_lender.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/grading_fixture.h"
#include "tests/scratch_repo.h"
#include "tests/write_tree.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

using testing::write;

std::string shipped(const std::string& relative) {
  return testing::read_file(testing::source_dir() / relative);
}

class BatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ = ScratchDir::create("batch-test", nullptr);
    ASSERT_TRUE(scratch_);
    setenv("GPUGRADE_CACHE_DIR", (scratch_->path() / "cache").c_str(), 1);
    setenv("XDG_STATE_HOME", (scratch_->path() / "state").c_str(), 1);
    options_.course = testing::source_dir();
    options_.roster = scratch_->path() / "class";
    options_.out = scratch_->path() / "out";
    options_.exercises = {"copy", "transpose-naive"};
    options_.grade_flags = {"--backend", "sim"};
    options_.program = GPUGRADE_BINARY;
    options_.jobs = 2;
  }

  fs::path student(const std::string& id) { return options_.roster / id / "exercises"; }

  ProcessResult gpugrade(std::vector<std::string> args) {
    args.insert(args.begin(), GPUGRADE_BINARY);
    return run_process(args, {.working_directory = scratch_->path(),
                              .time_limit_seconds = 300,
                              .memory_limit_bytes = 0,
                              .extra_environment = {}});
  }

  std::optional<ScratchDir> scratch_;
  BatchOptions options_;
};

TEST_F(BatchTest, GradebookMatchesEachStudentsGrade) {
  write(student("alice") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  write(student("alice") / "transpose-naive/transpose.cu",
        shipped("solutions/transpose-naive/mutants/skips_last_row.cu"));
  write(student("bob") / "copy/copy.cu", shipped("exercises/copy/copy.cu"));
  fs::create_directories(student("bob") / "transpose-naive");
  fs::create_symlink("/etc/passwd", student("bob") / "transpose-naive/transpose.cu");
  write(student("carol") / "transpose-naive/transpose.cu", shipped("solutions/transpose-naive/transpose.cu"));
  // What carol may not replace: the exercise's own definition. It is ignored.
  write(student("carol") / "transpose-naive/exercise.yaml", "id: transpose-naive\npoints: 1000\n");

  // One worker grades all four, one after another, with the one compile worker it lends to each.
  options_.jobs = 1;
  options_.compile_worker = GPUGRADE_COMPILE_WORKER;
  BatchReport report;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.students, 3u);
  EXPECT_EQ(report.grades, 4u);
  EXPECT_EQ(report.graded, 4u);

  // Each submission graded alone, as `gpugrade grade --submission` does in the student's own folder: the
  // same verdict, points, findings and runs (their times aside) as the batch gave, so no grade saw another.
  auto without_times = [](nlohmann::json json) {
    for (nlohmann::json& run : json["runs"]) run.erase("seconds");
    return json;
  };
  auto alone = [&](const std::string& student_id, const std::string& id, const std::string& file) {
    ProcessResult run = run_process(
        {GPUGRADE_BINARY, "--root", testing::source_dir().string(), "grade", id, "--submission",
         "exercises/" + id + "/" + file, "--format", "json", "--backend", "sim", "--no-last-grade"},
        {.working_directory = options_.roster / student_id,
         .time_limit_seconds = 300,
         .memory_limit_bytes = 0,
         .extra_environment = {}});
    nlohmann::json json = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_TRUE(json.is_object()) << run.out << run.err;
    return json.is_object() ? without_times(json) : nlohmann::json();
  };
  auto in_batch = [&](const std::string& student_id, size_t column) {
    nlohmann::json json = nlohmann::json::parse(
        read_file_bytes(options_.out / "students" / (student_id + ".json")).value_or("{}"), nullptr, false);
    return without_times(json["results"][column]);
  };
  const nlohmann::json alice_copy = alone("alice", "copy", "copy.cu");
  const nlohmann::json alice_naive = alone("alice", "transpose-naive", "transpose.cu");
  const nlohmann::json bob_copy = alone("bob", "copy", "copy.cu");
  const nlohmann::json carol_naive = alone("carol", "transpose-naive", "transpose.cu");
  EXPECT_EQ(in_batch("alice", 0), alice_copy);
  EXPECT_EQ(in_batch("alice", 1), alice_naive);
  EXPECT_EQ(in_batch("bob", 0), bob_copy);
  EXPECT_EQ(in_batch("carol", 1), carol_naive);
  EXPECT_EQ(alice_copy["points"], 5);
  EXPECT_EQ(alice_naive["points"], 0);
  EXPECT_EQ(alice_naive["findings"][0]["kind"], "unwritten-output");
  EXPECT_EQ(bob_copy["points"], 0);
  EXPECT_EQ(carol_naive["points"], 5);
  EXPECT_EQ(read_file_bytes(options_.out / "gradebook.csv").value_or(""),
            "student,copy,transpose-naive,total\nalice,5,0,5\nbob,0,0,0\ncarol,0,5,5\n");

  nlohmann::json bob =
      nlohmann::json::parse(read_file_bytes(options_.out / "students/bob.json").value_or(""));
  const nlohmann::json& link = bob["results"][1];
  EXPECT_EQ(link["verdict"], "fail");
  EXPECT_EQ(link["findings"][0]["kind"], "rejected-source");
  EXPECT_EQ(
      link["findings"][0]["message"],
      "exercises/transpose-naive/transpose.cu is (or lies behind) a symbolic link; submit the file itself");
  nlohmann::json carol =
      nlohmann::json::parse(read_file_bytes(options_.out / "students/carol.json").value_or(""));
  EXPECT_EQ(carol["results"][0]["note"],
            "Not submitted: no exercises/copy/copy.cu among the student's files.");
  EXPECT_EQ(carol["points"], 5);
  EXPECT_EQ(carol["max_points"], 10);
  std::string markdown = read_file_bytes(options_.out / "students/alice.md").value_or("");
  EXPECT_EQ(markdown.rfind("# alice: 5 of 10 points\n", 0), 0u) << markdown;
  // The header counts every row the table shows: carol's copy was not submitted, not failed.
  markdown = read_file_bytes(options_.out / "students/carol.md").value_or("");
  EXPECT_EQ(
      markdown.rfind(
          "# carol: 5 of 10 points\n\n### gpugrade: 1/2 exercises passed (1 not submitted), 5/10 points\n",
          0),
      0u)
      << markdown;
  EXPECT_NE(markdown.find("| `copy` | ➖ not submitted | 0/5 |\n| `transpose-naive` | ✅ pass | 5/5 |\n"),
            std::string::npos)
      << markdown;
  std::string summary = read_file_bytes(options_.out / "summary.md").value_or("");
  EXPECT_NE(summary.find("| copy | 2 | 1 | 1.7 of 5 |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("- **unwritten-output**: 1 student, e.g. `exercises/transpose-naive/transpose.cu"),
            std::string::npos)
      << summary;

  // A re-run grades nothing again; a changed file is the only one graded (bytes nobody else handed in: the
  // same bytes as alice's would reuse her grade).
  report = BatchReport{};
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.graded, 0u);
  EXPECT_EQ(report.reused, 4u);
  write(student("bob") / "copy/copy.cu", shipped("solutions/copy/copy.cu") + "// bob's own now\n");
  report = BatchReport{};
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.graded, 1u);
  EXPECT_NE(read_file_bytes(options_.out / "gradebook.csv").value_or("").find("\nbob,5,0,5\n"),
            std::string::npos);
}

// --gpus: each worker's grade processes see one device of the list (CUDA_VISIBLE_DEVICES), in turn. The
// grading program here is a stand-in script that reports the device it was given as its note.
TEST_F(BatchTest, EachWorkerGradesOnItsOwnGpu) {
  const fs::path program = scratch_->path() / "grade-on-device.sh";
  write(program,
        "#!/bin/sh\nsleep 0.5\nprintf '{\"exercise\": \"copy\", \"submission\": \"exercises/copy/copy.cu\", "
        "\"backend\": \"gpu\", \"verdict\": \"pass\", \"points\": 5, \"max_points\": 5, \"findings\": [], "
        "\"runs\": [], \"note\": \"device %s\"}' \"$CUDA_VISIBLE_DEVICES\"\n");
  fs::permissions(program, fs::perms::owner_all);
  for (const char* id : {"ann", "ben", "cid", "dee"})
    write(student(id) / "copy/copy.cu", shipped("solutions/copy/copy.cu") + "// " + id + "\n");
  options_.program = program.string();
  options_.exercises = {"copy"};
  options_.grade_flags = {"--backend", "gpu"};
  options_.gpus = {"3", "5"};
  BatchReport report;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.graded, 4u);
  std::set<std::string> devices;
  for (const char* id : {"ann", "ben", "cid", "dee"}) {
    nlohmann::json json = nlohmann::json::parse(
        read_file_bytes(options_.out / "students" / (std::string(id) + ".json")).value_or("{}"));
    const std::string note = json["results"][0].value("note", "");
    EXPECT_TRUE(note == "device 3" || note == "device 5") << id << ": " << note;
    devices.insert(note);
  }
  EXPECT_EQ(devices.size(), 2u) << "both workers graded, each on its own device";
}

// --backend gpu: each worker keeps one launcher (started with the worker's CUDA_VISIBLE_DEVICES) and lends it
// to every grade it starts. The launcher is a script speaking the serving protocol; the grading program is a
// stand-in that asks the lent launcher once and reports which launcher answered and its own device (both bash
// scripts: dash redirects only one-digit descriptors).
TEST_F(BatchTest, EachWorkerLendsOneLauncherToAllItsGrades) {
  const fs::path launcher = scratch_->path() / "launcher.sh";
  write(launcher,
        "#!/bin/bash\nwhile read line; do echo \"$$ $CUDA_VISIBLE_DEVICES\"; printf D >&$1; done\n");
  const fs::path program = scratch_->path() / "grade-with-launcher.sh";
  write(program,
        "#!/bin/bash\nset -- $GPUGRADE_LENT_LAUNCHER\nprintf 'job\\n' >&$2\ndd bs=1 count=1 status=none <&$3 "
        ">/dev/null\n"
        "answer=$(tail -n 1 \"$4\")\nsleep 0.3\n"
        "printf '{\"exercise\": \"copy\", \"submission\": \"exercises/copy/copy.cu\", \"backend\": \"gpu\", "
        "\"verdict\": \"pass\", \"points\": 5, \"max_points\": 5, \"findings\": [], \"runs\": [], "
        "\"note\": \"%s %s\"}' \"$answer\" \"$CUDA_VISIBLE_DEVICES\"\n");
  for (const fs::path& script : {launcher, program}) fs::permissions(script, fs::perms::owner_all);
  for (const char* id : {"ann", "ben", "cid", "dee"})
    write(student(id) / "copy/copy.cu", shipped("solutions/copy/copy.cu") + "// " + id + "\n");
  options_.program = program.string();
  options_.exercises = {"copy"};
  options_.grade_flags = {"--backend", "gpu"};
  options_.gpus = {"3", "5"};
  options_.make_lender = [&](const std::string& output_path, const std::vector<std::string>& environment) {
    return gpu::make_launcher_lender({launcher.string(), "{heartbeat}"}, output_path, environment);
  };
  BatchReport report;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.graded, 4u);
  std::map<std::string, std::string> device_of_launcher;
  int grades = 0;
  for (const char* id : {"ann", "ben", "cid", "dee"}) {
    nlohmann::json json = nlohmann::json::parse(
        read_file_bytes(options_.out / "students" / (std::string(id) + ".json")).value_or("{}"));
    std::istringstream note(json["results"][0].value("note", ""));
    std::string pid, launcher_device, grade_device;
    ASSERT_TRUE(note >> pid >> launcher_device >> grade_device) << id << ": " << json.dump();
    EXPECT_EQ(launcher_device, grade_device)
        << id << ": the launcher lent is the one of the grade's own worker";
    EXPECT_EQ(device_of_launcher.emplace(pid, launcher_device).first->second, launcher_device);
    ++grades;
  }
  EXPECT_EQ(grades, 4);
  EXPECT_EQ(device_of_launcher.size(), 2u) << "two workers, one launcher each, for four grades";
  EXPECT_FALSE(fs::exists(options_.out / "work")) << "the launchers' files went with them";
}

TEST_F(BatchTest, ShardsWriteReportsAndCollectMergesThem) {
  write(student("alice") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  write(student("bob") / "copy/copy.cu", shipped("exercises/copy/copy.cu"));
  options_.exercises = {"copy"};
  options_.shards = 2;
  std::string error;
  BatchReport report;
  options_.shard = 0;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.students, 1u);
  EXPECT_FALSE(collect_batch(options_, &error));
  EXPECT_NE(error.find("1 student have no complete report"), std::string::npos) << error;
  EXPECT_NE(error.find("(bob)"), std::string::npos) << error;
  options_.shard = 1;
  report = BatchReport{};
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  ASSERT_TRUE(collect_batch(options_, &error)) << error;
  EXPECT_EQ(read_file_bytes(options_.out / "gradebook.csv").value_or(""),
            "student,copy,total\nalice,5,5\nbob,0,0\n");
}

// A stand-in grading program: its result's note is the submission's text, so each student's report shows
// whose bytes were graded (a real grade takes seconds; what is tested here is the roster and the reports).
fs::path echo_program(const fs::path& dir) {
  const fs::path program = dir / "grade-echo.sh";
  write(
      program,
      "#!/bin/sh\nprintf '{\"exercise\": \"copy\", \"submission\": \"exercises/copy/copy.cu\", \"backend\": "
      "\"sim\", \"verdict\": \"pass\", \"points\": 5, \"max_points\": 5, \"findings\": [], \"runs\": [], "
      "\"note\": \"%s\"}' \"$(cat exercises/copy/copy.cu)\"\n");
  fs::permissions(program, fs::perms::owner_all);
  return program;
}

nlohmann::json report_of(const fs::path& out, const Student& student) {
  return nlohmann::json::parse(
      read_file_bytes(out / "students" / (student.file_name + ".json")).value_or("{}"), nullptr, false);
}

// Class 4: ids that a lossy file name would merge (a space and an underscore, accents written precomposed
// and decomposed, case on a file system that ignores it) each keep their own report and row; look-alike ids,
// bidi controls, links and dot-named folders are said, never silently merged or dropped.
TEST_F(BatchTest, DistinctIdsNeverShareAReportAndLookAlikesAreFlagged) {
  const std::vector<std::string> ids = {
      "ann lee", "ann_lee", "Zo\xC3\xAB", "Zoe\xCC\x88", "Ann", "ann", "mallory\xE2\x80\xAEuc.exe",
      ".dotted"};
  for (const std::string& id : ids) write(student(id) / "copy/copy.cu", "by " + id);
  fs::create_directories(scratch_->path() / "elsewhere/exercises/copy");
  write(scratch_->path() / "elsewhere/exercises/copy/copy.cu", "not in the roster");
  fs::create_directory_symlink(scratch_->path() / "elsewhere", options_.roster / "linked");
  options_.program = echo_program(scratch_->path()).string();
  options_.exercises = {"copy"};

  std::string error;
  std::optional<Roster> roster = read_roster(options_.roster, &error);
  ASSERT_TRUE(roster) << error;
  ASSERT_EQ(roster->students.size(), ids.size() + 1);
  std::set<std::string> names;
  for (const Student& s : roster->students) {
    std::string folded = s.file_name;
    for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_TRUE(names.insert(folded).second) << s.id << " shares " << s.file_name;
    EXPECT_LE(s.file_name.size(), 64u);
  }
  BatchReport report;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.rows_with_problems, 1u);  // the link
  std::map<std::string, const Student*> by_id;
  for (const Student& s : roster->students) by_id[s.id] = &s;
  for (const std::string& id : ids) {
    ASSERT_TRUE(by_id.count(id)) << id;
    EXPECT_EQ(report_of(options_.out, *by_id[id])["results"][0]["note"], "by " + id) << id;
  }
  const auto warned = [&](const std::string& id, const std::string& words) {
    const std::vector<std::string>& w = by_id.at(id)->warnings;
    return std::any_of(w.begin(), w.end(),
                       [&](const std::string& x) { return x.find(words) != std::string::npos; });
  };
  EXPECT_TRUE(warned("Zo\xC3\xAB", "the id looks like 'Zoe\xCC\x88'"));
  EXPECT_TRUE(warned("ann", "the id looks like 'Ann'"));
  EXPECT_FALSE(warned("ann lee", "looks like"));  // a space and an underscore are told apart by anyone
  EXPECT_TRUE(warned("mallory\xE2\x80\xAEuc.exe", "bidirectional control character U+202E"));
  const Student& linked = *by_id.at("linked");
  EXPECT_NE(
      linked.problem.find("is a symbolic link; a student's folder must be a folder of the roster itself"),
      std::string::npos)
      << linked.problem;
  EXPECT_EQ(report_of(options_.out, linked)["points"], 0);

  const std::string csv = read_file_bytes(options_.out / "gradebook.csv").value_or("");
  EXPECT_NE(csv.find("\nann lee,5,5,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nann_lee,5,5,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n.dotted,5,5,\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nlinked,0,0,"), std::string::npos) << csv;
  const std::string summary = read_file_bytes(options_.out / "summary.md").value_or("");
  EXPECT_NE(summary.find("## Roster: 1 row not graded"), std::string::npos) << summary;
  // Markdown, with the learner-chosen words escaped (escape_markdown): GitHub shows "the id looks like
  // 'ann'".
  EXPECT_NE(summary.find("- `Ann`: check: the id looks like 'ann'"), std::string::npos) << summary;
}

// Class 5: a repeated id, an id without a row's worth of sense (empty, 300 characters), an unknown git
// revision and a repository that is not one: each row is reported, everyone else is graded.
TEST_F(BatchTest, OneBadRowNeverStopsTheClass) {
  write(student("good") / "copy/copy.cu", "good's work");
  write(student("twice") / "copy/copy.cu", "twice's work");
  testing::ScratchRepo repo;
  repo.write("exercises/copy/copy.cu", "committed work");
  const std::string commit = repo.commit("work");
  const std::string long_id(300, 'x');
  const fs::path csv = scratch_->path() / "roster.csv";
  write(
      csv,
      fmt::format(
          "student,path,repository,revision\ngood,class/good,,\ntwice,class/twice,,\ntwice,class/good,,\n"
          ",class/good,,\n{},class/good,,\ngit,,{},{}\nlost,,{},no-such-revision\nnorepo,,{},HEAD\n",
          long_id, repo.work_tree().string(), commit, repo.work_tree().string(), scratch_->path().string()));
  options_.roster = csv;
  options_.program = echo_program(scratch_->path()).string();
  options_.exercises = {"copy"};
  BatchReport report;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  EXPECT_EQ(report.students, 8u);
  EXPECT_EQ(report.rows_with_problems, 4u);  // twice again, no id, lost, norepo
  std::optional<Roster> roster = read_roster(csv, &error);
  ASSERT_TRUE(roster) << error;
  const auto note = [&](size_t row) {
    return report_of(options_.out, roster->students[row])["results"][0]["note"];
  };
  EXPECT_EQ(note(0), "good's work");
  EXPECT_EQ(note(1), "twice's work");
  EXPECT_EQ(note(4), "good's work");  // the long id is graded, shown cut
  EXPECT_EQ(note(5), "committed work");
  const std::string gradebook = read_file_bytes(options_.out / "gradebook.csv").value_or("");
  EXPECT_EQ(gradebook.substr(0, gradebook.find('\n')), "student,copy,total,problem");
  EXPECT_NE(gradebook.find("\ngood,5,5,\n"), std::string::npos) << gradebook;
  EXPECT_NE(gradebook.find("\n\"twice (again, line 4)\",0,0,\"" + csv.string() +
                           ":4: student 'twice' appears twice (first at " + csv.string() + ":3)"),
            std::string::npos)
      << gradebook;
  EXPECT_NE(gradebook.find("\n\"(no id, line 5)\",0,0," + csv.string() +
                           ":5: the student has no id; give the row one\n"),
            std::string::npos)
      << gradebook;
  EXPECT_NE(gradebook.find("\n" + std::string(64, 'x') + "...~"), std::string::npos) << gradebook;
  EXPECT_NE(gradebook.find("unknown revision 'no-such-revision'"), std::string::npos) << gradebook;
  EXPECT_NE(gradebook.find("is not a git repository"), std::string::npos) << gradebook;
  const std::string summary = read_file_bytes(options_.out / "summary.md").value_or("");
  EXPECT_NE(summary.find("## Roster: 4 rows not graded, 2 to check"), std::string::npos) << summary;
  EXPECT_NE(summary.find("the id is 300 bytes long, more than 256"), std::string::npos) << summary;
}

// Class 5: the command says so in its exit code: 3 when the gradebook was written but rows had problems.
TEST_F(BatchTest, TheCommandExitsThreeWhenSomeRowsCouldNotBeGraded) {
  write(student("alice") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  const fs::path csv = scratch_->path() / "roster.csv";
  write(csv, "student,path\nalice,class/alice\nalice,class/alice\n");
  ProcessResult run = gpugrade({"--root", testing::source_dir().string(), "batch", csv.string(), "--out",
                                options_.out.string(), "--exercise", "copy", "--backend", "sim", "-j", "1"});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_NE(run.err.find("gpugrade: 1 roster row could not be graded; the gradebook's problem column and "),
            std::string::npos)
      << run.err;
  EXPECT_NE(read_file_bytes(options_.out / "gradebook.csv").value_or("").find("\nalice,5,5,\n"),
            std::string::npos);
}

// The command's last line adds up to the submissions it counts: two students who handed in the same bytes
// are graded once, and the line says so.
TEST_F(BatchTest, TheSummaryLineAccountsForEverySubmission) {
  write(student("alice") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  write(student("bob") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  write(student("carol") / "copy/copy.cu", shipped("exercises/copy/copy.cu"));
  ProcessResult run =
      gpugrade({"--root", testing::source_dir().string(), "batch", options_.roster.string(), "--out",
                options_.out.string(), "--exercise", "copy", "--backend", "sim", "-j", "1"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(
      run.out.rfind("3 students, 3 submissions: 2 graded, 0 unchanged since an earlier run, 1 the same as "
                    "another student's (graded once); wrote ",
                    0),
      0u)
      << run.out;
  run = gpugrade({"--root", testing::source_dir().string(), "batch", options_.roster.string(), "--out",
                  options_.out.string(), "--exercise", "copy", "--backend", "sim", "-j", "1"});
  EXPECT_EQ(
      run.out.rfind("3 students, 3 submissions: 0 graded, 2 unchanged since an earlier run, 1 the same as "
                    "another student's (graded once); wrote ",
                    0),
      0u)
      << run.out;
}

// Class 10: a grade whose output passes what batch keeps is not a silent failure: the finding says what
// happened. (`gpugrade grade` itself fits its JSON under the bound: ResultFit below.)
TEST_F(BatchTest, AGradeCutAtTheOutputLimitSaysSo) {
  write(student("ann") / "copy/copy.cu", "ann's work");
  const fs::path program = scratch_->path() / "grade-flood.sh";
  write(program,
        "#!/bin/sh\nprintf '{\"exercise\": \"copy\", \"note\": \"'\nhead -c 5000000 /dev/zero | tr '\\0' x\n"
        "printf '\"}'\n");
  fs::permissions(program, fs::perms::owner_all);
  options_.program = program.string();
  options_.exercises = {"copy"};
  BatchReport report;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &report, &error)) << error;
  nlohmann::json ann =
      nlohmann::json::parse(read_file_bytes(options_.out / "students/ann.json").value_or("{}"));
  // Not the student's doing: the row is a problem, no grade of it is kept, and the next run grades it.
  EXPECT_EQ(
      ann["problem"],
      "copy was not graded: its JSON result passed the 4194304 bytes batch reads of a grade and was cut "
      "(exit code 0); run the batch again once that is fixed");
  EXPECT_EQ(ann["results"][0]["findings"], nlohmann::json::array());
  EXPECT_EQ(report.rows_with_problems, 1u);
  EXPECT_TRUE(fs::is_empty(options_.out / "results")) << "no result is kept";
}

// The results folder inside an exercise's folder is no change to the exercise: the second run reuses the
// first's grade, and neither writes into the course folder.
TEST_F(BatchTest, ResultsInsideAnExerciseFolderKeepItsHashAndTheCourseIsNotWritten) {
  const fs::path course = scratch_->path() / "course";
  fs::create_directories(course / "exercises");
  fs::copy(testing::source_dir() / "exercises/copy", course / "exercises/copy", fs::copy_options::recursive);
  write(student("ann") / "copy/copy.cu", shipped("solutions/copy/copy.cu"));
  options_.course = course;
  options_.exercises = {"copy"};
  options_.out = course / "exercises/copy/results";
  BatchReport first, second;
  std::string error;
  ASSERT_TRUE(run_batch(options_, &first, &error)) << error;
  ASSERT_TRUE(run_batch(options_, &second, &error)) << error;
  EXPECT_EQ(first.graded, 1u);
  EXPECT_EQ(second.graded, 0u);
  EXPECT_EQ(second.reused, 1u);
  EXPECT_FALSE(fs::exists(course / ".gpugrade")) << "batch wrote the course's last grade";
}

}  // namespace
}  // namespace gpugrade
