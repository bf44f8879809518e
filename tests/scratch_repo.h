// A throwaway git repository for tests, made with libgit2 in a scratch folder: write files, commit,
// clone it bare. Failures stop the test with libgit2's message.
#pragma once

#include <git2.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "os/scratch_dir.h"

namespace gpugrade::testing {

class ScratchRepo {
 public:
  ScratchRepo() : dir_(make_dir()) {
    git_libgit2_init();
    check(git_repository_init(&repository_, work_tree().c_str(), 0), "git init");
  }
  ScratchRepo(const ScratchRepo&) = delete;
  ScratchRepo& operator=(const ScratchRepo&) = delete;
  ~ScratchRepo() {
    git_repository_free(repository_);
    git_libgit2_shutdown();
  }

  std::filesystem::path work_tree() const { return dir_.path() / "work"; }
  std::filesystem::path root() const { return dir_.path(); }

  void write(const std::string& path, const std::string& contents) {
    const std::filesystem::path file = work_tree() / path;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << contents;
    with_index([&](git_index* index) { return git_index_add_bypath(index, path.c_str()); }, "add " + path);
  }

  void remove(const std::string& path) {
    std::filesystem::remove(work_tree() / path);
    with_index([&](git_index* index) { return git_index_remove_bypath(index, path.c_str()); }, "rm " + path);
  }

  void rename(const std::string& from, const std::string& to) {
    std::ifstream in(work_tree() / from, std::ios::binary);
    const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    remove(from);
    write(to, contents);
  }

  // Commits the index on top of HEAD and returns the new commit's id.
  std::string commit(const std::string& message) {
    git_index* index = nullptr;
    check(git_repository_index(&index, repository_), "index");
    git_oid tree_id;
    check(git_index_write_tree(&tree_id, index), "write-tree");
    git_index_free(index);
    git_tree* tree = nullptr;
    check(git_tree_lookup(&tree, repository_, &tree_id), "tree");
    git_signature* author = nullptr;
    check(git_signature_new(&author, "Student", "student@example.com", 1764417600, 0), "signature");
    git_commit* parent = nullptr;
    git_oid head_id;
    if (git_reference_name_to_id(&head_id, repository_, "HEAD") == 0) {
      check(git_commit_lookup(&parent, repository_, &head_id), "parent");
    }
    const git_commit* parents[] = {parent};
    git_oid commit_id;
    check(git_commit_create(&commit_id, repository_, "HEAD", author, author, nullptr, message.c_str(), tree,
                            parent != nullptr ? 1 : 0, parents),
          "commit");
    git_commit_free(parent);
    git_signature_free(author);
    git_tree_free(tree);
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, &commit_id);
    return text;
  }

  // Clones the repository without a work tree, as CI systems often do; returns the clone's path.
  std::filesystem::path clone_bare() {
    const std::filesystem::path target = dir_.path() / "bare.git";
    git_clone_options options = GIT_CLONE_OPTIONS_INIT;
    options.bare = 1;
    git_repository* clone = nullptr;
    check(git_clone(&clone, work_tree().c_str(), target.c_str(), &options), "clone --bare");
    git_repository_free(clone);
    return target;
  }

 private:
  static ScratchDir make_dir() {
    std::string error;
    std::optional<ScratchDir> dir = ScratchDir::create("test-repo", &error);
    if (!dir) throw std::runtime_error(error);
    return std::move(*dir);
  }

  static void check(int code, const std::string& what) {
    if (code == 0) return;
    const git_error* error = git_error_last();
    throw std::runtime_error(what + ": " + (error != nullptr ? error->message : "failed"));
  }

  template <typename Edit>
  void with_index(Edit edit, const std::string& what) {
    git_index* index = nullptr;
    check(git_repository_index(&index, repository_), "index");
    const int code = edit(index);
    if (code == 0) check(git_index_write(index), "write index");
    git_index_free(index);
    check(code, what);
  }

  ScratchDir dir_;
  git_repository* repository_ = nullptr;
};

}  // namespace gpugrade::testing
