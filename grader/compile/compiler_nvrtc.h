// The compile step through NVRTC, in a compile worker process started once per grader, with nvcc behind it:
// a source NVRTC refuses is compiled again by nvcc, and nvcc's findings are the ones reported, so a learner
// reads the same compile errors whichever compiler is chosen (`--compiler nvcc|nvrtc`).
#pragma once

#include <cstdint>
#include <string>

#include "grader/compile/compile_worker.h"
#include "grader/compile/compiler.h"

namespace gpugrade {

class NvrtcCompiler : public Compiler {
 public:
  // `worker_program` is gpugrade-compile-worker; `fallback` (nvcc) compiles what NVRTC refuses;
  // `cuda_include_dir` is offered to NVRTC for the CUDA headers the screen allows (cuda_fp16.h, mma.h...).
  NvrtcCompiler(std::string worker_program, Compiler& fallback, std::string cuda_include_dir);

  // Starts the worker now, so that it loads NVRTC while the caller prepares; false with *error when it
  // cannot.
  bool start(std::string* error);
  CompileOutput compile(const CompileRequest& request) override;
  std::string identity() const override;
  // NVRTC has no preprocessor output of its own: nvcc's stands for both (they preprocess alike).
  std::optional<std::string> preprocess(const CompileRequest& request) override {
    return fallback_.preprocess(request);
  }

 private:
  CompileWorker worker_;
  Compiler& fallback_;
  std::string cuda_include_dir_;
  std::string identity_;
};

// The CUDA toolkit's include folder beside nvcc (nvcc_path/../../include).
std::string cuda_include_dir_of(const std::string& nvcc_path);

}  // namespace gpugrade
