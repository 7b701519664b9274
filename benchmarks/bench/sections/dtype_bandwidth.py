"""dtype_bandwidth: count_in_range at about 1% in range, every dtype x kernel x size, one
thread, in GB/s read and as a fraction of `a.max()` on the same array (NumPy's reduction:
a read-only pass, the machine's read limit for that dtype and size), and the process
default's time over the best kernel's (issue 42 item 6: the default >= 0.95 of the best).

Integers are uniform over the whole dtype, floats standard normal; the range is the middle
1% of the values (int8/uint8 hold 256 values, so there it is 3 of them, 1.2%).
"""

import numpy as np
import simdfilter as sf

from ..methods import Method
from ..report import fmt_n, print_table
from ..timing import checker, measure

DTYPES = [
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
]
SEL = 0.01


def kernels():
    """The SIMD kernels this machine runs, the scalar and SSE4.1 ones left out (slower
    everywhere they are not alone)."""
    avail = sf.available_kernels()
    return [k for k in avail if k not in ("scalar", "sse41")] or avail[-1:]


def data(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        span = int(info.max) - int(info.min) + 1
        mid, half = int(info.min) + span // 2, max(1, round(span * SEL / 2))
        return a, dt.type(mid - half), dt.type(min(int(info.max), mid + half))
    a = rng.standard_normal(n).astype(dt)
    half = 0.012533  # the normal distribution holds 1% within +-0.012533
    return a, dt.type(-half), dt.type(half)


def run(ctx):
    ks, default = kernels(), sf.active_kernel()
    rows = []
    for n in ctx.cfg["dtype_bw_sizes"]:
        for dtype in DTYPES:
            a, lo, hi = data(dtype, n, ctx.rng)
            expected = np.flatnonzero((a >= lo) & (a <= hi))
            ms = [Method("a.max()", "limit", "max", lambda: a.max())]
            ms[0].role = "max"
            for k in ks:
                ms.append(
                    Method(
                        f"count_in_range [{k}]",
                        "simdfilter",
                        "count",
                        lambda: sf.count_in_range(a, lo, hi, threads=1),
                        k,
                    )
                )
                ms[-1].role = k
            res = measure(ms, ctx.cfg["target"], ctx.cfg["dtype_bw_repeats"], checker(a, expected))
            for m, (best, med) in res.items():
                rows.append(
                    dict(
                        dtype=dtype,
                        n=n,
                        sel=expected.size / n,
                        method=m.name,
                        role=m.role,
                        default=default,
                        best_s=best,
                        median_s=med,
                        gbs=n * a.itemsize / best / 1e9,
                    )
                )
        ctx.log(f"  dtype_bandwidth n={n:>11,}: done")
    return rows


def report(rows, result):
    index = {(r["n"], r["dtype"], r["role"]): r for r in rows}
    ks = [k for k in dict.fromkeys(r["role"] for r in rows) if k != "max"]
    default = rows[0]["default"]
    body = []
    for n in sorted({r["n"] for r in rows}):
        for dtype in dict.fromkeys(r["dtype"] for r in rows):
            mx = index.get((n, dtype, "max"))
            if mx is None:
                continue
            cells = [fmt_n(n), dtype, f"{mx['sel']:.1%}", f"{mx['gbs']:.1f}"]
            cnt = [index[(n, dtype, k)] for k in ks if (n, dtype, k) in index]
            for r in cnt:
                cells.append(f"{r['gbs']:.1f} ({r['gbs'] / mx['gbs']:.2f})")
            d = index.get((n, dtype, default))
            best = min(cnt, key=lambda r: r["best_s"]) if cnt else None
            cells.append(f"{best['best_s'] / d['best_s']:.2f}" if d and best else "")
            body.append(cells)
    print_table(
        "DTYPE BANDWIDTH - count_in_range at ~1% in range, one thread: GB/s read "
        "(fraction of a.max() on the same array)",
        ["n", "dtype", "sel", "a.max() GB/s"] + [f"{k}" for k in ks] + [f"{default}/best"],
        body,
        note=f"(each figure the best of its batches, the methods of a row interleaved; "
        f"{default}/best: the best kernel's time over the default kernel's, 1.00 when the "
        f"default is the fastest)",
    )
