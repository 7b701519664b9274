"""Between: ``s.sf.between`` against pandas' ``s.between`` and the Polars ``s.sf.between``
against Polars' ``s.is_between``, on float64 and int64 Series of ``queries_n`` rows (10 M in
the default mode) at 1, 50 and 99% in range, and ``simdfilter.in_range`` on the NumPy array.

The result is the kernels' mask, written in one pass (a byte per row for pandas, a bit per
row for Polars, imported without a copy). Every library runs as it would for a user: its
own thread count (Polars' pool, simdfilter's automatic threads, pandas' one thread). The
methods of one case are interleaved batch by batch (bench.timing.measure), so a load from
other processes falls on all of them alike; the ratios are the point. Every result is
checked against the host's before it is timed.
"""

import numpy as np

from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import measure

SELECTIVITIES = (0.01, 0.5, 0.99)
TARGETS = {"pandas": 1.5, "polars": 1.0}  # issue 28: sf at least this many times the host


def _cases(rng, n):
    """(dtype, values, [(sel, lo, hi)]): uniform data, bounds keeping `sel` of it."""
    floats = rng.random(n)
    ints = rng.integers(0, 1_000_000, n)
    return [
        ("float64", floats, [(s, 0.0, s) for s in SELECTIVITIES]),
        ("int64", ints, [(s, 0, int(s * 1_000_000) - 1) for s in SELECTIVITIES]),
    ]


def run(ctx):
    try:
        import pandas as pd

        import simdfilter
        import simdfilter.pandas  # noqa: F401
    except ImportError as exc:
        print(f"skipped between: cannot import pandas ({exc})")
        return []
    try:
        import polars as pl

        import simdfilter.polars  # noqa: F401
    except ImportError as exc:
        print(f"between: no Polars rows: cannot import polars ({exc})")
        pl = None
    cfg = ctx.cfg
    n = cfg["queries_n"]
    rows = []
    ctx.log(
        f"between: {fmt_n(n)} rows"
        + (f", Polars pool {pl.thread_pool_size()} threads" if pl is not None else "")
    )
    for dtype, values, bounds in _cases(ctx.rng, n):
        s = pd.Series(values, name="x")
        ps = pl.Series("x", values) if pl is not None else None
        for sel, lo, hi in bounds:
            want = s.between(lo, hi)
            methods = [
                Method("pandas s.between", "pandas", "between", lambda: s.between(lo, hi)),
                Method(
                    "simdfilter s.sf.between", "pandas", "between", lambda: s.sf.between(lo, hi)
                ),
                Method(
                    "simdfilter.in_range (NumPy)",
                    "numpy",
                    "between",
                    lambda: simdfilter.in_range(values, lo, hi),
                ),
            ]
            if ps is not None:
                methods += [
                    Method(
                        "polars s.is_between", "polars", "between", lambda: ps.is_between(lo, hi)
                    ),
                    Method(
                        "simdfilter polars s.sf.between",
                        "polars",
                        "between",
                        lambda: ps.sf.between(lo, hi),
                    ),
                ]
            want_np = want.to_numpy()

            def check(m, res, want_np=want_np):
                got = res.to_numpy() if hasattr(res, "to_numpy") else res
                if not np.array_equal(np.asarray(got, dtype=bool), want_np):
                    raise AssertionError(f"{m.name} gave a wrong result - not timing it")

            res = measure(methods, cfg["target"], cfg["repeats"], check)
            best = {m.name: b for m, (b, _) in res.items()}
            host = {"pandas": best["pandas s.between"]}
            if ps is not None:
                host["polars"] = best["polars s.is_between"]
            for m, (b, med) in res.items():
                rows.append(
                    dict(
                        dtype=dtype,
                        n=n,
                        sel=sel,
                        method=m.name,
                        group=m.group,
                        best_s=b,
                        median_s=med,
                        vs_host=host[m.group] / b if m.group in host else None,
                    )
                )
    return rows


def report(rows, result):
    print_table(
        f"BETWEEN - a bool mask of a {fmt_n(rows[0]['n'])}-row Series, default threads, ms per "
        "call (x = the host's own between / this; targets: pandas >= 1.5, Polars >= 1.0)",
        ["dtype", "sel", "method", "ms", "x host"],
        [
            [
                r["dtype"],
                fmt_sel(r["sel"]),
                r["method"],
                f"{r['best_s'] * 1e3:.2f}",
                "" if r["vs_host"] is None else f"{r['vs_host']:.2f}",
            ]
            for r in rows
        ],
    )
