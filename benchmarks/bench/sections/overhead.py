"""Call overhead: microseconds per call at n = 0, 1, 16, 256, with len(a) as the floor."""

import numpy as np
import simdfilter as sf

from ..data import VALUE_RANGE, bounds, in_range
from ..methods import Method, best_kernel, numpy_methods
from ..report import print_table
from ..timing import checker, measure


def _methods(a, lo, hi, out, k):
    # No threads= argument: the call as users write it (small inputs stay on one thread).
    return (
        [
            Method(
                f"filter_indexes [{k}]",
                "simdfilter",
                "indexes",
                lambda: sf.filter_indexes(a, lo, hi),
                k,
            ),
            Method(
                f"filter_indexes(out=) [{k}]",
                "simdfilter",
                "indexes",
                lambda: sf.filter_indexes(a, lo, hi, out=out),
                k,
            ),
            Method(
                f"count_in_range [{k}]",
                "simdfilter",
                "count",
                lambda: sf.count_in_range(a, lo, hi),
                k,
            ),
            Method(
                f"filter_values [{k}]",
                "simdfilter",
                "values",
                lambda: sf.filter_values(a, lo, hi),
                k,
            ),
        ]
        + [m for m in numpy_methods(a, lo, hi) if m.func == "indexes"]
        + [
            Method("reference: len(a) (a trivial call)", "limit", "none", lambda: len(a)),
        ]
    )


def run(ctx):
    k = best_kernel()
    rows = []
    for n in (0, 1, 16, 256):
        a = ctx.rng.integers(0, VALUE_RANGE, n, dtype=np.uint32)
        lo, hi = bounds(0.5)
        methods = _methods(a, lo, hi, np.empty(n, np.uint32), k)
        res = measure(
            methods,
            ctx.cfg["overhead_target"],
            ctx.cfg["overhead_repeats"],
            checker(a, in_range(a, lo, hi)),
        )
        rows += [
            dict(n=n, method=m.name, us=best * 1e6, median_us=med * 1e6)
            for m, (best, med) in res.items()
        ]
    return rows


def report(rows, result):
    ns = sorted({r["n"] for r in rows})
    by = {(r["method"], r["n"]): r["us"] for r in rows}
    print_table(
        "CALL OVERHEAD - microseconds per call (best)",
        ["method"] + [f"n={n}" for n in ns],
        [[m] + [f"{by[(m, n)]:.3f}" for n in ns] for m in dict.fromkeys(r["method"] for r in rows)],
    )
