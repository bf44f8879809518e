// The reference runner: the exercise's reference.cpp (a plain C++ function with the kernel's parameter list),
// built once into a program with a generated main, and run in a child process of its own, with time and
// memory limits, on each launch's buffers. The reference is the instructor's code, but a careless one can
// crash, loop forever or call exit(); none of that may take the grader down or end a grade with exit 0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grader/compile/cache.h"
#include "harness/backend.h"
#include "os/scratch_dir.h"

namespace gpugrade {

// Limits of one call of the reference (one child process).
struct ReferenceLimits {
  double seconds = 30;                        // wall clock
  uint64_t memory_bytes = uint64_t{4} << 30;  // address space, besides twice the buffers' bytes
};

struct ReferenceParam {
  std::string type;        // the C++ type, as the exercise writes it: "const float*", "int"
  bool is_buffer = false;  // a pointer to one of the launch's buffers; else a scalar of at most 64 bits
};

// The host C++ compiler references are built with: $CXX, else c++ on $PATH. nullopt with *error when
// there is none.
std::optional<std::string> host_compiler(std::string* error);

class ReferenceRunner {
 public:
  // Compiles `source` with the host C++ compiler ($CXX, else c++ on $PATH) together with a main that calls
  // `function` with `params`, or takes the program from `cache`. nullopt with *error (a configuration
  // error: `source:12: error text`, with source as the caller named it) when it cannot. Quoted includes
  // are looked for beside `source`, then in `include_dirs`. The cache key holds what the program is built
  // from (the source, the headers beside it, the compiler), not where the course sits, so a course that
  // is copied or cloned elsewhere builds its references once; a source that includes files from
  // `include_dirs` names their contents itself (reference_call.cc writes a digest of them).
  static std::optional<ReferenceRunner> build(const std::filesystem::path& source,
                                              const std::string& function,
                                              const std::vector<ReferenceParam>& params, const Cache& cache,
                                              std::string* error, const ReferenceLimits& limits = {},
                                              const std::vector<std::filesystem::path>& include_dirs = {});

  // Calls the function with one argument per parameter, the same arguments a kernel launch takes:
  // buffers by their index in `buffers` (whose bytes it changes in place), scalars by their bits. False
  // with *error saying what happened (a signal, a timeout, exit() called, a write outside a buffer...).
  // `printed`, when given, receives the lines the function printed on stdout (a `printed:` exercise's
  // expected lines). A call whose request (program, arguments and input bytes) the cache has seen answer
  // in full is answered from it without a child: the inputs of a course's runs are the same for every
  // student, and the reference is a function of them. Only a call that returned cleanly is kept.
  bool run(const std::vector<KernelArg>& args, std::vector<Buffer>& buffers, std::string* error,
           std::vector<std::string>* printed = nullptr) const;

  bool from_cache() const { return from_cache_; }

 private:
  ReferenceRunner(ScratchDir dir, std::vector<ReferenceParam> params, std::string function, bool from_cache,
                  ReferenceLimits limits, const Cache& cache, std::string program_key)
      : dir_(std::move(dir)),
        params_(std::move(params)),
        function_(std::move(function)),
        from_cache_(from_cache),
        limits_(limits),
        cache_(&cache),
        program_key_(std::move(program_key)) {}

  bool call(const std::string& request, uint64_t buffer_bytes, std::vector<Buffer>& buffers,
            std::string* error, std::string* reply) const;

  ScratchDir dir_;  // holds the program, and each call's request and reply files
  std::vector<ReferenceParam> params_;
  std::string function_;
  bool from_cache_ = false;
  ReferenceLimits limits_;
  const Cache* cache_;       // the caller's, which outlives the runner; also keeps the calls' replies
  std::string program_key_;  // the program's cache key: its compiler, source, headers and generated main
};

}  // namespace gpugrade
