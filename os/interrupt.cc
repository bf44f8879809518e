// The sweep on SIGINT and SIGTERM: signals are taken by sigwait on a thread of their own, so the clean-up
// runs as ordinary code (removing folders is not async-signal-safe) while the other threads go on.
#include "os/interrupt.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <set>
#include <thread>

namespace gpugrade {
namespace {

// How long children asked to end (SIGTERM) get to do so before they are killed; a gpugrade grade process
// removes its folders and ends well within it.
constexpr auto kGrace = std::chrono::seconds(2);

struct Registry {
  std::mutex mutex;
  std::set<pid_t> children;
  std::set<std::filesystem::path> folders;
  std::atomic<bool> ending = false;
};

// Never destroyed: the signal thread may sweep while main's statics are being torn down.
Registry& registry() {
  static Registry* registry = new Registry;
  return *registry;
}

// Reaps every child and adopted descendant as it ends, for at most a second (SIGKILL is not instant), until
// none is left. A child its owner's thread reaped first is simply gone.
void reap_all() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    const pid_t reaped = waitpid(-1, nullptr, WNOHANG);
    if (reaped < 0 && errno != EINTR) return;  // ECHILD: none left
    if (reaped == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

[[noreturn]] void sweep_and_end(int signal) {
  Registry& r = registry();
  // Descendants orphaned from here on (a compiler under a compile worker, killed with it) come to this
  // process, which reaps them before it ends: left to a parent that never reaps (a container's first
  // process often does not), an ended process would stay behind as a zombie.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.ending = true;
    for (pid_t group : r.children) kill(-group, SIGTERM);
  }
  // Their owners' threads reap them as they end, and untrack them.
  const auto deadline = std::chrono::steady_clock::now() + kGrace;
  while (std::chrono::steady_clock::now() < deadline) {
    {
      std::lock_guard<std::mutex> lock(r.mutex);
      if (r.children.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Held to the end: no fork starts (SpawnGuard) and no folder is made or forgotten meanwhile.
  r.mutex.lock();
  for (pid_t group : r.children) kill(-group, SIGKILL);
  // Reaped here, not left to their owners' threads: this process ends next.
  reap_all();
  for (const std::filesystem::path& folder : r.folders) {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  std::signal(signal, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  raise(signal);
  std::_Exit(128 + signal);  // not reached: the signal's default action ends the process
}

}  // namespace

void end_cleanly_on_interrupt() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    sweep_and_end(signal);
  }).detach();
}

void wait_if_interrupted() {
  while (registry().ending) std::this_thread::sleep_for(std::chrono::seconds(1));
}

SpawnGuard::SpawnGuard() : lock_(registry().mutex) {}

bool SpawnGuard::ending() const { return registry().ending; }

void SpawnGuard::track(pid_t group) { registry().children.insert(group); }

void untrack_child(pid_t group) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.children.erase(group);
}

void track_folder(const std::filesystem::path& folder) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.folders.insert(folder);
}

void untrack_folder(const std::filesystem::path& folder) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.folders.erase(folder);
}

}  // namespace gpugrade
