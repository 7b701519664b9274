"""Dask DataFrames for :mod:`simdfilter.dask`: the ``sf`` accessor classes and the
per-partition functions they map over the partitions.

Private: ``simdfilter.dask`` registers the accessors and re-exports the classes.
Nothing here imports dask: each partition is a pandas object, and pandas itself
is imported where a partition function needs it (the workers import this module
to unpickle those functions).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np

import simdfilter

__all__ = ["SeriesAccessor", "DataFrameAccessor"]

_INCLUSIVE = ("both", "left", "right", "neither")


class _Fallback(Exception):
    """This column/bound combination goes to pandas' own comparisons."""


# Where a Python number overflows float32 (FLT_MAX plus half an ulp): NumPy, and so
# pandas, warns and compares with an infinity; simdfilter keeps the number.
_F32_OVERFLOW = float.fromhex("0x1.ffffffp127")


def _numeric_bound(dtype: np.dtype, value: Any) -> Any:
    """The bound, if pandas (NumPy 2) compares this column with it without an error
    or a warning: simdfilter then gives the same answer (its bounds are the numbers
    NumPy compares with); otherwise _Fallback, and pandas answers."""
    if isinstance(value, (np.timedelta64, np.datetime64)) or not isinstance(
        value, (bool, int, float, np.bool_, np.integer, np.floating)
    ):
        raise _Fallback
    if dtype.kind == "f" and type(value) in (int, float):
        try:
            d = float(value)
        except OverflowError:  # NumPy raises
            raise _Fallback from None
        if dtype == np.float32 and math.isfinite(d) and abs(d) >= _F32_OVERFLOW:
            raise _Fallback  # NumPy warns of the overflow
    return value


def _time_bound(dtype: np.dtype, value: Any) -> Any:
    import pandas as pd

    unit = np.datetime_data(dtype)[0]
    if dtype.kind == "M":
        if not isinstance(value, (str, pd.Timestamp, np.datetime64)) and not (
            hasattr(value, "hour") and hasattr(value, "year")  # datetime.datetime, not date
        ):
            raise _Fallback
        try:
            ts = pd.Timestamp(value)
        except (ValueError, TypeError, OverflowError):
            raise _Fallback from None
        if ts is pd.NaT or ts.tz is not None:
            raise _Fallback
        raw = ts.to_datetime64()
    else:
        if not isinstance(value, (str, pd.Timedelta, np.timedelta64)) and not (
            hasattr(value, "total_seconds")  # datetime.timedelta
        ):
            raise _Fallback
        try:
            ts = pd.Timedelta(value)
        except (ValueError, TypeError, OverflowError):
            raise _Fallback from None
        if ts is pd.NaT:
            raise _Fallback
        raw = ts.to_timedelta64()
    # Only bounds the column's unit holds exactly: no question of how pandas rounds.
    try:
        with np.errstate(all="ignore"):
            same = raw.astype(f"{dtype.kind}8[{unit}]")
        if same.astype(raw.dtype) != raw:
            raise _Fallback
    except (OverflowError, ValueError):
        raise _Fallback from None
    return same


def _kernel_bounds(dtype: Any, lo: Any, hi: Any, none_unbounded: bool) -> Tuple[Any, Any]:
    """Bounds for simdfilter that give exactly pandas' answer on this column, or
    _Fallback when only pandas itself can say (extension dtypes: nullable,
    tz-aware, Arrow, categorical...; object and string columns; bounds that
    NumPy would compare after a lossy conversion)."""
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biufmM" or dtype == np.float16:
        raise _Fallback
    out = []
    for value in (lo, hi):
        if value is None:
            if not none_unbounded:
                raise _Fallback
            out.append(None)
        elif dtype.kind in "mM":
            out.append(_time_bound(dtype, value))
        else:
            out.append(_numeric_bound(dtype, value))
    return out[0], out[1]


def _check_inclusive(inclusive: Any) -> None:
    if inclusive not in _INCLUSIVE:
        # pandas' own message for Series.between.
        raise ValueError(
            "Inclusive has to be either string of 'both','left', 'right', or 'neither'."
        )


def _pandas_mask(s, lo, hi, inclusive) -> np.ndarray:
    """pandas' own answer as a NumPy bool array (NA -> no match), None unbounded."""
    _check_inclusive(inclusive)
    if lo is not None and hi is not None:
        m = s.between(lo, hi, inclusive=inclusive)
    else:
        m = s.notna()
        if lo is not None:
            m = m & ((s >= lo) if inclusive in ("both", "left") else (s > lo))
        if hi is not None:
            m = m & ((s <= hi) if inclusive in ("both", "right") else (s < hi))
    return m.to_numpy(dtype=bool, na_value=False)


def _series_positions(s, lo, hi, inclusive) -> np.ndarray:
    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=True)
    except _Fallback:
        return np.flatnonzero(_pandas_mask(s, lo, hi, inclusive))
    _check_inclusive(inclusive)
    return simdfilter.filter_indexes(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)


def _partition_between(s, lo, hi, inclusive):
    import pandas as pd

    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=False)
    except _Fallback:
        return s.between(lo, hi, inclusive=inclusive)
    _check_inclusive(inclusive)
    mask = np.zeros(len(s), dtype=bool)
    mask[simdfilter.filter_indexes(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)] = True
    return pd.Series(mask, index=s.index, name=s.name, copy=False)


def _partition_filter(s, lo, hi, inclusive):
    return s.iloc[_series_positions(s, lo, hi, inclusive)]


def _partition_count(s, lo, hi, inclusive) -> int:
    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=True)
    except _Fallback:
        return int(np.count_nonzero(_pandas_mask(s, lo, hi, inclusive)))
    _check_inclusive(inclusive)
    return simdfilter.count_in_range(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)


def _frame_positions(df, ranges, inclusive) -> np.ndarray:
    """Rows where every column is in its range: the first range over the whole
    column, each further one only on the values at the surviving positions."""
    positions: Optional[np.ndarray] = None
    for column, (lo, hi) in ranges.items():
        s = df[column]
        if positions is None:
            positions = _series_positions(s, lo, hi, inclusive).astype(np.int64, copy=False)
        else:
            survivors = s.iloc[positions]
            positions = positions[_series_positions(survivors, lo, hi, inclusive)]
    if positions is None:
        return np.arange(len(df), dtype=np.int64)
    return positions


def _partition_frame_filter(df, ranges, inclusive):
    return df.iloc[_frame_positions(df, ranges, inclusive)]


def _partition_frame_count(df, ranges, inclusive) -> int:
    return int(_frame_positions(df, ranges, inclusive).size)


def _sum_partition_counts(counts):
    return np.int64(np.sum(np.asarray(counts, dtype=np.int64)))


def _ranges(columns, ranges: Dict[str, Any]) -> Dict[str, Tuple[Any, Any]]:
    out = {}
    for column, bounds in ranges.items():
        if column not in columns:
            raise KeyError(column)
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise TypeError(f"the range of {column!r} must be a (lo, hi) pair, not {bounds!r}")
        out[column] = (bounds[0], bounds[1])
    return out


class SeriesAccessor:
    """``ds.sf``: simdfilter verbs on a Dask Series, one kernel call per partition.

    Columns of a NumPy dtype simdfilter reads (bool, integers, float32/64,
    datetime64, timedelta64) are accelerated. Everything else (pandas nullable
    and Arrow-backed columns, tz-aware datetimes, categoricals, strings, object)
    and any bound NumPy would compare after a lossy conversion (a float bound on
    int64 data, say) is computed by pandas' own comparisons on that partition,
    so results are always what pandas gives.
    """

    def __init__(self, series: Any) -> None:
        self._s = series

    def between(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """Drop-in for ``ds.between(lo, hi, inclusive)``.

        Parameters
        ----------
        lo, hi : scalar
            The bounds, as pandas takes them (a None bound gives what pandas gives).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe.Series
            The same values, dtype, index and name as ``Series.between``.
        """
        s = self._s
        meta = _partition_between(s._meta, lo, hi, inclusive)  # raises what pandas raises
        return s.map_partitions(_partition_between, lo, hi, inclusive, meta=meta)

    def filter(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """The elements in range, as ``ds[ds.between(lo, hi, inclusive)]`` (index kept).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe.Series
        """
        s = self._s
        _partition_filter(s._meta, lo, hi, inclusive)
        return s.map_partitions(_partition_filter, lo, hi, inclusive, meta=s._meta)

    def count(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """How many elements are in range (lazy scalar, a tree reduction).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe Scalar
            Computes to an int64.
        """
        s = self._s
        _partition_count(s._meta, lo, hi, inclusive)
        return s.reduction(
            chunk=_partition_count,
            aggregate=_sum_partition_counts,
            chunk_kwargs=dict(lo=lo, hi=hi, inclusive=inclusive),
            meta=np.int64(0),
        )


class DataFrameAccessor:
    """``ddf.sf``: range queries over several columns of a Dask DataFrame.

    Each partition evaluates the conjunction without boolean masks: the first
    range through the kernel over its column, each further one only on the
    values at the surviving positions. Column kinds and fallbacks as
    :class:`SeriesAccessor`.
    """

    def __init__(self, frame: Any) -> None:
        self._df = frame

    def filter(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> Any:
        """The rows where every named column is in its range.

        Equal to ``ddf[ddf.a.between(*ra) & ddf.b.between(*rb)]``, with a None
        end unbounded.

        Parameters
        ----------
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        **ranges : (lo, hi)
            ``column=(lo, hi)`` for each column to restrict.

        Returns
        -------
        dask.dataframe.DataFrame

        Examples
        --------
        >>> ddf.sf.filter(dep_delay=(15, 60), time_hour=("2013-03-01", "2013-04-01"))  # doctest: +SKIP
        """
        df = self._df
        ranges = _ranges(df.columns, ranges)
        _partition_frame_filter(df._meta, ranges, inclusive)
        return df.map_partitions(_partition_frame_filter, ranges, inclusive, meta=df._meta)

    def count(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> Any:
        """How many rows :meth:`filter` keeps (lazy scalar, a tree reduction).

        Parameters
        ----------
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        **ranges : (lo, hi)

        Returns
        -------
        dask.dataframe Scalar
        """
        df = self._df
        ranges = _ranges(df.columns, ranges)
        _partition_frame_count(df._meta, ranges, inclusive)
        return df.reduction(
            chunk=_partition_frame_count,
            aggregate=_sum_partition_counts,
            chunk_kwargs=dict(ranges=ranges, inclusive=inclusive),
            meta=np.int64(0),
        )
