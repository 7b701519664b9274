"""Skipping: answers that read less than the whole column (issue 32 items 3 and 4).

- sorted: ``skip_sorted_n`` sorted datetime64[ns] timestamps (50 M in the default mode),
  a window of 5,000 rows: ``assume_sorted=True`` (binary search, then the 5,000 rows)
  against the scan (target >= 100x), beside NumPy's own ``np.searchsorted``.
- zonemap: ``skip_zone_n`` float64 values (20 M in the default mode), a 0.1% window:
  ``ZoneMap`` queries against the scan, on clustered data (sorted plus normal noise of
  sigma 0.1% of the range: target >= 10x) and on uniform random data (every block
  meets the range: target <= 1.1x the scan's time), and the map's build against one scan.

Each case's methods are interleaved batch by batch (bench.timing.measure), in one
process, so a load from other processes falls on all of them alike: the ratios are the
point. Every result is checked against the scan's before it is timed.
"""

import numpy as np
import simdfilter as sf

from ..methods import Method
from ..report import fmt_n, print_table
from ..timing import measure

TARGETS = {"sorted": 100.0, "clustered": 10.0, "uniform": 1 / 1.1}
WINDOW = 5_000


def _check(want):
    def check(m, res):
        got = res if np.isscalar(res) else np.asarray(res)
        ok = got == want.size if np.isscalar(got) else np.array_equal(got, want)
        if not ok:
            raise AssertionError(f"{m.name} gave a wrong result - not timing it")

    return check


def _rows(case, n, res, baseline):
    best = {m.name: b for m, (b, _) in res.items()}
    return [
        dict(
            case=case,
            n=n,
            method=m.name,
            func=m.func,
            best_s=b,
            median_s=med,
            vs_scan=best[baseline[m.func]] / b if m.func in baseline else None,
        )
        for m, (b, med) in res.items()
    ]


def _sorted_case(ctx, n):
    rng = ctx.rng
    start = np.datetime64("2026-01-01T00:00", "ns").astype(np.int64)
    ts = (start + np.cumsum(rng.integers(1, 20_000_000, n))).view("M8[ns]")  # ~1 ms apart
    i = int(rng.integers(0, n - WINDOW))
    lo, hi = ts[i], ts[i + WINDOW - 1]
    want = np.arange(i, i + WINDOW, dtype=np.uint32)
    methods = [
        Method(
            "filter_indexes (scan)", "simdfilter", "indexes", lambda: sf.filter_indexes(ts, lo, hi)
        ),
        Method(
            "filter_indexes(assume_sorted=True)",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(ts, lo, hi, assume_sorted=True),
        ),
        Method(
            "np.arange(np.searchsorted(a, lo), np.searchsorted(a, hi, 'right'))",
            "numpy",
            "indexes",
            lambda: np.arange(
                np.searchsorted(ts, lo), np.searchsorted(ts, hi, "right"), dtype=np.uint32
            ),
        ),
        Method(
            "count_in_range (scan)", "simdfilter", "count", lambda: sf.count_in_range(ts, lo, hi)
        ),
        Method(
            "count_in_range(assume_sorted=True)",
            "simdfilter",
            "count",
            lambda: sf.count_in_range(ts, lo, hi, assume_sorted=True),
        ),
    ]
    check_idx, check_count = _check(want), _check(want)

    def check(m, res):
        (check_count if m.func == "count" else check_idx)(m, res)

    res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], check)
    baseline = {"indexes": "filter_indexes (scan)", "count": "count_in_range (scan)"}
    return _rows("sorted int64 timestamps, 5,000-row window", n, res, baseline)


def _zonemap_case(ctx, n, kind):
    rng = ctx.rng
    if kind == "clustered":
        a = np.sort(rng.random(n)) + rng.normal(0.0, 1e-3, n)
    else:
        a = rng.random(n)
    lo, hi = 0.5, 0.501
    want = sf.filter_indexes(a, lo, hi)
    zm = sf.ZoneMap(a)
    methods = [
        Method(
            "filter_indexes (scan)", "simdfilter", "indexes", lambda: sf.filter_indexes(a, lo, hi)
        ),
        Method(
            "ZoneMap.filter_indexes", "simdfilter", "indexes", lambda: zm.filter_indexes(lo, hi)
        ),
        Method(
            "count_in_range (scan)", "simdfilter", "count", lambda: sf.count_in_range(a, lo, hi)
        ),
        Method("ZoneMap.count_in_range", "simdfilter", "count", lambda: zm.count_in_range(lo, hi)),
        Method("ZoneMap(a) (the build, once)", "simdfilter", "build", lambda: sf.ZoneMap(a)),
    ]
    check_idx = _check(want)

    def check(m, res):
        if m.func != "build":
            check_idx(m, res)

    res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], check)
    baseline = {
        "indexes": "filter_indexes (scan)",
        "count": "count_in_range (scan)",
        "build": "count_in_range (scan)",
    }
    return _rows(f"{kind} float64, 0.1% window, {zm.nbytes:,}-byte map", n, res, baseline)


def run(ctx):
    n = ctx.cfg["skip_sorted_n"]
    ctx.log(f"skipping: sorted, {fmt_n(n)} timestamps")
    rows = _sorted_case(ctx, n)
    n = ctx.cfg["skip_zone_n"]
    for kind in ("clustered", "uniform"):
        ctx.log(f"skipping: ZoneMap, {fmt_n(n)} {kind} float64")
        rows += _zonemap_case(ctx, n, kind)
    return rows


def report(rows, result):
    print_table(
        "SKIPPING - answers that read less than the column, one process, interleaved, ms per "
        "call (x scan = the scan's time / this; targets: assume_sorted >= 100x, ZoneMap >= 10x "
        "on clustered data and >= 0.91x on uniform data)",
        ["case", "n", "method", "ms", "x scan"],
        [
            [
                r["case"],
                f"{r['n']:,}",
                r["method"],
                f"{r['best_s'] * 1e3:.4f}",
                "" if r["vs_scan"] is None else f"{r['vs_scan']:.1f}",
            ]
            for r in rows
        ],
    )
