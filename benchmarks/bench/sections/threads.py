"""Threads: the best kernel with threads=1, 2 and auto on one large array, 1% and 50% in range."""

import numpy as np

from ..data import bounds, in_range, make_data
from ..methods import best_kernel, numpy_methods, limit_methods, simdfilter_methods
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure


def run(ctx):
    n, k = ctx.cfg["big"], best_kernel()
    a = make_data("random", n, ctx.rng)
    dst = np.empty_like(a)
    rows = []
    for sel in (0.01, 0.5):
        lo, hi = bounds(sel)
        # NumPy and the limits only: the alternatives are single-threaded
        methods = numpy_methods(a, lo, hi)[:1] + limit_methods(a, dst)
        methods += simdfilter_methods(a, lo, hi, [k], [1, 2, None], funcs=("indexes", "count"))
        res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], checker(a, in_range(a, lo, hi)))
        one = {m.func: t[0] for m, t in res.items() if m.threads == 1 and m.group == "simdfilter"}
        for m, (best, _) in res.items():
            rows.append(dict(n=n, sel=sel, method=m.name, threads=m.threads or "auto", eps=n / best,
                             vs_one_thread=one[m.func] / best if m.group == "simdfilter" else None))
    return rows


def report(rows, result):
    print_table(f"THREADS - n = {fmt_n(rows[0]['n'])}, random uint32",
                ["method", "sel", "G el/s", "vs 1 thread"],
                [[r["method"], fmt_sel(r["sel"]), f"{r['eps'] / 1e9:.2f}",
                  "" if r["vs_one_thread"] is None else f"{r['vs_one_thread']:.2f}x"] for r in rows])
