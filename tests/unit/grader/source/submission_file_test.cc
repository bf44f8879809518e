// Reading a learner's file: a regular file within its bound is read whole; a folder, a FIFO, a device, a file
// too large or a link out of its folder is refused with a sentence that names the path and what to do.
#include "grader/source/submission_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "os/file.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

ScratchDir scratch() {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("submission-file-test", &error);
  if (!dir) throw std::runtime_error(error);
  return std::move(*dir);
}

TEST(SubmissionFile, ARegularFileIsReadByteForByte) {
  ScratchDir dir = scratch();
  const std::string bytes("__global__ void k() {}\n\0\xff", 25);
  ASSERT_TRUE(write_file_bytes(dir.path() / "copy.cu", bytes));
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "copy.cu", "copy.cu", &error), bytes);
  EXPECT_EQ(error, "");
}

TEST(SubmissionFile, AMissingFileNamesThePathAsTheUserGaveIt) {
  ScratchDir dir = scratch();
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "nope.cu", "src/nope.cu", &error), std::nullopt);
  EXPECT_EQ(error, "the submission src/nope.cu cannot be read: No such file or directory");
}

TEST(SubmissionFile, AFolderIsRefusedAsNotAFile) {
  ScratchDir dir = scratch();
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path(), "src", &error), std::nullopt);
  EXPECT_EQ(error, "the submission src is a folder, not a file; give the path of the kernel's .cu file");
}

TEST(SubmissionFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  ScratchDir dir = scratch();
  ASSERT_EQ(mkfifo((dir.path() / "pipe.cu").c_str(), 0600), 0);
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "pipe.cu", "pipe.cu", &error), std::nullopt);
  EXPECT_EQ(
      error,
      "the submission pipe.cu is a FIFO (named pipe), not a file; give the path of the kernel's .cu file");
}

TEST(SubmissionFile, ADeviceThatNeverEndsIsRefused) {
  std::string error;
  EXPECT_EQ(read_submission_file("/dev/zero", "/dev/zero", &error), std::nullopt);
  EXPECT_EQ(error,
            "the submission /dev/zero is a character device, not a file; give the path of the kernel's .cu "
            "file");
}

TEST(SubmissionFile, AFileOverOneMebibyteSaysItsSizeAndTheBound) {
  ScratchDir dir = scratch();
  ASSERT_TRUE(write_file_bytes(dir.path() / "big.cu", std::string(kMaxSubmissionBytes + 1, 'x')));
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "big.cu", "big.cu", &error), std::nullopt);
  EXPECT_EQ(error,
            "the submission big.cu is 1048577 bytes; a submission may be at most 1048576 bytes (1 MiB): is "
            "it the right file?");
  ASSERT_TRUE(write_file_bytes(dir.path() / "max.cu", std::string(kMaxSubmissionBytes, 'x')));
  EXPECT_EQ(read_submission_file(dir.path() / "max.cu", "max.cu", &error)->size(), kMaxSubmissionBytes);
}

TEST(SubmissionFile, ALinkWithinItsFolderIsFollowed) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "sub");
  ASSERT_TRUE(write_file_bytes(dir.path() / "sub" / "real.cu", "kernel"));
  fs::create_symlink("sub/real.cu", dir.path() / "link.cu");
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "link.cu", "link.cu", &error), "kernel") << error;
}

TEST(SubmissionFile, ALinkOutOfItsFolderIsRefusedNamingItsTarget) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "student");
  ASSERT_TRUE(write_file_bytes(dir.path() / "secret.cu", "answer key"));
  fs::create_symlink("../secret.cu", dir.path() / "student" / "copy.cu");
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "student" / "copy.cu", "copy.cu", &error), std::nullopt);
  EXPECT_EQ(error, "the submission copy.cu is a symbolic link to " +
                       fs::canonical(dir.path() / "secret.cu").string() +
                       ", outside its folder; copy the file there instead of linking to it");
}

TEST(SubmissionFile, ALinkThatLeadsNowhereSaysSo) {
  ScratchDir dir = scratch();
  fs::create_symlink("gone.cu", dir.path() / "copy.cu");
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "copy.cu", "copy.cu", &error), std::nullopt);
  EXPECT_EQ(error,
            "the submission copy.cu is a symbolic link that leads nowhere (No such file or directory); give "
            "the path of the .cu file itself");
}

TEST(SubmissionFile, InvalidUtf8InTheShownNameIsEscaped) {
  ScratchDir dir = scratch();
  std::string error;
  EXPECT_EQ(read_submission_file(dir.path() / "x.cu", "caf\xE9.cu", &error), std::nullopt);
  EXPECT_EQ(error, "the submission caf\\xE9.cu cannot be read: No such file or directory");
}

TEST(NamedFile, ALinkIsFollowedAsTheUserMeantIt) {
  ScratchDir dir = scratch();
  ASSERT_TRUE(write_file_bytes(dir.path() / "roster.csv", "id\nada\n"));
  fs::create_symlink(dir.path() / "roster.csv", dir.path() / "link.csv");
  const FolderFile read = read_named_file(dir.path() / "link.csv", 100);
  EXPECT_EQ(read.status, FolderFile::Status::kRead);
  EXPECT_EQ(read.bytes, "id\nada\n");
}

TEST(NamedFile, AFileOverTheBoundIsTooLargeWithItsSizeAndNoBytes) {
  ScratchDir dir = scratch();
  ASSERT_TRUE(write_file_bytes(dir.path() / "roster.csv", std::string(101, 'r')));
  const FolderFile read = read_named_file(dir.path() / "roster.csv", 100);
  EXPECT_EQ(read.status, FolderFile::Status::kTooLarge);
  EXPECT_EQ(read.size, 101u);
  EXPECT_EQ(read.bytes, "");
  EXPECT_EQ(read_named_file(dir.path() / "absent.csv", 100).status, FolderFile::Status::kAbsent);
}

TEST(FileBelow, AFileInNestedFoldersIsRead) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "ada" / "src");
  ASSERT_TRUE(write_file_bytes(dir.path() / "ada" / "src" / "copy.cu", "kernel"));
  const FolderFile read = read_file_below(dir.path() / "ada", "src/copy.cu");
  EXPECT_EQ(read.status, FolderFile::Status::kRead);
  EXPECT_EQ(read.bytes, "kernel");
  EXPECT_EQ(read.size, 6u);
}

TEST(FileBelow, ALinkAsTheFileOrAsAFolderOnTheWayIsNeverFollowed) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "ada");
  fs::create_directories(dir.path() / "elsewhere");
  ASSERT_TRUE(write_file_bytes(dir.path() / "elsewhere" / "copy.cu", "someone else's"));
  fs::create_symlink(dir.path() / "elsewhere" / "copy.cu", dir.path() / "ada" / "copy.cu");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "ada" / "src");
  const FolderFile file_link = read_file_below(dir.path() / "ada", "copy.cu");
  EXPECT_EQ(file_link.status, FolderFile::Status::kLink);
  EXPECT_EQ(file_link.bytes, "");
  const FolderFile folder_link = read_file_below(dir.path() / "ada", "src/copy.cu");
  EXPECT_EQ(folder_link.status, FolderFile::Status::kLink);
  EXPECT_EQ(folder_link.bytes, "");
}

TEST(FileBelow, MissingFilesFoldersAndAFileInPlaceOfAFolderAreAbsent) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "ada");
  ASSERT_TRUE(write_file_bytes(dir.path() / "ada" / "src", "a file, not a folder"));
  EXPECT_EQ(read_file_below(dir.path() / "ada", "copy.cu").status, FolderFile::Status::kAbsent);
  EXPECT_EQ(read_file_below(dir.path() / "ada", "lib/copy.cu").status, FolderFile::Status::kAbsent);
  EXPECT_EQ(read_file_below(dir.path() / "ada", "src/copy.cu").status, FolderFile::Status::kAbsent);
  EXPECT_EQ(read_file_below(dir.path() / "bob", "copy.cu").status, FolderFile::Status::kAbsent);
}

TEST(FileBelow, AFolderOrAFifoWhereTheFileShouldBeIsNotRegularAndSaysWhatItIs) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "ada" / "copy.cu");
  ASSERT_EQ(mkfifo((dir.path() / "ada" / "pipe.cu").c_str(), 0600), 0);
  const FolderFile folder = read_file_below(dir.path() / "ada", "copy.cu");
  EXPECT_EQ(folder.status, FolderFile::Status::kNotRegular);
  EXPECT_EQ(folder.why, "a folder");
  const FolderFile fifo = read_file_below(dir.path() / "ada", "pipe.cu");
  EXPECT_EQ(fifo.status, FolderFile::Status::kNotRegular);
  EXPECT_EQ(fifo.why, "a FIFO (named pipe)");
}

TEST(FileBelow, AFileOverItsBoundIsTooLargeWithItsSize) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "ada");
  ASSERT_TRUE(write_file_bytes(dir.path() / "ada" / "copy.cu", std::string(11, 'x')));
  const FolderFile read = read_file_below(dir.path() / "ada", "copy.cu", 10);
  EXPECT_EQ(read.status, FolderFile::Status::kTooLarge);
  EXPECT_EQ(read.size, 11u);
  EXPECT_EQ(read.bytes, "");
  EXPECT_EQ(read_file_below(dir.path() / "ada", "copy.cu", 11).bytes, std::string(11, 'x'));
}

}  // namespace
}  // namespace gpugrade
