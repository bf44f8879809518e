// Read-only access to a git repository through libgit2: revisions to trees, tree diffs with rename
// detection, and file contents read from blobs, so a pull request is graded without a checkout.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct git_repository;
struct git_tree;

namespace gpugrade {

// A tree of one revision. Valid while the repository that made it lives.
class GitTree {
 public:
  GitTree(GitTree&&) noexcept;
  GitTree& operator=(GitTree&&) noexcept;
  ~GitTree();
  const std::string& revision() const { return revision_; }

 private:
  friend class GitRepository;
  GitTree(git_tree* tree, std::string revision) : tree_(tree), revision_(std::move(revision)) {}
  git_tree* tree_;
  std::string revision_;
};

// One file that differs between two trees. A rename keeps both paths; otherwise the two are equal
// except that an added file has no old path and a deleted one no new path.
struct TreeChange {
  enum class Status { kAdded, kDeleted, kModified, kRenamed, kCopied };
  Status status = Status::kModified;
  std::string old_path;
  std::string new_path;
};

// A file of a tree, as GitRepository::read finds it.
struct GitFile {
  bool link = false;                 // a symbolic link (its blob is the link's target): never read
  uint64_t size = 0;                 // the blob's size, from its header
  std::optional<std::string> bytes;  // nullopt for a link, or when size is over the reader's limit
};

// The largest file materialize() writes: the base revision's exercises and solutions are trusted, but a
// blob of gigabytes there is a mistake that must not take the grader's memory.
constexpr uint64_t kMaxMaterializedBytes = uint64_t{256} << 20;

class GitRepository {
 public:
  // Opens the repository that holds `path` (its work tree, any folder inside it, or a bare repository).
  static std::unique_ptr<GitRepository> open(const std::filesystem::path& path, std::string* error);
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;
  ~GitRepository();

  // Resolves a revision as git does (a hash, a branch, `HEAD~1`, `origin/main`) to its tree.
  std::optional<GitTree> tree(const std::string& revision, std::string* error) const;
  // The commit where `head`'s history left `base`'s (`git merge-base base head`), as 40 hex digits: what a
  // pull request's changes are measured from. nullopt with *error when the two share no history.
  std::optional<std::string> merge_base(const std::string& base, const std::string& head,
                                        std::string* error) const;
  // Every file that differs from `base` to `head`, with renames detected, in path order.
  std::optional<std::vector<TreeChange>> diff(const GitTree& base, const GitTree& head,
                                              std::string* error) const;
  // The file at `path` in `tree`: what it is and how large, from the object's header, and its bytes only
  // when it is a file of at most `max_bytes` (a 5 GB blob is sized, never read). nullopt when no file is
  // there.
  std::optional<GitFile> read(const GitTree& tree, const std::string& path, uint64_t max_bytes) const;
  // The blob id of `path` in the earliest commit reachable from HEAD that holds it: the file as first
  // committed (in a course repository, the stub as shipped). nullopt when no commit holds it.
  std::optional<std::string> first_version_id(const std::string& path) const;
  // The repository's work tree; nullopt for a bare repository.
  std::optional<std::filesystem::path> work_tree() const;
  // Writes the folder `folder` of `tree` (every file below it) under `destination`, keeping the paths
  // relative to the tree's root. A folder the tree lacks writes nothing and is not an error; a file over
  // kMaxMaterializedBytes is.
  bool materialize(const GitTree& tree, const std::string& folder, const std::filesystem::path& destination,
                   std::string* error) const;

 private:
  GitRepository(git_repository* repository, std::filesystem::path path)
      : repository_(repository), path_(std::move(path)) {}
  git_repository* repository_;
  std::filesystem::path path_;  // as the user named it, for messages
};

// The id git gives these bytes as a blob (`git hash-object FILE`): 40 hex digits. Cheap and stable, and an
// instructor can compute it with git alone.
std::string git_blob_id(std::string_view contents);

}  // namespace gpugrade
