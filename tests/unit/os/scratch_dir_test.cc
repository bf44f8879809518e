// A scratch folder is new, named after its purpose, and gone with everything in it when its owner is;
// a moved-from folder removes nothing.
#include "os/scratch_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <utility>

#include "os/file.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

TEST(ScratchDir, IsAFreshFolderNamedAfterItsPurposeAndGoesWithItsContents) {
  fs::path kept;
  {
    std::string error;
    auto first = ScratchDir::create("scratch-test", &error);
    auto second = ScratchDir::create("scratch-test", &error);
    ASSERT_TRUE(first && second) << error;
    EXPECT_NE(first->path(), second->path());
    EXPECT_NE(first->path().filename().string().find("scratch-test"), std::string::npos);
    EXPECT_TRUE(fs::is_directory(first->path()));
    EXPECT_TRUE(fs::is_empty(first->path()));
    fs::create_directories(first->path() / "deep" / "er");
    ASSERT_TRUE(write_file_bytes(first->path() / "deep" / "er" / "file", "x"));
    kept = first->path();
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(ScratchDir, AMovedFolderIsRemovedOnceByItsNewOwner) {
  std::string error;
  auto made = ScratchDir::create("scratch-test", &error);
  ASSERT_TRUE(made) << error;
  const fs::path path = made->path();
  {
    ScratchDir owner = std::move(*made);
    made.reset();  // the moved-from folder removes nothing
    EXPECT_TRUE(fs::is_directory(path));
    EXPECT_EQ(owner.path(), path);
  }
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace gpugrade
