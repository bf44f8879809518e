// What several reporters say alike: a result's finding lines, and the one-line tally of a grading.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "grader/result.h"

namespace gpugrade {

// 1024 -> "1,024": counts in messages and tables.
std::string with_thousands(uint64_t value);

// The finding's message and the bracketed context finding_line() puts after it: reports that carry the
// file, line and kind elsewhere (GitHub annotations) show this.
std::string message_with_context(const Finding& finding);

// The wall time of all the result's runs (reports show it only when asked: it differs run to run).
double total_seconds(const Result& result);

// The GPU's throughput figures in a sentence, empty when the result has none: "1739 GB/s at 32x8
// (rows=8192 cols=8192): 0.57 of the copy baseline's 3060 GB/s, the exercise asks for 0.45; cuMemcpyDtoD
// reached 4169 GB/s"
std::string throughput_sentence(const Result& result);

// "2/3 exercises passed, 15/25 points"
std::string tally(const std::vector<Result>& results);

// Every finding of the result as finding_line() writes it, one a line; then the note, if any.
std::string finding_lines(const Result& result);

// The note, when it is why the result failed: a fail that no error finding explains (a deleted
// submission, grading that stopped early).
bool note_is_the_failure(const Result& result);

}  // namespace gpugrade
