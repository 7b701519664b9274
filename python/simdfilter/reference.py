"""Pure-NumPy versions of the public functions: slow, obvious, and the tests' oracle.

They implement the documented semantics directly, comparing each element with the
bounds exactly, and share no code with the C path or with ``simdfilter._bounds``:

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
"""

from __future__ import annotations

import datetime as _dt
import math
import operator
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


def _compare(a: np.ndarray, bound: Any, op) -> np.ndarray:
    """op(a, bound) elementwise, exactly."""
    kind = a.dtype.kind
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
    f = float(q)
    if Fraction(*f.as_integer_ratio()) == q:
        return op(a.astype(np.float64), f)
    flat = a.astype(np.float64).ravel()
    res = np.fromiter((not math.isnan(x) and op(_exact_or_inf(x), q) for x in flat),
                      dtype=bool, count=flat.size)
    return res.reshape(a.shape)


def _exact_or_inf(x: float):
    return x if math.isinf(x) else Fraction(*x.as_integer_ratio())


# Attoseconds per tick of each fixed-length unit.
_AS = {"W": 604800 * 10**18, "D": 86400 * 10**18, "h": 3600 * 10**18, "m": 60 * 10**18,
       "s": 10**18, "ms": 10**15, "us": 10**12, "ns": 10**9, "ps": 10**6, "fs": 10**3, "as": 1}


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
        return np.datetime64("NaT") if dtype.kind == "M" else np.timedelta64("NaT")
    if dtype.kind == "M":
        if isinstance(b, str):
            return np.datetime64(b)
        if type(b).__name__ == "Timestamp":
            return b.to_datetime64()
        if isinstance(b, _dt.datetime):
            return np.datetime64(b, "us")
        if isinstance(b, _dt.date):
            return np.datetime64(b, "D")
        return np.datetime64(b)
    if isinstance(b, np.timedelta64):  # before np.integer: it is a subclass
        return b
    if type(b).__name__ == "Timedelta":
        return b.to_timedelta64()
    if isinstance(b, _dt.timedelta):
        return np.timedelta64(b, "us")
    if isinstance(b, (int, np.integer)):
        return np.timedelta64(int(b), np.datetime_data(dtype)[0])
    return b


def in_range_mask(values: Any, lo: Any, hi: Any, inclusive: str = "both") -> np.ndarray:
    """Boolean mask of the elements in the range, same shape as `values`."""
    if inclusive not in _INCLUSIVE:
        raise ValueError(f"inclusive must be one of {_INCLUSIVE}")
    a = np.asarray(values)
    _check_dtype(a)
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


def filter_indexes(values: Any, lo: Any, hi: Any, *, inclusive: str = "both",
                   index_dtype: Optional[Any] = None) -> np.ndarray:
    """Reference for simdfilter.filter_indexes (without out= and threads=)."""
    a = np.asarray(values)
    mask = in_range_mask(a, lo, hi, inclusive)
    if index_dtype is None:
        index_dtype = np.uint32 if a.size <= 2**32 - 1 else np.int64
    return np.flatnonzero(mask).astype(index_dtype)


def filter_values(values: Any, lo: Any, hi: Any, *, inclusive: str = "both") -> np.ndarray:
    """Reference for simdfilter.filter_values: matching elements, native byte order."""
    a = np.asarray(values)
    mask = in_range_mask(a, lo, hi, inclusive)
    return a.ravel()[mask.ravel()].astype(a.dtype.newbyteorder("="))


def count_in_range(values: Any, lo: Any, hi: Any, *, inclusive: str = "both") -> int:
    """Reference for simdfilter.count_in_range."""
    return int(np.count_nonzero(in_range_mask(values, lo, hi, inclusive)))
