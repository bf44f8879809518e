// The reporters: each writes a list of Results in one format (text, json, junit, github annotations,
// Gradescope's results.json, a markdown pull-request comment). `--format NAME` picks one.
//
// Stage grader/report/, every --format and the facts pictures need. It may include exercise/, result/ and
// source/, never judge/: a report is a function of the Result.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "grader/result/result.h"

namespace gpugrade {

struct TextOptions {
  bool color = false;    // ANSI colours, for a terminal
  bool verbose = false;  // every run and warning, not only what failed
};

// Something a report says beside the results: e.g. `gpugrade pr` warning that a pull request edited an
// exercise's definition, which is graded from the base revision anyway.
struct Notice {
  std::string file;     // the path the notice is about, relative to the repository; may be empty
  std::string message;  // one complete line
};

// Run::seconds differs from run to run. JUnit, Gradescope and markdown reports leave timings out unless
// asked, so that two gradings of the same submission give byte-identical reports (CI diffs them).
struct ReportOptions {
  bool timings = false;
  std::vector<Notice> notices;
};

// One finding as a compiler prints it, without colour: the line every report quotes.
// "exercises/t/t.cu:12: error: race: <message> [block (1,2,0), variant 32x8, rows=33 cols=31, 1,024 like it]"
std::string finding_line(const Finding& finding);

void write_text(const std::vector<Result>& results, std::ostream& out, const TextOptions& options);
// A pull request's notices as text lines, `gpugrade: warning: message`, each message escaped as write_text
// escapes learner text.
void write_text_notices(const std::vector<Notice>& notices, std::ostream& out);
// One object for one result, else an array.
void write_json(const std::vector<Result>& results, std::ostream& out);

// <testsuites> with a <testsuite> per exercise and a <testcase> per run ("variant / size"); findings
// without a run (compile errors, a missing submission) go in a testcase named "compile".
void write_junit(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options);
// GitHub Actions workflow commands: `::error file=F,line=L,title=KIND::message` per finding and notice.
void write_github(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options);
// Gradescope autograder results.json: one test per exercise, worth the exercise's points.
void write_gradescope(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options);
// Gradescope's results.json when grading could not start (a configuration error): score 0, no tests, and
// the error in `output`, so that the student sees why instead of an empty autograder result.
void write_gradescope_error(const std::string& error, std::ostream& out);
// A pull-request comment: a table of exercises with verdict and points, then findings per exercise.
void write_markdown(const std::vector<Result>& results, std::ostream& out, const ReportOptions& options);

// One self-contained HTML page (no network): per result, the problems with their source lines, and pictures
// drawn from the simulator's data (grader/report/report_html.cc says which).
void write_html(const std::vector<Result>& results, std::ostream& out);

// Appends write_markdown's report to the file named by $GITHUB_STEP_SUMMARY, when that is set (GitHub
// shows it on the run's page). Returns an error string naming the file when it cannot be written.
std::string append_github_step_summary(const std::vector<Result>& results, const ReportOptions& options);

}  // namespace gpugrade
