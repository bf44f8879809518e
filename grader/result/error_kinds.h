// A result in one line for the tools that compare results (`gpugrade check`, `gpugrade calibrate`): its
// verdict and the kinds of its errors.
#pragma once

#include <string>

#include "grader/result/result.h"

namespace gpugrade {

// The result's error kinds, sorted, each once, comma-separated ("race, uninitialized-shared-read").
std::string kinds_of(const Result& result);
// "fail: race, too-slow", or the verdict alone when no error has a kind to name.
std::string verdict_and_kinds(const Result& result);

}  // namespace gpugrade
