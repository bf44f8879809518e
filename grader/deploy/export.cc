// `gpugrade export`: a platform's grader, written from the templates (grader/deploy/templates/) around a
// bundle of this gpugrade (the program, its compile worker, the shared libraries a fresh Debian or Ubuntu
// lacks) and the course's trusted definitions.
#include <fmt/format.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "grader/deploy/deploy.h"
#include "grader/deploy/templates.h"
#include "grader/deploy/zip.h"
#include "os/file.h"
#include "os/process.h"

namespace gpugrade {
namespace {

namespace fs = std::filesystem;

using Substitutions = std::map<std::string, std::string>;

// Libraries every machine that runs gpugrade has (the C library and its loader, zlib, which Debian and
// Ubuntu count as required, the C++ runtime the host compiler brings), and the CUDA libraries, which come
// with the toolkit the install step puts there. The bundle's lib/ is on LD_LIBRARY_PATH for the tools the
// grader starts too (the host compiler, the assembler and linker, the reference program): a bundled copy of
// these would be found before the newer one those tools were built against.
bool system_library(const std::string& name) {
  for (const char* prefix :
       {"linux-vdso", "ld-linux", "libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so",
        "libresolv.so", "libz.so", "libstdc++.so", "libgcc_s.so", "libnvrtc", "libcuda"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

class Writer {
 public:
  Writer(fs::path out, std::vector<std::string>* written) : out_(std::move(out)), written_(written) {}

  bool file(const fs::path& relative, const std::string& bytes, bool executable, std::string* error) {
    const fs::path path = out_ / relative;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec || !write_file_bytes(path, bytes)) {
      *error = fmt::format("cannot write {}", path.string());
      return false;
    }
    fs::permissions(path, executable ? fs::perms(0755) : fs::perms(0644), ec);
    written_->push_back(relative.generic_string());
    return true;
  }

  bool copy(const fs::path& from, const fs::path& relative, std::string* error) {
    std::optional<std::string> bytes = read_file_bytes(from);
    if (!bytes) {
      *error = fmt::format("cannot read {}", from.string());
      return false;
    }
    std::error_code ec;
    const bool executable = (fs::status(from, ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
    return file(relative, *bytes, executable, error);
  }

  // A template, with every @NAME@ replaced; a name left unreplaced is a bug in the export, said as one.
  bool from_template(const std::string& name, const fs::path& relative, const Substitutions& values,
                     std::string* error) {
    for (const EmbeddedFile& embedded : embedded_templates()) {
      if (embedded.path != name) continue;
      std::string text = embedded.bytes;
      for (const auto& [key, value] : values) {
        for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
          text.replace(at, key.size(), value);
      }
      return file(relative, text, embedded.executable, error);
    }
    *error = fmt::format("the template {} is not built into this gpugrade (please report it)", name);
    return false;
  }

  const fs::path& out() const { return out_; }

 private:
  fs::path out_;
  std::vector<std::string>* written_;
};

// The program, its compile worker, the libraries `ldd` says they load (those not everywhere), the wrapper
// that finds them, and the install script, under `to`.
bool write_bundle(const ExportRequest& request, Writer& writer, const fs::path& to,
                  const Substitutions& values, std::string* error) {
  const fs::path worker = request.program.parent_path() / "gpugrade-compile-worker";
  if (!fs::is_regular_file(worker)) {
    *error = fmt::format(
        "no gpugrade-compile-worker beside {}: export copies the two programs together; run "
        "the gpugrade that was built or installed with its worker",
        request.program.string());
    return false;
  }
  if (!writer.copy(request.program, to / "libexec/gpugrade", error) ||
      !writer.copy(worker, to / "libexec/gpugrade-compile-worker", error))
    return false;
  std::optional<std::string> ldd = find_program("ldd");
  if (!ldd) {
    *error = "ldd is not on PATH: export needs it to find the libraries gpugrade loads (Debian: libc-bin)";
    return false;
  }
  std::set<std::string> copied;
  for (const fs::path& program : {request.program, worker}) {
    ProcessResult run = run_process({*ldd, program.string()});
    if (!run.succeeded()) {
      *error = fmt::format("`ldd {}` failed: {}{}", program.string(), run.error, run.err);
      return false;
    }
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
      // "\tlibfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x...)"
      const size_t arrow = line.find(" => ");
      if (arrow == std::string::npos) continue;
      const std::string name =
          line.substr(line.find_first_not_of(" \t"), arrow - line.find_first_not_of(" \t"));
      const size_t end = line.find(" (", arrow);
      const std::string path =
          line.substr(arrow + 4, end == std::string::npos ? std::string::npos : end - arrow - 4);
      if (path == "not found") {
        *error =
            fmt::format("{} loads {}, which is not found here; export from a machine where gpugrade runs",
                        program.string(), name);
        return false;
      }
      if (system_library(name) || !copied.insert(name).second) continue;
      if (!writer.copy(path, to / "lib" / name, error)) return false;
    }
  }
  return writer.from_template("bundle/gpugrade", to / "bin/gpugrade", values, error) &&
         writer.from_template("bundle/install.sh", to / "install.sh", values, error);
}

// The exercises' folders (definition, stub, reference, lesson) and, where graders never show them to
// students, their solutions, which install.sh grades to prove the installation works.
bool write_course(const ExportRequest& request, Writer& writer, const fs::path& to, bool solutions,
                  std::string* error) {
  for (const Exercise& exercise : request.exercises) {
    std::error_code ec;
    for (fs::recursive_directory_iterator it(exercise.dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
      if (!writer.copy(it->path(),
                       to / "exercises" / exercise.id / it->path().lexically_relative(exercise.dir), error))
        return false;
    }
    if (ec) {
      *error = fmt::format("cannot read {}: {}", exercise.dir.string(), ec.message());
      return false;
    }
    const fs::path solution = request.course / "solutions" / exercise.id / exercise.kernel.file;
    if (solutions && fs::is_regular_file(solution) &&
        !writer.copy(solution, to / "solutions" / exercise.id / exercise.kernel.file, error))
      return false;
  }
  const fs::path manifest = request.course / "course.yaml";  // the points the course gives each exercise
  return !fs::is_regular_file(manifest) || writer.copy(manifest, to / "course.yaml", error);
}

std::string exercise_ids(const ExportRequest& request) {
  std::string ids;
  for (const Exercise& exercise : request.exercises) ids += (ids.empty() ? "" : " ") + exercise.id;
  return ids;
}

// A version 4 UUID, which PrairieLearn asks of every question's info.json.
std::string new_uuid() {
  std::random_device device;
  std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device());
  const uint64_t high = (random() & ~0xF000ULL) | 0x4000ULL;
  const uint64_t low = (random() & ~(0xC000ULL << 48)) | (0x8000ULL << 48);
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF, high & 0xFFFF,
                     low >> 48, low & 0xFFFFFFFFFFFFULL);
}

std::string json_string(const std::string& text) { return nlohmann::json(text).dump(); }

bool export_gradescope(const ExportRequest& request, Writer& writer, const Substitutions& values,
                       std::string* error) {
  if (!write_bundle(request, writer, "autograder/gpugrade", values, error) ||
      !write_course(request, writer, "autograder/course", true, error) ||
      !writer.from_template("gradescope/setup.sh", "autograder/setup.sh", values, error) ||
      !writer.from_template("gradescope/run_autograder", "autograder/run_autograder", values, error))
    return false;
  // Gradescope wants setup.sh and run_autograder at the root of the zip (its specification, "Autograder
  // Specifications").
  if (!write_zip(writer.out() / "autograder", writer.out() / "autograder.zip", error)) return false;
  return true;
}

bool export_prairielearn(const ExportRequest& request, Writer& writer, Substitutions values,
                         std::string* error) {
  if (!write_bundle(request, writer, "image/gpugrade", values, error) ||
      !write_course(request, writer, "image/course", true, error) ||
      !writer.from_template("prairielearn/Dockerfile", "image/Dockerfile", values, error) ||
      !writer.from_template("prairielearn/run_prairielearn", "image/gpugrade/run_prairielearn", values,
                            error))
    return false;
  for (const Exercise& exercise : request.exercises) {
    const fs::path question = fs::path("questions") / exercise.id;
    ExportRequest one = request;
    one.exercises = {exercise};
    std::optional<std::string> lesson = read_file_bytes(exercise.dir / "README.md");
    values["@UUID@"] = new_uuid();
    values["@TITLE_JSON@"] = json_string(exercise.title.empty() ? exercise.id : exercise.title);
    values["@EXERCISE@"] = exercise.id;
    values["@FILE@"] = exercise.kernel.file;
    values["@LESSON@"] = lesson.value_or("");
    if (!writer.from_template("prairielearn/info.json", question / "info.json", values, error) ||
        !writer.from_template("prairielearn/question.html", question / "question.html", values, error) ||
        !writer.copy(exercise.dir / exercise.kernel.file,
                     question / "clientFilesQuestion" / exercise.kernel.file, error) ||
        !write_course(one, writer, question / "tests/course", false, error))
      return false;
  }
  return true;
}

bool export_github_classroom(const ExportRequest& request, Writer& writer, const Substitutions& values,
                             std::string* error) {
  // The template repository: the learner's stubs and lessons where the course keeps them, the grader and the
  // definitions under .gpugrade/ (no solutions: students can read every file of their repository).
  for (const Exercise& exercise : request.exercises) {
    for (const std::string& name : {exercise.kernel.file, std::string("README.md")}) {
      if (fs::is_regular_file(exercise.dir / name) &&
          !writer.copy(exercise.dir / name, fs::path("exercises") / exercise.id / name, error))
        return false;
    }
  }
  return write_bundle(request, writer, ".gpugrade/gpugrade", values, error) &&
         write_course(request, writer, ".gpugrade/course", false, error) &&
         writer.from_template("github-classroom/classroom.yml", ".github/workflows/classroom.yml", values,
                              error);
}

}  // namespace

std::optional<Platform> parse_platform(std::string_view name) {
  if (name == "gradescope") return Platform::kGradescope;
  if (name == "prairielearn") return Platform::kPrairieLearn;
  if (name == "github-classroom") return Platform::kGithubClassroom;
  return std::nullopt;
}

const std::vector<std::string>& platform_names() {
  static const std::vector<std::string> names = {"gradescope", "prairielearn", "github-classroom"};
  return names;
}

std::string next_steps(Platform platform, const std::string& out) {
  switch (platform) {
    case Platform::kGradescope:
      return fmt::format(
          "upload {}/autograder.zip as the assignment's autograder (base image Ubuntu 22.04 or later)", out);
    case Platform::kPrairieLearn:
      return fmt::format(
          "build and push the image in {0}/image (see its Dockerfile), then copy {0}/questions/* into "
          "the course's questions/",
          out);
    case Platform::kGithubClassroom:
      return fmt::format("make {} a template repository and create the Classroom assignment from it", out);
  }
  return {};
}

bool export_grader(const ExportRequest& request, std::vector<std::string>* written, std::string* error) {
  std::error_code ec;
  if (fs::exists(request.out, ec) && !fs::is_empty(request.out, ec)) {
    *error = fmt::format("{} is not empty: export writes into a new or empty folder, never over files",
                         request.out.string());
    return false;
  }
  if (request.exercises.empty()) {
    *error = "name the exercises to export";
    return false;
  }
  std::string package = request.cuda_release;  // NVIDIA's package names say 13-0 for release 13.0
  if (size_t dot = package.find('.'); dot != std::string::npos) package[dot] = '-';
  const Substitutions values = {
      {"@EXERCISES@", exercise_ids(request)},
      {"@CUDA_RELEASE@", request.cuda_release},
      {"@CUDA_PACKAGE@", package},
      {"@IMAGE@", request.image},
  };
  Writer writer(request.out, written);
  switch (request.platform) {
    case Platform::kGradescope:
      return export_gradescope(request, writer, values, error);
    case Platform::kPrairieLearn:
      return export_prairielearn(request, writer, values, error);
    case Platform::kGithubClassroom:
      return export_github_classroom(request, writer, values, error);
  }
  return false;
}

}  // namespace gpugrade
