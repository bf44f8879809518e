// gpugrade-compile-worker: NVRTC behind the compile worker's protocol (grader/compile/compile_worker.h). The
// only program of the project that loads NVRTC; the grader starts it and speaks to it over its stdin and
// stdout.
#include <nvrtc.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "grader/compile/compile_worker.h"

namespace {

using gpugrade::WorkerReply;
using gpugrade::WorkerRequest;

// NVRTC names the source in `.file` by its absolute path under the working directory (an empty folder the
// grader made); the reply names it as the request did.
void strip_working_directory(std::string& ptx) {
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return;
  const std::string prefix = std::string("\"") + cwd + "/";
  for (size_t at = ptx.find(prefix); at != std::string::npos; at = ptx.find(prefix, at + 1))
    ptx.replace(at, prefix.size(), "\"");
}

WorkerReply compile_with_nvrtc(const WorkerRequest& request) {
  WorkerReply reply;
  std::vector<const char*> header_bytes, header_names;
  for (const gpugrade::SourceFile& h : request.headers) {
    header_bytes.push_back(h.bytes.c_str());
    header_names.push_back(h.name.c_str());
  }
  nvrtcProgram program = nullptr;
  nvrtcResult created =
      nvrtcCreateProgram(&program, request.source.bytes.c_str(), request.source.name.c_str(),
                         static_cast<int>(header_bytes.size()), header_bytes.data(), header_names.data());
  if (created != NVRTC_SUCCESS) {
    reply.error = nvrtcGetErrorString(created);
    return reply;
  }
  std::vector<const char*> options;
  for (const std::string& option : request.options) options.push_back(option.c_str());
  nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
    reply.log.resize(size);
    if (nvrtcGetProgramLog(program, reply.log.data()) != NVRTC_SUCCESS) reply.log.clear();
    while (!reply.log.empty() && reply.log.back() == '\0') reply.log.pop_back();
  }
  if (compiled == NVRTC_SUCCESS) {
    if (nvrtcGetPTXSize(program, &size) == NVRTC_SUCCESS) {
      reply.ptx.resize(size);
      if (nvrtcGetPTX(program, reply.ptx.data()) == NVRTC_SUCCESS) {
        while (!reply.ptx.empty() && reply.ptx.back() == '\0') reply.ptx.pop_back();
        strip_working_directory(reply.ptx);
        reply.compiled = true;
      }
    }
  } else if (compiled != NVRTC_ERROR_COMPILATION) {
    reply.error = nvrtcGetErrorString(compiled);
  }
  nvrtcDestroyProgram(&program);
  return reply;
}

}  // namespace

int main() {
  // Frames go out on a private copy of stdout; anything NVRTC itself might print lands on stderr.
  int frames_out = dup(STDOUT_FILENO);
  if (frames_out < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 1;
  return gpugrade::serve_compile_requests(STDIN_FILENO, frames_out, compile_with_nvrtc);
}
