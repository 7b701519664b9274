"""Which bounds (and ``isin`` items) simdfilter's kernels may compare with a
pandas column, and which are pandas' own to answer or refuse (the pandas face's
adapter asks ``host_bounds`` and ``kernel_isin``).

NumPy-backed and nullable columns compare as NumPy 2 does, simdfilter's rule,
with a few exceptions where pandas converts a bound its own way; Arrow-backed
columns compare as Arrow does. Where pandas' answer would differ from the
kernels', or pandas refuses a bound the kernels would take, these raise
``AskHost`` (a TypeError) and pandas answers.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from typing import Any, Tuple

import numpy as np
import pandas as pd

from simdfilter import _face, _masks, _numpy_rule
from simdfilter._accessor import AskHost

__all__ = ["host_bounds", "kernel_isin"]


def _arrow_float_bound(dtype: Any, b: Any) -> Any:
    """A bound as pandas compares an Arrow-backed float column with it, for
    simdfilter (whose numbers are NumPy 2's): Arrow compares a Python float or a
    float64 with float32 data in float64, exactly, which an np.float64 bound
    says. Ints, bools and NaN Arrow compares in ways of its own (an int rounds
    to float32 for >= but not for <; NaN gives null): pandas answers those."""
    if b is None:
        return b
    if isinstance(b, (float, np.floating)) and np.isnan(b):
        raise AskHost("a NaN bound on an Arrow-backed float column")
    if isinstance(b, (bool, np.bool_, int, np.integer)):
        if str(dtype.pyarrow_dtype) == "float" or abs(int(b)) > 2**53:
            raise AskHost("an integer bound on an Arrow-backed float column")
        return b
    if isinstance(b, float) and str(dtype.pyarrow_dtype) == "float":  # np.float64 too
        return np.float64(b)
    return b


def _is_datetime_column(dtype: Any) -> bool:
    if isinstance(dtype, pd.ArrowDtype):
        return str(dtype.pyarrow_dtype).startswith("timestamp")
    return getattr(dtype, "kind", "") == "M"


def _is_missing(b: Any) -> bool:
    """Whether a bound is NaN or NaT (of any kind: pandas', NumPy's)."""
    if isinstance(b, (float, np.floating)):
        return bool(np.isnan(b))
    if isinstance(b, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(b))
    return b is pd.NaT


def _past_double(b: Any) -> bool:
    """A Python int no double holds: NumPy's (hence pandas') OverflowError on floats."""
    if isinstance(b, int) and not isinstance(b, bool) and abs(b) >= 2**1023:
        try:
            float(b)
        except OverflowError:
            return True
    return False


def _int_subclass_numpy_refuses(b: Any) -> bool:
    """A subclass of int on integer data, where NumPy 2.0.x reads it as a weak
    scalar but without the comparison loops a Python int has (2.0's take any
    Python int): NumPy, and pandas with it (an Arrow column falls back to NumPy
    where Arrow refuses the bound), raises OverflowError where the int does not
    fit the data's type (-1 on uint64 data, 2**63 on int64), and answers where
    it fits. pandas answers both; NumPy 2.1 on reads the subclass as int64 or
    uint64 and compares exactly, as the kernels do."""
    return _numpy_rule.SUBCLASSES_WEAK and isinstance(b, int) and type(b) not in (int, bool)


def _arrow_asks_pandas(kind: str, b: Any) -> bool:
    """Whether pandas compares an Arrow-backed column of `kind` (the Arrow type's
    name up to its parameters) with the bound `b` otherwise than the kernels do.

    A NaN or NaT bound makes Arrow's comparison null (the kernels: False); an int
    past int64 is pandas' OverflowError; pandas refuses strings and NumPy
    datetimes on timestamps and anything but dates on dates (TypeError). A
    number on durations is pandas' too: pandas 2 and later compare it as a count
    of the unit (NumPy unsigned ints aside, which they refuse), pandas 1.5
    refuses it. A timedelta64 on Arrow ints and bools too: pandas compares it as
    NumPy does (a count of its unit) where the column has no null, and raises
    TypeError where it has one. pandas answers those."""
    if _is_missing(b) or _face.past_int64(b):
        return True
    if kind.startswith(("int", "uint")) and _int_subclass_numpy_refuses(b):
        return True
    if isinstance(b, np.timedelta64) and (kind.startswith(("int", "uint")) or kind == "bool"):
        return True  # pandas' answer depends on the column's nulls (see above)
    if kind == "timestamp":
        return isinstance(b, (str, np.datetime64))
    if kind == "duration":  # np.timedelta64 is a NumPy integer, and no number
        return isinstance(b, (int, float, np.number)) and not isinstance(b, np.timedelta64)
    if kind in ("date32", "date64"):
        return isinstance(b, (str, _dt.datetime, np.datetime64))
    return False


def _asks_pandas(dtype: Any, b: Any) -> bool:
    """Whether pandas compares a NumPy-backed or nullable column of `dtype` with
    the bound `b` otherwise than the kernels do: an int past int64 on bools, or
    past every double on floats (pandas' OverflowError), an int subclass on
    integers with NumPy 2.0.x (see _int_subclass_numpy_refuses), an integer or bool on
    timedeltas (its TypeError), a unitless timedelta64 on timedeltas (pandas
    reads nanoseconds where NumPy reads the column's unit), a Decimal on floats
    (decimal.InvalidOperation where the data has NaN)."""
    kind = getattr(dtype, "kind", "")
    if kind == "b":  # bool and boolean
        return _face.past_int64(b)
    if kind == "m":  # np.timedelta64 is a NumPy integer too, and the kernels' bound
        if isinstance(b, np.timedelta64):  # unitless: NumPy reads ticks, pandas nanoseconds
            return np.datetime_data(b.dtype)[0] == "generic"
        return isinstance(b, (int, np.integer, np.bool_))  # bools too: pandas refuses them
    if kind == "f":  # float32, float64, Float32, Float64
        return isinstance(b, _decimal.Decimal) or _past_double(b)
    if kind in ("i", "u"):  # int8 ... uint64, Int8 ... UInt64
        return _int_subclass_numpy_refuses(b)
    return False


def host_bounds(s: "pd.Series", lo: Any, hi: Any) -> Tuple[Any, Any]:
    """The bounds that give pandas' own answer on `s`: as given (NumPy-backed and
    nullable columns compare as NumPy 2 does, simdfilter's rule), or Arrow's for an
    Arrow-backed float32 column. AskHost (a TypeError) where pandas compares
    otherwise or refuses a bound the kernels would take (a ``datetime.date`` on
    datetime data, NaN on Arrow-backed data, ...): the caller then asks pandas,
    which answers or raises."""
    dtype = s.dtype
    if _face.is_bound_list(lo) or _face.is_bound_list(hi):
        raise AskHost("pandas compares a sequence of bounds element by element")
    arrow = isinstance(dtype, pd.ArrowDtype)
    kind = str(dtype.pyarrow_dtype).split("[", 1)[0] if arrow else ""  # Arrow's type name
    for b in (lo, hi):
        if b is not None and (_arrow_asks_pandas(kind, b) if arrow else _asks_pandas(dtype, b)):
            raise AskHost(f"pandas compares {dtype} with {type(b).__name__} its own way")
    if kind in ("float", "double"):
        return _arrow_float_bound(dtype, lo), _arrow_float_bound(dtype, hi)
    if _is_datetime_column(dtype):
        for b in (lo, hi):
            if isinstance(b, _dt.date) and not isinstance(b, _dt.datetime):
                raise AskHost(f"Invalid comparison between dtype={dtype} and date")
    return lo, hi


def kernel_isin(s: "pd.Series", values: Any, invert: bool) -> Any:
    """`isin`'s result array through the kernels, in the dtype pandas gives; a
    TypeError (pandas answers) where pandas compares its own way: missing values
    among the items (pandas matches NaN with NaN, NA and NaT with theirs), items
    of another kind than the column's, Arrow-backed and tz-aware columns (pandas
    casts the items to the column's Arrow type, or refuses them)."""
    dtype = s.dtype
    if isinstance(dtype, pd.ArrowDtype) or getattr(dtype, "tz", None) is not None:
        raise AskHost("pandas compares these items")
    items = _masks.items_array(values)
    kind = getattr(dtype, "kind", "O")
    if kind in "biuf":
        ok = items.dtype.kind in "biuf" and not (
            items.dtype.kind == "f" and bool(np.isnan(items).any())
        )
    else:
        ok = kind in "mM" and items.dtype.kind == kind and not bool(np.isnat(items).any())
    if not ok:
        raise AskHost("pandas compares these items")
    return _masks.pandas_isin(s, items, invert)
