#!/usr/bin/env python3
"""Resident memory of a long mixed workload of fresh results, and what stays once they die.

    python benchmarks/mixed_rss.py                 # NumPy, filter_indexes, filter_values
    python benchmarks/mixed_rss.py --calls 300     # shorter (the benchmark's quick mode)

Each way runs in a new Python process: `calls` fresh results of 16 Ki to 17 Mi
elements (log-uniform), uint32, int64 and float64 in turn, 0.1% to 99% kept, four
results alive at a time, as a notebook or a service keeps a few answers around. It
prints, in MB above the process's RSS before the first call (its data made): the
peak, the median of a sample every 50 calls, and what is left once every result
has died, with no ``malloc_trim``. simdfilter keeps dead results' memory for
the next calls, up to the pool's limit (``simdfilter.set_result_pool_limit``,
64 MiB by default), printed beside it. RSS does not depend on the machine's load,
so these figures are stable from run to run.

`--json FILE` writes the rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

WAYS = ("numpy", "filter_indexes", "filter_values")


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def _child(way: str, calls: int) -> dict:
    import gc

    import numpy as np

    import simdfilter as sf

    rng = np.random.default_rng(1)
    most = 17_000_000
    data = [rng.integers(0, 2**31 - 1, most).astype(t) for t in (np.uint32, np.int64)]
    data.append(rng.random(most))
    base = _rss_mb()
    alive, samples, peak = [], [], 0.0
    for i in range(calls):
        n = int(16384 * (most / 16384) ** rng.random())
        a = data[i % 3][:n]
        kept = float(rng.choice([0.001, 0.01, 0.5, 0.9, 0.99]))
        lo, hi = (0.0, kept) if a.dtype.kind == "f" else (0, int(kept * (2**31 - 1)))
        if way == "numpy":
            r = np.flatnonzero((a >= lo) & (a <= hi))
        elif way == "filter_indexes":
            r = sf.filter_indexes(a, lo, hi)
        else:
            r = sf.filter_values(a, lo, hi)
        alive.append(r)
        if len(alive) > 4:
            alive.pop(0)
        now = _rss_mb() - base
        peak = max(peak, now)
        if i % 50 == 0:
            samples.append(now)
    alive.clear()
    gc.collect()
    after = _rss_mb() - base
    limit = sf.set_result_pool_limit(1 << 62)  # reads the limit; put back at once
    sf.set_result_pool_limit(limit)
    return dict(
        way=way,
        calls=calls,
        peak_mb=peak,
        median_mb=sorted(samples)[len(samples) // 2],
        after_mb=after,
        pool_limit_mb=None if way == "numpy" else limit / 2**20,
    )


def measure(calls: int = 3000, ways=WAYS) -> list:
    """One new process per way; the rows `_child` returns."""
    rows = []
    for way in ways:
        out = subprocess.run(
            [sys.executable, __file__, "--child", way, "--calls", str(calls)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rows.append(json.loads(out.splitlines()[-1]))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    ap.add_argument("--json")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, args.calls)))
        return
    rows = measure(args.calls)
    for r in rows:
        cap = "" if r["pool_limit_mb"] is None else f" (pool limit {r['pool_limit_mb']:.0f} MB)"
        print(
            f"{r['way']:15s} peak {r['peak_mb']:6.0f} MB  median {r['median_mb']:5.0f} MB  "
            f"after the results died {r['after_mb']:5.0f} MB{cap}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
