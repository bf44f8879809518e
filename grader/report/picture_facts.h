// What the grader adds to a result so that reports can name and draw it the way the learner declared it:
// a memory fault's element as `tile[32][0]` (row and column from the shared array's shape in the source),
// the shape of each output (for the HTML report's heat map), and the submission's text.
#pragma once

#include "grader/exercise/exercise.h"
#include "grader/result/result.h"
#include "grader/source/submission.h"

namespace gpugrade {

// Rewrites out-of-bounds findings in shared memory to name the element by row and column when the array
// has two or more dimensions (details.element holds them), stores metrics.outputs (per output buffer, its
// rows and columns at each size when its count is a product `A*B`: A rows of B), and the source.
void add_picture_facts(Result& result, const Exercise& exercise, const Submission& submission);

}  // namespace gpugrade
