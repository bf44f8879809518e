// Reading exercise.yaml's fields: typed reads that refuse a value of the wrong type at its
// file:line:column, maps checked for unknown, newer, duplicate and missing keys, lists with their item
// counts, expression errors at their column in the file, and the caps on how much is reported.
#include "grader/exercise/yaml_fields.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpugrade {
namespace {

// One YAML file, read: its root map as a Field and the messages reported about it.
struct Yaml {
  explicit Yaml(std::string text)
      : source(std::move(text)), root(YAML::Load(source)), diagnostics("exercise.yaml", source, &errors) {}
  Field field(std::string_view key) const {
    return {std::string(key), YAML::Node(), root[std::string(key)], root[std::string(key)].IsDefined()};
  }
  Field whole() const { return {"", YAML::Node(), root, true}; }
  std::string source;
  YAML::Node root;
  std::vector<std::string> errors;
  Diagnostics diagnostics;
};

TEST(YamlFields, AStringIsReadAsWritten) {
  Yaml yaml("title: Matrix transpose\n");
  EXPECT_EQ(read_string(&yaml.diagnostics, yaml.field("title")), "Matrix transpose");
  EXPECT_TRUE(yaml.errors.empty());
}

TEST(YamlFields, AListWhereAStringBelongsIsRefusedAtItsLineAndColumn) {
  Yaml yaml("id: t\ntitle: [a, b]\n");
  EXPECT_EQ(read_string(&yaml.diagnostics, yaml.field("title")), std::nullopt);
  EXPECT_EQ(yaml.errors, std::vector<std::string>{"exercise.yaml:2:8: 'title' must be a string, got a list"});
  EXPECT_EQ(yaml.diagnostics.count(), 1);
}

TEST(YamlFields, AnAbsentFieldReadsAsNothingWithoutAMessage) {
  Yaml yaml("id: t\n");
  EXPECT_EQ(read_string(&yaml.diagnostics, yaml.field("title")), std::nullopt);
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("points"), 0, 100), std::nullopt);
  EXPECT_TRUE(yaml.errors.empty());
}

TEST(YamlFields, AnIntegerMustBeAPlainWholeNumberInRange) {
  Yaml yaml("a: 12\nb: \"12\"\nc: 1.5\nd: 101\ne: -1\n");
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("a"), 0, 100), 12);
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("b"), 0, 100), std::nullopt);
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("c"), 0, 100), std::nullopt);
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("d"), 0, 100), std::nullopt);
  EXPECT_EQ(read_integer(&yaml.diagnostics, yaml.field("e"), 0, 100), std::nullopt);
  EXPECT_EQ(yaml.errors, (std::vector<std::string>{
                             "exercise.yaml:2:4: 'b' must be an integer, got \"12\"",  // quoted: a string
                             "exercise.yaml:3:4: 'c' must be an integer, got \"1.5\"",
                             "exercise.yaml:4:4: 'd' must be between 0 and 100, got 101",
                             "exercise.yaml:5:4: 'e' must be between 0 and 100, got -1",
                         }));
}

TEST(YamlFields, AnEmptyValueIsPointedAtByItsKey) {
  Yaml yaml("id: t\n  \npoints:\n");
  Fields fields(&yaml.diagnostics, yaml.whole(), {"id", "points"});
  EXPECT_EQ(read_integer(&yaml.diagnostics, fields.get("points"), 0, 100), std::nullopt);
  EXPECT_EQ(yaml.errors,
            std::vector<std::string>{"exercise.yaml:3:1: 'points' must be an integer, got nothing"});
}

TEST(YamlFields, ANumberMustBeFiniteAndWithinItsRangeWithItsUnit) {
  Yaml yaml("a: 0.25\nb: -0.5\nc: .nan\nd: fast\ne: .inf\nf: 1e300\n");
  const NumberRange range{0, 1e6, "ns"};
  EXPECT_EQ(read_number(&yaml.diagnostics, yaml.field("a"), range), 0.25);
  for (const char* key : {"b", "c", "d", "e", "f"})
    EXPECT_EQ(read_number(&yaml.diagnostics, yaml.field(key), range), std::nullopt) << key;
  EXPECT_EQ(yaml.errors, (std::vector<std::string>{
                             "exercise.yaml:2:4: 'b' must be at least 0 ns, got -0.5 ns",
                             "exercise.yaml:3:4: 'c' must be a finite number, got nan",
                             "exercise.yaml:4:4: 'd' must be a number, got \"fast\"",
                             "exercise.yaml:5:4: 'e' must be a finite number, got inf",
                             "exercise.yaml:6:4: 'f' must be at most 1e+06 ns, got 1e+300 ns",
                         }));
}

TEST(YamlFields, ABooleanMustBeAPlainTruthValue) {
  Yaml yaml("a: true\nb: false\nc: \"true\"\nd: maybe\ne: {x: 1}\n");
  EXPECT_EQ(read_bool(&yaml.diagnostics, yaml.field("a")), true);
  EXPECT_EQ(read_bool(&yaml.diagnostics, yaml.field("b")), false);
  EXPECT_EQ(read_bool(&yaml.diagnostics, yaml.field("c")), std::nullopt);
  EXPECT_EQ(read_bool(&yaml.diagnostics, yaml.field("d")), std::nullopt);
  EXPECT_EQ(read_bool(&yaml.diagnostics, yaml.field("e")), std::nullopt);
  EXPECT_EQ(yaml.errors, (std::vector<std::string>{
                             "exercise.yaml:3:4: 'c' must be true or false, got \"true\"",
                             "exercise.yaml:4:4: 'd' must be true or false, got \"maybe\"",
                             "exercise.yaml:5:4: 'e' must be true or false, got a map",
                         }));
}

TEST(YamlFields, AChoiceNamesEveryWordItAccepts) {
  Yaml yaml("init: rnadom\n");
  const std::pair<std::string_view, int> choices[] = {{"random", 1}, {"zero", 2}, {"iota", 3}};
  EXPECT_EQ(read_choice(&yaml.diagnostics, yaml.field("init"), choices), std::nullopt);
  EXPECT_EQ(yaml.errors, std::vector<std::string>{
                             "exercise.yaml:1:7: 'init' must be one of random, zero, iota, got \"rnadom\""});
  Yaml good("init: iota\n");
  EXPECT_EQ(read_choice(&good.diagnostics, good.field("init"), choices), 3);
}

TEST(YamlFields, UnknownNewerAndDuplicateKeysAreEachReportedAtTheKey) {
  Yaml yaml("kernel:\n  name: k\n  nmae: k\n  shape: [1]\n  name: j\n");
  Fields fields(&yaml.diagnostics, yaml.field("kernel"), {"name", "params"}, {"shape"});
  EXPECT_TRUE(fields.valid());
  EXPECT_EQ(yaml.errors,
            (std::vector<std::string>{
                "exercise.yaml:3:3: unknown field 'nmae' in 'kernel' (did you mean 'name'?)",
                "exercise.yaml:4:3: field 'shape' in 'kernel' is format 2: put `format: 2` at the "
                "top of the file",
                "exercise.yaml:5:3: duplicate field 'name' in 'kernel'",
            }));
  EXPECT_EQ(read_string(&yaml.diagnostics, fields.get("name")), "k");  // the first one
  EXPECT_EQ(fields.get("name").path, "kernel.name");
}

TEST(YamlFields, AMissingRequiredFieldIsReportedAtItsMap) {
  Yaml yaml("id: t\nkernel:\n  name: k\n");
  Fields fields(&yaml.diagnostics, yaml.field("kernel"), {"name", "params"});
  const Field params = fields.require("params");
  EXPECT_FALSE(params.present);
  EXPECT_EQ(params.path, "kernel.params");
  EXPECT_EQ(yaml.errors, std::vector<std::string>{"exercise.yaml:3:3: missing field 'params' in 'kernel'"});
  Yaml top("id: t\n");
  Fields(&top.diagnostics, top.whole(), {"id", "title"}).require("title");
  EXPECT_EQ(top.errors, std::vector<std::string>{"exercise.yaml:1:1: missing field 'title'"});
}

TEST(YamlFields, AScalarWhereAMapBelongsIsOneErrorAndNoMissingFields) {
  Yaml yaml("kernel: transpose\n");
  Fields fields(&yaml.diagnostics, yaml.field("kernel"), {"name"});
  EXPECT_FALSE(fields.valid());
  fields.require("name");
  EXPECT_EQ(yaml.errors,
            std::vector<std::string>{"exercise.yaml:1:9: 'kernel' must be a map, got \"transpose\""});
}

TEST(YamlFields, ListItemsAreNamedByIndexAndCounted) {
  Yaml yaml("sizes: [a, b, c, d]\nvariants: x\n");
  const auto sizes = items(&yaml.diagnostics, yaml.field("sizes"), 1, 4);
  ASSERT_TRUE(sizes);
  ASSERT_EQ(sizes->size(), 4u);
  EXPECT_EQ((*sizes)[2].path, "sizes[2]");
  EXPECT_EQ(read_string(&yaml.diagnostics, (*sizes)[2]), "c");
  EXPECT_EQ(items(&yaml.diagnostics, yaml.field("sizes"), 1, 3), std::nullopt);
  EXPECT_EQ(items(&yaml.diagnostics, yaml.field("sizes"), 2, 2), std::nullopt);
  EXPECT_EQ(items(&yaml.diagnostics, yaml.field("sizes"), 5, std::numeric_limits<size_t>::max()),
            std::nullopt);
  EXPECT_EQ(items(&yaml.diagnostics, yaml.field("variants"), 0, 9), std::nullopt);
  EXPECT_EQ(yaml.errors, (std::vector<std::string>{
                             "exercise.yaml:1:8: 'sizes' must have 1 to 3 items, got 4",
                             "exercise.yaml:1:8: 'sizes' must have 2 items, got 4",
                             "exercise.yaml:1:8: 'sizes' must have at least 5 items, got 4",
                             "exercise.yaml:2:11: 'variants' must be a list, got \"x\"",
                         }));
}

TEST(YamlFields, ANamedMapReadsEachEntryAndRefusesAnEmptyOne) {
  Yaml yaml("defines: {TILE: 32, ROWS: 8}\nempty: {}\n");
  std::vector<std::string> seen;
  EXPECT_TRUE(read_named_map(&yaml.diagnostics, yaml.field("defines"), "names to integers", false,
                             [&](const std::string& name, const Field& entry) {
                               seen.push_back(name + "=" + entry.value.Scalar() + " at " + entry.path);
                               return true;
                             }));
  EXPECT_EQ(seen, (std::vector<std::string>{"TILE=32 at defines.TILE", "ROWS=8 at defines.ROWS"}));
  const auto never = [](const std::string&, const Field&) { return true; };
  EXPECT_TRUE(read_named_map(&yaml.diagnostics, yaml.field("empty"), "names to integers", true, never));
  EXPECT_FALSE(read_named_map(&yaml.diagnostics, yaml.field("empty"), "names to integers", false, never));
  EXPECT_EQ(yaml.errors, std::vector<std::string>{
                             "exercise.yaml:2:8: 'empty' must be a map of names to integers, got a map"});
}

TEST(YamlFields, ANamedMapFailsWhenAnyEntryFailsButReadsThemAll) {
  Yaml yaml("defines: {A: 1, B: 2, C: 3}\n");
  int calls = 0;
  EXPECT_FALSE(read_named_map(&yaml.diagnostics, yaml.field("defines"), "x", false,
                              [&](const std::string& name, const Field&) {
                                ++calls;
                                return name != "A";
                              }));
  EXPECT_EQ(calls, 3);
}

TEST(YamlFields, AnExpressionErrorPointsAtItsColumnInThePlainText) {
  Yaml yaml("count: rows * (cols\n");
  EXPECT_EQ(read_expression(&yaml.diagnostics, yaml.field("count")), std::nullopt);
  ExprError error;
  ASSERT_FALSE(Expr::parse("rows * (cols", &error));
  ASSERT_GT(error.column, 0);
  EXPECT_EQ(yaml.errors, std::vector<std::string>{fmt::format("exercise.yaml:1:{}: {} in 'count'",
                                                              7 + error.column, error.message)});
}

TEST(YamlFields, AnExpressionErrorInAQuotedValueCountsTheQuote) {
  Yaml yaml("count: \"rows * (cols\"\n");
  EXPECT_EQ(read_expression(&yaml.diagnostics, yaml.field("count")), std::nullopt);
  ExprError error;
  ASSERT_FALSE(Expr::parse("rows * (cols", &error));
  EXPECT_EQ(yaml.errors, std::vector<std::string>{fmt::format("exercise.yaml:1:{}: {} in 'count'",
                                                              8 + error.column, error.message)});
}

TEST(YamlFields, AnExpressionWithEscapesNamesItsColumnInTheMessage) {
  Yaml yaml("count: \"rows \\x2A (cols\"\n");  // the file's text is not the expression's
  EXPECT_EQ(read_expression(&yaml.diagnostics, yaml.field("count")), std::nullopt);
  ExprError error;
  ASSERT_FALSE(Expr::parse("rows * (cols", &error));
  EXPECT_EQ(yaml.errors, std::vector<std::string>{
                             fmt::format("exercise.yaml:1:8: {} in 'count' (column {} of \"rows * (cols\")",
                                         error.message, error.column)});
}

TEST(YamlFields, AnExpressionMustBeAScalar) {
  Yaml yaml("count: [1, 2]\nok: 2 * rows\n");
  EXPECT_EQ(read_expression(&yaml.diagnostics, yaml.field("count")), std::nullopt);
  EXPECT_TRUE(read_expression(&yaml.diagnostics, yaml.field("ok")));
  EXPECT_EQ(yaml.errors,
            std::vector<std::string>{"exercise.yaml:1:8: 'count' must be an integer expression, got a list"});
}

TEST(YamlFields, AnErrorWithoutAPositionNamesTheFileAlone) {
  Yaml yaml("");
  yaml.diagnostics.error(YAML::Mark::null_mark(), "no kernel file");
  EXPECT_EQ(yaml.errors, std::vector<std::string>{"exercise.yaml: no kernel file"});
}

TEST(YamlFields, OnlyTheFirstFiftyErrorsAreListedButAllAreCounted) {
  Yaml yaml("");
  for (int i = 0; i < 70; ++i) yaml.diagnostics.error(YAML::Mark::null_mark(), fmt::format("error {}", i));
  EXPECT_EQ(yaml.diagnostics.count(), 70);
  ASSERT_EQ(yaml.errors.size(), 51u);
  EXPECT_EQ(yaml.errors[49], "exercise.yaml: error 49");
  EXPECT_EQ(yaml.errors[50],
            "exercise.yaml: more errors follow; fix these first (only the first 50 are listed)");
}

TEST(YamlFields, AVeryLongMessageKeepsItsEnds) {
  Yaml yaml("");
  const std::string message = std::string(400, 'a') + std::string(200, 'b') + std::string(400, 'c');
  yaml.diagnostics.error(YAML::Mark::null_mark(), message);
  ASSERT_EQ(yaml.errors.size(), 1u);
  EXPECT_EQ(yaml.errors[0], "exercise.yaml: " + std::string(300, 'a') +
                                " [... 400 characters left out ...] " + std::string(300, 'c'));
  Yaml exact("");
  exact.diagnostics.error(YAML::Mark::null_mark(), std::string(600, 'x'));
  EXPECT_EQ(exact.errors[0], "exercise.yaml: " + std::string(600, 'x'));
}

TEST(YamlFields, ValuesAreDescribedByWhatTheyAre) {
  EXPECT_EQ(describe(YAML::Load("12")), "\"12\"");
  EXPECT_EQ(describe(YAML::Load("[1]")), "a list");
  EXPECT_EQ(describe(YAML::Load("{a: 1}")), "a map");
  EXPECT_EQ(describe(YAML::Load("~")), "nothing");
}

TEST(YamlFields, OnlyUnquotedScalarsArePlain) {
  EXPECT_TRUE(is_plain_scalar(YAML::Load("10")));
  EXPECT_FALSE(is_plain_scalar(YAML::Load("\"10\"")));
  EXPECT_FALSE(is_plain_scalar(YAML::Load("'10'")));
  EXPECT_FALSE(is_plain_scalar(YAML::Load("[10]")));
}

TEST(YamlFields, ALikelyTypoGetsASuggestion) {
  const std::vector<std::string_view> known = {"title", "points", "kernel"};
  EXPECT_EQ(did_you_mean("titel", known), " (did you mean 'title'?)");
  EXPECT_EQ(did_you_mean("kernels", known), " (did you mean 'kernel'?)");
  EXPECT_EQ(did_you_mean("timeout", known), "");
  EXPECT_EQ(did_you_mean("ab", std::vector<std::string_view>{"xy"}), "");  // two of two letters is no typo
  EXPECT_EQ(did_you_mean("", known), "");
}

TEST(YamlFields, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
  EXPECT_EQ(edit_distance("ab", "ba"), 2u);  // a swap is two edits
}

TEST(YamlFields, IdentifiersAreCNames) {
  EXPECT_TRUE(is_identifier("TILE_DIM"));
  EXPECT_TRUE(is_identifier("_x1"));
  EXPECT_FALSE(is_identifier("1x"));
  EXPECT_FALSE(is_identifier(""));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_FALSE(is_identifier("caf\xC3\xA9"));
}

TEST(YamlFields, NamesAreJoinedWithCommas) {
  EXPECT_EQ(join({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(join({}), "");
  EXPECT_EQ(names_of(std::vector<std::pair<std::string, int>>{{"x", 1}, {"y", 2}}),
            (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace gpugrade
