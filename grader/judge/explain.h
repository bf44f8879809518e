// Findings reworded in the learner's terms from what their source shows: a race across loop trips, a lost
// update, a race inside one statement, a compiler warning that names the bug, bank-conflict advice that
// names the array. The checkers report what two accesses did; the source says what the learner wrote.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "grader/result/result.h"

namespace gpugrade {

// Rewrites, in place, the findings on `file` (the learner's file, whose text is `source`) whose cause the
// source makes plain; each rewritten finding gets details["cause"] (docs/result-contract.md lists them).
// A finding the source does not explain keeps the checker's words.
void explain_findings(std::vector<Finding>& findings, std::string_view source, const std::string& file);

}  // namespace gpugrade
