// What a batch worker keeps across the grade processes it starts, one after another, and lends to each:
// the GPU backend's serving launcher (harness/gpu/launcher_lender.h), so that a worker opens one CUDA
// context for all its grades instead of one per grade. The grader's batch sees only this interface.
#pragma once

#include <string>
#include <vector>

namespace gpugrade {

class GradeLender {
 public:
  // How a grade process borrows: entries added to its environment, and descriptors it keeps open.
  struct Loan {
    std::vector<std::string> environment;  // "NAME=value"
    std::vector<int> descriptors;
  };

  virtual ~GradeLender() = default;

  // Before a grade. An empty loan when nothing can be lent now: the grade then starts what it needs itself.
  virtual Loan lend() = 0;

  // After the grade process has ended. `ended_cleanly`: it exited by itself, neither killed at its time
  // limit nor by a signal, so it waited for every answer it asked for; otherwise what was lent may be
  // midway through one of its requests and is replaced.
  virtual void take_back(bool ended_cleanly) = 0;
};

}  // namespace gpugrade
