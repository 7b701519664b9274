"""The arrays: uint32 data of three kinds, the range holding a given fraction, every dtype."""

import numpy as np

VALUE_RANGE = 1 << 30  # uint32 data is uniform in [0, VALUE_RANGE)

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
    "datetime64[ns]",
]


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


def in_range(a, lo, hi):
    """The reference answer every method's first result is checked against."""
    return np.flatnonzero((a >= lo) & (a <= hi))


def dtype_data(dtype, n, rng):
    """Random data spanning the dtype: the full integer range, standard normal floats,
    datetimes over 25 years from 2000."""
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    if dt.kind == "f":
        return rng.standard_normal(n).astype(dt)
    start = np.datetime64("2000-01-01", "ns").astype(np.int64)
    return (start + rng.integers(0, 25 * 365 * 86400 * 10**9, n)).view(dt)
