// The pull-request workflow cannot be rewritten by the pull request it grades: the workflow file says so
// (pull_request_target, the base checked out and built, the head fetched as objects only), and replaying its
// grading step on a pull request that edits the workflow and the grader's sources grades the submission by
// the base's rules and warns about each of those edits.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "os/process.h"
#include "tests/grading_fixture.h"
#include "tests/scratch_repo.h"

namespace gpugrade {
namespace {

YAML::Node workflow() { return YAML::LoadFile(GPUGRADE_SOURCE_DIR "/.github/workflows/grade.yml"); }

std::vector<YAML::Node> steps() {
  std::vector<YAML::Node> out;
  for (const YAML::Node& step : workflow()["jobs"]["grade"]["steps"]) out.push_back(step);
  return out;
}

std::string run_of(const YAML::Node& step) { return step["run"] ? step["run"].as<std::string>() : ""; }

TEST(GradeWorkflow, RunsTheBaseBranchsCopyOnly) {
  YAML::Node on = workflow()["on"];
  ASSERT_TRUE(on.IsMap());
  EXPECT_EQ(on.size(), 1u);
  // pull_request would run the pull request's own copy of this file; pull_request_target runs the base's.
  EXPECT_TRUE(on["pull_request_target"]);
  EXPECT_EQ(workflow()["permissions"]["contents"].as<std::string>(), "read");
}

TEST(GradeWorkflow, ChecksOutAndBuildsTheBaseAndReadsTheHeadAsDataOnly) {
  int checkouts = 0;
  bool fetched_head = false, graded = false, cached = false;
  for (const YAML::Node& step : steps()) {
    const std::string uses = step["uses"] ? step["uses"].as<std::string>() : "";
    const std::string run = run_of(step);
    if (uses.rfind("actions/checkout@", 0) == 0) {
      ++checkouts;
      EXPECT_EQ(step["with"]["ref"].as<std::string>(), "${{ github.event.pull_request.base.sha }}");
      EXPECT_EQ(step["with"]["persist-credentials"].as<std::string>(), "false");
    }
    if (uses.rfind("actions/cache@", 0) == 0) {
      cached = true;
      EXPECT_EQ(step["with"]["path"].as<std::string>(), "build/release");
    }
    // No step switches the work tree to the pull request, merges it, or runs anything from it.
    for (const char* forbidden :
         {"git checkout", "git switch", "git merge", "git pull", "git reset", "git worktree"})
      EXPECT_EQ(run.find(forbidden), std::string::npos) << run;
    EXPECT_EQ(run.find("${{"), std::string::npos)
        << "expressions go through env:, never into a script: " << run;
    if (run.find("git fetch") != std::string::npos) {
      fetched_head = true;
      EXPECT_NE(run.find("refs/pull/${PR_NUMBER}/head:refs/remotes/pull/head"), std::string::npos) << run;
    }
    if (run.find("gpugrade pr") != std::string::npos) {
      graded = true;
      EXPECT_EQ(run.rfind("build/release/grader/gpugrade pr", 0), 0u) << run;  // the binary built above
      EXPECT_NE(run.find("--base \"$BASE_SHA\" --head \"$HEAD_SHA\""), std::string::npos) << run;
      EXPECT_EQ(step["env"]["HEAD_SHA"].as<std::string>(), "${{ github.event.pull_request.head.sha }}");
      EXPECT_EQ(run.find("||"), std::string::npos) << "a failed grade must fail the step";
    }
  }
  EXPECT_EQ(checkouts, 1);
  EXPECT_TRUE(fetched_head);
  EXPECT_TRUE(graded);
  EXPECT_TRUE(cached);
}

// The grading step replayed on a pull request that edits the workflow (to pass whatever happens), the
// grader's sources and a CI script, and hands in the untouched stub: the base's rules fail it, and each
// edit is named in a warning annotation.
TEST(GradeWorkflow, APullRequestThatRewritesTheRulesIsGradedByTheBase) {
  testing::ScratchRepo repo;
  const std::filesystem::path src = testing::source_dir();
  for (const char* file : {"exercise.yaml", "copy.cu", "reference.cpp", "README.md"})
    repo.write(std::string("exercises/copy/") + file, testing::read_file(src / "exercises/copy" / file));
  repo.write("solutions/copy/copy.cu", testing::read_file(src / "solutions/copy/copy.cu"));
  repo.write(".github/workflows/grade.yml", testing::read_file(src / ".github/workflows/grade.yml"));
  repo.write("grader/grade.cc", "// the grader\n");
  repo.write(".ci/run", "#!/bin/sh\n");
  const std::string base = repo.commit("course");
  std::string workflow = testing::read_file(src / ".github/workflows/grade.yml");
  workflow += "        continue-on-error: true\n";
  repo.write(".github/workflows/grade.yml", workflow);
  repo.write("grader/grade.cc", "// every submission passes\n");
  repo.write(".ci/run", "#!/bin/sh\nexit 0\n");
  repo.write("exercises/copy/copy.cu", testing::read_file(src / "exercises/copy/copy.cu") + "// done!\n");
  const std::string head = repo.commit("pass everything");

  ProcessResult run =
      run_process({GPUGRADE_BINARY, "pr", "--repo", repo.work_tree().string(), "--base", base, "--head", head,
                   "--backend", "sim", "--format", "github"},
                  {.working_directory = repo.work_tree(),
                   .time_limit_seconds = 300,
                   .memory_limit_bytes = 0,
                   .extra_environment = {"GPUGRADE_CACHE_DIR=" + (repo.root() / "cache").string()}});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(
      run.out.find("::warning file=.github/workflows/grade.yml,title=gpugrade::.github/workflows/grade.yml "
                   "changed in this pull request: it is a workflow, not a submission; grading uses the base "
                   "revision's grader and workflow"),
      std::string::npos)
      << run.out;
  EXPECT_NE(
      run.out.find("::warning file=grader/grade.cc,title=gpugrade::grader/grade.cc changed in this pull "
                   "request: it is the grader's source, not a submission"),
      std::string::npos)
      << run.out;
  EXPECT_NE(
      run.out.find("::warning file=.ci/run,title=gpugrade::.ci/run changed in this pull request: it is a CI "
                   "script"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("::error file=exercises/copy/copy.cu"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("gpugrade: 0/1 exercise passed, 0/5 points"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace gpugrade
