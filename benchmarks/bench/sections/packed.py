"""Packed: a bit-packed column against the raw array (issue 45 item 3).

Three columns of ``packed_n`` values (64 Mi in the default mode): uint32 and
int64 whose values span 12 bits (a constant plus uniform offsets below 4096, so
that every block is cut by the range and goes to the packed kernel: nothing is
skipped as a zone map would), and uniform 32-bit data, which does not pack. For
each: the memory ratio, the build and ``to_numpy()`` in G values/s (beside
``a.copy()``, the same fresh pages written), and ``count_in_range`` and
``filter_indexes`` at 1 % and 50 % selected: ``Packed`` (one thread) against
simdfilter on the raw array (one thread, and its default) and NumPy.

Methods are interleaved batch by batch in one process (bench.timing.measure), so
that a load from other processes falls on all alike: the ratios are the point.
Every result is checked against the raw scan's before it is timed.
"""

import numpy as np
import simdfilter as sf

from ..methods import Method
from ..report import fmt_n, print_table
from ..timing import measure

TARGETS = "targets: memory <= 0.4x when packed (<= 1.02x uniform); count/indexes >= 2x at 1%"


def _data(rng, kind, n):
    if kind == "uint32, 12-bit span":
        return (rng.integers(0, 1 << 12, n) + 3_000_000_000).astype(np.uint32), 3_000_000_000, 4096
    if kind == "int64, 12-bit span":
        return (rng.integers(0, 1 << 12, n) - 10**15).astype(np.int64), -(10**15), 4096
    return rng.integers(0, 1 << 32, n, dtype=np.uint32), 0, 1 << 32


def _same(a):
    def check(m, res):
        if not np.array_equal(res, a):
            raise AssertionError(f"{m.name} gave wrong values - not timing it")

    return check


def _case(ctx, kind, n):
    a, base, span = _data(ctx.rng, kind, n)
    build = measure(
        [Method("Packed(a)", "simdfilter", "build", lambda: sf.Packed(a))],
        ctx.cfg["target"],
        ctx.cfg["repeats"],
    )
    p = sf.Packed(a)
    decode = measure(
        [
            Method("Packed.to_numpy()", "simdfilter", "decode", p.to_numpy),
            Method("a.copy()", "numpy", "decode", a.copy),
        ],
        ctx.cfg["target"],
        ctx.cfg["repeats"],
        _same(a),
    )
    head = dict(case=kind, n=n, ratio=p.nbytes / a.nbytes)
    rows = [
        dict(head, sel=None, method=m.name, func=m.func, best_s=b, gvals=n / b / 1e9, vs_raw=None)
        for m, (b, _) in {**build, **decode}.items()
    ]
    for sel in (0.01, 0.5):
        lo = base + span // 4
        hi = lo + int(sel * span) - 1
        want = sf.filter_indexes(a, lo, hi, threads=1)
        methods = [
            Method("Packed", "simdfilter", "count", lambda: p.count_in_range(lo, hi)),
            Method("raw, 1 thread", "simdfilter", "count",
                   lambda: sf.count_in_range(a, lo, hi, threads=1)),
            Method("raw, default threads", "simdfilter", "count",
                   lambda: sf.count_in_range(a, lo, hi)),
            Method("NumPy", "numpy", "count",
                   lambda: int(np.count_nonzero((a >= lo) & (a <= hi)))),
            Method("Packed", "simdfilter", "indexes", lambda: p.filter_indexes(lo, hi)),
            Method("raw, 1 thread", "simdfilter", "indexes",
                   lambda: sf.filter_indexes(a, lo, hi, threads=1)),
            Method("raw, default threads", "simdfilter", "indexes",
                   lambda: sf.filter_indexes(a, lo, hi)),
            Method("NumPy", "numpy", "indexes", lambda: np.flatnonzero((a >= lo) & (a <= hi))),
        ]  # fmt: skip

        def check(m, res):
            ok = res == want.size if m.func == "count" else np.array_equal(res, want)
            if not ok:
                raise AssertionError(f"{m.name} gave a wrong result - not timing it")

        res = measure(methods, ctx.cfg["target"], ctx.cfg["repeats"], check)
        raw = {m.func: b for m, (b, _) in res.items() if m.name == "raw, 1 thread"}
        rows += [
            dict(head, sel=sel, method=m.name, func=m.func, best_s=b, gvals=n / b / 1e9,
                 vs_raw=raw[m.func] / b)
            for m, (b, _) in res.items()
        ]  # fmt: skip
    return rows


def run(ctx):
    n = ctx.cfg["packed_n"]
    rows = []
    for kind in ("uint32, 12-bit span", "int64, 12-bit span", "uniform uint32"):
        ctx.log(f"packed: {fmt_n(n)} {kind}")
        rows += _case(ctx, kind, n)
    return rows


def report(rows, result):
    print_table(
        "PACKED - simdfilter.Packed against the raw array, one process, interleaved "
        f"(x raw = the raw 1-thread scan's time / this; {TARGETS})",
        ["case", "n", "memory", "sel", "func", "method", "ms", "G values/s", "x raw"],
        [
            [
                r["case"],
                f"{r['n']:,}",
                f"{r['ratio']:.3f}x",
                "" if r["sel"] is None else f"{r['sel']:.0%}",
                r["func"],
                r["method"],
                f"{r['best_s'] * 1e3:.2f}",
                f"{r['gvals']:.2f}",
                "" if r["vs_raw"] is None else f"{r['vs_raw']:.2f}",
            ]
            for r in rows
        ],
    )
