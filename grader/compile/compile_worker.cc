// The compile worker's protocol (frames of JSON over pipes) and the grader's handle on the worker process:
// started with an address-space limit, killed and forgotten when a request overruns its time.
#include "grader/compile/compile_worker.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "grader/compile/compiler.h"
#include "grader/compile/sandbox.h"
#include "os/process.h"

namespace gpugrade {
namespace {

using Json = nlohmann::json;

// $GPUGRADE_LENT_COMPILE_WORKER: "pid to_fd from_fd" of the worker a batch lends this grade process.
constexpr const char* kLentWorkerVariable = "GPUGRADE_LENT_COMPILE_WORKER";
struct LentWorker {
  pid_t pid = -1;
  int to_worker = -1;
  int from_worker = -1;
};

// The lent worker named in the environment, its inherited descriptors made close-on-exec; read once.
const std::optional<LentWorker>& claimed_lent_worker() {
  static const std::optional<LentWorker> lent = []() -> std::optional<LentWorker> {
    const char* text = std::getenv(kLentWorkerVariable);
    LentWorker found;
    if (text == nullptr ||
        std::sscanf(text, "%d %d %d", &found.pid, &found.to_worker, &found.from_worker) != 3 ||
        found.pid <= 1 || found.to_worker < 0 || found.from_worker < 0 ||
        fcntl(found.to_worker, F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(found.from_worker, F_SETFD, FD_CLOEXEC) != 0)
      return std::nullopt;
    return found;
  }();
  return lent;
}

// The lent worker, to the first caller only: one CompileWorker at a time talks to it.
std::optional<LentWorker> take_lent_worker() {
  static std::atomic<bool> taken{false};
  const std::optional<LentWorker>& lent = claimed_lent_worker();
  if (!lent || taken.exchange(true)) return std::nullopt;
  return lent;
}

Json files_json(const std::vector<SourceFile>& files) {
  Json out = Json::array();
  for (const SourceFile& f : files) out.push_back({{"name", f.name}, {"bytes", f.bytes}});
  return out;
}

bool read_files(const Json& json, std::vector<SourceFile>* out) {
  if (!json.is_array()) return false;
  for (const Json& f : json) {
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("bytes") ||
        !f["bytes"].is_string())
      return false;
    out->push_back({f["name"].get<std::string>(), f["bytes"].get<std::string>()});
  }
  return true;
}

// Frames hold CBOR, not JSON text: a submission's bytes need not be UTF-8, and CBOR carries any bytes as
// they are.
std::string dump(const Json& json) {
  std::string out;
  Json::to_cbor(json, out);
  return out;
}

Json parse(std::string_view payload) {
  return Json::from_cbor(payload.begin(), payload.end(), /*strict=*/true, /*allow_exceptions=*/false);
}

void append_u32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

bool write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes; with a deadline, gives up (returning false, *timed_out set) when it passes.
bool read_exact(int fd, char* data, size_t size,
                std::optional<std::chrono::steady_clock::time_point> deadline, bool* timed_out) {
  while (size > 0) {
    if (deadline) {
      auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        *timed_out = true;
        return false;
      }
      pollfd p{fd, POLLIN, 0};
      int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) return false;
      if (ready == 0) continue;
    }
    ssize_t n = read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> read_frame_until(int fd,
                                            std::optional<std::chrono::steady_clock::time_point> deadline,
                                            bool* timed_out) {
  unsigned char header[4];
  if (!read_exact(fd, reinterpret_cast<char*>(header), 4, deadline, timed_out)) return std::nullopt;
  uint32_t size =
      uint32_t{header[0]} | uint32_t{header[1]} << 8 | uint32_t{header[2]} << 16 | uint32_t{header[3]} << 24;
  if (size > kMaxFrameBytes) return std::nullopt;
  std::string payload(size, '\0');
  if (!read_exact(fd, payload.data(), size, deadline, timed_out)) return std::nullopt;
  return payload;
}

}  // namespace

std::string encode_request(const WorkerRequest& request) {
  return dump({{"source", files_json({request.source})},
               {"headers", files_json(request.headers)},
               {"options", request.options}});
}

std::optional<WorkerRequest> decode_request(std::string_view payload) {
  Json json = parse(payload);
  if (!json.is_object()) return std::nullopt;
  WorkerRequest request;
  std::vector<SourceFile> source;
  if (!read_files(json["source"], &source) || source.size() != 1 ||
      !read_files(json["headers"], &request.headers))
    return std::nullopt;
  request.source = std::move(source.front());
  if (!json["options"].is_array()) return std::nullopt;
  for (const Json& option : json["options"]) {
    if (!option.is_string()) return std::nullopt;
    request.options.push_back(option.get<std::string>());
  }
  return request;
}

std::string encode_reply(const WorkerReply& reply) {
  return dump({{"compiled", reply.compiled}, {"ptx", reply.ptx}, {"log", reply.log}, {"error", reply.error}});
}

std::optional<WorkerReply> decode_reply(std::string_view payload) {
  Json json = parse(payload);
  if (!json.is_object() || !json["compiled"].is_boolean() || !json["ptx"].is_string() ||
      !json["log"].is_string() || !json["error"].is_string())
    return std::nullopt;
  return WorkerReply{json["compiled"].get<bool>(), json["ptx"].get<std::string>(),
                     json["log"].get<std::string>(), json["error"].get<std::string>()};
}

bool write_frame(int fd, std::string_view payload) {
  if (payload.size() > kMaxFrameBytes) return false;
  std::string frame;
  frame.reserve(payload.size() + 4);
  append_u32(frame, static_cast<uint32_t>(payload.size()));
  frame.append(payload);
  return write_all(fd, frame.data(), frame.size());
}

std::optional<std::string> read_frame(int fd) {
  bool timed_out = false;
  return read_frame_until(fd, std::nullopt, &timed_out);
}

int serve_compile_requests(int in_fd, int out_fd, const CompileFunction& compile) {
  while (std::optional<std::string> frame = read_frame(in_fd)) {
    std::optional<WorkerRequest> request = decode_request(*frame);
    WorkerReply reply;
    if (request)
      reply = compile(*request);
    else
      reply.error = "the compile worker received a malformed request";
    if (!write_frame(out_fd, encode_reply(reply))) return 1;
  }
  return 0;
}

bool CompileWorker::start(std::string* error) {
  if (pid_ > 0) return true;
  if (std::optional<LentWorker> lent = take_lent_worker();
      lent && memory_limit_bytes_ == kCompileWorkerMemoryBytes) {
    pid_ = lent->pid;
    to_worker_ = lent->to_worker;
    from_worker_ = lent->from_worker;
    lent_ = true;
    return true;
  }
  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0) {
    *error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    return false;
  }
  if (pipe2(from, O_CLOEXEC) != 0) {
    *error = fmt::format("cannot create a pipe: {}", std::strerror(errno));
    close(to[0]);
    close(to[1]);
    return false;
  }
  if (!folder_) {
    folder_ = ScratchDir::create("compile-worker", error);
    if (!folder_) return false;
  }
  // The worker compiles untrusted source, so it runs in the compiler's sandbox where there is one: no
  // network, a read-only /usr (the toolkit and NVRTC), its own folder read-only, and its scratch folder.
  std::vector<std::string> args = {program_};
  std::string unsandboxed_because;
  if (std::optional<std::string> bwrap = find_sandbox(&unsandboxed_because)) {
    std::error_code ec;
    const std::filesystem::path program = std::filesystem::canonical(program_, ec);
    if (ec) {
      *error = fmt::format("cannot find the compile worker at {}: {}", program_, ec.message());
      close(to[0]), close(to[1]), close(from[0]), close(from[1]);
      return false;
    }
    args = sandboxed_argv(*bwrap, {program.string()}, {folder_->path(), {program.parent_path()}});
  }
  // The worker dies with the grader, has its own process group (a timeout kills all of it), and sees only
  // its pipes.
  int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  SpawnOptions options;
  options.working_directory = folder_->path();
  options.memory_limit_bytes = memory_limit_bytes_;
  options.file_size_limit_bytes = kCompileFileBytes;  // NVRTC writes nothing; a file past this is not its
  options.stdin_fd = to[0];
  options.stdout_fd = from[1];
  options.stderr_fd = null_fd;
  options.dies_with_parent = true;
  std::string why_not;
  const pid_t pid = spawn_process(args, options, &why_not);
  close(to[0]);
  close(from[1]);
  if (null_fd >= 0) close(null_fd);
  if (pid < 0) {
    *error = fmt::format("cannot start the compile worker: {}", why_not);
    close(to[1]);
    close(from[0]);
    return false;
  }
  pid_ = pid;
  to_worker_ = to[1];
  from_worker_ = from[0];
  return true;
}

void CompileWorker::stop() {
  if (pid_ <= 0) return;
  close(to_worker_);  // the worker reads end of input and exits
  close(from_worker_);
  kill(-pid_, SIGKILL);  // ... or, when it is stuck, is ended
  kill(pid_, SIGKILL);
  int status = 0;
  if (!lent_) reap_child(pid_, &status, 0);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  lent_ = false;
}

void CompileWorker::forget() {
  if (pid_ <= 0) return;
  close(to_worker_);
  close(from_worker_);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  lent_ = false;
}

std::string CompileWorker::lend(std::vector<int>* descriptors) {
  int status = 0;
  if (pid_ > 0 && reap_child(pid_, &status, WNOHANG) == pid_) {  // it died while idle
    close(to_worker_);
    close(from_worker_);
    pid_ = -1;
  }
  std::string ignored;  // a worker that cannot start is the grade's to report, from its own attempt
  if (!start(&ignored)) return "";
  *descriptors = {to_worker_, from_worker_};
  return fmt::format("{}={} {} {}", kLentWorkerVariable, pid_, to_worker_, from_worker_);
}

void CompileWorker::take_back(bool ended_cleanly) {
  if (pid_ <= 0) return;
  pollfd unread{from_worker_, POLLIN, 0};
  std::error_code ec;
  // NVRTC writes no file: a worker whose folder is not empty is not lent again, nor is what it wrote.
  const bool wrote = folder_ && !std::filesystem::is_empty(folder_->path(), ec);
  if (!ended_cleanly || poll(&unread, 1, 0) != 0 || wrote || ec) {  // POLLHUP too: the worker has ended
    stop();
    folder_.reset();
  }
}

WorkerOutcome CompileWorker::compile(const WorkerRequest& request, double time_limit_seconds,
                                     uint64_t memory_limit_bytes) {
  if (memory_limit_bytes != memory_limit_bytes_) {
    lent_ ? forget() : stop();
    memory_limit_bytes_ = memory_limit_bytes;
  }
  const auto started = std::chrono::steady_clock::now();
  std::string error;
  if (!start(&error)) {
    WorkerOutcome outcome;
    outcome.why = error;
    return outcome;
  }
  if (lent_) {
    if (std::optional<WorkerOutcome> answered = ask(request, time_limit_seconds)) return *answered;
    // A lent worker that ended before it answered (its lender could not know) says nothing of the source:
    // the request goes to a worker of this process's own, with the time left.
    stop();
    time_limit_seconds -= std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!start(&error)) {
      WorkerOutcome outcome;
      outcome.why = error;
      return outcome;
    }
  }
  if (std::optional<WorkerOutcome> answered = ask(request, time_limit_seconds)) return *answered;
  // Its output ended: it has exited or is exiting. A worker that wrote nonsense and lives on is ended.
  WorkerOutcome outcome;
  int status = 0;
  pid_t ended = 0;
  for (int wait_ms = 0; wait_ms < 500 && ended == 0; wait_ms += 10) {
    ended = reap_child(pid_, &status, WNOHANG);
    if (ended == 0) usleep(10'000);
  }
  if (ended == 0) {
    kill(-pid_, SIGKILL);
    reap_child(pid_, &status, 0);
  }
  close(to_worker_);
  close(from_worker_);
  pid_ = -1;
  to_worker_ = from_worker_ = -1;
  outcome.status = WorkerOutcome::Status::kDied;
  if (WIFSIGNALED(status))
    outcome.why = fmt::format("killed by signal {} (out of memory?)", WTERMSIG(status));
  else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    outcome.why = fmt::format("{} could not start (missing, or too little memory to load NVRTC)", program_);
  else if (WIFEXITED(status))
    outcome.why = fmt::format("exited with status {} (out of memory?)", WEXITSTATUS(status));
  else
    outcome.why = "ended without a reply (out of memory?)";
  return outcome;
}

// One request to the running worker: its reply, or a timeout (the worker is ended); nullopt when the
// worker's output ended without a usable reply.
std::optional<WorkerOutcome> CompileWorker::ask(const WorkerRequest& request, double time_limit_seconds) {
  // A broken pipe is reported by write's result; the signal would end the grader.
  struct sigaction ignore {
  }, previous{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &previous);
  const bool sent = write_frame(to_worker_, encode_request(request));
  sigaction(SIGPIPE, &previous, nullptr);

  bool timed_out = false;
  std::optional<std::string> frame;
  if (sent) {
    auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                               std::chrono::duration<double>(time_limit_seconds));
    frame = read_frame_until(from_worker_, deadline, &timed_out);
  }
  WorkerOutcome outcome;
  if (std::optional<WorkerReply> reply = frame ? decode_reply(*frame) : std::nullopt) {
    outcome.status = WorkerOutcome::Status::kReplied;
    outcome.reply = std::move(*reply);
    return outcome;
  }
  if (!timed_out) return std::nullopt;
  outcome.status = WorkerOutcome::Status::kTimedOut;
  stop();
  return outcome;
}

void claim_lent_compile_worker() { claimed_lent_worker(); }

std::string find_compile_worker() {
  if (const char* env = std::getenv("GPUGRADE_COMPILE_WORKER"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::filesystem::path beside = self.parent_path() / "gpugrade-compile-worker";
    if (std::filesystem::is_regular_file(beside, ec)) return beside.string();
  }
  return GPUGRADE_DEFAULT_COMPILE_WORKER;
}

}  // namespace gpugrade
