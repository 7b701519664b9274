"""dtypes: every dtype, random, about half of the values in range, one thread: NumPy, the
scalar kernel and the best kernel."""

import numpy as np
import simdfilter as sf

from ..data import DTYPES, dtype_data, in_range
from ..methods import BASELINE, baseline, best_kernel, simdfilter_methods
from ..report import fmt_n, print_table
from ..timing import checker, measure


def run(ctx):
    """Half of the values in range, random data, one thread: best kernel vs scalar vs NumPy."""
    n, k = ctx.cfg["dtype_n"], best_kernel()
    kernels = sorted({k, "scalar"}, key=sf.available_kernels().index)
    rows = []
    for dtype in DTYPES:
        a = dtype_data(dtype, n, ctx.rng)
        s = np.sort(a)
        lo, hi = s[n // 4], s[3 * n // 4 - 1]  # NumPy scalars of the array's dtype
        del s
        expected = in_range(a, lo, hi)
        methods = [baseline(a, lo, hi)]
        methods += simdfilter_methods(a, lo, hi, kernels, [1], funcs=("indexes", "count"))
        res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], checker(a, expected))
        base = next(t[0] for m, t in res.items() if m.name == BASELINE)
        for m, (best, _) in res.items():
            rows.append(
                dict(
                    dtype=dtype,
                    n=n,
                    sel=expected.size / n,
                    method=m.name,
                    kernel=m.kernel,
                    eps=n / best,
                    gbs=n * a.itemsize / best / 1e9,
                    vs_numpy=base / best,
                )
            )
    return rows


def report(rows, result):
    names = list(dict.fromkeys(r["method"] for r in rows))
    by = {(r["dtype"], r["method"]): r for r in rows}
    print_table(
        f"DTYPES - n = {fmt_n(rows[0]['n'])}, random, ~50% in range, one thread: G elements/s "
        f"(ratio to NumPy)",
        ["dtype"] + names,
        [
            [d] + [f"{by[(d, m)]['eps'] / 1e9:.2f} ({by[(d, m)]['vs_numpy']:.1f}x)" for m in names]
            for d in dict.fromkeys(r["dtype"] for r in rows)
        ],
    )
