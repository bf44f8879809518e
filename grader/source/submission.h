// A learner's submission as every stage sees it: its text (from a file, a git blob or an upload) and the
// path findings name it by.
//
// Stage grader/source/, where a learner's files come from: paths read within bounds (submission_file.h), git
// revisions (git_source.h), and this Submission. It may include result/ and os/.
#pragma once

#include <string>

namespace gpugrade {

// The submission's text and names. Its text may come from a file or from a git blob.
struct Submission {
  std::string text;
  std::string display_path;  // how findings name it: "exercises/copy/copy.cu"
};

}  // namespace gpugrade
