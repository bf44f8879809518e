// nvcc to PTX in a throwaway folder, with limits; compiler diagnostics mapped back to the learner's paths;
// and the cache in front of any Compiler.
#include "grader/compile/compiler.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "grader/compile/sandbox.h"
#include "grader/result/text_escape.h"
#include "os/file.h"
#include "os/process.h"
#include "os/scratch_dir.h"

namespace gpugrade {
namespace {

bool is_identifier(std::string_view name) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), word_char);
}

// A plain name in the folder: nothing that could place a file outside the temporary folder.
bool is_plain_file_name(std::string_view name) {
  return !name.empty() && name.find('/') == std::string_view::npos && name != "." && name != "..";
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

// One diagnostic line's parts, pointing into the line.
struct DiagnosticLine {
  std::string_view file, line, severity, message;
  std::string_view column = {};  // gcc's form only: nvcc's front end shows its column with a caret instead
};

size_t digits_at(std::string_view text, size_t pos) {
  size_t end = pos;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  return end - pos;
}

// Removes `prefix` from the front of *text when it is there.
bool take(std::string_view* text, std::string_view prefix) {
  if (!text->starts_with(prefix)) return false;
  text->remove_prefix(prefix.size());
  return true;
}

// The first of `words` that *text starts with, removed from it; empty when none.
std::string_view take_any(std::string_view* text, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words)
    if (take(text, word)) return word;
  return {};
}

// The line readers below are written by hand, not with std::regex: its matcher recurses once per character,
// and a 40,000-character source line, echoed by the compiler under an error, overflowed the stack. A file
// name may itself hold parentheses and colons, so each takes the rightmost place where its pattern fits,
// as a greedy `(.+)` would. Each candidate is rejected within a few characters, so a line costs O(length).

// nvcc's front end: `path(12): error: text`, `path(3): warning #177-D: text`, `catastrophic error`, `remark`.
std::optional<DiagnosticLine> read_nvcc_line(std::string_view line) {
  for (size_t open = line.rfind('('); open != std::string_view::npos && open > 0;
       open = line.rfind('(', open - 1)) {
    size_t digits = digits_at(line, open + 1);
    if (digits == 0) continue;
    std::string_view rest = line.substr(open + 1 + digits);
    if (!take(&rest, "): ")) continue;
    std::string_view severity = take_any(&rest, {"catastrophic error", "error", "warning", "remark"});
    if (severity.empty()) continue;
    if (rest.starts_with(" #")) {  // a diagnostic number, `#177-D`, up to its colon
      size_t space = std::min(rest.find(' ', 2), rest.size());
      if (space > 3 && rest[space - 1] == ':' && space < rest.size()) rest.remove_prefix(space - 1);
    }
    if (!take(&rest, ": ")) continue;
    return DiagnosticLine{line.substr(0, open), line.substr(open + 1, digits), severity, rest};
  }
  return std::nullopt;
}

// gcc (the host preprocessor behind nvcc, and the host compiler): `path:12:5: error: text`.
std::optional<DiagnosticLine> read_gcc_line(std::string_view line) {
  for (size_t colon = line.rfind(':'); colon != std::string_view::npos && colon > 0;
       colon = line.rfind(':', colon - 1)) {
    size_t line_digits = digits_at(line, colon + 1);
    if (line_digits == 0) continue;
    std::string_view rest = line.substr(colon + 1 + line_digits);
    if (!take(&rest, ":")) continue;
    size_t column_digits = digits_at(rest, 0);
    if (column_digits == 0) continue;
    const std::string_view column = rest.substr(0, column_digits);
    rest.remove_prefix(column_digits);
    if (!take(&rest, ": ")) continue;
    std::string_view severity = take_any(&rest, {"fatal error", "error", "warning", "note"});
    if (severity.empty() || !take(&rest, ": ")) continue;
    return DiagnosticLine{line.substr(0, colon), line.substr(colon + 1, line_digits), severity, rest, column};
  }
  return std::nullopt;
}

std::string_view next_line(std::string_view* text) {
  const size_t end = std::min(text->find('\n'), text->size());
  std::string_view line = text->substr(0, end);
  text->remove_prefix(std::min(end + 1, text->size()));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// nvcc's front end shows the line under a diagnostic, indented by two spaces, and a caret under the
// column: the offset of the caret in the shown line, or nullopt when `caret` is not a caret line.
std::optional<size_t> caret_offset(std::string_view shown, std::string_view caret) {
  if (!shown.starts_with("  ") || !caret.starts_with("  ")) return std::nullopt;
  const size_t at = caret.find_first_not_of(" \t");
  if (at == std::string_view::npos || caret[at] != '^' ||
      caret.find_first_not_of(" \t", at + 1) != std::string_view::npos)
    return std::nullopt;
  return at >= shown.size() ? std::nullopt : std::optional<size_t>(at - 2);
}

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The 1-based column in `source` (the learner's line) of what the caret points at in `shown`, the line as
// the compiler showed it; 0 when it cannot be placed for certain. NVRTC shows the line as written; nvcc
// shows it preprocessed (comments gone, white space changed, macros expanded), so there the caret's place
// is found by the non-blank characters before it, and checked against the word it points at.
int column_on(std::string_view source, std::string_view shown, size_t caret) {
  if (shown == source) return static_cast<int>(caret) + 1;
  size_t word_end = caret;
  while (word_end < shown.size() && is_word_char(shown[word_end])) ++word_end;
  const std::string_view word = shown.substr(caret, std::max<size_t>(word_end - caret, 1));
  size_t before = 0;
  for (size_t i = 0; i < caret; ++i) before += shown[i] != ' ' && shown[i] != '\t';
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == ' ' || source[i] == '\t') continue;
    if (before-- == 0) {
      if (source.substr(i).starts_with(word)) return static_cast<int>(i) + 1;
      break;
    }
  }
  // The word where it stands alone, once on the line; anything else is a guess, and no column is better.
  if (!is_word_char(word[0]) || word.size() > 256) return 0;
  int found = 0;
  for (size_t at = source.find(word); at != std::string_view::npos; at = source.find(word, at + 1)) {
    const bool alone = (at == 0 || !is_word_char(source[at - 1])) &&
                       (at + word.size() == source.size() || !is_word_char(source[at + word.size()]));
    if (!alone) continue;
    if (found != 0) return 0;
    found = static_cast<int>(at) + 1;
  }
  return found;
}

// Line `number` (1-based) of `text`, without its line break; nullopt past the end.
std::optional<std::string_view> line_of(std::string_view text, int number) {
  for (int l = 1; l < number; ++l) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) return std::nullopt;
    text.remove_prefix(end + 1);
  }
  std::string_view line = text.substr(0, std::min(text.find('\n'), text.size()));
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return number > 0 ? std::optional(line) : std::nullopt;
}

// nvcc's failures that are the grader's, told from what nvcc and its tools said as they failed (LC_ALL=C
// keeps those words English): the disk under the scratch folder filled, or something outside the compile's
// own limits killed nvcc.
std::optional<Fault> fault_outside_the_source(const ProcessResult& run, const std::filesystem::path& dir) {
  if (run.succeeded() || run.timed_out) return std::nullopt;
  const std::string said = run.err + run.out;
  if (said.find(std::strerror(ENOSPC)) != std::string::npos)
    return Fault{FaultOrigin::kGrader,
                 fmt::format("the disk under {} filled while nvcc wrote its temporary files ({})",
                             dir.parent_path().string(), std::strerror(ENOSPC))};
  if (run.signal == SIGKILL)
    return Fault{FaultOrigin::kGrader, "nvcc was killed from outside (signal 9), within its time limit"};
  return std::nullopt;
}

// A file the compile wrote reached kCompileFileBytes: the writer (nvcc, or the preprocessor or front end it
// ran) was ended by SIGXFSZ, which nvcc reports by the signal's name.
bool wrote_past_the_file_limit(const ProcessResult& run) {
  return run.signal == SIGXFSZ ||
         (run.exit_code != 0 && (run.err + run.out).find(strsignal(SIGXFSZ)) != std::string::npos);
}

}  // namespace

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

std::vector<Finding> parse_diagnostics(std::string_view output, FindingKind kind, const PathMap& paths,
                                       const SourceFile& shown) {
  std::vector<Finding> findings;
  while (!output.empty()) {
    std::string_view line = next_line(&output);
    std::optional<DiagnosticLine> read = read_nvcc_line(line);
    if (!read) read = read_gcc_line(line);
    if (!read) continue;  // source echoes, carets, "1 error detected", notes' context lines
    if (read->severity == "remark" || read->severity == "note") continue;
    bool is_warning = read->severity == "warning";
    std::string file(read->file);
    auto mapped = std::find_if(paths.begin(), paths.end(), [&](const auto& p) { return p.first == file; });
    if (mapped != paths.end())
      file = mapped->second;
    else if (is_warning)
      continue;
    Finding finding = compile_error(escape_invalid_utf8(read->message), escape_invalid_utf8(file));
    finding.kind = kind;
    finding.severity = is_warning ? Severity::kWarning : Severity::kError;
    std::from_chars(read->line.data(), read->line.data() + read->line.size(), finding.line);  // 0 if absurd
    int column = 0;
    const bool learners = !shown.name.empty() && file == shown.name;
    if (!read->column.empty()) {
      std::from_chars(read->column.data(), read->column.data() + read->column.size(), column);
    } else {
      std::string_view after = output;
      const std::string_view echo = next_line(&after);
      const std::optional<size_t> caret = caret_offset(echo, next_line(&after));
      const std::optional<std::string_view> source =
          learners && caret ? line_of(shown.bytes, finding.line) : std::nullopt;
      if (source) column = column_on(*source, echo.substr(2), *caret);
    }
    if (learners && finding.line > 0 && column > 0) {
      finding.details["line"] = finding.line;
      finding.details["column"] = column;
    }
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
  NvccCompiler compiler(nvcc_path, *version);
  compiler.bwrap_ = find_sandbox(&compiler.unsandboxed_because_);
  return compiler;
}

// nvcc on one request, in a scratch folder of its own holding the submission and the exercise's headers,
// in the sandbox where there is one, with the limits every compile has. `mode` is what nvcc makes (-ptx
// ..., or -E), written to `output_name`. nullopt with `output`'s fault or finding saying why it did not run.
std::optional<NvccCompiler::Ran> NvccCompiler::run(const CompileRequest& request,
                                                   const std::vector<std::string>& mode,
                                                   const std::string& output_name, CompileOutput& output) {
  auto fault = [&](FaultOrigin origin, std::string message) -> std::optional<Ran> {
    output.fault = Fault{origin, std::move(message)};
    return std::nullopt;
  };
  std::string error;
  std::optional<ScratchDir> dir = ScratchDir::create("nvcc", &error);
  if (!dir) return fault(FaultOrigin::kGrader, error);
  if (!is_plain_file_name(request.source.name))
    return fault(FaultOrigin::kCourse,
                 fmt::format("the exercise's file '{}' is not a plain file name", request.source.name));
  // Checked before nvcc runs: a disk the grader has let fill is its own fault, not the next submission's.
  std::error_code ec;
  const std::filesystem::space_info room = std::filesystem::space(dir->path(), ec);
  if (!ec && room.available < kCompileFileBytes)
    return fault(
        FaultOrigin::kGrader,
        fmt::format("only {} MiB are free in {}, where compiles write, and one may need {} MiB: free "
                    "some space there, or point TMPDIR at a folder with room",
                    room.available >> 20, dir->path().parent_path().string(), kCompileFileBytes >> 20));
  Ran ran{std::move(*dir), {}, {}};
  const std::filesystem::path folder = ran.dir.path();
  std::filesystem::path source = folder / request.source.name;
  ran.paths.emplace_back(source.string(), request.display_path);
  for (const SourceFile& header : request.headers) {
    if (!is_plain_file_name(header.name) || header.name == request.source.name)
      return fault(
          FaultOrigin::kCourse,
          fmt::format("the exercise's header '{}' cannot be copied beside the submission", header.name));
    if (!write_file_bytes(folder / header.name, header.bytes))
      return fault(FaultOrigin::kGrader,
                   fmt::format("cannot copy the exercise's headers into {}", folder.string()));
    ran.paths.emplace_back((folder / header.name).string(),
                           fmt::format("{}/{}", request.headers_display_dir, header.name));
  }
  if (!write_file_bytes(source, request.source.bytes))
    return fault(FaultOrigin::kGrader, fmt::format("cannot copy the submission into {}", folder.string()));
  std::filesystem::path nvcc = bwrap_ ? std::filesystem::canonical(path_, ec) : std::filesystem::path(path_);
  if (ec) return fault(FaultOrigin::kGrader, fmt::format("cannot find nvcc at {}: {}", path_, ec.message()));
  std::vector<std::string> argv = {nvcc.string()};
  argv.insert(argv.end(), mode.begin(), mode.end());
  argv.push_back("-arch=" + request.arch);
  for (const Define& define : request.defines) {
    if (!is_identifier(define.name)) {
      output.findings.push_back(
          compile_error(fmt::format("'{}' cannot be a macro name", define.name), request.display_path));
      return std::nullopt;
    }
    argv.push_back(fmt::format("-D{}={}", define.name, define.value));
  }
  argv.insert(argv.end(), request.flags.begin(), request.flags.end());
  argv.insert(argv.end(), {"-o", (folder / output_name).string(), source.string()});
  if (bwrap_) {
    SandboxView view{folder, {}};
    if (std::filesystem::path root = tool_root_outside_usr(nvcc); !root.empty())
      view.read_only.push_back(root);
    argv = sandboxed_argv(*bwrap_, argv, view);
  }
  ran.process = run_process(argv, {.working_directory = folder,
                                   .time_limit_seconds = request.time_limit_seconds,
                                   .memory_limit_bytes = request.memory_limit_bytes,
                                   .file_size_limit_bytes = kCompileFileBytes,
                                   // nvcc's temporary files in this compile's own folder (which Ctrl-C
                                   // removes), in the sandbox or not, never in a /tmp other grades share
                                   .extra_environment = {"LC_ALL=C", "TMPDIR=" + folder.string()}});
  if (!ran.process.started)
    return fault(FaultOrigin::kGrader, fmt::format("cannot run nvcc: {}", ran.process.error));
  if (std::optional<Fault> outside = fault_outside_the_source(ran.process, folder)) {
    output.fault = std::move(outside);
    return std::nullopt;
  }
  return ran;
}

CompileOutput NvccCompiler::compile(const CompileRequest& request) {
  CompileOutput output;
  auto fail = [&](std::string message) {
    output.findings.push_back(compile_error(std::move(message), request.display_path));
    return output;
  };
  const std::string ptx_name = "gpugrade-output.ptx";
  std::optional<Ran> ran = run(request, {"-ptx", "-lineinfo", "-O3"}, ptx_name, output);
  if (!ran) return output;
  const ProcessResult& process = ran->process;
  if (wrote_past_the_file_limit(process))
    return fail(fmt::format(
        "compiling this file wrote more than the {} MiB one compile may write to a file, and was stopped; "
        "look for macros that expand without end or an #include of something huge",
        kCompileFileBytes >> 20));
  if (process.timed_out) {
    output.timed_out = true;
    return fail(
        fmt::format("nvcc did not finish within {:g} s; look for loops unrolled without bound or "
                    "deep template recursion",
                    request.time_limit_seconds));
  }
  output.findings = parse_diagnostics(process.err + process.out, FindingKind::kCompileError, ran->paths,
                                      {request.display_path, request.source.bytes});
  if (process.exit_code == 0) {
    output.ptx = read_file_bytes(ran->dir.path() / ptx_name).value_or("");
    for (const auto& [temp, display] : ran->paths)
      replace_all(output.ptx, fmt::format("\"{}\"", temp), fmt::format("\"{}\"", display));
  }
  bool has_error = std::any_of(output.findings.begin(), output.findings.end(),
                               [](const Finding& f) { return f.severity == Severity::kError; });
  if (!output.ok() && !has_error) {
    std::string why = process.signal != 0
                          ? fmt::format("killed by signal {} (out of memory?)", process.signal)
                          : first_line(process.err + process.out);
    return fail(fmt::format("nvcc failed: {}", why.empty() ? "no PTX was written" : why));
  }
  return output;
}

std::optional<std::string> NvccCompiler::preprocess(const CompileRequest& request) {
  const std::string name = "gpugrade-preprocessed.cu";
  CompileOutput why_not;  // the screen keeps its refusals whatever stopped the preprocessor
  std::optional<Ran> ran = run(request, {"-E", "-x", "cu"}, name, why_not);
  if (!ran || ran->process.timed_out || ran->process.exit_code != 0) return std::nullopt;
  return read_file_bytes(ran->dir.path() / name);
}

std::optional<std::string> CachingCompiler::preprocess(const CompileRequest& request) {
  return inner_.preprocess(request);
}

CompileOutput CachingCompiler::compile(const CompileRequest& request) {
  CacheKey key("nvcc-ptx 2");  // 2: compile errors carry their column
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
  if (!output.timed_out && !output.fault) cache_.put(hex, to_cache_json(output).dump(), &ignored);
  return output;
}

}  // namespace gpugrade
