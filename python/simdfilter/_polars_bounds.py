"""Which bounds simdfilter's kernels may compare with a Polars column, and which
are Polars' own to answer or refuse (simdfilter.polars asks ``delegate``).

Polars converts bounds its own ways, which differ between its expressions
(literals cast to a supertype with the column) and its eager Series methods (a
bound cast to the Series' dtype), and from NumPy's rule. The kernels take a
bound only where their answer is Polars'; everything else is Polars' (see
``_kernel_bound``). ``expression_bounds`` gives the bounds as an expression
compares integer data with them.
"""

from __future__ import annotations

import datetime as dt
import math
import zoneinfo
from typing import Any, Optional, Tuple

import numpy as np
import polars as pl

from simdfilter import _face, _masks, _numpy_rule


def _is_nan(bound: Any) -> bool:
    return isinstance(bound, (float, np.floating)) and bool(np.isnan(bound))


# Where a Python float or int overflows float32 (_numpy_rule's FLT_MAX plus half
# an ulp): Polars takes it as an infinity on Float32 data (and refuses an int past
# every double); NumPy warns or raises, and simdfilter keeps the number.
_F32_OVERFLOW = _numpy_rule.F32_OVERFLOW


def _f32_overflow(s: "pl.Series", bound: Any) -> bool:
    if type(bound) not in (float, int) or s.dtype != pl.Float32:
        return False
    try:
        d = float(bound)
    except OverflowError:
        return True
    return math.isfinite(d) and abs(d) >= _F32_OVERFLOW


def _f32_wide_int(s: "pl.Series", bound: Any) -> bool:
    # A Polars expression compares Float32 data with a Python int beyond 2**53
    # in its own ways (the int cast to Float32 once, or the data to Float64,
    # depending on the other bound), where NumPy and the Series methods round the
    # int to a double and then to float32: the expression's answer is Polars'.
    return type(bound) is int and abs(bound) > 2**53 and s.dtype == pl.Float32


def _unit_rounds(s: "pl.Series", bound: Any, expr: bool) -> bool:
    """Whether Polars compares a Python date, datetime or timedelta bound (whole
    microseconds) with this Datetime/Duration column at another precision than
    the kernels' exact one: its expressions compare at the coarser unit of the
    two, flooring the finer (on ns data the values are floored to microseconds);
    its Series methods floor the bound to the column's unit (ms data)."""
    dtype = s.dtype
    if not isinstance(dtype, (pl.Datetime, pl.Duration)) or not isinstance(
        bound, (dt.date, dt.timedelta)
    ):
        return False
    unit = dtype.time_unit
    if unit == "us":
        return False
    if expr:
        return True
    if unit == "ns":
        return False
    micro = getattr(bound, "microsecond", None)
    if micro is None:
        micro = getattr(bound, "microseconds", 0)
    return micro % 1000 != 0


def expression_bounds(s: "pl.Series", lo: Any, hi: Any) -> Tuple[Any, Any]:
    """The bounds as a Polars expression compares integer data with them: a float
    and an int bound make ``is_between`` compare all three in Float64 (the Series
    methods, as NumPy, compare each bound alone), so the int is its double. An
    int past Int64 is another literal type, which Polars compares exactly: that
    answer is Polars' own (OverflowError sends it there), a NumPy uint64 past
    Int64 too."""
    if lo is None or hi is None or not s.dtype.is_integer():
        return lo, hi
    for bound in (lo, hi):
        # np.uint64(2**63) and up too: Polars folds such a bound into the plan
        # (x < 2**63 holds for every Int64), where beside a float bound the
        # kernels would compare it as its double.
        if _is_integer(bound) and not -(2**63) <= int(bound) < 2**63:
            raise OverflowError("an int past Int64: Polars' own comparison")
    # A NumPy integer of the column's dtype is an integer literal too: beside a
    # float, Polars compares it in Float64 as it does a Python int.
    if type(lo) is float and _is_integer(hi):
        return lo, float(hi)
    if type(hi) is float and _is_integer(lo):
        return float(lo), hi
    return lo, hi


def _is_integer(bound: Any) -> bool:
    return type(bound) is int or isinstance(bound, np.integer)


def delegate(lo: Any, hi: Any, s: "pl.Series", expr: bool = False) -> bool:
    # Polars orders NaN above every number (NaN <= NaN holds): a NaN bound is
    # Polars' business, the kernels' "NaN matches nothing" would differ; so is a
    # Python float past float32's range on Float32 data (see _F32_OVERFLOW), and
    # in an expression a wide int on Float32 data (see _f32_wide_int), and a
    # Python time bound Polars compares at another precision (see _unit_rounds).
    if _is_nan(lo) or _is_nan(hi):
        return True
    if _face.is_bound_list(lo) or _face.is_bound_list(hi):
        return True  # Polars compares a sequence element by element (or raises)
    if not (_kernel_bound(s, lo, expr) and _kernel_bound(s, hi, expr)):
        return True
    if _face.past_int64(lo) or _face.past_int64(hi):
        return True  # Polars' Series methods raise OverflowError, its expressions compare
    if _f32_overflow(s, lo) or _f32_overflow(s, hi):
        return True
    if _unit_rounds(s, lo, expr) or _unit_rounds(s, hi, expr):
        return True
    return expr and (_f32_wide_int(s, lo) or _f32_wide_int(s, hi))


# The NumPy scalar type of each Polars dtype whose values the kernels compare
# with such a scalar exactly as Polars does (the literal is already of the
# column's type); for the integer ones, also the range the eager Series method
# casts an int bound into.
_NUMPY_SCALARS = {
    pl.Int8: np.int8,
    pl.Int16: np.int16,
    pl.Int32: np.int32,
    pl.Int64: np.int64,
    pl.UInt8: np.uint8,
    pl.UInt16: np.uint16,
    pl.UInt32: np.uint32,
    pl.UInt64: np.uint64,
    pl.Float32: np.float32,
    pl.Float64: np.float64,
    pl.Boolean: np.bool_,
}


def _kernel_bound(s: "pl.Series", bound: Any, expr: bool) -> bool:
    """Whether the kernels may compare `bound` with `s`: the common cases, where
    they give Polars' answer (the other checks of `_delegate` aside).

    Polars converts any other bound its own ways, which no rule of the kernels
    follows: an expression casts the column and its literals to their supertype
    (a NumPy float64 makes Float32 data Float64, a NumPy datetime64 is
    Datetime('ns'), a Decimal is a Decimal), or refuses the pair (a str on a
    temporal column, a datetime of another time zone); the eager Series method
    casts the bound to the Series' dtype (``int(np.float32(0.1))``, ``int`` of a
    Decimal, OverflowError for an int outside the dtype) or has no comparison
    at all (Boolean; a NumPy or int bound on a temporal Series). So a bound is
    the kernels' only when it is a Python bool, int or float on a numeric
    column, a NumPy scalar of the column's own dtype, or a Python date,
    datetime (of the column's time zone), time or timedelta on the column of
    that kind; anything else is Polars' to answer (or refuse).
    """
    if bound is None:
        return True
    dtype = s.dtype
    if dtype == pl.Boolean and not expr:
        return False  # Polars' Series methods have no >= or <= on Boolean
    if isinstance(bound, np.generic):
        return type(bound) is _NUMPY_SCALARS.get(dtype)
    kind = type(bound)
    if dtype == pl.Boolean:
        return kind is bool  # numbers on Boolean data: Polars 1.x refuses them, 2.x compares
    if dtype.is_integer():
        if kind is int and not expr:
            # The Series method casts the int to the dtype: OverflowError outside it.
            # (Int128 and UInt128, which no kernel reads, are Polars' anyway.)
            scalar = _NUMPY_SCALARS.get(dtype)
            if scalar is None:
                return False
            info = np.iinfo(scalar)
            return int(info.min) <= bound <= int(info.max)
        return kind in (bool, int, float)
    if dtype.is_float():
        return kind in (bool, int, float)
    if isinstance(dtype, pl.Datetime):
        if kind is dt.date:
            # The Series method has no comparison with a date; an expression takes
            # it as midnight UTC on aware data, which the kernels refuse (no zone).
            return expr and dtype.time_zone is None
        if kind is not dt.datetime or not _same_zone(bound, dtype.time_zone):
            return False
        return bound.tzinfo is None or not expr or _exists(bound)
    if dtype == pl.Date:
        return kind is dt.date
    if isinstance(dtype, pl.Duration):
        return kind is dt.timedelta
    if dtype == pl.Time:
        return kind is dt.time
    return True  # a column no kernel reads: the kernels refuse it, Polars answers


def _same_zone(bound: dt.datetime, zone: Optional[str]) -> bool:
    """Whether Polars takes the datetime on a column of time zone `zone`: naive
    on naive, or a zone of the same name (an expression raises SchemaError
    otherwise, the Series method TypeError)."""
    tz = bound.tzinfo
    if tz is None or zone is None:
        return tz is None and zone is None
    if tz is dt.timezone.utc:
        return zone == "UTC"
    # A fixed offset may carry any name (timezone(timedelta(hours=5), "Europe/Paris")):
    # only a ZoneInfo of the column's key is the column's zone.
    return isinstance(tz, zoneinfo.ZoneInfo) and tz.key == zone


def _exists(bound: dt.datetime) -> bool:
    """Whether an aware datetime's wall time exists in its zone (not in a DST gap,
    which Polars' expressions refuse with ComputeError)."""
    utc = bound.astimezone(dt.timezone.utc)
    return utc.astimezone(bound.tzinfo).replace(tzinfo=None) == bound.replace(tzinfo=None)


def kernel_is_in(s: "pl.Series", other: Any) -> bool:
    """Whether the kernels answer ``s.is_in(other)`` as Polars does: a number
    Series and items Polars takes for its dtype as they are (integers within the
    dtype's range on integer Series; floats on float Series, float32 values on
    Float32), no NaN among them (Polars' is_in matches NaN with NaN) and no
    nulls. Anything else (temporal and Boolean Series, expressions, strings,
    the items Polars 2 refuses) Polars answers, or refuses, itself."""
    dtype = s.dtype
    if isinstance(other, (pl.Expr, str)) or not (dtype.is_integer() or dtype.is_float()):
        return False
    try:
        items = _masks.items_array(other.to_numpy() if isinstance(other, pl.Series) else other)
    except (TypeError, ValueError):
        return False
    kind = items.dtype.kind
    if dtype.is_float():
        if kind != "f" or bool(np.isnan(items).any()):  # Polars refuses ints here
            return False
        # Polars casts the items to the Series' dtype: on Float32 only items
        # that are float32 values compare alike (0.1 would become float32's).
        return dtype != pl.Float32 or bool(
            np.array_equal(items.astype(np.float32).astype(np.float64), items.astype(np.float64))
        )
    if kind not in "iu" or items.size == 0:
        return kind in "iu"
    try:
        info = np.iinfo(str(dtype).lower())  # Int8 .. UInt64
    except TypeError:  # Int128 and the like: no kernel reads them
        return False
    return info.min <= int(items.min()) and int(items.max()) <= info.max
