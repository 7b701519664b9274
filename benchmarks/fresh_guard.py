#!/usr/bin/env python3
"""Guard (issue 42): a fresh result must not cost more instructions than `out=` (1.1x at most).

    PYTHONPATH=python python3 benchmarks/fresh_guard.py            # CI runs this (.ci/run)
    PYTHONPATH=python python3 benchmarks/fresh_guard.py --max-ratio 1.2 --sizes 65536

The headline calls, uint32 uniform random data over the whole uint32 range (seed 0), bounds
0..hi holding 1 %, 50 % and 90 % of the range, n = 4 Ki, 64 Ki and 1 Mi, threads=1, the default
kernel under valgrind: `filter_indexes(v, 0, hi)` (fresh) against
`filter_indexes(v, 0, hi, out=buf)` (out=, buf of the fresh result's dtype). Per cell and per
side: a warm-up call, `--calls` measured calls (their mean is reported; it is the same call
each time) and a last call that only ends the interval of the one before. Prints a table and
exits 1 when a cell's fresh / out= is above `--max-ratio`. One valgrind process for all
cells, about 15 s here (numpy's import under valgrind, twice, is most of it). Instructions, not
time: timing stays out of tests (`benchmarks/run.py --sections fresh_ratio` times them).

What a measured call counts: callgrind dumps its counts at each entry of `py_filter_indexes`
(csrc/cpython/module.c, the C function behind `filter_indexes`; `--dump-before`), so one call's
figure is every instruction the process runs from that entry to the next one: argument
parsing, bounds, the driver and kernel, making the result object (the pool, any staging
copy), the return to Python, then `del r`: the result dying (its dealloc, the buffer's way
back to the pool or to free()), and the driver's few bytecodes up to the next call, the same
on both sides (about 2,000 instructions, under 2 % of an out= call at 64 Ki). For out=,
`del r` drops a view of `buf`.

What it does not count: the kernel's side of memory, which callgrind cannot see: page faults
(the OS mapping and zeroing the pages a fresh buffer touches first), mmap/munmap/madvise;
nor cache misses, memory bandwidth or cycles (an instruction is not a cycle). glibc's large
memcpy is `rep movsb`, which valgrind counts once per byte: a copy of the answer weighs more
here than in time, so this flags copies loudly. Valgrind hides AVX-512: the kernel is avx2
at most (printed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from callgrind_kernel import callgrind, part_totals, valgrind_kernels  # benchmarks/, beside


def child(args):
    """The driver run under callgrind: every call of filter_indexes, in order, recorded in
    args.log as (n, sel, side, role); also checks fresh against out=."""
    import gc

    import numpy as np
    import simdfilter as sf

    fi = sf.filter_indexes
    gc.disable()  # no collection inside a measured interval
    rng = np.random.default_rng(0)
    log, bad = [], []
    calls = args.calls
    for n in args.sizes:
        v = rng.integers(0, 1 << 32, n, dtype=np.uint32)
        for sel in args.sels:
            hi = round(sel * (1 << 32)) - 1
            # The interval of call i ends at call i + 1's entry: calls 1..`calls` run the same
            # bytecodes in between (return, `del r`, the loop), the warm-up's and the last
            # one's do not and are dropped.
            for i in range(calls + 2):
                r = fi(v, 0, hi, threads=1)
                if i <= calls:
                    del r
            fresh = r
            log += [(n, sel, "fresh", i) for i in range(calls + 2)]
            buf = np.empty(n, fresh.dtype)
            for i in range(calls + 2):
                r = fi(v, 0, hi, out=buf, threads=1)
                if i <= calls:
                    del r
            log += [(n, sel, "out", i) for i in range(calls + 2)]
            if not np.array_equal(fresh, r) or fresh.dtype != r.dtype:
                bad.append((n, sel))
            del fresh, r, buf
    with open(args.log, "w") as f:
        json.dump(dict(calls=log, bad=bad, kernel=sf.active_kernel(), file=sf.__file__), f)


def measure(sizes, sels, calls):
    """{(n, sel): {"fresh": mean instructions, "out": ...}}, kernel, simdfilter's file."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "calls.json")
        text = callgrind(
            [__file__, "--child", "--log", log, "--calls", str(calls)]
            + ["--sizes", ",".join(map(str, sizes)), "--sels", ",".join(map(str, sels))],
            "--dump-before=py_filter_indexes",
            "--combine-dumps=yes",
        )
        with open(log) as f:
            info = json.load(f)
    if info["bad"]:
        sys.exit(f"fresh and out= answers differ at (n, sel) = {info['bad']}")
    totals = part_totals(text)
    # Part 1 runs up to the first call; part i + 1 is call i's interval.
    if len(totals) != len(info["calls"]) + 1:
        sys.exit(
            f"callgrind made {len(totals)} dumps for {len(info['calls'])} calls: is "
            f"py_filter_indexes a symbol of {info['file']} (a build stripped of its symbols)?"
        )
    cells = {}
    for (n, sel, side, i), ir in zip(info["calls"], totals[1:]):
        if 1 <= i <= calls:
            cells.setdefault((n, sel), {}).setdefault(side, []).append(ir)
    means = {k: {s: sum(v) / len(v) for s, v in d.items()} for k, d in cells.items()}
    return means, info["kernel"], info["file"]


def floats(text):
    return [float(x) for x in text.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--max-ratio", type=float, default=1.1, help="fail above this fresh / out= (default 1.1)"
    )
    p.add_argument(
        "--sizes", type=lambda s: [int(x) for x in floats(s)], default=[4096, 65536, 1 << 20]
    )
    p.add_argument(
        "--sels",
        type=floats,
        default=[0.01, 0.49, 0.5, 0.9],
        help="fractions in range (49 %% and 50 %%: a copy made only below half a buffer shows)",
    )
    p.add_argument("--calls", type=int, default=3, help="measured calls per cell and side")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--log", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    valgrind_kernels()  # a clear message when valgrind cannot run simdfilter
    means, kernel, file = measure(args.sizes, args.sels, args.calls)
    print(
        f"fresh result against out=: instructions per call under callgrind, uint32, threads=1, "
        f"kernel {kernel}; {file}"
    )
    print(f"{'n':>9} {'sel':>5} {'fresh':>12} {'out=':>12} {'fresh/out=':>10}")
    failed = []
    for (n, sel), m in means.items():
        ratio = m["fresh"] / m["out"]
        flag = "" if ratio <= args.max_ratio else f"  FAIL (> {args.max_ratio})"
        if flag:
            failed.append((n, sel))
        print(
            f"{n:>9,} {sel * 100:>4g}% {m['fresh']:>12,.0f} {m['out']:>12,.0f} {ratio:>10.2f}{flag}"
        )
    if failed:
        print(
            f"fresh results cost more than {args.max_ratio}x out= in {len(failed)} of "
            f"{len(means)} cells (issue 42)"
        )
        return 1
    print(f"every cell within {args.max_ratio}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
