"""`python -m simdfilter`: what this machine has, and a quick check and timing."""

from __future__ import annotations

import sys
import time

import numpy as np

import simdfilter
from simdfilter import _core


def _median_time(fn, repeat: int = 7) -> float:
    """The median of `repeat` calls after one: a call as a user makes it again
    and again, with what a fresh result costs each time (page faults included)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def _mark(name: str) -> str:
    """The default, or why dispatch's rule does not pick this kernel here."""
    why = _core._not_default_reason(name)
    return "  (the default)" if why is None else f"  (not the default: {why})"


def main() -> int:
    print(
        f"simdfilter {simdfilter.__version__}, NumPy {np.__version__}, Python {sys.version.split()[0]}"
    )
    print(
        "CPU features found:", " ".join(simdfilter.cpu_features()) or "(none beyond the baseline)"
    )
    print("kernels compiled:  ", ", ".join(simdfilter.compiled_kernels()))
    print("kernels available: ", ", ".join(simdfilter.available_kernels()))
    print("default kernel:    ", simdfilter.default_kernel(), "(dispatch's rule for this CPU)")
    print("active kernel:     ", simdfilter.active_kernel())
    print()
    years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)
    print(">>> years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)")
    print(">>> simdfilter.filter_indexes(years, 1982, 2000)")
    print(repr(simdfilter.filter_indexes(years, 1982, 2000)))
    print()

    n = 1 << 20
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2**32, size=n, dtype=np.uint32)
    lo, hi = 2**30, 3 * 2**30 - 1  # half of the values
    expected = np.flatnonzero((a >= lo) & (a <= hi))
    t_np = _median_time(lambda: np.flatnonzero((a >= lo) & (a <= hi)))
    print(f"uint32, n = {n:,}, half in range, a new result each call (median of 7):")
    print(f"  {'np.flatnonzero((a >= lo) & (a <= hi))':38s} {n / t_np / 1e9:6.2f} G/s")
    ok = True
    for name in simdfilter.available_kernels():
        with simdfilter.use_kernel(name):
            got = simdfilter.filter_indexes(a, lo, hi)
            ok &= bool(np.array_equal(got, expected))
            t = _median_time(lambda: simdfilter.filter_indexes(a, lo, hi))
        print(
            f"  {'filter_indexes, kernel ' + name:38s} {n / t / 1e9:6.2f} G/s"
            f" {t_np / t:5.1f}x NumPy{_mark(name)}"
        )
    for name in simdfilter.compiled_kernels():
        if name not in simdfilter.available_kernels():
            print(f"  {'kernel ' + name:38s} not run here: {_core._not_default_reason(name)}")
    print()
    print("results equal to NumPy's:", "yes" if ok else "NO - please report this")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
