// The compile cache: keys that tell their parts apart, entries read back as written, and an entry that was
// cut short, altered or never written read as a miss; where the cache lives, from the environment.
#include "grader/compile/cache.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "os/file.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

// Sets environment variables for one test and puts back what was there.
class EnvironmentFor {
 public:
  void set(const char* name, const char* value) {
    const char* old = std::getenv(name);
    saved_.push_back({name, old != nullptr, old != nullptr ? old : ""});
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~EnvironmentFor() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->was_set)
        setenv(it->name.c_str(), it->value.c_str(), 1);
      else
        unsetenv(it->name.c_str());
    }
  }

 private:
  struct Saved {
    std::string name;
    bool was_set;
    std::string value;
  };
  std::vector<Saved> saved_;
};

ScratchDir scratch() {
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("cache-test", &error);
  if (!dir) throw std::runtime_error(error);
  return std::move(*dir);
}

TEST(Sha256, MatchesThePublishedTestVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CacheKey, IsSixtyFourLowercaseHexDigitsAndTheSameForTheSameParts) {
  const std::string key = CacheKey("nvcc-ptx 1").add("copy.cu").add("-arch=sm_80").hex();
  EXPECT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;
  EXPECT_EQ(CacheKey("nvcc-ptx 1").add("copy.cu").add("-arch=sm_80").hex(), key);
}

TEST(CacheKey, PartsSplitDifferentlyOrADifferentPurposeMakeDifferentKeys) {
  EXPECT_NE(CacheKey("p").add("ab").add("c").hex(), CacheKey("p").add("a").add("bc").hex());
  EXPECT_NE(CacheKey("p").add("").add("x").hex(), CacheKey("p").add("x").hex());
  EXPECT_NE(CacheKey("nvcc-ptx 1").add("x").hex(), CacheKey("nvcc-ptx 2").add("x").hex());
}

TEST(Cache, WhatIsPutIsGotBackUnderItsTwoDigitFolder) {
  ScratchDir dir = scratch();
  const Cache cache(dir.path() / "cache");
  const std::string key = CacheKey("test 1").add("a").hex();
  EXPECT_EQ(cache.get(key), std::nullopt);
  const std::string bytes("ptx\0\xff\n", 6);
  std::string error;
  ASSERT_TRUE(cache.put(key, bytes, &error)) << error;
  EXPECT_EQ(cache.get(key), bytes);
  EXPECT_EQ(cache.entry_path(key), dir.path() / "cache" / key.substr(0, 2) / key);
  // Nothing else is left in the entry's folder: the temporary file was renamed into place.
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(cache.entry_path(key).parent_path()))
    files.push_back(entry.path());
  EXPECT_EQ(files, std::vector<fs::path>{cache.entry_path(key)});
}

TEST(Cache, AnEntryStartsWithAHeaderHoldingThePayloadsChecksum) {
  ScratchDir dir = scratch();
  const Cache cache(dir.path());
  const std::string key = CacheKey("test 1").hex();
  std::string error;
  ASSERT_TRUE(cache.put(key, "payload", &error)) << error;
  EXPECT_EQ(read_file_bytes(cache.entry_path(key)),
            "gpugrade-cache 1 " + sha256_hex("payload") + "\npayload");
}

TEST(Cache, AnAlteredOrTruncatedEntryIsAMissAndTheNextPutReplacesIt) {
  ScratchDir dir = scratch();
  const Cache cache(dir.path());
  const std::string key = CacheKey("test 1").add("b").hex();
  std::string error;
  ASSERT_TRUE(cache.put(key, "the compiled ptx", &error)) << error;
  const std::string entry = read_file_bytes(cache.entry_path(key)).value();

  std::string altered = entry;
  altered.back() ^= 1;
  ASSERT_TRUE(write_file_bytes(cache.entry_path(key), altered));
  EXPECT_EQ(cache.get(key), std::nullopt);

  ASSERT_TRUE(write_file_bytes(cache.entry_path(key), entry.substr(0, 40)));
  EXPECT_EQ(cache.get(key), std::nullopt);

  std::string no_newline = entry;
  no_newline[17 + 64] = ' ';
  ASSERT_TRUE(write_file_bytes(cache.entry_path(key), no_newline));
  EXPECT_EQ(cache.get(key), std::nullopt);

  ASSERT_TRUE(write_file_bytes(cache.entry_path(key), "gpugrade-cache 2 " + entry.substr(17)));
  EXPECT_EQ(cache.get(key), std::nullopt);

  ASSERT_TRUE(cache.put(key, "the compiled ptx", &error)) << error;
  EXPECT_EQ(cache.get(key), "the compiled ptx");
}

TEST(Cache, AKeyThatIsNotAHexDigestIsNeitherReadNorWritten) {
  ScratchDir dir = scratch();
  const Cache cache(dir.path() / "cache");
  std::string error;
  EXPECT_FALSE(cache.put("../../etc/passwd", "x", &error));
  EXPECT_EQ(error, "not a cache key: ../../etc/passwd");
  const std::string upper(64, 'A');
  EXPECT_FALSE(cache.put(upper, "x", &error));
  EXPECT_EQ(error, "not a cache key: " + upper);
  EXPECT_EQ(cache.get("../../etc/passwd"), std::nullopt);
  EXPECT_FALSE(fs::exists(dir.path() / "cache"));
}

TEST(Cache, ACacheThatCannotBeCreatedSaysWhichFolderAndWhy) {
  ScratchDir dir = scratch();
  ASSERT_TRUE(write_file_bytes(dir.path() / "blocker", "a file where the cache should be"));
  const Cache cache(dir.path() / "blocker");
  const std::string key = CacheKey("test 1").hex();
  std::string error;
  EXPECT_FALSE(cache.put(key, "x", &error));
  EXPECT_EQ(error,
            "cannot create " + (dir.path() / "blocker" / key.substr(0, 2)).string() + ": Not a directory");
  EXPECT_EQ(cache.get(key), std::nullopt);
}

TEST(DefaultCacheDir, GpugradesOwnVariableComesFirstThenXdgThenHome) {
  EnvironmentFor env;
  env.set("GPUGRADE_CACHE_DIR", "/tmp/gg");
  env.set("XDG_CACHE_HOME", "/tmp/xdg");
  env.set("HOME", "/home/ada");
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/gg"));
  env.set("GPUGRADE_CACHE_DIR", "");
  EXPECT_EQ(default_cache_dir(), fs::path("/tmp/xdg/gpugrade"));
  env.set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(default_cache_dir(), fs::path("/home/ada/.cache/gpugrade"));
  env.set("HOME", nullptr);
  EXPECT_EQ(default_cache_dir(), fs::path());
}

}  // namespace
}  // namespace gpugrade
