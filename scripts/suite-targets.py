#!/usr/bin/env python3
"""Prints the ninja targets (paths relative to BUILD) that the tests of the given meson suites
need: each test's executable, every target it depends on, and every shared library and
module (odma loads its UCX transport with dlopen, which no test's dependencies show). CI's
stage tsan builds only these (.ci/run), not the whole tree.

    python3 scripts/suite-targets.py BUILD SUITE...
"""
import json
import os
import subprocess
import sys


def introspect(build, what):
    out = subprocess.run(["meson", "introspect", what, build], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: suite-targets.py BUILD SUITE...")
    build, suites = sys.argv[1], set(sys.argv[2:])
    targets = introspect(build, "--targets")
    files = {t["id"]: t["filename"] for t in targets}
    wanted = {t["id"] for t in targets if t["type"] in ("shared library", "shared module")}
    found = False
    for test in introspect(build, "--tests"):
        names = {s.split(":", 1)[-1] for s in test["suite"]}
        if names & suites:
            wanted.update(test["depends"])
            found = True
    if not found:
        sys.exit(f"suite-targets: no test of {' '.join(sorted(suites))} in {build}")
    root = os.path.realpath(build)
    out = set()
    for tid in wanted:
        for f in files.get(tid, []):
            out.add(os.path.relpath(os.path.realpath(f), root))
    print("\n".join(sorted(out)))


if __name__ == "__main__":
    main()
