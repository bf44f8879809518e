// make_backends: what each --backend choice gives, and the sentences a command prints when the choice
// cannot be met here. Nothing here needs a GPU: the choices that do are refused alike on any machine.
#include "harness/backends.h"

#include <gtest/gtest.h>

namespace gpugrade {
namespace {

TEST(Backends, ChoicesReadAsTheyAreSpelled) {
  for (const std::string& name : backend_choice_names()) {
    const std::optional<BackendChoice> choice = parse_backend_choice(name);
    ASSERT_TRUE(choice) << name;
    EXPECT_EQ(to_string(*choice), name);
  }
  EXPECT_FALSE(parse_backend_choice("cpu"));
}

TEST(Backends, TheSimulatorChecksEveryAccessUnlessAskedNotTo) {
  std::string error;
  std::optional<Backends> made = make_backends(BackendChoice::kSim, {}, &error);
  ASSERT_TRUE(made) << error;
  EXPECT_EQ(made->backend->name(), "sim");
  EXPECT_TRUE(made->backend->capabilities().checks_accesses);
  EXPECT_TRUE(made->backend->capabilities().follows_schedules);
  EXPECT_EQ(made->strict_simulator, nullptr);  // strict grading pairs a GPU with it, not the simulator
  EXPECT_TRUE(made->take_samples().is_null());
  std::unique_ptr<Backend> plain = make_backend(BackendChoice::kSim, {.checks = false}, &error);
  ASSERT_TRUE(plain) << error;
  EXPECT_FALSE(plain->capabilities().checks_accesses);
}

TEST(Backends, SampledAccessesStartEmpty) {
  std::string error;
  std::optional<Backends> made = make_backends(BackendChoice::kSim, {.sample_accesses = true}, &error);
  ASSERT_TRUE(made) << error;
  const nlohmann::json samples = made->take_samples();
  EXPECT_EQ(samples,
            nlohmann::json({{"shared", nlohmann::json::array()}, {"global", nlohmann::json::array()}}));
}

TEST(Backends, OptionsForAGpuAreRefusedOnTheSimulator) {
  std::string error;
  EXPECT_FALSE(make_backends(BackendChoice::kSim, {.sanitize = true}, &error));
  EXPECT_EQ(error,
            "--sanitize runs compute-sanitizer on a GPU; the simulator checks races and barriers on every "
            "run without it: drop --sanitize, or use --backend gpu");
  EXPECT_FALSE(make_backends(BackendChoice::kSim, {.gpu_only = true}, &error));
  EXPECT_EQ(error,
            "--gpu-only grades on a GPU without the simulator's pass, and this run uses the simulator: "
            "drop --gpu-only, or use --backend gpu on a machine with a GPU");
}

// On a machine with a GPU: the device, with strict grading's simulator beside it unless --gpu-only. Without
// one: a refusal that says why and what runs instead.
TEST(Backends, AGpuComesWithTheSimulatorsPassOrIsRefusedSayingWhy) {
  std::string error;
  std::optional<Backends> made = make_backends(BackendChoice::kGpu, {}, &error);
  if (!made) {
    EXPECT_TRUE(error.starts_with("--backend gpu: ")) << error;
    EXPECT_TRUE(error.ends_with(" (--backend sim runs anywhere)")) << error;
    return;
  }
  EXPECT_EQ(made->backend->name(), "gpu");
  EXPECT_TRUE(made->backend->capabilities().times_kernels);
  ASSERT_NE(made->strict_simulator, nullptr);
  EXPECT_TRUE(made->strict_simulator->capabilities().checks_accesses);
  std::optional<Backends> alone = make_backends(BackendChoice::kGpu, {.gpu_only = true}, &error);
  ASSERT_TRUE(alone) << error;
  EXPECT_EQ(alone->strict_simulator, nullptr);
}

}  // namespace
}  // namespace gpugrade
