// gpugrade's entry point: everything happens in the grader library; main only hands over the arguments.
#include <iostream>
#include <string>
#include <vector>

#include "grader/cli.h"
#include "grader/compile/compile_worker.h"
#include "harness/backends.h"
#include "harness/trace.h"
#include "os/interrupt.h"

int main(int argc, char** argv) {
  gpugrade::end_cleanly_on_interrupt();  // before any thread starts: Ctrl-C leaves no child or folder behind
  gpugrade::trace("gpugrade: started");
  // Under `batch`, what the batch's worker lends this grade: before nvcc, the compile worker or anything
  // else starts, so that no program this process starts holds their descriptors.
  gpugrade::claim_lent_gpu_launcher();
  gpugrade::claim_lent_compile_worker();
  std::vector<std::string> args(argv + 1, argv + argc);
  const int status = gpugrade::run_cli(args, std::cout, std::cerr);
  gpugrade::wait_if_interrupted();  // an interrupted command ends by its signal, not by a status of its own
  return status;
}
