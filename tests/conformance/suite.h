// The conformance suite's model: manifest.json's kernels with their buffers and tolerances, the inputs they
// start from, the expected-output files recorded on a GPU, and the comparison that judges a run against one.
// Shared by the recorder (record.cc) and the tests (tests/conformance/conformance_test.cc); README.md
// documents formats.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"

namespace gpugrade {
class Compiler;
}

namespace gpugrade::conformance {

enum class ElementType { kU8, kS8, kU16, kS16, kU32, kS32, kU64, kS64, kF32, kF64 };

std::optional<ElementType> parse_element_type(std::string_view text);
std::string_view to_string(ElementType type);
uint32_t element_size(ElementType type);

// How far a simulated result may be from the recorded one; a result passes if either bound holds. Both
// zero: bit for bit. Zeros, infinities and NaN never pass by tolerance: their bits (any NaN for a NaN)
// must match, so the sign of a zero or an overflow is always checked.
struct Tolerance {
  uint64_t ulps = 0;
  double abs = 0;
  bool exact() const { return ulps == 0 && abs == 0; }
};

struct BufferSpec {
  std::string name;
  ElementType type = ElementType::kU32;
  uint64_t count = 0;
  bool output = false;
  std::vector<std::string>
      labels;  // names of equal consecutive slices (op-major outputs): "div" for out[1024..1279]
  Tolerance tolerance;
  // Elements where the GPU ran what ptxas made of the PTX rather than the PTX itself (a multiply by 0.5
  // folded into the previous multiply's output scale, so it does not overflow): the simulator follows the
  // PTX, so these are not compared. The kernel's note says which and why.
  std::vector<uint64_t> sass_differs;
  std::vector<uint64_t> initial;  // one word per element (its bits, zero-extended), from the manifest's init
};

struct KernelCase {
  std::string name;   // also the expected file's name: expected/<name>.txt
  std::string file;   // the .cu file beside manifest.json
  std::string entry;  // the extern "C" kernel; defaults to name
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  std::string note;                 // what the kernel checks, and why its tolerances are what they are
  std::vector<BufferSpec> buffers;  // also the kernel's parameters, in order
};

// Parses manifest.json. Errors read "manifest.json: kernel 'x', buffer 'y': what is wrong".
std::optional<std::vector<KernelCase>> parse_manifest(std::string_view text, std::string_view display_path,
                                                      std::string* error);
std::optional<std::vector<KernelCase>> load_manifest(const std::filesystem::path& path, std::string* error);

// The launch of a case: its buffers (initial contents) passed in order as its arguments.
LaunchRequest make_launch(const KernelCase& kernel);

// One output buffer's elements as words (bits zero-extended).
struct OutputWords {
  std::string buffer;
  ElementType type = ElementType::kU32;
  std::vector<uint64_t> words;
};

// The output buffers of a finished launch, in manifest order.
std::vector<OutputWords> output_words(const KernelCase& kernel, const std::vector<Buffer>& buffers);

// An expected-output file: '#' header lines (device, driver, CUDA version, date), then for each output
// buffer a line "buffer NAME TYPE COUNT" followed by COUNT hex words.
struct Expected {
  std::vector<std::string> header;  // without the leading "# "
  std::vector<OutputWords> outputs;
};

std::string format_expected(const std::vector<std::string>& header, const std::vector<OutputWords>& outputs);
std::optional<Expected> parse_expected(std::string_view text, std::string_view display_path,
                                       std::string* error);

// "0x7fffffff (nan)", "0xffffffff (-1)": a word as hex and as its type.
std::string describe(ElementType type, uint64_t word);

// Where `got` differs from `expected` beyond each buffer's tolerance: nullopt when it does not, else one
// line naming the first differing element, e.g.
// "out[1029] (div[5]): expected 0xffffffff (-1), got 0x00000000 (0); 3 of 2560 elements differ".
std::optional<std::string> compare(const KernelCase& kernel, const std::vector<OutputWords>& expected,
                                   const std::vector<OutputWords>& got);

// Compiles each .cu file once and loads it once into the backend, then launches cases from it.
class SuiteRunner {
 public:
  SuiteRunner(Backend& backend, Compiler& compiler, std::filesystem::path suite_dir);
  ~SuiteRunner();

  // The outputs of one launch, or nullopt with *error: the compile log, the load findings, or the launch's
  // error findings (a run that reports an error is a failed run, whatever it wrote).
  std::optional<std::vector<OutputWords>> run(const KernelCase& kernel, std::string* error);

 private:
  struct LoadedFile;
  const LoadedFile& load(const std::string& file);

  Backend& backend_;
  Compiler& compiler_;
  std::filesystem::path suite_dir_;
  std::map<std::string, std::unique_ptr<LoadedFile>> files_;
};

}  // namespace gpugrade::conformance
