// Whole files as bytes: what is written is read back byte for byte (NUL and invalid UTF-8 included), a
// missing or unreadable path is nullopt, and a write that cannot happen says so.
#include "os/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

TEST(File, WrittenBytesAreReadBackExactly) {
  std::string error;
  auto dir = ScratchDir::create("file-test", &error);
  ASSERT_TRUE(dir) << error;
  const std::string bytes("line\r\n\0\xff\xfe tail", 14);
  ASSERT_TRUE(write_file_bytes(dir->path() / "a.cu", bytes));
  EXPECT_EQ(read_file_bytes(dir->path() / "a.cu"), bytes);
  ASSERT_TRUE(write_file_bytes(dir->path() / "a.cu", "short"));  // truncates what was there
  EXPECT_EQ(read_file_bytes(dir->path() / "a.cu"), "short");
  ASSERT_TRUE(write_file_bytes(dir->path() / "empty", ""));
  EXPECT_EQ(read_file_bytes(dir->path() / "empty"), "");
}

TEST(File, MissingFoldersAndUnwritablePathsAreRefused) {
  std::string error;
  auto dir = ScratchDir::create("file-test", &error);
  ASSERT_TRUE(dir) << error;
  EXPECT_EQ(read_file_bytes(dir->path() / "nothing-here"), std::nullopt);
  EXPECT_FALSE(write_file_bytes(dir->path() / "no-folder" / "a.cu", "x"));
}

TEST(File, AFileWithoutReadPermissionIsNullopt) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads every file whatever its permissions";
  std::string error;
  auto dir = ScratchDir::create("file-test", &error);
  ASSERT_TRUE(dir) << error;
  ASSERT_TRUE(write_file_bytes(dir->path() / "secret", "x"));
  fs::permissions(dir->path() / "secret", fs::perms::none);
  EXPECT_EQ(read_file_bytes(dir->path() / "secret"), std::nullopt);
}

}  // namespace
}  // namespace gpugrade
