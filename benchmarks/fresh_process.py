#!/usr/bin/env python3
"""Fresh results in a fresh process: what a script or a notebook cell pays.

    python benchmarks/fresh_process.py                      # the default grid, THP as it is
    python benchmarks/fresh_process.py --thp never,madvise,always   # root: each THP mode in turn
    python benchmarks/fresh_process.py --sizes 65536,1048576 --sels 50,90 --ops indexes

Each cell (THP mode, op, n, selectivity) runs in a new Python process, which makes its
uint32 array (uniform in [0, 2^30)) and then, in this order:

1. `calls` calls with fresh results (the first calls of the process: `filter_indexes(a, lo, hi)`);
2. `calls` calls into `out=` (a reused, already written array: the kernel without allocation);
3. `calls` calls of NumPy: `np.flatnonzero((a>=lo)&(a<=hi))` or `a[(a>=lo)&(a<=hi)]`.

It prints microseconds per call (mean over the calls, first included), fresh/out and
NumPy/fresh, and the minor page faults per call of each phase (getrusage ru_minflt): faults
do not depend on the load of the machine, so they are the noise-free evidence of what a
fresh result costs. `--thp` writes /sys/kernel/mm/transparent_hugepage/enabled (root only)
and puts the original value back at the end. `--json FILE` writes the rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

THP = "/sys/kernel/mm/transparent_hugepage/enabled"
DEFAULT_SIZES = [1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26]
DEFAULT_SELS = [1, 10, 50, 90, 99]

CHILD = r"""
import json, resource, sys, time
import numpy as np
import simdfilter as sf
op, n, sel, calls, threads = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
threads = None if threads == "auto" else int(threads)
a = np.random.default_rng(1).integers(0, 1 << 30, n, dtype=np.uint32)
width = int((1 << 30) * sel / 100)
lo = (1 << 29) - width // 2
hi = lo + width - 1
f = sf.filter_indexes if op == "indexes" else sf.filter_values
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def phase(call):
    f0, c0, t0 = faults(), time.process_time(), time.perf_counter()
    r = None
    for _ in range(calls):
        r = call()
    t1, c1, f1 = time.perf_counter(), time.process_time(), faults()
    # CPU time (page faults included) on one thread, wall time with threads
    spent = c1 - c0 if threads == 1 else t1 - t0
    return spent / calls * 1e6, (f1 - f0) / calls, r
fresh = phase(lambda: f(a, lo, hi, threads=threads))
out = np.empty(n, dtype=fresh[2].dtype)
out.fill(1)
outp = phase(lambda: f(a, lo, hi, out=out, threads=threads))
if op == "indexes":
    nump = phase(lambda: np.flatnonzero((a >= lo) & (a <= hi)))
    same = np.array_equal(nump[2], fresh[2])
else:
    nump = phase(lambda: a[(a >= lo) & (a <= hi)])
    same = np.array_equal(nump[2], fresh[2])
assert same and np.array_equal(outp[2], fresh[2]), "results differ"
print(json.dumps({"fresh_us": fresh[0], "fresh_flt": fresh[1], "out_us": outp[0],
                  "out_flt": outp[1], "numpy_us": nump[0], "numpy_flt": nump[1],
                  "kept": int(fresh[2].size), "kernel": sf.default_kernel()}))
"""


def run_cell(python: str, op: str, n: int, sel: float, calls: int, threads: str) -> dict:
    out = subprocess.run(
        [python, "-c", CHILD, op, str(n), str(sel), str(calls), threads],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def read_thp() -> str | None:
    try:
        with open(THP) as fh:
            text = fh.read()
    except OSError:
        return None
    return text[text.index("[") + 1 : text.index("]")]


def write_thp(mode: str) -> None:
    with open(THP, "w") as fh:
        fh.write(mode)


def fresh_process_rows(
    python: str,
    sizes: list[int],
    sels: list[float],
    ops: list[str],
    thp_modes: list[str | None],
    calls: int = 30,
    threads: str = "1",
    echo=print,
) -> list[dict]:
    """Every cell in a fresh process; each THP mode set in turn and the original put back."""
    original, wrote = read_thp(), False
    rows = []
    try:
        for mode in thp_modes:
            if mode is not None and mode != read_thp():
                write_thp(mode)
                wrote = True
            thp = read_thp() or "?"
            for op in ops:
                for n in sizes:
                    for sel in sels:
                        r = run_cell(python, op, n, sel, calls, threads)
                        r.update(thp=thp, op=op, n=n, sel=sel)
                        rows.append(r)
                        echo(format_row(r))
    finally:
        if wrote and original is not None and read_thp() != original:
            write_thp(original)  # only what this call changed: another may have set it since
    return rows


HEADER = (
    f"{'THP':8} {'op':7} {'n':>9} {'sel%':>5} | {'fresh us':>9} {'out= us':>9} "
    f"{'numpy us':>9} | {'fresh/out':>9} {'numpy/fresh':>11} | "
    f"{'faults/call fresh, out=, numpy':>30}"
)


def format_row(r: dict) -> str:
    return (
        f"{r['thp']:8} {r['op']:7} {r['n']:>9} {r['sel']:>5g} | {r['fresh_us']:9.1f} "
        f"{r['out_us']:9.1f} {r['numpy_us']:9.1f} | {r['fresh_us'] / r['out_us']:9.2f} "
        f"{r['numpy_us'] / r['fresh_us']:11.2f} | "
        f"{r['fresh_flt']:10.1f} {r['out_flt']:8.1f} {r['numpy_flt']:10.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default=",".join(map(str, DEFAULT_SIZES)))
    p.add_argument("--sels", default=",".join(map(str, DEFAULT_SELS)))
    p.add_argument("--ops", default="indexes,values")
    p.add_argument("--thp", default="", help="THP modes to set in turn (root), e.g. never,always")
    p.add_argument("--calls", type=int, default=30)
    p.add_argument(
        "--threads",
        default="1",
        help="1 (the default: CPU time, steady on a loaded machine) or auto (threads=None, wall time)",
    )
    p.add_argument("--python", default=sys.executable, help="the interpreter of the children")
    p.add_argument("--json", default=None, help="write the rows to this file")
    a = p.parse_args(argv)
    modes = [m for m in a.thp.split(",") if m] or [None]
    if any(modes) and not os.access(THP, os.W_OK):
        p.error(f"--thp needs write access to {THP}")
    print(
        f"fresh process, uint32, {a.calls} calls a phase, threads={a.threads}; load {os.getloadavg()}"
    )
    print(HEADER)
    t0 = time.time()
    rows = fresh_process_rows(
        a.python,
        [int(s) for s in a.sizes.split(",")],
        [float(s) for s in a.sels.split(",")],
        a.ops.split(","),
        modes,
        a.calls,
        a.threads,
    )
    print(f"{len(rows)} cells in {time.time() - t0:.0f} s; load {os.getloadavg()}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
