// GitRepository against real repositories made in a scratch folder: revisions, diffs with renames,
// blobs read without a checkout, folders materialized, and the errors a user sees.
#include "grader/source/git_source.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/scratch_repo.h"

namespace gpugrade {
namespace {

using testing::ScratchRepo;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string describe(const TreeChange& change) {
  switch (change.status) {
    case TreeChange::Status::kAdded:
      return "added " + change.new_path;
    case TreeChange::Status::kDeleted:
      return "deleted " + change.old_path;
    case TreeChange::Status::kModified:
      return "modified " + change.new_path;
    case TreeChange::Status::kRenamed:
      return "renamed " + change.old_path + " -> " + change.new_path;
    case TreeChange::Status::kCopied:
      return "copied " + change.old_path + " -> " + change.new_path;
  }
  return "?";
}

TEST(GitSourceTest, DiffListsChangesWithRenamesInPathOrder) {
  ScratchRepo repo;
  repo.write("b.txt", "bravo\n");
  repo.write("keep.txt", "kept\n");
  repo.write("old/name.txt", "a file long enough that git recognizes it after a move\n");
  repo.write("gone.txt", "gone\n");
  const std::string base = repo.commit("base");
  repo.write("b.txt", "bravo, edited\n");
  repo.write("a.txt", "alpha\n");
  repo.rename("old/name.txt", "new/name.txt");
  repo.remove("gone.txt");
  const std::string head = repo.commit("head");

  std::string error;
  const auto git = GitRepository::open(repo.work_tree(), &error);
  ASSERT_NE(git, nullptr) << error;
  const auto base_tree = git->tree(base, &error);
  const auto head_tree = git->tree(head, &error);
  ASSERT_TRUE(base_tree && head_tree) << error;
  const auto changes = git->diff(*base_tree, *head_tree, &error);
  ASSERT_TRUE(changes) << error;

  std::vector<std::string> seen;
  for (const TreeChange& change : *changes) seen.push_back(describe(change));
  EXPECT_EQ(seen, (std::vector<std::string>{"added a.txt", "modified b.txt", "deleted gone.txt",
                                            "renamed old/name.txt -> new/name.txt"}));
}

TEST(GitSourceTest, ReadsFilesOfEachRevisionWithoutCheckout) {
  ScratchRepo repo;
  repo.write("exercises/copy/copy.cu", "stub\n");
  const std::string base = repo.commit("base");
  repo.write("exercises/copy/copy.cu", "solved\n");
  repo.commit("head");

  std::string error;
  const auto git = GitRepository::open(repo.work_tree() / "exercises", &error);  // from a subfolder
  ASSERT_NE(git, nullptr) << error;
  const auto old_tree = git->tree(base, &error);
  const auto new_tree = git->tree("HEAD", &error);
  ASSERT_TRUE(old_tree && new_tree) << error;
  EXPECT_EQ(git->read(*old_tree, "exercises/copy/copy.cu", 100)->bytes, "stub\n");
  EXPECT_EQ(git->read(*new_tree, "exercises/copy/copy.cu", 100)->bytes, "solved\n");
  EXPECT_FALSE(git->read(*new_tree, "exercises/copy/missing.cu", 100));
  EXPECT_FALSE(git->read(*new_tree, "exercises/copy", 100));  // a folder is not a file
}

TEST(GitSourceTest, OpensBareClone) {
  ScratchRepo repo;
  repo.write("f.txt", "one\n");
  repo.commit("one");
  repo.write("f.txt", "two\n");
  repo.commit("two");
  const std::filesystem::path bare = repo.clone_bare();

  std::string error;
  const auto git = GitRepository::open(bare, &error);
  ASSERT_NE(git, nullptr) << error;
  const auto tree = git->tree("HEAD~1", &error);
  ASSERT_TRUE(tree) << error;
  EXPECT_EQ(git->read(*tree, "f.txt", 100)->bytes, "one\n");
}

TEST(GitSourceTest, MaterializesOneFolderOfATree) {
  ScratchRepo repo;
  repo.write("exercises/copy/exercise.yaml", "id: copy\n");
  repo.write("exercises/copy/tests/deep.txt", "deep\n");
  repo.write("README.md", "not wanted\n");
  const std::string base = repo.commit("base");

  std::string error;
  const auto git = GitRepository::open(repo.work_tree(), &error);
  ASSERT_NE(git, nullptr) << error;
  const auto tree = git->tree(base, &error);
  ASSERT_TRUE(tree) << error;
  const std::filesystem::path out = repo.root() / "out";
  ASSERT_TRUE(git->materialize(*tree, "exercises", out, &error)) << error;
  EXPECT_EQ(read_file(out / "exercises/copy/exercise.yaml"), "id: copy\n");
  EXPECT_EQ(read_file(out / "exercises/copy/tests/deep.txt"), "deep\n");
  EXPECT_FALSE(std::filesystem::exists(out / "README.md"));
  EXPECT_TRUE(git->materialize(*tree, "solutions", out, &error)) << error;  // absent: nothing to write
  EXPECT_FALSE(std::filesystem::exists(out / "solutions"));
}

TEST(GitSourceTest, UnknownRevisionNamesRevisionAndRepository) {
  ScratchRepo repo;
  repo.write("f.txt", "one\n");
  repo.commit("one");
  std::string error;
  const auto git = GitRepository::open(repo.work_tree(), &error);
  ASSERT_NE(git, nullptr) << error;
  EXPECT_FALSE(git->tree("no-such-branch", &error));
  EXPECT_EQ(error, "unknown revision 'no-such-branch' in the repository at " + repo.work_tree().string());
}

TEST(GitSourceTest, NotARepositoryIsAClearError) {
  std::string error;
  const auto dir = ScratchDir::create("not-a-repo", &error);
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(GitRepository::open(dir->path(), &error), nullptr);
  EXPECT_EQ(error, dir->path().string() + " is not a git repository, nor a folder inside one");
}

TEST(GitSourceTest, FirstVersionIsTheFileAsFirstCommitted) {
  ScratchRepo repo;
  repo.write("README.md", "course\n");
  repo.commit("readme");
  repo.write("exercises/copy/copy.cu", "// stub\n");
  repo.commit("the copy exercise");
  repo.write("exercises/copy/copy.cu", "// my work\n");
  repo.commit("my work");

  std::string error;
  const auto git = GitRepository::open(repo.work_tree(), &error);
  ASSERT_NE(git, nullptr) << error;
  EXPECT_EQ(git->first_version_id("exercises/copy/copy.cu"), git_blob_id("// stub\n"));
  EXPECT_EQ(git->first_version_id("exercises/copy/other.cu"), std::nullopt);
  EXPECT_EQ(git->work_tree(), repo.work_tree() / "");
}

TEST(GitSourceTest, BlobIdMatchesGitHashObject) {
  // What `printf ... | git hash-object --stdin` prints for the same bytes.
  EXPECT_EQ(git_blob_id("hello\n"), "ce013625030ba8dba906f756967f9e9ca394464a");
  EXPECT_EQ(git_blob_id(""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

// Class 6: read() sizes a blob from its header and reads it only within the caller's limit.
TEST(GitSourceTest, AHugeBlobIsSizedFromItsHeaderAndNeverRead) {
  ScratchRepo repo;
  repo.stage_zero_blob("big.bin", uint64_t{5} << 30);
  repo.write("small.txt", "small\n");
  repo.commit("sizes");
  std::string error;
  const auto git = GitRepository::open(repo.work_tree(), &error);
  ASSERT_NE(git, nullptr) << error;
  const auto tree = git->tree("HEAD", &error);
  ASSERT_TRUE(tree) << error;
  std::optional<GitFile> big = git->read(*tree, "big.bin", 1 << 20);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->size, uint64_t{5} << 30);
  EXPECT_FALSE(big->bytes);
  std::optional<GitFile> small = git->read(*tree, "small.txt", 6);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->bytes, "small\n");
  EXPECT_FALSE(git->read(*tree, "small.txt", 5)->bytes);  // one byte over the limit: sized, not read
}

}  // namespace
}  // namespace gpugrade
