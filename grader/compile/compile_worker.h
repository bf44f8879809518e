// The compile worker: a child process that keeps NVRTC loaded and compiles one source after another, fed
// over a framed protocol on its stdin and stdout. The grader starts it once; a request that runs out of time
// or memory costs only that request (the worker is killed and the next request starts a fresh one).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grader/compile/screen.h"
#include "os/scratch_dir.h"

namespace gpugrade {

struct WorkerRequest {
  SourceFile source;                 // compiled under its own name ("transpose.cu")
  std::vector<SourceFile> headers;   // offered to quoted includes by name, from memory (never from disk)
  std::vector<std::string> options;  // NVRTC's options: -arch=compute_90, -DTILE_DIM=32, ...
};

struct WorkerReply {
  bool compiled = false;  // NVRTC accepted the source and PTX is set
  std::string ptx;        // `.file` names are the request's names
  std::string log;    // NVRTC's diagnostics, `transpose.cu(12): error: ...` as nvcc's front end prints them
  std::string error;  // a failure of NVRTC itself (not of the source): its error string
};

// A frame is 4 bytes of little-endian length, then that many bytes of JSON. Frames above this size are
// refused by both sides, so that a corrupt length cannot make either allocate without bound.
inline constexpr uint32_t kMaxFrameBytes = 256u << 20;

std::string encode_request(const WorkerRequest& request);
std::optional<WorkerRequest> decode_request(std::string_view payload);
std::string encode_reply(const WorkerReply& reply);
std::optional<WorkerReply> decode_reply(std::string_view payload);

// Writes one frame; false when the other side has gone.
bool write_frame(int fd, std::string_view payload);
// Reads one frame, blocking; nullopt at end of input or on a malformed frame.
std::optional<std::string> read_frame(int fd);

// The worker's side: answers each request read from in_fd on out_fd until in_fd ends. Returns the exit code.
using CompileFunction = std::function<WorkerReply(const WorkerRequest&)>;
int serve_compile_requests(int in_fd, int out_fd, const CompileFunction& compile);

// What became of one request sent to the worker process.
struct WorkerOutcome {
  enum class Status { kReplied, kTimedOut, kDied, kCannotStart };
  Status status = Status::kCannotStart;
  WorkerReply reply;  // kReplied only
  std::string why;    // kDied: "killed by signal 9"; kCannotStart: why it could not start
};

// The grader's side: starts the worker program with an address-space limit, sends requests one at a time,
// and waits for each reply at most its time limit. Not thread-safe: one caller at a time.
class CompileWorker {
 public:
  CompileWorker(std::string program, uint64_t memory_limit_bytes)
      : program_(std::move(program)), memory_limit_bytes_(memory_limit_bytes) {}
  CompileWorker(const CompileWorker&) = delete;
  CompileWorker& operator=(const CompileWorker&) = delete;
  ~CompileWorker() { stop(); }

  // Starts the process now (it loads NVRTC while the caller does other work); compile() starts it when
  // needed.
  bool start(std::string* error);
  WorkerOutcome compile(const WorkerRequest& request, double time_limit_seconds, uint64_t memory_limit_bytes);

 private:
  void stop();
  std::string program_;
  uint64_t memory_limit_bytes_;
  std::optional<ScratchDir> folder_;  // the worker's working directory: empty, so that no name resolves there
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
};

// The worker program: $GPUGRADE_COMPILE_WORKER, else gpugrade-compile-worker beside the running
// executable, else the one this build made.
std::string find_compile_worker();

}  // namespace gpugrade
