// The HTML report as a learner's browser shows it: headless Chromium loads the page, runs its script, and
// the tests read the drawn pictures back from the DOM it dumps (parsed with libxml2, queried with XPath).
// Without chromium the tests skip on a developer's machine and fail in CI (CI=true), which installs it.
#include <gtest/gtest.h>
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "os/process.h"
#include "os/scratch_dir.h"
#include "tests/test_cache.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      if (fs::exists(candidate)) return candidate.string();
    }
    start = end + 1;
  }
  return "";
}

// The rendered page, for XPath questions.
class Dom {
 public:
  explicit Dom(const std::string& html)
      : doc_(htmlReadMemory(html.data(), static_cast<int>(html.size()), "page.html", "utf-8",
                            HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET),
             xmlFreeDoc) {}
  bool ok() const { return doc_ != nullptr; }

  std::vector<std::string> values(const std::string& xpath) const {
    std::vector<std::string> out;
    std::unique_ptr<xmlXPathContext, decltype(&xmlXPathFreeContext)> context(xmlXPathNewContext(doc_.get()),
                                                                             xmlXPathFreeContext);
    std::unique_ptr<xmlXPathObject, decltype(&xmlXPathFreeObject)> result(
        xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(xpath.c_str()), context.get()),
        xmlXPathFreeObject);
    if (result == nullptr || result->nodesetval == nullptr) return out;
    for (int i = 0; i < result->nodesetval->nodeNr; ++i) {
      xmlChar* text = xmlNodeGetContent(result->nodesetval->nodeTab[i]);
      out.emplace_back(text != nullptr ? reinterpret_cast<const char*>(text) : "");
      xmlFree(text);
    }
    return out;
  }
  size_t count(const std::string& xpath) const { return values(xpath).size(); }

 private:
  std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)> doc_;
};

// XPath for elements whose class list holds `name`.
std::string has_class(const std::string& name) {
  return "contains(concat(' ', normalize-space(@class), ' '), ' " + name + " ')";
}

class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) {
      const char* ci = std::getenv("CI");
      if (ci != nullptr && std::string(ci) == "true")
        FAIL() << "chromium is not installed, and CI must run the HTML report's browser tests "
                  "(.ci/install-deps)";
      GTEST_SKIP() << "chromium is not installed (Debian: apt-get install chromium); CI runs these tests";
    }
    std::string error;
    scratch_ = ScratchDir::create("html-test", &error);
    ASSERT_TRUE(scratch_) << error;
    root_ = scratch_->path() / "course";
    fs::create_directories(root_);
    for (const char* folder : {"exercises", "solutions"})
      fs::copy(fs::path(GPUGRADE_SOURCE_DIR) / folder, root_ / folder, fs::copy_options::recursive);
  }

  ProcessResult gpugrade(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {GPUGRADE_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.working_directory = root_;
    options.time_limit_seconds = 300;
    options.extra_environment = {
        "GPUGRADE_CACHE_DIR=" + testing::compile_cache_dir(scratch_->path() / "cache").string(),
        "NO_COLOR=1"};
    return run_process(argv, options);
  }

  // Grades the submission with --format html and returns the page as Chromium renders it.
  Dom render(const std::string& exercise, const std::string& submission) {
    const ProcessResult r =
        gpugrade({"grade", exercise, "--submission", submission, "--backend", "sim", "--format", "html"});
    EXPECT_EQ(r.exit_code, 1) << r.err;
    page_ = r.out;
    const fs::path file = scratch_->path() / "page.html";
    std::ofstream(file) << r.out;
    return rendered(file);
  }

  Dom rendered(const fs::path& file) {
    ProcessOptions options;
    options.time_limit_seconds = 120;
    options.extra_environment = {"HOME=" + scratch_->path().string()};
    const ProcessResult r = run_process({chromium_, "--headless", "--no-sandbox", "--disable-gpu",
                                         "--dump-dom", "file://" + fs::absolute(file).string()},
                                        options);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Dom dom(r.out);
    EXPECT_TRUE(dom.ok());
    // The page's script ran to its end.
    EXPECT_EQ(dom.values("//body/@data-drawn"), std::vector<std::string>{"true"}) << r.out.substr(0, 2000);
    return dom;
  }

  std::string chromium_;
  std::string page_;
  std::optional<ScratchDir> scratch_;
  fs::path root_;
};

TEST_F(HtmlReportTest, BankConflictIsTheTileColouredByBankWithTheWorstWarpsLanes) {
  const Dom dom = render("transpose-padded", "solutions/transpose-padded/mutants/unpadded.cu");
  const std::string figure = "//figure[" + has_class("banks") + "]";
  ASSERT_EQ(dom.count(figure), 1u);
  EXPECT_EQ(dom.values(figure + "/@data-line"), std::vector<std::string>{"18"});
  EXPECT_EQ(dom.values(figure + "/@data-ways"), std::vector<std::string>{"32"});
  // The unpadded tile is 32 x 32 floats: a row spans the 32 banks once, so column c is bank c.
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("cell") + "]"), 1024u);
  EXPECT_EQ(dom.values(figure + "//div[@data-row='5' and @data-col='7']/@data-bank"),
            std::vector<std::string>{"7"});
  // The worst warp reads a column: 32 lanes, 32 rows, one bank.
  const std::vector<std::string> hit_banks =
      dom.values(figure + "//div[" + has_class("hit") + "]/@data-bank");
  ASSERT_EQ(hit_banks.size(), 32u);
  EXPECT_EQ(std::set<std::string>(hit_banks.begin(), hit_banks.end()).size(), 1u);
  const std::vector<std::string> hit_cols = dom.values(figure + "//div[" + has_class("hit") + "]/@data-col");
  EXPECT_EQ(std::set<std::string>(hit_cols.begin(), hit_cols.end()).size(), 1u);
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("conflict") + "]"), 32u);
  EXPECT_EQ(dom.values(figure + "//div[" + has_class("hit") + " and @data-row='3']/@data-lanes"),
            std::vector<std::string>{"3"});
  // The finding sits at its source line.
  EXPECT_EQ(dom.count("//div[" + has_class("src-line") + " and " + has_class("has-finding") +
                      " and @data-line='18']"),
            1u);
  EXPECT_EQ(dom.values("//div[" + has_class("marker") + "]/@data-line"), std::vector<std::string>{"18"});
  // Self-contained: nothing is fetched.
  EXPECT_EQ(page_.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page_.find("href=\"http"), std::string::npos);
}

TEST_F(HtmlReportTest, RaceIsItsCellsWithTheTwoThreadsAndTheTwoLines) {
  const Dom dom = render("transpose-tiled", "solutions/transpose-tiled/mutants/no_barrier.cu");
  // The race error's picture (a race between lanes of one warp is a warning with a picture of its own).
  const std::string figure =
      "//li[" + has_class("error") + " and @data-kind='race']//figure[" + has_class("race") + "]";
  ASSERT_EQ(dom.count(figure), 1u);
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("cell") + "]"), 32u * 32u);
  // The write at line 9 and the read at line 16 race on tile[1][0], seen from line 16 on tile[0][1].
  const std::string raced = figure + "//div[" + has_class("race") + "]";
  EXPECT_EQ(dom.values(raced + "/@data-row"), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(dom.values(raced + "/@data-col"), (std::vector<std::string>{"1", "0"}));
  EXPECT_EQ(dom.values(raced + "/@data-lines"), (std::vector<std::string>{"16 9", "9 16"}));
  for (const std::string& threads : dom.values(raced + "/@data-threads"))
    EXPECT_TRUE(threads == "(0,1,0) (1,0,0)" || threads == "(1,0,0) (0,1,0)") << threads;
  // Both lines are marked in the source: one with the problem, the other as its note.
  EXPECT_EQ(dom.count("//div[" + has_class("src-line") + " and " + has_class("has-finding") +
                      " and @data-line='9']"),
            1u);
  EXPECT_EQ(
      dom.count("//div[" + has_class("src-line") + " and " + has_class("has-note") + " and @data-line='16']"),
      1u);
  EXPECT_GE(dom.count("//li[@data-kind='race']/div[" + has_class("note") + " and @data-line='16']"), 1u);
}

TEST_F(HtmlReportTest, WrongOutputIsAHeatMapOfTheWrongCells) {
  const Dom dom = render("transpose-tiled", "solutions/transpose-tiled/mutants/load_stops_early.cu");
  const std::string figure = "//figure[" + has_class("heatmap") + "]";
  ASSERT_EQ(dom.count(figure), 1u);
  // rows=33 cols=31: the 1,023 elements of out, drawn as rows*cols.
  EXPECT_EQ(dom.values(figure + "/@data-rows"), std::vector<std::string>{"33"});
  EXPECT_EQ(dom.values(figure + "/@data-cols"), std::vector<std::string>{"31"});
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("cell") + "]"), 1023u);
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("wrong") + "]"), 248u);  // "248 of 1,023 elements"
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("unwritten") + "]"), 0u);
  EXPECT_EQ(dom.count(figure + "//div[" + has_class("ok") + "]"), 1023u - 248u);
}

TEST_F(HtmlReportTest, UncoalescedAccessIsTheSectorsAWarpTouches) {
  const Dom dom = render("copy", "solutions/copy/mutants/walks_columns.cu");
  const std::string figure = "//figure[" + has_class("sectors") + "]";
  ASSERT_EQ(dom.count(figure), 1u);
  const std::vector<std::string> sectors = dom.values(figure + "/@data-sectors");
  ASSERT_EQ(sectors.size(), 1u);
  const std::string touched = figure + "//div[" + has_class("sector") + " and " + has_class("touched") + "]";
  EXPECT_EQ(std::to_string(dom.count(touched)), sectors[0]);
  EXPECT_GT(dom.count(touched), 4u);  // a warp walking a column: far more than the 4 sectors 32 floats need
  size_t lanes = 0;
  for (const std::string& list : dom.values(touched + "/@data-lanes"))
    lanes += 1 + std::count(list.begin(), list.end(), ' ');
  EXPECT_EQ(lanes, 32u);
}

TEST_F(HtmlReportTest, ReportDrawsTheLastGrade) {
  ASSERT_EQ(gpugrade({"grade", "transpose-padded", "--submission",
                      "solutions/transpose-padded/mutants/unpadded.cu", "--backend", "sim"})
                .exit_code,
            1);
  const ProcessResult r = gpugrade({"report", "--output", "last.html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote last.html: open it in a browser\n");
  const Dom dom = rendered(root_ / "last.html");
  EXPECT_EQ(dom.values("//section[" + has_class("result") + "]/@data-exercise"),
            std::vector<std::string>{"transpose-padded"});
  EXPECT_EQ(dom.count("//figure[" + has_class("banks") + "]//div[" + has_class("conflict") + "]"), 32u);
}

TEST_F(HtmlReportTest, ReportBeforeAnyGradeSaysWhatToDo) {
  const ProcessResult r = gpugrade({"report"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gpugrade: error: nothing graded yet: run `gpugrade grade EXERCISE`, then `gpugrade report`\n");
}

}  // namespace
}  // namespace gpugrade
