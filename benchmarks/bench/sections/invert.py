"""Invert: ``filter_indexes(a, lo, hi, invert=True)`` (the positions outside [lo, hi], one
pass) against NumPy's ``np.flatnonzero(~((a >= lo) & (a <= hi)))`` and against two
simdfilter calls (below lo, above hi) merged into one ascending array, on float64 and
int64 arrays of ``queries_n`` elements (10 M in the default mode), uniform data, at 1, 50
and 99% of the elements outside; and ``count_in_range(invert=True)`` against NumPy's
``np.count_nonzero(~((a >= lo) & (a <= hi)))``.

simdfilter runs with its automatic threads, NumPy on its one. The methods of a case are
interleaved batch by batch (bench.timing.measure), so a load from other processes falls
on all of them alike: the ratios are the point. Every result is checked against NumPy's
before it is timed.
"""

import numpy as np

from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import measure

OUTSIDE = (0.01, 0.5, 0.99)


def _cases(rng, n):
    """(dtype, values, [(outside, lo, hi)]): uniform data; [lo, hi] in the middle keeps
    1 - outside of it inside, half of the rest below lo and half above hi."""
    floats = rng.random(n)
    ints = rng.integers(0, 1_000_000, n)
    out = []
    for name, values, scale in (("float64", floats, 1.0), ("int64", ints, 1_000_000)):
        bounds = []
        for f in OUTSIDE:
            lo, hi = f / 2 * scale, (1 - f / 2) * scale
            if name == "int64":
                lo, hi = int(lo), int(hi) - 1
            bounds.append((f, lo, hi))
        out.append((name, values, bounds))
    return out


def _methods(sf, a, lo, hi):
    def two_calls():
        below = sf.filter_indexes(a, None, lo, inclusive="neither")
        above = sf.filter_indexes(a, hi, None, inclusive="neither")
        return np.sort(np.concatenate([below, above]))

    return [
        Method(
            "numpy flatnonzero(~((a>=lo)&(a<=hi)))",
            "numpy",
            "indexes",
            lambda: np.flatnonzero(~((a >= lo) & (a <= hi))),
        ),
        Method("simdfilter two calls + merge", "simdfilter", "indexes", two_calls),
        Method(
            "simdfilter filter_indexes(invert=True)",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(a, lo, hi, invert=True),
        ),
        Method(
            "numpy count_nonzero(~(...))",
            "numpy",
            "count",
            lambda: int(np.count_nonzero(~((a >= lo) & (a <= hi)))),
        ),
        Method(
            "simdfilter count_in_range(invert=True)",
            "simdfilter",
            "count",
            lambda: sf.count_in_range(a, lo, hi, invert=True),
        ),
    ]


def run(ctx):
    import simdfilter as sf

    n = ctx.cfg["queries_n"]
    ctx.log(f"invert: {fmt_n(n)} elements, float64 and int64")
    rows = []
    for dtype, a, bounds in _cases(ctx.rng, n):
        for outside, lo, hi in bounds:
            want = np.flatnonzero(~((a >= lo) & (a <= hi)))

            def check(m, res, want=want):
                ok = res == want.size if m.func == "count" else np.array_equal(res, want)
                if not ok:
                    raise AssertionError(f"{m.name} gave a wrong result - not timing it")

            methods = _methods(sf, a, lo, hi)
            res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], check)
            best = {m.name: b for m, (b, _) in res.items()}
            base = {
                "indexes": best["numpy flatnonzero(~((a>=lo)&(a<=hi)))"],
                "count": best["numpy count_nonzero(~(...))"],
            }
            two = best["simdfilter two calls + merge"]
            for m, (b, med) in res.items():
                rows.append(
                    dict(
                        dtype=dtype,
                        n=n,
                        sel=outside,
                        method=m.name,
                        func=m.func,
                        best_s=b,
                        median_s=med,
                        vs_numpy=base[m.func] / b,
                        vs_two_calls=two / b if m.func == "indexes" else None,
                    )
                )
    return rows


def report(rows, result):
    print_table(
        f"INVERT - positions outside [lo, hi] of {fmt_n(rows[0]['n'])} elements, default "
        "threads, ms per call (x numpy = NumPy's expression / this; x two = two calls "
        "below/above merged / this); sel = the share outside",
        ["dtype", "outside", "method", "ms", "x numpy", "x two"],
        [
            [
                r["dtype"],
                fmt_sel(r["sel"]),
                r["method"],
                f"{r['best_s'] * 1e3:.2f}",
                f"{r['vs_numpy']:.2f}",
                "" if r["vs_two_calls"] is None else f"{r['vs_two_calls']:.2f}",
            ]
            for r in rows
        ],
    )
