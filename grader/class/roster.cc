// Reading a class roster in each layout courses have, and a student's file for an exercise, refusing links
// and oversized files before anything reads their bytes.
#include "grader/class/roster.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "grader/source/git_source.h"
#include "os/file.h"

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

bool add_student(Roster& roster, Student student, std::set<std::string>& seen, std::string* error) {
  if (student.id.empty()) {
    *error = fmt::format("{}: the student has no id", student.source);
    return false;
  }
  if (!seen.insert(student.id).second) {
    *error = fmt::format("{}: student '{}' appears twice; give each student one row", student.source, student.id);
    return false;
  }
  roster.students.push_back(std::move(student));
  return true;
}

std::optional<Roster> read_csv(const fs::path& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = fmt::format("cannot read the roster {}", path.string());
    return std::nullopt;
  }
  Roster roster{{}, "csv"};
  std::string line;
  std::vector<std::string> header;
  std::set<std::string> seen;
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
        if (h == "student" || h == "id") id_col = col;
        else if (h == "path") path_col = col;
        else if (h == "repository") repo_col = col;
        else if (h == "revision") rev_col = col;
      }
      if (id_col < 0 || (path_col < 0 && (repo_col < 0 || rev_col < 0))) {
        *error = fmt::format("{}:{}: the header must name the columns student and path, or student, repository "
                             "and revision (it reads: {})",
                             path.string(), number, trim(line));
        return std::nullopt;
      }
      continue;
    }
    auto field = [&](int col) { return col >= 0 && col < static_cast<int>(fields.size()) ? fields[col] : ""; };
    Student s;
    s.id = field(id_col);
    s.source = fmt::format("{}:{}", path.string(), number);
    std::string folder = field(path_col);
    if (!folder.empty()) {
      s.folder = fs::path(folder).is_absolute() ? fs::path(folder) : path.parent_path() / folder;
      if (!fs::is_directory(s.folder)) {
        *error = fmt::format("{}: {} is not a folder", s.source, s.folder.string());
        return std::nullopt;
      }
    } else {
      std::string repo = field(repo_col);
      s.revision = field(rev_col);
      if (repo.empty() || s.revision.empty()) {
        *error = fmt::format("{}: give a path, or a repository and a revision", s.source);
        return std::nullopt;
      }
      s.repository = fs::path(repo).is_absolute() ? fs::path(repo) : path.parent_path() / repo;
    }
    if (!add_student(roster, std::move(s), seen, error)) return std::nullopt;
  }
  if (header.empty()) {
    *error = fmt::format("{}: the roster is empty", path.string());
    return std::nullopt;
  }
  return roster;
}

std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec) && !e.is_symlink(ec) && e.path().filename().string()[0] != '.') out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Gradescope's "Export Submissions": submission_<n>/ folders and submission_metadata.yml, whose keys are the
// folder names and whose :submitters: list each student's :sid:, :email: and :name:.
std::optional<Roster> read_gradescope(const fs::path& dir, std::string* error) {
  Roster roster{{}, "gradescope"};
  fs::path metadata = dir / "submission_metadata.yml";
  YAML::Node root;
  try {
    root = YAML::LoadFile(metadata.string());
  } catch (const YAML::Exception& e) {
    *error = fmt::format("{}:{}: {}", metadata.string(), e.mark.line + 1, e.msg);
    return std::nullopt;
  }
  std::set<std::string> seen;
  for (const fs::path& folder : subfolders(dir)) {
    Student s;
    s.folder = folder;
    s.source = fmt::format("{} ({})", metadata.string(), folder.filename().string());
    YAML::Node entry = root.IsMap() ? root[folder.filename().string()] : YAML::Node();
    if (entry && entry.IsMap()) {
      YAML::Node submitters = entry[":submitters"];
      if (submitters && submitters.IsSequence() && submitters.size() > 0 && submitters[0].IsMap()) {
        for (const char* key : {":sid", ":email", ":name"}) {
          YAML::Node value = submitters[0][key];
          if (value && value.IsScalar() && !value.as<std::string>().empty()) {
            s.id = value.as<std::string>();
            break;
          }
        }
      }
    }
    if (s.id.empty()) s.id = folder.filename().string();
    if (!add_student(roster, std::move(s), seen, error)) return std::nullopt;
  }
  return roster;
}

std::optional<Roster> read_folders(const fs::path& dir, std::string* error) {
  // `gh classroom clone student-repos` makes <assignment>-submissions/<assignment>-<login>/.
  std::string name = dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
  const std::string suffix = "-submissions";
  std::string prefix;
  if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    prefix = name.substr(0, name.size() - suffix.size()) + "-";
  Roster roster{{}, prefix.empty() ? "folders" : "github-classroom"};
  std::set<std::string> seen;
  for (const fs::path& folder : subfolders(dir)) {
    Student s;
    s.folder = folder;
    s.id = folder.filename().string();
    if (!prefix.empty() && s.id.size() > prefix.size() && s.id.rfind(prefix, 0) == 0) s.id = s.id.substr(prefix.size());
    s.source = folder.string();
    if (!add_student(roster, std::move(s), seen, error)) return std::nullopt;
  }
  return roster;
}

std::vector<std::string> candidate_paths(const ExerciseFile& exercise) {
  std::vector<std::string> paths = {fmt::format("exercises/{}/{}", exercise.exercise, exercise.file),
                                    fmt::format("{}/{}", exercise.exercise, exercise.file)};
  if (exercise.file_is_unique) paths.push_back(exercise.file);
  return paths;
}

// Whether a folder on the way to `path` (exercises/, exercises/<id>/) is a link: it could lead anywhere.
bool passes_through_link(const fs::path& folder, const std::string& path) {
  fs::path at = folder;
  fs::path relative(path);
  for (auto part = relative.begin(); part != relative.end() && std::next(part) != relative.end(); ++part) {
    at /= *part;
    struct stat info {};
    if (lstat(at.c_str(), &info) != 0 || S_ISLNK(info.st_mode)) return true;
  }
  return false;
}

std::string size_refusal(const std::string& path, uint64_t size) {
  return fmt::format("{} is {} bytes; a submission may be at most {} bytes", path, size, kMaxSubmissionBytes);
}

}  // namespace

std::optional<Roster> read_roster(const fs::path& path, std::string* error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::optional<Roster> roster = fs::exists(path / "submission_metadata.yml", ec) ? read_gradescope(path, error)
                                                                                    : read_folders(path, error);
    if (roster && roster->students.empty()) {
      *error = fmt::format("{}: no student folders in it", path.string());
      return std::nullopt;
    }
    return roster;
  }
  if (fs::is_regular_file(path, ec)) return read_csv(path, error);
  *error = fmt::format("no roster at {}: give a folder of student folders or a CSV file", path.string());
  return std::nullopt;
}

SubmittedFile find_submission(const Student& student, const ExerciseFile& exercise, std::string* error) {
  SubmittedFile out;
  if (!student.repository.empty()) {
    std::unique_ptr<GitRepository> repo = GitRepository::open(student.repository, error);
    if (!repo) return out;
    std::optional<GitTree> tree = repo->tree(student.revision, error);
    if (!tree) return out;
    for (const std::string& path : candidate_paths(exercise)) {
      std::optional<std::string> bytes = repo->read(*tree, path);
      if (!bytes) continue;
      out.path = path;
      if (repo->is_link(*tree, path)) {
        out.status = SubmittedFile::Status::kRefused;
        out.refusal = fmt::format("{} is a symbolic link; submit the file itself", path);
      } else if (bytes->size() > kMaxSubmissionBytes) {
        out.status = SubmittedFile::Status::kRefused;
        out.refusal = size_refusal(path, bytes->size());
      } else {
        out.status = SubmittedFile::Status::kFound;
        out.bytes = std::move(*bytes);
      }
      return out;
    }
    return out;
  }
  for (const std::string& path : candidate_paths(exercise)) {
    fs::path file = student.folder / path;
    struct stat info {};
    if (lstat(file.c_str(), &info) != 0) continue;
    out.path = path;
    out.status = SubmittedFile::Status::kRefused;
    if (S_ISLNK(info.st_mode) || passes_through_link(student.folder, path)) {
      out.refusal = fmt::format("{} is (or lies behind) a symbolic link; submit the file itself", path);
    } else if (!S_ISREG(info.st_mode)) {
      out.refusal = fmt::format("{} is not a regular file", path);
    } else if (static_cast<uint64_t>(info.st_size) > kMaxSubmissionBytes) {
      out.refusal = size_refusal(path, static_cast<uint64_t>(info.st_size));
    } else if (std::optional<std::string> bytes = read_file_bytes(file)) {
      out.status = SubmittedFile::Status::kFound;
      out.bytes = std::move(*bytes);
    } else {
      out.refusal = fmt::format("{} cannot be read", path);
    }
    return out;
  }
  return out;
}

}  // namespace gpugrade
