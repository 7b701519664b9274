#!/usr/bin/env python3
"""The simdfilter benchmark: every kernel, what users would write instead, and the machine's limits.

    PYTHONPATH=python python3 benchmarks/run.py --quick     # < 1 minute, the CI smoke test
    PYTHONPATH=python python3 benchmarks/run.py             # a few minutes, the committed result
    PYTHONPATH=python python3 benchmarks/run.py --full      # adds 10^5..10^8 elements; long

Everything is measured in one run, on the same arrays, with the methods of one
(data, size, selectivity) cell interleaved so that the noise of a shared machine hits
them all alike. Each number is the best of `repeats` batches of >= `target` seconds.
Every method's result is checked against np.flatnonzero before it is timed.

Writes results/<machine>.json (and .png) - see README.md for how to read them.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from contextlib import nullcontext
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
try:
    import simdfilter as sf
except ImportError:  # run from a checkout without PYTHONPATH
    sys.path.insert(0, str(HERE.parent / "python"))
    import simdfilter as sf

SELECTIVITIES = [0.0, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0]
VALUE_RANGE = 1 << 30  # uint32 data is uniform in [0, VALUE_RANGE)
Ki, Mi = 1 << 10, 1 << 20

FEW = [0.0, 0.01, 0.5, 1.0]
MODES = {
    # sizes: main grid, random data, selectivities `sels` (`small_sels` below 64 Ki);
    # clustered: sizes that also get sorted and long-run data, at `clustered_sels`;
    # big: size of the memory and threads sections; target: seconds per timed batch.
    "quick": dict(sizes=[1000, 64 * Ki, Mi], sels=FEW, small_sels=FEW, clustered=[Mi],
                  clustered_sels=[0.01, 0.5], big=4 * Mi, dtype_n=64 * Ki, target=0.002, repeats=2,
                  overhead_target=0.005, overhead_repeats=3),
    "default": dict(sizes=[1000, 10_000, 64 * Ki, Mi, 16 * Mi], sels=SELECTIVITIES, small_sels=FEW,
                    clustered=[Mi, 16 * Mi], clustered_sels=[0.001, 0.01, 0.1, 0.5, 0.99],
                    big=64 * Mi, dtype_n=Mi, target=0.02, repeats=3,
                    overhead_target=0.05, overhead_repeats=5),
    "full": dict(sizes=[1000, 10_000, 64 * Ki, 100_000, Mi, 10_000_000, 16 * Mi, 100_000_000],
                 sels=SELECTIVITIES, small_sels=SELECTIVITIES, clustered=[64 * Ki, Mi, 16 * Mi, 100_000_000],
                 clustered_sels=SELECTIVITIES, big=64 * Mi, dtype_n=16 * Mi, target=0.02, repeats=3,
                 overhead_target=0.05, overhead_repeats=5),
}
THREADED_FROM = Mi  # threads=auto rows only from here: the library keeps smaller inputs on one thread
BASELINE = "numpy flatnonzero((a>=lo)&(a<=hi))"


# ---------------------------------------------------------------- the methods


class Method:
    """One thing to time: `fn()` does one call; `kernel` is pinned while it runs."""

    def __init__(self, name, group, func, fn, kernel=None, threads=1):
        self.name, self.group, self.func, self.fn = name, group, func, fn
        self.kernel, self.threads = kernel, threads

    def pinned(self):
        return sf.use_kernel(self.kernel) if self.kernel else nullcontext()


def simdfilter_methods(a, lo, hi, kernels, threads, funcs=("indexes", "count", "values")):
    calls = {"indexes": sf.filter_indexes, "count": sf.count_in_range, "values": sf.filter_values}
    names = {"indexes": "filter_indexes", "count": "count_in_range", "values": "filter_values"}
    out = []
    for t in threads:
        for func in funcs:
            for k in kernels:
                tag = k if t == 1 else f"{k}, threads={t or 'auto'}"
                call = calls[func]
                out.append(Method(f"{names[func]} [{tag}]", "simdfilter", func,
                                  lambda call=call, t=t: call(a, lo, hi, threads=t), k, t))
    return out


def load_alternatives():
    """The libraries users would reach for instead; each missing one is skipped, loudly."""
    alts = {}
    for mod in ("numexpr", "pandas", "polars", "pyarrow", "numba"):
        try:
            alts[mod] = __import__(mod)
        except Exception as exc:  # ImportError, or a broken install
            print(f"skipped {mod}: cannot import it ({type(exc).__name__}: {exc})")
    if "numexpr" in alts:
        alts["numexpr"].set_num_threads(1)  # single-thread comparison, like everything else
    if "pyarrow" in alts:
        import pyarrow.compute
        alts["pyarrow.compute"] = pyarrow.compute
    if "numba" in alts:
        nb = alts["numba"]

        @nb.njit(nogil=True)
        def numba_filter(a, lo, hi):  # the loop a Numba user writes
            out = np.empty(a.size, np.int64)
            k = 0
            for i in range(a.size):
                if a[i] >= lo and a[i] <= hi:
                    out[k] = i
                    k += 1
            return out[:k].copy()

        alts["numba_filter"] = numba_filter
    return alts


class Views:
    """Per-array objects built once, outside the timing: zero-copy wrappers and a copy target."""

    def __init__(self, a, alts):
        self.a, self.dst, self.out = a, np.empty_like(a), np.empty(a.size, np.uint32)
        self.pandas = alts["pandas"].Series(a, copy=False) if "pandas" in alts else None
        self.polars = alts["polars"].Series("a", a) if "polars" in alts else None
        self.arrow = alts["pyarrow"].array(a) if "pyarrow" in alts else None
        for name, view in (("pandas", self.pandas), ("polars", self.polars)):
            if view is not None and not np.shares_memory(view.to_numpy(), a):
                print(f"note: the {name} Series is a copy, not a view")


def alternative_methods(v, lo, hi, alts):
    a, lo32, hi32, w32 = v.a, np.uint32(lo), np.uint32(hi), np.uint32(hi - lo)
    m = [
        Method(BASELINE, "numpy", "indexes", lambda: np.flatnonzero((a >= lo32) & (a <= hi32))),
        Method("numpy nonzero((a-lo)<=(hi-lo))", "numpy", "indexes", lambda: np.nonzero((a - lo32) <= w32)[0]),
        Method("numpy a[(a>=lo)&(a<=hi)]", "numpy", "values", lambda: a[(a >= lo32) & (a <= hi32)]),
        Method("numpy count_nonzero((a>=lo)&(a<=hi))", "numpy", "count",
               lambda: np.count_nonzero((a >= lo32) & (a <= hi32))),
    ]
    if "numexpr" in alts:
        ne = alts["numexpr"]
        m.append(Method("numexpr + flatnonzero", "alternative", "indexes",
                        lambda: np.flatnonzero(ne.evaluate("(a >= lo32) & (a <= hi32)",
                                                           local_dict=dict(a=a, lo32=lo32, hi32=hi32)))))
    if v.pandas is not None:
        ps = v.pandas
        m.append(Method("pandas between + flatnonzero", "alternative", "indexes",
                        lambda: np.flatnonzero(ps.between(lo, hi).to_numpy())))
    if v.polars is not None:
        pl, pls = alts["polars"], v.polars
        m.append(Method("polars arg_where(is_between)", "alternative", "indexes",
                        lambda: pl.arg_where(pls.is_between(lo, hi), eager=True).to_numpy()))
    if v.arrow is not None:
        pa, pc, arr = alts["pyarrow"], alts["pyarrow.compute"], v.arrow
        plo, phi = pa.scalar(lo, pa.uint32()), pa.scalar(hi, pa.uint32())
        m.append(Method("pyarrow and/ge/le + indices_nonzero", "alternative", "indexes",
                        lambda: pc.indices_nonzero(pc.and_(pc.greater_equal(arr, plo),
                                                           pc.less_equal(arr, phi))).to_numpy()))
    if "numba_filter" in alts:
        f = alts["numba_filter"]
        m.append(Method("numba @njit loop", "alternative", "indexes", lambda: f(a, lo32, hi32)))
    dst = v.dst
    m += [
        Method("limit: read pass (a.max())", "limit", "read", lambda: a.max()),
        Method("limit: copy (np.copyto)", "limit", "copy", lambda: np.copyto(dst, a)),
        Method("limit: copy to a new array (a.copy())", "limit", "newcopy", lambda: a.copy()),
    ]
    return m


# ---------------------------------------------------------------- timing


def _batch(fn, loops):
    t0 = time.perf_counter()
    for _ in range(loops):
        fn()
    return time.perf_counter() - t0


def measure(methods, target, repeats, check=None):
    """{method: (best, median) seconds per call}, methods interleaved batch by batch.

    The first call of each method is its warm-up and, if `check` is given, is checked."""
    loops = {}
    for m in methods:
        with m.pinned():
            t0 = time.perf_counter()
            res = m.fn()
            first = time.perf_counter() - t0
            if check is not None:
                check(m, res)
            del res
            loops[m] = max(1, int(target / 4 / max(first, 1e-9)))
            while (t := _batch(m.fn, loops[m])) < target / 4:  # refine on warm calls
                loops[m] *= 2
            loops[m] = max(1, round(loops[m] * target / t))
    times = {m: [] for m in methods}
    gc_on = gc.isenabled()
    gc.disable()
    try:
        for r in range(repeats):
            for m in methods if r % 2 == 0 else methods[::-1]:
                with m.pinned():
                    times[m].append(_batch(m.fn, loops[m]) / loops[m])
    finally:
        if gc_on:
            gc.enable()
    return {m: (min(ts), statistics.median(ts)) for m, ts in times.items()}


def checker(a, expected):
    want_values = a[expected]

    def check(m, res):
        if m.func == "indexes":
            ok = np.array_equal(np.asarray(res), expected)
        elif m.func == "values":
            ok = np.array_equal(np.asarray(res), want_values)
        elif m.func == "count":
            ok = int(res) == expected.size
        else:
            return
        if not ok:
            raise AssertionError(f"{m.name} gave a wrong result (n={a.size}, dtype={a.dtype}) - not timing it")

    return check


# ---------------------------------------------------------------- data


def make_data(kind, n, rng):
    """uint32 in [0, VALUE_RANGE): uniformly random, sorted (in-range values form one run),
    or long runs of one value (random values, runs of up to 1024)."""
    if kind == "random":
        return rng.integers(0, VALUE_RANGE, n, dtype=np.uint32)
    if kind == "sorted":
        return np.sort(rng.integers(0, VALUE_RANGE, n, dtype=np.uint32))
    run = max(1, min(1024, n // 64))
    return np.repeat(rng.integers(0, VALUE_RANGE, n // run + 1, dtype=np.uint32), run)[:n].copy()


def bounds(sel):
    """[lo, hi] holding the fraction `sel` of [0, VALUE_RANGE), centred; 0% is a real range
    (lo = hi = VALUE_RANGE) that nothing falls in, not lo > hi."""
    if sel <= 0:
        return VALUE_RANGE, VALUE_RANGE
    width = max(1, round(sel * VALUE_RANGE))
    lo = (VALUE_RANGE - width) // 2
    return lo, lo + width - 1


def best_kernel():
    return sf.available_kernels()[-1]


# ---------------------------------------------------------------- sections


def run_grid(cfg, kernels, alts, rng, log):
    """Every method on every (kind, size, selectivity) cell; returns the records."""
    records = []
    for n in cfg["sizes"]:
        kinds = ["random"] + (["sorted", "runs"] if n in cfg["clustered"] else [])
        for kind in kinds:
            a = make_data(kind, n, rng)
            views = Views(a, alts)
            t_cell = time.perf_counter()
            sels = (cfg["clustered_sels"] if kind != "random"
                    else cfg["sels"] if n >= 64 * Ki else cfg["small_sels"])
            for sel in sels:
                lo, hi = bounds(sel)
                expected = np.flatnonzero((a >= lo) & (a <= hi))
                threads = [1, None] if n >= THREADED_FROM else [1]
                alt = alternative_methods(views, lo, hi, alts)
                simd = simdfilter_methods(a, lo, hi, kernels, threads)
                simd.insert(len(kernels), Method(  # the best kernel into a preallocated result
                    f"filter_indexes(out=) [{kernels[-1]}]", "simdfilter", "indexes",
                    lambda: sf.filter_indexes(a, lo, hi, out=views.out, threads=1), kernels[-1]))
                methods = alt + simd
                res = measure(methods, cfg["target"], cfg["repeats"], checker(a, expected))
                records += to_records(res, kind, n, sel, expected.size)
            log(f"  {kind:6s} n={n:>11,}: {len(sels)} selectivities x {len(methods)} methods "
                f"in {time.perf_counter() - t_cell:5.1f} s")
            del a, views
    return records


def to_records(res, kind, n, sel, hits):
    by_name = {m.name: t for m, t in res.items()}
    base = by_name[BASELINE][0]
    read = min(t[0] for m, t in res.items() if m.func == "read" or
               (m.func == "count" and m.group == "simdfilter" and m.threads == 1))
    copy = by_name["limit: copy (np.copyto)"][0]
    out = []
    for m, (best, med) in res.items():
        out.append(dict(kind=kind, n=n, sel=sel, hits=hits, method=m.name, group=m.group, func=m.func,
                        kernel=m.kernel, threads=m.threads if m.threads else "auto",
                        best_s=best, median_s=med, eps=n / best if n else None,
                        vs_numpy=base / best, of_read=read / best, of_copy=copy / best))
    return out


def run_threads(cfg, rng):
    n, k = cfg["big"], best_kernel()
    a = make_data("random", n, rng)
    views = Views(a, {})  # NumPy and the limits only: the alternatives are single-threaded
    rows = []
    for sel in (0.01, 0.5):
        lo, hi = bounds(sel)
        expected = np.flatnonzero((a >= lo) & (a <= hi))
        methods = [m for m in alternative_methods(views, lo, hi, {}) if m.name == BASELINE or m.group == "limit"]
        methods += simdfilter_methods(a, lo, hi, [k], [1, 2, None], funcs=("indexes", "count"))
        res = measure(methods, cfg["target"], cfg["repeats"], checker(a, expected))
        one = {m.func: t[0] for m, t in res.items() if m.threads == 1 and m.group == "simdfilter"}
        for m, (best, _) in res.items():
            rows.append(dict(n=n, sel=sel, method=m.name, threads=m.threads or "auto", eps=n / best,
                             vs_one_thread=one[m.func] / best if m.group == "simdfilter" else None))
    return rows


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def _trim():
    try:
        import ctypes
        ctypes.CDLL(None).malloc_trim(0)  # glibc
    except (OSError, AttributeError):
        pass


def peak_memory(fn):
    """(result bytes, RSS growth bytes, tracemalloc peak bytes) of one call.

    RSS: /proc/self/status VmHWM after resetting it with `echo 5 > /proc/self/clear_refs`
    (physical pages touched); tracemalloc: what NumPy (and simdfilter's NumPy-owned
    buffers) allocated, touched or not."""
    gc.collect()
    _trim()  # hand freed heap pages back, or a reused free block would hide the growth
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        rss0 = _status_kib("VmRSS")
    except OSError:
        rss0 = None
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    res = fn()
    traced = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    rss = (_status_kib("VmHWM") - rss0) * 1024 if rss0 is not None else None
    return np.asarray(res).nbytes if np.ndim(res) else 0, rss, traced


def _numpy_hugepages(on):
    """NumPy madvises huge pages for large arrays, so RSS grows in 2 MiB steps; returns the
    previous setting, or None where NumPy has no such switch."""
    try:
        from numpy._core import multiarray as ma
    except ImportError:  # NumPy 1.x
        from numpy.core import multiarray as ma
    return ma._set_madvise_hugepage(on) if hasattr(ma, "_set_madvise_hugepage") else None


def run_memory(cfg, rng):
    n, k = cfg["big"], best_kernel()
    a = make_data("random", n, rng)
    rows = []
    for sel in (0.01, 0.5):
        lo, hi = bounds(sel)
        lo32, hi32 = np.uint32(lo), np.uint32(hi)
        methods = [
            (f"filter_indexes [{k}]", lambda: sf.filter_indexes(a, lo, hi, threads=1)),
            (f"filter_indexes [{k}, threads=auto]", lambda: sf.filter_indexes(a, lo, hi)),
            (f"filter_values [{k}]", lambda: sf.filter_values(a, lo, hi, threads=1)),
            (f"count_in_range [{k}]", lambda: sf.count_in_range(a, lo, hi, threads=1)),
            (BASELINE, lambda: np.flatnonzero((a >= lo32) & (a <= hi32))),
            ("numpy nonzero((a-lo)<=(hi-lo))", lambda: np.nonzero((a - lo32) <= np.uint32(hi - lo))[0]),
            ("numpy a[(a>=lo)&(a<=hi)]", lambda: a[(a >= lo32) & (a <= hi32)]),
        ]
        with sf.use_kernel(k):
            for name, fn in methods:
                fn()  # warm: thread pools, page tables, code
                result, rss, traced = peak_memory(fn)
                previous = _numpy_hugepages(False)
                rss_small = peak_memory(fn)[1] if previous is not None else None
                if previous is not None:
                    _numpy_hugepages(previous)
                rows.append(dict(n=n, sel=sel, method=name, result_bytes=result, rss_growth=rss,
                                 rss_extra=None if rss is None else rss - result,
                                 rss_extra_no_thp=None if rss_small is None else rss_small - result,
                                 traced_peak=traced, traced_extra=traced - result))
    return rows


def run_overhead(cfg, rng):
    k = best_kernel()
    rows = []
    for n in (0, 1, 16, 256):
        a = rng.integers(0, VALUE_RANGE, n, dtype=np.uint32)
        lo, hi = bounds(0.5)
        lo32, hi32 = np.uint32(lo), np.uint32(hi)
        out = np.empty(n, np.uint32)
        methods = [
            Method(f"filter_indexes [{k}]", "simdfilter", "indexes", lambda: sf.filter_indexes(a, lo, hi), k),
            Method(f"filter_indexes(out=) [{k}]", "simdfilter", "indexes",
                   lambda: sf.filter_indexes(a, lo, hi, out=out), k),
            Method(f"count_in_range [{k}]", "simdfilter", "count", lambda: sf.count_in_range(a, lo, hi), k),
            Method(f"filter_values [{k}]", "simdfilter", "values", lambda: sf.filter_values(a, lo, hi), k),
            Method(BASELINE, "numpy", "indexes", lambda: np.flatnonzero((a >= lo32) & (a <= hi32))),
            Method("numpy nonzero((a-lo)<=(hi-lo))", "numpy", "indexes",
                   lambda: np.nonzero((a - lo32) <= np.uint32(hi - lo))[0]),
            Method("reference: len(a) (a trivial call)", "limit", "none", lambda: len(a)),
        ]
        res = measure(methods, cfg["overhead_target"], cfg["overhead_repeats"],
                      checker(a, np.flatnonzero((a >= lo) & (a <= hi))))
        rows += [dict(n=n, method=m.name, us=best * 1e6, median_us=med * 1e6) for m, (best, med) in res.items()]
    return rows


DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64", "datetime64[ns]"]


def dtype_data(dtype, n, rng):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dt)
    start = np.datetime64("2000-01-01", "ns").astype(np.int64)
    return (start + rng.integers(0, 25 * 365 * 86400 * 10**9, n)).view(dt)


def run_dtypes(cfg, rng):
    """Half of the values in range, random data, one thread: best kernel vs scalar vs NumPy."""
    n, k = cfg["dtype_n"], best_kernel()
    rows = []
    for dtype in DTYPES:
        a = dtype_data(dtype, n, rng)
        s = np.sort(a)
        lo, hi = s[n // 4], s[3 * n // 4 - 1]  # NumPy scalars of the array's dtype
        del s
        expected = np.flatnonzero((a >= lo) & (a <= hi))
        methods = [Method(BASELINE, "numpy", "indexes", lambda: np.flatnonzero((a >= lo) & (a <= hi)))]
        methods += simdfilter_methods(a, lo, hi, sorted({k, "scalar"}, key=sf.available_kernels().index), [1],
                                      funcs=("indexes", "count"))
        res = measure(methods, cfg["target"], cfg["repeats"], checker(a, expected))
        base = next(t[0] for m, t in res.items() if m.name == BASELINE)
        for m, (best, _) in res.items():
            rows.append(dict(dtype=dtype, n=n, sel=expected.size / n, method=m.name, kernel=m.kernel,
                             eps=n / best, gbs=n * a.itemsize / best / 1e9, vs_numpy=base / best))
    return rows


# ---------------------------------------------------------------- targets


def check_targets(grid, overhead, memory):
    k = best_kernel()
    idx1 = f"filter_indexes [{k}]"

    def rec(method, n, sel=0.5, kind="random"):
        return next((r for r in grid if r["method"] == method and r["n"] == n
                     and r["sel"] == sel and r["kind"] == kind), None)

    out = []

    def target(what, value, ok, unit):
        out.append(dict(target=what, value=value, met=None if value is None else bool(ok(value)), unit=unit))

    for n, want in ((64 * Ki, 10), (Mi, 10), (16 * Mi, 8)):
        r = rec(idx1, n)
        target(f"filter_indexes [{k}] >= {want}x numpy at n={n:,}, 50%",
               r and r["vs_numpy"], lambda v, w=want: v >= w, "x")
    for kern, want in (("avx512", 20e9), ("avx2", 10e9)):
        r = rec(f"filter_indexes [{kern}]", 64 * Ki)
        target(f"{kern} >= {want / 1e9:.0f} G elements/s at n=65,536, 50%",
               r and r["eps"], lambda v, w=want: v >= w, "elements/s")
    large = max(r["n"] for r in grid)
    fi, cr = rec(idx1, large, 0.01), rec(f"count_in_range [{k}]", large, 0.01)
    target(f"filter_indexes within 10% of count_in_range (compare+count) at n={large:,}, 1%",
           fi and cr and fi["best_s"] / cr["best_s"], lambda v: v <= 1.10, "time ratio")
    fo = rec(f"filter_indexes(out=) [{k}]", large, 0.01)
    target("  (for information: the same with out=, no allocation)",
           fo and cr and fo["best_s"] / cr["best_s"], lambda v: v <= 1.10, "time ratio")
    rd = rec("limit: read pass (a.max())", large, 0.01)
    target(f"  (for information: vs the a.max() read pass at n={large:,}, 1%)",
           fi and rd and fi["best_s"] / rd["best_s"], lambda v: v <= 1.10, "time ratio")
    o = next((r for r in overhead if r["n"] == 16 and r["method"] == idx1), None)
    target("call overhead of filter_indexes at n=16 < 0.5 us", o and o["us"], lambda v: v < 0.5, "us")
    for r in memory:
        if r["method"] == idx1:
            for key, pages in (("rss_extra", "NumPy's huge pages"), ("rss_extra_no_thp", "4 KiB pages")):
                target(f"peak extra memory of filter_indexes < 1 MiB beyond the result (n={r['n']:,}, "
                       f"{r['sel']:.0%}, RSS, {pages})", r[key], lambda v: v < Mi, "bytes")
    return out


# ---------------------------------------------------------------- printing


def fmt_n(n):
    for unit, size in (("Mi", Mi), ("Ki", Ki)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,}" if n < 10**6 or n % 10**6 else f"1e{len(str(n)) - 1}"


def fmt_sel(s):
    return f"{s:.1%}".replace(".0%", "%") if s else "0%"


def print_table(title, header, rows, note=None):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = "  ".join("-" * w for w in widths)
    print(f"\n{title}")
    if note:
        print(note)
    print("  ".join(f"{h:<{w}}" if i == 0 else f"{h:>{w}}" for i, (h, w) in enumerate(zip(header, widths))))
    print(line)
    for r in rows:
        print("  ".join(f"{x:<{w}}" if i == 0 else f"{x:>{w}}" for i, (x, w) in enumerate(zip(r, widths))))


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


def report(result):
    grid, sizes = result["grid"], sorted({r["n"] for r in result["grid"]})
    one_thread = lambda name: "threads=" not in name
    grid_table(grid, "MAIN TABLE - uint32, uniformly random, 50% in range: G elements/s and ratio to NumPy",
               [(fmt_n(n), "random", n, 0.5) for n in sizes],
               lambda r: g_and_ratio(r) + (f" {r['of_read']:4.0%}" if r and r["n"] == sizes[-1] else ""),
               note=f"(ratio: NumPy's time / this time, same run; last column adds the fraction of the read "
                    f"pass at {fmt_n(sizes[-1])})")
    sels = sorted({r["sel"] for r in grid})
    for n in list(dict.fromkeys(n for n in (Mi, 16 * Mi, sizes[-1]) if n in sizes))[:2]:
        grid_table(grid, f"SELECTIVITY - uint32, random, n = {fmt_n(n)}, one thread: G elements/s",
                   [(fmt_sel(s), "random", n, s) for s in sels],
                   lambda r: "" if r is None else f"{r['eps'] / 1e9:.2f}", methods=one_thread)
    big = max(n for n in sizes if any(r["kind"] == "sorted" and r["n"] == n for r in grid))
    csels = [s for s in (0.01, 0.5, 0.99) if s in sels] or sels
    grid_table(grid, f"CLUSTERED DATA - n = {fmt_n(big)}, one thread: G elements/s for random / sorted / runs",
               [(f"{fmt_sel(s)} {k}", k, big, s) for s in csels for k in ("random", "sorted", "runs")],
               lambda r: "" if r is None else f"{r['eps'] / 1e9:.2f}",
               methods=lambda name: one_thread(name) and not name.startswith(
                   ("count", "filter_values", "numpy a[", "numpy count")))
    print_table(f"THREADS - n = {fmt_n(result['threads'][0]['n'])}, random uint32",
                ["method", "sel", "G el/s", "vs 1 thread"],
                [[r["method"], fmt_sel(r["sel"]), f"{r['eps'] / 1e9:.2f}",
                  "" if r["vs_one_thread"] is None else f"{r['vs_one_thread']:.2f}x"] for r in result["threads"]])
    mib = lambda b: "n/a" if b is None else f"{b / Mi:8.2f}"
    print_table(f"PEAK MEMORY PER CALL - n = {fmt_n(result['memory'][0]['n'])} uint32 "
                f"({result['memory'][0]['n'] * 4 / Mi:.0f} MiB of input), MiB",
                ["method", "sel", "result", "RSS extra", "RSS extra, 4K pages", "traced extra"],
                [[r["method"], fmt_sel(r["sel"]), mib(r["result_bytes"]), mib(r["rss_extra"]),
                  mib(r["rss_extra_no_thp"]), mib(r["traced_extra"])] for r in result["memory"]],
                note="(extra = peak growth beyond the result. RSS = physical pages touched, with NumPy's default\n"
                     " huge-page madvise (2 MiB steps) and with it off (4 KiB pages); traced = tracemalloc, which\n"
                     " counts allocations even where their pages are never touched)")
    ov = result["overhead"]
    ns = sorted({r["n"] for r in ov})
    by = {(r["method"], r["n"]): r["us"] for r in ov}
    print_table("CALL OVERHEAD - microseconds per call (best)", ["method"] + [f"n={n}" for n in ns],
                [[m] + [f"{by[(m, n)]:.3f}" for n in ns] for m in dict.fromkeys(r["method"] for r in ov)])
    dt = result["dtypes"]
    if dt:
        names = list(dict.fromkeys(r["method"] for r in dt))
        by = {(r["dtype"], r["method"]): r for r in dt}
        print_table(f"DTYPES - n = {fmt_n(dt[0]['n'])}, random, ~50% in range, one thread: G elements/s "
                    f"(ratio to NumPy)", ["dtype"] + names,
                    [[d] + [f"{by[(d, m)]['eps'] / 1e9:.2f} ({by[(d, m)]['vs_numpy']:.1f}x)" for m in names]
                     for d in dict.fromkeys(r["dtype"] for r in dt)])
    print_table("TARGETS", ["target", "measured", "met"],
                [[t["target"], "n/a" if t["value"] is None else
                  (f"{t['value'] / 1e9:.2f} G/s" if t["unit"] == "elements/s" else
                   f"{t['value'] / Mi:.3f} MiB" if t["unit"] == "bytes" else f"{t['value']:.3f} {t['unit']}"),
                  {True: "yes", False: "NO", None: "n/a"}[t["met"]]] for t in result["targets"]])


# ---------------------------------------------------------------- plot


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        print(f"skipped the plot: cannot import matplotlib ({type(exc).__name__}: {exc})")
        return None
    grid = [r for r in result["grid"] if r["kind"] == "random" and r["func"] in ("indexes", "read", "copy", "newcopy")]
    names = list(dict.fromkeys(r["method"] for r in grid))
    names = [m for m in names if "threads=" not in m or m == f"filter_indexes [{best_kernel()}, threads=auto]"]
    sizes = sorted({r["n"] for r in grid})
    sels = sorted({r["sel"] for r in grid})
    panels = [(f"vs selectivity, n = {fmt_n(n)}", "sel", n) for n in (Mi, 16 * Mi) if n in sizes]
    panels = (panels or [(f"vs selectivity, n = {fmt_n(sizes[-1])}", "sel", sizes[-1])]) + [("vs size, 50% in range", "n", 0.5)]
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5.8), sharey=True)
    kernel_colors = {"scalar": "#8c6d31", "sse41": "#e6550d", "avx2": "#31a354", "avx512": "#d62728",
                     "neon": "#31a354", "sve": "#d62728"}
    others = iter(["#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"])
    style = {}
    for m in names:
        kernel = m[m.find("[") + 1:].split(",")[0].rstrip("]")
        if m.startswith("limit"):
            style[m] = dict(color="black" if "new" not in m else "#999999", ls=":" if "read" in m else "-.", lw=1.5)
        elif "threads=" in m:
            style[m] = dict(color="#7b4173", ls="-", lw=2.4, marker="^")
        elif m.startswith("filter_indexes(out=)"):
            style[m] = dict(color=kernel_colors.get(kernel, "#d62728"), ls=(0, (1, 1)), lw=1.6, marker="o",
                            mfc="white", ms=5)
        elif m.startswith("filter_indexes"):
            style[m] = dict(color=kernel_colors.get(kernel, "#d62728"), ls="-", lw=2.4, marker="o")
        else:
            style[m] = dict(color=next(others, "#7f7f7f"), ls="--", lw=2.0 if m == BASELINE else 1.2,
                            marker="s", ms=4)
    index = {(r["method"], r["n"], r["sel"]): r["eps"] for r in grid}
    for ax, (title, axis, fixed) in zip(axes, panels):
        xs = sels if axis == "sel" else sizes
        for m in names:
            pts = [(i if axis == "sel" else x, index.get((m, fixed, x) if axis == "sel" else (m, x, fixed)))
                   for i, x in enumerate(xs)]
            pts = [(x, y) for x, y in pts if y]
            if pts:
                ax.plot(*zip(*pts), label=m, **style[m])
        ax.set_yscale("log")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        if axis == "sel":
            ax.set_xticks(range(len(sels)), [fmt_sel(s) for s in sels])
            ax.set_xlabel("fraction of values in [lo, hi]")
        else:
            ax.set_xscale("log")
            ax.set_xlabel("n (uint32 elements)")
    axes[0].set_ylabel("elements / second (one thread unless marked)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=9, frameon=False)
    m = result["machine"]
    fig.suptitle(f"simdfilter {m['simdfilter']} on {m['cpu']} ({m['cpus']} CPUs), uint32, random data - "
                 f"{result['date'][:10]}")
    fig.tight_layout(rect=(0, 0.02 + 0.035 * ((len(names) + 3) // 4), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ---------------------------------------------------------------- main


def machine_info():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = {}
    for mod in ("pandas", "polars", "pyarrow", "numexpr", "numba", "matplotlib"):
        try:
            versions[mod] = __import__(mod).__version__
        except Exception:
            versions[mod] = None
    try:
        commit = subprocess.run(["git", "-C", str(HERE), "describe", "--always", "--dirty"],
                                capture_output=True, text=True, timeout=10).stdout.strip() or None
    except Exception:
        commit = None
    return dict(cpu=cpu, cpus=cpus, node=platform.node(), system=platform.platform(),
                python=platform.python_version(), numpy=np.__version__, simdfilter=sf.__version__,
                git=commit, kernels=list(sf.available_kernels()), cpu_features=list(sf.cpu_features()),
                versions=versions)


def machine_slug(info):
    s = re.sub(r"\((r|tm)\)|\bcpu\b|\bprocessor\b|@.*$|\d+-core", " ", info["cpu"].lower())
    s = re.sub(r"[^a-z0-9]+", "-", s).strip("-") or platform.machine()
    return f"{s}-{info['cpus']}c"


def _round(obj):
    if isinstance(obj, float):
        return float(f"{obj:.4g}")
    if isinstance(obj, dict):
        return {k: _round(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_round(v) for v in obj]
    return obj


def to_json(result):
    """Readable and diff-friendly: one record per line."""
    parts = []
    for key, value in _round(result).items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            body = "[\n" + ",\n".join("  " + json.dumps(r, separators=(",", ":")) for r in value) + "\n ]"
        else:
            body = json.dumps(value)
        parts.append(f" {json.dumps(key)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="small sizes and short timings (< 1 minute): a smoke test")
    g.add_argument("--full", action="store_true", help="sizes up to 10^8 and the 16 Mi dtype table (long)")
    p.add_argument("--name", help="machine name for the result files (default: CPU model + CPU count)")
    p.add_argument("--out", type=Path, default=HERE / "results", help="directory for <name>.json/.png")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument("--sections", default="grid,threads,memory,overhead,dtypes",
                   help="comma-separated subset of grid,threads,memory,overhead,dtypes")
    p.add_argument("--seed", type=int, default=20240601)
    args = p.parse_args(argv)
    mode = "quick" if args.quick else "full" if args.full else "default"
    cfg, sections = MODES[mode], set(args.sections.split(","))
    t_start = time.perf_counter()
    log = lambda msg: print(msg, flush=True)

    info = machine_info()
    name = args.name or machine_slug(info) + ("" if mode == "default" else f"-{mode}")
    log(f"simdfilter {info['simdfilter']} ({info['git']}), NumPy {info['numpy']}, Python {info['python']}; "
        f"{info['cpu']}, {info['cpus']} CPUs; mode {mode}")
    log(f"kernels: {', '.join(info['kernels'])} (best: {best_kernel()}); load average {os.getloadavg()}")
    alts = load_alternatives()
    rng = np.random.default_rng(args.seed)
    result = dict(date=datetime.datetime.now().astimezone().isoformat(timespec="seconds"), mode=mode,
                  machine=info, config=cfg, load_before=os.getloadavg(), grid=[], threads=[], memory=[],
                  overhead=[], dtypes=[], timings={})
    steps = [("grid", lambda: run_grid(cfg, list(sf.available_kernels()), alts, rng, log)),
             ("threads", lambda: run_threads(cfg, rng)),
             ("memory", lambda: run_memory(cfg, rng)),
             ("overhead", lambda: run_overhead(cfg, rng)),
             ("dtypes", lambda: run_dtypes(cfg, rng))]
    for section, fn in steps:
        if section in sections:
            t0 = time.perf_counter()
            log(f"{section} ...")
            result[section] = fn()
            result["timings"][section] = time.perf_counter() - t0
            log(f"{section}: {result['timings'][section]:.1f} s")
    result["targets"] = check_targets(result["grid"], result["overhead"], result["memory"]) if "grid" in sections else []
    result["load_after"] = os.getloadavg()
    result["timings"]["total"] = time.perf_counter() - t_start
    if {"grid", "threads", "memory", "overhead"} <= sections:
        report(result)
    args.out.mkdir(parents=True, exist_ok=True)
    json_path = args.out / f"{name}.json"
    json_path.write_text(to_json(result))
    png = None if args.no_plot or "grid" not in sections else plot(result, args.out / f"{name}.png")
    print(f"\nwrote {json_path}" + (f" and {png}" if png else "") +
          f"; {result['timings']['total']:.0f} s in all; load average {result['load_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
