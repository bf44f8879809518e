// The files `gpugrade export` writes, from grader/deploy/templates/, built into the program.
#pragma once

#include <string>
#include <vector>

namespace gpugrade {

struct EmbeddedFile {
  std::string path;  // relative to templates/: "gradescope/run_autograder"
  std::string bytes;
  bool executable;  // it starts with #!
};

const std::vector<EmbeddedFile>& embedded_templates();

}  // namespace gpugrade
