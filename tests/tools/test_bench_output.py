#!/usr/bin/env python3
# Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
#
# odma bench's output a reader sees (issue 29, item 9): the legend of the columns, no empty
# p50/p99 column in throughput mode, the busy-machine warning (forced or kept quiet with
# --busy-threshold, never decided by the clock), and --plot FILE.svg: well-formed XML with
# one polyline per series, the axis labels and the legend. Short runs; no figure is compared.
#
# Usage: test_bench_output.py ODMA-BENCH WORKDIR
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
QUIET = ["--busy-threshold", "1e9"]  # never "busy": the warning is tested on purpose below
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(bench, *args, status=0):
    # a cross build's bench runs through the emulator (MESON_EXE_WRAPPER, tests/meson.build)
    wrap = os.environ.get('MESON_EXE_WRAPPER', '').split()
    p = subprocess.run(wrap + [bench, *args], capture_output=True, text=True, timeout=50)
    if p.returncode != status:
        print(p.stdout, p.stderr)
        raise SystemExit(f"odma-bench {' '.join(args)}: exit {p.returncode}, not {status}")
    return p.stdout, p.stderr


def header_and_rows(out):
    lines = out.splitlines()
    head = [l for l in lines if l.lstrip().startswith("size ")]
    rows = [l for l in lines if l and not l.startswith("#") and not l.lstrip().startswith("size")]
    return head[0] if head else "", rows


def test_text(bench):
    out, err = run(bench, "--size", "4K", "--seconds", "0.05", "--reps", "1", *QUIET)
    head, rows = header_and_rows(out)
    check("# legend:" in out, "throughput: a legend")
    check("x mc = odma GB/s / memcpy GB/s" in out, "legend explains x mc")
    check(re.search(r"x mcN = odma GB/s / mc x\d+", out) is not None, "legend explains x mcN")
    check("above 1: odma moved more" in out, "legend says which way a ratio reads")
    check("p50/p99" not in head, "throughput: no p50/p99 column")
    check(len(rows) == 1 and "0/0" not in rows[0], "throughput: no empty latency cells")
    check(" ".join(head.split()).startswith("size Mtasks/s GB/s memcpy x mc mc x")
          and " ".join(head.split()).endswith("x mcN"), "throughput columns: " + head)
    check(all(re.fullmatch(r"[0-9.]+", v) for v in rows[0].split()[1:7]),
          "a number under every column: " + rows[0])
    check("busy" not in err, "no busy warning above the threshold")
    out, _ = run(bench, "--size", "4K", "--seconds", "0.05", "--reps", "1", "--mode",
                 "latency", *QUIET)
    head, rows = header_and_rows(out)
    check("p50/p99" in head, "latency: the p50/p99 column")
    check("p50/p99 = submit-to-callback" in out, "latency: legend explains p50/p99")
    check("mc x" not in head, "latency: no N-thread memcpy column (not measured)")


def test_json_and_busy(bench):
    import json
    out, err = run(bench, "--size", "4K", "--seconds", "0.05", "--reps", "1", "--json", *QUIET)
    o = json.loads(out)
    check("latency_ns" not in o, "throughput JSON: no latency_ns")
    check(o.get("busy") is False and o.get("busy_threshold_ns") == 1e9, "JSON: busy false")
    out, err = run(bench, "--size", "4K", "--seconds", "0.05", "--reps", "1", "--json",
                   "--busy-threshold", "1")
    o = json.loads(out)
    check(o.get("busy") is True, "JSON: busy true under a 1 ns threshold")
    warn = [l for l in err.splitlines() if "the machine looks busy" in l]
    check(len(warn) == 1 and "--busy-threshold of 1 ns" in warn[0],
          "one warning line naming the threshold")
    _, err = run(bench, "--busy-threshold", "fast", status=2)
    check('--busy-threshold "fast" must be nanoseconds' in err, "bad threshold: one clear line")


def test_plot(bench, workdir):
    svg = os.path.join(workdir, "bench_plot_test.svg")
    if os.path.exists(svg):
        os.remove(svg)
    out, _ = run(bench, "--plot", svg, "--seconds", "0.02", "--reps", "1", *QUIET)
    m = re.search(r"# plot: .* \((\d+) series\)", out)
    check(m is not None, "text says where the plot went")
    series = int(m.group(1)) if m else -1
    root = ET.parse(svg).getroot()  # raises on malformed XML
    check(root.tag == SVG + "svg", "root element is svg")
    lines = list(root.iter(SVG + "polyline"))
    check(len(lines) == series and series >= 3, f"one polyline per series ({len(lines)})")
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    check("copy size, bytes (log scale)" in texts, "x axis label")
    check("GB/s" in texts, "y axis label")
    names = [l.get("data-series") for l in lines]
    for n in ("odma (DOCA DMA tasks)", "memcpy, 1 thread"):
        check(n in names, f"series {n}")
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    check(len(legend) == 1, "a legend")
    if legend:
        ltexts = [t.text for t in legend[0].iter(SVG + "text")]
        check(ltexts == names, "the legend names every series, in order")
    odma = lines[names.index("odma (DOCA DMA tasks)")] if names and names[0] else None
    pts = odma.get("points").split() if odma is not None else []
    check(len(pts) == 12, f"odma: one point per sweep size ({len(pts)})")
    for l in lines:
        for p in l.get("points").split():
            x, y = (float(v) for v in p.split(","))
            if not (80 <= x <= 670.5 and 60 <= y <= 440.5):
                check(False, f"point {p} of {l.get('data-series')} outside the plot area")
                break
    check(any("odma's software DMA" in t for t in texts), "the caption says what was measured")
    check(len(header_and_rows(out)[1]) == 12, "--plot implies --sweep (12 sizes)")
    _, err = run(bench, "--plot", os.path.join(workdir, "no/such/dir/x.svg"), status=2)
    check(len(err.strip().splitlines()) == 1 and "--plot: cannot write" in err,
          "unwritable --plot: one line")
    _, err = run(bench, "--plot", svg, "--comch", status=2)
    check("does not combine with" in err, "--plot with --comch refused")


def test_rdma_plot(bench, workdir):
    """--rdma --plot: the network's picture, six series with a point per size."""
    if os.environ.get('MESON_EXE_WRAPPER'):
        return  # each row forks a UCX process: not under qemu (tests/test_exec.h)
    svg = os.path.join(workdir, "bench_rdma_plot_test.svg")
    if os.path.exists(svg):
        os.remove(svg)
    out, _ = run(bench, "--rdma", "--plot", svg, "--seconds", "0.1", *QUIET)
    check(re.search(r"# plot: .* \(6 series\)", out) is not None, "rdma: where the plot went")
    root = ET.parse(svg).getroot()
    lines = list(root.iter(SVG + "polyline"))
    names = [l.get("data-series") for l in lines]
    check(names == ["odma RDMA read", "odma RDMA write", "raw UCX get", "raw UCX put",
                    "raw TCP stream, one buffer", "raw TCP stream, same slots"],
          f"rdma: the six series ({names})")
    for l in lines:  # a size whose short phase measured nothing on a busy machine has no point
        n = len(l.get("points").split())
        check(1 <= n <= 5, f"rdma: {l.get('data-series')} has a point per measured size ({n})")
    texts = [t.text or "" for t in root.iter(SVG + "text")]
    check(any("Emulated" in t for t in texts), "rdma: the caption says it is emulated")
    check("transfer size, bytes (log scale)" in texts, "rdma: x axis label")
    check(len(header_and_rows(out)[1]) == 5, "rdma --plot: one row per size")


def main():
    if len(sys.argv) != 3:
        print("usage: test_bench_output.py ODMA-BENCH WORKDIR")
        return 77
    bench, workdir = sys.argv[1], sys.argv[2]
    test_text(bench)
    test_json_and_busy(bench)
    test_plot(bench, workdir)
    test_rdma_plot(bench, workdir)
    print("FAILED: %d" % len(failures) if failures else "all checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
