// `gpugrade pr` planning on throwaway repositories: exactly the changed submissions are graded, with the
// head's text and the base's definitions; edits to definitions are reported; errors name what failed.
#include "grader/class/pr.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>

#include "os/scratch_dir.h"
#include "tests/scratch_repo.h"

namespace gpugrade {
namespace {

using testing::ScratchRepo;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Stands in for the exercise loader: exercise.yaml holds "<kernel file> <points>".
std::optional<ExerciseFacts> read_facts(const std::filesystem::path& folder, std::string* error) {
  std::ifstream in(folder / "exercise.yaml");
  ExerciseFacts facts;
  if (!(in >> facts.kernel_file >> facts.points)) {
    *error = "exercise.yaml does not load";
    return std::nullopt;
  }
  return facts;
}

// Three exercises at their stubs, committed as the base.
std::string commit_course(ScratchRepo& repo) {
  for (const std::string id : {"copy", "transpose", "reduce"}) {
    repo.write("exercises/" + id + "/exercise.yaml", id + ".cu 10\n");
    repo.write("exercises/" + id + "/" + id + ".cu", "// " + id + " stub\n");
    repo.write("exercises/" + id + "/reference.cpp", "// " + id + " reference\n");
  }
  repo.write("solutions/copy/copy.cu", "// copy solution\n");
  repo.write("README.md", "course\n");
  return repo.commit("course");
}

std::vector<std::string> describe(const PrPlan& plan) {
  std::vector<std::string> lines;
  for (const PrItem& item : plan.items) {
    const char* change = item.change == PrItem::Change::kEdited     ? "edited"
                         : item.change == PrItem::Change::kDeleted  ? "deleted"
                         : item.change == PrItem::Change::kTooLarge ? "too-large"
                                                                    : "renamed";
    lines.push_back(fmt::format("{} {} {} {}pts", item.exercise, change, item.submission_path, item.points));
  }
  for (const Notice& notice : plan.notices) lines.push_back("notice " + notice.file + ": " + notice.message);
  return lines;
}

TEST(PrTest, GradesChangedSubmissionsWithHeadTextAndBaseDefinitions) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  repo.write("exercises/copy/copy.cu", "// copy, solved\n");
  repo.write("exercises/copy/exercise.yaml", "copy.cu 99\n");  // the student gives themself points
  repo.write("README.md", "course, with notes\n");
  repo.commit("copy");
  repo.write("exercises/transpose/transpose.cu", "// transpose, solved\n");
  repo.write("exercises/reduce/reference.cpp", "// a reference that agrees with anything\n");
  repo.write("solutions/copy/copy.cu", "// a weaker solution\n");
  const std::string head = repo.commit("transpose");

  std::string error;
  const std::optional<PrPlan> plan = plan_pr(
      {.repository = repo.work_tree(), .base = base, .head = head, .exercises = {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(
      describe(*plan),
      (std::vector<std::string>{
          "copy edited exercises/copy/copy.cu 10pts",
          "transpose edited exercises/transpose/transpose.cu 10pts",
          "notice README.md: README.md changed in this pull request; it is not a submission file and is not "
          "graded",
          "notice exercises/copy/exercise.yaml: exercises/copy/exercise.yaml changed in this pull request; "
          "it is graded with the base revision's definition",
          "notice exercises/reduce/reference.cpp: exercises/reduce/reference.cpp changed in this pull "
          "request; it is graded with the base revision's definition",
          "notice solutions/copy/copy.cu: solutions/copy/copy.cu changed in this pull request; the base "
          "revision's version is used",
      }));
  EXPECT_EQ(plan->items[0].submission_text, "// copy, solved\n");
  EXPECT_EQ(plan->items[1].submission_text, "// transpose, solved\n");
  EXPECT_EQ(read_file(plan->items[0].definition / "exercise.yaml"), "copy.cu 10\n");
  EXPECT_EQ(plan->items[0].definition, plan->exercises / "copy");
  EXPECT_EQ(read_file(plan->exercises / "../solutions/copy/copy.cu"), "// copy solution\n");

  std::vector<std::string> graded;
  const std::vector<Result> results = grade_pr(*plan, [&](const PrItem& item) {
    graded.push_back(item.exercise);
    Result result;
    result.exercise = item.exercise;
    return result;
  });
  EXPECT_EQ(graded, (std::vector<std::string>{"copy", "transpose"}));
  EXPECT_EQ(results.size(), 2u);
}

TEST(PrTest, TheBaseCopyIsRemovedWithThePlan) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  std::filesystem::path copy;
  {
    std::string error;
    const std::optional<PrPlan> plan = plan_pr(
        {.repository = repo.work_tree(), .base = base, .head = base, .exercises = {}}, read_facts, &error);
    ASSERT_TRUE(plan) << error;
    EXPECT_TRUE(plan->items.empty());
    copy = plan->exercises;
    EXPECT_TRUE(std::filesystem::exists(copy / "copy/exercise.yaml"));
  }
  EXPECT_FALSE(std::filesystem::exists(copy));
}

TEST(PrTest, DeletedAndRenamedSubmissionsFailWithAClearNote) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  repo.remove("exercises/copy/copy.cu");
  repo.rename("exercises/transpose/transpose.cu", "exercises/transpose/mine.cu");
  repo.write("exercises/brand-new/exercise.yaml", "new.cu 5\n");
  repo.write("exercises/brand-new/new.cu", "// new\n");
  const std::string head = repo.commit("mess");

  std::string error;
  const std::optional<PrPlan> plan = plan_pr(
      {.repository = repo.work_tree(), .base = base, .head = head, .exercises = {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(
      describe(*plan),
      (std::vector<std::string>{
          "copy deleted exercises/copy/copy.cu 10pts",
          "transpose renamed exercises/transpose/transpose.cu 10pts",
          "notice exercises/brand-new/: exercises/brand-new/ is not graded: it is not an exercise of the "
          "base "
          "revision (a pull request cannot add one)",
          "notice exercises/transpose/mine.cu: exercises/transpose/mine.cu changed in this pull request; it "
          "is graded with the base revision's definition",
      }));

  const std::vector<Result> results = grade_pr(*plan, [](const PrItem&) -> Result {
    ADD_FAILURE() << "a missing submission was graded";
    return {};
  });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_EQ(results[0].max_points, 10);
  EXPECT_EQ(results[0].note,
            "exercises/copy/copy.cu was deleted in this pull request; restore it and edit it in place");
  EXPECT_EQ(
      results[1].note,
      "exercises/transpose/transpose.cu was renamed to exercises/transpose/mine.cu in this pull request; "
      "gpugrade grades exercises/transpose/transpose.cu, so move it back");
}

TEST(PrTest, ASubmissionOverOneMebibyteFailsUnreadWithItsSize) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  repo.write("exercises/copy/copy.cu", std::string((1 << 20) + 1, ' '));
  const std::string head = repo.commit("huge");
  std::string error;
  const std::optional<PrPlan> plan = plan_pr(
      {.repository = repo.work_tree(), .base = base, .head = head, .exercises = {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(describe(*plan), (std::vector<std::string>{"copy too-large exercises/copy/copy.cu 10pts"}));
  const std::vector<Result> results = grade_pr(*plan, [](const PrItem&) -> Result {
    ADD_FAILURE() << "an oversized submission was graded";
    return {};
  });
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, Verdict::kFail);
  EXPECT_EQ(
      results[0].note,
      "exercises/copy/copy.cu is 1048577 bytes in this pull request; a submission may be at most 1048576 "
      "bytes (1 MiB)");
}

TEST(PrTest, TrustedExercisesFolderReplacesTheBaseDefinitions) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  repo.write("exercises/copy/copy.cu", "// copy, solved\n");
  repo.write("exercises/copy/exercise.yaml", "copy.cu 99\n");
  const std::string head = repo.commit("copy");
  const std::filesystem::path trusted = repo.root() / "trusted";
  std::filesystem::create_directories(trusted / "copy");
  std::ofstream(trusted / "copy/exercise.yaml") << "copy.cu 7\n";

  std::string error;
  const std::optional<PrPlan> plan = plan_pr(
      {.repository = repo.work_tree(), .base = base, .head = head, .exercises = trusted}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(describe(*plan),
            (std::vector<std::string>{
                "copy edited exercises/copy/copy.cu 7pts",
                "notice exercises/copy/exercise.yaml: exercises/copy/exercise.yaml changed in this "
                "pull request; it is graded with the definition in " +
                    trusted.string(),
            }));
  EXPECT_EQ(plan->items[0].definition, trusted / "copy");
}

TEST(PrTest, WorksOnABareCloneWithBranchNames) {
  ScratchRepo repo;
  commit_course(repo);
  repo.write("exercises/reduce/reduce.cu", "// reduce, solved\n");
  repo.commit("reduce");
  const std::filesystem::path bare = repo.clone_bare();

  std::string error;
  const std::optional<PrPlan> plan =
      plan_pr({.repository = bare, .base = "HEAD~1", .head = "HEAD", .exercises = {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(describe(*plan), (std::vector<std::string>{"reduce edited exercises/reduce/reduce.cu 10pts"}));
  EXPECT_EQ(plan->items[0].submission_text, "// reduce, solved\n");
}

TEST(PrTest, UnknownRevisionIsAnError) {
  ScratchRepo repo;
  commit_course(repo);
  std::string error;
  EXPECT_FALSE(plan_pr({.repository = repo.work_tree(), .base = "main~5", .head = "HEAD", .exercises = {}},
                       read_facts, &error));
  EXPECT_EQ(error, "unknown revision 'main~5' in the repository at " + repo.work_tree().string());
}

TEST(PrTest, NotARepositoryIsAnError) {
  ScratchRepo repo;
  const std::filesystem::path elsewhere = repo.root() / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::string error;
  EXPECT_FALSE(plan_pr({.repository = elsewhere, .base = "HEAD~1", .head = "HEAD", .exercises = {}},
                       read_facts, &error));
  EXPECT_EQ(error, elsewhere.string() + " is not a git repository, nor a folder inside one");
}

// Class 9: a branch made before the base moved on is graded for what it changed, as GitHub shows it (from
// the merge base), not for every file the base changed since.
TEST(PrTest, AnOldBranchIsGradedOnlyForWhatItChanged) {
  ScratchRepo repo;
  const std::string fork = commit_course(repo);
  repo.write("exercises/copy/copy.cu", "// copy solved\n");
  const std::string head = repo.commit("student");
  repo.write("exercises/copy/copy.cu", "// copy stub\n");  // the base never saw the student's edit
  repo.write("exercises/transpose/transpose.cu", "// transpose stub, improved\n");
  repo.write("README.md", "course, improved\n");
  const std::string base = repo.commit_onto(fork, "the course moves on");

  std::string error;
  std::optional<PrPlan> plan = plan_pr({repo.work_tree(), base, head, {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(describe(*plan), (std::vector<std::string>{"copy edited exercises/copy/copy.cu 10pts"}));
}

// Class 9: a pull request of hundreds of changed files lists the first 50 and says how many more.
TEST(PrTest, ManyChangedFilesGiveABoundedListOfNotices) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  for (int i = 0; i < 300; ++i) repo.write(fmt::format("docs/page{:03}.md", i), "page\n");
  const std::string head = repo.commit("many files");
  std::string error;
  std::optional<PrPlan> plan = plan_pr({repo.work_tree(), base, head, {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->notices.size(), 51u);
  EXPECT_EQ(plan->notices[0].file, "docs/page000.md");
  EXPECT_EQ(
      plan->notices.back().message,
      "250 more changed files of this pull request are not listed (gpugrade lists 50); none of them is a "
      "submission");
}

// Class 6: a pull request that commits a 5 GiB submission fails with its size; the blob is never read.
TEST(PrTest, AFiveGibibyteBlobFailsWithItsSizeUnread) {
  ScratchRepo repo;
  const std::string base = commit_course(repo);
  repo.stage_zero_blob("exercises/copy/copy.cu", uint64_t{5} << 30);
  const std::string head = repo.commit("huge");
  std::string error;
  std::optional<PrPlan> plan = plan_pr({repo.work_tree(), base, head, {}}, read_facts, &error);
  ASSERT_TRUE(plan) << error;
  ASSERT_EQ(plan->items.size(), 1u);
  EXPECT_EQ(plan->items[0].change, PrItem::Change::kTooLarge);
  EXPECT_EQ(plan->items[0].bytes, uint64_t{5} << 30);
}

// Class 9: the step summary stays under GitHub's 1 MiB when a pull request's results hold thousands of
// findings beyond the annotations GitHub shows; it says how many it did not list.
TEST(PrTest, TheStepSummaryStaysUnderOneMebibyte) {
  std::optional<ScratchDir> dir = ScratchDir::create("pr-summary", nullptr);
  const std::filesystem::path summary = dir->path() / "summary.md";
  Result result;
  result.exercise = "copy";
  result.submission = "exercises/copy/copy.cu";
  for (int i = 0; i < 5000; ++i) {
    Finding f;
    f.kind = FindingKind::kCompileError;
    f.message = std::string(400, 'm');
    f.line = i + 1;
    result.findings.push_back(std::move(f));
  }
  ::setenv("GITHUB_STEP_SUMMARY", summary.c_str(), 1);
  const std::string error = append_github_step_summary({result}, {});
  ::unsetenv("GITHUB_STEP_SUMMARY");
  EXPECT_EQ(error, "");
  const std::string written = read_file(summary);
  EXPECT_LE(written.size(), size_t{1} << 20);
  EXPECT_NE(written.find(
                " more not listed: the step summary may take at most 1000000 bytes; the job's log has them "
                "all.\n"),
            std::string::npos)
      << written.substr(written.size() - 300);
}

}  // namespace
}  // namespace gpugrade
