// Output and input judging, lane by lane in each element's own type; the findings list the first few
// differing elements by name.
#include "grader/judge/buffer_compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>

#include "grader/result/result.h"
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

const std::byte* element(const Buffer& buffer, uint64_t index) { return buffer.bytes.data() + index * buffer.element_size; }

// The first lane of element `index` that differs, or -1 when the element passes.
int differing_lane(const Buffer& got, const Buffer& want, uint64_t index, ElementType type, const Compare& compare) {
  for (uint32_t lane = 0; lane < info(type).lanes; ++lane) {
    if (!same_lane(read_lane(element(got, index), type, lane), read_lane(element(want, index), type, lane), type,
                   compare))
      return static_cast<int>(lane);
  }
  return -1;
}

}  // namespace

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
                    const Fill& fill, const Compare& compare, const std::string& file, std::vector<Finding>& findings) {
  // Identical bits pass under every compare mode; a GPU size's millions of elements need no loop.
  if (got.bytes == want.bytes) return;
  const ElementType type = layout.type;
  const bool vector = info(type).lanes > 1;
  const size_t count = want.bytes.size() / want.element_size;
  size_t wrong = 0, unwritten = 0;
  nlohmann::json wrong_list = nlohmann::json::array(), unwritten_list = nlohmann::json::array();
  std::string first_wrong, first_unwritten;
  // Every wrong and unwritten element (up to kPictureCells each), for the HTML report's heat map.
  nlohmann::json wrong_cells = nlohmann::json::array(), unwritten_cells = nlohmann::json::array();
  for (size_t i = 0; i < count; ++i) {
    const int lane = differing_lane(got, want, i, type, compare);
    if (lane < 0) continue;
    const LaneValue g = read_lane(element(got, i), type, static_cast<uint32_t>(lane));
    const LaneValue w = read_lane(element(want, i), type, static_cast<uint32_t>(lane));
    const std::string name = layout.element_name(i) + (vector ? kLaneNames[lane] : "");
    const bool untouched = initial != nullptr && std::memcmp(element(got, i), element(*initial, i), got.element_size) == 0;
    nlohmann::json& cells = untouched ? unwritten_cells : wrong_cells;
    if (cells.size() < kPictureCells) cells.push_back(i);
    if (untouched) {
      if (unwritten++ < kListedMismatches) {
        unwritten_list.push_back({{"index", i}, {"expected", show_lane(w, type)}});
        if (layout.dims.size() > 1 || vector) unwritten_list.back()["element"] = name;
        if (first_unwritten.empty()) first_unwritten = fmt::format("{} (expected {})", name, show_lane(w, type));
      }
      continue;
    }
    if (wrong++ < kListedMismatches) {
      std::string note;
      if (info(type).floating && info(type).bytes / info(type).lanes == 4 &&
          is_poison_word(static_cast<uint32_t>(g.bits)))
        note = fmt::format(", the poison of a shared-memory word no thread of block {} wrote",
                           poison_block(static_cast<uint32_t>(g.bits)));
      wrong_list.push_back({{"index", i}, {"expected", show_lane(w, type)}, {"got", show_lane(g, type)}});
      if (layout.dims.size() > 1 || vector) wrong_list.back()["element"] = name;
      if (first_wrong.empty())
        first_wrong = fmt::format("{}: expected {}, got {}{}", name, show_lane(w, type), show_lane(g, type), note);
    }
  }
  if (wrong > 0) {
    Finding f;
    f.kind = FindingKind::kWrongOutput;
    f.file = file;
    f.message = fmt::format("{} of {} elements of '{}' differ from the reference; the first is {}",
                            with_thousands(wrong), with_thousands(count), layout.name, first_wrong);
    f.details = {{"buffer", layout.name}, {"mismatches", wrong}, {"elements", count}, {"first", wrong_list},
                 {"cells", std::move(wrong_cells)}};
    findings.push_back(std::move(f));
  }
  if (unwritten > 0) {
    Finding f;
    f.kind = FindingKind::kUnwrittenOutput;
    f.file = file;
    f.message = fill.init == BufferInit::kPoison
                    ? fmt::format("{} of {} elements of '{}' were never written (they still hold the poison they "
                                  "started with); the first is {}",
                                  with_thousands(unwritten), with_thousands(count), layout.name, first_unwritten)
                    : fmt::format("{} of {} elements of '{}' still hold the value they started with ({}) where the "
                                  "reference changed them: the kernel never wrote or added to them; the first is {}",
                                  with_thousands(unwritten), with_thousands(count), layout.name, fill.summary(),
                                  first_unwritten);
    f.details = {{"buffer", layout.name}, {"unwritten", unwritten}, {"elements", count}, {"first", unwritten_list},
                 {"cells", std::move(unwritten_cells)}};
    findings.push_back(std::move(f));
  }
}

void check_input(const BufferLayout& layout, const Buffer& before, const Buffer& after, const std::string& file,
                 std::vector<Finding>& findings) {
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
  f.message = fmt::format("the kernel changed {} of {} elements of its input '{}' (the first is {}: it "
                          "was {}, the kernel left {}); inputs must stay as they were",
                          with_thousands(changed), with_thousands(count), layout.name, layout.element_name(first),
                          show(before), show(after));
  f.details = {{"buffer", layout.name}, {"changed", changed}, {"first", first}};
  findings.push_back(std::move(f));
}

}  // namespace gpugrade
