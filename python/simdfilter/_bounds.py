"""Exact resolution of range bounds into the data's own domain.

The C binding resolves the common cases itself (ints on integer data, floats on
float data). Every other bound comes here: datetimes and ISO strings,
``fractions.Fraction`` and ``decimal.Decimal``, NumPy long doubles, integers too
large for a double on float data. The arithmetic is exact (rationals), so a bound
is never wrapped, truncated or rounded the wrong way.

``resolve`` returns ``None`` for an empty range, or ``(lo, hi)``: the inclusive
bounds as Python ints (integer, bool and time data; NaT excluded) or as floats
exactly representable in the data's float type.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import numbers
from fractions import Fraction
from typing import Any, Optional, Tuple, Union

import numpy as np

Number = Union[int, float]

# A bound after reading: None (unbounded), NaN (matches nothing), +-inf, or an
# exact rational. Fractions stand in for ints too.
_NAN = float("nan")


def _real(value: Any) -> Union[None, float, Fraction]:
    """A numeric bound as None, a float NaN/inf, or an exact Fraction."""
    if value is None:
        return None
    # Before the number checks: np.timedelta64 is a subclass of np.integer.
    if isinstance(value, (np.datetime64, np.timedelta64, _dt.date, _dt.timedelta, str)):
        raise TypeError(f"a {type(value).__name__} bound does not apply to numeric data")
    if isinstance(value, (bool, np.bool_)):
        return Fraction(int(value))
    if isinstance(value, (numbers.Integral, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return _NAN
        if math.isinf(value):
            return float(value)
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return _NAN
        if value.is_infinite():
            return float(value)
        return Fraction(value)
    if isinstance(value, numbers.Rational):
        return Fraction(value.numerator, value.denominator)
    raise TypeError(f"bounds must be real numbers or None, not {type(value).__name__}")


def _time_value(dtype: np.dtype, value: Any) -> Union[np.datetime64, np.timedelta64, int]:
    """A datetime/timedelta bound as a NumPy scalar of its own unit (or an int for
    timedelta data, which NumPy compares as ticks of the data's unit)."""
    is_dt = dtype.kind == "M"
    if is_dt:
        if isinstance(value, np.datetime64):
            return value
        if isinstance(value, str):
            try:
                return np.datetime64(value)
            except ValueError as exc:
                raise ValueError(f"cannot read {value!r} as a datetime64 bound: {exc}") from None
        if _is_pandas(value, "Timestamp"):
            if value.tzinfo is not None:
                raise TypeError("a timezone-aware Timestamp cannot bound naive datetime64 data; "
                                "convert it with .tz_convert(None) first")
            return value.to_datetime64()
        if isinstance(value, _dt.datetime):
            if value.tzinfo is not None:
                raise TypeError("a timezone-aware datetime cannot bound naive datetime64 data")
            return np.datetime64(value, "us")
        if isinstance(value, _dt.date):
            return np.datetime64(value, "D")
        raise TypeError(
            "bounds on datetime64 data must be np.datetime64, datetime, date, "
            f"pandas.Timestamp, an ISO string or None, not {type(value).__name__}")
    if isinstance(value, np.timedelta64):
        return value
    if _is_pandas(value, "Timedelta"):
        return value.to_timedelta64()
    if isinstance(value, _dt.timedelta):
        return np.timedelta64(value, "us")
    if isinstance(value, (bool, np.bool_, np.datetime64)) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(
            "bounds on timedelta64 data must be np.timedelta64, datetime.timedelta, "
            f"pandas.Timedelta, an int (ticks of the data's unit) or None, not "
            f"{type(value).__name__}")
    return int(value)


def _is_pandas(value: Any, name: str) -> bool:
    cls = type(value)
    return cls.__name__ == name and cls.__module__.startswith("pandas")


def _time_real(dtype: np.dtype, value: Any) -> Union[None, float, Fraction]:
    """A time bound in ticks of the data's unit: exact, or a half-tick marker
    (floor + 1/2) when it falls between two ticks, which ceil/floor then treat
    exactly as the real instant would be."""
    if value is None:
        return None
    v = _time_value(dtype, value)
    if isinstance(v, int):
        return Fraction(v)
    if np.isnat(v):
        return _NAN
    if (dtype.kind == "M") != isinstance(v, np.datetime64):
        raise TypeError(f"a {type(v).__name__} bound does not apply to {dtype} data")
    unit = np.datetime_data(dtype)[0]
    if unit == "generic":
        raise TypeError(f"{dtype} data has no unit to compare bounds in")
    # NumPy's casts to a coarser unit floor; then NumPy's comparison of the two
    # units (exact, in the finer one) tells whether anything was dropped.
    try:
        floor = v.astype(dtype)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"bound {value!r} cannot be expressed in {dtype}: {exc}") from None
    if np.isnat(floor):
        raise ValueError(f"bound {value!r} is out of the range of {dtype}")
    if floor > v:  # a cast that rounded up, should any unit do that
        floor = floor - np.timedelta64(1, unit) if dtype.kind == "M" else floor - 1
    ticks = int(floor.astype(np.int64))
    if floor == v:
        return Fraction(ticks)
    return Fraction(2 * ticks + 1, 2)


def _integer_domain(dtype: np.dtype) -> Tuple[int, int]:
    if dtype.kind == "b":
        return 0, 1
    if dtype.kind in "mM":
        return -(2**63) + 1, 2**63 - 1  # -2**63 is NaT
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _float_at_least(q: Union[float, Fraction], ftype: type, strict: bool) -> Optional[float]:
    """The smallest value of ftype >= q (> q when strict), or None if none is."""
    with np.errstate(over="ignore"):  # stepping from the largest float to inf is intended
        return _float_at_least_impl(q, ftype, strict)


def _float_at_least_impl(q, ftype, strict):
    if isinstance(q, float):  # +-inf
        if q > 0:
            return None if strict else float("inf")
        return float(ftype(-np.inf)) if not strict else float(-np.finfo(ftype).max)
    c = _round(q, ftype)
    up, down = ftype(np.inf), ftype(-np.inf)

    def ok(x):
        return _ge(x, q, strict)

    while not ok(c):
        c = np.nextafter(c, up)
    while True:
        prev = np.nextafter(c, down)
        if prev == c or not ok(prev):
            break
        c = prev
    return None if np.isinf(c) and c > 0 and not ok(c) else float(c)


def _float_at_most(q: Union[float, Fraction], ftype: type, strict: bool) -> Optional[float]:
    """The largest value of ftype <= q (< q when strict), or None if none is."""
    with np.errstate(over="ignore"):
        return _float_at_most_impl(q, ftype, strict)


def _float_at_most_impl(q, ftype, strict):
    if isinstance(q, float):
        if q < 0:
            return None if strict else float("-inf")
        return float(ftype(np.inf)) if not strict else float(np.finfo(ftype).max)
    c = _round(q, ftype)
    up, down = ftype(np.inf), ftype(-np.inf)

    def ok(x):
        return _le(x, q, strict)

    while not ok(c):
        c = np.nextafter(c, down)
    while True:
        nxt = np.nextafter(c, up)
        if nxt == c or not ok(nxt):
            break
        c = nxt
    return float(c)


def _round(q: Fraction, ftype: type):
    try:
        d = float(q)
    except OverflowError:
        d = math.inf if q > 0 else -math.inf
    with np.errstate(over="ignore"):
        return ftype(d)


def _ge(x, q: Fraction, strict: bool) -> bool:
    if np.isinf(x):
        return bool(x > 0)
    fx = Fraction(*float(x).as_integer_ratio())
    return fx > q if strict else fx >= q


def _le(x, q: Fraction, strict: bool) -> bool:
    if np.isinf(x):
        return bool(x < 0)
    fx = Fraction(*float(x).as_integer_ratio())
    return fx < q if strict else fx <= q


def _int_at_least(q, strict: bool) -> Optional[Number]:
    if isinstance(q, float):  # +-inf
        return None if q > 0 else -math.inf
    return math.floor(q) + 1 if strict else math.ceil(q)


def _int_at_most(q, strict: bool) -> Optional[Number]:
    if isinstance(q, float):
        return None if q < 0 else math.inf
    return math.ceil(q) - 1 if strict else math.floor(q)


def resolve(dtype: np.dtype, lo: Any, hi: Any, inclusive: str) -> Optional[Tuple[Number, Number]]:
    """Inclusive bounds of [lo, hi] (per `inclusive`) in `dtype`'s values, or None if empty."""
    dtype = np.dtype(dtype)
    left_closed = inclusive in ("both", "left")
    right_closed = inclusive in ("both", "right")
    read = (lambda v: _time_real(dtype, v)) if dtype.kind in "mM" else _real
    qlo, qhi = read(lo), read(hi)
    if (isinstance(qlo, float) and math.isnan(qlo)) or (isinstance(qhi, float) and math.isnan(qhi)):
        return None
    if dtype.kind == "f":
        ftype = dtype.type
        a = float(ftype(-np.inf)) if qlo is None else _float_at_least(qlo, ftype, not left_closed)
        b = float(ftype(np.inf)) if qhi is None else _float_at_most(qhi, ftype, not right_closed)
        if a is None or b is None or not a <= b:
            return None
        return a, b
    dmin, dmax = _integer_domain(dtype)
    a = dmin if qlo is None else _int_at_least(qlo, not left_closed)
    b = dmax if qhi is None else _int_at_most(qhi, not right_closed)
    if a is None or b is None:
        return None
    a, b = max(a, dmin), min(b, dmax)
    if a > b:
        return None
    return int(a), int(b)
