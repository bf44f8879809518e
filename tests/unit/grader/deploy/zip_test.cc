// The grader's zip archives: read back with unzip and with a reader of the format's records written here from
// APPNOTE.TXT (names, sizes, CRC-32s by zlib, Unix modes), the same folder giving the same bytes, and a
// folder or an archive that cannot be used named in the error.
#include "grader/deploy/zip.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/write_tree.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::write;

std::string read(const fs::path& path) {
  return read_file_bytes(path).value_or("<missing " + path.string() + ">");
}

TEST(DeployZip, ArchiveUnpacksWithItsFilesAndModes) {
  std::string error;
  std::optional<ScratchDir> scratch = ScratchDir::create("zip-test", &error);
  ASSERT_TRUE(scratch) << error;
  write(scratch->path() / "in/run", "#!/bin/sh\necho hi\n");
  fs::permissions(scratch->path() / "in/run", fs::perms(0755));
  write(scratch->path() / "in/sub/data.txt", std::string(70000, 'x') + "end");
  write(scratch->path() / "in/empty", "");
  ASSERT_TRUE(write_zip(scratch->path() / "in", scratch->path() / "a.zip", &error)) << error;
  std::optional<std::string> unzip = find_program("unzip");
  if (!unzip) GTEST_SKIP() << "unzip is not installed";
  ProcessResult r = run_process(
      {*unzip, "-q", (scratch->path() / "a.zip").string(), "-d", (scratch->path() / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(read(scratch->path() / "out/sub/data.txt"), std::string(70000, 'x') + "end");
  EXPECT_EQ(read(scratch->path() / "out/empty"), "");
  struct stat info {};
  ASSERT_EQ(stat((scratch->path() / "out/run").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0755u);
  r = run_process({*unzip, "-t", (scratch->path() / "a.zip").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

// One file of an archive as its central directory and its local header say it.
struct ZipEntry {
  std::string name;
  uint32_t crc = 0;
  uint32_t compressed_size = 0, size = 0;
  uint16_t method = 0;
  uint32_t unix_mode = 0;  // the high half of the external attributes
  std::string bytes;       // read at the local header's offset
};

uint32_t le(const std::string& zip, size_t at, int bytes) {
  uint32_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<unsigned char>(zip.at(at + i));
  return value;
}

// The entries of `zip`, or a sentence saying which record is broken.
std::vector<ZipEntry> entries_of(const std::string& zip, std::string* problem) {
  std::vector<ZipEntry> entries;
  if (zip.size() < 22 || le(zip, zip.size() - 22, 4) != 0x06054b50) {
    *problem = "no end of central directory record in the last 22 bytes";
    return entries;
  }
  const size_t end = zip.size() - 22;
  const uint32_t count = le(zip, end + 10, 2);
  if (le(zip, end + 8, 2) != count) *problem = "the two entry counts differ";
  size_t at = le(zip, end + 16, 4);
  if (at + le(zip, end + 12, 4) != end)
    *problem = "the central directory does not end where the end record is";
  for (uint32_t i = 0; i < count; ++i) {
    if (le(zip, at, 4) != 0x02014b50) {
      *problem = "central directory record " + std::to_string(i) + " has no signature";
      return entries;
    }
    ZipEntry e;
    e.method = static_cast<uint16_t>(le(zip, at + 10, 2));
    e.crc = le(zip, at + 16, 4);
    e.compressed_size = le(zip, at + 20, 4);
    e.size = le(zip, at + 24, 4);
    const uint32_t name_length = le(zip, at + 28, 2), extra = le(zip, at + 30, 2),
                   comment = le(zip, at + 32, 2);
    e.unix_mode = le(zip, at + 38, 4) >> 16;
    const uint32_t local = le(zip, at + 42, 4);
    e.name = zip.substr(at + 46, name_length);
    at += 46 + name_length + extra + comment;
    if (le(zip, local, 4) != 0x04034b50 || zip.substr(local + 30, le(zip, local + 26, 2)) != e.name ||
        le(zip, local + 14, 4) != e.crc) {
      *problem = "the local header of " + e.name + " does not match its directory record";
      return entries;
    }
    e.bytes = zip.substr(local + 30 + le(zip, local + 26, 2) + le(zip, local + 28, 2), e.compressed_size);
    entries.push_back(std::move(e));
  }
  return entries;
}

uint32_t zlib_crc(const std::string& bytes) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

ScratchDir scratch() {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("zip-test", &error);
  if (!dir) throw std::runtime_error(error);
  return std::move(*dir);
}

TEST(DeployZip, EachFileIsStoredUnderItsRelativeNameInNameOrderWithItsCrcAndMode) {
  ScratchDir dir = scratch();
  write(dir.path() / "in/setup.sh", "#!/bin/sh\n");
  fs::permissions(dir.path() / "in/setup.sh", fs::perms(0750));
  write(dir.path() / "in/lib/a b.so", std::string("\x7f"
                                                  "ELF\0\1\2",
                                                  7));
  write(dir.path() / "in/exercises/copy/copy.yaml", "id: copy\n");
  fs::permissions(dir.path() / "in/exercises/copy/copy.yaml", fs::perms(0644));
  std::string error;
  ASSERT_TRUE(write_zip(dir.path() / "in", dir.path() / "a.zip", &error)) << error;
  std::string problem;
  const std::vector<ZipEntry> entries = entries_of(read(dir.path() / "a.zip"), &problem);
  ASSERT_EQ(problem, "");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].name, "exercises/copy/copy.yaml");
  EXPECT_EQ(entries[1].name, "lib/a b.so");
  EXPECT_EQ(entries[2].name, "setup.sh");
  for (const ZipEntry& e : entries) {
    const std::string original = read(dir.path() / "in" / e.name);
    EXPECT_EQ(e.method, 0) << e.name << " is stored, not compressed";
    EXPECT_EQ(e.size, original.size()) << e.name;
    EXPECT_EQ(e.compressed_size, original.size()) << e.name;
    EXPECT_EQ(e.bytes, original) << e.name;
    EXPECT_EQ(e.crc, zlib_crc(original)) << e.name;
  }
  EXPECT_EQ(entries[0].unix_mode, 0100644u);  // a regular file's type bits and its permissions
  EXPECT_EQ(entries[2].unix_mode, 0100750u);
}

TEST(DeployZip, LinksAndEmptyFoldersAreLeftOut) {
  ScratchDir dir = scratch();
  write(dir.path() / "secret", "outside the folder");
  write(dir.path() / "in/run", "x");
  fs::create_symlink(dir.path() / "secret", dir.path() / "in/link");
  fs::create_directories(dir.path() / "in/empty");
  std::string error;
  ASSERT_TRUE(write_zip(dir.path() / "in", dir.path() / "a.zip", &error)) << error;
  std::string problem;
  const std::vector<ZipEntry> entries = entries_of(read(dir.path() / "a.zip"), &problem);
  ASSERT_EQ(problem, "");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].name, "run");
}

TEST(DeployZip, AnEmptyFolderIsAValidEmptyArchive) {
  ScratchDir dir = scratch();
  fs::create_directories(dir.path() / "in");
  std::string error;
  ASSERT_TRUE(write_zip(dir.path() / "in", dir.path() / "a.zip", &error)) << error;
  std::string problem;
  EXPECT_EQ(entries_of(read(dir.path() / "a.zip"), &problem).size(), 0u);
  EXPECT_EQ(problem, "");
  EXPECT_EQ(read(dir.path() / "a.zip").size(), 22u);
}

TEST(DeployZip, TheSameFilesGiveTheSameBytesWhateverTheirTimes) {
  ScratchDir dir = scratch();
  write(dir.path() / "in/b", "bee");
  write(dir.path() / "in/a/c", "sea");
  std::string error;
  ASSERT_TRUE(write_zip(dir.path() / "in", dir.path() / "first.zip", &error)) << error;
  fs::last_write_time(dir.path() / "in/b", fs::last_write_time(dir.path() / "in/b") - std::chrono::hours(48));
  ASSERT_TRUE(write_zip(dir.path() / "in", dir.path() / "second.zip", &error)) << error;
  EXPECT_EQ(read(dir.path() / "first.zip"), read(dir.path() / "second.zip"));
}

TEST(DeployZip, AFolderThatIsNotThereIsNamedInTheError) {
  ScratchDir dir = scratch();
  std::string error;
  EXPECT_FALSE(write_zip(dir.path() / "absent", dir.path() / "a.zip", &error));
  EXPECT_EQ(error, "cannot list " + (dir.path() / "absent").string() + ": No such file or directory");
  EXPECT_FALSE(fs::exists(dir.path() / "a.zip"));
}

TEST(DeployZip, AnArchiveThatCannotBeWrittenIsNamedInTheError) {
  ScratchDir dir = scratch();
  write(dir.path() / "in/run", "x");
  std::string error;
  EXPECT_FALSE(write_zip(dir.path() / "in", dir.path() / "no-folder" / "a.zip", &error));
  EXPECT_EQ(error, "cannot write " + (dir.path() / "no-folder" / "a.zip").string());
}

}  // namespace
}  // namespace gpugrade
