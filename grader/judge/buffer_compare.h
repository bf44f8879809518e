// Judging buffers after a launch: each output against the reference's (wrong-output, unwritten-output),
// each input against what it held before (modified-input). Elements are named as the exercise shapes
// them: out[3][17] for `shape: [rows, cols]`, out[5].y for a float2 lane, out[1033] otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "grader/exercise/exercise.h"
#include "harness/backend.h"

namespace gpugrade {

// How one buffer's elements are named: its dimensions, outermost first (empty: one flat index).
struct BufferLayout {
  std::string name;
  ElementType type = ElementType::kFloat;
  std::vector<uint64_t> dims;
  std::string element_name(uint64_t index) const;  // "out[3][17]"
};

// `initial` is what the buffer held before the launch. An element that differs from the reference and
// still holds its initial bytes is unwritten-output (the poison of a `poison` output, or an accumulator's
// initial value the reference changed) unless `writes` says a thread wrote it (with the value it started
// with: wrong-output); any other difference is wrong-output. Without `initial` (format 1
// outputs that do not start as poison, which never had this check) every difference is wrong-output.
// A wrong-output finding shows the first wrong element among its neighbours (details["around"]) and, where
// `writes` knows them (the simulator's), the threads and line that wrote it.
// `sources`, where the exercise declares `from:`, gives the input elements an output element is computed
// from, each as {element name, value}; the finding quotes those of the first wrong element.
using InputSources = std::function<std::vector<std::pair<std::string, std::string>>(uint64_t element)>;
void compare_output(const BufferLayout& layout, const Buffer& got, const Buffer& want, const Buffer* initial,
                    const Fill& fill, const Compare& compare, const std::string& file,
                    std::vector<Finding>& findings, const WriteRecord* writes = nullptr,
                    const InputSources& sources = nullptr);

// Whether element `index` of `got` matches the reference's `want` under `compare`, lane by lane.
bool element_matches(const Buffer& got, const Buffer& want, uint64_t index, ElementType type,
                     const Compare& compare);

void check_input(const BufferLayout& layout, const Buffer& before, const Buffer& after,
                 const std::string& file, std::vector<Finding>& findings);

}  // namespace gpugrade
