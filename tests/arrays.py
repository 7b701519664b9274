"""Awkward arrays that every test family draws from (as bottleneck's tests/util.py).

One place says which dtypes simdfilter supports, which values of each dtype are
edges (min, max, 0, -1, NaN, +-inf, -0.0, subnormals, NaT...), and which memory
layouts a view can have (offset, strided, reversed, a column of a 2-d array,
unaligned, byte-swapped, read-only, memory-mapped, N-d in C and F order). The
test modules combine them; none keeps its own copy.

Adding a kind of input (nulls, chunked sources) means adding a table entry or a
generator here: tests that loop over LAYOUTS or the dtype lists pick it up
without changing.
"""

import numpy as np
from hypothesis import strategies as st

# ---- dtypes ---------------------------------------------------------------------

INT_DTYPES = [
    np.dtype(t)
    for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
]
FLOAT_DTYPES = [np.dtype(np.float32), np.dtype(np.float64)]
BOOL_DTYPE = np.dtype(np.bool_)
NUMERIC_DTYPES = INT_DTYPES + FLOAT_DTYPES + [BOOL_DTYPE]
# Every unit NumPy has, for tests about unit conversion of time bounds.
TIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]
# The units the kernel families are run on: calendar, coarse, fine.
DATETIME_DTYPES = [np.dtype(f"M8[{u}]") for u in ("D", "s", "ms", "ns")]
TIMEDELTA_DTYPES = [np.dtype(f"m8[{u}]") for u in ("s", "ns")]
TIME_DTYPES = DATETIME_DTYPES + TIMEDELTA_DTYPES
ALL_DTYPES = NUMERIC_DTYPES + TIME_DTYPES
# For the per-kernel families (layouts, random data): every time unit runs the same int64 kernels
# (only bound conversion differs, tested per unit elsewhere), and the exact
# reference for time data is slow, so one datetime and one timedelta unit.
KERNEL_DTYPES = NUMERIC_DTYPES + [np.dtype("M8[ns]"), np.dtype("m8[s]")]

MODES = ["both", "left", "right", "neither"]


def dtype_id(dtype):
    """A readable, stable test id for a dtype ('>u2' stays distinguishable from 'u2')."""
    dtype = np.dtype(dtype)
    return dtype.name if dtype.isnative else dtype.str


# ---- edge values ------------------------------------------------------------------


def edge_values(dtype):
    """The values of `dtype` where comparisons and conversions go wrong first.

    Python ints/floats/bools for numeric dtypes; np.datetime64/np.timedelta64
    scalars of the dtype's unit for time dtypes (NaT included), so every entry
    is also usable as a bound.
    """
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = [info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2]
        if dtype.kind == "i":
            vals += [-1, -2]
        else:
            vals += [info.max // 2, info.max // 2 + 1]
        return [int(v) for v in vals]
    if dtype.kind == "f":
        info = np.finfo(dtype)
        tiny = float(info.smallest_subnormal)
        return [
            0.0,
            -0.0,
            1.0,
            -1.0,
            np.inf,
            -np.inf,
            np.nan,
            float(info.max),
            float(-info.max),
            tiny,
            -tiny,
            float(info.tiny),
            0.5,
            1.5,
            2.0**24 + 1,
            -(2.0**53) - 1,
        ]
    if dtype.kind in "Mm":
        # int64 min is NaT itself: the smallest real tick is min + 1.
        i64 = np.iinfo(np.int64)
        ticks = [i64.min + 1, i64.min + 2, i64.max - 1, i64.max, 0, 1, -1, 2, -2]
        scalar = np.datetime64 if dtype.kind == "M" else np.timedelta64
        unit = np.datetime_data(dtype)[0]
        return [scalar("NaT", unit)] + [scalar(t, unit) for t in ticks]
    raise TypeError(f"no edge values for {dtype}")


def is_nan(value):
    """NaN or NaT: the values that are in no range."""
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    return isinstance(value, float) and value != value


def ordered_edge_values(dtype):
    """edge_values(dtype) without NaN/NaT: usable as the ends of a non-empty range."""
    return [v for v in edge_values(dtype) if not is_nan(v)]


def edge_array(dtype, size, rng):
    """`size` values of `dtype`, each drawn from its edge values."""
    return rng.choice(np.array(edge_values(dtype), dtype=dtype), size=size)


def crowded(rng, n, points, dtype=np.uint32):
    """Integer data crowded around `points` and the dtype's ends (within +-2).
    Computed in int64: for dtypes of up to 32 bits."""
    info = np.iinfo(dtype)
    assert np.dtype(dtype).itemsize <= 4, "crowded() computes in int64"
    centers = rng.choice(np.array(list(points) + [info.min, info.max], dtype=np.int64), size=n)
    return np.clip(centers + rng.integers(-2, 3, size=n), info.min, info.max).astype(dtype)


# ---- layouts ------------------------------------------------------------------------


def _readonly(base):
    a = base.copy()
    a.flags.writeable = False
    return a


def _unaligned(base):
    raw = np.zeros(base.nbytes + 1, dtype=np.uint8)
    view = raw[1:].view(base.dtype)
    view[:] = base
    return view


# name -> how to lay out a 1-d `base`. Each result holds base's values, maybe
# fewer of them and in another order or shape; positions are defined on the
# result (C order), so a test compares against the reference on the result.
LAYOUTS = {
    "contiguous": lambda b: b,
    "offset": lambda b: b[1:],
    "readonly": _readonly,
    "strided": lambda b: b[::3],
    "reversed": lambda b: b[::-1],
    "column": lambda b: b[: b.size // 5 * 5].reshape(-1, 5)[:, 2],
    "byteswapped": lambda b: b.astype(b.dtype.newbyteorder()),
    "byteswapped_strided": lambda b: b.astype(b.dtype.newbyteorder())[::-2],
    "unaligned": _unaligned,
    "c2d": lambda b: b[: b.size // 6 * 6].reshape(6, -1),
    "fortran": lambda b: np.asfortranarray(b[: b.size // 6 * 6].reshape(-1, 6)),
    "fortran_square": lambda b: np.asfortranarray(
        b[: int(b.size**0.5) ** 2].reshape(int(b.size**0.5), -1)
    ),
    "transposed3d": lambda b: b[: b.size // 12 * 12].reshape(2, 3, -1).transpose(1, 2, 0),
}


def memmap_copy(base, directory, name="data.bin", offset_elems=0):
    """A read-only np.memmap of `base`'s bytes in a file under `directory`
    (a per-test tmp_path, so parallel workers never share a file)."""
    path = directory / name
    base.tofile(path)
    m = np.memmap(path, dtype=base.dtype, mode="r")
    return m[offset_elems:]


def zero_stride(value, n, dtype):
    """`n` copies of one value at stride 0 (np.broadcast_to): any length, no memory."""
    return np.broadcast_to(np.array(value, dtype=dtype), (n,))


# ---- hypothesis strategies ---------------------------------------------------------


def _tick_strategy(dtype):
    """int64 ticks of a time dtype: its edges (NaT too) or any tick."""
    edges = [int(v.astype(np.int64)) for v in edge_values(dtype)]
    return st.sampled_from(edges) | st.integers(-(2**63), 2**63 - 1)


def data_strategy(dtype, max_size=200):
    """1-d arrays of `dtype` mixing edge values with arbitrary ones."""
    dtype = np.dtype(dtype)
    if dtype.kind in "Mm":
        return st.lists(_tick_strategy(dtype), max_size=max_size).map(
            lambda xs: np.array(xs, dtype=np.int64).view(dtype)
        )
    edges = st.sampled_from(edge_values(dtype))
    if dtype.kind == "f":
        elems = edges | st.floats(width=dtype.itemsize * 8, allow_nan=True, allow_subnormal=True)
    elif dtype.kind == "b":
        elems = st.booleans()
    else:
        info = np.iinfo(dtype)
        elems = edges | st.integers(int(info.min), int(info.max))
    return st.lists(elems, max_size=max_size).map(lambda xs: np.array(xs, dtype=dtype))


# Bounds that sit on or just past a numeric dtype's exactness limits.
_EXTRA_BOUNDS = [
    None,
    -1,
    0,
    1,
    2**63,
    -(2**63) - 1,
    2**64,
    1e19,
    -1e19,
    1.5,
    -1.5,
    np.inf,
    -np.inf,
    np.nan,
    2**53 + 1,
    -(2**53) - 1,
    2**24 + 1,
    -0.0,
]


def bound_strategy(dtype):
    """Bounds for `dtype`: its edges, exactness limits, any int or float; for a
    time dtype, None or an instant/duration of its unit (NaT included)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "Mm":
        scalar = np.datetime64 if dtype.kind == "M" else np.timedelta64
        unit = np.datetime_data(dtype)[0]
        return st.none() | _tick_strategy(dtype).map(lambda t: scalar(t, unit))
    return (
        st.sampled_from(edge_values(dtype) + _EXTRA_BOUNDS)
        | st.integers(-(2**65), 2**65)
        | st.floats(allow_nan=True)
    )
