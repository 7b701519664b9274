"""The ``sf`` accessor on pandas Series and DataFrames.

``import simdfilter.pandas`` registers it (pandas stays an optional dependency):

>>> import pandas as pd, simdfilter.pandas
>>> s = pd.Series([1992, 2018, 1934, 2002, 2022, 1998], name="year")
>>> s.sf.indexes(1982, 2000)
array([0, 5], dtype=uint32)
>>> s.sf.count(1982, 2000)
2
>>> df = pd.DataFrame({"year": s, "score": [3.5, 1.0, None, 2.0, 4.0, 9.5]})
>>> df.sf.filter(year=(1982, 2000), score=(None, 5))
   year  score
0  1992    3.5

``between``, ``filter`` and ``count`` are drop-ins for pandas' own
expressions (``s.between``, ``s[s.between(...)]``, ``s.between(...).sum()``):
the same values, dtype, index and name. Accelerated columns (read in place by
the SIMD kernels): bool, int8..uint64, float32, float64, datetime64 (naive or
tz-aware) and timedelta64, NumPy-backed, nullable (``Int64``, ``Float64``,
``boolean``, ...) or Arrow-backed (``int64[pyarrow]``, ...). Any other column
(object, strings, categorical, Period, intervals) is computed by pandas
itself, so the answer is always pandas' answer; ``indexes`` raises TypeError
for such a column instead, as ``simdfilter.filter_indexes`` does.
A None end is unbounded (pandas has no such bound; the kernels do). Strings
bound datetime columns as pandas reads them (in the column's zone when it is
tz-aware), Arrow-backed timestamp columns included, where pandas itself
refuses strings.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

try:
    import pandas as pd
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "simdfilter.pandas needs pandas, which is not installed: pip install pandas"
    ) from exc

import simdfilter as _sf
from simdfilter import _conjunction as _conj
from simdfilter import _masks

__all__ = ["SeriesAccessor", "DataFrameAccessor"]

_INCLUSIVE = ("both", "left", "right", "neither")
# pandas' own message for a bad `inclusive`, so the drop-in raises what pandas raises.
_BAD_INCLUSIVE = 'Inclusive has to be either string of "both","left", "right", or "neither".'

_MASKED = (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)
# pandas 1.5 compares Arrow-backed columns into a nullable ``boolean`` array;
# pandas 2.0 made it ``bool[pyarrow]``. `between` gives what this pandas gives.
_ARROW_BETWEEN_IS_ARROW = int(pd.__version__.split(".")[0]) >= 2


def _check_inclusive(inclusive: Any) -> str:
    if not isinstance(inclusive, str) or inclusive not in _INCLUSIVE:
        raise ValueError(_BAD_INCLUSIVE)
    return inclusive


def _arrow_float32_bound(b: Any) -> Any:
    """A bound as pandas compares an Arrow-backed float32 column with it, for
    simdfilter (whose numbers are NumPy 2's): Arrow compares a Python float or a
    float64 in float64, exactly, which an np.float64 bound says. Other bounds as
    given (Arrow's int comparisons are not followed)."""
    if isinstance(b, float):  # np.float64 too
        return np.float64(b)
    return b


def _host_bounds(s: "pd.Series", lo: Any, hi: Any) -> Tuple[Any, Any]:
    """The bounds that give pandas' own answer on `s`: as given (NumPy-backed and
    nullable columns compare as NumPy 2 does, simdfilter's rule), or Arrow's for an
    Arrow-backed float32 column."""
    dtype = s.dtype
    if isinstance(dtype, pd.ArrowDtype) and str(dtype.pyarrow_dtype) == "float":
        return _arrow_float32_bound(lo), _arrow_float32_bound(hi)
    return lo, hi


def _positions(
    s: "pd.Series", lo: Any, hi: Any, inclusive: str, within: Optional[np.ndarray] = None
) -> np.ndarray:
    """filter_indexes on the column; TypeError/ValueError as the kernel raises them."""
    lo, hi = _host_bounds(s, lo, hi)
    if within is None:
        return _sf.filter_indexes(s, lo, hi, inclusive=inclusive)
    return _sf.filter_indexes(s, lo, hi, inclusive=inclusive, within=within)


def _null_mask(s: "pd.Series") -> Optional[np.ndarray]:
    """True at the NA of a nullable or Arrow-backed column, or None if it has none."""
    if not s.hasnans:
        return None
    return s.isna().to_numpy()


def _result_array(s: "pd.Series", mask: np.ndarray) -> Any:
    """`mask` in the dtype pandas' between gives for `s`: ``boolean`` with NA for
    nullable columns, ``bool[pyarrow]`` with nulls for Arrow-backed ones (``boolean``
    before pandas 2), else bool."""
    if isinstance(s.array, _MASKED) or (
        isinstance(s.dtype, pd.ArrowDtype) and not _ARROW_BETWEEN_IS_ARROW
    ):
        nulls = _null_mask(s)
        return pd.arrays.BooleanArray(
            mask, nulls if nulls is not None else np.zeros(len(mask), bool)
        )
    if isinstance(s.dtype, pd.ArrowDtype):
        import pyarrow as pa

        nulls = _null_mask(s)
        return pd.array(
            pa.array(mask, type=pa.bool_(), mask=nulls), dtype=pd.ArrowDtype(pa.bool_())
        )
    return mask


def _series_like(values: Any, s: "pd.Series") -> "pd.Series":
    """A Series of `values` with the index and name of `s`.

    Built from a block manager, pandas' internal route: the public constructor
    costs more than the whole filter on a small Series (2.4x this here), and
    groupby-apply pipelines call it once per small group. A pandas without
    that route gets the public constructor, the same Series.
    """
    try:
        from pandas.core.internals import SingleBlockManager

        mgr = SingleBlockManager.from_array(values, s.index)
        out = pd.Series._from_mgr(mgr, mgr.axes)
        out.name = s.name
        return out
    except (ImportError, AttributeError, TypeError):
        return pd.Series(values, index=s.index, name=s.name, copy=False)


class SeriesAccessor:
    """``s.sf``: range queries on one column through simdfilter's kernels.

    Accelerated dtypes: bool, int8..uint64, float32, float64, datetime64 (naive
    or tz-aware) and timedelta64, NumPy-backed, nullable or Arrow-backed. Other
    columns go to pandas itself in `between`, `filter` and `count`; `indexes`
    raises TypeError for them. NA, NaN and NaT never match.
    """

    def __init__(self, series: "pd.Series") -> None:
        self._s = series

    def indexes(self, lo: Any, hi: Any, inclusive: str = "both") -> np.ndarray:
        """Positions (``iloc``) of the elements in range, ascending.

        Parameters
        ----------
        lo, hi : scalar or None
            Bounds; None is unbounded. On datetime columns: datetime-likes or
            strings, read as pandas reads them (in the column's zone if tz-aware).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        numpy.ndarray
            uint32 positions (int64 from 2**32 rows on), as ``simdfilter.filter_indexes``.

        Raises
        ------
        TypeError
            A column no kernel reads (object, strings, categorical, Period,
            intervals), or bounds of the wrong kind.
        ValueError
            Bad `inclusive`.
        """
        inclusive = _check_inclusive(inclusive)
        return _positions(self._s, lo, hi, inclusive)

    def between(self, lo: Any, hi: Any, inclusive: str = "both") -> "pd.Series":
        """A drop-in for ``s.between(lo, hi, inclusive)``.

        Returns
        -------
        pandas.Series
            Same index and name as ``s``; dtype bool, or ``boolean`` with NA at
            the NA of a nullable column (``bool[pyarrow]`` for Arrow-backed
            ones), as pandas gives it.
        """
        s = self._s
        inclusive = _check_inclusive(inclusive)
        try:
            result = _masks.pandas_between(s, *_host_bounds(s, lo, hi), inclusive)
        except (TypeError, ValueError):
            return s.between(lo, hi, inclusive=inclusive)  # pandas' answer, or its error
        return _series_like(result, s)

    def filter(self, lo: Any, hi: Any, inclusive: str = "both") -> "pd.Series":
        """The elements in range, index kept: ``s[s.between(lo, hi, inclusive)]``."""
        s = self._s
        inclusive = _check_inclusive(inclusive)
        try:
            idx = _positions(s, lo, hi, inclusive)
        except (TypeError, ValueError):
            return s[s.between(lo, hi, inclusive=inclusive)]
        return s.iloc[idx]

    def count(self, lo: Any, hi: Any, inclusive: str = "both") -> int:
        """How many elements are in range: ``int(s.between(lo, hi, inclusive).sum())``."""
        s = self._s
        inclusive = _check_inclusive(inclusive)
        try:
            return _sf.count_in_range(s, *_host_bounds(s, lo, hi), inclusive=inclusive)
        except (TypeError, ValueError):
            return int(s.between(lo, hi, inclusive=inclusive).sum())


def _between(col: "pd.Series", lo: Any, hi: Any, inclusive: str) -> np.ndarray:
    """pandas' own answer as a bool array, NA False."""
    m = col.between(lo, hi, inclusive=inclusive)
    return np.asarray(m.fillna(False).astype(bool).to_numpy(), dtype=bool)


def _column(df: "pd.DataFrame", name: str) -> "pd.Series":
    col = df[name]
    if isinstance(col, pd.DataFrame):
        raise ValueError(f"column label {name!r} is not unique")
    return col


def _conjunction(
    df: "pd.DataFrame", inclusive: str, ranges: Dict[str, Any], pandas_fallback: bool
) -> np.ndarray:
    """Positions of the rows in every range (simdfilter._conjunction): columns no
    kernel reads are refused, or with `pandas_fallback` answered by ``between``."""
    inclusive = _check_inclusive(inclusive)
    plan = _conj.parse_ranges(ranges, df.columns, lambda name: _column(df, name))
    plan = _conj.most_selective_first(plan, len(df), inclusive)
    return _conj.conjunction(
        plan,
        len(df),
        inclusive,
        index_dtype=np.uint32 if len(df) < 2**32 else np.int64,
        positions=lambda col, lo, hi, within: _positions(col, lo, hi, inclusive, within=within),
        mask=lambda col, lo, hi: _between(col, lo, hi, inclusive),
        fallback=(TypeError, ValueError) if pandas_fallback else (),
    )


class DataFrameAccessor:
    """``df.sf``: multi-column range queries without a boolean mask per column.

    ``df.sf.filter(a=(lo, hi), b=(lo, hi))`` equals
    ``df[df.a.between(lo, hi) & df.b.between(lo, hi)]``. The first range is
    evaluated through the kernel over the whole column, each further one only
    at the surviving rows. Accelerated columns as in ``s.sf``.
    """

    def __init__(self, frame: "pd.DataFrame") -> None:
        self._df = frame

    def indexes(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> np.ndarray:
        """Positions (``iloc``) of the rows where every named column is in its range.

        Parameters
        ----------
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Applies to every range.
        **ranges : (lo, hi)
            One pair per column; a None end is unbounded.

        Raises
        ------
        KeyError
            An unknown column.
        TypeError
            A column no kernel reads, or bounds of the wrong kind.
        ValueError
            Bad `inclusive`.
        """
        return _conjunction(self._df, inclusive, ranges, pandas_fallback=False)

    def filter(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> "pd.DataFrame":
        """The rows where every named column is in its range, index kept.

        A drop-in for ``df[df.a.between(...) & df.b.between(...)]``; a column no
        kernel reads is evaluated by pandas (``between``), at the rows left.

        Raises
        ------
        KeyError
            An unknown column.
        ValueError
            Bad `inclusive`.
        """
        return self._df.iloc[_conjunction(self._df, inclusive, ranges, pandas_fallback=True)]


pd.api.extensions.register_series_accessor("sf")(SeriesAccessor)
pd.api.extensions.register_dataframe_accessor("sf")(DataFrameAccessor)
