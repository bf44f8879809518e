#!/usr/bin/env python3
"""Reads a GPUGRADE_TRACE file (harness/trace.h) and prints where the time went: each line's gap since the
previous line of any process, charged to the later line's phase, then the total per phase, largest first.

usage: GPUGRADE_TRACE=/tmp/t gpugrade grade ...; python3 bench/trace_summary.py /tmp/t [--lines]
"""
import re
import sys
from collections import defaultdict


def phase(what):
    # "grade: launched, gpu 32x8 rows=33 cols=31" -> "grade: launched, gpu"; the run's labels vary, the
    # phase does not.
    head, _, rest = what.partition(", ")
    return head + (", " + rest.split(" ")[0] if rest else "")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    events = []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and re.fullmatch(r"[0-9.]+", parts[0]):
                events.append((float(parts[0]), parts[1], parts[2]))
    events.sort(key=lambda e: e[0])
    if not events:
        sys.exit("no trace lines in " + sys.argv[1])
    totals, counts = defaultdict(float), defaultdict(int)
    for (t0, _, _), (t1, pid, what) in zip(events, events[1:]):
        if "--lines" in sys.argv:
            print(f"{t1 - events[0][0]:8.3f} s  +{(t1 - t0) * 1000:8.1f} ms  {pid:>7}  {what}")
        totals[phase(what)] += t1 - t0
        counts[phase(what)] += 1
    print(f"{events[-1][0] - events[0][0]:.3f} s from the first line to the last, {len(events)} lines")
    for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        print(f"{seconds * 1000:9.1f} ms  {counts[name]:4d}x  {name}")


if __name__ == "__main__":
    main()
