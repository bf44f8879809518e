#!/usr/bin/env python3
"""The house rules of gpugrade's C++ sources, checked as tests: each check prints every offender as
file:line: what is wrong and what to do, and exits 1 if there is one.

  limits ROOT      no source file over 1,000 lines, no function over 150 lines but the simulator's
                   dispatch loop (function extents from universal-ctags)
  format ROOT      every source formatted with the checked-in .clang-format
  unit-tests ROOT  every production .cc has tests/unit/<its path>_test.cc, or a line in
                   tests/unit/WITHOUT_UNIT_TEST.txt that says why not
  self-test        each check run on a made-up tree with one offender of each kind must name it
"""
import os
import shutil
import subprocess
import sys
import tempfile

MAX_FILE_LINES = 1000
MAX_FUNCTION_LINES = 150
# The interpreter's dispatch loop is one function with one switch, as an interpreter's should be
# (docs/architecture.md); cutting it would hide the hot path behind calls.
LONG_FUNCTIONS_ALLOWED = {("harness/sim/interpreter.cc", "run_warp_until_stop")}
SOURCE_FOLDERS = ("grader", "harness", "os", "bench", "tests")
PRODUCTION_FOLDERS = ("grader", "harness", "os")
# Course content and fixtures keep the lines their findings name.
NOT_SOURCES = ("tests/data/", "tests/courses/")
ALLOW_LIST = "tests/unit/WITHOUT_UNIT_TEST.txt"


def sources(root, folders=SOURCE_FOLDERS, suffixes=(".cc", ".h")):
    found = []
    for folder in folders:
        for directory, subdirs, files in os.walk(os.path.join(root, folder)):
            subdirs.sort()
            for name in sorted(files):
                path = os.path.relpath(os.path.join(directory, name), root)
                if name.endswith(suffixes) and not path.startswith(NOT_SOURCES):
                    found.append(path)
    return found


def tool(name, package):
    path = shutil.which(name)
    if path is None:
        print(f"{name} is not installed: run .ci/install-deps (Debian package {package})")
        sys.exit(1)
    return path


def check_limits(root):
    problems = []
    files = sources(root)
    for path in files:
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            count = sum(1 for _ in f)
        if count > MAX_FILE_LINES:
            problems.append(f"{path}:1: {count} lines, over the limit of {MAX_FILE_LINES}: split it where its "
                            "work parts (docs/architecture.md)")
    ctags = tool("ctags", "universal-ctags")
    listing = subprocess.run(
        [ctags, "--languages=C++", "--kinds-C++=f", "--fields=+ne", "-x",
         "--_xformat=%{end} %{line} %{input} %{name}", "-L", "-"],
        input="\n".join(files), cwd=root, capture_output=True, text=True, check=True).stdout
    for row in listing.splitlines():
        parts = row.split()
        if len(parts) != 4 or not parts[0].isdigit():
            continue
        end, start, path, name = int(parts[0]), int(parts[1]), parts[2], parts[3]
        length = end - start + 1
        if length > MAX_FUNCTION_LINES and (path, name) not in LONG_FUNCTIONS_ALLOWED:
            problems.append(f"{path}:{start}: {name} is {length} lines, over the limit of {MAX_FUNCTION_LINES}: "
                            "give its steps names of their own")
    return problems


def check_format(root):
    clang_format = tool("clang-format", "clang-format")
    files = sources(root)
    # One run over every file; it names each place it would change as "file:line:column: error: ...".
    result = subprocess.run([clang_format, "--style=file", "--dry-run", "-Werror", *files], cwd=root,
                            capture_output=True, text=True)
    first = {}
    for line in result.stderr.splitlines():
        if ": error:" in line:
            where = line.split(": error:")[0]
            first.setdefault(where.split(":")[0], where)
    if result.returncode != 0 and not first:
        return [f".clang-format:1: clang-format failed: {result.stderr.strip()}"]
    return [f"{where}: not formatted as .clang-format says: run clang-format -i --style=file {path}"
            for path, where in first.items()]


def read_allow_list(root):
    allowed = {}
    problems = []
    path = os.path.join(root, ALLOW_LIST)
    if not os.path.exists(path):
        return allowed, problems
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            source, _, reason = text.partition(" ")
            if not reason.strip():
                problems.append(f"{ALLOW_LIST}:{number}: {source} has no reason: say why it has no unit test")
            allowed[source] = number
    return allowed, problems


def check_unit_tests(root):
    allowed, problems = read_allow_list(root)
    for path in sources(root, PRODUCTION_FOLDERS, (".cc",)):
        test = os.path.join("tests", "unit", path[:-len(".cc")] + "_test.cc")
        has_test = os.path.exists(os.path.join(root, test))
        if has_test and path in allowed:
            problems.append(f"{ALLOW_LIST}:{allowed[path]}: {path} has a unit test now ({test}): remove its line")
        elif not has_test and path not in allowed:
            problems.append(f"{path}:1: no unit test: write {test}, or add the file to {ALLOW_LIST} with the "
                            "reason it has none")
    for path, number in allowed.items():
        if not os.path.exists(os.path.join(root, path)):
            problems.append(f"{ALLOW_LIST}:{number}: {path} does not exist: remove its line")
    return problems


CHECKS = {"limits": check_limits, "format": check_format, "unit-tests": check_unit_tests}


def self_test():
    """Each check must name the one offender of its kind in a made-up tree, and pass the tree without it."""
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)

        write(".clang-format", "BasedOnStyle: Google\nColumnLimit: 110\n")
        long_body = "".join(f"  x += {i};\n" for i in range(160))
        write("harness/sim/alu.cc", "// Arithmetic.\nint add(int x) {\n" + long_body + "  return x;\n}\n")
        write("harness/sim/interpreter.cc",
              "// The loop.\nint run_warp_until_stop(int x) {\n" + long_body + "  return x;\n}\n")
        write("grader/cli.cc", "// Commands.\n" + "int f();\n" * 1001)
        write("os/file.cc", "// Files.\nint  badly_spaced( int x ){return x;}\n")
        write("tests/unit/harness/sim/alu_test.cc", "// Its test.\n")
        write(ALLOW_LIST, "# Without a unit test.\nos/file.cc the floor of every test\ngrader/gone.cc removed\n"
              "harness/sim/alu.cc tested\n")
        expected = {
            "limits": ["harness/sim/alu.cc:2: add is 163 lines", "grader/cli.cc:1: 1002 lines"],
            "format": ["os/file.cc:2:"],
            "unit-tests": ["harness/sim/interpreter.cc:1: no unit test: write "
                           "tests/unit/harness/sim/interpreter_test.cc",
                           f"{ALLOW_LIST}:3: grader/gone.cc does not exist",
                           f"{ALLOW_LIST}:4: harness/sim/alu.cc has a unit test now"],
        }
        not_expected = {"limits": ["run_warp_until_stop"], "format": ["alu.cc"], "unit-tests": ["os/file.cc"]}
        failures = []
        for name, wanted in expected.items():
            found = "\n".join(CHECKS[name](root))
            failures += [f"{name} did not report '{w}' in:\n{found}" for w in wanted if w not in found]
            failures += [f"{name} reported '{w}' wrongly in:\n{found}" for w in not_expected[name] if w in found]
        for failure in failures:
            print(failure)
        return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "self-test":
        return self_test()
    if len(argv) != 3 or argv[1] not in CHECKS:
        print(__doc__)
        return 2
    problems = CHECKS[argv[1]](argv[2])
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
