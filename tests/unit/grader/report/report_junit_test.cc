// The JUnit report validates against the common JUnit schema (tests/data/junit/junit.xsd, checked with
// libxml2), and each failure's text starts at its finding's file and line.
#include <gtest/gtest.h>
#include <libxml/xmlschemas.h>

#include <sstream>

#include "grader/report/reporters.h"

namespace gpugrade {
namespace {

// The schema's complaints about `document`, one per line; empty when it validates.
std::string schema_errors(const std::string& document) {
  std::string errors;
  xmlSchemaParserCtxtPtr parser = xmlSchemaNewParserCtxt(GPUGRADE_SOURCE_DIR "/tests/data/junit/junit.xsd");
  xmlSchemaPtr schema = xmlSchemaParse(parser);
  xmlSchemaFreeParserCtxt(parser);
  if (schema == nullptr) return "the schema does not parse";
  xmlSchemaValidCtxtPtr validator = xmlSchemaNewValidCtxt(schema);
  xmlSchemaSetValidStructuredErrors(
      validator,
      [](void* out, xmlErrorPtr error) {
        *static_cast<std::string*>(out) += error->message ? error->message : "?";
      },
      &errors);
  xmlDocPtr doc = xmlReadMemory(document.data(), static_cast<int>(document.size()), "junit.xml", nullptr,
                                XML_PARSE_NONET);
  if (doc == nullptr) {
    errors = "not well-formed XML";
  } else if (xmlSchemaValidateDoc(validator, doc) != 0 && errors.empty()) {
    errors = "invalid";
  }
  if (doc != nullptr) xmlFreeDoc(doc);
  xmlSchemaFreeValidCtxt(validator);
  xmlSchemaFree(schema);
  return errors;
}

Finding finding(FindingKind kind, Severity severity, int line, std::string variant, std::string size) {
  Finding f;
  f.kind = kind;
  f.severity = severity;
  f.message = "a message with <markup> & \"quotes\"";
  f.file = "exercises/transpose/transpose.cu";
  f.line = line;
  f.variant = std::move(variant);
  f.size = std::move(size);
  return f;
}

std::vector<Result> results() {
  Result race;
  race.exercise = "transpose";
  race.submission = "exercises/transpose/transpose.cu";
  race.verdict = Verdict::kFail;
  race.max_points = 10;
  race.runs = {{"32x8", "rows=1 cols=1", Verdict::kPass, 10, 0.5},
               {"32x8", "rows=33 cols=31", Verdict::kFail, 10, 0.5}};
  race.findings = {finding(FindingKind::kRace, Severity::kError, 17, "32x8", "rows=33 cols=31"),
                   finding(FindingKind::kBankConflict, Severity::kWarning, 9, "32x8", "")};
  Result broken;
  broken.exercise = "reduce";
  broken.submission = "exercises/reduce/reduce.cu";
  broken.max_points = 5;
  broken.findings = {finding(FindingKind::kCompileError, Severity::kError, 3, "", "")};
  broken.findings[0].file = "exercises/reduce/reduce.cu";
  broken.note = "The submission did not compile; nothing ran.";
  Result gone;
  gone.exercise = "scan";
  gone.submission = "exercises/scan/scan.cu";
  gone.note = "exercises/scan/scan.cu was deleted in this pull request";
  return {race, broken, gone};
}

TEST(JunitSchema, ReportsValidateAgainstTheCommonSchema) {
  for (bool timings : {false, true}) {
    std::ostringstream out;
    write_junit(results(), out, {timings, {}});
    EXPECT_EQ(schema_errors(out.str()), "") << out.str();
  }
}

TEST(JunitSchema, TheSchemaRefusesWhatIsNotInIt) {
  EXPECT_NE(schema_errors("<testsuites><testsuite name=\"a\" tests=\"1\"><testcase name=\"b\" file=\"x.cu\"/>"
                          "</testsuite></testsuites>"),
            "");
}

TEST(JunitSchema, EachFailureStartsAtItsFindingsLine) {
  std::ostringstream out;
  write_junit(results(), out, {});
  const std::string xml = out.str();
  EXPECT_NE(xml.find(">exercises/transpose/transpose.cu:17: error: race: "), std::string::npos) << xml;
  EXPECT_NE(xml.find(">exercises/reduce/reduce.cu:3: error: compile-error: "), std::string::npos) << xml;
}

}  // namespace
}  // namespace gpugrade
