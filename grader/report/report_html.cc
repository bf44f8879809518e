// The HTML report: one self-contained page (its style, script and data inline; nothing from the network).
// The problems and the source are written as HTML here; the pictures are drawn by the page's script from
// data this file chooses out of the result: the shared array coloured by bank with the worst warp's
// accesses (metrics.samples.shared), a race's cells with its two threads and lines (the race findings and
// the array's shape), a warp's global access as the sectors it touches (metrics.samples.global), and an
// output's wrong and unwritten elements as a heat map (the output findings' cells, metrics.outputs).
#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "grader/report/report_html_page.h"
#include "grader/report/report_lines.h"
#include "grader/report/reporters.h"
#include "grader/result/text_escape.h"
#include "harness/coordinates.h"
#include "harness/finding_facts.h"

namespace gpugrade {
namespace {

// The page's Content-Security-Policy: nothing from outside (no fetch, image, font, frame or form target), and
// of inline code only the page's own style and script, named by their SHA-256, so that markup that ever got
// past escaping could not run or load anything.
std::string content_security_policy(std::string_view style, std::string_view script) {
  const auto hash = [](std::string_view text) {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
    unsigned char base64[4 * ((SHA256_DIGEST_LENGTH + 2) / 3) + 1];
    EVP_EncodeBlock(base64, digest, SHA256_DIGEST_LENGTH);
    return fmt::format("'sha256-{}'", reinterpret_cast<const char*>(base64));
  };
  return fmt::format(
      "default-src 'none'; style-src {}; script-src {}; img-src 'none'; base-uri 'none'; "
      "form-action 'none'",
      hash(style), hash(script));
}

// The run label a finding's figures come from: its size, else the size part of "figures_from".
std::string size_of(const Finding& finding) {
  if (!finding.size.empty()) return finding.size;
  const std::string from = finding.details.value("figures_from", "");
  const size_t comma = from.find(", ");
  return comma == std::string::npos ? "" : from.substr(comma + 2);
}

std::string variant_of(const Finding& finding) {
  if (!finding.variant.empty()) return finding.variant;
  const std::string from = finding.details.value("figures_from", "");
  return from.substr(0, from.find(", "));
}

// The sample of `kind` ("shared", "global") at the finding's line; the finding's variant's when there is one.
const nlohmann::json* sample_at(const Result& result, const char* kind, const Finding& finding) {
  if (!result.metrics.contains("samples") || !result.metrics["samples"].contains(kind)) return nullptr;
  const nlohmann::json* best = nullptr;
  for (const nlohmann::json& sample : result.metrics["samples"][kind]) {
    if (sample.value("line", 0) != finding.line) continue;
    if (best == nullptr || (sample.value("variant", "") == finding.variant && !finding.variant.empty()))
      best = &sample;
  }
  return best;
}

// Rows and columns to draw an array of `elements` in: its declared dims (the last one as columns, the
// others folded into rows), else rows of 32.
std::pair<int64_t, int64_t> grid_of(const nlohmann::json& dims, int64_t elements) {
  if (dims.is_array() && dims.size() >= 2) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < dims.size(); ++i) rows *= std::max<int64_t>(dims[i].get<int64_t>(), 1);
    return {rows, std::max<int64_t>(dims.back().get<int64_t>(), 1)};
  }
  const int64_t n = dims.is_array() && dims.size() == 1 ? dims[0].get<int64_t>() : elements;
  const int64_t cols = std::min<int64_t>(32, std::max<int64_t>(n, 1));
  return {(std::max<int64_t>(n, 1) + cols - 1) / cols, cols};
}

std::optional<nlohmann::json> bank_picture(const Result& result, const Finding& finding) {
  const nlohmann::json* sample = sample_at(result, "shared", finding);
  if (sample == nullptr) return std::nullopt;
  const int64_t element = sample->value("element_size", int64_t{4});
  int64_t highest = 0;
  nlohmann::json lanes = nlohmann::json::array();
  const nlohmann::json& offsets = (*sample)["offsets"];
  const int64_t base = sample->value("variable_offset", int64_t{0});
  std::map<int64_t, std::vector<int64_t>> words_per_bank;
  for (size_t lane = 0; lane < offsets.size(); ++lane) {
    if (offsets[lane].is_null()) continue;
    const int64_t offset = offsets[lane].get<int64_t>();
    const int64_t word = (base + offset) / 4;
    const int64_t bank = word % 32;
    auto& words = words_per_bank[bank];
    if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
    lanes.push_back({{"lane", lane}, {"element", offset / element}, {"bank", bank}});
    highest = std::max(highest, offset / element);
  }
  int64_t conflict_bank = -1;
  size_t most = 0;
  for (const auto& [bank, words] : words_per_bank) {
    if (words.size() <= most) continue;
    conflict_bank = bank;
    most = words.size();
  }
  const auto [rows, cols] = grid_of(sample->value("dims", nlohmann::json()), highest + 1);
  return nlohmann::json{
      {"type", "banks"},
      {"line", finding.line},
      {"variable", sample->value("variable", "shared")},
      {"run", fmt::format("{} {}", sample->value("variant", ""), sample->value("size", ""))},
      {"block", sample->value("block", nlohmann::json::array())},
      {"warp", sample->value("warp", 0)},
      {"rows", rows},
      {"cols", cols},
      {"element_size", element},
      {"base", base},
      {"ways", sample->value("ways", 0)},
      {"conflict_bank", conflict_bank},
      {"lanes", lanes}};
}

// The integer subscripts of `tile[3][-1]`, in order; a subscript that is not an integer (or does not fit
// one) is skipped.
std::vector<int64_t> indices_of(const std::string& index) {
  std::vector<int64_t> out;
  for (size_t open = index.find('['); open != std::string::npos; open = index.find('[', open + 1)) {
    const size_t close = index.find(']', open);
    if (close == std::string::npos) break;
    int64_t value = 0;
    const char* first = index.data() + open + 1;
    const char* last = index.data() + close;
    if (const auto [end, error] = std::from_chars(first, last, value);
        error == std::errc() && end == last && first != last)
      out.push_back(value);
  }
  return out;
}

std::optional<nlohmann::json> race_picture(const Result& result, const Problem& problem) {
  const Finding& finding = *problem.finding;
  const HazardFacts race = finding.details.get<HazardFacts>();
  const std::string variable = race.variable.value_or("");
  if (variable.empty() || race.between_blocks()) return std::nullopt;
  // The array's declared shape, from a sampled access to it: one in the finding's variant if there is one.
  nlohmann::json dims;
  if (result.metrics.contains("samples") && result.metrics["samples"].contains("shared"))
    for (const nlohmann::json& sample : result.metrics["samples"]["shared"])
      if (sample.value("variable", "") == variable && sample.contains("dims") &&
          (dims.is_null() || sample.value("variant", "") == variant_of(finding)))
        dims = sample["dims"];
  if (!dims.is_array() || dims.empty()) return std::nullopt;
  const auto [rows, cols] = grid_of(dims, 0);
  nlohmann::json cells = nlohmann::json::array();
  for (const Finding* f : {problem.finding, problem.partner}) {
    if (f == nullptr) continue;
    const HazardFacts facts = f->details.get<HazardFacts>();
    const std::vector<int64_t> at = indices_of(facts.index.value_or(""));
    if (at.empty()) continue;
    int64_t flat = 0;
    for (size_t i = 0; i < at.size() && i < dims.size(); ++i) flat = flat * dims[i].get<int64_t>() + at[i];
    const std::string verb = facts.hazard == "read-after-write" ? "reads" : "writes";
    const std::string other_verb = facts.hazard == "write-after-read" ? "reads" : "writes";
    const auto thread = [](const std::optional<Dim3>& t) { return t ? to_string(*t) : ""; };
    cells.push_back({{"row", flat / cols},
                     {"col", flat % cols},
                     {"index", facts.index.value_or("")},
                     {"threads", {thread(facts.thread), thread(facts.other_thread)}},
                     {"lines", {f->line, facts.other_line.value_or(0)}},
                     {"verbs", {verb, other_verb}}});
  }
  if (cells.empty()) return std::nullopt;
  return nlohmann::json{{"type", "race"}, {"line", finding.line}, {"variable", variable},
                        {"rows", rows},   {"cols", cols},         {"cells", cells}};
}

std::optional<nlohmann::json> sector_picture(const Result& result, const Finding& finding) {
  const nlohmann::json* sample = sample_at(result, "global", finding);
  if (sample == nullptr) return std::nullopt;
  nlohmann::json lanes = nlohmann::json::array();
  const int64_t element = sample->value("element_size", int64_t{4});
  const nlohmann::json& offsets = (*sample)["offsets"];
  for (size_t lane = 0; lane < offsets.size(); ++lane) {
    if (offsets[lane].is_null()) continue;
    const int64_t offset = offsets[lane].get<int64_t>();
    // Sectors are 32-byte pieces of the buffer (buffers start on a sector boundary).
    lanes.push_back({{"lane", lane},
                     {"element", offset / element},
                     {"sector", offset >= 0 ? offset / 32 : (offset - 31) / 32}});
  }
  return nlohmann::json{
      {"type", "sectors"},
      {"line", finding.line},
      {"buffer", sample->value("buffer", "")},
      {"run", fmt::format("{} {}", sample->value("variant", ""), sample->value("size", ""))},
      {"block", sample->value("block", nlohmann::json::array())},
      {"warp", sample->value("warp", 0)},
      {"sectors", sample->value("sectors", 0)},
      {"min_sectors", sample->value("min_sectors", 0)},
      {"lanes", lanes}};
}

std::optional<nlohmann::json> heat_picture(const Result& result, const Problem& problem) {
  const Finding& finding = *problem.finding;
  const std::string buffer = finding.details.value("buffer", "");
  const int64_t elements = finding.details.value("elements", int64_t{0});
  if (buffer.empty() || elements <= 0 || !finding.details.contains("cells")) return std::nullopt;
  nlohmann::json wrong = nlohmann::json::array(), unwritten = nlohmann::json::array();
  for (const Finding* f : {problem.finding, problem.partner}) {
    if (f == nullptr || !f->details.contains("cells")) continue;
    (f->kind == FindingKind::kUnwrittenOutput ? unwritten : wrong) = f->details["cells"];
  }
  // The shape a product count gives (rows*cols), else rows of 32 elements.
  int64_t rows = (elements + 31) / 32, cols = std::min<int64_t>(32, elements);
  std::string shape_from = "rows of 32 elements";
  const std::string size = size_of(finding);
  if (result.metrics.contains("outputs") && result.metrics["outputs"].contains(buffer)) {
    const nlohmann::json& output = result.metrics["outputs"][buffer];
    if (output["sizes"].contains(size)) {
      const nlohmann::json& dims = output["sizes"][size];
      if (dims[0].get<int64_t>() * dims[1].get<int64_t>() == elements) {
        rows = dims[0].get<int64_t>();
        cols = dims[1].get<int64_t>();
        shape_from = fmt::format("{} rows of {}, from its count {}", rows, cols, output.value("count", ""));
      }
    }
  }
  const bool truncated =
      finding.details.value("mismatches", int64_t{0}) > static_cast<int64_t>(wrong.size()) ||
      (problem.partner != nullptr &&
       problem.partner->details.value("unwritten", int64_t{0}) > static_cast<int64_t>(unwritten.size()));
  return nlohmann::json{{"type", "heatmap"},
                        {"buffer", buffer},
                        {"run", fmt::format("{} {}", variant_of(finding), size)},
                        {"rows", rows},
                        {"cols", cols},
                        {"elements", elements},
                        {"wrong", wrong},
                        {"unwritten", unwritten},
                        {"shape_from", shape_from},
                        {"truncated", truncated}};
}

std::optional<nlohmann::json> picture_of(const Result& result, const Problem& problem) {
  switch (problem.finding->kind) {
    case FindingKind::kBankConflict:
      return bank_picture(result, *problem.finding);
    case FindingKind::kRace:
      return race_picture(result, problem);
    case FindingKind::kUncoalesced:
      return sector_picture(result, *problem.finding);
    case FindingKind::kWrongOutput:
    case FindingKind::kUnwrittenOutput:
      return heat_picture(result, problem);
    default:
      return std::nullopt;
  }
}

// A detail's value as a cell: words and numbers as they are, coordinates as (x,y,z), a list of records
// (a wrong output's first elements) as a table of its own, a long list of indices by its length.
std::string detail_cell(const nlohmann::json& value) {
  if (value.is_string()) return escape_html(value.get<std::string>());
  if (value.is_array() && value.size() == 3 &&
      std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_number(); }))
    return fmt::format("({},{},{})", value[0].dump(), value[1].dump(), value[2].dump());
  if (value.is_array() && !value.empty() && value.front().is_object()) {
    std::vector<std::string> columns;
    for (const nlohmann::json& row : value)
      for (const auto& [key, cell] : row.items())
        if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
    std::string table = "<table class=\"detail-rows\"><tr>";
    for (const std::string& column : columns) table += "<th>" + escape_html(column) + "</th>";
    table += "</tr>";
    for (const nlohmann::json& row : value) {
      table += "<tr>";
      for (const std::string& column : columns)
        table += "<td>" + (row.contains(column) ? detail_cell(row[column]) : std::string()) + "</td>";
      table += "</tr>";
    }
    return table + "</table>";
  }
  if (value.is_array() && value.size() > 8)
    return fmt::format("{} entries (drawn in the picture)", value.size());
  if (value.is_array()) {
    std::vector<std::string> cells;
    for (const nlohmann::json& v : value) cells.push_back(detail_cell(v));
    return fmt::format("{}", fmt::join(cells, ", "));
  }
  return escape_html(value.dump());
}

// A wrong output's first wrong element among its neighbours (details["around"]) as a table: each cell the
// expected value, and under it what the kernel wrote where that differs.
std::string around_table(const Finding& f) {
  const nlohmann::json& d = f.details;
  if (f.kind != FindingKind::kWrongOutput || !d.contains("around") || !d["around"].is_object()) return "";
  const nlohmann::json& around = d["around"];
  if (!around["columns"].is_array() || !around["expected"].is_array()) return "";
  std::string html = fmt::format(
      "<table class=\"around\"><caption>{} among its neighbours: expected, and what the "
      "kernel wrote where it differs</caption><tr><th></th>",
      escape_html(detail_text(around, "element")));
  for (const nlohmann::json& c : around["columns"]) html += fmt::format("<th>{}</th>", c.dump());
  html += "</tr>";
  for (size_t r = 0; r < around["expected"].size(); ++r) {
    html += fmt::format("<tr><th>{}</th>", around.contains("rows") ? around["rows"][r].dump() : "");
    for (size_t c = 0; c < around["columns"].size(); ++c) {
      const bool wrong = around["wrong"][r][c].get<bool>();
      html += wrong ? fmt::format("<td class=\"wrong\">{}<br>got {}</td>",
                                  escape_html(around["expected"][r][c].get<std::string>()),
                                  escape_html(around["got"][r][c].get<std::string>()))
                    : fmt::format("<td>{}</td>", escape_html(around["expected"][r][c].get<std::string>()));
    }
    html += "</tr>";
  }
  return html + "</table>";
}

// The full message and every figure of a finding, as a table a learner can read.
std::string details_table(const Finding& f) {
  std::string table =
      "<table class=\"details\"><tr><th>message</th><td>" + escape_html(f.message) + "</td></tr>";
  for (const auto& [key, value] : f.details.items())
    table += "<tr><th>" + escape_html(key) + "</th><td>" + detail_cell(value) + "</td></tr>";
  return table + "</table>";
}

void write_result(const Result& result, size_t index, std::ostream& out) {
  const bool pass = result.verdict == Verdict::kPass;
  out << fmt::format("<section class=\"result\" data-exercise=\"{}\" data-verdict=\"{}\">\n",
                     escape_html(result.exercise), to_string(result.verdict));
  out << fmt::format(
      "<h1>{} <span class=\"verdict {}\">{}</span> <span class=\"points\">{}/{} points</span></h1>\n",
      escape_html(result.exercise), pass ? "pass" : "fail", pass ? "PASS" : "FAIL", result.points,
      result.max_points);
  out << fmt::format("<p class=\"meta\">{} &middot; {} runs on {}{}</p>\n", escape_html(result.submission),
                     result.runs.size(), escape_html(result.backend),
                     result.verdict == Verdict::kFail && !run_summary(result).empty()
                         ? " &middot; " + escape_html(run_summary(result))
                         : "");
  nlohmann::json pictures = nlohmann::json::array();
  const std::vector<Problem> found = problems(result, true);
  if (!found.empty()) out << "<ol class=\"problems\">\n";
  for (const Problem& problem : found) {
    const Finding& f = *problem.finding;
    const int column = f.file == result.submission ? column_of(f, f.line, result.source) : 0;
    std::optional<nlohmann::json> picture = picture_of(result, problem);
    out << fmt::format("<li class=\"problem {}\" data-kind=\"{}\" data-line=\"{}\"{}>", to_string(f.severity),
                       to_string(f.kind), f.line,
                       picture ? fmt::format(" data-picture=\"{}\"", pictures.size()) : "");
    out << fmt::format(
        "<a class=\"place\" href=\"#r{}-L{}\">{}</a> <span class=\"severity\">{}</span> "
        "<span class=\"kind\">{}</span> <span class=\"headline\">{}</span>",
        index, f.line, escape_html(place(f.file, f.line, column)), to_string(f.severity), to_string(f.kind),
        escape_html(headline(problem)));
    for (const Note& note : notes_of(problem))
      out << fmt::format(
          "<div class=\"note\" data-line=\"{}\"><a class=\"place\" href=\"#r{}-L{}\">{}</a> note: {}</div>",
          note.line, index, note.line, escape_html(place(note.file, note.line, 0)),
          escape_html(note.message));
    out << around_table(f);
    out << "<details><summary>everything the grader knows</summary>" << details_table(f) << "</details>";
    if (picture) {
      out << fmt::format("<div class=\"picture-slot\" data-picture=\"{}\"></div>", pictures.size());
      pictures.push_back(std::move(*picture));
    }
    out << "</li>\n";
  }
  if (!found.empty()) out << "</ol>\n";
  if (!result.note.empty()) out << fmt::format("<p class=\"note-text\">{}</p>\n", escape_html(result.note));

  // The source, each problem at its line and each second place marked.
  if (!result.source.empty()) {
    std::map<int, std::vector<std::string>> at_line;
    std::map<int, bool> noted;
    for (const Problem& problem : found) {
      if (problem.finding->file == result.submission && problem.finding->line > 0)
        at_line[problem.finding->line].push_back(std::string(to_string(problem.finding->kind)) + ": " +
                                                 headline(problem));
      for (const Note& note : notes_of(problem))
        if (note.file == result.submission) noted[note.line] = true;
    }
    out << "<div class=\"source\">\n";
    int line = 1;
    size_t start = 0;
    while (start <= result.source.size()) {
      size_t end = result.source.find('\n', start);
      if (end == std::string::npos) end = result.source.size();
      if (end == result.source.size() && start == end) break;
      const std::string text = result.source.substr(start, end - start);
      std::string classes = "src-line";
      if (at_line.count(line)) classes += " has-finding";
      if (noted.count(line)) classes += " has-note";
      out << fmt::format(
          "<div class=\"{}\" id=\"r{}-L{}\" data-line=\"{}\"><span class=\"number\">{}</span>"
          "<code>{}</code></div>\n",
          classes, index, line, line, line, escape_html(text));
      for (const std::string& message : at_line[line])
        out << fmt::format("<div class=\"marker\" data-line=\"{}\">{}</div>\n", line, escape_html(message));
      start = end + 1;
      ++line;
    }
    out << "</div>\n";
  }
  // '<' never appears raw in the data, so no text in it can end the script element; nor does a runner
  // command.
  std::string data = guard_workflow_commands(
      pictures.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), kJsonRunnerEscapes);
  for (size_t at = data.find('<'); at != std::string::npos; at = data.find('<', at))
    data.replace(at, 1, "\\u003c");
  out << fmt::format("<script type=\"application/json\" class=\"pictures\">{}</script>\n</section>\n", data);
}

}  // namespace

void write_html(const std::vector<Result>& results, std::ostream& out) {
  // The policy hashes the elements' exact text, so it and the elements below are written from one string
  // each.
  const std::string style = "\n" + std::string(kReportStyle);
  const std::string script = "\n" + std::string(kReportScript);
  static const std::string policy = content_security_policy(style, script);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << fmt::format("<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n", policy)
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << fmt::format("<title>gpugrade: {}</title>\n", escape_html(tally(results))) << "<style>" << style
      << "</style>\n</head>\n<body>\n";
  out << fmt::format("<header><p>gpugrade &middot; {}</p></header>\n", escape_html(tally(results)));
  for (size_t i = 0; i < results.size(); ++i) write_result(results[i], i, out);
  out << "<script>" << script << "</script>\n</body>\n</html>\n";
}

}  // namespace gpugrade
