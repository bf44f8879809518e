// A throwaway git repository for tests, made with libgit2 in a scratch folder: write files, commit,
// clone it bare. Failures stop the test with libgit2's message.
#pragma once

#include <git2.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
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
    git_oid head_id;
    const bool has_head = git_reference_name_to_id(&head_id, repository_, "HEAD") == 0;
    return commit_index(message, has_head ? &head_id : nullptr, "HEAD");
  }

  // Commits the index on top of `parent` (a commit id) without moving HEAD: a branch that went its own way.
  std::string commit_onto(const std::string& parent, const std::string& message) {
    git_oid parent_id;
    check(git_oid_fromstr(&parent_id, parent.c_str()), "parent id");
    return commit_index(message, &parent_id, nullptr);
  }

  // Stages at `path` a loose blob whose header says `size` zero bytes (a multiple of 1 MiB), without ever
  // holding them: one compressed MiB of zeros, ended by a full flush so that it stands alone, is written
  // size / 1 MiB times (5 GiB take 5 MB on disk). Its id is not the hash of its contents, which would take
  // seconds to compute: nothing that sizes a blob, or refuses it for its size, reads them.
  void stage_zero_blob(const std::string& path, uint64_t size) {
    constexpr size_t kPiece = size_t{1} << 20;
    const std::string header = "blob " + std::to_string(size) + std::string(1, '\0');
    z_stream z{};
    deflateInit(&z, Z_BEST_SPEED);
    const auto squeeze = [&](const std::string& in, int flush) {
      std::string out(deflateBound(&z, in.size()) + 64, '\0');
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
      z.avail_in = static_cast<uInt>(in.size());
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      deflate(&z, flush);
      out.resize(out.size() - z.avail_out);
      return out;
    };
    const std::string start = squeeze(header, Z_FULL_FLUSH);
    const std::string piece = squeeze(std::string(kPiece, '\0'), Z_FULL_FLUSH);
    std::string end = squeeze("", Z_FINISH);
    deflateEnd(&z);
    uLong piece_adler = adler32(1, reinterpret_cast<const Bytef*>(std::string(kPiece, '\0').data()), kPiece);
    uLong adler = adler32(1, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size()));
    for (uint64_t i = 0; i < size / kPiece; ++i) adler = adler32_combine(adler, piece_adler, kPiece);
    end.resize(end.size() - 4);  // the checksum zlib computed covers one piece; the stream holds them all
    for (int shift = 24; shift >= 0; shift -= 8) end += static_cast<char>((adler >> shift) & 0xFF);

    git_oid id;
    const std::string stand_in = "zero blob " + std::to_string(size);
    check(git_odb_hash(&id, stand_in.data(), stand_in.size(), GIT_OBJECT_BLOB), "hash");
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &id);
    const std::filesystem::path object = work_tree() / ".git/objects" / std::string(hex, 2) / (hex + 2);
    std::filesystem::create_directories(object.parent_path());
    std::ofstream out(object, std::ios::binary);
    out << start;
    for (uint64_t i = 0; i < size / kPiece; ++i) out << piece;
    out << end;
    out.close();
    with_index(
        [&](git_index* index) {
          git_index_entry entry{};
          entry.mode = GIT_FILEMODE_BLOB;
          entry.id = id;
          entry.path = path.c_str();
          return git_index_add(index, &entry);
        },
        "add " + path);
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

  std::string commit_index(const std::string& message, const git_oid* parent_id, const char* update_ref) {
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
    if (parent_id != nullptr) check(git_commit_lookup(&parent, repository_, parent_id), "parent");
    const git_commit* parents[] = {parent};
    git_oid commit_id;
    check(git_commit_create(&commit_id, repository_, update_ref, author, author, nullptr, message.c_str(),
                            tree, parent != nullptr ? 1 : 0, parents),
          "commit");
    git_commit_free(parent);
    git_signature_free(author);
    git_tree_free(tree);
    char text[GIT_OID_HEXSZ + 1];
    git_oid_tostr(text, sizeof text, &commit_id);
    return text;
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
