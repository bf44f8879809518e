// The poison prologue: PTX that fills shared memory before the learner's first instruction.
#include "harness/gpu/poison_prologue.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/gpu/gpu_backend.h"
#include "harness/gpu/job.h"
#include "tests/gpu_support.h"

namespace gpugrade {
namespace {

using namespace gpu_test;  // NOLINT: the shared kernels and helpers of tests/gpu_support.h

// The prologue of `entry` in instrumented PTX, from its marker to the entry's first learner instruction.
std::string prologue_of(const std::string& ptx, std::string_view entry_name) {
  size_t entry = ptx.find(fmt::format(".entry {}(", entry_name));
  size_t marker = ptx.find(gpu::kPoisonPrologueMarker, entry);
  size_t learner = ptx.find("ld.param", entry);
  if (entry == std::string::npos || marker == std::string::npos || learner < marker) return "";
  return ptx.substr(marker, learner - marker);
}

TEST(GpuPoison, PrologueAssemblesAndRunsBeforeTheLearnersFirstInstruction) {
  const Tools& tools = compiled();
  ASSERT_TRUE(tools.error.empty()) << tools.error;
  Loaded loaded = make_gpu_backend()->load(tools.ptx);
  ASSERT_TRUE(loaded.program);
  const std::string poisoned = poisoned_ptx(*loaded.program);

  // ptxas needs no GPU: the instrumented module must assemble for the H200.
  std::ofstream(tools.dir / "poisoned.ptx") << poisoned;
  const std::string command =
      fmt::format("'{}/ptxas' -arch=sm_90 -o '{}' '{}' > '{}' 2>&1",
                  fs::path(GPUGRADE_NVCC).parent_path().string(), (tools.dir / "poisoned.cubin").string(),
                  (tools.dir / "poisoned.ptx").string(), (tools.dir / "ptxas.log").string());
  EXPECT_EQ(std::system(command.c_str()), 0) << read_file(tools.dir / "ptxas.log");

  // Every entry gets one prologue, placed after the shared declarations and before the learner's code,
  // and it ends with the block-wide barrier.
  for (const KernelTraits& kernel : loaded.program->kernels()) {
    std::string prologue = prologue_of(poisoned, kernel.entry);
    ASSERT_FALSE(prologue.empty()) << kernel.entry;
    EXPECT_NE(prologue.find("bar.sync \t0;"), std::string::npos) << kernel.entry;
    EXPECT_EQ(prologue.find(".shared .align"), std::string::npos) << kernel.entry;
  }
  EXPECT_NE(prologue_of(poisoned, "_Z9transposePfPKfii").find("add.u32 \t%gg_r4, %gg_r3, 4224;"),
            std::string::npos);
  std::string unwritten = prologue_of(poisoned, "read_unwritten");
  EXPECT_NE(unwritten.find("add.u32 \t%gg_r4, %gg_r3, 1024;"), std::string::npos) << unwritten;
  EXPECT_NE(unwritten.find("mov.u32 \t%gg_r3, bias;"), std::string::npos) << unwritten;
  EXPECT_NE(prologue_of(poisoned, "read_dynamic").find("%dynamic_smem_size"), std::string::npos);
  // The untouched text survives around the prologues.
  EXPECT_EQ(poisoned.size() - tools.ptx.size(), [&] {
    size_t added = 0;
    for (size_t at = poisoned.find(gpu::kPoisonPrologueMarker); at != std::string::npos;
         at = poisoned.find(gpu::kPoisonPrologueMarker, at + 1)) {
      size_t end = poisoned.find("bar.sync \t0;\n", at) + std::strlen("bar.sync \t0;\n");
      added += end - (poisoned.rfind('\n', at) + 1);
    }
    return added;
  }());
}

TEST(GpuPoison, WordNamesTheBlockAndFillsByAddress) {
  EXPECT_EQ(poison_word(0), 0x7FC00001u);
  EXPECT_EQ(poison_word(41), 0x7FC0002Au);
  EXPECT_NE(poison_word(1), poison_word(2));
  EXPECT_TRUE(is_poison_word(poison_word(70000)));
  EXPECT_FALSE(is_poison_word(0x7FC00000u));  // the NaN that CPU float arithmetic produces
  EXPECT_FALSE(is_poison_word(0x3F800000u));  // 1.0f

  std::vector<std::byte> bytes(10);
  fill_poison(bytes, 2, poison_word(3));  // starts at byte 2 of a word
  uint32_t word = 0;
  std::memcpy(&word, bytes.data() + 2, 4);
  EXPECT_EQ(word, poison_word(3));
}

}  // namespace
}  // namespace gpugrade
