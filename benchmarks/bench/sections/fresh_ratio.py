"""Fresh ÷ out=: what a fresh result costs over writing into a reused `out=`, timed, per cell.

For every n of `fresh_ratio_sizes` (4 Ki to 64 Mi; --quick: to 1 Mi) and selectivity of
`fresh_ratio_sels` (0.1 % to 99 %): filter_indexes on random uint32 data with uint32 and with
int64 positions (`index_dtype=`), and filter_values on uint8, uint32 and float64 data, each
with threads=1 and (from THREADED_FROM on, where the library may use more than one) the
default threads=None. A cell times the fresh call and the same call into an `out=` of the
result's dtype, interleaved, best of `fresh_ratio_repeats` batches each; its figure is best
fresh time / best out= time (1.00: a fresh result costs nothing more). The loop drops each
result before the next call, so a fresh result's memory can come back (the pool's steady
state). Timing only: benchmarks/fresh_guard.py is the CI guard on the same question, in
instructions; this one sees what that cannot, page faults and memory traffic.

uint32 and float64 data are uniform in [0, VALUE_RANGE) with `bounds(sel)`; uint8 data are
uniform over 0..255 with the sel x 256 middle values (rounded, at least one), so its
fraction in range is only near the nominal one (0.39 % at 0.1 %): the JSON has each cell's
`frac`.
"""

import numpy as np
import simdfilter as sf

from ..config import THREADED_FROM
from ..data import VALUE_RANGE, bounds, in_range, make_data
from ..methods import Method
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure

# (column name, function, data dtype, position dtype)
OPS = (
    ("indexes u32", "indexes", "uint32", np.uint32),
    ("indexes i64", "indexes", "uint32", np.int64),
    ("values u8", "values", "uint8", None),
    ("values u32", "values", "uint32", None),
    ("values f64", "values", "float64", None),
)
# Results past the pool's default idle limit (64 MiB) fault their pages at each call; a
# long-running process raises the limit (set_result_pool_limit). The cells whose worst
# case passes it are timed again with this limit, as "<op> pool+" columns.
RAISED_LIMIT = 4 << 30


def _data(dtype, n, rng):
    if dtype == "uint32":
        return make_data("random", n, rng)
    if dtype == "uint8":
        return rng.integers(0, 256, n, dtype=np.uint8)
    return rng.random(n) * VALUE_RANGE


def _bounds(dtype, sel):
    if dtype == "uint8":
        width = max(1, round(sel * 256))
        lo = (256 - width) // 2
        return lo, lo + width - 1
    return bounds(sel)


def _methods(name, func, a, lo, hi, index_dtype, t):
    buf = np.empty(a.size, index_dtype if index_dtype is not None else a.dtype)
    tag = f"threads={t or 'auto'}"
    # The two sides pass the same keywords but out=, spelled out: a `**kw` call costs
    # ~1,700 instructions more than the same keywords written (CPython 3.11, callgrind),
    # a third of a 4 Ki call, which an earlier version of this section charged to the
    # fresh side alone (1.3-1.6x at 4 Ki that the library did not cost).
    if func == "values":
        fresh = lambda: sf.filter_values(a, lo, hi, threads=t)  # noqa: E731
        into = lambda: sf.filter_values(a, lo, hi, out=buf, threads=t)  # noqa: E731
    else:
        fresh = lambda: sf.filter_indexes(a, lo, hi, threads=t, index_dtype=index_dtype)  # noqa: E731
        into = lambda: sf.filter_indexes(  # noqa: E731
            a, lo, hi, out=buf, threads=t, index_dtype=index_dtype
        )
    return (
        Method(f"{name} fresh [{tag}]", "simdfilter", func, fresh),
        Method(f"{name} out= [{tag}]", "simdfilter", func, into),
    )


POOL_LIMIT = sf._core._POOL_IDLE_MAX


def _cell(cfg, a, lo, hi, sel, want, check, name, func, index_dtype, t, limit):
    fresh, out = _methods(name, func, a, lo, hi, index_dtype, t)
    previous = sf.set_result_pool_limit(limit) if limit is not None else None
    try:
        res = measure([fresh, out], cfg["target"], cfg["fresh_ratio_repeats"], check)
    finally:
        if previous is not None:
            sf.set_result_pool_limit(previous)
    return dict(
        n=a.size,
        sel=sel,
        frac=want.size / a.size,
        op=name + (" pool+" if limit is not None else ""),
        threads=t or "auto",
        fresh_s=res[fresh][0],
        out_s=res[out][0],
        ratio=res[fresh][0] / res[out][0],
    )


def run(ctx):
    cfg, rows = ctx.cfg, []
    for n in cfg["fresh_ratio_sizes"]:
        threads = (1, None) if n >= THREADED_FROM else (1,)
        for dtype in ("uint32", "uint8", "float64"):
            a = _data(dtype, n, ctx.rng)
            ops = [op for op in OPS if op[2] == dtype]
            for sel in cfg["fresh_ratio_sels"]:
                lo, hi = _bounds(dtype, sel)
                want = in_range(a, lo, hi)
                check = checker(a, want)
                for name, func, _, index_dtype in ops:
                    width = np.dtype(index_dtype if index_dtype is not None else a.dtype).itemsize
                    limits = [None] + ([RAISED_LIMIT] if n * width > POOL_LIMIT else [])
                    for t in threads:
                        for limit in limits:
                            rows.append(
                                _cell(
                                    cfg,
                                    a,
                                    lo,
                                    hi,
                                    sel,
                                    want,
                                    check,
                                    name,
                                    func,
                                    index_dtype,
                                    t,
                                    limit,
                                )
                            )
            del a
        ctx.log(f"  fresh_ratio n={n:>11,}: done")
    return rows


def report(rows, result):
    cols = [(name + p, t) for name, *_ in OPS for p in ("", " pool+") for t in (1, "auto")]
    cols = [c for c in cols if any((r["op"], r["threads"]) == c for r in rows)]
    index = {(r["n"], r["sel"], r["op"], r["threads"]): r for r in rows}
    body = []
    for n in sorted({r["n"] for r in rows}):
        for sel in sorted({r["sel"] for r in rows}):
            cells = [fmt_n(n), fmt_sel(sel)]
            for op, t in cols:
                r = index.get((n, sel, op, t))
                cells.append(f"{r['ratio']:.2f}" if r else "")
            body.append(cells)
    worst = max(rows, key=lambda r: r["ratio"])
    print_table(
        "FRESH / OUT= - best fresh-result time / best out= time, per cell (1.00: a fresh result "
        "costs nothing more)",
        ["n", "sel"] + [f"{op} t={t}" for op, t in cols],
        body,
        note=f"(indexes: uint32 data, positions uint32 / int64; values: uint8, uint32, float64 "
        f"data; t=1: threads=1, t=auto: threads=None, from {fmt_n(THREADED_FROM)} on; uint8's "
        f"fraction in range is whole values, near the nominal one; worst cell: "
        f"{worst['op']} t={worst['threads']} at {fmt_n(worst['n'])} {fmt_sel(worst['sel'])}, "
        f"{worst['ratio']:.2f}x)",
    )
