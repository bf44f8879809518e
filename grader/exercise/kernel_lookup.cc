// Kernel lookup: demangling with the C++ ABI's own demangler, a small parser for the demangled parameter
// list, and one spelling of simple C++ types so that both sides compare as text.
#include "grader/exercise/kernel_lookup.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <utility>

namespace gpugrade {
namespace {

// Spellings the demangler uses for what exercises may write differently (LP64 Linux).
constexpr std::array<std::pair<std::string_view, std::string_view>, 27> kTypeSpellings = {{
    {"unsigned", "unsigned int"},
    {"signed", "int"},
    {"signed int", "int"},
    {"short int", "short"},
    {"signed short", "short"},
    {"unsigned short int", "unsigned short"},
    {"long int", "long"},
    {"signed long", "long"},
    {"unsigned long int", "unsigned long"},
    {"long long int", "long long"},
    {"signed long long", "long long"},
    {"unsigned long long int", "unsigned long long"},
    {"size_t", "unsigned long"},
    {"std::size_t", "unsigned long"},
    {"ptrdiff_t", "long"},
    {"int8_t", "signed char"},
    {"uint8_t", "unsigned char"},
    {"int16_t", "short"},
    {"uint16_t", "unsigned short"},
    {"int32_t", "int"},
    {"uint32_t", "unsigned int"},
    {"int64_t", "long"},
    {"uint64_t", "unsigned long"},
    {"half", "__half"},
    {"nv_bfloat16", "__nv_bfloat16"},
    {"uint", "unsigned int"},
    {"intptr_t", "long"},
}};

// Bytes of the scalar types a kernel parameter commonly has; 0 when unknown (then sizes are not compared).
uint32_t size_of_canonical(std::string_view type) {
  if (type.ends_with("*") || type.ends_with("&")) return 8;
  static constexpr std::array<std::pair<std::string_view, uint32_t>, 16> kSizes = {{
      {"bool", 1},
      {"char", 1},
      {"signed char", 1},
      {"unsigned char", 1},
      {"short", 2},
      {"unsigned short", 2},
      {"__half", 2},
      {"__nv_bfloat16", 2},
      {"int", 4},
      {"unsigned int", 4},
      {"float", 4},
      {"long", 8},
      {"unsigned long", 8},
      {"long long", 8},
      {"unsigned long long", 8},
      {"double", 8},
  }};
  std::string_view base = type.starts_with("const ") ? type.substr(6) : type;
  for (const auto& [name, bytes] : kSizes)
    if (name == base) return bytes;
  return 0;
}

// `const float*` as `float*`: what a kernel may do through a pointer is judged when it runs (a write
// through an input is modified-input), so a learner's `const` on a pointer, added or left out, is no
// reason to refuse the kernel. Deeper levels keep theirs.
std::string_view without_pointee_const(std::string_view type) {
  if (type.starts_with("const ") && type.ends_with("*") && type.find('*') == type.size() - 1)
    type.remove_prefix(6);
  return type;
}

// Whether a kernel parameter of type `have` takes the exercise's `want` as a host launch would: the same
// type up to the const of what a pointer points to, or integers of one width (`unsigned count` for the
// exercise's `int count`, `unsigned long long n` for `size_t n`), whose bits the grader passes unchanged,
// as a launch converts the argument.
bool takes_as_launch_would(std::string_view have, std::string_view want) {
  if (without_pointee_const(have) == without_pointee_const(want)) return true;
  static constexpr std::array<std::string_view, 10> kIntegers = {
      "char", "signed char",  "unsigned char", "short",         "unsigned short",
      "int",  "unsigned int", "long",          "unsigned long", "long long"};
  const auto integer = [](std::string_view type) {
    if (type.starts_with("const ")) type.remove_prefix(6);
    return type == "unsigned long long" ||
           std::find(kIntegers.begin(), kIntegers.end(), type) != kIntegers.end();
  };
  return integer(have) && integer(want) && size_of_canonical(have) == size_of_canonical(want);
}

uint32_t size_of_ptx_param(const ParamInfo& param) {
  if (param.bytes != 0) return param.bytes;
  std::string_view type = param.ptx_type;
  if (type.ends_with("64")) return 8;
  if (type.ends_with("32")) return 4;
  if (type.ends_with("16")) return 2;
  if (type.ends_with("8")) return 1;
  return 0;
}

std::optional<std::string> demangle(const std::string& entry) {
  if (!entry.starts_with("_Z")) return std::nullopt;
  int status = 0;
  char* text = abi::__cxa_demangle(entry.c_str(), nullptr, nullptr, &status);
  if (status != 0 || text == nullptr) return std::nullopt;
  std::string result(text);
  std::free(text);
  return result;
}

// Splits at commas outside <>, () and [].
std::vector<std::string> split_top_level(std::string_view list) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : list) {
    if (c == '<' || c == '(' || c == '[') ++depth;
    if (c == '>' || c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!current.empty()) parts.push_back(current);
  return parts;
}

// A kernel as C++ names it: demangled when mangled, else the plain (extern "C") name.
struct CppKernel {
  const KernelTraits* traits;
  std::string name;      // qualified, without template arguments: "copy", "ns::copy"
  std::string instance;  // with them, as demangled: "reduce<float, 256>"; else the name
  bool mangled = false;
  std::vector<std::string> params;  // canonical types, when mangled
  std::vector<std::string> args;    // canonical template arguments; empty when not a template
};

CppKernel describe(const KernelTraits& traits) {
  CppKernel kernel{&traits, traits.entry, traits.entry, false, {}, {}};
  std::optional<std::string> text = demangle(traits.entry);
  if (!text || text->empty() || text->back() != ')') return kernel;
  // The parameter list is the last balanced (...); before it, an optional return type (templates) and
  // the name with its template arguments.
  size_t open = std::string::npos;
  int parens = 0;
  for (size_t i = text->size() - 1; i-- > 0;) {
    char c = (*text)[i];
    if (c == ')') ++parens;
    if (c == '(' && parens-- == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return kernel;
  std::string_view name = std::string_view(*text).substr(0, open);
  int depth = 0;
  size_t name_start = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == ' ' && depth == 0) name_start = i + 1;
  }
  name.remove_prefix(name_start);
  kernel.instance = std::string(name);
  if (name.ends_with(">")) {
    for (const std::string& arg : template_args_of(name).value_or(std::vector<std::string>{}))
      kernel.args.push_back(canonical_template_arg(arg));
    name = name.substr(0, name.find('<'));
  }
  kernel.name = std::string(name);
  kernel.mangled = true;
  std::string_view list = std::string_view(*text).substr(open + 1, text->size() - open - 2);
  for (const std::string& param : split_top_level(list)) kernel.params.push_back(canonical_type(param));
  if (kernel.params.size() == 1 && kernel.params[0] == "void") kernel.params.clear();
  return kernel;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// An integer literal as C++ or the demangler writes it (`-3`, `256u`, `0x100`, `10ul`), in decimal.
std::optional<std::string> integer_literal(std::string_view text) {
  while (!text.empty() &&
         (text.back() == 'u' || text.back() == 'U' || text.back() == 'l' || text.back() == 'L'))
    text.remove_suffix(1);
  const bool negative = text.starts_with('-');
  if (negative) text.remove_prefix(1);
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  unsigned long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return fmt::format("{}{}", negative && value != 0 ? "-" : "", value);
}

std::string instance_text(std::string_view name, const std::vector<std::string>& args) {
  return args.empty() ? std::string(name) : fmt::format("{}<{}>", name, fmt::join(args, ", "));
}

bool name_matches(const CppKernel& kernel, std::string_view expected) {
  if (kernel.name == expected) return true;
  size_t colons = kernel.name.rfind("::");
  return colons != std::string::npos && std::string_view(kernel.name).substr(colons + 2) == expected;
}

std::string kernel_params_text(const CppKernel& kernel) {
  if (kernel.mangled) return fmt::format("{}", fmt::join(kernel.params, ", "));
  std::vector<std::string> types;
  for (const ParamInfo& param : kernel.traits->params) types.push_back(param.ptx_type);
  return fmt::format("{}", fmt::join(types, ", "));
}

std::string expected_params_text(const ExpectedKernel& expected) {
  std::vector<std::string> params;
  for (const ExpectedParam& param : expected.params)
    params.push_back(fmt::format("{} {}", param.type, param.name));
  return fmt::format("{}", fmt::join(params, ", "));
}

// Why `kernel` does not take the expected parameters; empty when it does.
std::string mismatch(const CppKernel& kernel, const ExpectedKernel& expected) {
  size_t count = kernel.mangled ? kernel.params.size() : kernel.traits->params.size();
  if (count != expected.params.size())
    return fmt::format("it has {} parameters, the exercise expects {}", count, expected.params.size());
  for (size_t i = 0; i < count; ++i) {
    const ExpectedParam& want = expected.params[i];
    std::string want_type = canonical_type(want.type);
    if (kernel.mangled && !takes_as_launch_would(kernel.params[i], want_type))
      return fmt::format("parameter {} ({}) is {}, not {}", i + 1, want.name, kernel.params[i], want_type);
    uint32_t want_bytes = want.struct_bytes != 0 ? want.struct_bytes : size_of_canonical(want_type);
    uint32_t have_bytes = size_of_ptx_param(kernel.traits->params[i]);
    // The PTX keeps a struct's size, not its fields: a field the file and the exercise disagree on shows
    // here.
    if (want.struct_bytes != 0 && have_bytes != want.struct_bytes)
      return fmt::format(
          "parameter {} ({}) is a {} of {} bytes in the compiled code, but {}, {} bytes: declare "
          "the struct's fields in exercise.yaml as the kernel's file declares them, in order",
          i + 1, want.name, want.type, have_bytes, want.struct_layout, want.struct_bytes);
    if (!kernel.mangled && want_bytes != 0 && have_bytes != want_bytes)
      return fmt::format(
          "parameter {} ({}) has {} bytes, not the {} of {} (an extern \"C\" kernel keeps no "
          "parameter types, so only sizes are checked)",
          i + 1, want.name, have_bytes, want_bytes, want_type);
  }
  return "";
}

Finding signature_mismatch(std::string message, std::string_view display_path, int line) {
  Finding finding;
  finding.kind = FindingKind::kSignatureMismatch;
  finding.message = std::move(message);
  finding.file = std::string(display_path);
  finding.line = line;
  return finding;
}

}  // namespace

std::optional<std::vector<std::string>> template_args_of(std::string_view name) {
  const size_t open = name.find('<');
  if (open == std::string_view::npos) return std::vector<std::string>{};
  if (!name.ends_with('>')) return std::nullopt;
  std::string_view inner = name.substr(open + 1, name.size() - open - 2);
  int depth = 0;
  for (char c : inner) {
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth < 0) return std::nullopt;
  }
  if (depth != 0) return std::nullopt;
  std::vector<std::string> args;
  for (const std::string& part : split_top_level(inner)) {
    std::string_view arg = trimmed(part);
    if (arg.empty()) return std::nullopt;
    args.emplace_back(arg);
  }
  if (args.empty() || inner.ends_with(',')) return std::nullopt;
  return args;
}

std::string canonical_template_arg(std::string_view arg) {
  arg = trimmed(arg);
  // The demangler casts values of types without a literal suffix: `(unsigned char)3`, `(Mode)1`.
  if (arg.starts_with('(')) {
    const size_t close = arg.find(')');
    if (close != std::string_view::npos)
      if (std::optional<std::string> value = integer_literal(trimmed(arg.substr(close + 1)))) return *value;
  }
  if (std::optional<std::string> value = integer_literal(arg)) return *value;
  return canonical_type(arg);
}

std::string canonical_type(std::string_view type) {
  struct Level {
    std::string indirection;  // empty for the base type, else "*" or "&"
    bool is_const = false;
    bool is_volatile = false;
  };
  std::vector<Level> levels(1);
  std::vector<std::string> base_words;
  size_t i = 0;
  while (i < type.size()) {
    char c = type[i];
    if (c == '*' || c == '&') {
      levels.push_back({std::string(1, c)});
      ++i;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':') {
      size_t start = i;
      for (int depth = 0; i < type.size(); ++i) {
        char d = type[i];
        if (d == '<') ++depth;
        if (d == '>') --depth;
        if (depth == 0 && !std::isalnum(static_cast<unsigned char>(d)) && d != '_' && d != ':' && d != '>')
          break;
      }
      std::string_view word = type.substr(start, i - start);
      if (word == "const")
        levels.back().is_const = true;
      else if (word == "volatile")
        levels.back().is_volatile = true;
      else if (word != "__restrict__" && word != "__restrict" && word != "restrict")
        base_words.emplace_back(word);
    } else {
      ++i;
    }
  }
  // Top-level qualifiers are not part of a function's type.
  levels.back().is_const = levels.back().is_volatile = false;
  std::string base = fmt::format("{}", fmt::join(base_words, " "));
  for (const auto& [written, spelled] : kTypeSpellings)
    if (base == written) base = spelled;
  std::string text = fmt::format("{}{}{}", levels[0].is_const ? "const " : "",
                                 levels[0].is_volatile ? "volatile " : "", base);
  for (size_t level = 1; level < levels.size(); ++level)
    text += levels[level].indirection + (levels[level].is_const ? " const" : "") +
            (levels[level].is_volatile ? " volatile" : "");
  return text;
}

std::string explicit_instantiation(const ExpectedKernel& expected) {
  if (expected.template_args.empty()) return "";
  std::vector<std::string> types;
  for (const ExpectedParam& param : expected.params) types.push_back(param.type);
  return fmt::format("template __global__ void {}<{}>({});", expected.name,
                     fmt::join(expected.template_args, ", "), fmt::join(types, ", "));
}

KernelMatch find_kernel(const std::vector<KernelTraits>& kernels, const ExpectedKernel& expected,
                        std::string_view display_path) {
  KernelMatch match;
  std::vector<CppKernel> all;
  for (const KernelTraits& traits : kernels) all.push_back(describe(traits));
  std::vector<const CppKernel*> named;
  for (const CppKernel& kernel : all)
    if (name_matches(kernel, expected.name)) named.push_back(&kernel);
  // The exercise names the instantiation (`reduce<float, 256>`): only it is graded.
  if (!expected.template_args.empty()) {
    std::vector<std::string> want;
    for (const std::string& arg : expected.template_args) want.push_back(canonical_template_arg(arg));
    std::vector<const CppKernel*> instances;
    for (const CppKernel* kernel : named)
      if (kernel->args == want) instances.push_back(kernel);
    match.missing_instantiation = instances.empty();
    if (instances.empty() && !named.empty()) {
      std::vector<std::string> present;
      for (const CppKernel* kernel : named) present.push_back(kernel->instance);
      match.findings.push_back(signature_mismatch(
          fmt::format(
              "no instantiation of kernel '{}' is {}, the one the exercise grades: the compiled code has "
              "{}; instantiate {} (launch it, or write `template __global__ void {}({});`)",
              expected.name, instance_text(expected.name, want), fmt::join(present, ", "),
              instance_text(expected.name, want), instance_text(expected.name, want),
              expected_params_text(expected)),
          display_path, named[0]->traits->line));
      return match;
    }
    named = std::move(instances);
  }
  const CppKernel* first_candidate = nullptr;
  std::string first_reason;
  std::vector<const CppKernel*> matching;
  for (const CppKernel* candidate : named) {
    const CppKernel& kernel = *candidate;
    std::string reason = mismatch(kernel, expected);
    if (reason.empty())
      matching.push_back(&kernel);
    else if (first_candidate == nullptr)
      first_candidate = &kernel, first_reason = reason;
  }
  // Of several kernels with the expected parameters, grade the one a host launch `name<<<...>>>(...)` written
  // beside them would call: a plain kernel of that exact name before a template of it (overload resolution
  // prefers the non-template), either before a namespaced one (which the launch would not see). Only
  // kernels that tie at the best rank are ambiguous.
  const auto rank = [&expected](const CppKernel* kernel) {
    if (kernel->name != expected.name) return 2;
    return kernel->args.empty() ? 0 : 1;
  };
  if (!matching.empty()) {
    const auto by_rank = [&](const CppKernel* a, const CppKernel* b) { return rank(a) < rank(b); };
    const int best = rank(*std::min_element(matching.begin(), matching.end(), by_rank));
    std::erase_if(matching, [&](const CppKernel* kernel) { return rank(kernel) != best; });
  }
  if (matching.size() == 1) {
    match.kernel = matching[0]->traits;
    match.sizes_only = !matching[0]->mangled;
    return match;
  }
  // Template instantiations that differ only in their arguments (reduce<float, 128>, reduce<float, 256>):
  // grading the first one silently could grade code the learner did not mean.
  if (matching.size() > 1) {
    std::vector<std::string> names;
    for (const CppKernel* kernel : matching) names.push_back(kernel->instance);
    match.findings.push_back(signature_mismatch(
        fmt::format(
            "{} kernels named '{}' have the parameters the exercise expects ({}), and the exercise cannot "
            "tell which to grade; instantiate only one",
            matching.size(), expected.name, fmt::join(names, ", ")),
        display_path, matching[0]->traits->line));
    return match;
  }
  std::vector<std::string> want;
  for (const std::string& arg : expected.template_args) want.push_back(canonical_template_arg(arg));
  std::string wanted =
      fmt::format("{}({})", instance_text(expected.name, want), expected_params_text(expected));
  if (first_candidate != nullptr) {
    match.findings.push_back(signature_mismatch(
        fmt::format("kernel '{}' has parameters ({}); the exercise expects ({}): {}", expected.name,
                    kernel_params_text(*first_candidate), expected_params_text(expected), first_reason),
        display_path, first_candidate->traits->line));
    return match;
  }
  std::vector<std::string> present;
  for (const CppKernel& kernel : all)
    present.push_back(fmt::format("{}({})", kernel.name, kernel_params_text(kernel)));
  std::string has = present.empty() ? "the compiled code has no kernels"
                                    : fmt::format("the compiled code has {}", fmt::join(present, ", "));
  match.findings.push_back(
      signature_mismatch(fmt::format("no kernel named '{}': {}; the exercise expects __global__ void {}",
                                     expected.name, has, wanted),
                         display_path, 0));
  return match;
}

}  // namespace gpugrade
