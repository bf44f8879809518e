// Output and input judging, lane by lane in each element's own type; the findings list the first few
// differing elements by name.
#include "grader/judge/buffer_compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>

#include "grader/result/result.h"
#include "harness/coordinates.h"
#include "harness/poison.h"

namespace gpugrade {
namespace {

// How many differing elements a wrong-output finding lists.
constexpr size_t kListedMismatches = 5;
constexpr size_t kPictureCells = 16384;
constexpr const char* kLaneNames[] = {".x", ".y", ".z", ".w"};

bool same_lane(const LaneValue& got, const LaneValue& want, ElementType type, const Compare& compare) {
  if (got.bits == want.bits) return true;
  const bool floating = info(type).floating;
  if (floating && (std::isnan(got.value) || std::isnan(want.value)))
    return std::isnan(got.value) && std::isnan(want.value);
  if (compare.exact) return floating && got.value == want.value;  // +0 and -0
  if (std::fabs(got.value - want.value) <= compare.abs + compare.rel * std::fabs(want.value)) return true;
  return floating && compare.ulp && ulp_distance(got, want, type) <= *compare.ulp;
}

// The poisons planted in memory (harness/poison.h) as a lane of `width` bits holds them, each with what a
// value near it means.
struct Planted {
  uint64_t bits;
  const char* means;
};
std::vector<Planted> planted_poisons(uint32_t width, bool half) {
  constexpr const char* kOutput = "output memory read before anything wrote it";
  constexpr const char* kRegister = "a variable used before it was given a value";
  switch (width) {
    case 8:
      return {{0xA5, kOutput}};
    case 16:
      return {{half ? 0x7DA5u : 0xA5A5u, kOutput}};
    case 32:
      return {{kOutputPoisonWord, kOutput}, {static_cast<uint32_t>(kRegisterPoison), kRegister}};
    default:
      return {{uint64_t{kOutputPoisonWord} << 32 | kOutputPoisonWord, kOutput}, {kRegisterPoison, kRegister}};
  }
}

// A wrong lane that is one of the poisons the grader and the simulator plant, give or take a little (an
// integer kernel that adds into an output it never set: "the int poison 0x7FA5A5A5 plus 99: output memory
// read before anything wrote it"), or, for a float, one of them carried through as a NaN. Empty when it is
// none. Integers within a few hundred thousand of a 32-bit poison are taken for it: no count, index or
// sum of the course's inputs comes near 2^31.
std::string poison_origin(const LaneValue& got, ElementType type) {
  const ElementInfo& lane = info(lane_type(type));
  const uint32_t width = lane.bytes * 8;
  const uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t bits = got.bits & mask;
  // The simulator's shared-memory poison names the block whose tile it is.
  const auto low = static_cast<uint32_t>(bits);
  if ((width == 32 || (width == 64 && bits >> 32 == low)) && is_poison_word(low))
    return fmt::format("the poison of a shared-memory word no thread of block {} wrote", poison_block(low));
  const uint32_t mantissa = lane.type == ElementType::kHalf ? 10 : width == 64 ? 52 : 23;
  const uint64_t quiet = uint64_t{1} << (mantissa - 1);  // the bit that makes a signalling NaN quiet
  const int64_t tolerance = width <= 8    ? 0
                            : width == 16 ? 16
                            : width == 32 ? int64_t{1} << 18
                                          : int64_t{1} << 32;
  for (const Planted& poison : planted_poisons(width, lane.type == ElementType::kHalf)) {
    const std::string name = fmt::format("the {} poison 0x{:0{}X}", lane.name, poison.bits, width / 4);
    if (lane.floating) {
      if ((bits | quiet) == (poison.bits | quiet)) return fmt::format("{}: {}", name, poison.means);
      continue;
    }
    // The difference as the lane's own arithmetic wraps it.
    uint64_t difference = (bits - poison.bits) & mask;
    int64_t delta = static_cast<int64_t>(difference);
    if (width < 64 && difference >> (width - 1) != 0)
      delta = static_cast<int64_t>(difference) - (int64_t{1} << width);
    if (delta < -tolerance || delta > tolerance) continue;
    const std::string plus = delta == 0  ? ""
                             : delta > 0 ? fmt::format(" plus {}", delta)
                                         : fmt::format(" minus {}", -delta);
    return fmt::format("{}{}: {}", name, plus, poison.means);
  }
  return "";
}

const std::byte* element(const Buffer& buffer, uint64_t index) {
  return buffer.bytes.data() + index * buffer.element_size;
}

// The first lane of element `index` that differs, or -1 when the element passes.
int differing_lane(const Buffer& got, const Buffer& want, uint64_t index, ElementType type,
                   const Compare& compare) {
  for (uint32_t lane = 0; lane < info(type).lanes; ++lane) {
    if (!same_lane(read_lane(element(got, index), type, lane), read_lane(element(want, index), type, lane),
                   type, compare))
      return static_cast<int>(lane);
  }
  return -1;
}

// The first wrong element among its neighbours: up to 5x5 elements of a 2-D output (its last two dimensions)
// or 7 of a flat one, each with its expected and got value in the differing lane and whether it is wrong.
nlohmann::json neighbourhood(const BufferLayout& layout, const Buffer& got, const Buffer& want,
                             uint64_t index, uint32_t lane, const Compare& compare) {
  const uint64_t count = want.bytes.size() / want.element_size;
  const bool grid = layout.dims.size() >= 2 && layout.dims.back() > 0;
  const uint64_t columns = grid ? layout.dims.back() : count;
  const uint64_t rows = grid ? count / columns : 1;
  const uint64_t row = index / columns, column = index % columns;
  const uint64_t reach = grid ? 2 : 3;
  const auto window = [&](uint64_t at, uint64_t size) {
    const uint64_t low = at >= reach ? at - reach : 0;
    return std::pair{low, std::min(size - 1, at + reach)};
  };
  const auto [row_low, row_high] = window(row, rows);
  const auto [column_low, column_high] = window(column, columns);
  nlohmann::json around = {
      {"element", layout.element_name(index) + (info(layout.type).lanes > 1 ? kLaneNames[lane] : "")},
      {"columns", nlohmann::json::array()},
      {"expected", nlohmann::json::array()},
      {"got", nlohmann::json::array()},
      {"wrong", nlohmann::json::array()}};
  if (grid) {
    around["rows"] = nlohmann::json::array();
    around["row"] = row;
  }
  around["column"] = column;
  for (uint64_t c = column_low; c <= column_high; ++c) around["columns"].push_back(c);
  for (uint64_t r = row_low; r <= row_high; ++r) {
    if (grid) around["rows"].push_back(r);
    nlohmann::json expected = nlohmann::json::array(), values = nlohmann::json::array(),
                   wrong = nlohmann::json::array();
    for (uint64_t c = column_low; c <= column_high; ++c) {
      const uint64_t i = r * columns + c;
      expected.push_back(show_lane(read_lane(element(want, i), layout.type, lane), layout.type));
      values.push_back(show_lane(read_lane(element(got, i), layout.type, lane), layout.type));
      wrong.push_back(differing_lane(got, want, i, layout.type, compare) >= 0);
    }
    around["expected"].push_back(std::move(expected));
    around["got"].push_back(std::move(values));
    around["wrong"].push_back(std::move(wrong));
  }
  return around;
}

// "out[3][5] was written by thread (2,1,0) of block (0,1,0) at line 17", from the backend's record.
std::string writers_sentence(const std::string& element, const ElementWrites& writes) {
  const auto who = [](const ElementWriter& w) {
    return fmt::format("thread {} of block {} at line {}", to_string(w.thread), to_string(w.block), w.line);
  };
  if (writes.writers.empty()) return fmt::format("no thread wrote {}", element);
  if (writes.writers.size() == 1) return fmt::format("{} was written by {}", element, who(writes.writers[0]));
  return fmt::format("{} was written more than once, among others by {} and by {}", element,
                     who(writes.writers[0]), who(writes.writers[1]));
}

}  // namespace

bool element_matches(const Buffer& got, const Buffer& want, uint64_t index, ElementType type,
                     const Compare& compare) {
  return differing_lane(got, want, index, type, compare) < 0;
}

std::string BufferLayout::element_name(uint64_t index) const {
  if (dims.size() < 2) return fmt::format("{}[{}]", name, index);
  std::vector<uint64_t> position(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    position[d] = index % dims[d];
    index /= dims[d];
  }
  std::string text = name;
  for (uint64_t p : position) text += fmt::format("[{}]", p);
  return text;
}

void compare_output(const BufferLayout& layout, const Buffer& got, const Buffer& want, const Buffer* initial,
                    const Fill& fill, const Compare& compare, const std::string& file,
                    std::vector<Finding>& findings, const WriteRecord* writes, const InputSources& sources) {
  // Identical bits pass under every compare mode; a GPU size's millions of elements need no loop.
  if (got.bytes == want.bytes) return;
  const ElementType type = layout.type;
  const bool vector = info(type).lanes > 1;
  const size_t count = want.bytes.size() / want.element_size;
  size_t wrong = 0, unwritten = 0;
  bool unwritten_by_record = true;  // the record says of every unwritten element that no thread wrote it
  nlohmann::json wrong_list = nlohmann::json::array(), unwritten_list = nlohmann::json::array();
  std::string first_wrong, first_unwritten;
  uint64_t first_wrong_index = 0;
  uint32_t first_wrong_lane = 0;
  // Every wrong and unwritten element (up to kPictureCells each), for the HTML report's heat map.
  nlohmann::json wrong_cells = nlohmann::json::array(), unwritten_cells = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i) {
    const int lane = differing_lane(got, want, i, type, compare);
    if (lane < 0) continue;
    const LaneValue g = read_lane(element(got, i), type, static_cast<uint32_t>(lane));
    const LaneValue w = read_lane(element(want, i), type, static_cast<uint32_t>(lane));
    const std::string name = layout.element_name(i) + (vector ? kLaneNames[lane] : "");
    const bool holds_initial =
        initial != nullptr && std::memcmp(element(got, i), element(*initial, i), got.element_size) == 0;
    // A thread may have written the value the element started with (an accumulator's zero): the backend's
    // record, where it has one, tells that wrong value from an element no thread wrote.
    const std::optional<ElementWrites> record =
        holds_initial && writes != nullptr ? writes->writes(layout.name, i) : std::nullopt;
    const bool untouched = holds_initial && (!record || record->writers.empty());
    nlohmann::json& cells = untouched ? unwritten_cells : wrong_cells;
    if (cells.size() < kPictureCells) cells.push_back(i);
    if (untouched) {
      unwritten_by_record = unwritten_by_record && record.has_value();
      if (unwritten++ < kListedMismatches) {
        unwritten_list.push_back({{"index", i}, {"expected", show_lane(w, type)}});
        if (layout.dims.size() > 1 || vector) unwritten_list.back()["element"] = name;
        if (first_unwritten.empty())
          first_unwritten = fmt::format("{} (expected {})", name, show_lane(w, type));
      }
      continue;
    }
    if (wrong++ < kListedMismatches) {
      std::string note = holds_initial ? ", the value it started with" : "";
      const std::string poison = poison_origin(g, type);
      if (!poison.empty()) note = ", " + poison;
      wrong_list.push_back({{"index", i}, {"expected", show_lane(w, type)}, {"got", show_lane(g, type)}});
      if (layout.dims.size() > 1 || vector) wrong_list.back()["element"] = name;
      if (!poison.empty()) wrong_list.back()["poison"] = poison;
      if (first_wrong.empty()) {
        first_wrong =
            fmt::format("{}: expected {}, got {}{}", name, show_lane(w, type), show_lane(g, type), note);
        first_wrong_index = i;
        first_wrong_lane = static_cast<uint32_t>(lane);
      }
    }
  }
  if (wrong > 0) {
    Finding f;
    f.kind = FindingKind::kWrongOutput;
    f.file = file;
    f.message = fmt::format("{} of {} elements of '{}' differ from the reference; the first is {}",
                            with_thousands(wrong), with_thousands(count), layout.name, first_wrong);
    f.details = {{"buffer", layout.name},
                 {"mismatches", wrong},
                 {"elements", count},
                 {"first", wrong_list},
                 {"cells", std::move(wrong_cells)},
                 {"around", neighbourhood(layout, got, want, first_wrong_index, first_wrong_lane, compare)}};
    // What it is computed from, where the exercise says (`from:`): the inputs behind the wrong value.
    if (const auto inputs =
            sources ? sources(first_wrong_index) : std::vector<std::pair<std::string, std::string>>();
        !inputs.empty()) {
      std::vector<std::string> parts;
      f.details["inputs"] = nlohmann::json::array();
      for (const auto& [element_name, value] : inputs) {
        parts.push_back(fmt::format("{} = {}", element_name, value));
        f.details["inputs"].push_back({{"element", element_name}, {"value", value}});
      }
      f.details["computed_from"] = fmt::format("computed from {}", fmt::join(parts, " and "));
      f.message += ", " + f.details["computed_from"].get<std::string>();
    }
    // Who wrote it, where the backend knows (the simulator): the line to look at.
    if (const std::optional<ElementWrites> w =
            writes ? writes->writes(layout.name, first_wrong_index) : std::nullopt) {
      f.details["written_by"] = writers_sentence(layout.element_name(first_wrong_index), *w);
      f.message += "; " + f.details["written_by"].get<std::string>();
      f.details["writers"] = nlohmann::json::array();
      for (const ElementWriter& writer : w->writers)
        f.details["writers"].push_back({{"block", {writer.block.x, writer.block.y, writer.block.z}},
                                        {"thread", {writer.thread.x, writer.thread.y, writer.thread.z}},
                                        {"line", writer.line}});
      if (!w->writers.empty()) f.line = w->writers.front().line;
    }
    findings.push_back(std::move(f));
  }
  if (unwritten > 0) {
    Finding f;
    f.kind = FindingKind::kUnwrittenOutput;
    f.file = file;
    f.message = fill.init == BufferInit::kPoison
                    ? fmt::format(
                          "{} of {} elements of '{}' were never written (they still hold the poison they "
                          "started with); the first is {}",
                          with_thousands(unwritten), with_thousands(count), layout.name, first_unwritten)
                    : fmt::format(
                          "{} of {} elements of '{}' still hold the value they started with ({}) where the "
                          "reference changed them: {}; the first is {}",
                          with_thousands(unwritten), with_thousands(count), layout.name, fill.summary(),
                          unwritten_by_record ? "no thread wrote them" : "the kernel left them as they were",
                          first_unwritten);
    f.details = {{"buffer", layout.name},
                 {"unwritten", unwritten},
                 {"elements", count},
                 {"first", unwritten_list},
                 {"cells", std::move(unwritten_cells)}};
    if (fill.init != BufferInit::kPoison) f.details["started_with"] = fill.summary();
    findings.push_back(std::move(f));
  }
}

void check_input(const BufferLayout& layout, const Buffer& before, const Buffer& after,
                 const std::string& file, std::vector<Finding>& findings) {
  if (before.bytes == after.bytes) return;
  const size_t count = before.bytes.size() / before.element_size;
  size_t changed = 0, first = count;
  for (size_t i = 0; i < count; ++i) {
    if (std::memcmp(element(before, i), element(after, i), before.element_size) == 0) continue;
    if (changed++ == 0) first = i;
  }
  auto show = [&](const Buffer& buffer) {
    std::vector<std::string> lanes;
    for (uint32_t lane = 0; lane < info(layout.type).lanes; ++lane)
      lanes.push_back(show_lane(read_lane(element(buffer, first), layout.type, lane), layout.type));
    return lanes.size() == 1 ? lanes[0] : fmt::format("({})", fmt::join(lanes, ", "));
  };
  Finding f;
  f.kind = FindingKind::kModifiedInput;
  f.file = file;
  f.message = fmt::format(
      "the kernel changed {} of {} elements of its input '{}' (the first is {}: it "
      "was {}, the kernel left {}); inputs must stay as they were",
      with_thousands(changed), with_thousands(count), layout.name, layout.element_name(first), show(before),
      show(after));
  f.details = {{"buffer", layout.name}, {"changed", changed}, {"first", first}};
  findings.push_back(std::move(f));
}

}  // namespace gpugrade
