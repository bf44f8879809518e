// libgit2 behind GitRepository: every libgit2 object is freed by a unique_ptr, every error becomes a
// message naming the revision or path and the repository.
#include "grader/source/git_source.h"

#include <fmt/format.h>
#include <git2.h>

#include <algorithm>
#include <fstream>
#include <utility>

namespace gpugrade {
namespace {

template <typename T, void (*kFree)(T*)>
struct GitDeleter {
  void operator()(T* object) const { kFree(object); }
};
template <typename T, void (*kFree)(T*)>
using GitPtr = std::unique_ptr<T, GitDeleter<T, kFree>>;

using ObjectPtr = GitPtr<git_object, git_object_free>;
using TreePtr = GitPtr<git_tree, git_tree_free>;
using TreeEntryPtr = GitPtr<git_tree_entry, git_tree_entry_free>;
using BlobPtr = GitPtr<git_blob, git_blob_free>;
using DiffPtr = GitPtr<git_diff, git_diff_free>;
using CommitPtr = GitPtr<git_commit, git_commit_free>;
using RevwalkPtr = GitPtr<git_revwalk, git_revwalk_free>;
using OdbPtr = GitPtr<git_odb, git_odb_free>;

std::string last_git_error() {
  const git_error* error = git_error_last();
  return error != nullptr && error->message != nullptr ? error->message : "unknown libgit2 error";
}

void set(std::string* error, std::string message) {
  if (error != nullptr) *error = std::move(message);
}

// libgit2 keeps a count of its users; each repository is one, so the library lives as long as any does.
struct LibraryUse {
  LibraryUse() { git_libgit2_init(); }
  ~LibraryUse() { git_libgit2_shutdown(); }
  LibraryUse(const LibraryUse&) = delete;
  LibraryUse& operator=(const LibraryUse&) = delete;
};

// The size a blob's header gives: known without inflating the blob itself.
bool blob_size(git_repository* repository, const git_oid* id, uint64_t* size) {
  git_odb* raw_odb = nullptr;
  if (git_repository_odb(&raw_odb, repository) != 0) return false;
  const OdbPtr odb(raw_odb);
  size_t length = 0;
  git_object_t type = GIT_OBJECT_INVALID;
  if (git_odb_read_header(&length, &type, odb.get(), id) != 0 || type != GIT_OBJECT_BLOB) return false;
  *size = length;
  return true;
}

std::optional<std::string> blob_contents(git_repository* repository, const git_oid* id) {
  git_blob* raw_blob = nullptr;
  if (git_blob_lookup(&raw_blob, repository, id) != 0) return std::nullopt;
  const BlobPtr blob(raw_blob);
  const auto* bytes = static_cast<const char*>(git_blob_rawcontent(blob.get()));
  return std::string(bytes, static_cast<size_t>(git_blob_rawsize(blob.get())));
}

struct MaterializeWalk {
  git_repository* repository;
  std::filesystem::path destination;
  std::string error;
};

int write_entry(const char* root, const git_tree_entry* entry, void* payload) {
  auto& walk = *static_cast<MaterializeWalk*>(payload);
  const std::string_view name = git_tree_entry_name(entry);
  // A crafted tree could name an entry ".." and write outside the destination.
  if (name == "." || name == ".." || name.find('/') != std::string_view::npos) {
    walk.error = fmt::format("refusing the tree entry '{}{}'", root, name);
    return -1;
  }
  const git_filemode_t mode = git_tree_entry_filemode(entry);
  if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return 0;  // folders, links
  const std::filesystem::path target = walk.destination / root / name;
  uint64_t size = 0;
  std::optional<std::string> contents;
  if (!blob_size(walk.repository, git_tree_entry_id(entry), &size) ||
      (size <= kMaxMaterializedBytes &&
       !(contents = blob_contents(walk.repository, git_tree_entry_id(entry))))) {
    walk.error = fmt::format("cannot read {}{}: {}", root, name, last_git_error());
    return -1;
  }
  if (!contents) {
    walk.error = fmt::format(
        "{}{} is {} bytes; files of the course's exercises and solutions may be at most {} "
        "bytes",
        root, name, size, kMaxMaterializedBytes);
    return -1;
  }
  std::error_code ignored;
  std::filesystem::create_directories(target.parent_path(), ignored);
  std::ofstream out(target, std::ios::binary);
  out.write(contents->data(), static_cast<std::streamsize>(contents->size()));
  if (!out) {
    walk.error = fmt::format("cannot write {}", target.string());
    return -1;
  }
  return 0;
}

TreeChange::Status change_status(git_delta_t status) {
  switch (status) {
    case GIT_DELTA_ADDED:
      return TreeChange::Status::kAdded;
    case GIT_DELTA_DELETED:
      return TreeChange::Status::kDeleted;
    case GIT_DELTA_RENAMED:
      return TreeChange::Status::kRenamed;
    case GIT_DELTA_COPIED:
      return TreeChange::Status::kCopied;
    default:
      return TreeChange::Status::kModified;  // modified, or a file that became a link
  }
}

}  // namespace

GitTree::GitTree(GitTree&& other) noexcept
    : tree_(std::exchange(other.tree_, nullptr)), revision_(std::move(other.revision_)) {}

GitTree& GitTree::operator=(GitTree&& other) noexcept {
  std::swap(tree_, other.tree_);
  std::swap(revision_, other.revision_);
  return *this;
}

GitTree::~GitTree() { git_tree_free(tree_); }

std::unique_ptr<GitRepository> GitRepository::open(const std::filesystem::path& path, std::string* error) {
  git_libgit2_init();
  std::error_code ignored;  // messages name the folder absolutely: "." says little in a CI log
  std::filesystem::path shown = std::filesystem::absolute(path, ignored).lexically_normal();
  if (!shown.has_filename() && shown.has_relative_path()) shown = shown.parent_path();  // "/a/b/" -> "/a/b"
  git_repository* repository = nullptr;
  const int code = git_repository_open_ext(&repository, path.c_str(), 0, nullptr);
  if (code != 0) {
    set(error,
        code == GIT_ENOTFOUND
            ? fmt::format("{} is not a git repository, nor a folder inside one", shown.string())
            : fmt::format("cannot open the git repository at {}: {}", shown.string(), last_git_error()));
    git_libgit2_shutdown();
    return nullptr;
  }
  return std::unique_ptr<GitRepository>(new GitRepository(repository, shown));
}

GitRepository::~GitRepository() {
  git_repository_free(repository_);
  git_libgit2_shutdown();
}

std::optional<GitTree> GitRepository::tree(const std::string& revision, std::string* error) const {
  git_object* raw_object = nullptr;
  const int code = git_revparse_single(&raw_object, repository_, revision.c_str());
  if (code != 0) {
    set(error, code == GIT_ENOTFOUND || code == GIT_EINVALIDSPEC
                   ? fmt::format("unknown revision '{}' in the repository at {}", revision, path_.string())
                   : fmt::format("cannot resolve '{}' in the repository at {}: {}", revision, path_.string(),
                                 last_git_error()));
    return std::nullopt;
  }
  const ObjectPtr object(raw_object);
  git_object* raw_tree = nullptr;
  if (git_object_peel(&raw_tree, object.get(), GIT_OBJECT_TREE) != 0) {
    set(error,
        fmt::format("revision '{}' in the repository at {} is not a commit", revision, path_.string()));
    return std::nullopt;
  }
  return GitTree(reinterpret_cast<git_tree*>(raw_tree), revision);
}

std::optional<std::string> GitRepository::merge_base(const std::string& base, const std::string& head,
                                                     std::string* error) const {
  git_oid ids[2];
  for (int i = 0; i < 2; ++i) {
    const std::string& revision = i == 0 ? base : head;
    git_object* raw_commit = nullptr;
    if (git_revparse_single(&raw_commit, repository_, revision.c_str()) != 0) {
      set(error, fmt::format("unknown revision '{}' in the repository at {}", revision, path_.string()));
      return std::nullopt;
    }
    const ObjectPtr object(raw_commit);
    git_object* raw_peeled = nullptr;
    if (git_object_peel(&raw_peeled, object.get(), GIT_OBJECT_COMMIT) != 0) {
      set(error,
          fmt::format("revision '{}' in the repository at {} is not a commit", revision, path_.string()));
      return std::nullopt;
    }
    const ObjectPtr commit(raw_peeled);
    git_oid_cpy(&ids[i], git_object_id(commit.get()));
  }
  git_oid found;
  const int code = git_merge_base(&found, repository_, &ids[0], &ids[1]);
  if (code != 0) {
    set(error, code == GIT_ENOTFOUND
                   ? fmt::format(
                         "'{}' and '{}' share no history in the repository at {}; a pull request's head must "
                         "branch from its base",
                         base, head, path_.string())
                   : fmt::format("cannot find where '{}' left '{}' in the repository at {}: {}", head, base,
                                 path_.string(), last_git_error()));
    return std::nullopt;
  }
  char text[GIT_OID_HEXSZ + 1];
  git_oid_tostr(text, sizeof text, &found);
  return text;
}

std::optional<std::vector<TreeChange>> GitRepository::diff(const GitTree& base, const GitTree& head,
                                                           std::string* error) const {
  git_diff* raw_diff = nullptr;
  if (git_diff_tree_to_tree(&raw_diff, repository_, base.tree_, head.tree_, nullptr) != 0) {
    set(error, fmt::format("cannot diff {} and {}: {}", base.revision(), head.revision(), last_git_error()));
    return std::nullopt;
  }
  const DiffPtr diff(raw_diff);
  git_diff_find_options find = GIT_DIFF_FIND_OPTIONS_INIT;
  find.flags = GIT_DIFF_FIND_RENAMES;
  if (git_diff_find_similar(diff.get(), &find) != 0) {
    set(error, fmt::format("cannot detect renames from {} to {}: {}", base.revision(), head.revision(),
                           last_git_error()));
    return std::nullopt;
  }
  std::vector<TreeChange> changes;
  for (size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    TreeChange change;
    change.status = change_status(delta->status);
    if (change.status != TreeChange::Status::kAdded) change.old_path = delta->old_file.path;
    if (change.status != TreeChange::Status::kDeleted) change.new_path = delta->new_file.path;
    changes.push_back(std::move(change));
  }
  const auto key = [](const TreeChange& change) {
    return change.new_path.empty() ? change.old_path : change.new_path;
  };
  std::sort(changes.begin(), changes.end(),
            [&](const TreeChange& a, const TreeChange& b) { return key(a) < key(b); });
  return changes;
}

std::optional<GitFile> GitRepository::read(const GitTree& tree, const std::string& path,
                                           uint64_t max_bytes) const {
  git_tree_entry* raw_entry = nullptr;
  if (git_tree_entry_bypath(&raw_entry, tree.tree_, path.c_str()) != 0) return std::nullopt;
  const TreeEntryPtr entry(raw_entry);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::nullopt;
  GitFile file;
  file.link = git_tree_entry_filemode(entry.get()) == GIT_FILEMODE_LINK;
  if (!blob_size(repository_, git_tree_entry_id(entry.get()), &file.size)) return std::nullopt;
  if (file.link || file.size > max_bytes) return file;
  file.bytes = blob_contents(repository_, git_tree_entry_id(entry.get()));
  if (!file.bytes) return std::nullopt;
  return file;
}

std::optional<std::string> GitRepository::first_version_id(const std::string& path) const {
  git_revwalk* raw_walk = nullptr;
  if (git_revwalk_new(&raw_walk, repository_) != 0) return std::nullopt;
  const RevwalkPtr walk(raw_walk);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);  // oldest first
  if (git_revwalk_push_head(walk.get()) != 0) return std::nullopt;
  git_oid commit_id;
  while (git_revwalk_next(&commit_id, walk.get()) == 0) {
    git_commit* raw_commit = nullptr;
    if (git_commit_lookup(&raw_commit, repository_, &commit_id) != 0) continue;
    const CommitPtr commit(raw_commit);
    git_tree* raw_tree = nullptr;
    if (git_commit_tree(&raw_tree, commit.get()) != 0) continue;
    const TreePtr tree(raw_tree);
    git_tree_entry* raw_entry = nullptr;
    if (git_tree_entry_bypath(&raw_entry, tree.get(), path.c_str()) != 0) continue;
    const TreeEntryPtr entry(raw_entry);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) continue;
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, git_tree_entry_id(entry.get()));
    return text;
  }
  return std::nullopt;
}

std::optional<std::filesystem::path> GitRepository::work_tree() const {
  const char* path = git_repository_workdir(repository_);
  if (path == nullptr) return std::nullopt;
  return std::filesystem::path(path);
}

bool GitRepository::materialize(const GitTree& tree, const std::string& folder,
                                const std::filesystem::path& destination, std::string* error) const {
  git_tree_entry* raw_entry = nullptr;
  if (git_tree_entry_bypath(&raw_entry, tree.tree_, folder.c_str()) != 0) return true;
  const TreeEntryPtr entry(raw_entry);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) return true;
  git_tree* raw_subtree = nullptr;
  if (git_tree_lookup(&raw_subtree, repository_, git_tree_entry_id(entry.get())) != 0) {
    set(error, fmt::format("cannot read {} at {}: {}", folder, tree.revision(), last_git_error()));
    return false;
  }
  const TreePtr subtree(raw_subtree);
  MaterializeWalk walk{repository_, destination / folder, {}};
  if (git_tree_walk(subtree.get(), GIT_TREEWALK_PRE, write_entry, &walk) != 0) {
    set(error, walk.error.empty() ? last_git_error() : walk.error);
    return false;
  }
  return true;
}

std::string git_blob_id(std::string_view contents) {
  const LibraryUse library;
  git_oid id;
  git_odb_hash(&id, contents.data(), contents.size(), GIT_OBJECT_BLOB);
  char text[GIT_OID_HEXSZ + 1];
  git_oid_tostr(text, sizeof text, &id);
  return text;
}

}  // namespace gpugrade
