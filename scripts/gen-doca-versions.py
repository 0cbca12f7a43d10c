#!/usr/bin/env python3
# Builds data/doca-versions.tsv, the version overlay: for every function odma's public headers
# declare, the first DOCA release known to have it, and where that is known from.
#
#   scripts/gen-doca-versions.py [--samples GITDIR] [--apiref GITDIR] > data/doca-versions.tsv
#
# Evidence, from strongest to weakest (docs/user-guide.md, "DOCA releases"):
#   * data/doca-versions-docs.tsv: facts read in NVIDIA's public DOCA documentation of older
#     releases (a release that has the function, or one that does not);
#   * NVIDIA's doca-samples repository (GITDIR, default /work/.mirror/NVIDIA-DOCA+doca-samples/
#     repo): the first release commit whose samples or applications call the function. Its
#     history starts at 2.9, so "first called in 2.9" only says "2.9 or older";
#   * the DOCA 3.0.0058 API reference (a Doxygen rendering of the 3.0 headers, GITDIR default
#     /work/.mirror/stolyarchuk+doca-docs/repo): present there means present in 3.0; absent
#     there while a later samples release calls it means "new after 3.0".
# Nothing is copied from those sources but function names and release numbers.
#
# Output columns (tab-separated): function, first, bound, not_before, source
#   first       the oldest release known to have the function, or "unknown"
#   bound       "exact" when the release before `first` is known not to have it, else "at-most"
#               (the function may be older) or "unknown"
#   not_before  the oldest release the function can be in ("-" when nothing says)
#   source      the evidence for both, in words
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

RELEASES = ["1.5", "2.0", "2.2", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "3.0", "3.1",
            "3.2", "3.3"]
# The doca-samples release commits, oldest first (git log of NVIDIA-DOCA/doca-samples).
SAMPLE_RELEASES = [("2.9", "050cb21", "2.9.0072"), ("2.10", "6dc892d", "2.10.0087"),
                   ("3.0", "6590dfd", "3.0.0058"), ("3.1", "1038d1d", "3.1.0105"),
                   ("3.2", "b01b95b", "3.2.0118"), ("3.3", "fd03ddf", "3.3.0")]
APIREF = "the DOCA 3.0.0058 API reference (github.com/stolyarchuk/doca-docs)"
CALL = re.compile(r"\b(doca_[a-z0-9_]+)\s*\(")


def rank(r):
    return RELEASES.index(r)


def header_functions(src):
    """Every function include/ declares (extern or static inline), via gcc -aux-info."""
    with tempfile.TemporaryDirectory() as tmp:
        allc = os.path.join(tmp, "all.c")
        with open(allc, "w") as f:
            for h in sorted(os.listdir(os.path.join(src, "include"))):
                if h.endswith(".h"):
                    f.write('#include "%s"\n' % os.path.join(src, "include", h))
        aux = os.path.join(tmp, "aux.txt")
        subprocess.run(["gcc", "-std=c11", "-DDOCA_ALLOW_EXPERIMENTAL_API",
                        "-DDOCA_ALLOW_DEPRECATED_API", "-I" + os.path.join(src, "include"),
                        "-fsyntax-only", "-aux-info", aux, allc], check=True)
        names = set()
        row = re.compile(r"include/doca_[a-z_]*\.h:[0-9]+:N[CF] \*/.*?([a-z0-9_]+) \(")
        with open(aux) as f:
            for line in f:
                m = row.search(line)
                if m and m.group(1).startswith("doca_"):
                    names.add(m.group(1))
    return sorted(names)


def samples_calls(gitdir):
    """{release: set of doca_* names called in that samples release}."""
    out = {}
    for rel, commit, _ in SAMPLE_RELEASES:
        text = subprocess.run(["git", "--git-dir", gitdir, "grep", "-h", "-E",
                               r"doca_[a-z0-9_]+[[:space:]]*\(", commit, "--", "*.c", "*.h",
                               "*.cpp", "*.hpp"], capture_output=True, text=True).stdout
        out[rel] = set(CALL.findall(text))
    return out


def apiref_names(gitdir):
    text = subprocess.run(["git", "--git-dir", gitdir, "grep", "-h", "-o", "-E",
                           r"\bdoca_[a-z0-9_]+", "HEAD", "--", "docs/*_8h_source.html"],
                          capture_output=True, text=True).stdout
    return set(text.split())


def docs_facts(path):
    facts = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            pat, kind, rel, src = line.rstrip("\n").split("\t")
            assert kind in ("upper", "lower") and rel in RELEASES, line
            facts.append((pat, kind, rel, src))
    return facts


def overlay_row(fn, calls, apiref, facts):
    uppers, lowers = [], []  # (release, why)
    for rel, commit, full in SAMPLE_RELEASES:
        if fn in calls[rel]:
            why = "doca-samples %s (%s) calls it" % (full, commit)
            if rel == SAMPLE_RELEASES[0][0]:
                why += " (the oldest release in that repository)"
            uppers.append((rel, why))
            break
    if fn in apiref:
        uppers.append(("3.0", "in " + APIREF))
    elif uppers and rank(uppers[0][0]) > rank("3.0"):
        lowers.append(("3.1", "absent from " + APIREF))
    for pat, kind, rel, src in facts:
        if fnmatch.fnmatchcase(fn, pat):
            (uppers if kind == "upper" else lowers).append((rel, src))
    if not uppers:
        return [fn, "unknown", "unknown", "-",
                "neither doca-samples 2.9-3.3 nor %s nor the DOCA docs read name it" % APIREF]
    first = min(uppers, key=lambda u: rank(u[0]))
    low = max(lowers, key=lambda l: rank(l[0])) if lowers else None
    if low is not None and rank(low[0]) > rank(first[0]):
        sys.exit("%s: the sources disagree (%s > %s)" % (fn, low, first))
    bound = "exact" if low is not None and low[0] == first[0] else "at-most"
    why = "present in %s: %s" % (first[0], first[1])
    if low is not None:
        why += "; not before %s: %s" % (low[0], low[1])
    return [fn, first[0], bound, low[0] if low else "-", why]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.dirname(here))
    ap.add_argument("--samples", default="/work/.mirror/NVIDIA-DOCA+doca-samples/repo")
    ap.add_argument("--apiref", default="/work/.mirror/stolyarchuk+doca-docs/repo")
    a = ap.parse_args()
    calls = samples_calls(a.samples)
    apiref = apiref_names(a.apiref)
    facts = docs_facts(os.path.join(a.src, "data", "doca-versions-docs.tsv"))
    print("# odma's DOCA version overlay: the first DOCA release known to have each public")
    print("# function. Generated by scripts/gen-doca-versions.py; see docs/user-guide.md,")
    print("# \"DOCA releases\". Columns: function, first, bound, not_before, source.")
    for fn in header_functions(a.src):
        print("\t".join(overlay_row(fn, calls, apiref, facts)))


if __name__ == "__main__":
    main()
