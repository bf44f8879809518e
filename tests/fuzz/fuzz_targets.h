// Fuzz targets: one function per front end that reads untrusted or hand-written text, each taking any bytes
// and required only to return (no crash, no hang, no exception escaping); and one per output format, which
// throws when learner text made its output unsound. fuzz_test.cc runs them under ctest
// with a seeded mutation driver; libfuzzer_entry.cc wraps one of them for clang's libFuzzer (optional).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpugrade::fuzz {

void exercise_yaml(const uint8_t* data, size_t size);  // the exercise loader, on an exercise.yaml
void expression(const uint8_t* data, size_t size);     // the expression parser and evaluator
void screen(const uint8_t* data, size_t size);         // the source screen, shared-shape scanner, diagnostics
void ptx_module(const uint8_t* data, size_t size);     // harness/ptx parse_module and kernel_traits

// The output formats (output_targets.cc), each fed learner text in every field it shows and read back as its
// reader would; a violation is thrown.
void text_report(const uint8_t* data,
                 size_t size);  // --format text (and json): no control, command or fake line
void github_report(const uint8_t* data, size_t size);    // annotations and the step summary
void markdown_report(const uint8_t* data, size_t size);  // the pr comment, students/*.md and summary.md
void junit_report(const uint8_t* data, size_t size);     // well-formed XML
void csv_gradebook(const uint8_t* data, size_t size);    // RFC 4180, one row per student, no formula
void html_report(const uint8_t* data, size_t size);      // the report's own elements only, with its CSP

}  // namespace gpugrade::fuzz
