// The launcher's input and output files. See job.h.
#include "harness/gpu/job.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "harness/coordinates.h"

namespace gpugrade::gpu {
namespace {

using nlohmann::json;

constexpr std::string_view kMagic = "gpugrade-launch 1\n";

// A buffer of at least this many bytes that is one 4-byte word repeated (an output filled with poison)
// travels as that word, not as its bytes.
constexpr size_t kRepeatedWordMinBytes = 4096;

std::optional<uint32_t> repeated_word(const Buffer& b) {
  if (b.bytes.size() < kRepeatedWordMinBytes || b.bytes.size() % 4 != 0) return std::nullopt;
  uint32_t word;
  std::memcpy(&word, b.bytes.data(), 4);
  for (size_t offset = 4; offset < b.bytes.size(); offset += 4)
    if (std::memcmp(b.bytes.data() + offset, &word, 4) != 0) return std::nullopt;
  return word;
}

// The buffers' header entries. *tail gets the buffers whose bytes follow the header, in order: all but
// those that travel as a repeated word and those `unchanged` marks (a result's buffers that are the
// job's bytes, which the reader still has).
json buffers_to_json(const std::vector<Buffer>& buffers, std::vector<const Buffer*>* tail,
                     const std::vector<bool>* unchanged = nullptr) {
  json out = json::array();
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& b = buffers[i];
    json entry = {{"name", b.name},
                  {"element_size", b.element_size},
                  {"bytes", b.bytes.size()},
                  {"filled_by_backend", b.filled_by_backend}};
    if (unchanged && i < unchanged->size() && (*unchanged)[i]) {
      entry["unchanged"] = true;
    } else if (std::optional<uint32_t> word = repeated_word(b)) {
      entry["repeated_word"] = *word;
    } else {
      tail->push_back(&b);
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// Sizes the buffers from the header and fills those that travel as a repeated word; the others' bytes
// are read later from the file's tail (see tail_of).
std::vector<Buffer> buffers_from_json(const json& j) {
  std::vector<Buffer> buffers;
  for (const json& b : j) {
    Buffer buffer;
    buffer.name = b.at("name").get<std::string>();
    buffer.element_size = b.at("element_size").get<uint32_t>();
    buffer.bytes.resize(b.at("bytes").get<size_t>());
    buffer.filled_by_backend = b.value("filled_by_backend", uint64_t{0});
    if (b.contains("repeated_word")) {
      const uint32_t word = b.at("repeated_word").get<uint32_t>();
      for (size_t offset = 0; offset + 4 <= buffer.bytes.size(); offset += 4)
        std::memcpy(buffer.bytes.data() + offset, &word, 4);
    }
    buffers.push_back(std::move(buffer));
  }
  return buffers;
}

// The buffers of `buffers` (read from header entries `j`) whose bytes follow in the tail.
void tail_of(std::vector<Buffer>& buffers, const json& j, std::vector<Buffer*>* tail) {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!j.at(i).contains("repeated_word") && !j.at(i).value("unchanged", false))
      tail->push_back(&buffers[i]);
}

json launch_to_json(const LaunchRequest& r, std::vector<const Buffer*>* tail) {
  json args = json::array();
  for (const KernelArg& a : r.args) {
    json arg = {{"buffer", a.kind == KernelArg::Kind::kBuffer}, {"index", a.buffer}, {"bits", a.bits}};
    if (a.kind == KernelArg::Kind::kStruct) {
      json pointers = json::array();
      for (const KernelArg::Pointer& p : a.pointers)
        pointers.push_back({{"at", p.at}, {"buffer", p.buffer}, {"offset", p.offset}});
      std::vector<uint8_t> bytes(a.bytes.size());
      std::memcpy(bytes.data(), a.bytes.data(), bytes.size());
      arg["struct"] = {{"bytes", bytes}, {"pointers", pointers}};
    }
    args.push_back(std::move(arg));
  }
  json constants = json::array();
  for (const ConstantCopy& c : r.constants) constants.push_back({{"symbol", c.symbol}, {"buffer", c.buffer}});
  return {{"entry", r.entry},
          {"grid", json(r.grid)},
          {"block", json(r.block)},
          {"dynamic_shared_bytes", r.dynamic_shared_bytes},
          {"args", args},
          {"buffers", buffers_to_json(r.buffers, tail)},
          {"constants", constants},
          {"wall_seconds", r.wall_seconds},
          {"keep_device_variables", r.keep_device_variables},
          {"cooperative", r.cooperative}};
}

LaunchRequest launch_from_json(const json& j) {
  LaunchRequest r;
  r.entry = j.at("entry").get<std::string>();
  r.grid = j.at("grid").get<Dim3>();
  r.block = j.at("block").get<Dim3>();
  r.dynamic_shared_bytes = j.at("dynamic_shared_bytes").get<uint32_t>();
  for (const json& a : j.at("args")) {
    KernelArg arg;
    arg.kind = a.at("buffer").get<bool>() ? KernelArg::Kind::kBuffer : KernelArg::Kind::kScalar;
    arg.buffer = a.at("index").get<size_t>();
    arg.bits = a.at("bits").get<uint64_t>();
    if (a.contains("struct")) {
      arg.kind = KernelArg::Kind::kStruct;
      const std::vector<uint8_t> bytes = a.at("struct").at("bytes").get<std::vector<uint8_t>>();
      arg.bytes.resize(bytes.size());
      std::memcpy(arg.bytes.data(), bytes.data(), bytes.size());
      for (const json& p : a.at("struct").at("pointers"))
        arg.pointers.push_back(
            {p.at("at").get<uint32_t>(), p.at("buffer").get<size_t>(), p.at("offset").get<uint64_t>()});
    }
    r.args.push_back(std::move(arg));
  }
  r.buffers = buffers_from_json(j.at("buffers"));
  for (const json& c : j.at("constants"))
    r.constants.push_back({c.at("symbol").get<std::string>(), c.at("buffer").get<size_t>()});
  r.wall_seconds = j.at("wall_seconds").get<double>();
  r.keep_device_variables = j.value("keep_device_variables", false);
  r.cooperative = j.value("cooperative", false);
  return r;
}

json kernel_to_json(const KernelJob& k, std::vector<const Buffer*>* tail) {
  return {{"ptx", k.ptx},
          {"param_bytes", k.param_bytes},
          {"launch", launch_to_json(k.request(), tail)},
          {"device_variables", k.device_variables}};
}

KernelJob kernel_from_json(const json& j) {
  return {j.at("ptx").get<std::string>(), j.at("param_bytes").get<std::vector<uint32_t>>(),
          launch_from_json(j.at("launch")), nullptr, j.value("device_variables", std::vector<std::string>{})};
}

json findings_to_json(const std::vector<Finding>& findings) {
  json out = json::array();
  for (const Finding& f : findings)
    out.push_back({{"kind", to_string(f.kind)},
                   {"severity", to_string(f.severity)},
                   {"message", f.message},
                   {"file", f.file},
                   {"line", f.line},
                   {"details", f.details}});
  return out;
}

std::vector<Finding> findings_from_json(const json& j) {
  std::vector<Finding> findings;
  for (const json& f : j) {
    Finding finding;
    finding.kind = parse_finding_kind(f.at("kind").get<std::string>()).value_or(FindingKind::kRuntimeError);
    finding.severity =
        f.at("severity").get<std::string>() == "warning" ? Severity::kWarning : Severity::kError;
    finding.message = f.at("message").get<std::string>();
    finding.file = f.at("file").get<std::string>();
    finding.line = f.at("line").get<int>();
    finding.details = f.at("details");
    findings.push_back(std::move(finding));
  }
  return findings;
}

json timing_to_json(const Timing& t) { return {t.median_ms, t.gb_per_s, t.spread}; }
Timing timing_from_json(const json& j) {
  return {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Header, then each buffer's bytes in order.
bool write_file(const std::string& path, const json& header, const std::vector<const Buffer*>& buffers,
                std::string* error) {
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    *error = fmt::format("cannot write {}", path);
    return false;
  }
  const std::string text = header.dump();
  const uint64_t size = text.size();
  bool ok = std::fwrite(kMagic.data(), 1, kMagic.size(), file.get()) == kMagic.size() &&
            std::fwrite(&size, sizeof size, 1, file.get()) == 1 &&
            std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
  for (const Buffer* b : buffers)
    ok = ok && std::fwrite(b->bytes.data(), 1, b->bytes.size(), file.get()) == b->bytes.size();
  ok = std::fflush(file.get()) == 0 && ok;
  if (!ok) *error = fmt::format("cannot write {}: disk full?", path);
  return ok;
}

// Reads the header; read_tail then fills the buffers the header sized.
bool read_header(std::FILE* file, const std::string& path, json* header, std::string* error) {
  std::string magic(kMagic.size(), '\0');
  uint64_t size = 0;
  if (std::fread(magic.data(), 1, magic.size(), file) != magic.size() || magic != kMagic ||
      std::fread(&size, sizeof size, 1, file) != 1) {
    *error = fmt::format("{} is not a gpugrade-launch file", path);
    return false;
  }
  std::string text(size, '\0');
  if (std::fread(text.data(), 1, text.size(), file) != text.size()) {
    *error = fmt::format("{} ends inside its header", path);
    return false;
  }
  *header = json::parse(text, nullptr, false);
  if (header->is_discarded()) {
    *error = fmt::format("{} has a malformed header", path);
    return false;
  }
  return true;
}

bool read_tail(std::FILE* file, const std::string& path, const std::vector<Buffer*>& buffers,
               std::string* error) {
  for (Buffer* b : buffers) {
    if (std::fread(b->bytes.data(), 1, b->bytes.size(), file) != b->bytes.size()) {
      *error = fmt::format("{} ends inside buffer '{}'", path, b->name);
      return false;
    }
  }
  return true;
}

// nlohmann::json reports a missing or mistyped field by throwing; a malformed file is an error value here.
template <typename Fill>
bool read_file(const std::string& path, std::string* error, Fill fill) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    *error = fmt::format("cannot read {}", path);
    return false;
  }
  json header;
  if (!read_header(file.get(), path, &header, error)) return false;
  std::vector<Buffer*> buffers;
  try {
    fill(header, &buffers);
  } catch (const json::exception& e) {
    *error = fmt::format("{} has a malformed header: {}", path, e.what());
    return false;
  }
  return read_tail(file.get(), path, buffers, error);
}

std::string_view mode_name(JobMode mode) {
  switch (mode) {
    case JobMode::kLaunch:
      return "launch";
    case JobMode::kTime:
      return "time";
    case JobMode::kProbe:
      return "probe";
    case JobMode::kSeries:
      return "series";
  }
  return "probe";
}

JobMode mode_from_name(const std::string& name) {
  for (JobMode mode : {JobMode::kLaunch, JobMode::kTime, JobMode::kSeries})
    if (name == mode_name(mode)) return mode;
  return JobMode::kProbe;
}

}  // namespace

bool write_job(const std::string& path, const Job& job, std::string* error) {
  std::vector<const Buffer*> tail;
  json header = {{"mode", mode_name(job.mode)},
                 {"subject", kernel_to_json(job.subject, &tail)},
                 {"baseline", kernel_to_json(job.baseline, &tail)},
                 {"bytes_moved", job.bytes_moved},
                 {"warmup_launches", job.warmup_launches},
                 {"timed_launches", job.timed_launches},
                 {"series", json::array()}};
  for (const LaunchRequest& launch : job.series) header["series"].push_back(launch_to_json(launch, &tail));
  return write_file(path, header, tail, error);
}

bool read_job(const std::string& path, Job* job, std::string* error) {
  return read_file(path, error, [&](const json& header, std::vector<Buffer*>* tail) {
    job->mode = mode_from_name(header.at("mode").get<std::string>());
    job->subject = kernel_from_json(header.at("subject"));
    job->baseline = kernel_from_json(header.at("baseline"));
    job->bytes_moved = header.at("bytes_moved").get<uint64_t>();
    job->warmup_launches = header.at("warmup_launches").get<int>();
    job->timed_launches = header.at("timed_launches").get<int>();
    for (const json& launch : header.at("series")) job->series.push_back(launch_from_json(launch));
    tail_of(job->subject.launch.buffers, header.at("subject").at("launch").at("buffers"), tail);
    tail_of(job->baseline.launch.buffers, header.at("baseline").at("launch").at("buffers"), tail);
    for (size_t k = 0; k < job->series.size(); ++k)
      tail_of(job->series[k].buffers, header.at("series").at(k).at("buffers"), tail);
  });
}

bool write_result(const std::string& path, const JobResult& result, std::string* error) {
  const Observations& o = result.observations;
  const TimingResult& t = result.timing;
  std::vector<const Buffer*> tail;
  json header = {{"device", result.device},
                 {"findings", findings_to_json(o.findings)},
                 {"buffers", buffers_to_json(o.buffers, &tail, &result.unchanged)},
                 {"seconds", o.seconds},
                 {"completed", o.completed},
                 {"timing",
                  {{"subject", timing_to_json(t.subject)},
                   {"baseline", timing_to_json(t.baseline)},
                   {"memcpy_dtod", timing_to_json(t.memcpy_dtod)},
                   {"ratio", t.ratio},
                   {"device_name", t.device},
                   {"findings", findings_to_json(t.findings)}}}};
  return write_file(path, header, tail, error);
}

bool read_result(const std::string& path, JobResult* result, std::string* error,
                 const std::vector<Buffer>* sent) {
  bool unchanged_ok = true;
  const bool read = read_file(path, error, [&](const json& header, std::vector<Buffer*>* tail) {
    result->device = header.at("device").get<std::string>();
    Observations& o = result->observations;
    o.findings = findings_from_json(header.at("findings"));
    o.buffers = buffers_from_json(header.at("buffers"));
    o.seconds = header.at("seconds").get<double>();
    o.completed = header.at("completed").get<bool>();
    const json& t = header.at("timing");
    result->timing.subject = timing_from_json(t.at("subject"));
    result->timing.baseline = timing_from_json(t.at("baseline"));
    result->timing.memcpy_dtod = timing_from_json(t.at("memcpy_dtod"));
    result->timing.ratio = t.at("ratio").get<double>();
    result->timing.device = t.at("device_name").get<std::string>();
    result->timing.findings = findings_from_json(t.at("findings"));
    tail_of(o.buffers, header.at("buffers"), tail);
    for (size_t i = 0; i < o.buffers.size(); ++i) {
      if (!header.at("buffers").at(i).value("unchanged", false)) continue;
      if (!sent || i >= sent->size() || (*sent)[i].bytes.size() != o.buffers[i].bytes.size()) {
        unchanged_ok = false;
        continue;
      }
      std::memcpy(o.buffers[i].bytes.data(), (*sent)[i].bytes.data(), o.buffers[i].bytes.size());
    }
  });
  if (read && !unchanged_ok)
    *error = fmt::format("{} says a buffer is unchanged that this job did not send", path);
  return read && unchanged_ok;
}

}  // namespace gpugrade::gpu
