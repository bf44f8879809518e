// gpugrade's entry point: everything happens in the grader library; main only hands over the arguments.
#include <iostream>
#include <string>
#include <vector>

#include "grader/cli.h"
#include "harness/backends.h"
#include "harness/trace.h"
#include "os/interrupt.h"

int main(int argc, char** argv) {
  gpugrade::end_cleanly_on_interrupt();  // before any thread starts: Ctrl-C leaves no child or folder behind
  gpugrade::trace("gpugrade: started");
  gpugrade::claim_lent_gpu_launcher();  // under `batch --backend gpu`: before nvcc or the compile worker
                                        // start
  std::vector<std::string> args(argv + 1, argv + argc);
  const int status = gpugrade::run_cli(args, std::cout, std::cerr);
  gpugrade::wait_if_interrupted();  // an interrupted command ends by its signal, not by a status of its own
  return status;
}
