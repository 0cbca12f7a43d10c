#!/usr/bin/env python3
# Writes the C table of the version overlay (tools/compat/compat_versions_table.c) from
# data/doca-versions.tsv, so odma compat --min-release carries the data without reading files.
#   scripts/doca-versions-c.py data/doca-versions.tsv > tools/compat/compat_versions_table.c
# The test doca_versions_fresh fails when the table is older than the TSV.
import sys


def c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fn, first, bound, not_before, source = line.rstrip("\n").split("\t")
            rows.append((fn, first, bound, not_before, source))
    rows.sort()
    print("/*")
    print(" * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause")
    print(" *")
    print(" * Generated from data/doca-versions.tsv by scripts/doca-versions-c.py: do not edit.")
    print(" */")
    print('#include "compat_minrel.h"')
    print()
    print("/* clang-format off */")
    print("const struct compat_version_row compat_versions[] = {")
    for fn, first, bound, not_before, source in rows:
        print("\t{ %s, %s, %s, %s,\n\t  %s }," % (c_string(fn), c_string(first),
              c_string(not_before), "true" if bound == "exact" else "false",
              c_string(source)))
    print("};")
    print("/* clang-format on */")
    print()
    print("const size_t compat_nversions = sizeof(compat_versions) / sizeof(compat_versions[0]);")


if __name__ == "__main__":
    main()
