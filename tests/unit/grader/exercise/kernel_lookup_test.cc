// Kernel lookup: finding the exercise's kernel among the PTX's entries and telling the learner, in C++
// terms, when its name or parameters differ.
#include "grader/exercise/kernel_lookup.h"

#include <gtest/gtest.h>

#include "grader/compile/compiler.h"
#include "harness/ptx/module.h"
#include "os/file.h"

namespace gpugrade {
namespace {

constexpr const char* kPath = "exercises/copy/copy.cu";

const ExpectedKernel kCopy = {"copy",
                              {{"out", "float*"}, {"in", "const float*"}, {"rows", "int"}, {"cols", "int"}}};

KernelTraits traits(std::string entry, std::vector<std::string> ptx_types, int line = 0) {
  KernelTraits kernel;
  kernel.entry = std::move(entry);
  for (size_t i = 0; i < ptx_types.size(); ++i)
    kernel.params.push_back({kernel.entry + "_param_" + std::to_string(i), ptx_types[i], 0});
  kernel.line = line;
  return kernel;
}

// The kernels of tests/data/compile/kernels.cu, compiled by nvcc and read by the PTX front end.
const std::vector<KernelTraits>& real_kernels() {
  static const std::vector<KernelTraits> kernels = [] {
    std::string error;
    std::optional<NvccCompiler> nvcc = NvccCompiler::create(GPUGRADE_NVCC, &error);
    EXPECT_TRUE(nvcc) << error;
    CompileRequest request;
    request.source = {"kernels.cu",
                      read_file_bytes(GPUGRADE_SOURCE_DIR "/tests/data/compile/kernels.cu").value_or("")};
    request.display_path = kPath;
    CompileOutput output = nvcc->compile(request);
    EXPECT_TRUE(output.ok());
    ptx::Module module;
    EXPECT_TRUE(ptx::parse_module(output.ptx, &module, &error)) << error;
    return ptx::kernel_traits(module);
  }();
  return kernels;
}

TEST(CanonicalType, SpellsEquivalentTypesOneWay) {
  EXPECT_EQ(canonical_type("float const*"), "const float*");
  EXPECT_EQ(canonical_type("const float *"), "const float*");
  EXPECT_EQ(canonical_type("float* __restrict__"), "float*");
  EXPECT_EQ(canonical_type("const int"), "int");
  EXPECT_EQ(canonical_type("size_t"), "unsigned long");
  EXPECT_EQ(canonical_type("unsigned"), "unsigned int");
  EXPECT_EQ(canonical_type("float* const*"), "float* const*");
}

TEST(KernelLookup, FindsAMangledKernelByItsCppName) {
  std::vector<KernelTraits> kernels = {traits("_Z5otherv", {}),
                                       traits("_Z4copyPfPKfii", {".u64", ".u64", ".u32", ".u32"})};
  KernelMatch match = find_kernel(kernels, kCopy, kPath);
  EXPECT_TRUE(match.findings.empty());
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z4copyPfPKfii");
  EXPECT_FALSE(match.sizes_only);
}

TEST(KernelLookup, TwoInstantiationsWithTheExpectedParametersAreAmbiguous) {
  const std::vector<std::string> params = {".u64", ".u64", ".u32", ".u32"};
  std::vector<KernelTraits> kernels = {traits("_Z4copyIfLi128EEvPfPKfii", params, 7),
                                       traits("_Z4copyIfLi256EEvPfPKfii", params, 7)};
  KernelMatch match = find_kernel(kernels, kCopy, kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].kind, FindingKind::kSignatureMismatch);
  EXPECT_EQ(match.findings[0].line, 7);
  EXPECT_EQ(
      match.findings[0].message,
      "2 kernels named 'copy' have the parameters the exercise expects (copy<float, 128>, copy<float, 256>), "
      "and the exercise cannot tell which to grade; instantiate only one");
}

TEST(KernelLookup, OneInstantiationWithTheExpectedParametersIsChosen) {
  std::vector<KernelTraits> kernels = {traits("_Z4copyIdLi128EEvPdPKdii", {".u64", ".u64", ".u32", ".u32"}),
                                       traits("_Z4copyIfLi256EEvPfPKfii", {".u64", ".u64", ".u32", ".u32"})};
  KernelMatch match = find_kernel(kernels, kCopy, kPath);
  EXPECT_TRUE(match.findings.empty());
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z4copyIfLi256EEvPfPKfii");
}

// reduce<T, N>(const T* in, T* out, int n) in three instantiations.
const std::vector<KernelTraits>& reduce_instantiations() {
  static const std::vector<KernelTraits> kernels = {
      traits("_Z6reduceIfLi128EEvPKT_PS0_i", {".u64", ".u64", ".u32"}, 5),
      traits("_Z6reduceIfLi256EEvPKT_PS0_i", {".u64", ".u64", ".u32"}, 5),
      traits("_Z6reduceIjLj256EEvPKT_PS0_i", {".u64", ".u64", ".u32"}, 5)};
  return kernels;
}

ExpectedKernel reduce_of(std::string type, std::vector<std::string> args) {
  return {"reduce", {{"in", "const " + type + "*"}, {"out", type + "*"}, {"n", "int"}}, std::move(args)};
}

TEST(KernelLookup, TemplateArgumentsInTheNamePickTheInstantiation) {
  KernelMatch match = find_kernel(reduce_instantiations(), reduce_of("float", {"float", "256"}), kPath);
  EXPECT_TRUE(match.findings.empty());
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z6reduceIfLi256EEvPKT_PS0_i");
  // The demangler writes reduce<unsigned int, 256u>; the exercise may spell it as C++ allows.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"unsigned", "256"}, std::vector<std::string>{" unsigned  int ", "0x100u"}}) {
    KernelMatch spelled = find_kernel(reduce_instantiations(), reduce_of("unsigned", args), kPath);
    ASSERT_NE(spelled.kernel, nullptr) << args[0];
    EXPECT_EQ(spelled.kernel->entry, "_Z6reduceIjLj256EEvPKT_PS0_i");
  }
}

TEST(KernelLookup, TemplateArgumentsThatMatchNoInstantiationListTheOnesThere) {
  KernelMatch match = find_kernel(reduce_instantiations(), reduce_of("float", {"float", "512"}), kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].kind, FindingKind::kSignatureMismatch);
  EXPECT_EQ(match.findings[0].line, 5);
  EXPECT_EQ(
      match.findings[0].message,
      "no instantiation of kernel 'reduce' is reduce<float, 512>, the one the exercise grades: the compiled "
      "code has reduce<float, 128>, reduce<float, 256>, reduce<unsigned int, 256u>; instantiate "
      "reduce<float, 512> (launch it, or write `template __global__ void reduce<float, 512>(const float* in, "
      "float* out, int n);`)");
}

TEST(KernelLookup, NamedInstantiationWithOtherParametersShowsThem) {
  KernelMatch match = find_kernel(reduce_instantiations(), reduce_of("double", {"float", "256"}), kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(
      match.findings[0].message,
      "kernel 'reduce' has parameters (const float*, float*, int); the exercise expects (const double* in, "
      "double* out, int n): parameter 1 (in) is const float*, not const double*");
}

TEST(CanonicalTemplateArg, ComparesTypesBySpellingAndIntegersByValue) {
  EXPECT_EQ(canonical_template_arg("unsigned"), "unsigned int");
  EXPECT_EQ(canonical_template_arg("float const *"), "const float*");
  EXPECT_EQ(canonical_template_arg("256u"), "256");
  EXPECT_EQ(canonical_template_arg("0x10"), "16");
  EXPECT_EQ(canonical_template_arg("-3"), "-3");
  EXPECT_EQ(canonical_template_arg("(unsigned char)3"), "3");
  EXPECT_EQ(canonical_template_arg("true"), "true");
  EXPECT_EQ(template_args_of("reduce<Pair<int, float>, 4>"),
            (std::vector<std::string>{"Pair<int, float>", "4"}));
  EXPECT_EQ(template_args_of("reduce"), std::vector<std::string>{});
  EXPECT_EQ(template_args_of("reduce<float,>"), std::nullopt);
  EXPECT_EQ(template_args_of("reduce<float"), std::nullopt);
}

// What a kernel may do through a pointer is judged when it runs (a write through an input is
// modified-input), so the const of what it points to is the learner's choice, either way round; a pointer to
// another type is still refused, with both signatures.
TEST(KernelLookup, ThePointeesConstIsTheLearnersChoiceButItsTypeIsNot) {
  const ExpectedKernel in_place = {"copy",
                                   {{"out", "float*"}, {"in", "float*"}, {"rows", "int"}, {"cols", "int"}}};
  for (const auto& [mangled, expected] :
       {std::pair{"_Z4copyPfS_ii", kCopy}, std::pair{"_Z4copyPfPKfii", in_place}}) {
    SCOPED_TRACE(mangled);
    KernelMatch match = find_kernel({traits(mangled, {".u64", ".u64", ".u32", ".u32"}, 3)}, expected, kPath);
    EXPECT_TRUE(match.findings.empty());
    EXPECT_NE(match.kernel, nullptr);
  }
  KernelMatch match =
      find_kernel({traits("_Z4copyPfPKdii", {".u64", ".u64", ".u32", ".u32"}, 3)}, kCopy, kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].kind, FindingKind::kSignatureMismatch);
  EXPECT_EQ(match.findings[0].line, 3);
  EXPECT_EQ(
      match.findings[0].message,
      "kernel 'copy' has parameters (float*, const double*, int, int); the exercise expects (float* out, "
      "const float* in, int rows, int cols): parameter 2 (in) is const double*, not const float*");
}

// An integer parameter of another signedness or spelling but the same width takes the exercise's value as a
// host launch would (`unsigned rows` for `int rows`, `unsigned long long` for `size_t`); other types do not:
// a float for an int, a pointer to unsigned for a pointer to int, a long long for an int.
TEST(KernelLookup, AnIntegerOfTheSameWidthTakesTheValueAsALaunchWould) {
  for (const char* mangled : {"_Z4copyPfPKfjj", "_Z4copyPfPKfij"}) {
    SCOPED_TRACE(mangled);
    std::vector<KernelTraits> kernels = {traits(mangled, {".u64", ".u64", ".u32", ".u32"})};
    KernelMatch match = find_kernel(kernels, kCopy, kPath);
    EXPECT_TRUE(match.findings.empty());
    EXPECT_NE(match.kernel, nullptr);
  }
  const ExpectedKernel sized = {"sum", {{"out", "float*"}, {"n", "size_t"}}};
  EXPECT_NE(find_kernel({traits("_Z3sumPfy", {".u64", ".u64"})}, sized, kPath).kernel, nullptr);
  const std::vector<std::pair<std::string, std::string>> others = {
      {"_Z4copyPfPKffi", "parameter 3 (rows) is float, not int"},
      {"_Z4copyPfPKjii", "parameter 2 (in) is const unsigned int*, not const float*"},
      {"_Z4copyPfPKfxi", "parameter 3 (rows) is long long, not int"}};
  for (const auto& [mangled, why] : others) {
    SCOPED_TRACE(mangled);
    KernelMatch match = find_kernel({traits(mangled, {".u64", ".u64", ".u32", ".u32"})}, kCopy, kPath);
    EXPECT_EQ(match.kernel, nullptr);
    ASSERT_EQ(match.findings.size(), 1u);
    EXPECT_NE(match.findings[0].message.find(why), std::string::npos) << match.findings[0].message;
  }
}

// transpose as a course file may hold it: a plain kernel, a template of it (float and double instantiated),
// one in a namespace and one in an anonymous namespace with another parameter.
const ExpectedKernel kTranspose = {"transpose",
                                   {{"out", "float*"}, {"in", "const float*"}, {"w", "int"}, {"h", "int"}}};
const std::vector<std::string> kFour = {".u64", ".u64", ".u32", ".u32"};
KernelTraits plain_transpose() { return traits("_Z9transposePfPKfii", kFour, 3); }
KernelTraits template_transpose(char type) {
  return traits(std::string("_Z9transposeI") + type + "EvPT_PKS0_ii", kFour, 9);
}
KernelTraits namespaced_transpose() { return traits("_ZN2ns9transposeEPfPKfii", kFour, 15); }

TEST(KernelLookup, OverloadsGradeTheKernelAHostLaunchWouldCall) {
  // A launch transpose<<<g, b>>>(out, in, w, h) calls the plain kernel: overload resolution prefers a
  // non-template, and ns::transpose is not in scope.
  std::vector<KernelTraits> kernels = {
      template_transpose('f'), template_transpose('d'), namespaced_transpose(),
      traits("_ZN12_GLOBAL__N_19transposeEPfPKfiii", {".u64", ".u64", ".u32", ".u32", ".u32"}),
      plain_transpose()};
  KernelMatch match = find_kernel(kernels, kTranspose, kPath);
  EXPECT_TRUE(match.findings.empty()) << match.findings[0].message;
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z9transposePfPKfii");

  // Without the plain one, the template's one instantiation with the parameters comes before the namespace.
  kernels = {namespaced_transpose(), template_transpose('d'), template_transpose('f')};
  match = find_kernel(kernels, kTranspose, kPath);
  EXPECT_TRUE(match.findings.empty()) << match.findings[0].message;
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z9transposeIfEvPT_PKS0_ii");

  // A namespaced kernel is graded when it is the only one with the parameters, or when the exercise names it.
  kernels = {traits("_Z9transposePiPKiii", kFour, 3), namespaced_transpose()};
  match = find_kernel(kernels, kTranspose, kPath);
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_ZN2ns9transposeEPfPKfii");
  ExpectedKernel qualified = kTranspose;
  qualified.name = "ns::transpose";
  kernels = {plain_transpose(), namespaced_transpose()};
  match = find_kernel(kernels, qualified, kPath);
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_ZN2ns9transposeEPfPKfii");
}

TEST(KernelLookup, OverloadsThatTieAreStillAmbiguous) {
  // Two namespaces' kernels with the parameters: a launch could not name either without its namespace.
  std::vector<KernelTraits> kernels = {namespaced_transpose(), traits("_ZN2ks9transposeEPfPKfii", kFour, 21),
                                       traits("_Z9transposePiPKiii", kFour, 3)};
  KernelMatch match = find_kernel(kernels, kTranspose, kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].line, 15);
  EXPECT_EQ(
      match.findings[0].message,
      "2 kernels named 'transpose' have the parameters the exercise expects (ns::transpose, ks::transpose), "
      "and the exercise cannot tell which to grade; instantiate only one");
}

TEST(KernelLookup, MissingNamedInstantiationIsMarkedForTheGraderToInstantiate) {
  KernelMatch match = find_kernel(reduce_instantiations(), reduce_of("float", {"float", "512"}), kPath);
  EXPECT_TRUE(match.missing_instantiation);
  match = find_kernel({}, reduce_of("float", {"float", "512"}), kPath);
  EXPECT_TRUE(match.missing_instantiation);
  match = find_kernel(reduce_instantiations(), reduce_of("float", {"float", "256"}), kPath);
  EXPECT_FALSE(match.missing_instantiation);
  EXPECT_EQ(explicit_instantiation(reduce_of("float", {"float", "512"})),
            "template __global__ void reduce<float, 512>(const float*, float*, int);");
  EXPECT_EQ(explicit_instantiation(kTranspose), "");
}

TEST(KernelLookup, RealPtxFindsTheKernel) {
  KernelMatch match = find_kernel(real_kernels(), kCopy, kPath);
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_Z4copyPfPKfii");
  EXPECT_TRUE(match.findings.empty());
}

TEST(KernelLookup, RealPtxFindsKernelsInNamespaces) {
  ExpectedKernel scale = {"scale", {{"data", "float*"}, {"factor", "float"}, {"n", "unsigned"}}};
  KernelMatch match = find_kernel(real_kernels(), scale, kPath);
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_EQ(match.kernel->entry, "_ZN6lesson5scaleEPffj");
}

TEST(KernelLookup, RealPtxExternCMatchesByNameAndSize) {
  ExpectedKernel copy_c = {"copy_c", {{"out", "float*"}, {"in", "const float*"}, {"n", "int"}}};
  KernelMatch match = find_kernel(real_kernels(), copy_c, kPath);
  ASSERT_NE(match.kernel, nullptr);
  EXPECT_TRUE(match.sizes_only);

  ExpectedKernel wide = {"copy_c", {{"out", "float*"}, {"in", "const float*"}, {"n", "long"}}};
  KernelMatch mismatch = find_kernel(real_kernels(), wide, kPath);
  EXPECT_EQ(mismatch.kernel, nullptr);
  ASSERT_EQ(mismatch.findings.size(), 1u);
  EXPECT_EQ(
      mismatch.findings[0].message,
      "kernel 'copy_c' has parameters (.u64, .u64, .u32); the exercise expects (float* out, const float* "
      "in, long n): parameter 3 (n) has 4 bytes, not the 8 of long (an extern \"C\" kernel keeps no "
      "parameter types, so only sizes are checked)");
}

TEST(KernelLookup, RealPtxAddedConstAndWrongCount) {
  ExpectedKernel in_place = {"copy", {{"out", "float*"}, {"in", "float*"}, {"rows", "int"}, {"cols", "int"}}};
  KernelMatch constness = find_kernel(real_kernels(), in_place, kPath);
  EXPECT_TRUE(constness.findings.empty());
  ASSERT_NE(constness.kernel, nullptr);
  EXPECT_EQ(constness.kernel->line, 4);  // where kernels.cu declares copy

  ExpectedKernel three = {"copy", {{"out", "float*"}, {"in", "const float*"}, {"n", "int"}}};
  KernelMatch count = find_kernel(real_kernels(), three, kPath);
  ASSERT_EQ(count.findings.size(), 1u);
  EXPECT_EQ(
      count.findings[0].message,
      "kernel 'copy' has parameters (float*, const float*, int, int); the exercise expects (float* out, "
      "const float* in, int n): it has 4 parameters, the exercise expects 3");
}

TEST(KernelLookup, RealPtxMissingKernelListsTheKernelsThere) {
  ExpectedKernel transpose = {"transpose", {{"out", "float*"}, {"in", "const float*"}}};
  KernelMatch match = find_kernel(real_kernels(), transpose, kPath);
  EXPECT_EQ(match.kernel, nullptr);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].line, 0);
  EXPECT_EQ(match.findings[0].message,
            "no kernel named 'transpose': the compiled code has copy(float*, const float*, int, int), "
            "copy_c(.u64, .u64, .u32), lesson::scale(float*, float, unsigned int); the exercise expects "
            "__global__ void transpose(float* out, const float* in)");
}

TEST(KernelLookup, NoKernelsAtAll) {
  KernelMatch match = find_kernel({}, kCopy, kPath);
  ASSERT_EQ(match.findings.size(), 1u);
  EXPECT_EQ(match.findings[0].message,
            "no kernel named 'copy': the compiled code has no kernels; the exercise expects __global__ void "
            "copy(float* out, const float* in, int rows, int cols)");
}

}  // namespace
}  // namespace gpugrade
