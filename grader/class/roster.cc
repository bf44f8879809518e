// Reading a class roster in each layout courses have, and a student's file for an exercise, refusing links
// and oversized files before anything reads their bytes.
#include "grader/class/roster.h"

#include <fmt/format.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "grader/compile/cache.h"
#include "grader/result/text_escape.h"
#include "grader/source/git_source.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

std::string trim(std::string text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  size_t end = text.find_last_not_of(" \t\r\n");
  return start == std::string::npos ? "" : text.substr(start, end - start + 1);
}

// RFC 4180 fields: commas separate, double quotes enclose fields holding commas or quotes ("" is a quote).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  for (std::string& f : fields) f = trim(f);
  return fields;
}

// Rows that cannot be graded stay rows: a repeated or empty id is the row's problem, named by `where`
// ("line 5", the folder's name) so that the gradebook's rows stay distinct.
void add_student(Roster& roster, Student student, const std::string& where,
                 std::map<std::string, size_t>& seen) {
  if (student.id.empty()) {
    student.problem = fmt::format("{}: the student has no id; give the row one", student.source);
    student.id = fmt::format("(no id, {})", where);
  } else if (auto first = seen.find(student.id); first != seen.end()) {
    Student& earlier = roster.students[first->second];
    student.problem = fmt::format(
        "{}: student '{}' appears twice (first at {}); give each student one row, "
        "then grade again",
        student.source, escape_invalid_utf8(student.id), earlier.source);
    // The first row is graded, but it may be the wrong one of the two.
    earlier.warnings.push_back(
        fmt::format("the id appears again at {}, which was not graded; check which row is "
                    "the student's",
                    student.source));
    student.id = fmt::format("{} (again, {})", student.id, where);
  } else {
    seen.emplace(student.id, roster.students.size());
  }
  roster.students.push_back(std::move(student));
}

// A roster file read whole, once its size is known to be sane.
std::optional<std::string> read_roster_file(const fs::path& path, std::string* error) {
  FolderFile file = read_named_file(path, kMaxRosterFileBytes);
  if (file.status == FolderFile::Status::kRead) return std::move(file.bytes);
  if (file.status == FolderFile::Status::kTooLarge)
    *error = fmt::format("{} is {} bytes; a roster may be at most {} bytes", path.string(), file.size,
                         kMaxRosterFileBytes);
  else
    *error =
        fmt::format("cannot read the roster {}{}", path.string(), file.why.empty() ? "" : ": " + file.why);
  return std::nullopt;
}

std::optional<Roster> read_csv(const fs::path& path, std::string* error) {
  std::optional<std::string> text = read_roster_file(path, error);
  if (!text) return std::nullopt;
  // Excel saves "CSV UTF-8" with a byte-order mark before the header; it is no part of the first column.
  if (text->starts_with("\xEF\xBB\xBF")) text->erase(0, 3);
  std::istringstream in(*text);
  Roster roster{{}, "csv"};
  std::string line;
  std::vector<std::string> header;
  std::map<std::string, size_t> seen;
  int number = 0;
  int id_col = -1, path_col = -1, repo_col = -1, rev_col = -1;
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    std::vector<std::string> fields = csv_fields(line);
    if (header.empty()) {
      header = fields;
      for (size_t i = 0; i < header.size(); ++i) {
        const std::string& h = header[i];
        int col = static_cast<int>(i);
        if (h == "student" || h == "id")
          id_col = col;
        else if (h == "path")
          path_col = col;
        else if (h == "repository")
          repo_col = col;
        else if (h == "revision")
          rev_col = col;
      }
      if (id_col < 0 || (path_col < 0 && (repo_col < 0 || rev_col < 0))) {
        *error = fmt::format(
            "{}:{}: the header must name the columns student and path, or student, repository "
            "and revision (it reads: {})",
            path.string(), number, trim(line));
        return std::nullopt;
      }
      continue;
    }
    auto field = [&](int col) {
      return col >= 0 && col < static_cast<int>(fields.size()) ? fields[col] : "";
    };
    Student s;
    s.id = field(id_col);
    s.source = fmt::format("{}:{}", path.string(), number);
    std::string folder = field(path_col);
    if (!folder.empty()) {
      s.folder = fs::path(folder).is_absolute() ? fs::path(folder) : path.parent_path() / folder;
      if (!fs::is_directory(s.folder))
        s.problem = fmt::format("{}: {} is not a folder", s.source, escape_invalid_utf8(s.folder.string()));
    } else {
      std::string repo = field(repo_col);
      s.revision = field(rev_col);
      if (repo.empty() || s.revision.empty())
        s.problem = fmt::format("{}: give a path, or a repository and a revision", s.source);
      else
        s.repository = fs::path(repo).is_absolute() ? fs::path(repo) : path.parent_path() / repo;
    }
    add_student(roster, std::move(s), fmt::format("line {}", number), seen);
  }
  if (header.empty()) {
    *error = fmt::format("{}: the roster is empty", path.string());
    return std::nullopt;
  }
  return roster;
}

// A folder of the roster: a student's (or a Gradescope submission's), or a link that stands where one would.
struct RosterFolder {
  fs::path path;
  bool link = false;
};

// Every folder of `dir`, and every link there (a link is a row with a problem, never followed and never
// dropped); dot-named folders are students like any other, except git's own `.git`.
std::vector<RosterFolder> subfolders(const fs::path& dir) {
  std::vector<RosterFolder> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const bool link = e.is_symlink(ec);
    if (e.path().filename() == ".git") continue;
    if (link || e.is_directory(ec)) out.push_back({e.path(), link});
  }
  std::sort(out.begin(), out.end(),
            [](const RosterFolder& a, const RosterFolder& b) { return a.path < b.path; });
  return out;
}

// A student's folder that is a link could lead anywhere on the machine: its row is a problem, unread.
void refuse_link(Student& s, const RosterFolder& folder) {
  if (!folder.link) return;
  s.problem = fmt::format(
      "{} is a symbolic link; a student's folder must be a folder of the roster itself (a link "
      "could lead anywhere on this machine): copy the files there",
      escape_invalid_utf8(folder.path.string()));
  s.folder.clear();
}

// Gradescope's "Export Submissions": submission_<n>/ folders and submission_metadata.yml, whose keys are the
// folder names and whose :submitters: list each student's :sid:, :email: and :name:.
std::optional<Roster> read_gradescope(const fs::path& dir, std::string* error) {
  Roster roster{{}, "gradescope"};
  fs::path metadata = dir / "submission_metadata.yml";
  std::optional<std::string> text = read_roster_file(metadata, error);
  if (!text) return std::nullopt;
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    *error = fmt::format("{}:{}: {}", metadata.string(), e.mark.line + 1, e.msg);
    return std::nullopt;
  }
  std::map<std::string, size_t> seen;
  for (const RosterFolder& folder : subfolders(dir)) {
    Student s;
    s.folder = folder.path;
    const std::string name = folder.path.filename().string();
    s.source = fmt::format("{} ({})", metadata.string(), escape_invalid_utf8(name));
    YAML::Node entry = root.IsMap() ? root[name] : YAML::Node();
    if (entry && entry.IsMap()) {
      YAML::Node submitters = entry[":submitters"];
      if (submitters && submitters.IsSequence() && submitters.size() > 0 && submitters[0].IsMap()) {
        for (const char* key : {":sid", ":email", ":name"}) {
          YAML::Node value = submitters[0][key];
          if (value && value.IsScalar() && !value.Scalar().empty()) {
            s.id = value.Scalar();
            break;
          }
        }
      }
    }
    if (s.id.empty()) s.id = name;
    refuse_link(s, folder);
    add_student(roster, std::move(s), name, seen);
  }
  return roster;
}

Roster read_folders(const fs::path& dir) {
  // `gh classroom clone student-repos` makes <assignment>-submissions/<assignment>-<login>/.
  std::string name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  const std::string suffix = "-submissions";
  std::string prefix;
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    prefix = name.substr(0, name.size() - suffix.size()) + "-";
  Roster roster{{}, prefix.empty() ? "folders" : "github-classroom"};
  std::map<std::string, size_t> seen;
  for (const RosterFolder& folder : subfolders(dir)) {
    Student s;
    s.folder = folder.path;
    s.id = folder.path.filename().string();
    if (!prefix.empty() && s.id.size() > prefix.size() && s.id.rfind(prefix, 0) == 0)
      s.id = s.id.substr(prefix.size());
    s.source = escape_invalid_utf8(folder.path.string());
    refuse_link(s, folder);
    add_student(roster, std::move(s), escape_invalid_utf8(folder.path.filename().string()), seen);
  }
  return roster;
}

std::vector<std::string> candidate_paths(const ExerciseFile& exercise) {
  std::vector<std::string> paths = {fmt::format("exercises/{}/{}", exercise.exercise, exercise.file),
                                    fmt::format("{}/{}", exercise.exercise, exercise.file)};
  if (exercise.file_is_unique) paths.push_back(exercise.file);
  return paths;
}

std::string size_refusal(const std::string& path, uint64_t size) {
  return fmt::format("{} is {} bytes; a submission may be at most {} bytes", path, size, kMaxSubmissionBytes);
}

// One code point of UTF-8 at text[at], or nullopt (and one byte consumed) for a malformed sequence.
std::optional<char32_t> next_code_point(std::string_view text, size_t& at) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char first = byte(at);
  const size_t length = first < 0x80           ? 1
                        : (first >> 5) == 0x6  ? 2
                        : (first >> 4) == 0xE  ? 3
                        : (first >> 3) == 0x1E ? 4
                                               : 0;
  if (length == 0 || at + length > text.size()) {
    ++at;
    return std::nullopt;
  }
  char32_t c = length == 1 ? first : first & (0x7F >> length);
  for (size_t i = 1; i < length; ++i) {
    if ((byte(at + i) >> 6) != 0x2) {
      ++at;
      return std::nullopt;
    }
    c = (c << 6) | (byte(at + i) & 0x3F);
  }
  at += length;
  return c;
}

// Code points that change how the text around them is shown, or are not shown at all: an id holding one
// can pass for another in a gradebook.
bool is_bidi_control(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}
bool is_invisible(char32_t c) {
  return c == 0x00AD || c == 0x180E || (c >= 0x200B && c <= 0x200D) || (c >= 0x2060 && c <= 0x2064) ||
         c == 0xFEFF;
}
bool is_control(char32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F); }

// `text` in UTF-16 and back, ICU's own encoding; ill-formed bytes never reach here (look_of replaces them).
std::u16string utf16_of(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strFromUTF8(nullptr, 0, &length, text.data(), static_cast<int32_t>(text.size()), &status);
  std::u16string out(static_cast<size_t>(length), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8(out.data(), length, nullptr, text.data(), static_cast<int32_t>(text.size()), &status);
  return U_SUCCESS(status) ? out : std::u16string();
}

std::string utf8_of(const std::u16string& text) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strToUTF8(nullptr, 0, &length, text.data(), static_cast<int32_t>(text.size()), &status);
  std::string out(static_cast<size_t>(length), '\0');
  status = U_ZERO_ERROR;
  u_strToUTF8(out.data(), length, nullptr, text.data(), static_cast<int32_t>(text.size()), &status);
  return U_SUCCESS(status) ? out : std::string();
}

// Unicode's NFKC_Casefold: compatibility forms (full-width, mathematical letters, the Kelvin sign, long s)
// to their plain letters, case folded in full (sharp s to "ss").
std::u16string folded(const std::u16string& text) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* fold = unorm2_getNFKCCasefoldInstance(&status);
  if (U_FAILURE(status)) return text;
  const int32_t capacity = static_cast<int32_t>(text.size()) * 18 + 16;  // NFKC's most per code unit
  std::u16string out(static_cast<size_t>(capacity), u'\0');
  const int32_t length =
      unorm2_normalize(fold, text.data(), static_cast<int32_t>(text.size()), out.data(), capacity, &status);
  if (U_FAILURE(status)) return text;
  out.resize(static_cast<size_t>(length));
  return out;
}

// Unicode's confusables skeleton (UTS #39: what a letter of any script is drawn like, Cyrillic and Greek and
// Armenian among them), with the accents it leaves as combining marks dropped.
std::string skeleton(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  static USpoofChecker* const checker = uspoof_open(&status);
  if (checker == nullptr) return text;
  status = U_ZERO_ERROR;
  const int32_t length =
      uspoof_getSkeletonUTF8(checker, 0, text.data(), static_cast<int32_t>(text.size()), nullptr, 0, &status);
  std::string out(static_cast<size_t>(length), '\0');
  status = U_ZERO_ERROR;
  uspoof_getSkeletonUTF8(checker, 0, text.data(), static_cast<int32_t>(text.size()), out.data(), length,
                         &status);
  if (U_FAILURE(status)) return text;
  std::u16string marked = utf16_of(out), bare;
  for (int32_t at = 0; at < static_cast<int32_t>(marked.size());) {
    UChar32 c;
    U16_NEXT(marked.data(), at, static_cast<int32_t>(marked.size()), c);
    if (u_charType(c) == U_NON_SPACING_MARK) continue;
    UChar units[2];
    int32_t n = 0;
    U16_APPEND_UNSAFE(units, n, c);
    bare.append(units, units + n);
  }
  return utf8_of(bare);
}

// How an id looks, roughly: invisible, bidi and control characters left out, then Unicode's compatibility
// forms, case and confusables folded away (folded, skeleton, folded again: a skeleton may be upper case).
// Two ids with one look are flagged. Adds to *warnings what the id holds that an instructor should know.
std::string look_of(const std::string& id, std::vector<std::string>* warnings) {
  std::string shown;
  std::set<std::string> said;
  const auto warn = [&](std::string text) {
    if (said.insert(text).second) warnings->push_back(std::move(text));
  };
  for (size_t at = 0; at < id.size();) {
    const size_t start = at;
    const std::optional<char32_t> c = next_code_point(id, at);
    if (!c) {
      warn("the id is not valid UTF-8 (shown with \\xNN for each bad byte)");
      shown += '?';
      continue;
    }
    if (is_bidi_control(*c)) {
      warn(fmt::format(
          "the id holds the bidirectional control character U+{:04X}, which changes the order in which "
          "the text around it is shown",
          static_cast<uint32_t>(*c)));
    } else if (is_invisible(*c)) {
      warn(fmt::format("the id holds the invisible character U+{:04X}", static_cast<uint32_t>(*c)));
    } else if (is_control(*c)) {
      warn(fmt::format("the id holds the control character U+{:04X}", static_cast<uint32_t>(*c)));
    } else {
      shown += id.substr(start, at - start);
    }
  }
  return utf8_of(folded(utf16_of(skeleton(utf8_of(folded(utf16_of(shown)))))));
}

// The roster's rows made safe to show and to name files by: each id valid UTF-8 and at most
// kMaxStudentIdBytes, each file name unique, and what an instructor should check said in warnings.
void settle_ids(Roster& roster) {
  std::map<std::string, std::vector<size_t>> by_look;
  for (size_t i = 0; i < roster.students.size(); ++i) {
    Student& s = roster.students[i];
    s.file_name = file_name_of(s.id);
    by_look[look_of(s.id, &s.warnings)].push_back(i);
    std::string shown = escape_invalid_utf8(s.id);
    if (shown.size() > kMaxStudentIdBytes) {
      size_t cut = kShownIdBytes;
      while (cut > 0 && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) --cut;  // whole characters
      s.warnings.push_back(
          fmt::format("the id is {} bytes long, more than {}; the gradebook shows its first {} bytes "
                      "and a hash",
                      s.id.size(), kMaxStudentIdBytes, cut));
      shown = fmt::format("{}...~{}", shown.substr(0, cut), s.file_name.substr(s.file_name.size() - 16));
    }
    s.id = std::move(shown);
  }
  for (const auto& [look, rows] : by_look) {
    if (rows.size() < 2) continue;
    for (size_t i : rows) {
      std::string others;
      for (size_t j : rows)
        if (j != i)
          others += fmt::format("{}'{}' ({})", others.empty() ? "" : ", ", roster.students[j].id,
                                roster.students[j].source);
      roster.students[i].warnings.push_back(
          fmt::format("the id looks like {}: they differ only in case, accents or "
                      "characters that are not shown; check that they are "
                      "different students",
                      others));
    }
  }
  // Names differ whenever ids do (file_name_of); a clash would mean two rows write one report, so it is
  // checked rather than assumed, ignoring case as some file systems do.
  std::map<std::string, size_t> taken;
  for (size_t i = 0; i < roster.students.size(); ++i) {
    Student& s = roster.students[i];
    std::string folded = s.file_name;
    std::transform(folded.begin(), folded.end(), folded.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    auto [it, fresh] = taken.emplace(folded, i);
    if (fresh) continue;
    s.problem = fmt::format("{}: its report file name {} is already that of '{}'; rename one of them",
                            s.source, s.file_name, roster.students[it->second].id);
    s.file_name = file_name_of(fmt::format("{}\n{}", s.id, i));
  }
}

}  // namespace

std::string file_name_of(const std::string& id) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_' || c == '@';
  };
  if (!id.empty() && id.size() <= 64 && id[0] != '.' && std::all_of(id.begin(), id.end(), plain)) return id;
  std::string readable;
  for (char c : id) {
    if (readable.size() == 40) break;
    char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    readable += static_cast<unsigned char>(c) < 0x80 && plain(lower) ? lower : '_';
  }
  if (readable.empty() || readable[0] == '.') readable = "_" + readable;
  // '~' is never in a plain id, so a hashed name cannot be another student's plain one.
  return readable + "~" + CacheKey("student file name 1").add(id).hex().substr(0, 16);
}

std::optional<Roster> read_roster(const fs::path& path, std::string* error) {
  std::error_code ec;
  std::optional<Roster> roster;
  if (fs::is_directory(path, ec)) {
    roster =
        fs::exists(path / "submission_metadata.yml", ec) ? read_gradescope(path, error) : read_folders(path);
    if (roster && roster->students.empty()) {
      *error = fmt::format("{}: no student folders in it", path.string());
      return std::nullopt;
    }
  } else if (fs::is_regular_file(path, ec)) {
    roster = read_csv(path, error);
  } else {
    *error = fmt::format("no roster at {}: give a folder of student folders or a CSV file", path.string());
  }
  if (roster) settle_ids(*roster);
  return roster;
}

SubmittedFile find_submission(const Student& student, const ExerciseFile& exercise, std::string* error) {
  SubmittedFile out;
  if (!student.repository.empty()) {
    std::unique_ptr<GitRepository> repo = GitRepository::open(student.repository, error);
    if (!repo) return out;
    std::optional<GitTree> tree = repo->tree(student.revision, error);
    if (!tree) return out;
    for (const std::string& path : candidate_paths(exercise)) {
      std::optional<GitFile> file = repo->read(*tree, path, kMaxSubmissionBytes);
      if (!file) continue;
      out.path = path;
      out.status = SubmittedFile::Status::kRefused;
      if (file->link) {
        out.refusal = fmt::format("{} is a symbolic link; submit the file itself", path);
      } else if (!file->bytes) {
        out.refusal = size_refusal(path, file->size);
      } else {
        out.status = SubmittedFile::Status::kFound;
        out.bytes = std::move(*file->bytes);
      }
      return out;
    }
    return out;
  }
  for (const std::string& path : candidate_paths(exercise)) {
    FolderFile file = read_file_below(student.folder, path);
    if (file.status == FolderFile::Status::kAbsent) continue;
    out.path = path;
    out.status = SubmittedFile::Status::kRefused;
    switch (file.status) {
      case FolderFile::Status::kRead:
        out.status = SubmittedFile::Status::kFound;
        out.bytes = std::move(file.bytes);
        break;
      case FolderFile::Status::kLink:
        out.refusal = fmt::format("{} is (or lies behind) a symbolic link; submit the file itself", path);
        break;
      case FolderFile::Status::kNotRegular:
        out.refusal = fmt::format("{} is not a regular file", path);
        break;
      case FolderFile::Status::kTooLarge:
        out.refusal = size_refusal(path, file.size);
        break;
      case FolderFile::Status::kUnreadable:
      case FolderFile::Status::kAbsent:
        out.refusal = fmt::format("{} cannot be read: {}", path, file.why);
        break;
    }
    return out;
  }
  return out;
}

}  // namespace gpugrade
