"""Queries: one-, two- and three-column range queries on a frame through the ``.sf``
accessors and Polars expressions (``pl.col(c).sf.between`` in a lazy filter) against
the pandas, Polars and DuckDB idioms (DuckDB, if installed, on its own table:
``SELECT * FROM t WHERE a BETWEEN .. AND b BETWEEN ..``), and ``s.sf.between``
against ``s.between`` on a datetime Series from 16 rows up, all on one core.

The process is pinned to one CPU for the section (``sched_setaffinity``), so simdfilter's
automatic threads and Polars' thread pool both run on one core, as pandas does. The
two-column queries keep `sel` of the rows overall: each column keeps sqrt(sel) of them,
independently (the three-column ones cbrt(sel)). DuckDB runs on one thread
(``SET threads = 1``). Every result is checked (rows, in order) before it is timed.

Beside them, the floor a positions-then-rows answer has (``limit: ...``): one
streamed read of each queried column (``max()``) plus the gather of every column
at the answer's positions (``_core._take_rows``, the pandas face's own), and each
simdfilter row's time over it (``/ floor``).
"""

import os
from contextlib import contextmanager

import numpy as np

from ..report import fmt_n, fmt_sel, print_table
from ..timing import measure
from ..methods import Method


@contextmanager
def _one_core():
    if not hasattr(os, "sched_setaffinity"):
        yield None
        return
    cpus = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cpus)})
    try:
        yield min(cpus)
    finally:
        os.sched_setaffinity(0, cpus)


def _duckdb():
    try:
        import duckdb
    except ImportError:
        return None
    return duckdb


def _frame_methods(pd, pl, df, pdf, ranges, con=None):
    """The ways to get the rows of `df` with every column in its range."""
    (ca, (a0, a1)), *rest = ranges.items()
    q = " and ".join(f"{lo!r} <= {c} <= {hi!r}" for c, (lo, hi) in ranges.items())

    def pandas_mask():
        m = df[ca].between(a0, a1)
        for c, (lo, hi) in rest:
            m &= df[c].between(lo, hi)
        return df[m]

    def polars_expr():
        e = pl.col(ca).is_between(a0, a1)
        for c, (lo, hi) in rest:
            e = e & pl.col(c).is_between(lo, hi)
        return e

    def polars_sf_expr():
        e = pl.col(ca).sf.between(a0, a1)
        for c, (lo, hi) in rest:
            e = e & pl.col(c).sf.between(lo, hi)
        return e

    expr = polars_expr()
    methods = [
        Method("pandas df[a.between() & b.between()]", "pandas", "rows", pandas_mask),
        Method("pandas df.query(...)", "pandas", "rows", lambda: df.query(q)),
    ]
    if pl is not None:
        methods += [
            Method(
                "polars df.filter(is_between & ...)", "polars", "rows", lambda: pdf.filter(expr)
            ),
            Method(
                "polars lazy().filter(...).collect()",
                "polars",
                "rows",
                lambda: pdf.lazy().filter(expr).collect(),
            ),
        ]
    if con is not None:
        where = " AND ".join(f"{c} BETWEEN {lo!r} AND {hi!r}" for c, (lo, hi) in ranges.items())
        sql = f"SELECT * FROM t WHERE {where}"
        methods.append(
            Method(
                "duckdb SELECT * WHERE .. BETWEEN",
                "duckdb",
                "rows",
                lambda: con.sql(sql).fetchnumpy(),
            )
        )
    methods += [
        Method(
            "simdfilter pandas df.sf.filter", "simdfilter", "rows", lambda: df.sf.filter(**ranges)
        ),
        Method(
            "simdfilter pandas df.sf.indexes", "simdfilter", "rows", lambda: df.sf.indexes(**ranges)
        ),
    ]
    if pl is not None:
        sf_expr = polars_sf_expr()
        methods += [
            Method(
                "simdfilter polars df.sf.filter",
                "simdfilter",
                "rows",
                lambda: pdf.sf.filter(ranges),
            ),
            Method(
                "simdfilter polars lazy().filter(sf.between & ...)",
                "simdfilter",
                "rows",
                lambda: pdf.lazy().filter(sf_expr).collect(),
            ),
        ]
    return methods


def _floor(df, ranges, expected):
    """The floor of a positions-then-rows answer: each queried column read once,
    streamed, and every column gathered at the answer's positions."""
    from simdfilter import _core

    read = [df[c].to_numpy() for c in ranges]
    every = [df[c].to_numpy() for c in df.columns]
    positions = expected.astype(np.uint32 if len(df) < 2**32 else np.int64)

    def floor():
        for x in read:
            x.max()
        return _core._take_rows(every, positions)

    return Method("limit: read the columns + gather the rows", "limit", "rows", floor)


def _rows_checker(pd, pl, df, expected):
    want_a = df["a"].to_numpy()[expected]

    def check(m, res):
        if m.group == "limit":  # the floor's gather, of the expected rows
            ok = np.array_equal(res[0], want_a)
        elif isinstance(res, np.ndarray):
            ok = np.array_equal(res, expected)
        elif isinstance(res, dict):  # DuckDB's fetchnumpy: same rows in the same order
            ok = len(res["a"]) == expected.size and np.array_equal(np.asarray(res["a"]), want_a)
        elif isinstance(res, pd.DataFrame):
            ok = np.array_equal(res.index.to_numpy(), expected)
        else:  # Polars frame: same rows in the same order
            ok = res.height == expected.size and np.array_equal(res["a"].to_numpy(), want_a)
        if not ok:
            raise AssertionError(f"{m.name} gave a wrong result - not timing it")

    return check


def run(ctx):
    try:
        import pandas as pd
        import simdfilter.pandas  # noqa: F401
    except ImportError as exc:
        print(f"skipped queries: cannot import pandas ({exc})")
        return []
    try:
        import polars as pl
        import simdfilter.polars  # noqa: F401
    except ImportError as exc:
        print(f"queries: no Polars rows: cannot import polars ({exc})")
        pl = None
    cfg, rng = ctx.cfg, ctx.rng
    n = cfg["queries_n"]
    df = pd.DataFrame({"a": rng.integers(0, 1_000_000, n), "b": rng.random(n), "c": rng.random(n)})
    pdf = pl.from_pandas(df) if pl is not None else None
    duckdb = _duckdb()
    con = None
    if duckdb is not None:
        con = duckdb.connect()
        con.execute("SET threads = 1")
        con.register("df_view", df)
        con.execute("CREATE TABLE t AS SELECT * FROM df_view")
        con.unregister("df_view")
    else:
        print("queries: no DuckDB rows: cannot import duckdb (pip install duckdb)")
    rows = []
    with _one_core() as cpu:
        ctx.log(
            f"queries: {fmt_n(n)} rows, pinned to CPU {cpu}"
            + (f", Polars pool {pl.thread_pool_size()} threads" if pl is not None else "")
        )
        for cols in (1, 2, 3):
            for sel in (0.01, 0.1):
                per = sel ** (1 / cols)
                ranges = {"a": (0, int(per * 1_000_000) - 1)}
                if cols >= 2:
                    ranges["b"] = (0.25, 0.25 + per)
                if cols == 3:
                    ranges["c"] = (0.5 - per / 2, 0.5 + per / 2)
                expected = np.flatnonzero(
                    np.logical_and.reduce(
                        [df[c].between(lo, hi).to_numpy() for c, (lo, hi) in ranges.items()]
                    )
                )
                methods = _frame_methods(pd, pl, df, pdf, ranges, con)
                methods.append(_floor(df, ranges, expected))
                res = measure(
                    methods, cfg["target"], cfg["repeats"], _rows_checker(pd, pl, df, expected)
                )
                fastest_other = min(
                    best for m, (best, _) in res.items() if m.group not in ("simdfilter", "limit")
                )
                floor = next(best for m, (best, _) in res.items() if m.group == "limit")
                for m, (best, med) in res.items():
                    rows.append(
                        dict(
                            kind="frame",
                            columns=cols,
                            n=n,
                            sel=sel,
                            hits=int(expected.size),
                            method=m.name,
                            group=m.group,
                            best_s=best,
                            median_s=med,
                            vs_fastest_other=fastest_other / best,
                            vs_floor=best / floor,
                        )
                    )
        for size in cfg["series_sizes"]:
            base = np.datetime64("2013-01-01", "ns")
            s = pd.Series(
                base + rng.integers(0, 365 * 86400 * 10**9, size).astype("m8[ns]"), name="t"
            )
            lo, hi = pd.Timestamp("2013-03-01"), pd.Timestamp("2013-04-01")
            want = s.between(lo, hi)

            def check(m, res, want=want):
                pd.testing.assert_series_equal(res, want)

            methods = [
                Method("pandas s.between", "pandas", "series", lambda s=s: s.between(lo, hi)),
                Method(
                    "simdfilter s.sf.between",
                    "simdfilter",
                    "series",
                    lambda s=s: s.sf.between(lo, hi),
                ),
            ]
            res = measure(methods, cfg["target"], cfg["repeats"], check)
            t_pd = res[methods[0]][0]
            for m, (best, med) in res.items():
                rows.append(
                    dict(
                        kind="series",
                        n=size,
                        method=m.name,
                        group=m.group,
                        best_s=best,
                        median_s=med,
                        vs_pandas=t_pd / best,
                    )
                )
    return rows


def report(rows, result):
    frame = [r for r in rows if r["kind"] == "frame"]
    if frame:
        print_table(
            f"QUERIES - rows of a {fmt_n(frame[0]['n'])}-row frame (int64 a, float64 b, c) with "
            "every column in range, one core, ms per query (x = fastest pandas/Polars/DuckDB "
            "time / this time; / floor = this time / the floor's, for simdfilter's rows)",
            ["method", "columns", "sel", "ms", "x", "/ floor"],
            [
                [
                    r["method"],
                    r["columns"],
                    fmt_sel(r["sel"]),
                    f"{r['best_s'] * 1e3:.2f}",
                    f"{r['vs_fastest_other']:.2f}",
                    f"{r['vs_floor']:.2f}" if r["group"] == "simdfilter" else "",
                ]
                for r in frame
            ],
        )
    series = [r for r in rows if r["kind"] == "series"]
    if series:
        print_table(
            "QUERIES - between on a datetime64[ns] Series, one core, us per call",
            ["method", "n", "us", "x pandas"],
            [
                [r["method"], fmt_n(r["n"]), f"{r['best_s'] * 1e6:.1f}", f"{r['vs_pandas']:.2f}"]
                for r in series
            ],
        )
