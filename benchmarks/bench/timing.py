"""Interleaved best-of timing, and the check that every method's first result is right."""

import gc
import statistics
import time

import numpy as np


def _batch(fn, loops):
    t0 = time.perf_counter()
    for _ in range(loops):
        fn()
    return time.perf_counter() - t0


def _calibrate(m, target, check):
    """Loops per batch for `m` so that a batch takes about `target` seconds; the first call
    is the warm-up and, if `check` is given, is checked."""
    with m.pinned():
        t0 = time.perf_counter()
        res = m.fn()
        first = time.perf_counter() - t0
        if check is not None:
            check(m, res)
        del res
        loops = max(1, int(target / 4 / max(first, 1e-9)))
        while (t := _batch(m.fn, loops)) < target / 4:  # refine on warm calls
            loops *= 2
        return max(1, round(loops * target / t))


def measure(methods, target, repeats, check=None):
    """{method: (best, median) seconds per call}, methods interleaved batch by batch
    (forward, then backward) so that drift on a shared machine hits them all alike.

    The first call of each method is its warm-up and, if `check` is given, is checked."""
    loops = {m: _calibrate(m, target, check) for m in methods}
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
    """check(method, result): raises unless the result matches `expected` (the indexes in
    range), so that no wrong-but-fast number is ever reported."""
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
            raise AssertionError(
                f"{m.name} gave a wrong result (n={a.size}, dtype={a.dtype}) - not timing it"
            )

    return check
