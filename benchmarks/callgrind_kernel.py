#!/usr/bin/env python3
"""Instruction counts per element of one filter_indexes call, per kernel, under callgrind.

Wall-clock timings on a shared 2-core machine move by 10-30 % from run to run; instruction
counts do not. Use this to compare two versions of a kernel, not to compare kernels with
NumPy (instructions are not cycles: a compress or a cache miss costs more than an add).

    PYTHONPATH=python python3 benchmarks/callgrind_kernel.py              # 1 Mi uint32, 50 %
    PYTHONPATH=python python3 benchmarks/callgrind_kernel.py --n 65536 --sel 0.01 --dtype int16

Needs valgrind. Valgrind does not emulate AVX-512 and hides it from CPUID, so under it the
dispatcher offers scalar, sse41 and avx2 at most; avx512 cannot be counted this way.
Only the C call tree below `sf_execute` is counted (the kernel and the driver, not
argument parsing or the result allocation). Each kernel runs in its own valgrind process
(about 15 s in all at the default size).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile


def child(args):
    import numpy as np
    from bench.data import (
        dtype_data,
    )  # benchmarks/bench, next to this file; also puts simdfilter on the path
    import simdfilter as sf

    a = dtype_data(args.dtype, args.n, np.random.default_rng(0))
    s = np.sort(a)
    k = int(args.sel * args.n)
    lo, hi = (s[(args.n - k) // 2], s[(args.n - k) // 2 + k - 1]) if k else (s[-1] + 1, s[-1] + 1)
    with sf.use_kernel(args.kernel):
        sf.filter_indexes(a, lo, hi, threads=1)


def valgrind_kernels():
    """The kernels simdfilter offers under valgrind (no AVX-512 there); exits with valgrind's
    message when valgrind cannot run this Python and simdfilter."""
    probe = subprocess.run(
        [
            "valgrind",
            "--tool=none",
            "-q",
            sys.executable,
            "-c",
            "import simdfilter; print(*simdfilter.available_kernels())",
        ],
        capture_output=True,
        text=True,
    )
    if probe.returncode:
        sys.exit(f"valgrind could not run simdfilter:\n{probe.stderr}")
    return probe.stdout.split()


def callgrind(args, *options):
    """The text of the output file of `valgrind --tool=callgrind <options> python <args>`
    (this interpreter, sys.executable, not a shim that would exec it out of valgrind's sight);
    with --combine-dumps=yes it holds every dump, each a `part:`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "-q", *options, f"--callgrind-out-file={out}"]
            + [sys.executable, *args],
            check=True,
        )
        with open(out) as f:
            return f.read()


def part_totals(text):
    """The instruction total of each dump (`part:`) of a callgrind output file, in order."""
    parts = re.split(r"^part:.*$", text, flags=re.M)[1:] or [text]
    return [int(re.search(r"^(?:summary|totals):\s+(\d+)", p, re.M).group(1)) for p in parts]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=1 << 20)
    p.add_argument("--sel", type=float, default=0.5)
    p.add_argument("--dtype", default="uint32")
    p.add_argument("--kernel", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.kernel:
        return child(args)
    kernels = valgrind_kernels()
    print(f"{args.dtype}, n = {args.n:,}, {args.sel:.1%} in range; instructions below sf_execute")
    for kernel in kernels:
        text = callgrind(
            [__file__, "--kernel", kernel, "--n", str(args.n), "--sel", str(args.sel)]
            + ["--dtype", args.dtype],
            "--toggle-collect=sf_execute",
        )
        (ir,) = part_totals(text)
        print(f"  {kernel:8s} {ir:>14,} instructions  {ir / args.n:6.3f} per element")


if __name__ == "__main__":
    main()
