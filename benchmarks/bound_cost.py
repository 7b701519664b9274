#!/usr/bin/env python3
"""The call cost of each bound type (benchmarks/bench/sections/bound_types.py's cases) in two
checkouts side by side: wall-clock, interleaved, and instructions under callgrind.

    python3 benchmarks/bound_cost.py --old /path/to/old/python --new python
    python3 benchmarks/bound_cost.py --old ... --new python --callgrind

Each version runs in its own interpreter (PYTHONPATH=its python/ directory); the rounds
alternate old, new, new, old... and each number is the best of all rounds. Instruction
counts are those of filter_indexes' C entry point and everything below it (the Python bound
path included, when a bound goes there), per call, averaged over --calls calls: on a shared
machine they move by well under 1 % where wall-clock moves by 10-30 %.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(args):
    sys.path.insert(0, HERE)
    from bench.sections.bound_types import cases  # the cases of the benchmark section
    import simdfilter as sf

    out, todo = {}, []
    for name, values, lo, hi in cases():
        try:  # the warm-up: first-call costs (imports, caches) are no call's cost
            sf.filter_indexes(values, lo, hi)
        except Exception as exc:  # an old checkout may refuse a bound type
            out[name] = f"error: {type(exc).__name__}"
            continue
        todo.append((name, values, lo, hi))
    if args.count_calls:  # callgrind: each count_in_range call ends a dump
        sf.count_in_range(todo[0][1], None, None)
        for name, values, lo, hi in todo:
            for _ in range(args.count_calls):
                sf.filter_indexes(values, lo, hi)
            sf.count_in_range(values, None, None)
            out[name] = 0
        print(json.dumps(out))
        return
    for name, values, lo, hi in todo:
        best = float("inf")
        for _ in range(args.batches):
            t0 = time.perf_counter()
            for _ in range(args.loops):
                sf.filter_indexes(values, lo, hi)
            best = min(best, (time.perf_counter() - t0) / args.loops)
        out[name] = best * 1e6
    print(json.dumps(out))


def run_child(pythonpath, extra, prefix=()):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(pythonpath))
    cmd = [*prefix, sys.executable, os.path.abspath(__file__), "--child", *extra]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def callgrind(pythonpath, calls):
    """{case: instructions per call}, from one valgrind run: a dump before each marker."""
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "cg.out")
        prefix = [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={base}",
            "--toggle-collect=py_filter_indexes",
            "--dump-before=py_count_in_range",
        ]
        names = run_child(pythonpath, ["--count-calls", str(calls)], prefix)
        # The first dump holds the warm-ups.
        dumps = sorted(glob.glob(base + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))[1:]
        totals = []
        for path in dumps:
            with open(path) as f:
                m = re.search(r"^(?:summary|totals):\s*(\d+)", f.read(), re.M)
            totals.append(int(m.group(1)) if m else 0)
    ok = [n for n, v in names.items() if not isinstance(v, str)]
    return {
        **{n: v for n, v in names.items() if isinstance(v, str)},
        **{n: t / calls for n, t in zip(ok, totals)},
    }


def table(title, old, new, unit, base):
    print(f"\n{title}")
    w = max(len(n) for n in new)
    print(f"{'bound, data':<{w}}  {'old':>10}  {'new':>10}  {'new/old':>7}  {'new added':>10}")
    for n in new:
        o, v = old.get(n, "-"), new[n]
        fmt = lambda x: (
            f"{x:10.{0 if unit == 'Ir' else 3}f}" if not isinstance(x, str) else f"{x:>10}"
        )
        ratio = f"{v / o:7.2f}" if not isinstance(o, str) and not isinstance(v, str) else f"{'':>7}"
        added = fmt(v - new[base]) if not isinstance(v, str) else ""
        print(f"{n:<{w}}  {fmt(o)}  {fmt(v)}  {ratio}  {added}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--count-calls", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--old", help="the old checkout's python/ directory")
    p.add_argument("--new", default=os.path.join(HERE, "..", "python"))
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--loops", type=int, default=2000)
    p.add_argument("--batches", type=int, default=5)
    p.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    p.add_argument("--calls", type=int, default=200, help="calls per case under callgrind")
    args = p.parse_args()
    if args.child:
        return child(args)
    versions = {"old": args.old, "new": args.new} if args.old else {"new": args.new}
    best = {v: {} for v in versions}
    for r in range(args.rounds):
        for v in list(versions) if r % 2 == 0 else list(versions)[::-1]:
            got = run_child(
                versions[v], ["--loops", str(args.loops), "--batches", str(args.batches)]
            )
            for n, us in got.items():
                prev = best[v].get(n)
                best[v][n] = us if isinstance(us, str) or prev is None else min(prev, us)
    base = "int bound, int64 data"
    if args.rounds:
        table(
            "WALL CLOCK - us per filter_indexes call, n=16 (best of all rounds; a loaded machine moves these)",
            best.get("old", {}),
            best["new"],
            "us",
            base,
        )
    if args.callgrind:
        ir = {v: callgrind(path, args.calls) for v, path in versions.items()}
        table(
            "INSTRUCTIONS - per filter_indexes call, n=16 (callgrind, filter_indexes and below)",
            ir.get("old", {}),
            ir["new"],
            "Ir",
            base,
        )


if __name__ == "__main__":
    sys.exit(main())
