"""The bound rule on time data as simdfilter._bounds wrote it in Python before
issue 44, frozen here as the tests' oracle: the C binding now reads every bound
itself (csrc/cpython/bounds_time.c, bounds_time_rest.c), and the tests check it
gives the same ranges and the same errors as this did (tests/test_bound_paths.py,
test_time_of_day.py, test_numpy_bound_rule.py). Not shipped; not to be edited
but to record a deliberate change of the rule.

resolve(dtype, lo, hi, inclusive, tz=None, time_of_day=False): the inclusive
bounds in ticks of the time dtype, or None when empty (the old docstring below).
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
import numbers
import re
from fractions import Fraction
from typing import Any, Optional, Tuple, Union

import numpy as np

# ---- simdfilter._iso before issue 44 ----

import warnings

# Fractions of a second, read apart from the rest: NumPy parses a string in the
# unit its digits need, and 2013 in picoseconds wraps around int64.
ISO_FRACTION = re.compile(r"^(?P<head>.*\d{2}:\d{2}:\d{2})[.,](?P<frac>\d+)(?P<tail>.*)$")

# An ISO string's UTC offset: 'Z', '+HH', '+HHMM' or '+HH:MM' after a time of day.
ISO_OFFSET = re.compile(
    r"^(?P<wall>.*[T ]\d{2}(?::?\d{2}){0,2}(?:[.,]\d+)?)\s*"
    r"(?:(?P<z>[Zz])|(?P<sign>[+-])(?P<h>\d{2})(?::?(?P<m>\d{2}))?)$"
)


class Wall:
    """A datetime string read exactly: a NumPy datetime (whole seconds or coarser)
    plus `extra` attoseconds (a Fraction when finer than attoseconds)."""

    __slots__ = ("dt64", "extra")

    def __init__(self, dt64: np.datetime64, extra: Fraction) -> None:
        self.dt64, self.extra = dt64, extra


def parse_wall(text: str, original: str) -> Union[Wall, np.datetime64]:
    """`text` (`original` minus any UTC offset) as a Wall, or NaT."""
    text = text.strip()
    m = ISO_FRACTION.match(text)
    extra = Fraction(0)
    if m:
        text = m["head"] + m["tail"]
        # Attoseconds exactly; past them only whether a digit is nonzero counts
        # (any such instant lies strictly between the same attoseconds), and
        # int() of a long string is slow, or refused past 4300 digits.
        frac = m["frac"]
        extra = Fraction(int(frac[:18].ljust(18, "0")))
        if frac[18:].strip("0"):
            extra += Fraction(1, 2)
    if text.lower() in ("nat", ""):  # NumPy's NaT strings; parsed, 2.5 warns of a generic unit
        return np.datetime64("NaT", "s")
    with warnings.catch_warnings():
        # NumPy only warns when it drops a timezone ('Z', '+01:00'): refuse.
        warnings.simplefilter("error")
        try:
            v = np.datetime64(text)
        except (UserWarning, DeprecationWarning):
            raise TypeError(
                f"{original!r} has a timezone; datetime64 data are naive: "
                "give the bound in the data's own time"
            ) from None
        except ValueError as exc:
            raise ValueError(f"cannot read {original!r} as a datetime64 bound: {exc}") from None
    return v if np.isnat(v) else Wall(v, extra)


def parse_aware(text: str) -> Tuple[Union[Wall, np.datetime64], Optional[int]]:
    """A string bound on tz-aware data: its wall time (a Wall, or NaT) and the
    UTC offset it gives in attoseconds, or None when it gives none (the wall time
    is then in the data's zone). An offset the wall parser does not know is a
    ValueError."""
    m = ISO_OFFSET.match(text.strip())
    try:
        wall = parse_wall(m["wall"] if m else text, text)
    except TypeError as exc:  # an offset this parser does not know
        raise ValueError(f"cannot read {text!r} as a datetime bound: {exc}") from None
    if m is None or not isinstance(wall, Wall):
        return wall, None
    if m["z"]:
        return wall, 0
    off = (int(m["h"]) * 3600 + int(m["m"] or 0) * 60) * 10**18
    return wall, -off if m["sign"] == "-" else off


# ---- simdfilter._bounds (time part) before issue 44 ----


# A bound after reading: None (unbounded), NaN (matches nothing), or an exact
# rational (a whole number of ticks, or a half-tick marker).
_NAN = float("nan")


def _scalar(value: Any) -> Any:
    """0-d arrays stand for their element, as they do in NumPy comparisons."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _is_pandas_nat(value: Any) -> bool:
    return type(value).__name__ == "NaTType" and type(value).__module__.startswith("pandas")


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
            return parse_wall(value, value)
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
) -> Tuple[Union[None, np.datetime64, Wall], int]:
    """A bound on datetime data in zone `tz`, as (naive wall time, offset): the
    instant is the wall time minus the offset (attoseconds). (None, 0) for NaT."""
    value = _scalar(value)
    if dtype.kind != "M":
        raise ValueError(f"a time zone applies to datetime64 data, not {dtype}")
    if _is_pandas_nat(value) or (isinstance(value, np.datetime64) and np.isnat(value)):
        return None, 0
    if isinstance(value, str):
        wall, off = parse_aware(value)
        if not isinstance(wall, Wall):
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
    if isinstance(v, Wall):
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


def _int_at_least(q: Fraction, strict: bool) -> int:
    return math.floor(q) + 1 if strict else math.ceil(q)


def _int_at_most(q: Fraction, strict: bool) -> int:
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
) -> Optional[Tuple[int, int]]:
    """Inclusive bounds of [lo, hi] (per `inclusive`) in ticks of `dtype`, or None if empty.

    Parameters
    ----------
    dtype : np.dtype
        The data's dtype: datetime64 or timedelta64, of the data's unit.
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

    Raises
    ------
    ValueError
        For numeric `dtype`, whose bounds the C binding alone reads.
    """
    dtype = np.dtype(dtype)
    if tz is not None and dtype.kind != "M":
        raise ValueError(f"a time zone applies to datetime64 data, not {dtype}")
    if dtype.kind not in "mM":
        raise ValueError(f"bounds on {dtype} data are the C binding's alone (bounds_py.c)")
    if time_of_day:
        lo, hi = _since_midnight(lo), _since_midnight(hi)
    qlo, qhi = _time_real(dtype, lo, tz), _time_real(dtype, hi, tz)
    if (isinstance(qlo, float) and math.isnan(qlo)) or (isinstance(qhi, float) and math.isnan(qhi)):
        return None
    dmin, dmax = -(2**63) + 1, 2**63 - 1  # -2**63 is NaT
    a = dmin if qlo is None else max(_int_at_least(qlo, inclusive not in ("both", "left")), dmin)
    b = dmax if qhi is None else min(_int_at_most(qhi, inclusive not in ("both", "right")), dmax)
    return None if a > b else (a, b)
