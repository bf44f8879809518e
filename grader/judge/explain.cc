// Findings reworded from the learner's source. The checkers see two accesses and no barrier between them
// in time; whether that is a loop's next trip overtaking this one, several threads adding to one word, or
// one statement reading what a neighbour writes is plain in the source, and each needs a different fix.
#include "grader/judge/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "grader/judge/buffer_compare.h"
#include "harness/banks.h"
#include "harness/coordinates.h"
#include "harness/finding_facts.h"

namespace gpugrade {
namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// The learner's file with comments and literals blanked (lines kept), and the loops whose bodies are braced.
class SourceView {
 public:
  struct Loop {
    int header = 0;  // the line the `for`, `while` or `do` starts on
    int close = 0;   // the line of the body's closing brace
  };

  explicit SourceView(std::string_view source) {
    std::string code(source);
    enum class In { kCode, kLineComment, kBlockComment, kString, kChar } in = In::kCode;
    for (size_t i = 0; i < code.size(); ++i) {
      char& c = code[i];
      const char next = i + 1 < code.size() ? code[i + 1] : '\0';
      switch (in) {
        case In::kCode:
          if (c == '/' && next == '/')
            in = In::kLineComment;
          else if (c == '/' && next == '*')
            in = In::kBlockComment;
          else if (c == '"')
            in = In::kString;
          else if (c == '\'')
            in = In::kChar;
          else
            continue;
          if (in == In::kLineComment || in == In::kBlockComment) c = ' ';
          continue;
        case In::kLineComment:
          if (c == '\n')
            in = In::kCode;
          else
            c = ' ';
          continue;
        case In::kBlockComment:
          if (c == '*' && next == '/') {
            code[i + 1] = ' ';
            ++i;
            in = In::kCode;
          }
          if (c != '\n') c = ' ';
          continue;
        case In::kString:
        case In::kChar:
          if (c == '\\' && next != '\n') {
            c = ' ';
            code[++i] = ' ';
          } else if (c == (in == In::kString ? '"' : '\'')) {
            in = In::kCode;
          } else if (c != '\n') {
            c = ' ';
          }
          continue;
      }
    }
    for (size_t start = 0; start <= code.size();) {
      const size_t end = std::min(code.find('\n', start), code.size());
      lines_.push_back(code.substr(start, end - start));
      start = end + 1;
    }
    find_loops();
  }

  // Line `n` (1-based) without comments; empty past the end.
  std::string_view line(int n) const {
    return n >= 1 && static_cast<size_t>(n) <= lines_.size() ? std::string_view(lines_[n - 1])
                                                             : std::string_view();
  }

  // The innermost braced loop whose body holds lines `a` and `b`.
  std::optional<Loop> loop_around(int a, int b) const {
    std::optional<Loop> best;
    for (const Loop& loop : loops_)
      if (loop.header <= std::min(a, b) && loop.close >= std::max(a, b) &&
          (!best || loop.header > best->header))
        best = loop;
    return best;
  }

  // The first barrier on a line strictly between `from` and `to`: its line and its name.
  std::optional<std::pair<int, std::string>> barrier_between(int from, int to) const {
    for (int n = from + 1; n < to; ++n)
      for (const char* name : {"__syncthreads", "__syncwarp"})
        if (line(n).find(name) != std::string_view::npos)
          return std::pair<int, std::string>{n, std::string(name) + "()"};
    return std::nullopt;
  }

  // `__shared__ float tile[32][33]`: the dimensions, as written, of a shared array declared in the file.
  std::vector<std::string> shared_dimensions(const std::string& name) const {
    for (const std::string& text : lines_) {
      if (text.find("__shared__") == std::string::npos) continue;
      for (size_t at : word_starts(text, name)) {
        std::vector<std::string> dims;
        size_t pos = at + name.size();
        while (pos < text.size() && text[pos] == '[') {
          const size_t close = matching(text, pos);
          if (close == std::string::npos) break;
          dims.emplace_back(trimmed(std::string_view(text).substr(pos + 1, close - pos - 1)));
          pos = close + 1;
        }
        if (!dims.empty()) return dims;
      }
    }
    return {};
  }

  // Where `name` starts a word in `text` (`tile` in `tile[` but not in `subtile[` or `s.tile`).
  static std::vector<size_t> word_starts(std::string_view text, std::string_view name) {
    std::vector<size_t> out;
    if (name.empty()) return out;
    for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
      const bool starts = at == 0 || !(identifier_char(text[at - 1]) || text[at - 1] == '.');
      const size_t end = at + name.size();
      const bool ends = end >= text.size() || !identifier_char(text[end]);
      if (starts && ends) out.push_back(at);
    }
    return out;
  }

  // The `]` that closes the `[` at `open`; npos when the line ends first.
  static size_t matching(std::string_view text, size_t open) {
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']' && --depth == 0) return i;
    }
    return std::string_view::npos;
  }

 private:
  void find_loops() {
    struct Open {
      bool loop = false;
      int header = 0;
    };
    std::vector<Open> open;
    std::string statement;
    int statement_line = 0, parens = 0;
    for (size_t n = 0; n < lines_.size(); ++n) {
      const std::string_view text = lines_[n];
      if (trimmed(text).starts_with("#")) continue;  // #pragma unroll, #define
      for (char c : text) {
        if (c == '(') ++parens;
        if (c == ')') parens = std::max(0, parens - 1);
        if (c == '{' || c == '}' || (c == ';' && parens == 0)) {
          if (c == '{') {
            const std::string_view s = trimmed(statement);
            bool loop = false;
            for (std::string_view keyword : {"for", "while", "do"})
              loop = loop || (s.starts_with(keyword) &&
                              (s.size() == keyword.size() || !identifier_char(s[keyword.size()])));
            open.push_back({loop, statement_line});
          } else if (c == '}' && !open.empty()) {
            if (open.back().loop) loops_.push_back({open.back().header, static_cast<int>(n) + 1});
            open.pop_back();
          }
          statement.clear();
          continue;
        }
        if (statement.empty() && std::isspace(static_cast<unsigned char>(c))) continue;
        if (statement.empty()) statement_line = static_cast<int>(n) + 1;
        statement += c;
      }
      if (!statement.empty()) statement += ' ';  // a statement over several lines keeps its words apart
    }
  }

  std::vector<std::string> lines_;
  std::vector<Loop> loops_;
};

// A plain read-modify-write of `name` on one line: `hist[b]++`, `++count`, `sum[0] += x`.
struct Update {
  std::string target;   // as written: `hist[b]`
  std::string op;       // `++`, `+=`, ...
  std::string operand;  // what is added: `1`, or the right-hand side as written
};

std::optional<Update> update_of(std::string_view line, const std::string& name) {
  const std::vector<size_t> starts = SourceView::word_starts(line, name);
  // `a[i] += a[i + s]` reads a neighbour's element: a race of another kind, not one word updated twice.
  if (starts.size() != 1) return std::nullopt;
  const size_t at = starts.front();
  size_t end = at + name.size();
  while (end < line.size() && line[end] == '[') {
    end = SourceView::matching(line, end);
    if (end == std::string_view::npos) return std::nullopt;
    ++end;
  }
  Update update;
  update.target = std::string(line.substr(at, end - at));
  const std::string_view before = trimmed(line.substr(0, at));
  std::string_view after = trimmed(line.substr(end));
  for (std::string_view step : {"++", "--"}) {
    if (before.ends_with(step) || after.starts_with(step)) {
      update.op = std::string(step);
      update.operand = "1";
      return update;
    }
  }
  for (std::string_view op : {"<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^="}) {
    if (!after.starts_with(op)) continue;
    after.remove_prefix(op.size());
    update.op = std::string(op);
    update.operand = std::string(trimmed(after.substr(0, std::min(after.find(';'), after.size()))));
    return update;
  }
  return std::nullopt;
}

// The atomic that makes `update` whole, as the learner would write it; empty when CUDA has none for it.
std::string atomic_for(const Update& update) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kAtomics = {
      {{"++", "atomicAdd"},
       {"+=", "atomicAdd"},
       {"--", "atomicSub"},
       {"-=", "atomicSub"},
       {"|=", "atomicOr"},
       {"&=", "atomicAnd"},
       {"^=", "atomicXor"},
       {"", ""}}};
  for (const auto& [op, call] : kAtomics)
    if (!op.empty() && op == update.op)
      return fmt::format("{}(&{}, {})", call, update.target, update.operand);
  return "";
}

// Several threads doing a plain `++` or `+=` on one word: each writes back what it read plus its own part,
// so all but one part is lost. An atomic makes each update whole; a barrier would only add a divergence.
bool explain_lost_update(Finding& f, const SourceView& source) {
  const HazardFacts d = f.details.get<HazardFacts>();
  if (f.line <= 0 || d.other_line.value_or(0) != f.line) return false;
  const std::optional<Update> update = update_of(source.line(f.line), d.variable.value_or(""));
  if (!update) return false;
  const std::string atomic = atomic_for(*update);
  const std::string how = update->op == "++" || update->op == "--"
                              ? update->target + update->op
                              : update->target + " " + update->op + " " + update->operand;
  f.message = fmt::format(
      "lost update: {} and {} both do `{}` on {}, each writing back the value it read "
      "changed by its own part, so one update overwrites the other; {}",
      d.this_who(), d.other_who(), how, d.index.value_or(""),
      atomic.empty() ? "make the update one atomic step (atomicCAS in a loop), not a barrier"
                     : fmt::format("write {} instead: a barrier cannot help, the threads update "
                                   "one word in the same step",
                                   atomic));
  f.details["cause"] = "lost-update";
  return true;
}

// A loop with one barrier per trip: the barrier orders this trip's writes before its reads, and nothing
// orders the reads before the next trip's writes to the same array. The checker sees it from either side:
// the fast thread's write after the slow thread's read, or the slow thread's read of the new value.
bool explain_next_trip(Finding& f, const SourceView& source) {
  const HazardFacts d = f.details.get<HazardFacts>();
  const std::string hazard = d.hazard;
  const bool this_reads = hazard == "read-after-write";
  if (!this_reads && hazard != "write-after-read") return false;
  const int write = this_reads ? d.other_line.value_or(0) : f.line;
  const int read = this_reads ? f.line : d.other_line.value_or(0);
  if (write <= 0 || read <= write) return false;
  const std::optional<std::pair<int, std::string>> barrier = source.barrier_between(write, read);
  const std::optional<SourceView::Loop> loop = source.loop_around(write, read);
  if (!barrier || !loop) return false;
  f.message = fmt::format(
      "{} writes {} at line {} in the next trip of the loop at line {} before {} has read "
      "it at line {} in this trip: the {} at line {} keeps each trip's writes before its "
      "reads, but nothing keeps the reads before the next trip's writes; add a {} after "
      "the reads, at the end of the loop body",
      this_reads ? d.other_who() : d.this_who(), d.index.value_or(""), write, loop->header,
      this_reads ? d.this_who() : d.other_who(), read, barrier->second, barrier->first, barrier->second);
  f.details["cause"] = "next-trip";
  f.details["loop_line"] = loop->header;
  return true;
}

// A write that comes first in the source and landed after another thread's read: the reader ran ahead,
// and only a barrier between the two lines makes it wait.
bool explain_read_ran_ahead(Finding& f, const SourceView& source) {
  const HazardFacts d = f.details.get<HazardFacts>();
  const int write = f.line, read = d.other_line.value_or(0);
  if (d.hazard != "write-after-read" || write <= 0 || read <= write || source.barrier_between(write, read))
    return false;
  const std::string barrier = d.barrier.empty() ? "__syncthreads()" : d.barrier;
  f.message = fmt::format(
      "{} read {} at line {} before {} wrote it at line {}: nothing made the reader wait; a "
      "{} between line {} and line {} does",
      d.other_who(), d.index.value_or(""), read, d.this_who(), write, barrier, write, read);
  f.details["cause"] = "read-ran-ahead";
  return true;
}

// `a[i] += a[i + s]`: one thread writes in the same statement where another reads; no barrier fits inside
// a statement, so the read must move out of it.
bool explain_same_statement(Finding& f) {
  const HazardFacts d = f.details.get<HazardFacts>();
  if (d.hazard != "write-after-read" || f.line <= 0 || d.other_line.value_or(0) != f.line) return false;
  const std::string barrier = d.barrier.empty() ? "__syncthreads()" : d.barrier;
  f.message = fmt::format(
      "{} writes {} at line {} while {} reads it in the same statement, and no barrier fits "
      "inside one statement: read the value into a local variable, call {}, then write",
      d.this_who(), d.index.value_or(""), f.line, d.other_who(), barrier);
  f.details["cause"] = "same-statement";
  return true;
}

// Two threads store to one shared element, at one line or at two with no barrier between them (a `+=` on
// one line is a lost update, above): a barrier would only choose which store survives. Mostly the indices
// overlap (a halo stored one past the end of its row lands on the next row's first element), so the message
// sends the learner to the indices.
bool explain_overlapping_writes(Finding& f, const SourceView& source) {
  const HazardFacts d = f.details.get<HazardFacts>();
  const int line = f.line, other = d.other_line.value_or(0);
  // Two plain stores: an atomic beside a store (bins zeroed with no barrier before the counting) is a
  // barrier's matter. Findings without the access kinds (older results) are taken as they read.
  if (d.access == "atomic" || d.other_access == "atomic") return false;
  if (d.hazard != "write-after-write" || d.between_blocks() || line <= 0 || other <= 0 ||
      (line != other && source.barrier_between(std::min(line, other), std::max(line, other))))
    return false;
  f.message = fmt::format(
      "{} writes {} at line {}, and {} writes the same element at line {}{}: two stores to one "
      "element, and a barrier between them would only choose which one survives; unless one is "
      "meant to replace the other, their indices overlap: check each index against the array's "
      "shape (an index one past the end of a row is the next row's first element)",
      d.this_who(), d.index.value_or(""), line, d.other_who(), other, line == other ? " too" : "");
  f.details["cause"] = "overlapping-writes";
  return true;
}

// What nvcc's warnings about a kernel usually mean for a learner's bug.
std::string warning_meaning(std::string_view message) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kMeanings = {{
      {"pointless comparison of unsigned integer with zero",
       "an unsigned value is never below zero, so the test always gives the same answer (a loop counting "
       "down "
       "to `>= 0` never ends)"},
      {"expression has no effect",
       "the line computes a value and drops it: did you mean `=`, `+=` or a call?"},
      {"used before its value is set", "the variable is read before anything was stored in it"},
      {"declared but never referenced",
       "a variable you computed is never used: is another line using the wrong one?"},
  }};
  for (const auto& [text, meaning] : kMeanings)
    if (message.find(text) != std::string_view::npos) return std::string(meaning);
  return "";
}

void explain_warning(Finding& f) {
  f.kind = FindingKind::kCompileWarning;
  if (const std::string meaning = warning_meaning(f.message); !meaning.empty()) f.message += ": " + meaning;
}

// The worst request of a bank-conflict finding (details["request"]), in the array's own terms: each active
// lane's element, and the array's shape when the grader knew it.
struct ConflictRequest {
  std::string name;
  uint32_t bytes = 4;  // per lane
  uint32_t element_size = 4;
  std::vector<uint64_t> dims;        // outermost first; empty: seen as one flat array
  std::array<int64_t, 32> offset{};  // bytes from the array's start; -1: idle
  uint32_t mask = 0;

  static std::optional<ConflictRequest> from(const nlohmann::json& d) {
    const nlohmann::json* r = d.contains("request") ? &d["request"] : nullptr;
    if (r == nullptr || !r->is_object() || !(*r)["offsets"].is_array() || (*r)["offsets"].size() != 32)
      return std::nullopt;
    ConflictRequest out;
    out.name = detail_text(*r, "variable");
    out.bytes = std::max(1, detail_int(*r, "bytes"));
    out.element_size = r->contains("element_size") ? std::max(1, detail_int(*r, "element_size")) : out.bytes;
    if (r->contains("dims") && (*r)["dims"].is_array())
      for (const nlohmann::json& dim : (*r)["dims"])
        if (dim.is_number_unsigned() && dim.get<uint64_t>() > 0) out.dims.push_back(dim.get<uint64_t>());
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const nlohmann::json& o = (*r)["offsets"][lane];
      out.offset[lane] = o.is_number_integer() ? o.get<int64_t>() : -1;
      if (out.offset[lane] >= 0) out.mask |= 1u << lane;
    }
    if (out.mask == 0 || out.dims.size() == 1) out.dims.clear();
    return out;
  }

  bool active(uint32_t lane) const { return (mask >> lane & 1) != 0; }
  uint64_t row_length() const { return dims.empty() ? 0 : dims.back(); }
  // The lane's element as [row][column] of the innermost dimension (outer ones folded into the row).
  uint64_t element(uint32_t lane) const { return static_cast<uint64_t>(offset[lane]) / element_size; }
  uint64_t row(uint32_t lane) const { return element(lane) / row_length(); }
  uint64_t column(uint32_t lane) const { return element(lane) % row_length(); }

  std::string element_name(uint32_t lane) const {
    return BufferLayout{name, ElementType::kFloat, dims}.element_name(element(lane));
  }

  // The ways of this request if each lane's element moved to `element_at(lane)` (same width, same lanes).
  template <class Remap>
  uint32_t ways_if(Remap element_at) const {
    std::array<uint64_t, 32> address{};
    for (uint32_t lane = 0; lane < 32; ++lane)
      if (active(lane))
        address[lane] = element_at(lane) * element_size + static_cast<uint64_t>(offset[lane]) % element_size;
    return bank_ways(address, mask, bytes).ways;
  }
  uint32_t ways() const {
    return ways_if([&](uint32_t lane) { return element(lane); });
  }

  // Two lanes whose different words fall in one bank in one phase: the collision the finding is about.
  std::optional<std::pair<uint32_t, uint32_t>> colliding_lanes() const {
    const uint32_t per_phase = bytes <= 4 ? 32 : 128 / bytes;
    for (uint32_t a = 0; a < 32; ++a)
      for (uint32_t b = a + 1; b < 32 && b / per_phase == a / per_phase; ++b) {
        if (!active(a) || !active(b)) continue;
        const uint64_t wa = static_cast<uint64_t>(offset[a]) / 4, wb = static_cast<uint64_t>(offset[b]) / 4;
        if (wa != wb && wa % 32 == wb % 32) return std::pair{a, b};
      }
    return std::nullopt;
  }

  // The words between consecutive active lanes, when they are all the same.
  std::optional<int64_t> stride_in_words() const {
    std::optional<int64_t> stride;
    int last = -1;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!active(lane)) continue;
      if (last >= 0) {
        const int64_t step = (offset[lane] - offset[last]) / (lane - static_cast<uint32_t>(last));
        if ((offset[lane] - offset[last]) % 4 != 0 || (stride && *stride * 4 != step)) return std::nullopt;
        stride = step / 4;
      }
      last = static_cast<int>(lane);
    }
    return stride;
  }
};

// The padding written into a dimension (`TILE + 1` -> {"TILE", 1}); {text, 0} when it has none.
std::pair<std::string, uint64_t> unpadded(const std::string& dim) {
  const size_t plus = dim.rfind('+');
  if (plus == std::string::npos) return {dim, 0};
  const std::string amount(trimmed(std::string_view(dim).substr(plus + 1)));
  if (amount.empty() || !std::all_of(amount.begin(), amount.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return {dim, 0};
  return {std::string(trimmed(std::string_view(dim).substr(0, plus))), std::stoull(amount)};
}

// The array a bank conflict's line indexes: the first name on the line that the file declares __shared__.
std::pair<std::string, std::vector<std::string>> shared_array_on(std::string_view line,
                                                                 const SourceView& source) {
  for (size_t at = line.find('['); at != std::string_view::npos; at = line.find('[', at + 1)) {
    size_t begin = at;
    while (begin > 0 && identifier_char(line[begin - 1])) --begin;
    if (begin == at) continue;
    const std::string candidate(line.substr(begin, at - begin));
    std::vector<std::string> dims = source.shared_dimensions(candidate);
    if (!dims.empty()) return {candidate, std::move(dims)};
  }
  return {};
}

// What the request shows, and a fix that re-measuring the same request with its addresses moved proves
// conflict-free: padding each row (the smallest that works), or consecutive threads on consecutive
// elements when the colliding lanes share a row (no padding moves them apart). Sets details["advice"].
std::string advice_from_addresses(Finding& f, const ConflictRequest& request, const std::string& name,
                                  const std::vector<std::string>& written) {
  const std::optional<std::pair<uint32_t, uint32_t>> lanes = request.colliding_lanes();
  if (!lanes) return "";
  const auto [a, b] = *lanes;
  const uint64_t apart = static_cast<uint64_t>(std::abs(request.offset[b] - request.offset[a])) / 4;
  const std::optional<int64_t> stride = request.stride_in_words();
  std::string seen = fmt::format("lanes {} and {} of one warp touch {} and {}, {} words apart: one bank", a,
                                 b, request.element_name(a), request.element_name(b), apart);
  if (stride && *stride != 0 && std::abs(*stride) != static_cast<int64_t>(apart))
    seen += fmt::format(" (consecutive threads are {} words apart)", *stride);
  nlohmann::json& advice = f.details["advice"];
  const bool two_d = request.dims.size() >= 2 && written.size() == request.dims.size();
  if (two_d && request.row(a) != request.row(b)) {
    // A walk across rows: pad each row until the request is conflict-free.
    const uint64_t length = request.row_length();
    const auto [base_text, padding] = unpadded(written.back());
    const uint64_t base = length >= padding ? length - padding : length;
    // The smallest padding that takes the request within the exercise's limit (1 way without one).
    const uint32_t target = std::max(1, f.details.contains("limit") ? detail_int(f.details, "limit") : 1);
    for (uint64_t k = 1; k <= 32; ++k) {
      if (base + k == length) continue;
      const uint32_t ways = request.ways_if(
          [&](uint32_t lane) { return request.row(lane) * (base + k) + request.column(lane); });
      if (ways > target) continue;
      const std::string checked =
          fmt::format("checked: that request then takes {} wavefront{}", ways, ways == 1 ? "" : "s");
      std::vector<std::string> dims = written;
      const bool padded_count = unpadded(written.front()).second > 0 && padding == 0;
      if (padded_count) dims.front() = unpadded(written.front()).first;
      dims.back() = fmt::format("{} + {}", base_text, k);
      std::string declaration = name;
      for (const std::string& dim : dims) declaration += "[" + dim + "]";
      advice = {
          {"fix", "pad-rows"}, {"row_length", base + k}, {"ways_after", ways}, {"declaration", declaration}};
      f.details["cause"] = "column-walk";
      seen += fmt::format(", because a row of {} is {} words long", name, length * request.element_size / 4);
      if (padded_count) {
        std::string as_written = name;
        for (const std::string& dim : written) as_written += "[" + dim + "]";
        return fmt::format(
            "{}; {} pads the number of rows, which moves nothing between banks; pad each row "
            "instead: {} ({})",
            seen, as_written, declaration, checked);
      }
      return fmt::format("{}; declare {} so that the elements of a column fall in different banks ({})", seen,
                         declaration, checked);
    }
  }
  // Lanes on one row, or a flat array: only the order of the elements moves them apart.
  const uint64_t first = request.element(static_cast<uint32_t>(std::countr_zero(request.mask)));
  const uint32_t ways = request.ways_if([&](uint32_t lane) { return first + lane; });
  if (ways == 1 && stride && std::abs(*stride) > 1) {
    advice = {{"fix", "consecutive-elements"}, {"stride_words", *stride}, {"ways_after", ways}};
    f.details["cause"] = "strided";
    return fmt::format(
        "{}; {}: let consecutive threads touch consecutive elements of {} (checked: that request "
        "then takes 1 wavefront)",
        seen,
        two_d ? "they share a row, so padding the rows cannot separate them"
              : "a stride of one word between threads never conflicts",
        name);
  }
  advice = {{"fix", "none-found"}};
  f.details["cause"] = two_d && request.row(a) != request.row(b) ? "column-walk" : "strided";
  return fmt::format("{}; neither padding the rows nor consecutive elements removes it for this request",
                     seen);
}

// Advice from the declaration alone, for a finding without the request's addresses (a GPU run's, or an
// older result's): a 2-D array is assumed walked down a column.
std::string advice_from_declaration(Finding& f, const std::string& name,
                                    const std::vector<std::string>& dims) {
  if (dims.size() < 2) {
    f.details["cause"] = "strided";
    return fmt::format(
        "neighbouring lanes touch words of {} a multiple of 32 words apart, which share a bank; "
        "let neighbouring threads touch neighbouring words",
        name);
  }
  f.details["cause"] = "column-walk";
  const std::string& row = dims.back();
  if (unpadded(dims.front()).second > 0 && unpadded(row).second == 0)
    return fmt::format(
        "{}[{}][{}] pads the number of rows, which moves nothing between banks; pad each row "
        "instead: {}[{}][{} + 1], so the elements of a column fall in different banks",
        name, dims.front(), row, name, unpadded(dims.front()).first, row);
  if (const auto [base, pad] = unpadded(row); pad > 0 && pad % 2 == 0)
    // Padded by an even number (`[32][34]`): elements half a column apart still share a bank.
    return fmt::format(
        "the lanes walk down a column of {}, whose rows are {} elements long, an even number, "
        "so elements of one column still share banks; make the row length odd: {}[{}][{} + 1]",
        name, row, name, dims.front(), base);
  return fmt::format(
      "the lanes walk down a column of {}, whose rows are {} words long; declare it "
      "{}[{}][{} + 1] so the elements of a column fall in different banks",
      name, row, name, dims.front(), row);
}

// Bank-conflict advice computed from the addresses of the worst request the simulator recorded (see
// advice_from_addresses), naming the array the line indexes.
void explain_bank_conflict(Finding& f, const SourceView& source) {
  if (!f.details.contains("worst_ways") || f.line <= 0) return;
  const auto [name, dims] = shared_array_on(source.line(f.line), source);
  if (name.empty()) return;
  const uint32_t ways = f.details["worst_ways"].get<uint32_t>();
  // The figures the judge measured: a request of 8-byte elements needs 2 wavefronts at least, not 1.
  const std::string per_request = f.details.value("wavefronts_per_request", std::to_string(ways));
  const std::string possible = f.details.value("min_wavefronts_per_request", std::string("1"));
  const std::string head =
      fmt::format("{}-way bank conflict on {}: {} wavefronts per request where {} {} possible", ways, name,
                  per_request, possible, possible == "1" ? "is" : "are");
  const size_t open = f.message.find(" (the limit is ");
  const std::string limit =
      open == std::string::npos ? "" : f.message.substr(open, f.message.find(')', open) + 1 - open);
  std::string advice;
  std::optional<ConflictRequest> request = ConflictRequest::from(f.details);
  if (request && (request->name == name || request->name == "shared")) {
    request->name = name;
    advice = advice_from_addresses(f, *request, name, dims);
  }
  if (advice.empty()) advice = advice_from_declaration(f, name, dims);
  f.message = fmt::format("{}{}; {}", head, limit, advice);
  f.details["variable"] = name;
}

// A timeout at a loop (the simulator's `loop_lines`: each loop's backward branch, where nvcc puts its test,
// or its body when the test was optimized away, as in `for (...; s > 0; s / 2)`) stands at the loop's
// header in the source: the `for`, `while` or `do` line of the innermost braced loop around it.
void explain_timeout(Finding& f, const SourceView& view) {
  const nlohmann::json& lines = f.details.value("loop_lines", nlohmann::json::array());
  const nlohmann::json& warps = f.details.value("loop_warps", nlohmann::json::array());
  if (!lines.is_array() || !warps.is_array() || lines.size() != warps.size() || lines.empty()) return;
  std::map<int, int64_t> by_header;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (!lines[k].is_number_integer() || !warps[k].is_number_integer()) return;
    const int line = lines[k].get<int>();
    const std::optional<SourceView::Loop> loop = view.loop_around(line, line);
    by_header[loop ? loop->header : line] += warps[k].get<int64_t>();
  }
  std::string listed;
  nlohmann::json headers = nlohmann::json::array(), counts = nlohmann::json::array();
  for (const auto& [line, count] : by_header) {
    listed += fmt::format("{}{} ({} warp{})", listed.empty() ? "" : ", ", line, count, count == 1 ? "" : "s");
    headers.push_back(line);
    counts.push_back(count);
  }
  const std::string marker = "in the loop at line ";
  const size_t from = f.message.find(marker);
  const size_t to = from == std::string::npos ? from : f.message.find(", at line ", from);
  if (to == std::string::npos) return;
  f.message.replace(from + marker.size(), to - from - marker.size(), listed);
  if (const std::optional<SourceView::Loop> loop = view.loop_around(f.line, f.line)) f.line = loop->header;
  f.details["loop_lines"] = headers;
  f.details["loop_warps"] = counts;
  f.details["cause"] = "endless-loop";
}

}  // namespace

void explain_findings(std::vector<Finding>& findings, std::string_view source, const std::string& file) {
  const SourceView view(source);
  for (Finding& f : findings) {
    if (f.file != file) continue;
    switch (f.kind) {
      case FindingKind::kCompileError:
        if (f.severity == Severity::kWarning) explain_warning(f);
        break;
      case FindingKind::kRace:
        if (!f.details.contains("other_line")) break;
        explain_lost_update(f, view) || explain_next_trip(f, view) || explain_read_ran_ahead(f, view) ||
            explain_same_statement(f) || explain_overlapping_writes(f, view);
        break;
      case FindingKind::kBankConflict:
        explain_bank_conflict(f, view);
        break;
      case FindingKind::kTimeout:
        explain_timeout(f, view);
        break;
      default:
        break;
    }
  }
}

}  // namespace gpugrade
