// The poison prologue for correctness runs. See poison_prologue.h.
#include "harness/gpu/poison_prologue.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "harness/gpu/entry_scan.h"
#include "harness/poison.h"

namespace gpugrade::gpu {
namespace {

// Leaves the block's linear thread index in %gg_r0, the block's thread count in %gg_r1 and the
// block's poison word, poison_word(linear block index), in %gg_r2.
std::string prologue_head() {
  return fmt::format(
      "\t{}: fill shared memory with the block's poison, then wait for every thread.\n"
      "\t.reg .pred \t%gg_p;\n"
      "\t.reg .b32 \t%gg_r<7>;\n"
      "\t.reg .b64 \t%gg_rd<2>;\n"
      "\tmov.u32 \t%gg_r0, %tid.x;\n"
      "\tmov.u32 \t%gg_r1, %tid.y;\n"
      "\tmov.u32 \t%gg_r2, %tid.z;\n"
      "\tmov.u32 \t%gg_r3, %ntid.x;\n"
      "\tmov.u32 \t%gg_r4, %ntid.y;\n"
      "\tmad.lo.u32 \t%gg_r2, %gg_r2, %gg_r4, %gg_r1;\n"
      "\tmad.lo.u32 \t%gg_r0, %gg_r2, %gg_r3, %gg_r0;\n"
      "\tmul.lo.u32 \t%gg_r3, %gg_r3, %gg_r4;\n"
      "\tmov.u32 \t%gg_r4, %ntid.z;\n"
      "\tmul.lo.u32 \t%gg_r1, %gg_r3, %gg_r4;\n"
      "\tmov.u32 \t%gg_r2, %ctaid.z;\n"
      "\tmov.u32 \t%gg_r3, %nctaid.y;\n"
      "\tmul.wide.u32 \t%gg_rd0, %gg_r2, %gg_r3;\n"
      "\tmov.u32 \t%gg_r2, %ctaid.y;\n"
      "\tcvt.u64.u32 \t%gg_rd1, %gg_r2;\n"
      "\tadd.u64 \t%gg_rd0, %gg_rd0, %gg_rd1;\n"
      "\tmov.u32 \t%gg_r2, %nctaid.x;\n"
      "\tcvt.u64.u32 \t%gg_rd1, %gg_r2;\n"
      "\tmul.lo.u64 \t%gg_rd0, %gg_rd0, %gg_rd1;\n"
      "\tmov.u32 \t%gg_r2, %ctaid.x;\n"
      "\tcvt.u64.u32 \t%gg_rd1, %gg_r2;\n"
      "\tadd.u64 \t%gg_rd0, %gg_rd0, %gg_rd1;\n"
      "\trem.u64 \t%gg_rd0, %gg_rd0, {};\n"
      "\tcvt.u32.u64 \t%gg_r2, %gg_rd0;\n"
      "\tadd.u32 \t%gg_r2, %gg_r2, 1;\n"
      "\tor.b32 \t%gg_r2, %gg_r2, {:#010x};\n",
      kPoisonPrologueMarker, kPoisonBlocks, kPoisonBase);
}

// Threads stride through [variable, variable + end) one byte at a time; byte b of a word gets byte
// (address % 4) of the poison word, so any aligned load of 4 bytes reads the word itself. `end` is a
// byte count or %dynamic_smem_size.
std::string fill_range(std::string_view variable, std::string_view end, int label) {
  return fmt::format(
      "\tmov.u32 \t%gg_r3, {0};\n"
      "\tadd.u32 \t%gg_r4, %gg_r3, {1};\n"
      "\tadd.u32 \t%gg_r3, %gg_r3, %gg_r0;\n"
      "$gg_poison_{2}:\n"
      "\tsetp.ge.u32 \t%gg_p, %gg_r3, %gg_r4;\n"
      "\t@%gg_p bra \t$gg_poisoned_{2};\n"
      "\tand.b32 \t%gg_r5, %gg_r3, 3;\n"
      "\tshl.b32 \t%gg_r5, %gg_r5, 3;\n"
      "\tshr.u32 \t%gg_r6, %gg_r2, %gg_r5;\n"
      "\tst.shared.u8 \t[%gg_r3], %gg_r6;\n"
      "\tadd.u32 \t%gg_r3, %gg_r3, %gg_r1;\n"
      "\tbra.uni \t$gg_poison_{2};\n"
      "$gg_poisoned_{2}:\n",
      variable, end, label);
}

std::string prologue(const KernelTraits& traits) {
  std::string text = prologue_head();
  int label = 0;
  bool dynamic_done = false;
  for (const SharedVariable& variable : traits.shared) {
    // A variable declared in a called function's body cannot be named here; it starts unpoisoned on the
    // GPU (the simulator's pass still poisons it).
    if (!variable.named_in_entry) continue;
    if (variable.dynamic) {
      // Every .extern .shared variable starts at the same dynamic window: fill it once.
      if (dynamic_done) continue;
      dynamic_done = true;
      text += "\tmov.u32 \t%gg_r4, %dynamic_smem_size;\n";
      text += fill_range(variable.name, "%gg_r4", label++);
    } else if (variable.bytes > 0) {
      text += fill_range(variable.name, std::to_string(variable.bytes), label++);
    }
  }
  text += "\tbar.sync \t0;\n";
  return text;
}

// Comments become spaces (newlines kept), so that offsets still match the text and nothing commented
// out is taken for code.
std::optional<size_t> first_instruction(std::string_view code, std::string_view entry) {
  size_t open = std::string_view::npos;
  for (size_t at = code.find(".entry"); at != std::string_view::npos && open == std::string_view::npos;
       at = code.find(".entry", at + 1)) {
    size_t name = code.find_first_not_of(" \t\r\n", at + 6);
    if (name == std::string_view::npos || code.compare(name, entry.size(), entry) != 0) continue;
    size_t after = code.find_first_not_of(" \t\r\n", name + entry.size());
    if (after == std::string_view::npos || (code[after] != '(' && code[after] != '{')) continue;
    open = code.find('{', code[after] == '(' ? code.find(')', after) : after);
  }
  if (open == std::string_view::npos) return std::nullopt;
  for (size_t line = code.find('\n', open); line != std::string_view::npos; line = code.find('\n', line)) {
    ++line;
    std::string_view text = code.substr(line, code.find('\n', line) - line);
    text.remove_prefix(std::min(text.size(), text.find_first_not_of(" \t\r")));
    bool skip = text.empty();
    for (std::string_view directive : {".reg", ".shared", ".local", ".loc", ".pragma"})
      skip = skip || text.starts_with(directive);
    if (!skip) return line;
  }
  return std::nullopt;
}

}  // namespace

bool add_poison_prologue(std::string_view ptx, const std::vector<KernelTraits>& kernels,
                         std::string* poisoned, std::string* error) {
  const std::string code = blank_comments(ptx);
  std::vector<std::pair<size_t, const KernelTraits*>> places;
  for (const KernelTraits& kernel : kernels) {
    std::optional<size_t> at = first_instruction(code, kernel.entry);
    if (!at) {
      *error = fmt::format("cannot find the body of entry '{}' in the PTX", kernel.entry);
      return false;
    }
    places.emplace_back(*at, &kernel);
  }
  std::sort(places.begin(), places.end());
  poisoned->clear();
  poisoned->reserve(ptx.size() + places.size() * 2048);
  size_t copied = 0;
  for (const auto& [at, kernel] : places) {
    poisoned->append(ptx.substr(copied, at - copied));
    *poisoned += prologue(*kernel);
    copied = at;
  }
  poisoned->append(ptx.substr(copied));
  return true;
}

}  // namespace gpugrade::gpu
