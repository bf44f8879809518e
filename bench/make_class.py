#!/usr/bin/env python3
"""Makes a synthetic class for `gpugrade batch`: OUT/<student>/exercises/<id>/<file> for N students and every
exercise of the course, mixing shipped solutions, mutants, untouched stubs, and hostile files (a kernel that
never ends, a compile error, a file over the size limit, a symbolic link). Every file starts with a comment
naming its student, so no two students hand in the same bytes and nothing is graded once for many.

usage: python3 bench/make_class.py OUT [--students 200] [--course .] [--seed 1]
"""
import argparse
import os
import random
import re
import sys


def kernel_file(exercise_dir):
    with open(os.path.join(exercise_dir, "exercise.yaml")) as f:
        for line in f:
            m = re.match(r"\s+file:\s*(\S+)", line)
            if m:
                return m.group(1)
    sys.exit(f"no kernel file in {exercise_dir}/exercise.yaml")


def with_body_prefix(text, statement):
    """The kernel with `statement` as the first statement of its body."""
    at = text.find("__global__")
    brace = text.find("{", at)
    return text[: brace + 1] + "\n  " + statement + "\n" + text[brace + 1 :]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--course", default=".")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--exercise", action="append",
                        help="only this exercise (repeat it); default every exercise of the course")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    exercises = sorted(d for d in os.listdir(os.path.join(args.course, "exercises"))
                       if os.path.isfile(os.path.join(args.course, "exercises", d, "exercise.yaml"))
                       and (not args.exercise or d in args.exercise))
    kinds = {}
    for s in range(args.students):
        student = f"s{s:03d}"
        for ex in exercises:
            file = kernel_file(os.path.join(args.course, "exercises", ex))
            solution = open(os.path.join(args.course, "solutions", ex, file)).read()
            mutants_dir = os.path.join(args.course, "solutions", ex, "mutants")
            mutants = sorted(m for m in os.listdir(mutants_dir) if m.endswith(".cu"))
            dest_dir = os.path.join(args.out, student, "exercises", ex)
            os.makedirs(dest_dir, exist_ok=True)
            dest = os.path.join(dest_dir, file)
            roll = rng.random()
            header = f"// {student}'s {ex}\n"
            if roll < 0.50:
                kind, text = "solution", solution
            elif roll < 0.75:
                m = rng.choice(mutants)
                kind, text = "mutant " + m, open(os.path.join(mutants_dir, m)).read()
            elif roll < 0.85:
                kind, text = "stub", open(os.path.join(args.course, "exercises", ex, file)).read()
            elif roll < 0.88:
                kind, text = "missing", None
            elif roll < 0.91:
                kind, text = "endless loop", with_body_prefix(solution, "for (;;) {}")
            elif roll < 0.94:
                kind, text = "compile error", with_body_prefix(solution, "int broken = no_such_name;")
            elif roll < 0.97:
                kind, text = "huge file", solution + ("// padding\n" * 200000)
            else:
                kind, text = "symlink", None
                os.symlink("/etc/passwd", dest)
            if text is not None:
                with open(dest, "w") as f:
                    f.write(header + text)
            kinds[kind.split(" ")[0]] = kinds.get(kind.split(" ")[0], 0) + 1
    total = args.students * len(exercises)
    print(f"{args.students} students x {len(exercises)} exercises = {total} files in {args.out}: " +
          ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))


if __name__ == "__main__":
    main()
