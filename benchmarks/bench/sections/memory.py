"""Peak memory per call: result bytes, and the growth of RSS and of tracemalloc beyond it."""

import gc
import tracemalloc

import numpy as np
import simdfilter as sf

from ..config import Mi
from ..data import bounds, make_data
from ..methods import Method, best_kernel, numpy_methods
from ..report import fmt_n, fmt_sel, print_table


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


def _methods(a, lo, hi, k):
    return [
        Method(
            f"filter_indexes [{k}]",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(a, lo, hi, threads=1),
        ),
        Method(
            f"filter_indexes [{k}, threads=auto]",
            "simdfilter",
            "indexes",
            lambda: sf.filter_indexes(a, lo, hi),
        ),
        Method(
            f"filter_values [{k}]",
            "simdfilter",
            "values",
            lambda: sf.filter_values(a, lo, hi, threads=1),
        ),
        Method(
            f"count_in_range [{k}]",
            "simdfilter",
            "count",
            lambda: sf.count_in_range(a, lo, hi, threads=1),
        ),
    ] + [m for m in numpy_methods(a, lo, hi) if m.func != "count"]


def _measure(m, n, sel):
    m.fn()  # warm: thread pools, page tables, code
    result, rss, traced = peak_memory(m.fn)
    previous = _numpy_hugepages(False)
    rss_small = peak_memory(m.fn)[1] if previous is not None else None
    if previous is not None:
        _numpy_hugepages(previous)
    return dict(
        n=n,
        sel=sel,
        method=m.name,
        result_bytes=result,
        rss_growth=rss,
        rss_extra=None if rss is None else rss - result,
        rss_extra_no_thp=None if rss_small is None else rss_small - result,
        traced_peak=traced,
        traced_extra=traced - result,
    )


def run(ctx):
    n, k = ctx.cfg["big"], best_kernel()
    a = make_data("random", n, ctx.rng)
    rows = []
    for sel in (0.01, 0.5):
        lo, hi = bounds(sel)
        with sf.use_kernel(k):
            rows += [_measure(m, n, sel) for m in _methods(a, lo, hi, k)]
    return rows


def report(rows, result):
    mib = lambda b: "n/a" if b is None else f"{b / Mi:8.2f}"
    print_table(
        f"PEAK MEMORY PER CALL - n = {fmt_n(rows[0]['n'])} uint32 "
        f"({rows[0]['n'] * 4 / Mi:.0f} MiB of input), MiB",
        ["method", "sel", "result", "RSS extra", "RSS extra, 4K pages", "traced extra"],
        [
            [
                r["method"],
                fmt_sel(r["sel"]),
                mib(r["result_bytes"]),
                mib(r["rss_extra"]),
                mib(r["rss_extra_no_thp"]),
                mib(r["traced_extra"]),
            ]
            for r in rows
        ],
        note="(extra = peak growth beyond the result. RSS = physical pages touched, with NumPy's default\n"
        " huge-page madvise (2 MiB steps) and with it off (4 KiB pages); traced = tracemalloc, which\n"
        " counts allocations even where their pages are never touched)",
    )
