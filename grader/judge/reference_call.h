// How the grader calls an exercise's reference.cpp: the plain call of format 1 (the kernel's parameter
// list), and format 2's opt-in extras that need C++ around the reference: a last parameter
// `const gpugrade::Launch& launch` (the variant's defines and the launch's shape), and generator functions
// that fill an input (`init: {generator: make_keys}`).
//
// The reference of a kernel that takes float2, float4 or __half goes the same way: the generated file
// defines them for the host (structs of floats with CUDA's alignment; __half is _Float16).
//
// Both are built as a small generated C++ file that declares gpugrade::Launch, includes the reference, and
// calls it; ReferenceRunner builds and runs that file like any reference, so how it runs (in or out of the
// grader's process) is decided in one place. The Launch travels as one more buffer of plain bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grader/compile/cache.h"
#include "grader/exercise/exercise.h"
#include "grader/judge/reference.h"

namespace gpugrade {

// The reference of `exercise`, built (or taken from `cache`). *error is a configuration error.
std::optional<ReferenceRunner> build_reference(const Exercise& exercise, const Cache& cache,
                                               std::string* error);

// Builds the references of `exercises` into `cache`, `threads` at a time, and keeps nothing else: a course's
// first `grade --all` spends most of its time in the host compiler, one reference after another, where the
// grades that follow then take each from the cache. A reference that does not build is left for its grade
// to report.
void prebuild_references(const std::vector<Exercise>& exercises, const Cache& cache, unsigned threads);

// Runs the reference on `buffers` (which it changes in place) with shape.reference_args; adds and then
// removes the Launch buffer when the exercise asks for it.
bool run_reference(const ReferenceRunner& reference, const Exercise& exercise, const Variant& variant,
                   const LaunchShape& shape, std::vector<Buffer>& buffers, std::string* error,
                   std::vector<std::string>* printed = nullptr);

// One grade's calls of its reference, each distinct call made once. The reference is a function of its
// arguments and buffers (the exercise format's contract: it computes the expected output), and a grade
// calls it with the same inputs many times: every variant at each size when the reference does not see the
// launch, and in strict GPU grading the simulator's and the GPU's run of each variant and size. Each call
// is a child process that also copies the buffers both ways, which cost a grade on the simulator more than
// the simulator's own runs. A call whose arguments and input bytes equal a kept one's gets its outputs;
// kept inputs and outputs are bounded (kMaxBytes), past which calls just run.
class ReferenceRuns {
 public:
  explicit ReferenceRuns(const ReferenceRunner& reference) : reference_(reference) {}

  // As run_reference; `buffers` ends as the reference left it.
  bool run(const Exercise& exercise, const Variant& variant, const LaunchShape& shape,
           std::vector<Buffer>& buffers, std::string* error, std::vector<std::string>* printed = nullptr);

  size_t calls() const { return calls_; }  // children started

 private:
  static constexpr uint64_t kMaxBytes = uint64_t{512} << 20;
  struct Kept {
    std::string variant;  // only where the reference sees the launch (its defines and shape)
    std::vector<KernelArg> args;
    std::vector<Buffer> inputs, outputs;
    std::vector<std::string> printed;
  };
  const ReferenceRunner& reference_;
  std::vector<Kept> kept_;
  uint64_t kept_bytes_ = 0;
  size_t calls_ = 0;
};

// A generator of the reference file, for a buffer of `type` with `init: {generator: NAME}`: called as
// NAME(T* data, long long count, unsigned long long seed) with T the buffer's C type.
std::optional<ReferenceRunner> build_generator(const Exercise& exercise, ElementType type,
                                               const std::string& function, const Cache& cache,
                                               std::string* error);

// Fills `buffer` (already sized and zeroed) by running its generator.
bool run_generator(const ReferenceRunner& generator, Buffer& buffer, uint64_t seed, std::string* error);

}  // namespace gpugrade
