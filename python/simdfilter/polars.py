"""The ``sf`` namespace on Polars Series and DataFrames.

``import simdfilter.polars`` registers it (Polars stays an optional dependency):

>>> import polars as pl, simdfilter.polars
>>> s = pl.Series("year", [1992, 2018, 1934, 2002, 2022, 1998])
>>> s.sf.indexes(1982, 2000).to_list()
[0, 5]
>>> s.sf.count(1982, 2000)
2
>>> df = pl.DataFrame({"year": s, "score": [3.5, 1.0, None, 2.0, 4.0, 9.5]})
>>> df.sf.filter(year=(1982, 2000), score=(None, 5)).rows()
[(1992, 3.5)]

The Series is read in place through its Arrow C stream (chunks and nulls
included, no copy). Accelerated dtypes: Boolean, Int8..Int64, UInt8..UInt64,
Float32, Float64, Datetime (with or without a time zone), Duration. Any other
(String, Categorical, Date, Decimal, ...) is computed by Polars itself in
`between`, `filter` and `count`; `indexes` raises TypeError for it. Nulls
never match; `between` is null where Polars' ``is_between`` is. A None end is
unbounded. ``inclusive`` takes simdfilter's (and pandas') names, 'both',
'left', 'right', 'neither', and Polars' 'none' for 'neither'.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "simdfilter.polars needs polars, which is not installed: pip install polars"
    ) from exc

import simdfilter as _sf
from simdfilter import _conjunction as _conj
from simdfilter import _masks
from simdfilter._columns import POLARS_MIN, older_than

if older_than(pl.__version__, POLARS_MIN):
    # Such a Polars puts its physical arrays (Int32 for a Date, Int64 for a Datetime,
    # Duration or Time) in the Arrow C stream of a temporal Series, whose schema says
    # the temporal type, and its own export then fails the stream (error 2001),
    # whoever reads it.
    raise ImportError(
        "simdfilter.polars needs Polars >= %s (older ones cannot export Date, Datetime, "
        "Duration and Time columns through the Arrow C stream); this is Polars %s: "
        "pip install 'polars>=%s'"
        % (".".join(map(str, POLARS_MIN)), pl.__version__, ".".join(map(str, POLARS_MIN)))
    )

__all__ = ["SeriesNamespace", "DataFrameNamespace"]

# simdfilter's inclusive -> Polars' closed
_CLOSED = {"both": "both", "left": "left", "right": "right", "neither": "none", "none": "none"}
_INCLUSIVE = {
    "both": "both",
    "left": "left",
    "right": "right",
    "neither": "neither",
    "none": "neither",
}


def _check(inclusive: Any) -> str:
    if not isinstance(inclusive, str) or inclusive not in _INCLUSIVE:
        raise ValueError(
            f"inclusive must be one of 'both', 'left', 'right', 'neither' "
            f"(or 'none'), not {inclusive!r}"
        )
    return _INCLUSIVE[inclusive]


def _is_nan(bound: Any) -> bool:
    return isinstance(bound, (float, np.floating)) and bool(np.isnan(bound))


# Where a Python float or int overflows float32 (FLT_MAX plus half an ulp): Polars
# takes it as an infinity on Float32 data (and refuses an int past every double);
# NumPy warns or raises, and simdfilter keeps the number.
_F32_OVERFLOW = float.fromhex("0x1.ffffffp127")


def _f32_overflow(s: "pl.Series", bound: Any) -> bool:
    if type(bound) not in (float, int) or s.dtype != pl.Float32:
        return False
    try:
        d = float(bound)
    except OverflowError:
        return True
    return math.isfinite(d) and abs(d) >= _F32_OVERFLOW


def _polars_mask(s: "pl.Series", lo: Any, hi: Any, inclusive: str) -> "pl.Series":
    """Polars' own answer: ``is_between``, or the comparison an unbounded end leaves
    (NaN excluded there, as the kernels exclude it: Polars orders NaN above +inf)."""
    closed = _CLOSED[inclusive]
    if lo is not None and hi is not None:
        return s.is_between(lo, hi, closed=closed)
    if lo is None and hi is None:
        m = s == s  # null at the nulls, True elsewhere
    elif hi is None:
        m = s >= lo if closed in ("both", "left") else s > lo
    else:
        m = s <= hi if closed in ("both", "right") else s < hi
    if s.dtype.is_float():
        m = m & ~s.is_nan()
    return m


def _index_dtype(n: int) -> Any:
    return np.uint32 if n < 2**32 else np.uint64


def _positions(
    s: "pl.Series", lo: Any, hi: Any, inclusive: str, within: Optional[np.ndarray] = None
) -> np.ndarray:
    kw: Dict[str, Any] = dict(inclusive=inclusive, index_dtype=_index_dtype(len(s)))
    if within is not None:
        kw["within"] = within
    return _sf.filter_indexes(s, lo, hi, **kw)


def _delegate(lo: Any, hi: Any, s: Optional["pl.Series"] = None) -> bool:
    # Polars orders NaN above every number (NaN <= NaN holds): a NaN bound is
    # Polars' business, the kernels' "NaN matches nothing" would differ; so is a
    # Python float past float32's range on Float32 data (see _F32_OVERFLOW).
    if _is_nan(lo) or _is_nan(hi):
        return True
    return s is not None and (_f32_overflow(s, lo) or _f32_overflow(s, hi))


class SeriesNamespace:
    """``s.sf``: range queries on one Polars Series through simdfilter's kernels.

    Accelerated dtypes: Boolean, Int8..Int64, UInt8..UInt64, Float32, Float64,
    Datetime (naive or with a time zone), Duration; others are computed by
    Polars in `between`, `filter` and `count`, and `indexes` raises TypeError.
    """

    def __init__(self, series: "pl.Series") -> None:
        self._s = series

    def indexes(self, lo: Any, hi: Any, inclusive: str = "both") -> "pl.Series":
        """Positions of the elements in range, ascending.

        Parameters
        ----------
        lo, hi : scalar or None
            Bounds; None is unbounded.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        polars.Series
            UInt32 (UInt64 from 2**32 rows on), named as the Series.

        Raises
        ------
        TypeError
            A dtype no kernel reads, or bounds of the wrong kind.
        ValueError
            Bad `inclusive`.
        """
        inclusive = _check(inclusive)
        s = self._s
        if _delegate(lo, hi, s):
            idx = _polars_mask(s, lo, hi, inclusive).fill_null(False).arg_true()
            return idx.cast(pl.UInt32 if len(s) < 2**32 else pl.UInt64).alias(s.name)
        return pl.Series(s.name, _positions(s, lo, hi, inclusive))

    def between(self, lo: Any, hi: Any, inclusive: str = "both") -> "pl.Series":
        """A drop-in for ``s.is_between(lo, hi, closed=...)``: Boolean, null at the nulls."""
        inclusive = _check(inclusive)
        s = self._s
        if _delegate(lo, hi, s):
            return _polars_mask(s, lo, hi, inclusive)
        try:
            return _masks.polars_between(s, lo, hi, inclusive)
        except (TypeError, ValueError):
            return _polars_mask(s, lo, hi, inclusive)

    def filter(self, lo: Any, hi: Any, inclusive: str = "both") -> "pl.Series":
        """The elements in range: ``s.filter(s.is_between(lo, hi, closed=...))``."""
        inclusive = _check(inclusive)
        s = self._s
        if _delegate(lo, hi, s):
            return s.filter(_polars_mask(s, lo, hi, inclusive))
        try:
            idx = _positions(s, lo, hi, inclusive)
        except (TypeError, ValueError):
            return s.filter(_polars_mask(s, lo, hi, inclusive))
        return s.gather(idx)

    def count(self, lo: Any, hi: Any, inclusive: str = "both") -> int:
        """How many elements are in range: ``s.is_between(lo, hi, closed=...).sum()``."""
        inclusive = _check(inclusive)
        s = self._s
        if not _delegate(lo, hi, s):
            try:
                return _sf.count_in_range(s, lo, hi, inclusive=inclusive)
            except (TypeError, ValueError):
                pass
        return int(_polars_mask(s, lo, hi, inclusive).sum() or 0)


def _conjunction(
    df: "pl.DataFrame", inclusive: str, ranges: Dict[str, Any], fallback: bool
) -> np.ndarray:
    """Positions of the rows in every range (simdfilter._conjunction): columns no
    kernel reads are refused, or with `fallback` answered by ``is_between``."""
    inclusive = _check(inclusive)
    plan = _conj.parse_ranges(ranges, df.columns, df.get_column)
    plan = _conj.most_selective_first(plan, len(df), inclusive)
    return _conj.conjunction(
        plan,
        len(df),
        inclusive,
        index_dtype=_index_dtype(len(df)),
        positions=lambda col, lo, hi, within: (
            None if _delegate(lo, hi, col) else _positions(col, lo, hi, inclusive, within=within)
        ),
        mask=lambda col, lo, hi: _polars_mask(col, lo, hi, inclusive).fill_null(False).to_numpy(),
        fallback=(TypeError,) if fallback else (),
    )


class DataFrameNamespace:
    """``df.sf``: multi-column range queries, no boolean mask per column.

    ``df.sf.filter(a=(lo, hi), b=(lo, hi))`` equals
    ``df.filter(pl.col("a").is_between(lo, hi) & pl.col("b").is_between(lo, hi))``.
    """

    def __init__(self, frame: "pl.DataFrame") -> None:
        self._df = frame

    def indexes(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> "pl.Series":
        """Positions of the rows where every named column is in its range (UInt32/UInt64).

        Raises
        ------
        KeyError
            An unknown column.
        TypeError
            A column no kernel reads, or bounds of the wrong kind.
        """
        idx = _conjunction(self._df, inclusive, ranges, fallback=False)
        return pl.Series("index", idx)

    def filter(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> "pl.DataFrame":
        """The rows where every named column is in its range, selected by position.

        A column no kernel reads is evaluated by Polars, at the rows left.

        Raises
        ------
        KeyError
            An unknown column.
        """
        # Row selection by an integer array: every Polars has it; DataFrame.gather
        # does not (Polars 1.40 and older lack it, Series.gather is far older).
        return self._df[_conjunction(self._df, inclusive, ranges, fallback=True)]


pl.api.register_series_namespace("sf")(SeriesNamespace)
pl.api.register_dataframe_namespace("sf")(DataFrameNamespace)
