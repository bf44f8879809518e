// The fuzz targets. Each builds only public entry points, so that what is fuzzed is what users reach.
#include "tests/fuzz/fuzz_targets.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/compile/compiler.h"
#include "grader/compile/screen.h"
#include "grader/exercise/exercise.h"
#include "grader/exercise/expr.h"
#include "grader/exercise/shared_shapes.h"
#include "harness/ptx/module.h"
#include "os/file.h"
#include "os/scratch_dir.h"

namespace gpugrade::fuzz {
namespace {

std::string_view text_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace

void exercise_yaml(const uint8_t* data, size_t size) {
  // One folder for the whole run: the loader reads exercise.yaml and checks that the files it names exist.
  static std::optional<ScratchDir> dir = [] {
    std::string error;
    std::optional<ScratchDir> made = ScratchDir::create("fuzz-exercise", &error);
    if (made) {
      write_file_bytes(made->path() / "copy.cu", "__global__ void copy(float* out) {}\n");
      write_file_bytes(made->path() / "reference.cpp", "void copy(float* out) {}\n");
    }
    return made;
  }();
  if (!dir || !write_file_bytes(dir->path() / "exercise.yaml", text_of(data, size))) return;
  std::vector<std::string> errors;
  std::optional<Exercise> exercise = load_exercise(dir->path(), &errors, "exercises/fuzz");
  if (!exercise) return;
  for (const Variant& variant : exercise->variants) {
    for (const Size& s : exercise->sizes) {
      std::string error;
      evaluate_launch(*exercise, variant, s, &error);
    }
  }
}

void expression(const uint8_t* data, size_t size) {
  std::string error;
  std::optional<Expr> expr = Expr::parse(text_of(data, size), &error);
  if (!expr) return;
  Bindings bindings;
  int64_t value = 1;
  for (const std::string& name : expr->variables()) bindings[name] = value = value * -3 + 7;
  expr->eval(bindings, &error);
}

void screen(const uint8_t* data, size_t size) {
  std::string_view text = text_of(data, size);
  screen_source(text, "exercises/fuzz/kernel.cu", {"common.h"});
  find_shared_shapes(text, {{"TILE_DIM", 32}, {"BLOCK_ROWS", 8}});
  shared_declaration_line(text, "tile");
  parse_diagnostics(text, FindingKind::kCompileError, {{"kernel.cu", "exercises/fuzz/kernel.cu"}});
}

void ptx_module(const uint8_t* data, size_t size) {
  for (bool keep_unsupported : {false, true}) {
    ptx::Module module;
    std::string error;
    ptx::ParseOptions options;
    options.keep_unsupported = keep_unsupported;
    if (ptx::parse_module(text_of(data, size), &module, &error, options)) ptx::kernel_traits(module);
  }
}

}  // namespace gpugrade::fuzz
