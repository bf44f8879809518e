// Ctrl-C (SIGINT) and SIGTERM end gpugrade without leaving anything behind: no child process running
// (nvcc, the compile worker, sandboxes, references, GPU launchers, a batch's grade processes) and no
// scratch folder left. spawn_process, reap_child and ScratchDir keep the registry this file sweeps.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <mutex>

namespace gpugrade {

// Call first thing in main, before any thread starts: SIGINT and SIGTERM are then blocked in every thread
// and taken by a thread of its own, which asks every child process group not yet reaped to end (SIGTERM,
// so that a gpugrade child cleans up in turn), kills what is left after a short grace (SIGKILL), removes
// every ScratchDir still alive, and ends the process by the same signal (status 128 + signal in a shell).
void end_cleanly_on_interrupt();

// Where a command would go on after a sweep began (a grade whose reference the sweep ended), it waits here
// for the end instead: nothing interrupted is reported, recorded or exits with a status of its own.
void wait_if_interrupted();

// A fork in progress: the sweep waits for it, so that no child starts unseen while gpugrade ends. The
// child's pid is tracked (track) before the guard goes; ending() says a sweep has begun, and then nothing
// should start.
class SpawnGuard {
 public:
  SpawnGuard();
  bool ending() const;
  void track(pid_t group);

 private:
  std::unique_lock<std::mutex> lock_;
};

// The child `group` leads was reaped: its id may be reused, so the sweep must forget it.
void untrack_child(pid_t group);

// A ScratchDir's folder, from its creation to its removal.
void track_folder(const std::filesystem::path& folder);
void untrack_folder(const std::filesystem::path& folder);

}  // namespace gpugrade
