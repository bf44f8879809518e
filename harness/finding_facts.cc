// The findings' typed facts (see finding_facts.h): their keys, spelled once, and their wording.
#include "harness/finding_facts.h"

#include <fmt/format.h>

#include <algorithm>

namespace gpugrade {
namespace {

template <class T>
std::optional<T> optional_of(const nlohmann::json& in, const char* key) {
  const auto it = in.find(key);
  if (it == in.end()) return std::nullopt;
  if constexpr (std::is_same_v<T, Dim3>) return dim3_of(*it);
  if constexpr (std::is_same_v<T, bool>)
    return it->is_boolean() ? std::optional<T>(it->get<bool>()) : std::nullopt;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return it->is_number_integer() ? std::optional<T>(it->get<T>()) : std::nullopt;
  return std::nullopt;
}

std::string text_of(const nlohmann::json& in, const char* key) {
  const auto it = in.find(key);
  return it != in.end() && it->is_string() ? it->get<std::string>() : "";
}

std::optional<std::string> optional_text(const nlohmann::json& in, const char* key) {
  const auto it = in.find(key);
  return it != in.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>())
                                           : std::nullopt;
}

// A side of a finding in words; a missing coordinate reads as the details would print it.
std::string who(const std::optional<Dim3>& thread, const std::optional<Dim3>& block) {
  return "thread " + (thread ? to_string(*thread) : "null") + (block ? " of block " + to_string(*block) : "");
}

AccessKind access_named(std::string_view name) {
  for (size_t k = 0; k < kAccessWords.size(); ++k)
    if (kAccessWords[k].name == name) return static_cast<AccessKind>(k);
  return AccessKind::kRead;
}

}  // namespace

std::string_view hazard_name(AccessKind access, AccessKind other) {
  if (access == AccessKind::kRead) return "read-after-write";
  return other == AccessKind::kRead ? "write-after-read" : "write-after-write";
}

std::string HazardFacts::this_who() const {
  if (!between_blocks()) return who(thread, std::nullopt);
  return who(thread, block ? block : std::optional<Dim3>()) + (block ? "" : " of block null");
}

std::string HazardFacts::other_who() const { return who(other_thread, other_block); }

void to_json(nlohmann::json& out, const HazardFacts& facts) {
  out = nlohmann::json::object();
  if (facts.block) out["block"] = *facts.block;
  if (facts.thread) out["thread"] = *facts.thread;
  if (facts.variable) out["variable"] = *facts.variable;
  if (facts.index) out["index"] = *facts.index;
  if (facts.hazards) out["hazards"] = *facts.hazards;
  if (!facts.hazard.empty()) out["hazard"] = facts.hazard;
  if (!facts.access.empty()) out["access"] = facts.access;
  if (!facts.other_access.empty()) out["other_access"] = facts.other_access;
  if (!facts.barrier.empty()) out["barrier"] = facts.barrier;
  if (facts.other_thread) out["other_thread"] = *facts.other_thread;
  if (facts.other_block) out["other_block"] = *facts.other_block;
  if (facts.other_line) out["other_line"] = *facts.other_line;
  if (!facts.other_file.empty()) out["other_file"] = facts.other_file;
  if (facts.after_barrier) out["after_barrier"] = *facts.after_barrier;
}

void from_json(const nlohmann::json& in, HazardFacts& facts) {
  facts.block = optional_of<Dim3>(in, "block");
  facts.thread = optional_of<Dim3>(in, "thread");
  facts.variable = optional_text(in, "variable");
  facts.index = optional_text(in, "index");
  facts.hazards = optional_of<uint64_t>(in, "hazards");
  facts.hazard = text_of(in, "hazard");
  facts.access = text_of(in, "access");
  facts.other_access = text_of(in, "other_access");
  facts.barrier = text_of(in, "barrier");
  facts.other_thread = optional_of<Dim3>(in, "other_thread");
  facts.other_block = optional_of<Dim3>(in, "other_block");
  facts.other_line = optional_of<int>(in, "other_line");
  facts.other_file = text_of(in, "other_file");
  facts.after_barrier = optional_of<bool>(in, "after_barrier");
}

std::string describe(const HazardFacts& facts, AccessKind access, bool blocks_hand_on) {
  const std::string thread = to_string(facts.thread.value_or(Dim3{}));
  const std::string block = to_string(facts.block.value_or(Dim3{}));
  if (facts.hazard.empty()) {
    // After a barrier, a later write would not help this read: the block writes other elements.
    return "thread " + thread + " " + std::string(words(access).verb) + " " + facts.index.value_or("") +
           ", which no thread of block " + block + " wrote" +
           (facts.after_barrier.value_or(false)
                ? ", though a barrier came before this read: the block's threads wrote other elements, "
                  "so check this index against the ones they write (the elements of a partial tile or "
                  "a halo must be written too, or not read)"
                : "");
  }
  const std::string other = to_string(facts.other_thread.value_or(Dim3{}));
  const std::string other_line = std::to_string(facts.other_line.value_or(0));
  if (facts.between_blocks() && access == AccessKind::kRead)
    return "thread " + thread + " of block " + block + " reads " + facts.index.value_or("") +
           ", which thread " + other + " of block " + to_string(*facts.other_block) + " wrote at line " +
           other_line +
           ", and nothing orders that write before this read: the writer calls __threadfence() after "
           "writing, "
           "then updates an atomic or a flag, and this block reads that (then calls __threadfence()) before "
           "it reads the data";
  if (facts.between_blocks())
    return "thread " + thread + " of block " + block + " writes " + facts.index.value_or("") +
           ", which thread " + other + " of block " + to_string(*facts.other_block) +
           " also writes at line " + other_line +
           "; blocks run in no fixed order, so each element must be written by one block" +
           (blocks_hand_on ? ", or handed on: write it, call __threadfence(), then update an atomic that the "
                             "other block reads before it writes"
                           : "");
  return "thread " + thread + " " + std::string(words(access).verb) + " " + facts.index.value_or("") + " " +
         std::string(words(access_named(facts.other_access)).participle) + " by thread " + other +
         " at line " + other_line + " with no " + facts.barrier + " between them";
}

void to_json(nlohmann::json& out, const OutOfBoundsFacts& facts) {
  out = nlohmann::json::object();
  if (facts.thread) out["thread"] = *facts.thread;
  if (facts.block) out["block"] = *facts.block;
  out["bytes"] = facts.bytes;
  out["space"] = facts.space;
  out["write"] = facts.write;
  if (facts.variable) out["variable"] = true;
  if (facts.wild) out["wild"] = true;
  if (facts.buffer) out["buffer"] = *facts.buffer;
  if (facts.buffer_bytes) out["buffer_bytes"] = *facts.buffer_bytes;
  if (facts.element_size) out["element_size"] = *facts.element_size;
  if (facts.elements) out["elements"] = *facts.elements;
  if (facts.offset) out["offset"] = *facts.offset;
  if (facts.index) out["index"] = *facts.index;
  if (facts.read_only) out["read_only"] = true;
  if (facts.misaligned) out["misaligned"] = true;
  if (facts.bytes_before_start) out["bytes_before_start"] = *facts.bytes_before_start;
  if (facts.elements_before_start) out["elements_before_start"] = *facts.elements_before_start;
  if (facts.bytes_past_end) out["bytes_past_end"] = *facts.bytes_past_end;
  if (facts.elements_past_end) out["elements_past_end"] = *facts.elements_past_end;
}

void from_json(const nlohmann::json& in, OutOfBoundsFacts& facts) {
  facts.thread = optional_of<Dim3>(in, "thread");
  facts.block = optional_of<Dim3>(in, "block");
  facts.bytes = optional_of<uint32_t>(in, "bytes").value_or(0);
  facts.space = text_of(in, "space");
  facts.write = optional_of<bool>(in, "write").value_or(false);
  facts.variable = optional_of<bool>(in, "variable").value_or(false);
  facts.wild = optional_of<bool>(in, "wild").value_or(false);
  facts.buffer = optional_text(in, "buffer");
  facts.buffer_bytes = optional_of<uint64_t>(in, "buffer_bytes");
  facts.element_size = optional_of<uint64_t>(in, "element_size");
  facts.elements = optional_of<uint64_t>(in, "elements");
  facts.offset = optional_of<int64_t>(in, "offset");
  facts.index = optional_of<int64_t>(in, "index");
  facts.read_only = optional_of<bool>(in, "read_only").value_or(false);
  facts.misaligned = optional_of<bool>(in, "misaligned").value_or(false);
  facts.bytes_before_start = optional_of<int64_t>(in, "bytes_before_start");
  facts.elements_before_start = optional_of<int64_t>(in, "elements_before_start");
  facts.bytes_past_end = optional_of<uint64_t>(in, "bytes_past_end");
  facts.elements_past_end = optional_of<uint64_t>(in, "elements_past_end");
}

std::string describe(const OutOfBoundsFacts& facts, bool null_pointer) {
  const std::string verb = facts.write ? "writes" : "reads";
  const std::string who = fmt::format("thread {} of block {}", to_string(facts.thread.value_or(Dim3{})),
                                      to_string(facts.block.value_or(Dim3{})));
  if (facts.wild)
    return fmt::format("{} {} {} bytes through {}", who, verb, facts.bytes,
                       null_pointer ? "a null pointer" : "a pointer into no buffer");
  const std::string region = facts.buffer             ? fmt::format("'{}'", *facts.buffer)
                             : facts.space == "local" ? "its local memory"
                             : facts.space == "const" ? "constant memory"
                                                      : "the kernel parameters";
  const int64_t element = static_cast<int64_t>(facts.element_size.value_or(1));
  const int64_t offset = facts.offset.value_or(0);
  const int64_t index = facts.index.value_or(0);
  const uint64_t elements = facts.elements.value_or(0);
  const auto count = [](uint64_t n) { return fmt::format("{} {}", n, n == 1 ? "element" : "elements"); };
  std::string at = facts.buffer ? fmt::format("{}[{}]", *facts.buffer, index)
                                : fmt::format("byte {} of {}", offset, region);
  if (facts.buffer && offset % element != 0) at += fmt::format(" (byte {} of it)", offset - index * element);
  if (facts.read_only)
    return fmt::format("{} writes {} bytes to {}, which is read-only", who, facts.bytes, region);
  if (facts.misaligned)
    return fmt::format("{} {} {} bytes at {}, which is not {}-byte aligned", who, verb, facts.bytes, at,
                       facts.bytes);
  if (facts.elements_before_start) {
    const auto before = static_cast<uint64_t>(*facts.elements_before_start);
    return fmt::format("{} {} {}, {} before the start of {} ({})", who, verb, at, count(before), region,
                       count(elements));
  }
  const uint64_t past = facts.elements_past_end.value_or(0);
  if (past > 0)
    return fmt::format("{} {} {}, {} past the end of {} ({})", who, verb, at, count(past), region,
                       count(elements));
  return fmt::format("{} {} {} bytes at {}, {} bytes past the end of {} ({} bytes)", who, verb, facts.bytes,
                     at, facts.bytes_past_end.value_or(0), region, facts.buffer_bytes.value_or(0));
}

}  // namespace gpugrade
