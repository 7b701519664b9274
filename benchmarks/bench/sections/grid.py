"""The grid: every method on every (kind of data, size, selectivity) cell, uint32."""

import time

import simdfilter as sf

from ..config import THREADED_FROM, Ki, Mi
from ..data import bounds, in_range, make_data
from ..methods import BASELINE, Method, Views, alternative_methods, simdfilter_methods
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure


def run(ctx):
    """Every method on every (kind, size, selectivity) cell; returns the records."""
    cfg, kernels = ctx.cfg, list(sf.available_kernels())
    records = []
    for n in cfg["sizes"]:
        kinds = ["random"] + (["sorted", "runs"] if n in cfg["clustered"] else [])
        for kind in kinds:
            a = make_data(kind, n, ctx.rng)
            views = Views(a, ctx.alts)
            t_cell = time.perf_counter()
            sels = (
                cfg["clustered_sels"]
                if kind != "random"
                else cfg["sels"]
                if n >= 64 * Ki
                else cfg["small_sels"]
            )
            for sel in sels:
                lo, hi = bounds(sel)
                expected = in_range(a, lo, hi)
                methods = cell_methods(views, lo, hi, ctx.alts, kernels)
                res = measure(methods, cfg["target"], cfg["repeats"], checker(a, expected))
                records += to_records(res, kind, n, sel, expected.size)
            ctx.log(
                f"  {kind:6s} n={n:>11,}: {len(sels)} selectivities x {len(methods)} methods "
                f"in {time.perf_counter() - t_cell:5.1f} s"
            )
            del a, views
    return records


def cell_methods(views, lo, hi, alts, kernels):
    a = views.a
    threads = [1, None] if a.size >= THREADED_FROM else [1]
    simd = simdfilter_methods(a, lo, hi, kernels, threads)
    simd.insert(
        len(kernels),
        Method(  # the best kernel into a preallocated result
            f"filter_indexes(out=) [{kernels[-1]}]",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(a, lo, hi, out=views.out, threads=1),
            kernels[-1],
        ),
    )
    return alternative_methods(views, lo, hi, alts) + simd


def to_records(res, kind, n, sel, hits):
    by_name = {m.name: t for m, t in res.items()}
    base = by_name[BASELINE][0]
    read = min(
        t[0]
        for m, t in res.items()
        if m.func == "read" or (m.func == "count" and m.group == "simdfilter" and m.threads == 1)
    )
    copy = by_name["limit: copy (np.copyto)"][0]
    out = []
    for m, (best, med) in res.items():
        out.append(
            dict(
                kind=kind,
                n=n,
                sel=sel,
                hits=hits,
                method=m.name,
                group=m.group,
                func=m.func,
                kernel=m.kernel,
                threads=m.threads if m.threads else "auto",
                best_s=best,
                median_s=med,
                eps=n / best if n else None,
                vs_numpy=base / best,
                of_read=read / best,
                of_copy=copy / best,
            )
        )
    return out


# ---------------------------------------------------------------- tables


def grid_table(grid, title, cols, cell, note=None, methods=None):
    """Rows: methods in measurement order; cols: (label, kind, n, sel)."""
    index = {(r["method"], r["kind"], r["n"], r["sel"]): r for r in grid}
    names = list(dict.fromkeys(r["method"] for r in grid))
    rows = []
    for name in names:
        if methods and not methods(name):
            continue
        cells = [cell(index.get((name, kind, n, sel))) for _, kind, n, sel in cols]
        if any(c != "" for c in cells):
            rows.append([name] + cells)
    print_table(title, ["method"] + [c[0] for c in cols], rows, note)


def g_and_ratio(r):
    return "" if r is None else f"{r['eps'] / 1e9:6.2f} {r['vs_numpy']:5.1f}x"


def g_only(r):
    return "" if r is None else f"{r['eps'] / 1e9:.2f}"


def one_thread(name):
    return "threads=" not in name


def report(grid, result):
    sizes = sorted({r["n"] for r in grid})
    grid_table(
        grid,
        "MAIN TABLE - uint32, uniformly random, 50% in range: G elements/s and ratio to NumPy",
        [(fmt_n(n), "random", n, 0.5) for n in sizes],
        lambda r: g_and_ratio(r) + (f" {r['of_read']:4.0%}" if r and r["n"] == sizes[-1] else ""),
        note=f"(ratio: NumPy's time / this time, same run; last column adds the fraction of the read "
        f"pass at {fmt_n(sizes[-1])})",
    )
    sels = sorted({r["sel"] for r in grid})
    for n in list(dict.fromkeys(n for n in (Mi, 16 * Mi, sizes[-1]) if n in sizes))[:2]:
        grid_table(
            grid,
            f"SELECTIVITY - uint32, random, n = {fmt_n(n)}, one thread: G elements/s",
            [(fmt_sel(s), "random", n, s) for s in sels],
            g_only,
            methods=one_thread,
        )
    big = max(n for n in sizes if any(r["kind"] == "sorted" and r["n"] == n for r in grid))
    csels = [s for s in (0.01, 0.5, 0.99) if s in sels] or sels
    grid_table(
        grid,
        f"CLUSTERED DATA - n = {fmt_n(big)}, one thread: G elements/s for random / sorted / runs",
        [(f"{fmt_sel(s)} {k}", k, big, s) for s in csels for k in ("random", "sorted", "runs")],
        g_only,
        methods=lambda name: (
            one_thread(name)
            and not name.startswith(("count", "filter_values", "numpy a[", "numpy count"))
        ),
    )
