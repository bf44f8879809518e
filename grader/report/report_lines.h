// What several reporters say alike: a result's finding lines, and the one-line tally of a grading.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "grader/result/result.h"

namespace gpugrade {

// The finding's message and the bracketed context finding_line() puts after it: reports that carry the
// file, line and kind elsewhere (GitHub annotations) show this.
std::string message_with_context(const Finding& finding);

// A variant's label as a reader takes it: "32x8 blocks", "64-thread blocks", or "variant mask 3" for a label
// an instructor chose.
std::string variant_in_words(const std::string& label);

// The wall time of all the result's runs (reports show it only when asked: it differs run to run).
double total_seconds(const Result& result);

// The GPU's throughput figures in a sentence, empty when the result has none: "1739 GB/s at 32x8
// (rows=8192 cols=8192): 0.57 of the copy baseline's 3060 GB/s, the exercise asks for 0.45; cuMemcpyDtoD
// reached 4169 GB/s"
std::string throughput_sentence(const Result& result);

// A JSON report as --format json and gradescope print it: indented, bytes that are not UTF-8 replaced (a
// compiler message may quote them; dumping must not throw), and no line a CI runner reads as a command.
std::string json_report(const nlohmann::ordered_json& report);

// "2/3 exercises passed, 15/25 points"; "1/3 exercises passed (1 not submitted), 5/25 points" when some
// results have no submission (a batch's student who handed nothing in for an exercise).
std::string tally(const std::vector<Result>& results);
// The last line of `grade --all`: "total: 7 exercises, 5 passed, 1 failed, 1 not graded; 37/45 points".
// `not_graded` counts the exercises that have no result (a broken definition, an unreadable file); points
// are left out when no exercise is worth any.
std::string grade_total(const std::vector<Result>& results, size_t not_graded);

// Every finding of the result as finding_line() writes it, one a line; then the note, if any.
std::string finding_lines(const Result& result);

// One problem as the text and HTML reports lead with it: a finding, and the finding folded into it when two
// say one thing (the mirrored race between the same two lines; an output both wrong and unwritten).
struct Problem {
  const Finding* finding = nullptr;
  const Finding* partner = nullptr;
};

// Whether a report shows `finding` without --verbose: errors, and compiler warnings when the grade failed
// (they often name the bug); other warnings with `verbose` only.
bool shown(const Finding& finding, const Result& result, bool verbose);

// The result's problems, causes first: what the source lacks, then barriers, races and memory faults, then
// their symptoms (uninitialized reads, wrong outputs), then speed. Warnings only when `warnings` is set.
std::vector<Problem> problems(const Result& result, bool warnings);

// The problem in under ~120 characters, from the finding's details where its kind has them (the full
// message stays in the JSON): "thread (0,1,0) reads tile[0][1] written by thread (1,0,0) at line 9 ...".
std::string headline(const Problem& problem);
// A wrong output's first wrong element among its neighbours (details["around"]) as plain lines: expected left
// of the bar, got right of it, `*` before each value that differs. Without `verbose` only the 3x3 elements
// around it (5 of a flat output), so that a failure stays on one screen; empty for other findings.
std::vector<std::string> neighbourhood_lines(const Finding& finding, bool verbose);

// A second place a problem points at, printed as a compiler's `note:` line under it.
struct Note {
  std::string file;
  int line = 0;
  std::string message;
};
std::vector<Note> notes_of(const Problem& problem);

// The 1-based column on `line` of what the finding names there (its array or buffer, the barrier, the
// kernel); 0 when the line does not name it (a column the grader does not know is left out, not guessed).
int column_of(const Finding& finding, int line, std::string_view source);

// "file:line:col" (or less, as much as is known), as compilers name a place.
std::string place(const std::string& file, int line, int column);

// One line for the runs: "runs: 9 of 16 failed: 32x8, 32x32, 16x16 at 3 of 4 sizes"; empty when
// nothing ran.
std::string run_summary(const Result& result);

// The note, when it is why the result failed: a fail that no error finding explains (a deleted
// submission, grading that stopped early).
bool note_is_the_failure(const Result& result);

}  // namespace gpugrade
