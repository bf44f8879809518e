// Fuzz targets: one function per front end that reads untrusted or hand-written text, each taking any bytes
// and required only to return (no crash, no hang, no exception escaping). fuzz_test.cc runs them under ctest
// with a seeded mutation driver; libfuzzer_entry.cc wraps one of them for clang's libFuzzer (optional).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpugrade::fuzz {

void exercise_yaml(const uint8_t* data, size_t size);   // the exercise loader, on an exercise.yaml
void expression(const uint8_t* data, size_t size);      // the expression parser and evaluator
void screen(const uint8_t* data, size_t size);          // the source screen, shared-shape scanner, diagnostics
void ptx_module(const uint8_t* data, size_t size);      // harness/ptx parse_module and kernel_traits

}  // namespace gpugrade::fuzz
