"""pl.col(c).sf.between through the plugin, through map_batches, and Polars' is_between.

A three-column filter of `--rows` rows (int64, float64, int32), 1 % of rows kept
(each column's range keeps about 21.5 %), as a LazyFrame under the default engine
and the streaming engine, and eagerly on a DataFrame. Best and median of `--repeats`
rounds, each round running every variant once (interleaved), wall time and CPU time
of the process; ratios are is_between's time / ours (>1: ours faster), from one run.
The map_batches path is built with SIMDFILTER_POLARS_PLUGIN=0.
"""

import argparse
import os
import statistics
import time

import numpy as np
import polars as pl

import simdfilter.polars  # noqa: F401


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args()
    rng = np.random.default_rng(42)
    n = args.rows
    df = pl.DataFrame(
        {
            "a": rng.integers(0, 1_000_000, n),
            "b": rng.random(n),
            "c": rng.integers(0, 1_000_000, n).astype(np.int32),
        }
    )
    k = 0.2154  # 0.2154 ** 3 ~ 1 %
    ranges = {"a": (0, int(k * 1_000_000)), "b": (0.0, k), "c": (100, 100 + int(k * 1_000_000))}

    def expr(kind):
        e = None
        for c, (lo, hi) in ranges.items():
            x = (
                pl.col(c).is_between(lo, hi)
                if kind == "is_between"
                else pl.col(c).sf.between(lo, hi)
            )
            e = x if e is None else e & x
        return e

    exprs = {"is_between": expr("is_between"), "plugin": expr("plugin")}
    os.environ["SIMDFILTER_POLARS_PLUGIN"] = "0"
    exprs["map_batches"] = expr("udf")
    del os.environ["SIMDFILTER_POLARS_PLUGIN"]
    assert "python_udf" in pl.LazyFrame(df).filter(exprs["map_batches"]).explain()
    assert "sf_between" in pl.LazyFrame(df).filter(exprs["plugin"]).explain()
    lf = df.lazy()
    modes = {
        "lazy default": lambda e: lf.filter(e).collect(),
        "lazy streaming": lambda e: lf.filter(e).collect(engine="streaming"),
        "eager": lambda e: df.filter(e),
    }
    want = df.filter(exprs["is_between"]).height
    times = {(m, v): ([], []) for m in modes for v in exprs}
    for _ in range(args.repeats):
        for m, run in modes.items():
            for v, e in exprs.items():
                w0, c0 = time.perf_counter(), time.process_time()
                got = run(e)
                w1, c1 = time.perf_counter(), time.process_time()
                assert got.height == want, (m, v, got.height, want)
                times[(m, v)][0].append(w1 - w0)
                times[(m, v)][1].append(c1 - c0)
    print(f"{n:,} rows, 3 columns, {want / n:.2%} kept; best / median of {args.repeats}, ms")
    print(
        f"{'mode':16} {'variant':12} {'wall best':>9} {'wall med':>9} {'cpu med':>8} {'is_between/ours (wall med)':>27}"
    )
    for m in modes:
        ref = statistics.median(times[(m, "is_between")][0])
        for v in exprs:
            w, c = times[(m, v)]
            med = statistics.median(w)
            print(
                f"{m:16} {v:12} {min(w) * 1e3:9.1f} {med * 1e3:9.1f} {statistics.median(c) * 1e3:8.1f} {ref / med:27.2f}"
            )


if __name__ == "__main__":
    main()
