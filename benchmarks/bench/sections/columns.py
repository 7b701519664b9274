"""Columns: filter_indexes on the columns data tools hold (pyarrow Array and ChunkedArray,
Polars Series, pandas masked and Arrow-backed Series, numpy.ma), next to the same data as a
plain NumPy array and to the copy a user makes today; per-call cost at n = 16; peak memory of
one call on a large Arrow column with nulls.

Data: int64 values uniform in [0, 2^30) and float64 uniform in [0, 2^30), ~10 % in range,
with 0 % or 10 % nulls (random positions). Every column keeps the value under a null as it
was drawn, so a null that is in range underneath must still not match. The plain NumPy array
holds the same values with each null replaced by a value outside the range (-1, or NaN for
float64), so that every row of a cell has one and the same answer: np.flatnonzero of the
valid values in range, which every method's first result is checked against.

The copy-based alternative is what gives a NumPy array with the right answer today:
`np.asarray(col)` (pyarrow, pandas: float64 with NaN for the nulls; the values here stay
below 2^53, so that conversion is exact and the answer right), `s.to_numpy()` for Polars
(float64 with NaN when there are nulls), and `np.ma.filled(m.astype(float64, copy=False),
nan)` for numpy.ma (`np.asarray` of a masked array drops the mask: a wrong answer), each
followed by filter_indexes on that array.

The peak-memory part runs in a fresh subprocess, which builds the column from buffers filled
chunk by chunk (so building it leaves no freed pages behind that a call could reuse) and
measures VmHWM after resetting it through /proc/self/clear_refs (the memory section's
method). Where that file cannot be written, ru_maxrss, for the first method only: exact when
the call raised the process's peak, else an upper bound (the build's ~1 MiB of temporaries).
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import simdfilter as sf

from ..config import Mi
from ..data import VALUE_RANGE, bounds
from ..methods import Method, best_kernel
from ..report import fmt_n, fmt_sel, print_table
from ..timing import checker, measure

SEL = 0.1  # fraction of the value range in [lo, hi]
NULLS = (0.0, 0.1)
DTYPES = ("int64", "float64")
CHUNKS = 8
PLAIN = "numpy array"
# Input kinds in table order, with the library each needs.
KINDS = {
    PLAIN: "numpy",
    "pyarrow Array": "pyarrow",
    f"pyarrow ChunkedArray ({CHUNKS})": "pyarrow",
    "Polars Series": "polars",
    "pandas Int64/Float64": "pandas",
    "pandas int64/double[pyarrow]": "pandas+pyarrow",
    "numpy.ma": "numpy",
}
# How each kind becomes a NumPy array with the right answer today (see the module docstring).
COPY_HOW = {
    "pyarrow Array": "np.asarray(col)",
    f"pyarrow ChunkedArray ({CHUNKS})": "np.asarray(col)",
    "Polars Series": "s.to_numpy()",
    "pandas Int64/Float64": "np.asarray(s)",
    "pandas int64/double[pyarrow]": "np.asarray(s)",
    "numpy.ma": "np.ma.filled(m.astype(float64, copy=False), nan)",
}
GOAL_PLAIN, GOAL_COPY, GOAL_US = 1.25, 10.0, 1.5
_BOUND_NOTE = {
    "exact": "",
    "upper": ", '<=': an upper bound, as the call did not raise the process's peak",
}


def _available(alts):
    """The kinds whose libraries imported; each missing one is named once."""
    kinds = []
    for kind, need in KINDS.items():
        missing = [lib for lib in need.split("+") if lib != "numpy" and lib not in alts]
        if missing:
            print(f"skipped columns / {kind}: cannot import {', '.join(missing)}")
        else:
            kinds.append(kind)
    return kinds


def _values(dtype, n, rng):
    if dtype == "int64":
        return rng.integers(0, VALUE_RANGE, n, dtype=np.int64)
    return rng.random(n) * VALUE_RANGE


def _plain(raw, valid):
    """The same values as a NumPy array, each null replaced by a value outside any range."""
    fill = np.nan if raw.dtype.kind == "f" else -1
    return np.where(valid, raw, fill).astype(raw.dtype)


def make_columns(raw, valid, kinds, alts):
    """{kind: column} holding `raw` with nulls where `valid` is False, built once, outside the
    timing; pyarrow and pandas share `raw`'s buffer. With no nulls the Arrow columns have no
    validity buffer, while pandas' masked arrays and numpy.ma carry an all-False mask, as
    they always do."""
    n, has_nulls = raw.size, not valid.all()
    cols = {}
    arr = None
    if "pyarrow" in alts:
        pa = alts["pyarrow"]
        arr = pa.array(raw, mask=~valid if has_nulls else None)
    for kind in kinds:
        if kind == PLAIN:
            cols[kind] = _plain(raw, valid)
        elif kind == "pyarrow Array":
            cols[kind] = arr
        elif kind.startswith("pyarrow ChunkedArray"):
            step = -(-n // CHUNKS)
            cols[kind] = alts["pyarrow"].chunked_array(
                [arr.slice(i, step) for i in range(0, n, step)], type=arr.type
            )
        elif kind == "Polars Series":
            pl = alts["polars"]
            if arr is not None:
                cols[kind] = pl.from_arrow(arr)
            else:  # without pyarrow: nulls through a when/then, which keeps one chunk
                s = pl.Series("a", raw)
                cols[kind] = (
                    pl.select(pl.when(pl.Series(valid)).then(s)).to_series() if has_nulls else s
                )
        elif kind == "pandas Int64/Float64":
            pd = alts["pandas"]
            ea = (pd.arrays.IntegerArray if raw.dtype.kind == "i" else pd.arrays.FloatingArray)(
                raw, ~valid
            )
            cols[kind] = pd.Series(ea, copy=False)
        elif kind == "pandas int64/double[pyarrow]":
            pd = alts["pandas"]
            cols[kind] = pd.Series(pd.arrays.ArrowExtensionArray(arr), copy=False)
        elif kind == "numpy.ma":
            cols[kind] = np.ma.MaskedArray(raw, mask=~valid)
    return cols


def _to_numpy(kind, col):
    """The copy-based conversion of COPY_HOW[kind]."""
    if kind == "Polars Series":
        return col.to_numpy()
    if kind == "numpy.ma":
        return np.ma.filled(col.astype(np.float64, copy=False), np.nan)
    return np.asarray(col)


def _methods(cols, lo, hi, k, threads=1, copies=True):
    """simdfilter on each column (kernel `k` pinned), then the copy-based alternatives.
    threads=None leaves the argument out, as users write the call."""
    kw = {} if threads is None else dict(threads=threads)
    out = []
    for kind, c in cols.items():
        out.append(
            Method(
                f"filter_indexes [{kind}]",
                "simdfilter",
                "indexes",
                lambda c=c: sf.filter_indexes(c, lo, hi, **kw),
                k,
            )
        )
        out[-1].input = kind
    if copies:
        for kind, c in cols.items():
            if kind != PLAIN:
                out.append(
                    Method(
                        f"copy: {COPY_HOW[kind]} + filter_indexes [{kind}]",
                        "alternative",
                        "indexes",
                        lambda kind=kind, c=c: sf.filter_indexes(_to_numpy(kind, c), lo, hi, **kw),
                        k,
                    )
                )
                out[-1].input = kind
    return out


def _throughput(ctx, kinds, k):
    rows = []
    lo, hi = bounds(SEL)
    for n in ctx.cfg["columns_sizes"]:
        for dtype in DTYPES:
            raw = _values(dtype, n, ctx.rng)
            for nulls in NULLS:
                valid = ctx.rng.random(n) >= nulls
                cols = make_columns(raw, valid, kinds, ctx.alts)
                plain = cols[PLAIN]
                expected = np.flatnonzero(valid & (raw >= lo) & (raw <= hi))
                res = measure(
                    _methods(cols, lo, hi, k),
                    ctx.cfg["target"],
                    ctx.cfg["repeats"],
                    checker(plain, expected),
                )
                t = {(m.group, m.input): v for m, v in res.items()}
                base = t[("simdfilter", PLAIN)][0]
                for m, (best, med) in res.items():
                    kind = m.input
                    row = dict(
                        part="throughput",
                        n=n,
                        dtype=dtype,
                        nulls=nulls,
                        null_count=int(n - valid.sum()),
                        sel=expected.size / n,
                        input=kind,
                        method=m.name,
                        group=m.group,
                        kernel=k,
                        best_s=best,
                        median_s=med,
                        eps=n / best,
                    )
                    if m.group == "simdfilter":
                        row["vs_plain"] = best / base  # time ratio: <= GOAL_PLAIN is the goal
                    else:
                        row["column_speedup"] = (
                            best / t[("simdfilter", kind)][0]
                        )  # copy time / column time
                    rows.append(row)
                del cols, plain, res
    return rows


def _per_call(ctx, kinds, k):
    """n = 16 int64, with no nulls and with 2 nulls; the call as users write it."""
    n, rows = 16, []
    lo, hi = bounds(0.5)
    raw = ctx.rng.integers(0, VALUE_RANGE, n, dtype=np.int64)
    for null_count in (0, 2):
        valid = np.ones(n, bool)
        valid[ctx.rng.choice(n, null_count, replace=False)] = False
        cols = make_columns(raw, valid, kinds, ctx.alts)
        expected = np.flatnonzero(valid & (raw >= lo) & (raw <= hi))
        methods = _methods(cols, lo, hi, k, threads=None, copies=null_count > 0)
        methods.append(
            Method("reference: len(a) (a trivial call)", "limit", "none", lambda: len(raw))
        )
        methods[-1].input = None
        res = measure(
            methods,
            ctx.cfg["overhead_target"],
            ctx.cfg["overhead_repeats"],
            checker(cols[PLAIN], expected),
        )
        rows += [
            dict(
                part="per_call",
                n=n,
                dtype="int64",
                null_count=null_count,
                method=m.name,
                group=m.group,
                input=m.input,
                kernel=k,
                us=best * 1e6,
                median_us=med * 1e6,
            )
            for m, (best, med) in res.items()
        ]
    return rows


# ---- peak memory, in a fresh subprocess -------------------------------------------------


def _memory_child(n, nulls, sel, seed, k):
    """Run in a fresh interpreter: build a pyarrow int64 column of n elements from buffers
    filled chunk by chunk, measure each method's peak RSS growth, check every result, and
    print the records as one JSON line."""
    import gc
    import resource

    import pyarrow as pa

    from .memory import _numpy_hugepages, _status_kib, _trim, peak_memory

    rng = np.random.default_rng(seed)
    # a multiple of 8, so every chunk's validity starts on a byte; small, so the build's
    # temporaries (which set the peak that ru_maxrss, without clear_refs, cannot forget) stay ~1 MiB
    chunk = 1 << 16
    values = np.empty(n, np.int64)
    bitmap = np.empty(-(-n // 8), np.uint8)
    for i in range(0, n, chunk):
        j = min(n, i + chunk)
        values[i:j] = rng.integers(0, VALUE_RANGE, j - i, dtype=np.int64)
        bitmap[i // 8 : -(-j // 8)] = np.packbits(rng.random(j - i) >= nulls, bitorder="little")
    arr = pa.Array.from_buffers(pa.int64(), n, [pa.py_buffer(bitmap), pa.py_buffer(values)])
    lo, hi = bounds(sel)

    def expected():
        parts = []
        for i in range(0, n, chunk):
            j = min(n, i + chunk)
            ok = np.unpackbits(bitmap[i // 8 : -(-j // 8)], bitorder="little")[: j - i].astype(bool)
            v = values[i:j]
            parts.append(np.flatnonzero(ok & (v >= lo) & (v <= hi)) + i)
        return np.concatenate(parts)

    want = []

    def check(name, res):
        if not want:
            want.append(expected())
        if not np.array_equal(res, want[0]):
            raise SystemExit(f"{name} gave a wrong result (n={n}) - not reporting it")

    methods = [
        (f"filter_indexes [{k}]", lambda: sf.filter_indexes(arr, lo, hi)),
        (f"filter_indexes [{k}, threads=1]", lambda: sf.filter_indexes(arr, lo, hi, threads=1)),
        (
            f"copy: np.asarray(col) + filter_indexes [{k}]",
            lambda: sf.filter_indexes(np.asarray(arr), lo, hi),
        ),
    ]
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        hwm, bound = True, "exact"
    except OSError:
        hwm = False
    rows = []
    with sf.use_kernel(k):
        for name, fn in methods:
            if hwm:
                res = fn()  # warm-up: thread pools, page tables, code
                check(name, res)
                del res
                result, rss, traced = peak_memory(fn)
                previous = _numpy_hugepages(False)
                rss_small = peak_memory(fn)[1] if previous is not None else None
                if previous is not None:
                    _numpy_hugepages(previous)
            else:
                # ru_maxrss only grows, so: no warm-up, the first method only. If the call
                # raised the peak, growth = new peak - RSS before, exactly; if not, all that
                # is known is growth <= old peak - RSS before (the build's small temporaries).
                gc.collect()
                _trim()
                peak0, rss0 = (
                    resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                    _status_kib("VmRSS"),
                )
                res = fn()
                peak1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                rss, bound = (peak1 - rss0) * 1024, "exact" if peak1 > peak0 else "upper"
                result, traced, rss_small = res.nbytes, None, None
                check(name, res)
                del res
            rows.append(
                dict(
                    part="memory",
                    n=n,
                    dtype="int64",
                    input="pyarrow Array",
                    nulls=nulls,
                    sel=want[0].size / n,
                    method=name,
                    kernel=k,
                    result_bytes=result,
                    rss_source="VmHWM" if hwm else "ru_maxrss",
                    rss_bound=bound,
                    rss_growth=rss,
                    rss_extra=rss - result,
                    rss_extra_no_thp=None if rss_small is None else rss_small - result,
                    traced_extra=None if traced is None else traced - result,
                )
            )
            if not hwm:
                break
    print(json.dumps(rows))


def _memory(ctx, k):
    n = ctx.cfg["columns_mem_n"]
    seed = int(ctx.rng.integers(0, 2**31))
    paths = [
        str(Path(__file__).resolve().parents[2]),
        str(Path(sf.__file__).resolve().parent.parent),
    ]
    code = (
        f"import sys; sys.path[:0] = {paths!r}; from bench.sections.columns import _memory_child; "
        f"_memory_child({n}, 0.1, 0.01, {seed}, {k!r})"
    )
    # pyarrow's own pool (jemalloc/mimalloc) keeps freed pages resident, so a conversion
    # after the warm-up would reuse them and show no growth; the system allocator unmaps them.
    env = dict(os.environ, ARROW_DEFAULT_MEMORY_POOL="system")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if p.returncode:
        raise AssertionError(
            f"columns memory subprocess failed ({p.returncode}):\n{p.stderr}{p.stdout}"
        )
    return json.loads(p.stdout.strip().splitlines()[-1])


def run(ctx):
    kinds = _available(ctx.alts)
    k = best_kernel()
    t0 = time.perf_counter()
    rows = _throughput(ctx, kinds, k)
    ctx.log(f"  columns throughput: {time.perf_counter() - t0:.1f} s")
    t0 = time.perf_counter()
    rows += _per_call(ctx, kinds, k)
    ctx.log(f"  columns per call: {time.perf_counter() - t0:.1f} s")
    if "pyarrow" in ctx.alts:
        t0 = time.perf_counter()
        rows += _memory(ctx, k)
        ctx.log(f"  columns peak memory: {time.perf_counter() - t0:.1f} s")
    else:
        print("skipped columns / peak memory: cannot import pyarrow")
    return rows


def report(rows, result):
    thr = [r for r in rows if r["part"] == "throughput"]
    if thr:
        kinds = list(dict.fromkeys(r["input"] for r in thr))
        cells = list(dict.fromkeys((r["n"], r["dtype"], r["nulls"]) for r in thr))
        by = {(r["n"], r["dtype"], r["nulls"], r["input"], r["group"]): r for r in thr}

        def cell(c, kind, group, ratio, fmt):
            r = by.get((*c, kind, group))
            return "-" if r is None else f"{r['eps'] / 1e9:.2f} ({fmt.format(r[ratio])})"

        k = thr[0]["kernel"]
        head = ["n", "dtype", "nulls"]
        lead = lambda c: [fmt_n(c[0]), c[1], fmt_sel(c[2])]
        print_table(
            f"COLUMNS - filter_indexes [{k}] on each input kind, ~{SEL:.0%} in range, one thread: "
            f"G elements/s (time / numpy-array time; goal <= {GOAL_PLAIN}x)",
            head + kinds,
            [
                lead(c) + [cell(c, kd, "simdfilter", "vs_plain", "{:.2f}x") for kd in kinds]
                for c in cells
            ],
        )
        copy_kinds = [kd for kd in kinds if kd != PLAIN]
        print_table(
            f"COLUMNS - the copy-based alternative: convert to a NumPy array, then filter_indexes [{k}]: "
            f"G elements/s (copy time / column time; goal >= {GOAL_COPY:.0f}x for Polars with nulls)",
            head + copy_kinds,
            [
                lead(c)
                + [cell(c, kd, "alternative", "column_speedup", "{:.1f}x") for kd in copy_kinds]
                for c in cells
            ],
            note="(conversions: " + "; ".join(f"{kd}: {COPY_HOW[kd]}" for kd in copy_kinds) + ")",
        )
    calls = [r for r in rows if r["part"] == "per_call"]
    if calls:
        by = {(r["input"] or r["method"], r["group"], r["null_count"]): r["us"] for r in calls}
        n = calls[0]["n"]
        nc = max(r["null_count"] for r in calls)
        names = list(dict.fromkeys(r["input"] or r["method"] for r in calls))
        fmt = lambda v: "-" if v is None else f"{v:.3f}"
        print_table(
            f"COLUMNS - per-call cost, n = {n} int64, microseconds per call (best; goal < {GOAL_US} us "
            f"for pandas, Polars and pyarrow inputs)",
            ["input", "no nulls", f"{nc} nulls", f"{nc} nulls, copy-based"],
            [
                [
                    name,
                    fmt(by.get((name, "simdfilter", 0), by.get((name, "limit", 0)))),
                    fmt(by.get((name, "simdfilter", nc), by.get((name, "limit", nc)))),
                    fmt(by.get((name, "alternative", nc))),
                ]
                for name in names
            ],
        )
    mem = [r for r in rows if r["part"] == "memory"]
    if mem:
        mib = lambda b: "n/a" if b is None else f"{b / Mi:.2f}"
        up = lambda r, b: ("<= " if r["rss_bound"] == "upper" else "") + mib(b)
        r0 = mem[0]
        print_table(
            f"COLUMNS - peak extra memory of one call, pyarrow int64 Array, n = {fmt_n(r0['n'])} "
            f"({r0['n'] * 8 / Mi:.0f} MiB of values), {fmt_sel(r0['nulls'])} nulls, "
            f"{fmt_sel(r0['sel'])} matching, fresh process, MiB",
            ["method", "result", "RSS growth", "RSS extra", "RSS extra, 4K pages", "traced extra"],
            [
                [
                    r["method"],
                    mib(r["result_bytes"]),
                    up(r, r["rss_growth"]),
                    up(r, r["rss_extra"]),
                    mib(r["rss_extra_no_thp"]),
                    mib(r["traced_extra"]),
                ]
                for r in mem
            ],
            note=f"(RSS from {r0['rss_source']}{_BOUND_NOTE[r0['rss_bound']]}; extra = growth beyond the "
            "result; goal: growth about the size of the result. 4K pages: NumPy's huge-page\n"
            " madvise off; traced: tracemalloc, which counts allocations whose pages are never touched)",
        )
