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

// The worker's address-space limit: NVRTC and the largest source a grade compiles.
inline constexpr uint64_t kCompileWorkerMemoryBytes = uint64_t{4} << 30;

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
//
// A batch keeps one worker per worker slot and lends it to each grade process it starts (lend/take_back),
// so NVRTC is loaded once per slot instead of once per grade; the grade's first start() adopts it. The
// worker keeps nothing between requests (each is one NVRTC program, its headers from the request, its
// folder empty), and one left midway through a request is ended, never lent again.
class CompileWorker {
 public:
  CompileWorker(std::string program, uint64_t memory_limit_bytes)
      : program_(std::move(program)), memory_limit_bytes_(memory_limit_bytes) {}
  CompileWorker(const CompileWorker&) = delete;
  CompileWorker& operator=(const CompileWorker&) = delete;
  ~CompileWorker() { lent_ ? forget() : stop(); }

  // Starts the process now (it loads NVRTC while the caller does other work); compile() starts it when
  // needed.
  bool start(std::string* error);
  WorkerOutcome compile(const WorkerRequest& request, double time_limit_seconds, uint64_t memory_limit_bytes);

  // The lender's side. The environment entry that lends the worker (started first when it is not running)
  // and the descriptors the borrowing process keeps open; empty when it cannot start.
  std::string lend(std::vector<int>* descriptors);
  // After the borrowing process has ended: the worker is ended (and its folder emptied) unless it lives,
  // the borrower ended cleanly, no reply waits unread (one would be the last borrower's, not the next
  // one's) and its folder is still empty.
  void take_back(bool ended_cleanly);

 private:
  void stop();    // ends the worker (a lent one's lender reaps it)
  void forget();  // lets go of a lent worker, which lives on for its lender
  std::optional<WorkerOutcome> ask(const WorkerRequest& request, double time_limit_seconds);
  std::string program_;
  uint64_t memory_limit_bytes_;
  std::optional<ScratchDir> folder_;  // the worker's working directory: empty, so that no name resolves there
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  bool lent_ = false;  // a batch's worker, borrowed: not this process's child
};

// Under `gpugrade batch`, $GPUGRADE_LENT_COMPILE_WORKER names the worker this grade process borrows. Call
// once at start, before any child starts: its inherited descriptors become close-on-exec, so no program
// this process starts holds them.
void claim_lent_compile_worker();

// The worker program: $GPUGRADE_COMPILE_WORKER, else gpugrade-compile-worker beside the running
// executable, else the one this build made.
std::string find_compile_worker();

}  // namespace gpugrade
