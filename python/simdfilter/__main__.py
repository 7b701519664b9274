"""`python -m simdfilter`: what this machine has, and a quick check and timing."""

from __future__ import annotations

import sys
import time

import numpy as np

import simdfilter


def _best_time(fn, repeat: int = 7) -> float:
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _why_not_default(name: str) -> str:
    """Why a kernel this CPU runs is not its default, for the timing table."""
    default = simdfilter.default_kernel()
    if name == default:
        return "  (the default)"
    kernels = simdfilter.available_kernels()
    if kernels.index(name) < kernels.index(default):
        return ""  # an older instruction set than the default's
    if name == "avx512" and "slow-compress-store" in simdfilter.cpu_features():
        return (
            "  (not the default here: this CPU runs AVX-512's compress store to memory"
            " in microcode, so dispatch takes avx512_zen4, which compresses in a register)"
        )
    return "  (not the default here)"


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
    t_np = _best_time(lambda: np.flatnonzero((a >= lo) & (a <= hi)))
    print(f"uint32, n = {n:,}, half in range, one thread; elements per second (best of 7):")
    print(f"  {'np.flatnonzero((a >= lo) & (a <= hi))':40s} {n / t_np / 1e9:7.2f} G/s")
    ok = True
    for name in simdfilter.available_kernels():
        with simdfilter.use_kernel(name):
            got = simdfilter.filter_indexes(a, lo, hi, threads=1)
            ok &= bool(np.array_equal(got, expected))
            t = _best_time(lambda: simdfilter.filter_indexes(a, lo, hi, threads=1))
        print(
            f"  {'filter_indexes, kernel ' + name:40s} {n / t / 1e9:7.2f} G/s  {t_np / t:5.1f}x NumPy"
            f"{_why_not_default(name)}"
        )
    print()
    print("results equal to NumPy's:", "yes" if ok else "NO - please report this")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
