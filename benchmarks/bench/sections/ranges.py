"""Several ranges: ``filter_indexes(a, [lo1, .., lok], [hi1, .., hik])`` (the positions in
any of k windows, one pass over memory) and its ``invert=True`` against NumPy's
``np.flatnonzero(((a >= lo1) & (a <= hi1)) | ...)`` and against k simdfilter calls merged
into one ascending array (``np.concatenate`` and ``np.sort``), for k = 2, 4 and 8 disjoint
windows on float64 and int64 arrays of ``queries_n`` elements (10 M in the default mode),
uniform data, the windows together holding 1% or 20% of the elements; and
``count_in_range`` with k windows against NumPy's ``np.count_nonzero`` of the expression.

simdfilter runs with its automatic threads, NumPy on its one. The methods of a case are
interleaved batch by batch (bench.timing.measure), so a load from other processes falls
on all of them alike: the ratios are the point. Every result is checked against NumPy's
before it is timed.
"""

import numpy as np

from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import measure

RANGE_COUNTS = (2, 4, 8)
SHARES = (0.01, 0.2)


def _windows(k, share, scale, integer):
    """k disjoint windows spread over [0, scale), together `share` of it."""
    width = share / k * scale
    lo = [(i + 0.5) / k * scale for i in range(k)]
    hi = [x + width for x in lo]
    if integer:
        return [int(x) for x in lo], [int(x) - 1 for x in hi]
    return lo, hi


def _numpy_mask(a, lo, hi):
    mask = (a >= lo[0]) & (a <= hi[0])
    for one_lo, one_hi in zip(lo[1:], hi[1:]):
        mask |= (a >= one_lo) & (a <= one_hi)
    return mask


def _methods(sf, a, lo, hi):
    def k_calls():
        parts = [sf.filter_indexes(a, x, y) for x, y in zip(lo, hi)]
        return np.sort(np.concatenate(parts))

    return [
        Method(
            "numpy flatnonzero(OR of k ranges)",
            "numpy",
            "indexes",
            lambda: np.flatnonzero(_numpy_mask(a, lo, hi)),
        ),
        Method("simdfilter k calls + merge", "simdfilter", "indexes", k_calls),
        Method(
            "simdfilter filter_indexes(lo=[..], hi=[..])",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(a, lo, hi),
        ),
        Method(
            "numpy flatnonzero(~OR)",
            "numpy",
            "outside",
            lambda: np.flatnonzero(~_numpy_mask(a, lo, hi)),
        ),
        Method(
            "simdfilter filter_indexes([..], invert=True)",
            "simdfilter",
            "outside",
            lambda: sf.filter_indexes(a, lo, hi, invert=True),
        ),
        Method(
            "numpy count_nonzero(OR)",
            "numpy",
            "count",
            lambda: int(np.count_nonzero(_numpy_mask(a, lo, hi))),
        ),
        Method(
            "simdfilter count_in_range([..])",
            "simdfilter",
            "count",
            lambda: sf.count_in_range(a, lo, hi),
        ),
    ]


def run(ctx):
    import simdfilter as sf

    n = ctx.cfg["queries_n"]
    ctx.log(f"ranges: {fmt_n(n)} elements, float64 and int64, k = {RANGE_COUNTS}")
    floats = ctx.rng.random(n)
    ints = ctx.rng.integers(0, 1_000_000, n)
    rows = []
    for dtype, a, scale in (("float64", floats, 1.0), ("int64", ints, 1_000_000)):
        for k in RANGE_COUNTS:
            for share in SHARES:
                lo, hi = _windows(k, share, scale, dtype == "int64")
                inside = _numpy_mask(a, lo, hi)
                want = {
                    "indexes": np.flatnonzero(inside),
                    "outside": np.flatnonzero(~inside),
                    "count": int(np.count_nonzero(inside)),
                }

                def check(m, res, want=want):
                    expected = want[m.func]
                    ok = res == expected if m.func == "count" else np.array_equal(res, expected)
                    if not ok:
                        raise AssertionError(f"{m.name} gave a wrong result - not timing it")

                methods = _methods(sf, a, lo, hi)
                res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], check)
                best = {m.name: b for m, (b, _) in res.items()}
                base = {
                    "indexes": best["numpy flatnonzero(OR of k ranges)"],
                    "outside": best["numpy flatnonzero(~OR)"],
                    "count": best["numpy count_nonzero(OR)"],
                }
                separate = best["simdfilter k calls + merge"]
                for m, (b, med) in res.items():
                    rows.append(
                        dict(
                            dtype=dtype,
                            n=n,
                            k=k,
                            sel=share,
                            method=m.name,
                            func=m.func,
                            best_s=b,
                            median_s=med,
                            vs_numpy=base[m.func] / b,
                            vs_k_calls=separate / b if m.func == "indexes" else None,
                        )
                    )
    return rows


def report(rows, result):
    print_table(
        f"RANGES - positions in any of k windows of {fmt_n(rows[0]['n'])} elements, default "
        "threads, ms per call (x numpy = NumPy's expression / this; x k calls = k calls "
        "merged / this); sel = the share in the windows together",
        ["dtype", "k", "sel", "method", "ms", "x numpy", "x k calls"],
        [
            [
                r["dtype"],
                str(r["k"]),
                fmt_sel(r["sel"]),
                r["method"],
                f"{r['best_s'] * 1e3:.2f}",
                f"{r['vs_numpy']:.2f}",
                "" if r["vs_k_calls"] is None else f"{r['vs_k_calls']:.2f}",
            ]
            for r in rows
        ],
    )
