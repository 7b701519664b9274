"""Dask DataFrames for :mod:`simdfilter.dask`: the ``sf`` accessor classes and the
per-partition functions they map over the partitions.

Private: ``simdfilter.dask`` registers the accessors and re-exports the classes.
Each partition is a pandas object, and each partition function is the pandas
face's (:mod:`simdfilter.pandas`) on it: the same bound rule (NumPy 2's), the
same fallback to pandas for columns no kernel reads, the same conjunction. This
module imports neither dask nor pandas at import time (the workers import it to
unpickle those functions; pandas comes with the first partition).
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Hashable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from simdfilter import _face

if TYPE_CHECKING:  # for the annotations only: this module imports no dask
    import dask.dataframe as dd

__all__ = ["SeriesAccessor", "DataFrameAccessor"]


def _pandas_face() -> Any:
    import simdfilter.pandas as face

    return face


def _partition_between(s, lo, hi, inclusive, invert=False):
    return _pandas_face().SeriesAccessor(s).between(lo, hi, inclusive, invert=invert)


def _partition_isin(s, values, invert=False):
    return _pandas_face().SeriesAccessor(s).isin(values, invert=invert)


def _partition_filter(s, lo, hi, inclusive, invert=False):
    return _pandas_face().SeriesAccessor(s).filter(lo, hi, inclusive, invert=invert)


def _partition_count(s, lo, hi, inclusive, invert=False) -> int:
    return _pandas_face().SeriesAccessor(s).count(lo, hi, inclusive, invert=invert)


def _frame_positions(df, ranges, inclusive, invert=False) -> np.ndarray:
    return _pandas_face()._rows(df, ranges, {}, inclusive, invert)


def _partition_frame_filter(df, ranges, inclusive, invert=False):
    return _pandas_face()._take(df, _frame_positions(df, ranges, inclusive, invert))


def _partition_frame_count(df, ranges, inclusive, invert=False) -> int:
    return int(_frame_positions(df, ranges, inclusive, invert).size)


def _sum_partition_counts(counts):
    return np.int64(np.sum(np.asarray(counts, dtype=np.int64)))


# A frame query: a mapping {label: (lo, hi)} (an AND), or a sequence of them (an OR).
# The key is Any, not Hashable: Mapping is invariant in its key, and a user's
# Dict[str, ...] (or Dict[int, ...]) is no Mapping[Hashable, ...] to a type checker.
_Ranges = Union[Mapping[Any, Tuple[Any, Any]], Sequence[Mapping[Any, Tuple[Any, Any]]], None]


def _ranges(
    meta: Any, ranges: Any, keywords: Dict[str, Any]
) -> List[Dict[Hashable, Tuple[Any, Any]]]:
    """The query as a list of mappings (their OR; one for a mapping and keywords),
    checked on the frame's meta (KeyError, TypeError as pandas' face raises them)
    before any partition runs. A label names a column, or the index (by its
    name, as ``df.query`` does)."""
    labels = _pandas_face()._Labels(meta)
    plans = _face.frame_plans(ranges, keywords, labels.has, labels.column)
    return [{label: (lo, hi) for label, _, lo, hi in plan} for plan in plans]


class SeriesAccessor:
    """``ds.sf``: simdfilter verbs on a Dask Series, one kernel call per partition.

    Each partition runs the pandas face (``s.sf`` of :mod:`simdfilter.pandas`):
    the columns it accelerates (NumPy-backed, nullable and Arrow-backed numbers,
    naive and tz-aware datetimes, timedeltas) go through the kernels, with the
    bounds NumPy 2 compares; any other is computed by pandas on that
    partition. A None end is unbounded.
    """

    def __init__(self, series: Any) -> None:
        self._s = series

    def between(
        self, left: Any, right: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> dd.Series:
        """Drop-in for ``ds.between(left, right, inclusive)``.

        Parameters
        ----------
        left, right : scalar or None
            The bounds, named as pandas names them; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: ``~ds.between(...)`` (NaN and NaT True, NA kept).

        Returns
        -------
        dask.dataframe.Series
            The same values, dtype, index and name as ``Series.between``.
        """
        s, lo, hi = self._s, left, right
        meta = _partition_between(s._meta, lo, hi, inclusive, invert)  # raises what pandas raises
        return s.map_partitions(_partition_between, lo, hi, inclusive, invert, meta=meta)

    def isin(self, values: Any, *, invert: Optional[bool] = False) -> dd.Series:
        """Drop-in for ``ds.isin(values)`` (``invert``: ``~ds.isin(values)``), each
        partition answered as the pandas accessor's ``isin`` answers it."""
        s = self._s
        meta = _partition_isin(s._meta, values, invert)  # raises what pandas raises
        return s.map_partitions(_partition_isin, values, invert, meta=meta)

    def filter(
        self, lo: Any, hi: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> dd.Series:
        """The elements in range, as ``ds[ds.between(lo, hi, inclusive)]`` (index kept).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: the elements outside the range (NaN and NaT kept, NA never).

        Returns
        -------
        dask.dataframe.Series
        """
        s = self._s
        _partition_filter(s._meta, lo, hi, inclusive, invert)
        return s.map_partitions(_partition_filter, lo, hi, inclusive, invert, meta=s._meta)

    def count(
        self, lo: Any, hi: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> dd.Scalar:
        """How many elements are in range (lazy scalar, a tree reduction).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: how many lie outside it (NA not counted).

        Returns
        -------
        dask.dataframe Scalar
            Computes to an int64.
        """
        s = self._s
        _partition_count(s._meta, lo, hi, inclusive, invert)
        return s.reduction(
            chunk=_partition_count,
            aggregate=_sum_partition_counts,
            chunk_kwargs=dict(lo=lo, hi=hi, inclusive=inclusive, invert=invert),
            meta=np.int64(0),
        )


class DataFrameAccessor:
    """``ddf.sf``: range queries over several columns of a Dask DataFrame.

    Each partition evaluates the conjunction of the pandas face (``df.sf``):
    the kernels read the columns most selective first, whole while many rows
    stand, then only at the rows left; columns no kernel reads last, compared by
    pandas at the rows left. Column kinds and fallbacks as :class:`SeriesAccessor`.
    A label may name the index (as ``ddf.query`` can); a list of mappings is
    their OR, and ``invert=True`` keeps the other rows (``ddf[~(...)]``: NA in
    the mask dropped), each partition evaluating them as pandas' face does.
    """

    def __init__(self, frame: Any) -> None:
        self._df = frame

    def filter(
        self,
        ranges: _Ranges = None,
        /,
        inclusive: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> dd.DataFrame:
        """The rows where every named column is in its range.

        Equal to ``ddf[ddf.a.between(*ra) & ddf.b.between(*rb)]``, with a None
        end unbounded; a list of mappings to ``ddf[(...) | (...)]``, `invert`
        to ``ddf[~(...)]``.

        Parameters
        ----------
        ranges : mapping or sequence of mappings, optional
            ``{label: (lo, hi)}``, any column label (ints, strings with spaces,
            tuples, one called ``inclusive``) or the index's name. A list (or
            tuple) of such mappings is their OR.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: the rows where pandas' mask is False (NaN and NaT are
            outside every range), not where it is NA.
        **keywords : (lo, hi)
            More ranges, ``label=(lo, hi)``, for labels that are identifiers
            (not beside a list of mappings).

        Returns
        -------
        dask.dataframe.DataFrame

        Examples
        --------
        >>> ddf.sf.filter({"dep_delay": (15, 60), "time_hour": ("2013-03-01", "2013-04-01")})  # doctest: +SKIP
        """
        df = self._df
        query = _ranges(df._meta, ranges, keywords)
        _partition_frame_filter(df._meta, query, inclusive, invert)
        return df.map_partitions(_partition_frame_filter, query, inclusive, invert, meta=df._meta)

    def count(
        self,
        ranges: _Ranges = None,
        /,
        inclusive: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> dd.Scalar:
        """How many rows :meth:`filter` keeps (lazy scalar, a tree reduction).

        Parameters
        ----------
        ranges, inclusive, invert, keywords
            As :meth:`filter`.

        Returns
        -------
        dask.dataframe Scalar
        """
        df = self._df
        query = _ranges(df._meta, ranges, keywords)
        _partition_frame_count(df._meta, query, inclusive, invert)
        return df.reduction(
            chunk=_partition_frame_count,
            aggregate=_sum_partition_counts,
            chunk_kwargs=dict(ranges=query, inclusive=inclusive, invert=invert),
            meta=np.int64(0),
        )
