"""Membership in a set: ``simdfilter.isin(a, items)`` (and ``filter_indexes(a,
isin=items)``) against ``np.isin``, pandas' ``Series.isin`` and Polars' ``is_in``, at
set sizes 1, 10, 100, 10^4 and 10^6 (``isin_set_sizes``), on int64 data of ``isin_n``
elements (10 M in the default mode) drawn from [0, 10^7), the items drawn from the same
span (so up to about a tenth of the data matches), and on float64 data with float items
(the sorted-intervals lookup: no bitmap for floats).

Every method answers the same question, a bool mask (the positions for
``filter_indexes``, checked against ``np.flatnonzero`` of NumPy's mask); pandas and
Polars on their own column of the same values, made once outside the timing. The
methods of a case are interleaved batch by batch (bench.timing.measure): the ratios
are the point. simdfilter runs with its automatic threads, the others as they come.
"""

import numpy as np

from ..methods import Method
from ..report import fmt_n, print_table
from ..timing import measure

SPAN = 10_000_000


def _methods(sf, alts, a, items):
    methods = [
        Method("numpy isin", "numpy", "mask", lambda: np.isin(a, items)),
        Method("simdfilter isin", "simdfilter", "mask", lambda: sf.isin(a, items)),
        Method(
            "numpy flatnonzero(isin)",
            "numpy",
            "positions",
            lambda: np.flatnonzero(np.isin(a, items)),
        ),
        Method(
            "simdfilter filter_indexes(isin=)",
            "simdfilter",
            "positions",
            lambda: sf.filter_indexes(a, isin=items),
        ),
    ]
    if "pandas" in alts:
        s = alts["pandas"].Series(a)
        methods.append(Method("pandas Series.isin", "alternative", "mask", lambda: s.isin(items)))
    if "polars" in alts:
        pl = alts["polars"]
        ps, pitems = pl.Series(a), pl.Series(items)
        methods.append(
            Method("polars Series.is_in", "alternative", "mask", lambda: ps.is_in(pitems))
        )
    return methods


def _as_mask(res):
    """A method's mask as a NumPy bool array (pandas and Polars give their own Series)."""
    return np.asarray(res.to_numpy() if hasattr(res, "to_numpy") else res, dtype=bool)


def run(ctx):
    import simdfilter as sf

    n = ctx.cfg["isin_n"]
    sizes = ctx.cfg["isin_set_sizes"]
    ctx.log(f"isin: {fmt_n(n)} elements, int64 and float64, set sizes {sizes}")
    ints = ctx.rng.integers(0, SPAN, n)
    floats = ints.astype(np.float64) / 8  # exact: items drawn alike match as often
    rows = []
    for dtype, a in (("int64", ints), ("float64", floats)):
        for k in sizes:
            items = ctx.rng.integers(0, SPAN, k)
            items = items if dtype == "int64" else items.astype(np.float64) / 8
            inside = np.isin(a, items)
            want = np.flatnonzero(inside)

            def check(m, res, inside=inside, want=want):
                ok = (
                    np.array_equal(res, want)
                    if m.func == "positions"
                    else np.array_equal(_as_mask(res), inside)
                )
                if not ok:
                    raise AssertionError(f"{m.name} gave a wrong result - not timing it")

            res = measure(
                _methods(sf, ctx.alts, a, items), ctx.cfg["target"], ctx.cfg["repeats"], check
            )
            best = {m.name: b for m, (b, _) in res.items()}
            base = {"mask": best["numpy isin"], "positions": best["numpy flatnonzero(isin)"]}
            for m, (b, med) in res.items():
                rows.append(
                    dict(
                        dtype=dtype,
                        n=n,
                        k=k,
                        share=float(inside.mean()),
                        method=m.name,
                        func=m.func,
                        best_s=b,
                        median_s=med,
                        vs_numpy=base[m.func] / b,
                    )
                )
    return rows


def report(rows, result):
    print_table(
        f"ISIN - membership in a set of k items, {fmt_n(rows[0]['n'])} elements, ms per call "
        "(x numpy = np.isin's time (flatnonzero of it for positions) / this)",
        ["dtype", "k", "in set", "method", "ms", "x numpy"],
        [
            [
                r["dtype"],
                str(r["k"]),
                f"{r['share']:.3%}",
                r["method"],
                f"{r['best_s'] * 1e3:.3f}",
                f"{r['vs_numpy']:.2f}",
            ]
            for r in rows
        ],
    )
