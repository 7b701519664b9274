"""Exact resolution of range bounds into the data's own domain.

The C binding resolves the common cases itself, by these same rules (tests check
that both agree): Python and NumPy ints, bools and floats, datetime64/timedelta64
of any unit, datetime/date/timedelta, pandas Timestamp/Timedelta/NaT, and ISO
strings of the forms ``YYYY``, ``YYYY-MM``, ``YYYY-MM-DD[Thh:mm[:ss[.f]]]`` on naive
data (on tz-aware data, a time of day with a UTC offset). The rest comes here: other strings, ``fractions.Fraction`` and ``decimal.Decimal``, NumPy
long doubles, 0-d arrays, subclasses of the datetime types, and every bound this
module refuses (so that the error is its own). The arithmetic is exact
(rationals), so a bound is never wrapped, truncated or rounded the wrong way.

The number a bound stands for is the one NumPy 2 compares the data with (NEP 50):
a Python float on float32 data is taken at float32, a Python int on float data as
NumPy converts it (to a double, then to float32 on float32 data), a 64-bit NumPy
integer on float data as a double, and on int64/uint64 data a float bound is
compared as NumPy compares it, with the data's values rounded to doubles. Where
NumPy raises or warns instead (an int beyond every double, a float32 overflow),
and for every other bound (Fractions, Decimals, strings), the number is exact.
See ``_numpy_rule.numpy_rule``; the C path follows the same rule (bounds_py.c, numpy_rule).

``resolve`` returns ``None`` for an empty range, or ``(lo, hi)``: the inclusive
bounds as Python ints (integer, bool and time data; NaT excluded) or as floats
exactly representable in the data's float type.

Datetime data with a time zone (``tz``) store UTC ticks and are compared as
instants, as pandas compares them: an aware bound (a Timestamp or datetime with
a tzinfo, an ISO string ending in ``Z`` or ``+HH:MM``) is taken to UTC, an ISO
string without an offset is read as a wall time in the data's zone, and a naive
datetime-like bound raises TypeError (as does an aware one on naive data).
The strings themselves are read by :mod:`simdfilter._iso`.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import functools
import math
import numbers
import re
from fractions import Fraction
from typing import Any, Optional, Tuple, Union

import numpy as np

from . import _iso
from ._numpy_rule import Number, numpy_rule as _numpy_rule, scalar as _scalar

# A bound after reading: None (unbounded), NaN (matches nothing), +-inf, or an
# exact rational. Fractions stand in for ints too.
_NAN = float("nan")


def _is_pandas_nat(value: Any) -> bool:
    return type(value).__name__ == "NaTType" and type(value).__module__.startswith("pandas")


def _real(value: Any) -> Union[None, float, Fraction]:
    """A numeric bound as None, a float NaN/inf, or an exact Fraction."""
    value = _scalar(value)
    if value is None:
        return None
    if _is_pandas_nat(value):
        raise TypeError("a NaT bound does not apply to numeric data")
    # Before the number checks: np.timedelta64 is a subclass of np.integer.
    if isinstance(value, (np.datetime64, np.timedelta64, _dt.date, _dt.timedelta, str)):
        raise TypeError(f"a {type(value).__name__} bound does not apply to numeric data")
    if isinstance(value, (bool, np.bool_)):
        return Fraction(int(value))
    if isinstance(value, (numbers.Integral, np.integer)):
        return _rational(int(value), 1)
    if isinstance(value, (float, np.floating)):
        # np.isinf, not math.isinf: a finite long double may exceed a double's range.
        if np.isnan(value):
            return _NAN
        if np.isinf(value):
            return float(value)
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, decimal.Decimal):
        if value.is_nan():
            return _NAN
        if value.is_infinite():
            return float(value)
        return _decimal(value)
    if isinstance(value, Fraction):
        return _rational(value.numerator, value.denominator)
    if isinstance(value, numbers.Rational):
        num, den = int(value.numerator), int(value.denominator)
        if den == 0:
            raise ZeroDivisionError(f"a {type(value).__name__} bound has a zero denominator")
        return _rational(-num if den < 0 else num, abs(den))
    raise TypeError(f"bounds must be real numbers or None, not {type(value).__name__}")


# Exact rationals whose cost grows with their size (Decimal('1e999999999'),
# Fraction(1, 10**10**7)) stand in for a small one that compares alike with
# every value of every dtype read here: all of those (ints, float32, float64)
# are multiples of 2**-1074 below 2**1024 in magnitude. Beyond 2**_FAR, any
# number of a sign compares alike; below 2**-_FAR, any nonzero one of a sign
# lies strictly between 0 and the smallest subnormal; in between, a number off
# the 2**-_GRID grid compares as the midpoint of its grid interval, which
# holds no value of any dtype. So the answer is exact, and costs what the
# number's first couple of thousand bits cost.
_FAR = 1100
_GRID = 1076
_DECIMAL_FAR = 400  # 10**400 > 2**1100 and 10**-400 < 2**-1100
_DECIMAL_GRID = 1100  # 10**-1100 divides 2**-1074: a multiple of it holds every float
_DECIMAL_CONTEXT = decimal.Context(
    prec=2 * _DECIMAL_GRID,
    rounding=decimal.ROUND_DOWN,
    Emin=decimal.MIN_EMIN,
    Emax=decimal.MAX_EMAX,
)


def _rational(num: int, den: int) -> Fraction:
    """num/den (den > 0) or its stand-in: see _FAR."""
    if num == 0:
        return Fraction(0)
    sign = 1 if num > 0 else -1
    e = abs(num).bit_length() - den.bit_length()  # 2**(e-1) < |num/den| < 2**(e+1)
    if e > _FAR:
        return Fraction(sign << _FAR)
    if e < -_FAR:
        return Fraction(sign, 1 << _FAR)
    if den.bit_length() <= 2 * _FAR:
        return Fraction(num, den)
    # A short quotient of long numbers: cheap, where the gcd of Fraction(num, den) is not.
    k, rest = divmod(num << _GRID, den)
    return Fraction(2 * k + (rest != 0), 1 << (_GRID + 1))


def _decimal(d: decimal.Decimal) -> Fraction:
    """A finite Decimal exactly, or its stand-in: see _FAR. The exponent alone
    decides one far out of range; Fraction(d) would compute 10**exponent."""
    if d.is_zero():
        return Fraction(0)
    sign = -1 if d.is_signed() else 1
    if d.adjusted() > _DECIMAL_FAR:
        return Fraction(sign << _FAR)
    if d.adjusted() < -_DECIMAL_FAR:
        return Fraction(sign, 1 << _FAR)
    if d.as_tuple().exponent < -_DECIMAL_GRID:  # digits finer than any float's
        t = d.quantize(decimal.Decimal(1).scaleb(-_DECIMAL_GRID), context=_DECIMAL_CONTEXT)
        if t != d:
            return Fraction(t) + Fraction(sign, 2 * 10**_DECIMAL_GRID)
        return Fraction(t)
    return Fraction(d)


def _time_value(dtype: np.dtype, value: Any) -> Union[np.datetime64, np.timedelta64, int]:
    """A datetime/timedelta bound as a NumPy scalar of its own unit (or an int for
    timedelta data, which NumPy compares as ticks of the data's unit: ints, bools
    and unitless timedelta64s)."""
    value = _scalar(value)
    is_dt = dtype.kind == "M"
    if _is_pandas_nat(value):
        # In the data's unit: NumPy 2.5 deprecates the generic one.
        return np.array("NaT", dtype=dtype)[()]
    if is_dt:
        if isinstance(value, np.datetime64):
            return value
        if isinstance(value, str):
            return _iso.parse_wall(value, value)
        if _is_pandas(value, "Timestamp"):
            if value.tzinfo is not None:
                raise TypeError(
                    "a timezone-aware Timestamp cannot bound naive datetime64 data; "
                    "convert it with .tz_convert(None) first"
                )
            return value.to_datetime64()
        if isinstance(value, _dt.datetime):
            if value.tzinfo is not None:
                raise TypeError("a timezone-aware datetime cannot bound naive datetime64 data")
            return np.datetime64(value, "us")
        if isinstance(value, _dt.date):
            return np.datetime64(value, "D")
        raise TypeError(
            "bounds on datetime64 data must be np.datetime64, datetime, date, "
            f"pandas.Timestamp, an ISO string or None, not {type(value).__name__}"
        )
    if isinstance(value, np.timedelta64):
        if np.datetime_data(value.dtype)[0] == "generic" and not np.isnat(value):
            return int(value.astype(np.int64))  # unitless: NumPy reads ticks of the data's unit
        return value
    if isinstance(value, (bool, np.bool_)):  # NumPy reads False and True as 0 and 1 ticks
        return int(value)
    if _is_pandas(value, "Timedelta"):
        return value.to_timedelta64()
    if isinstance(value, _dt.timedelta):
        return np.timedelta64(value, "us")
    if isinstance(value, np.datetime64) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(
            "bounds on timedelta64 data must be np.timedelta64, datetime.timedelta, "
            f"pandas.Timedelta, an int or bool (ticks of the data's unit) or None, not "
            f"{type(value).__name__}"
        )
    if int(value) == -(2**63):  # NumPy reads it as NaT
        return np.array("NaT", dtype=dtype)[()]
    return int(value)


def _timedelta_count(dtype: np.dtype, value: Any) -> Any:
    """An np.timedelta64 bound on integer or bool data as NumPy compares it: the
    data cast to the bound's unit, so the bound's count of units (NaT: nothing).
    NumPy refuses it on uint64 and float data, and so does _real."""
    value = _scalar(value)
    # kind and itemsize, not `dtype == np.uint64`: a non-native '>u8' is uint64 too.
    if not isinstance(value, np.timedelta64) or dtype.kind not in "biu" or dtype.str[1:] == "u8":
        return value
    return _NAN if np.isnat(value) else value.astype(np.int64)


def _is_pandas(value: Any, name: str) -> bool:
    cls = type(value)
    return cls.__name__ == name and cls.__module__.startswith("pandas")


# One tick of each fixed-length unit, in attoseconds. Years and months have no
# fixed length: they go through days (datetimes) or months (timedeltas).
_ATTOSECONDS = {
    "W": 7 * 86400 * 10**18,
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
_DAY = _ATTOSECONDS["D"]


def _days_from_civil(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (NumPy's),
    exact for any integer year (H. Hinnant's algorithm, in Python ints)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _civil_from_days(z: int) -> Tuple[int, int, int]:
    """The inverse of _days_from_civil."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (m <= 2), m, d


def _instant(v: Union[np.datetime64, np.timedelta64]) -> Tuple[str, int]:
    """An exact integer for a time scalar: ('as', attoseconds since the epoch or of
    duration), or ('months', n) for a timedelta in years or months."""
    unit, mult = np.datetime_data(v.dtype)
    ticks = int(v.astype(np.int64)) * mult
    if unit in _ATTOSECONDS:
        return "as", ticks * _ATTOSECONDS[unit]
    if unit == "generic":
        raise TypeError(
            "a generic (unitless) datetime64/timedelta64 bound has no unit to compare in"
        )
    months = ticks * (12 if unit == "Y" else 1)
    if isinstance(v, np.timedelta64):
        return "months", months
    year, month0 = divmod(months, 12)
    return "as", _days_from_civil(1970 + year, month0 + 1, 1) * _DAY


# A fixed-offset zone as Arrow ('+01:00') and pandas ('UTC+01:00') name it.
_FIXED_ZONE = re.compile(r"^(?:UTC|GMT)?(?P<sign>[+-])(?P<h>\d{2})(?::?(?P<m>\d{2}))?$")
_US = 10**12  # attoseconds per microsecond


def _offset_as(td: _dt.timedelta) -> int:
    """A UTC offset in attoseconds, exactly (timedelta holds whole microseconds)."""
    return (td // _dt.timedelta(microseconds=1)) * _US


@functools.lru_cache(maxsize=64)
def _zone(tz: str) -> _dt.tzinfo:
    """The tzinfo a zone name stands for: a fixed offset, or a named zone (zoneinfo)."""
    m = _FIXED_ZONE.match(tz)
    if m:
        off = _dt.timedelta(hours=int(m["h"]), minutes=int(m["m"] or 0))
        return _dt.timezone(-off if m["sign"] == "-" else off)
    if tz.upper() in ("UTC", "Z", "GMT"):
        return _dt.timezone.utc
    import zoneinfo  # only aware data need it

    try:
        return zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time zone {tz!r} (no such zone in the time zone database)"
        ) from None


def _wall_offset(wall: np.datetime64, tz: str, text: str) -> int:
    """The UTC offset (attoseconds) of the wall time `wall` in zone `tz`. A wall time
    that a clock change skips or repeats has no single instant: ValueError, where
    pandas refuses the comparison too."""
    zone = _zone(tz)
    if isinstance(zone, _dt.timezone):
        return _offset_as(zone.utcoffset(None))
    # Zone rules change on whole seconds, so the microsecond floor of the wall time
    # has the offset of the wall time itself.
    us = wall.astype("M8[us]")
    if not np.datetime64("0001-01-01") <= us <= np.datetime64("9999-12-31T23:59:59.999999"):
        raise ValueError(
            f"{text!r} lies outside years 1-9999, where the rules of time zone "
            f"{tz!r} are unknown: give the bound with a UTC offset"
        )
    local = us.astype(_dt.datetime)
    offsets = []
    for fold in (0, 1):
        off = local.replace(fold=fold, tzinfo=zone).utcoffset()
        # The wall time exists with this offset iff it comes back from UTC unchanged.
        try:
            back = (local - off).replace(tzinfo=_dt.timezone.utc).astimezone(zone)
        except OverflowError:  # within a day of year 1 or 9999
            back = None
        if back is not None and back.replace(tzinfo=None) == local and off not in offsets:
            offsets.append(off)
    if len(offsets) != 1:
        what = "does not exist" if not offsets else "is ambiguous"
        raise ValueError(
            f"{text!r} {what} in time zone {tz!r} (a clock change): "
            "give the bound with a UTC offset or as an aware Timestamp"
        )
    return _offset_as(offsets[0])


def _aware_value(
    dtype: np.dtype, value: Any, tz: str
) -> Tuple[Union[None, np.datetime64, _iso.Wall], int]:
    """A bound on datetime data in zone `tz`, as (naive wall time, offset): the
    instant is the wall time minus the offset (attoseconds). (None, 0) for NaT."""
    value = _scalar(value)
    if dtype.kind != "M":
        raise ValueError(f"a time zone applies to datetime64 data, not {dtype}")
    if _is_pandas_nat(value) or (isinstance(value, np.datetime64) and np.isnat(value)):
        return None, 0
    if isinstance(value, str):
        wall, off = _iso.parse_aware(value)
        if not isinstance(wall, _iso.Wall):
            return None, 0
        if off is None:  # a wall time in the data's zone
            return wall, _wall_offset(wall.dt64, tz, value)
        return wall, off
    if _is_pandas(value, "Timestamp") or isinstance(value, _dt.datetime):
        off = value.utcoffset()
        if off is None:
            raise TypeError(
                f"Invalid comparison between datetime64 data with time zone {tz!r} "
                f"and a naive {type(value).__name__}: localize the bound "
                "(e.g. Timestamp.tz_localize) or give it with a UTC offset"
            )
        naive = value.replace(tzinfo=None)
        wall = (
            naive.to_datetime64() if _is_pandas(value, "Timestamp") else np.datetime64(naive, "us")
        )
        return wall, _offset_as(off)
    if isinstance(value, (np.datetime64, _dt.date)):
        raise TypeError(
            f"Invalid comparison between datetime64 data with time zone {tz!r} "
            f"and a {type(value).__name__}, which has no time zone: give an aware "
            "Timestamp or datetime, or an ISO string"
        )
    raise TypeError(
        "bounds on datetime64 data with a time zone must be an aware pandas.Timestamp "
        f"or datetime, an ISO string or None, not {type(value).__name__}"
    )


def _time_real(
    dtype: np.dtype, value: Any, tz: Optional[str] = None
) -> Union[None, float, Fraction]:
    """A time bound in ticks of the data's unit, exactly: an integer, or a
    half-tick marker (floor + 1/2) when it falls between two ticks, which
    ceil/floor then treat exactly as the real instant would be. All arithmetic is
    on Python ints, so no bound is ever wrapped, however far out of the data
    unit's range it lies (the domain clamp then applies)."""
    if value is None:
        return None
    offset = 0
    if tz is not None:
        v, offset = _aware_value(dtype, value, tz)
        if v is None:
            return _NAN
    else:
        v = _time_value(dtype, value)
    if isinstance(v, int):
        return Fraction(v)
    extra = 0
    if isinstance(v, _iso.Wall):
        v, extra = v.dt64, v.extra
    if np.isnat(v):
        return _NAN
    if (dtype.kind == "M") != isinstance(v, np.datetime64):
        raise TypeError(f"a {type(v).__name__} bound does not apply to {dtype} data")
    unit, mult = np.datetime_data(dtype)
    if unit == "generic":
        raise TypeError(f"{dtype} data has no unit to compare bounds in")
    space, q = _instant(v)
    q = q + extra - offset  # a Fraction only for digits finer than attoseconds
    if unit in _ATTOSECONDS:
        if space == "months":
            raise TypeError(
                f"a timedelta64 in years or months has no fixed length in {dtype} units"
            )
        floor, rest = divmod(q, _ATTOSECONDS[unit] * mult)
        exact = rest == 0
    elif dtype.kind == "m":  # timedelta data in years or months
        if space != "months":
            raise TypeError(f"a fixed-length timedelta has no exact length in {dtype} units")
        floor, rest = divmod(q, (12 if unit == "Y" else 1) * mult)
        exact = rest == 0
    else:  # datetime data in years or months: which month is the instant in?
        days, rest = divmod(q, _DAY)
        year, month, day = _civil_from_days(days)
        floor, rest_months = divmod(
            (year - 1970) * 12 + month - 1, (12 if unit == "Y" else 1) * mult
        )
        exact = rest == 0 and day == 1 and rest_months == 0
    return Fraction(floor) if exact else Fraction(2 * floor + 1, 2)


def _integer_domain(dtype: np.dtype) -> Tuple[int, int]:
    if dtype.kind == "b":
        return 0, 1
    if dtype.kind in "mM":
        return -(2**63) + 1, 2**63 - 1  # -2**63 is NaT
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _float_bound(
    q: Union[float, Fraction], ftype: type, strict: bool, lower: bool
) -> Optional[float]:
    """The smallest value of ftype >= q (lower) or the largest <= q (upper), made
    strict when the bound is open; None if no value of ftype qualifies."""
    sign = 1 if lower else -1
    if isinstance(q, float):  # +-inf
        if q * sign > 0:  # at least +inf, or at most -inf
            return None if strict else q
        # at least -inf, or at most +inf: the infinity itself, or the largest finite
        return -sign * math.inf if not strict else -sign * float(np.finfo(ftype).max)

    def ok(x) -> bool:
        if np.isinf(x):
            return bool(x * sign > 0)
        d = Fraction(*float(x).as_integer_ratio()) - q
        d *= sign
        return d > 0 if strict else d >= 0

    toward, away = ftype(sign * np.inf), ftype(-sign * np.inf)
    c = _round(q, ftype)
    # The rounded value is within an ulp or two: step outward until it
    # qualifies, then inward while the next one still does.
    with np.errstate(over="ignore"):  # stepping from the largest float to inf is intended
        while not ok(c):
            c = np.nextafter(c, toward)
        while True:
            nb = np.nextafter(c, away)
            if nb == c or not ok(nb):
                break
            c = nb
    return float(c)


def _round(q: Fraction, ftype: type):
    try:
        d = float(q)
    except OverflowError:
        d = math.inf if q > 0 else -math.inf
    with np.errstate(over="ignore"):
        return ftype(d)


def _int_at_least(q, strict: bool) -> Optional[Number]:
    if isinstance(q, float):  # +-inf
        return None if q > 0 else -math.inf
    return math.floor(q) + 1 if strict else math.ceil(q)


def _int_at_most(q, strict: bool) -> Optional[Number]:
    if isinstance(q, float):
        return None if q < 0 else math.inf
    return math.ceil(q) - 1 if strict else math.floor(q)


def _since_midnight(value: Any) -> Any:
    """A bound on time-of-day data: a naive datetime.time as the time since midnight."""
    if value is None:
        return None
    if type(value) is not _dt.time or value.tzinfo is not None:
        # pandas raises TypeError comparing times with timedeltas (Polars refuses too).
        raise TypeError(
            "bounds on time-of-day data must be naive datetime.time or None, not "
            f"{type(value).__name__}"
        )
    return _dt.timedelta(
        hours=value.hour, minutes=value.minute, seconds=value.second, microseconds=value.microsecond
    )


def resolve(
    dtype: np.dtype,
    lo: Any,
    hi: Any,
    inclusive: str,
    tz: Optional[str] = None,
    time_of_day: bool = False,
) -> Optional[Tuple[Number, Number]]:
    """Inclusive bounds of [lo, hi] (per `inclusive`) in `dtype`'s values, or None if empty.

    Parameters
    ----------
    dtype : np.dtype
        The data's dtype (datetime64/timedelta64 of the data's unit for time data).
    lo, hi : Any
        The bounds, None for unbounded.
    inclusive : {"both", "left", "right", "neither"}
        Which ends are closed.
    tz : str, optional
        For datetime64 data with a time zone: its name ("UTC", "Europe/Paris",
        "+01:00", "UTC+01:00"). The data's ticks are UTC; the bounds become UTC
        ticks. None for naive data.
    time_of_day : bool
        timedelta64 `dtype` holding times of day (Arrow time32/time64, Polars
        Time): the bounds are naive ``datetime.time`` (or None).
    """
    dtype = np.dtype(dtype)
    left_closed = inclusive in ("both", "left")
    right_closed = inclusive in ("both", "right")
    # Integer data cast to a timedelta64 bound's unit: int64's -2**63 becomes NaT.
    int64_as_timedelta = False
    if tz is not None and dtype.kind != "M":
        raise ValueError(f"a time zone applies to datetime64 data, not {dtype}")
    if time_of_day:
        lo, hi = _since_midnight(lo), _since_midnight(hi)
    if dtype.kind in "mM":
        qlo, qhi = _time_real(dtype, lo, tz), _time_real(dtype, hi, tz)
    else:
        int64_as_timedelta = dtype.str[1:] == "i8" and (  # any byte order
            isinstance(_scalar(lo), np.timedelta64) or isinstance(_scalar(hi), np.timedelta64)
        )
        lo, hi = _timedelta_count(dtype, lo), _timedelta_count(dtype, hi)
        qlo = _real(_numpy_rule(dtype, lo, True, left_closed))
        qhi = _real(_numpy_rule(dtype, hi, False, right_closed))
    if (isinstance(qlo, float) and math.isnan(qlo)) or (isinstance(qhi, float) and math.isnan(qhi)):
        return None
    if dtype.kind == "f":
        ftype = dtype.type
        a = -math.inf if qlo is None else _float_bound(qlo, ftype, not left_closed, lower=True)
        b = math.inf if qhi is None else _float_bound(qhi, ftype, not right_closed, lower=False)
        if a is None or b is None or not a <= b:
            return None
        return a, b
    dmin, dmax = _integer_domain(dtype)
    if int64_as_timedelta:
        dmin += 1  # -2**63 is NaT then: it matches nothing
    a = dmin if qlo is None else _int_at_least(qlo, not left_closed)
    b = dmax if qhi is None else _int_at_most(qhi, not right_closed)
    if a is None or b is None:
        return None
    a, b = max(a, dmin), min(b, dmax)
    if a > b:
        return None
    return int(a), int(b)
