"""Pure-NumPy versions of the public functions: slow, obvious, and the tests' oracle.

They implement the documented semantics directly, comparing each element with the
bounds exactly, and share no code with the C path (which holds the bound rule).
A bound is first the number NumPy 2 compares the data with (NEP 50), found with
NumPy's own conversions wherever they succeed without an error or a warning: a
Python float on float32 data is ``np.float32(b)``, a Python int on float data
``float(b)`` (then ``np.float32`` on float32 data), a 64-bit NumPy integer (or an
int subclass) on float data ``float(b)``; int64/uint64 data with a float bound are
compared as NumPy compares them, ``a.astype(np.float64)`` with ``float(b)``. Then:

- integer data: a bound b is replaced by ceil(b) / floor(b) (exact for ints,
  floats and Fractions alike, since the data are integers), then NumPy compares
  in int64/uint64 or as Python ints;
- float data: compared in float64 (float32 data are exactly representable there);
  bounds a float64 cannot hold exactly are compared element by element in Python,
  whose int/float/Fraction comparisons are exact;
- datetime64/timedelta64 data: data and bound both turned into Python ints of
  attoseconds (months for year/month timedeltas) and compared as such, so a
  bound far outside the data's unit range is neither wrapped nor rounded (NumPy's
  own comparisons would wrap it); NaT never matches.

``invert=True`` keeps the complement: every element the rules above do not keep,
NaN and NaT included (NumPy's ``~((a >= lo) & (a <= hi))``), nulls excepted.
Several ranges (``lo`` and ``hi`` lists, tuples or 1-d arrays of one length): an
element is in range when it is in any ``[lo[i], hi[i]]`` (the OR of each pair's
mask); inverted, when it is in none.

Columns of data tools are first turned into a NumPy array of their values and a
bool array of which elements are valid, by the tools' own public conversions
(pyarrow for Arrow arrays and streams, Polars and pandas' Arrow dtypes; pandas'
``isna`` and ``to_numpy`` for nullable columns; ``numpy.ma.getmaskarray``). A null
never matches. Timestamps with a time zone become their UTC instants; bounds on
them are read by pandas (``Timestamp``, ``tz_localize``, ``tz_convert``), which
the reference then needs.
"""

from __future__ import annotations

import datetime as _dt
import math
import operator
import struct
import warnings
from fractions import Fraction
from typing import Any, Optional

import numpy as np

__all__ = ["filter_indexes", "filter_values", "count_in_range", "in_range_mask"]

_INCLUSIVE = ("both", "left", "right", "neither")


def _check_dtype(a: np.ndarray) -> None:
    if a.dtype.kind not in "biufmM" or a.dtype.kind == "f" and a.dtype.itemsize not in (4, 8):
        raise TypeError(f"unsupported dtype {a.dtype}")


def _exact(b: Any):
    """A numeric bound as an int, Fraction or float NaN/inf."""
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    if isinstance(b, (bool, np.bool_, int, np.integer)):
        return int(b)
    if isinstance(b, (float, np.floating)):
        if np.isnan(b) or np.isinf(b):  # np.: a long double may exceed a double
            return float(b)
        return Fraction(*b.as_integer_ratio())
    return Fraction(b)


class _FloatSubclass(float):
    pass


# NEP 50's weak scalars: Python ints, floats and bools, and on NumPy 2.0.x (a
# CPython 3.9's) subclasses of int and float too, which NumPy 2.1 reads as
# np.asarray does instead. Asked of NumPy, not of simdfilter's rule: NumPy 2.0
# promotes float32 with a weak float to float32, 2.1 with a float64 to float64.
_SUBCLASSES_WEAK = np.lib.NumpyVersion(np.__version__) >= "2.0.0" and np.result_type(
    np.float32, _FloatSubclass(0.5)
) == np.dtype(np.float32)


def _weak(b: Any) -> bool:
    if type(b) in (float, int, bool):
        return True
    return _SUBCLASSES_WEAK and isinstance(b, (int, float)) and not isinstance(b, np.generic)


def _numpy_number(dtype: np.dtype, b: Any) -> Any:
    """The number NumPy 2 compares float data of `dtype` with for the bound b, where
    NumPy converts it without an error or a warning; else b itself."""
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            if _weak(b):  # NEP 50's weak scalars
                d = float(b)  # OverflowError beyond every double, as NumPy raises
                if dtype.itemsize == 4:  # float32 of either byte order
                    # C's (float)d, NumPy 2's cast (NumPy 1.x's np.float32(d) differs
                    # at the top of the range). A finite d that rounds to inf is
                    # where NumPy 2 warns (an overflow): b itself, then.
                    r = struct.unpack("f", struct.pack("f", d))[0]
                    if math.isinf(r) and math.isfinite(d):
                        raise OverflowError
                    return np.float32(r)
                return dtype.type(d)
            if isinstance(b, (np.timedelta64, np.datetime64)):
                return b
            if isinstance(b, (np.integer, int)) and not isinstance(b, np.bool_):
                as_numpy = np.asarray(b)  # an int subclass: int64, uint64 or object
                if as_numpy.dtype.kind in "iu" and as_numpy.dtype.itemsize == 8:
                    return float(b)
        except (OverflowError, RuntimeWarning):
            pass
    return b


def _rounds_data(dtype: np.dtype, b: Any) -> bool:
    """Whether NumPy 2 compares this int64/uint64 data with the bound in float64."""
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    return (
        dtype.kind in "iu"
        and dtype.itemsize == 8
        and isinstance(b, (float, np.floating))
        and np.result_type(dtype, np.asarray(b).dtype) == np.float64
    )


def _compare(a: np.ndarray, bound: Any, op) -> np.ndarray:
    """op(a, bound) elementwise, exactly."""
    kind = a.dtype.kind
    if isinstance(bound, np.ndarray) and bound.ndim == 0:
        bound = bound[()]
    if kind in "biuf" and isinstance(bound, np.timedelta64):
        # NumPy casts integer data to the bound's unit (it refuses float and uint64
        # data): the bound's count of units; NaT matches nothing.
        if kind == "f" or a.dtype.str[1:] == "u8":  # any byte order
            raise TypeError(f"NumPy does not compare {a.dtype} data with a timedelta64")
        if np.isnat(bound):
            return np.zeros(a.shape, dtype=bool)
        # The cast makes int64's -2**63 NaT, which matches nothing.
        not_nat = a != np.iinfo(np.int64).min if a.dtype.str[1:] == "i8" else True
        return _compare(a, int(bound.astype(np.int64)), op) & not_nat
    if kind == "f":
        bound = _numpy_number(a.dtype, bound)
    elif _rounds_data(a.dtype, bound):
        return op(a.astype(np.float64), float(bound))
    if kind in "mM":
        b = _time_bound(a.dtype, bound)
        if np.isnat(b):
            return np.zeros(a.shape, dtype=bool)
        data, q = _time_ints(a), _time_ints(b)
        return np.frompyfunc(lambda x: op(x, q), 1, 1)(data).astype(bool)
    if kind == "b":
        a = a != 0  # any nonzero byte of a bool array reads as True
    q = _exact(bound)
    if isinstance(q, float):  # NaN or +-inf
        if math.isnan(q):
            return np.zeros(a.shape, dtype=bool)
        return op(a.astype(np.float64), q)
    if kind in "biu":
        # For integers x: x >= q <=> x >= ceil(q); x > q <=> x > floor(q); etc.
        if op in (operator.ge, operator.lt):
            q = math.ceil(q)
        else:
            q = math.floor(q)
        wide = a.astype(np.uint64 if kind == "u" else np.int64)
        info = np.iinfo(wide.dtype)
        if q > info.max:
            return op(np.zeros(a.shape, dtype=np.int8), 1)  # every x < q
        if q < info.min:
            return op(np.ones(a.shape, dtype=np.int8), 0)  # every x > q
        return op(wide, wide.dtype.type(q))
    # float data
    try:
        f = float(q)
    except OverflowError:  # beyond every double: compared in Python below
        f = math.nan
    if not math.isnan(f) and Fraction(*f.as_integer_ratio()) == q:
        return op(a.astype(np.float64), f)
    flat = a.astype(np.float64).ravel()
    res = np.fromiter(
        (not math.isnan(x) and op(_exact_or_inf(x), q) for x in flat), dtype=bool, count=flat.size
    )
    return res.reshape(a.shape)


def _exact_or_inf(x: float):
    return float(x) if math.isinf(x) else Fraction(*x.as_integer_ratio())


# Attoseconds per tick of each fixed-length unit.
_AS = {
    "W": 604800 * 10**18,
    "D": 86400 * 10**18,
    "h": 3600 * 10**18,
    "m": 60 * 10**18,
    "s": 10**18,
    "ms": 10**15,
    "us": 10**12,
    "ns": 10**9,
    "ps": 10**6,
    "fs": 10**3,
    "as": 1,
}


def _time_ints(t):
    """Python ints (object array, or one int) of attoseconds for datetimes and
    fixed-length timedeltas, of months for year/month timedeltas."""
    unit, mult = np.datetime_data(t.dtype)
    if unit in ("Y", "M"):
        if t.dtype.kind == "m":
            scale, ticks = (12 if unit == "Y" else 1) * mult, t.astype(np.int64)
        else:  # calendar datetimes: NumPy converts them to days exactly
            scale, ticks = _AS["D"], t.astype("M8[D]").astype(np.int64)
    else:
        scale, ticks = _AS[unit] * mult, t.astype(np.int64)
    if np.ndim(ticks) == 0:
        return int(ticks) * scale
    return ticks.astype(object) * scale


def _time_bound(dtype: np.dtype, b: Any):
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    if type(b).__name__ == "NaTType":
        return np.array("NaT", dtype=dtype)[()]  # the data's unit, not the generic one
    if dtype.kind == "M":
        if isinstance(b, str):
            if b.strip().lower() in ("nat", ""):  # parsed, NumPy 2.5 warns of a generic unit
                return np.array("NaT", dtype=dtype)[()]
            return np.datetime64(b)
        if type(b).__name__ == "Timestamp":
            return b.to_datetime64()
        if isinstance(b, _dt.datetime):
            return np.datetime64(b, "us")
        if isinstance(b, _dt.date):
            return np.datetime64(b, "D")
        return np.datetime64(b)
    if isinstance(b, np.timedelta64) and np.datetime_data(b.dtype)[0] == "generic":
        b = b.astype(np.int64)  # unitless: ticks of the data's unit, as NumPy reads it (NaT too)
    elif isinstance(b, np.timedelta64):  # before np.integer: it is a subclass
        return b
    if isinstance(b, _dt.time):  # on time-of-day data (held as timedeltas): since midnight
        secs = (b.hour * 60 + b.minute) * 60 + b.second
        return np.timedelta64(secs * 10**6 + b.microsecond, "us")
    if type(b).__name__ == "Timedelta":
        return b.to_timedelta64()
    if isinstance(b, _dt.timedelta):
        return np.timedelta64(b, "us")
    if isinstance(b, (int, np.integer, np.bool_)):
        # Ticks of the data's unit, its multiple included ('25ns'); -2**63 is NaT.
        return np.array(int(b), np.int64).view(dtype.newbyteorder("="))[()]
    return b


_ARROW_SUPPORTED = (
    "int8..int64, uint8..uint64, float32, float64, bool, date32, date64, "
    "timestamp, duration, time32, time64"
)


def _arrow_chunk(chunk) -> tuple:
    """(values, valid, tz) of one pyarrow Array, through pyarrow's own conversions."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = chunk.type
    valid = chunk.is_valid().to_numpy(zero_copy_only=False).astype(bool)
    tz = None
    if pa.types.is_boolean(t):
        values = pc.fill_null(chunk, False).to_numpy(zero_copy_only=False).astype(bool)
    elif pa.types.is_integer(t) or t in (pa.float32(), pa.float64()):
        zero = pa.scalar(0, t) if pa.types.is_integer(t) else pa.scalar(0.0, t)
        values = pc.fill_null(chunk, zero).to_numpy(zero_copy_only=False)
    elif pa.types.is_temporal(t) and not pa.types.is_interval(t):
        width = pa.int32() if t in (pa.date32(),) or pa.types.is_time32(t) else pa.int64()
        ticks = pc.fill_null(chunk.view(width), pa.scalar(0, width)).to_numpy(zero_copy_only=False)
        if pa.types.is_date32(t):
            dtype = "M8[D]"
        elif pa.types.is_date64(t):
            dtype = "M8[ms]"
        elif pa.types.is_timestamp(t):
            dtype, tz = f"M8[{t.unit}]", t.tz
        else:  # duration, time32, time64: timedeltas (time of day since midnight)
            dtype = f"m8[{t.unit}]"
        values = ticks.astype(np.int64).view(dtype)
    else:
        raise TypeError(f"unsupported Arrow type {t}; supported: {_ARROW_SUPPORTED}")
    return values, valid, tz


def _arrow(obj) -> tuple:
    """(values, valid, tz) of a pyarrow Array or ChunkedArray, chunks end to end."""
    import pyarrow as pa

    chunks = obj.chunks if isinstance(obj, pa.ChunkedArray) else [obj]
    parts = [_arrow_chunk(c) for c in chunks]
    if not parts:
        return _arrow_chunk(pa.array([], obj.type))
    values = np.concatenate([p[0] for p in parts])
    valid = np.concatenate([p[1] for p in parts])
    return values, valid, parts[0][2]


def _pandas_column(obj) -> tuple:
    import pandas as pd

    dtype = obj.dtype
    if isinstance(dtype, getattr(pd, "ArrowDtype", ())):
        import pyarrow as pa

        return _arrow(pa.array(obj))
    if isinstance(dtype, pd.DatetimeTZDtype):
        utc = pd.Series(obj).dt.tz_convert("UTC").dt.tz_localize(None)
        return utc.to_numpy(), None, str(dtype.tz)
    if isinstance(dtype, np.dtype):
        return np.asarray(obj), None, None
    if dtype.kind in "biuf" and hasattr(dtype, "numpy_dtype"):  # masked: Int64, boolean, ...
        na = pd.isna(pd.Series(obj)).to_numpy()
        values = pd.Series(obj).to_numpy(
            dtype=dtype.numpy_dtype, na_value=dtype.numpy_dtype.type(0)
        )
        return values, ~na, None
    raise TypeError(f"unsupported pandas dtype {dtype}")


def _column(values: Any) -> tuple:
    """(values as a NumPy array, valid elements as a bool array or None, time zone)."""
    mod = type(values).__module__.split(".")[0]
    if isinstance(values, np.ma.MaskedArray):
        return np.ma.getdata(values), ~np.ma.getmaskarray(values), None
    if mod == "pyarrow":
        return _arrow(values)
    if mod == "polars":
        return _arrow(values.to_arrow())
    if mod == "pandas":
        return _pandas_column(values)
    if hasattr(type(values), "__arrow_c_stream__") or hasattr(type(values), "__arrow_c_array__"):
        import pyarrow as pa

        if hasattr(type(values), "__arrow_c_stream__"):
            return _arrow(pa.ChunkedArray._import_from_c_capsule(values.__arrow_c_stream__()))
        return _arrow(pa.array(values))
    return np.asarray(values), None, None


def _utc_bound(b: Any, tz: str):
    """A bound on data in zone tz as a naive UTC np.datetime64, as pandas reads it."""
    import pandas as pd

    if b is None:
        return None
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    if b is pd.NaT or (isinstance(b, np.datetime64) and np.isnat(b)):
        return np.datetime64("NaT", "ns")
    if isinstance(b, str):
        t = pd.Timestamp(b)
        if t is pd.NaT:
            return np.datetime64("NaT", "ns")
        if t.tzinfo is None:
            t = t.tz_localize(tz)
    else:
        if not isinstance(b, _dt.datetime) or b.utcoffset() is None:
            raise TypeError(f"Invalid comparison between aware data and {type(b).__name__}")
        t = pd.Timestamp(b)
    return t.tz_convert("UTC").tz_localize(None).to_datetime64()


def in_range_mask(
    values: Any, lo: Any, hi: Any, inclusive: str = "both", *, invert: bool = False
) -> np.ndarray:
    """Boolean mask of the elements in the range, same shape as `values`.

    `invert`: of the elements outside it instead (NaN and NaT, in no range,
    included). Nulls (Arrow validity 0, pandas NA, masked elements) are False
    either way."""
    if inclusive not in _INCLUSIVE:
        raise ValueError(f"inclusive must be one of {_INCLUSIVE}")
    a, valid, tz = _column(values)
    _check_dtype(a)
    if _several(lo, hi):
        inside = np.zeros(a.shape, dtype=bool)
        for one_lo, one_hi in zip(lo, hi):
            if tz is not None:
                one_lo, one_hi = _utc_bound(one_lo, tz), _utc_bound(one_hi, tz)
            inside |= _inside(a, one_lo, one_hi, inclusive)
    else:
        if tz is not None:
            lo, hi = _utc_bound(lo, tz), _utc_bound(hi, tz)
        inside = _inside(a, lo, hi, inclusive)
    if invert:
        inside = ~inside
    return inside if valid is None else inside & valid


def _several(lo: Any, hi: Any) -> bool:
    """Whether lo and hi are sequences of bounds, one range per pair."""

    def is_list(b: Any) -> bool:
        return isinstance(b, (list, tuple)) or (isinstance(b, np.ndarray) and b.ndim == 1)

    if not (is_list(lo) or is_list(hi)):
        return False
    if not (is_list(lo) and is_list(hi)):
        raise TypeError("lo and hi must both be single bounds or both sequences of bounds")
    if len(lo) != len(hi) or len(lo) == 0:
        raise ValueError("lo and hi must have the same length, at least 1")
    return True


def _inside(a: np.ndarray, lo: Any, hi: Any, inclusive: str) -> np.ndarray:
    """Where the values of `a` lie in the range, nulls aside."""
    mask = np.ones(a.shape, dtype=bool)
    if a.dtype.kind == "f":
        mask &= ~np.isnan(a)
    if a.dtype.kind in "mM":
        mask &= ~np.isnat(a)
    if lo is not None:
        mask &= _compare(a, lo, operator.ge if inclusive in ("both", "left") else operator.gt)
    if hi is not None:
        mask &= _compare(a, hi, operator.le if inclusive in ("both", "right") else operator.lt)
    return mask


def filter_indexes(
    values: Any,
    lo: Any,
    hi: Any,
    *,
    inclusive: str = "both",
    index_dtype: Optional[Any] = None,
    invert: bool = False,
) -> np.ndarray:
    """Reference for simdfilter.filter_indexes (without out= and threads=)."""
    mask = in_range_mask(values, lo, hi, inclusive, invert=invert)
    if index_dtype is None:
        index_dtype = np.uint32 if mask.size <= 2**32 - 1 else np.int64
    return np.flatnonzero(mask).astype(index_dtype)


def filter_values(
    values: Any, lo: Any, hi: Any, *, inclusive: str = "both", invert: bool = False
) -> np.ndarray:
    """Reference for simdfilter.filter_values: matching elements, native byte order.

    Timestamps with a time zone give their UTC instants (naive datetime64)."""
    a = _column(values)[0]
    mask = in_range_mask(values, lo, hi, inclusive, invert=invert)
    return a.ravel()[mask.ravel()].astype(a.dtype.newbyteorder("="))


def count_in_range(
    values: Any, lo: Any, hi: Any, *, inclusive: str = "both", invert: bool = False
) -> int:
    """Reference for simdfilter.count_in_range."""
    return int(np.count_nonzero(in_range_mask(values, lo, hi, inclusive, invert=invert)))
