// The source screen: what a submission may include, checked before nvcc (and its host preprocessor) ever
// reads the file, so that `#include "/etc/passwd"` cannot pour a grader machine's files into error messages.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/finding.h"

namespace gpugrade {

// A file's bytes and its name relative to its folder ("transpose.cu", "common.h").
struct SourceFile {
  std::string name;
  std::string bytes;
};

// Allowed, whatever the folder holds:
//  - CUDA device headers: cuda_runtime.h, cuda_runtime_api.h, device_launch_parameters.h, cuda_fp16.h,
//    cuda_bf16.h, cuda_fp8.h, mma.h, cuda_pipeline.h, cuda_awbarrier.h, cooperative_groups.h and
//    cooperative_groups/*, and libcu++ (cuda/std/*, cuda/barrier, cuda/pipeline, cuda/atomic...);
//  - C++ standard headers that device code can use (<cstdint>, <cmath>, <type_traits>, <cstdio>...);
//  - with quotes, files of the exercise's own folder, named relative to it (no `..`, no absolute path).
// Not allowed: cub/ and thrust/ (they do the exercises' work), any other file.
bool is_allowed_system_header(std::string_view header);

// Screens one file. `folder_files` are the names the exercise's folder offers to quoted includes; the
// result is one `rejected-source` Finding per refused directive, with display_path and the directive's line.
// Also refused: computed includes (`#include HEADER_MACRO`), `#line` and GNU line markers (`# 12 "file"`:
// findings would point elsewhere), `#pragma GCC dependency` (it reads another file's timestamp), `_Pragma`
// (a pragma the screen cannot see) and `__has_include`/`__has_include_next` (they probe for files). Inline
// asm is allowed: it is device code like the rest, and only ever runs on the simulator or a GPU.
std::vector<Finding> screen_source(std::string_view text, std::string_view display_path,
                                   const std::vector<std::string>& folder_files);

// Screens a submission and the folder headers it is compiled with (in a pull request those may be edited
// too). Headers are named `folder_display/name` in findings.
std::vector<Finding> screen_submission(const SourceFile& submission, std::string_view display_path,
                                       const std::vector<SourceFile>& folder_headers,
                                       std::string_view folder_display);

// The headers of an exercise's folder that a submission may include: regular files (not links) directly in
// it whose names end in .h, .cuh, .hpp or .inc. nullopt, with *error set, when the folder cannot be read.
std::optional<std::vector<SourceFile>> read_folder_headers(const std::filesystem::path& folder,
                                                           std::string* error);

}  // namespace gpugrade
