// Reading a class roster (a CSV, a folder per student, a Gradescope export, GitHub Classroom's clones), the
// ids made safe to show and to name files by, and each student's file for an exercise, links never followed.
#include "grader/class/roster.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdio.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "os/scratch_dir.h"
#include "tests/scratch_repo.h"
#include "tests/write_tree.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;
using testing::write;

TEST(Roster, CsvRowsNameFoldersOrRepositoriesAndErrorsNameTheLine) {
  std::optional<ScratchDir> dir = ScratchDir::create("roster-test", nullptr);
  fs::create_directories(dir->path() / "a");
  write(dir->path() / "ok.csv", "student,path\nalice,a\n");
  std::string error;
  std::optional<Roster> roster = read_roster(dir->path() / "ok.csv", &error);
  ASSERT_TRUE(roster) << error;
  EXPECT_EQ(roster->students.at(0).id, "alice");
  EXPECT_EQ(roster->students.at(0).folder, dir->path() / "a");
  // A repeated id is the later row's problem, not the roster's: everyone else is still graded.
  write(dir->path() / "twice.csv", "student,path\nalice,a\nalice,a\n");
  roster = read_roster(dir->path() / "twice.csv", &error);
  ASSERT_TRUE(roster) << error;
  EXPECT_EQ(roster->students.at(1).id, "alice (again, line 3)");
  EXPECT_EQ(roster->students.at(1).problem, (dir->path() / "twice.csv").string() +
                                                ":3: student 'alice' appears twice (first at " +
                                                (dir->path() / "twice.csv").string() +
                                                ":2); give each student one "
                                                "row, then grade again");
  write(dir->path() / "bad.csv", "name,file\n");
  EXPECT_FALSE(read_roster(dir->path() / "bad.csv", &error));
  EXPECT_EQ(error,
            (dir->path() / "bad.csv").string() +
                ":1: the header must name the columns student and path, or student, repository and revision "
                "(it reads: name,file)");
}

TEST(Roster, GradescopeExportsAndClassroomClonesNameStudentsAsThoseToolsDo) {
  std::optional<ScratchDir> dir = ScratchDir::create("roster-test", nullptr);
  fs::path export_dir = dir->path() / "assignment_export";
  fs::create_directories(export_dir / "submission_101");
  fs::create_directories(export_dir / "submission_102");
  write(export_dir / "submission_metadata.yml",
        "submission_101:\n  :submitters:\n  - :name: Ada L\n    :sid: '9001'\n    :email: ada@example.edu\n"
        "submission_102:\n  :submitters:\n  - :name: Bo K\n    :email: bo@example.edu\n");
  std::string error;
  std::optional<Roster> roster = read_roster(export_dir, &error);
  ASSERT_TRUE(roster) << error;
  EXPECT_EQ(roster->layout, "gradescope");
  ASSERT_EQ(roster->students.size(), 2u);
  EXPECT_EQ(roster->students[0].id, "9001");
  EXPECT_EQ(roster->students[1].id, "bo@example.edu");

  fs::path clones = dir->path() / "cuda-lab-submissions";
  fs::create_directories(clones / "cuda-lab-octocat");
  roster = read_roster(clones, &error);
  ASSERT_TRUE(roster) << error;
  EXPECT_EQ(roster->layout, "github-classroom");
  EXPECT_EQ(roster->students.at(0).id, "octocat");
}

// Class 5: two Gradescope submissions of one :sid: are two rows; the later one is reported, not graded under
// the first's id, and the export is still read.
TEST(Roster, ARepeatedGradescopeSidIsTheLaterRowsProblem) {
  std::optional<ScratchDir> dir = ScratchDir::create("roster-test", nullptr);
  fs::path export_dir = dir->path() / "assignment_export";
  fs::create_directories(export_dir / "submission_1");
  fs::create_directories(export_dir / "submission_2");
  fs::create_directories(export_dir / "submission_3");
  write(export_dir / "submission_metadata.yml",
        "submission_1:\n  :submitters:\n  - :sid: '42'\nsubmission_2:\n  :submitters:\n  - :sid: '42'\n"
        "submission_3:\n  :submitters:\n  - :sid: '43'\n");
  std::string error;
  std::optional<Roster> roster = read_roster(export_dir, &error);
  ASSERT_TRUE(roster) << error;
  ASSERT_EQ(roster->students.size(), 3u);
  EXPECT_EQ(roster->students[0].id, "42");
  EXPECT_EQ(roster->students[0].problem, "");
  ASSERT_EQ(roster->students[0].warnings.size(), 1u);
  EXPECT_NE(roster->students[0].warnings[0].find("the id appears again at "), std::string::npos);
  EXPECT_EQ(roster->students[1].id, "42 (again, submission_2)");
  EXPECT_NE(roster->students[1].problem.find("(submission_2): student '42' appears twice (first at "),
            std::string::npos)
      << roster->students[1].problem;
  EXPECT_EQ(roster->students[2].id, "43");
  EXPECT_NE(roster->students[0].file_name, roster->students[1].file_name);
}

TEST(Roster, SubmissionsOverTheSizeLimitAreRefusedUnread) {
  std::optional<ScratchDir> dir = ScratchDir::create("roster-test", nullptr);
  write(dir->path() / "s/exercises/copy/copy.cu", std::string(kMaxSubmissionBytes + 1, ' '));
  Student s;
  s.id = s.source = "s";
  s.folder = dir->path() / "s";
  std::string error;
  SubmittedFile file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.status, SubmittedFile::Status::kRefused);
  EXPECT_EQ(file.refusal,
            "exercises/copy/copy.cu is 1048577 bytes; a submission may be at most 1048576 bytes");
}

// Class 8: batch opens a student's file once and reads that descriptor. A thread swaps the file for a link
// to the course's solution again and again while batch reads it: the solution's bytes never come back.
TEST(Roster, AFileSwappedForALinkWhileItIsReadIsNeverFollowed) {
  std::optional<ScratchDir> dir = ScratchDir::create("roster-test", nullptr);
  const fs::path file = dir->path() / "s/exercises/copy/copy.cu";
  write(file, "the student's stub");
  write(dir->path() / "solution.cu", "the course's solution");
  Student s;
  s.id = s.source = "s";
  s.folder = dir->path() / "s";
  std::atomic<bool> done{false};
  // The link waits beside the file; each exchange (one atomic rename) swaps which of the two is the file.
  const fs::path spare = dir->path() / "s/exercises/copy/spare";
  fs::create_symlink(dir->path() / "solution.cu", spare);
  std::thread swapper([&] {
    while (!done) renameat2(AT_FDCWD, file.c_str(), AT_FDCWD, spare.c_str(), RENAME_EXCHANGE);
  });
  // The window between a check and an open by name is microseconds wide: two seconds of tries hit it many
  // times over on the code that opened twice.
  int refused = 0, read = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int i = 0; std::chrono::steady_clock::now() < until; ++i) {
    std::string error;
    SubmittedFile got = find_submission(s, {"copy", "copy.cu", true}, &error);
    ASSERT_NE(got.bytes, "the course's solution") << "followed the link on attempt " << i;
    if (got.status == SubmittedFile::Status::kRefused) ++refused;
    if (got.status == SubmittedFile::Status::kFound) ++read;
  }
  done = true;
  swapper.join();
  EXPECT_GT(refused + read, 0);
}

// Class 6: a git blob is sized from its header and refused unread: a 5 GiB blob costs no memory.
TEST(Roster, AFiveGibibyteBlobIsRefusedByItsHeaderUnread) {
  testing::ScratchRepo repo;
  repo.stage_zero_blob("exercises/copy/copy.cu", uint64_t{5} << 30);
  const std::string commit = repo.commit("huge");
  Student s;
  s.id = s.source = "s";
  s.repository = repo.work_tree();
  s.revision = commit;
  std::string error;
  SubmittedFile file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(file.status, SubmittedFile::Status::kRefused);
  EXPECT_EQ(file.refusal,
            "exercises/copy/copy.cu is 5368709120 bytes; a submission may be at most 1048576 bytes");
}

// A fresh folder for one test; the tests below build their rosters in it.
fs::path fresh(std::optional<ScratchDir>& dir) {
  dir = ScratchDir::create("roster-test", nullptr);
  return dir->path();
}

// The roster at `path`, failing the test (with the error) when it does not read.
Roster read(const fs::path& path) {
  std::string error;
  std::optional<Roster> roster = read_roster(path, &error);
  EXPECT_TRUE(roster) << error;
  return roster.value_or(Roster{});
}

TEST(Roster, ACsvWithAQuotedCommaKeepsTheIdWhole) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "a");
  write(root / "class.csv", "student,path\n\"Lovelace, Ada\",a\n\"say \"\"hi\"\"\" , a \n");
  const Roster roster = read(root / "class.csv");
  EXPECT_EQ(roster.layout, "csv");
  ASSERT_EQ(roster.students.size(), 2u);
  EXPECT_EQ(roster.students[0].id, "Lovelace, Ada");
  EXPECT_EQ(roster.students[0].folder, root / "a");
  EXPECT_EQ(roster.students[0].source, (root / "class.csv").string() + ":2");
  EXPECT_EQ(roster.students[1].id, "say \"hi\"");
  EXPECT_EQ(roster.students[1].folder, root / "a");
}

TEST(Roster, ACsvOfRepositoriesGivesEachRowItsRepositoryAndRevision) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  write(root / "class.csv", "id,repository,revision\nada,repos/ada,main\nbob,/srv/bob.git,v1.0\n");
  const Roster roster = read(root / "class.csv");
  ASSERT_EQ(roster.students.size(), 2u);
  EXPECT_EQ(roster.students[0].repository, root / "repos/ada");
  EXPECT_EQ(roster.students[0].revision, "main");
  EXPECT_EQ(roster.students[0].folder, fs::path());
  EXPECT_EQ(roster.students[1].repository, fs::path("/srv/bob.git"));
  EXPECT_EQ(roster.students[1].problem, "");
}

TEST(Roster, ABadCsvRowIsThatRowsProblemNamingItsLine) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "a");
  write(root / "not-a-folder", "x");
  write(root / "class.csv",
        "student,path,repository,revision\n\nada,a,,\nbob,not-a-folder,,\n,a,,\ncy,,,main\ndee,a,,\n");
  const Roster roster = read(root / "class.csv");
  const std::string csv = (root / "class.csv").string();
  ASSERT_EQ(roster.students.size(), 5u);
  EXPECT_EQ(roster.students[0].problem, "");
  EXPECT_EQ(roster.students[1].problem, csv + ":4: " + (root / "not-a-folder").string() + " is not a folder");
  EXPECT_EQ(roster.students[2].id, "(no id, line 5)");
  EXPECT_EQ(roster.students[2].problem, csv + ":5: the student has no id; give the row one");
  EXPECT_EQ(roster.students[3].problem, csv + ":6: give a path, or a repository and a revision");
  EXPECT_EQ(roster.students[4].id, "dee");
  EXPECT_EQ(roster.students[4].problem, "");
}

TEST(Roster, AnEmptyCsvOrNoRosterAtAllIsRefusedNamingThePath) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  write(root / "empty.csv", "\n  \n");
  std::string error;
  EXPECT_FALSE(read_roster(root / "empty.csv", &error));
  EXPECT_EQ(error, (root / "empty.csv").string() + ": the roster is empty");
  EXPECT_FALSE(read_roster(root / "absent.csv", &error));
  EXPECT_EQ(error, "no roster at " + (root / "absent.csv").string() +
                       ": give a folder of student folders or a CSV file");
  fs::create_directories(root / "nobody");
  write(root / "nobody" / "README", "no folders here");
  EXPECT_FALSE(read_roster(root / "nobody", &error));
  EXPECT_EQ(error, (root / "nobody").string() + ": no student folders in it");
}

TEST(Roster, ACsvOverItsBoundIsRefusedUnreadWithItsSize) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  write(root / "huge.csv", "student,path\n");
  fs::resize_file(root / "huge.csv", kMaxRosterFileBytes + 1);  // sparse: no disk, and never read
  std::string error;
  EXPECT_FALSE(read_roster(root / "huge.csv", &error));
  EXPECT_EQ(error,
            (root / "huge.csv").string() + " is 67108865 bytes; a roster may be at most 67108864 bytes");
}

TEST(Roster, AFolderPerStudentInNameOrderSkipsGitButNotOtherDotFolders) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  for (const char* name : {"cy", "ada", ".git", ".bob"}) fs::create_directories(root / "class" / name);
  write(root / "class" / "notes.txt", "not a student");
  const Roster roster = read(root / "class");
  EXPECT_EQ(roster.layout, "folders");
  std::vector<std::string> ids;
  for (const Student& s : roster.students) ids.push_back(s.id);
  EXPECT_EQ(ids, (std::vector<std::string>{".bob", "ada", "cy"}));
  EXPECT_EQ(roster.students[1].folder, root / "class" / "ada");
  EXPECT_EQ(roster.students[1].source, (root / "class" / "ada").string());
  // A file name may not start with a dot, so that no report is hidden.
  EXPECT_NE(roster.students[0].file_name.substr(0, 1), ".");
}

TEST(Roster, AStudentFolderThatIsALinkIsARowWithAProblemAndNoFolder) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "class" / "ada");
  fs::create_directories(root / "elsewhere");
  fs::create_directory_symlink(root / "elsewhere", root / "class" / "bob");
  const Roster roster = read(root / "class");
  ASSERT_EQ(roster.students.size(), 2u);
  EXPECT_EQ(roster.students[1].id, "bob");
  EXPECT_EQ(roster.students[1].folder, fs::path());
  EXPECT_EQ(roster.students[1].problem,
            (root / "class" / "bob").string() +
                " is a symbolic link; a student's folder must be a folder of the roster itself (a link could "
                "lead anywhere on this machine): copy the files there");
}

TEST(Roster, GradescopeMetadataThatIsNotYamlNamesItsFileAndLine) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "export" / "submission_1");
  write(root / "export" / "submission_metadata.yml", "submission_1:\n  :submitters: [\n  - :sid: '1'\n");
  std::string error;
  EXPECT_FALSE(read_roster(root / "export", &error));
  const std::string prefix = (root / "export" / "submission_metadata.yml").string() + ":";
  ASSERT_EQ(error.substr(0, prefix.size()), prefix) << error;
  const size_t line_end = error.find(": ", prefix.size());
  ASSERT_NE(line_end, std::string::npos) << error;
  EXPECT_GE(std::stoi(error.substr(prefix.size(), line_end - prefix.size())), 2) << error;
  EXPECT_GT(error.size(), line_end + 2) << error;
}

TEST(Roster, AGradescopeFolderTheMetadataDoesNotNameIsKnownByItsFolder) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "export" / "submission_1");
  fs::create_directories(root / "export" / "submission_2");
  write(root / "export" / "submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: Ada L\n");
  const Roster roster = read(root / "export");
  ASSERT_EQ(roster.students.size(), 2u);
  EXPECT_EQ(roster.students[0].id, "Ada L");
  EXPECT_EQ(roster.students[1].id, "submission_2");
  EXPECT_EQ(roster.students[1].source,
            (root / "export" / "submission_metadata.yml").string() + " (submission_2)");
}

// A CSV of `ids`, each row's folder the same existing one, read as a roster.
Roster roster_of_ids(const fs::path& root, const std::vector<std::string>& ids) {
  fs::create_directories(root / "a");
  std::string csv = "student,path\n";
  for (const std::string& id : ids) csv += id + ",a\n";
  write(root / "class.csv", csv);
  return read(root / "class.csv");
}

TEST(Roster, IdsThatLookAlikeAreEachFlaggedNamingTheOther) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  // Latin "ada"; "ada" with a Cyrillic first letter; "Adá" in another case with an accent.
  const Roster roster = roster_of_ids(root, {"ada",
                                             "\xD0\xB0"
                                             "da",
                                             "Ad\xC3\xA1"});
  const std::string csv = (root / "class.csv").string();
  const std::string tail =
      ": they differ only in case, accents or characters that are not shown; check that they are different "
      "students";
  ASSERT_EQ(roster.students.size(), 3u);
  EXPECT_EQ(roster.students[0].warnings,
            (std::vector<std::string>{"the id looks like '\xD0\xB0"
                                      "da' (" +
                                      csv + ":3), 'Ad\xC3\xA1' (" + csv + ":4)" + tail}));
  EXPECT_EQ(roster.students[2].warnings, (std::vector<std::string>{"the id looks like 'ada' (" + csv +
                                                                   ":2), '\xD0\xB0"
                                                                   "da' (" +
                                                                   csv + ":3)" + tail}));
  for (const Student& s : roster.students) EXPECT_EQ(s.problem, "") << s.id;
  EXPECT_NE(roster.students[0].file_name, roster.students[1].file_name);
}

// Unicode's compatibility forms, case folding and confusables for Latin letters, not a few hand-picked
// letters: each id of a pair is flagged as looking like the other.
TEST(Roster, IdsThatUnicodeCallsConfusableAreFlagged) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"kate",
       "\xE2\x84\xAA"
       "ate"},  // KELVIN SIGN
      {"sam",
       "\xC5\xBF"
       "am"},  // LATIN SMALL LETTER LONG S
      {"strasse",
       "stra\xC3\x9F"
       "e"},                  // LATIN SMALL LETTER SHARP S
      {"tom", "t\xD6\x85m"},  // ARMENIAN SMALL LETTER OH
      {"lee",
       "\xF0\x9D\x90\xA5"
       "ee"},  // MATHEMATICAL BOLD SMALL L
      {"vic",
       "v\xC4\xB1"
       "c"},  // LATIN SMALL LETTER DOTLESS I
  };
  std::vector<std::string> ids;
  for (const auto& [plain, look_alike] : pairs) ids.insert(ids.end(), {plain, look_alike});
  const Roster roster = roster_of_ids(root, ids);
  ASSERT_EQ(roster.students.size(), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& other = ids[i % 2 == 0 ? i + 1 : i - 1];
    ASSERT_EQ(roster.students[i].warnings.size(), 1u) << ids[i];
    EXPECT_EQ(roster.students[i].warnings[0].rfind("the id looks like '" + other + "' (", 0), 0u)
        << ids[i] << ": " << roster.students[i].warnings[0];
  }
}

TEST(Roster, ACsvSavedByExcelWithAByteOrderMarkIsRead) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  fs::create_directories(root / "a");
  write(root / "class.csv", "\xEF\xBB\xBFstudent,path\nada,a\n");
  const Roster roster = read(root / "class.csv");
  ASSERT_EQ(roster.students.size(), 1u);
  EXPECT_EQ(roster.students[0].id, "ada");
  EXPECT_EQ(roster.students[0].folder, root / "a");
}

TEST(Roster, HiddenAndControlCharactersInAnIdAreSaid) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  const Roster roster = roster_of_ids(root, {"bob\xE2\x80\xAE", "cy\xE2\x80\x8B", "dee\x01"});
  ASSERT_EQ(roster.students.size(), 3u);
  EXPECT_EQ(
      roster.students[0].warnings,
      (std::vector<std::string>{"the id holds the bidirectional control character U+202E, which changes "
                                "the order in which the text around it is shown"}));
  EXPECT_EQ(roster.students[1].warnings,
            (std::vector<std::string>{"the id holds the invisible character U+200B"}));
  EXPECT_EQ(roster.students[2].warnings,
            (std::vector<std::string>{"the id holds the control character U+0001"}));
}

TEST(Roster, AnIdThatIsNotUtf8IsShownWithHexEscapesAndSaysSo) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  const Roster roster = roster_of_ids(root, {"caf\xE9"});
  ASSERT_EQ(roster.students.size(), 1u);
  EXPECT_EQ(roster.students[0].id, "caf\\xE9");
  EXPECT_EQ(roster.students[0].warnings,
            (std::vector<std::string>{"the id is not valid UTF-8 (shown with \\xNN for each bad byte)"}));
}

TEST(Roster, AnIdTooLongIsShownCutWithItsFileNamesHash) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  const std::string id(300, 'x');
  const Roster roster = roster_of_ids(root, {id});
  ASSERT_EQ(roster.students.size(), 1u);
  const Student& s = roster.students[0];
  EXPECT_EQ(s.file_name, file_name_of(id));
  EXPECT_EQ(s.id, std::string(64, 'x') + "...~" + s.file_name.substr(s.file_name.size() - 16));
  EXPECT_EQ(s.warnings, (std::vector<std::string>{"the id is 300 bytes long, more than 256; the gradebook "
                                                  "shows its first 64 bytes and a hash"}));
}

TEST(StudentFileName, APlainIdIsItsOwnFileName) {
  EXPECT_EQ(file_name_of("ada.lovelace-1_x@uni"), "ada.lovelace-1_x@uni");
  const std::string longest(64, 'a');
  EXPECT_EQ(file_name_of(longest), longest);
}

TEST(StudentFileName, OtherIdsGetAReadablePartAndAHashThatTellsThemApart) {
  const std::string spaced = file_name_of("Ann Lee");
  const std::string underscored = file_name_of("ann_lee");
  EXPECT_EQ(underscored, "ann_lee");
  EXPECT_EQ(spaced.substr(0, 8), "ann_lee~");
  EXPECT_EQ(spaced.size(), 8u + 16u);
  EXPECT_EQ(spaced.find_first_not_of("0123456789abcdef", 8), std::string::npos) << spaced;
  EXPECT_NE(file_name_of("ann lee"), underscored);
  EXPECT_NE(file_name_of("ann lee"), spaced);
  // "Zoë" precomposed and with a combining diaeresis.
  EXPECT_NE(file_name_of("Zo\xC3\xAB"), file_name_of("Zoe\xCC\x88"));
  EXPECT_EQ(file_name_of(".hidden").substr(0, 9), "_.hidden~");
  EXPECT_EQ(file_name_of("").substr(0, 2), "_~");
  EXPECT_EQ(file_name_of(std::string(65, 'a')).substr(0, 41), std::string(40, 'a') + "~");
  EXPECT_EQ(file_name_of("Ann Lee"), spaced);  // the same on every run
}

TEST(Submission, TheExercisesFolderComesFirstThenTheIdsFolderThenTheBareFile) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  Student s;
  s.id = s.source = "s";
  s.folder = root / "s";
  write(root / "s/copy.cu", "bare");
  std::string error;
  SubmittedFile file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.status, SubmittedFile::Status::kFound);
  EXPECT_EQ(file.path, "copy.cu");
  EXPECT_EQ(file.bytes, "bare");
  // A file name two exercises share is only looked for in the exercise's own folders.
  EXPECT_EQ(find_submission(s, {"copy", "copy.cu", false}, &error).status, SubmittedFile::Status::kMissing);
  write(root / "s/copy/copy.cu", "in the id's folder");
  file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.path, "copy/copy.cu");
  EXPECT_EQ(file.bytes, "in the id's folder");
  write(root / "s/exercises/copy/copy.cu", "in exercises");
  file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.path, "exercises/copy/copy.cu");
  EXPECT_EQ(file.bytes, "in exercises");
  EXPECT_EQ(error, "");
}

TEST(Submission, ALinkOrAFolderWhereTheFileShouldBeIsRefusedInASentence) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  write(root / "answers.cu", "the answer");
  Student s;
  s.id = s.source = "s";
  s.folder = root / "s";
  fs::create_directories(root / "s/exercises/copy");
  fs::create_symlink(root / "answers.cu", root / "s/exercises/copy/copy.cu");
  std::string error;
  SubmittedFile file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.status, SubmittedFile::Status::kRefused);
  EXPECT_EQ(file.bytes, "");
  EXPECT_EQ(file.refusal,
            "exercises/copy/copy.cu is (or lies behind) a symbolic link; submit the file itself");
  fs::create_directories(root / "s/transpose/transpose.cu");
  file = find_submission(s, {"transpose", "transpose.cu", true}, &error);
  EXPECT_EQ(file.status, SubmittedFile::Status::kRefused);
  EXPECT_EQ(file.refusal, "transpose/transpose.cu is not a regular file");
}

TEST(Submission, ARepositoryThatCannotBeOpenedSetsTheError) {
  std::optional<ScratchDir> dir;
  const fs::path root = fresh(dir);
  Student s;
  s.id = s.source = "s";
  s.repository = root / "no-repo";
  s.revision = "main";
  std::string error;
  SubmittedFile file = find_submission(s, {"copy", "copy.cu", true}, &error);
  EXPECT_EQ(file.status, SubmittedFile::Status::kMissing);
  EXPECT_EQ(error, (root / "no-repo").string() + " is not a git repository, nor a folder inside one");
}

}  // namespace
}  // namespace gpugrade
