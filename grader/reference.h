// The reference runner: the exercise's trusted reference.cpp (a plain C++ function with the kernel's
// parameter list), built once into a shared library with a generated shim, loaded, and called on buffers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "grader/cache.h"
#include "harness/backend.h"

namespace gpugrade {

struct ReferenceParam {
  std::string type;        // the C++ type, as the exercise writes it: "const float*", "int"
  bool is_buffer = false;  // a pointer to one of the launch's buffers; else a scalar of at most 64 bits
};

class ReferenceRunner {
 public:
  // Compiles `source` with the host C++ compiler ($CXX, else c++ on $PATH) together with a shim that calls
  // `function` with `params`, or takes the library from `cache`, and loads it. nullopt with *error (a
  // configuration error: `source:12: error text`, with source as the caller named it) when it cannot.
  static std::optional<ReferenceRunner> build(const std::filesystem::path& source, const std::string& function,
                                              const std::vector<ReferenceParam>& params, const Cache& cache,
                                              std::string* error);

  ReferenceRunner(ReferenceRunner&& other) noexcept;
  ReferenceRunner& operator=(ReferenceRunner&& other) noexcept;
  ReferenceRunner(const ReferenceRunner&) = delete;
  ReferenceRunner& operator=(const ReferenceRunner&) = delete;
  ~ReferenceRunner();

  // Calls the function with one argument per parameter, the same arguments a kernel launch takes:
  // buffers by their index in `buffers` (whose bytes it changes in place), scalars by their bits.
  bool run(const std::vector<KernelArg>& args, std::vector<Buffer>& buffers, std::string* error) const;

  bool from_cache() const { return from_cache_; }

 private:
  using Entry = int (*)(void* const* buffers, const uint64_t* scalars);
  ReferenceRunner(void* library, Entry entry, std::vector<ReferenceParam> params, std::string function,
                  bool from_cache);

  void* library_ = nullptr;  // the dlopen handle
  Entry entry_ = nullptr;
  std::vector<ReferenceParam> params_;
  std::string function_;
  bool from_cache_ = false;
};

}  // namespace gpugrade
