// nvcc to PTX in a throwaway folder, with limits; compiler diagnostics mapped back to the learner's paths;
// and the cache in front of any Compiler.
#include "grader/compiler.h"

#include <charconv>
#include <cstdlib>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "grader/file_bytes.h"
#include "grader/process.h"
#include "grader/scratch_dir.h"

namespace gpugrade {
namespace {

bool is_identifier(std::string_view name) {
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(name.begin(), name.end(), kIdentifier);
}

// A plain name in the folder: nothing that could place a file outside the temporary folder.
bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name.find('/') == std::string_view::npos && name != "." && name != "..";
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

Finding compile_error(std::string message, std::string file) {
  Finding finding;
  finding.kind = FindingKind::kCompileError;
  finding.message = std::move(message);
  finding.file = std::move(file);
  return finding;
}

std::string first_line(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "";
  text.remove_prefix(start);
  return std::string(text.substr(0, text.find('\n')));
}

nlohmann::json to_cache_json(const CompileOutput& output) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : output.findings)
    findings.push_back({{"kind", to_string(f.kind)},
                        {"severity", to_string(f.severity)},
                        {"message", f.message},
                        {"file", f.file},
                        {"line", f.line},
                        {"details", f.details}});
  return {{"ptx", output.ptx}, {"findings", findings}};
}

std::optional<CompileOutput> from_cache_json(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json["ptx"].is_string() || !json["findings"].is_array()) return std::nullopt;
  CompileOutput output;
  output.ptx = json["ptx"].get<std::string>();
  for (nlohmann::json f : json["findings"]) {
    if (!f.is_object() || !f["kind"].is_string()) return std::nullopt;
    std::optional<FindingKind> kind = parse_finding_kind(f["kind"].get<std::string>());
    if (!kind || !f["message"].is_string() || !f["file"].is_string() || !f["line"].is_number_integer() ||
        !f["severity"].is_string() || !f["details"].is_object())
      return std::nullopt;
    Finding finding;
    finding.kind = *kind;
    finding.severity = f["severity"] == "warning" ? Severity::kWarning : Severity::kError;
    finding.message = f["message"].get<std::string>();
    finding.file = f["file"].get<std::string>();
    finding.line = f["line"].get<int>();
    finding.details = f["details"];
    output.findings.push_back(std::move(finding));
  }
  output.from_cache = true;
  return output;
}

}  // namespace

std::vector<Finding> parse_diagnostics(std::string_view output, FindingKind kind, const PathMap& paths) {
  // nvcc's front end: `path(12): error: text`, `path(3): warning #177-D: text`, `catastrophic error`.
  static const std::regex kNvcc(R"(^(.+)\((\d+)\): (catastrophic error|error|warning|remark)( #\S+)?: (.*)$)");
  // gcc (the host preprocessor behind nvcc, and the host compiler): `path:12:5: error: text`.
  static const std::regex kGcc(R"(^(.+):(\d+):(\d+): (fatal error|error|warning|note): (.*)$)");
  std::vector<Finding> findings;
  std::istringstream lines{std::string(output)};
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    std::string file, line_text, severity, message;
    if (std::regex_match(line, m, kNvcc)) {
      file = m[1], line_text = m[2], severity = m[3], message = m[5];
    } else if (std::regex_match(line, m, kGcc)) {
      file = m[1], line_text = m[2], severity = m[4], message = m[5];
    } else {
      continue;  // source echoes, carets, "1 error detected", notes' context lines
    }
    if (severity == "remark" || severity == "note") continue;
    bool is_warning = severity == "warning";
    auto mapped = std::find_if(paths.begin(), paths.end(), [&](const auto& p) { return p.first == file; });
    if (mapped != paths.end()) file = mapped->second;
    else if (is_warning) continue;
    Finding finding = compile_error(message, file);
    finding.kind = kind;
    finding.severity = is_warning ? Severity::kWarning : Severity::kError;
    std::from_chars(line_text.data(), line_text.data() + line_text.size(), finding.line);  // 0 if absurd
    findings.push_back(std::move(finding));
  }
  return findings;
}

std::string find_nvcc() {
  if (const char* cudacxx = std::getenv("CUDACXX"); cudacxx != nullptr && *cudacxx != '\0') return cudacxx;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0')
    return (std::filesystem::path(home) / "bin" / "nvcc").string();
  return GPUGRADE_DEFAULT_NVCC;
}

std::optional<NvccCompiler> NvccCompiler::create(const std::string& nvcc_path, std::string* error) {
  std::optional<std::string> version = tool_version(nvcc_path, error);
  if (!version) return std::nullopt;
  return NvccCompiler(nvcc_path, *version);
}

CompileOutput NvccCompiler::compile(const CompileRequest& request) {
  CompileOutput output;
  auto fail = [&](std::string message) {
    output.findings.push_back(compile_error(std::move(message), request.display_path));
    return output;
  };
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("nvcc", &error);
  if (!dir) return fail(error);
  if (!is_plain_file_name(request.source.name))
    return fail(fmt::format("'{}' is not a plain file name", request.source.name));
  PathMap paths;
  std::filesystem::path source = dir->path() / request.source.name;
  paths.emplace_back(source.string(), request.display_path);
  for (const SourceFile& header : request.headers) {
    if (!is_plain_file_name(header.name) || header.name == request.source.name)
      return fail(fmt::format("the exercise's header '{}' cannot be copied beside the submission", header.name));
    if (!write_file_bytes(dir->path() / header.name, header.bytes)) return fail("cannot copy the exercise's headers");
    paths.emplace_back((dir->path() / header.name).string(),
                       fmt::format("{}/{}", request.headers_display_dir, header.name));
  }
  if (!write_file_bytes(source, request.source.bytes)) return fail("cannot copy the submission for nvcc");

  std::filesystem::path ptx = dir->path() / "gpugrade-output.ptx";
  std::vector<std::string> argv = {path_, "-ptx", "-lineinfo", "-O3", "-arch=" + request.arch};
  for (const Define& define : request.defines) {
    if (!is_identifier(define.name)) return fail(fmt::format("'{}' cannot be a macro name", define.name));
    argv.push_back(fmt::format("-D{}={}", define.name, define.value));
  }
  argv.insert(argv.end(), request.flags.begin(), request.flags.end());
  argv.insert(argv.end(), {"-o", ptx.string(), source.string()});
  ProcessResult run = run_process(argv, {.working_directory = dir->path(),
                                         .time_limit_seconds = request.time_limit_seconds,
                                         .memory_limit_bytes = request.memory_limit_bytes,
                                         .extra_environment = {"LC_ALL=C"}});
  if (!run.started) return fail(fmt::format("cannot run nvcc: {}", run.error));
  if (run.timed_out) {
    output.timed_out = true;
    return fail(fmt::format("nvcc did not finish within {:g} s; look for loops unrolled without bound or "
                            "deep template recursion",
                            request.time_limit_seconds));
  }
  output.findings = parse_diagnostics(run.err + run.out, FindingKind::kCompileError, paths);
  if (run.exit_code == 0) {
    output.ptx = read_file_bytes(ptx).value_or("");
    for (const auto& [temp, display] : paths)
      replace_all(output.ptx, fmt::format("\"{}\"", temp), fmt::format("\"{}\"", display));
  }
  bool has_error = std::any_of(output.findings.begin(), output.findings.end(),
                               [](const Finding& f) { return f.severity == Severity::kError; });
  if (!output.ok() && !has_error) {
    std::string why = run.signal != 0 ? fmt::format("killed by signal {} (out of memory?)", run.signal)
                                       : first_line(run.err + run.out);
    return fail(fmt::format("nvcc failed: {}", why.empty() ? "no PTX was written" : why));
  }
  return output;
}

CompileOutput CachingCompiler::compile(const CompileRequest& request) {
  CacheKey key("nvcc-ptx 1");
  key.add(inner_.identity()).add(request.source.name).add(request.source.bytes).add(request.display_path);
  key.add(request.headers_display_dir).add(request.arch);
  key.add(std::to_string(request.headers.size()));
  for (const SourceFile& header : request.headers) key.add(header.name).add(header.bytes);
  for (const Define& define : request.defines) key.add(define.name).add(define.value);
  for (const std::string& flag : request.flags) key.add(flag);
  std::string hex = key.hex();
  if (std::optional<std::string> hit = cache_.get(hex))
    if (std::optional<CompileOutput> output = from_cache_json(*hit)) return std::move(*output);
  CompileOutput output = inner_.compile(request);
  std::string ignored;  // an unwritable cache only costs time
  if (!output.timed_out) cache_.put(hex, to_cache_json(output).dump(), &ignored);
  return output;
}

}  // namespace gpugrade
