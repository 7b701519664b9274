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
>>> df.sf.filter([{"year": (None, 1950)}, {"score": (9, None)}])  # an OR of mappings
   year  score
2  1934    NaN
5  1998    9.5

``between``, ``filter``, ``count`` and ``isin`` are drop-ins for pandas' own
expressions (``s.between``, ``s[s.between(...)]``, ``s.between(...).sum()``,
``s.isin(values)``):
the same values, dtype, index and name. Accelerated columns (read in place by
the SIMD kernels): bool, int8..uint64, float32, float64, datetime64 (naive or
tz-aware) and timedelta64, NumPy-backed, nullable (``Int64``, ``Float64``,
``boolean``, ...) or Arrow-backed (``int64[pyarrow]``, ...). Any other column
(object, strings, categorical, Period, intervals) is computed by pandas
itself, so the answer is always pandas' answer, and ``indexes`` gives the
positions of the elements ``filter`` keeps. So are bounds pandas compares
otherwise than the kernels would (NaN or NaT on Arrow-backed columns, ints past
int64 on bools, numbers on timedeltas, ...): pandas answers, or raises its own
exception. A None end is unbounded (pandas has no such bound; the kernels do).
Strings bound datetime columns as pandas reads them (in the column's zone when
it is tz-aware); Arrow-backed timestamp columns refuse them, as in pandas.
"""

from __future__ import annotations

from typing import Any, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

try:
    import pandas as pd
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "simdfilter.pandas needs pandas, which is not installed: pip install pandas"
    ) from exc

import simdfilter as _sf
from simdfilter import _accessor, _face, _masks
from simdfilter._pandas_bounds import host_bounds, kernel_isin

__all__ = ["SeriesAccessor", "DataFrameAccessor", "sf"]

# Positions: uint32, int64 from 2**32 rows on.
_Positions = npt.NDArray[Union[np.uint32, np.int64]]
# A frame query: a mapping {label: (lo, hi)} (an AND), or a sequence of them (an OR).
# The key is Any, not Hashable: Mapping is invariant in its key, and a user's
# Dict[str, ...] (or Dict[int, ...]) is no Mapping[Hashable, ...] to a type checker.
_Ranges = Union[Mapping[Any, Tuple[Any, Any]], Sequence[Mapping[Any, Tuple[Any, Any]]], None]


def _probe(inclusive: Any) -> Any:
    return pd.Series([0, 1, 2]).between(0, 2, inclusive=inclusive).tolist()


def _check_inclusive(inclusive: Any) -> str:
    """`inclusive` as pandas takes it; pandas' own ValueError otherwise."""
    return _face.checked_inclusive(inclusive, _face.PANDAS_NAMES, _probe)


def _positions(
    s: "pd.Series",
    lo: Any,
    hi: Any,
    inclusive: str,
    within: Any = None,  # positions, or _conjunction.BITS
    invert: Optional[bool] = False,
) -> np.ndarray:
    """filter_indexes on the column (uint32, int64 from 2**32 rows on), the
    bounds pandas' own; TypeError/ValueError as the kernel raises them."""
    lo, hi = host_bounds(s, lo, hi)
    return _face.positions(s, lo, hi, inclusive, wide=np.int64, within=within, invert=invert)


def _host(s: "pd.Series", lo: Any, hi: Any, inclusive: str) -> Any:
    """pandas' own answer (its dtype, its NA, its errors), a None end unbounded."""
    return _face.host_mask(
        s,
        lo,
        hi,
        inclusive,
        between=lambda c, a, b: c.between(a, b, inclusive=inclusive),
        everything=lambda: s == s,
    )


def _host_bool(
    s: "pd.Series", lo: Any, hi: Any, inclusive: str, invert: Optional[bool] = False
) -> np.ndarray:
    """pandas' own answer as a NumPy bool array, NA False; `invert`: its ``~``
    (NaN and NaT, False in ``between``, become True; NA stays NA, so False)."""
    m = _host(s, lo, hi, inclusive)
    return _bools(~m if invert else m)


def _bools(m: Any) -> np.ndarray:
    """pandas' mask as a NumPy bool array, NA False."""
    return np.asarray(m.to_numpy(dtype=bool, na_value=False), dtype=bool)


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


def _non_native(dtype: Any) -> bool:
    """A NumPy dtype of the other byte order ('>i8' here), which pandas' take refuses."""
    return isinstance(dtype, np.dtype) and not dtype.isnative


def _byte_column(dtype: Any) -> bool:
    """Whether ``_core._take_rows`` copies a column of this dtype: NumPy-backed, 1, 2,
    4 or 8-byte elements holding no Python objects (any byte order: the bytes are
    copied as they are, the dtype kept)."""
    return isinstance(dtype, np.dtype) and not dtype.hasobject and dtype.itemsize in (1, 2, 4, 8)


def _take_rows(obj: Any, idx: np.ndarray) -> Any:
    """``obj.iloc[idx]`` for columns `_byte_column` takes, by ``_core._take_rows``: every
    column in one pass per block of rows, into the result pool, with no conversion or
    check pass over the positions (they come from the kernels). The index is taken as
    iloc takes it (``index.take``), and attrs and flags follow (``__finalize__``).

    On a 10 M-row frame of three 8-byte columns, 10 % of rows, this took 24.8 ms where
    ``df.iloc`` took 39.9 (1 %: 1.9 against 4.3; 50 %: 38.8 against 114.7; AMD EPYC
    Zen 4, loaded, interleaved best of 9)."""
    if isinstance(obj, pd.Series):
        (values,) = _sf._core._take_rows([obj.to_numpy(copy=False)], idx)
        index = obj.index.take(idx)
        return pd.Series(values, index=index, name=obj.name, copy=False).__finalize__(obj)
    return _frame_of(obj, idx, _sf._core._take_rows(_byte_columns(obj), idx))


def _byte_columns(df: "pd.DataFrame") -> List[np.ndarray]:
    """The columns of `df` as arrays, in place (`_byte_column`s all)."""
    return [df.iloc[:, j].to_numpy(copy=False) for j in range(df.shape[1])]


def _frame_of(df: "pd.DataFrame", idx: np.ndarray, taken: List[np.ndarray]) -> "pd.DataFrame":
    """``df.iloc[idx]`` from its columns' rows at `idx` (`taken`), as iloc makes
    it: the index taken (``index.take``), the labels, attrs and flags kept."""
    out = pd.DataFrame(dict(enumerate(taken)), index=df.index.take(idx), copy=False)
    out.columns = df.columns
    return out.__finalize__(df)


def _filter_frame(
    df: "pd.DataFrame", ranges: Any, keywords: Dict[str, Any], inclusive: Any, invert: Any
) -> "pd.DataFrame":
    """``df.sf.filter``'s rows: in one pass over the columns where
    ``_core._filter_rows`` takes the query (one mapping, not inverted, every
    column of `df` a `_byte_column`, every range read by a kernel), else the
    positions (`_rows`), then the rows at them (`_take`).

    One pass: for each block of rows that stays in cache, the ranges' rows, then
    every column's values at them; positions first read every column from
    memory twice (figures: csrc/cpython/README.md, "Rows in one pass")."""
    if not isinstance(ranges, (list, tuple)):
        inclusive = _check_inclusive(inclusive)  # the errors _rows raises, in its order
        if not _face.frame_invert(invert):
            got = _one_pass(df, ranges, keywords, inclusive)
            if got is not None:
                return got
    return _take(df, _rows(df, ranges, keywords, inclusive, invert))


def _one_pass(
    df: "pd.DataFrame", ranges: Any, keywords: Dict[str, Any], inclusive: str
) -> Optional["pd.DataFrame"]:
    """`_filter_frame`'s one pass, or None where the query is not one it takes, or
    where the positions' way would read the columns on several threads (idle
    cores and a large frame; the one pass runs on one): then positions and a
    take answer, as the host's idiom would (its errors too)."""
    dtypes = list(df.dtypes)
    if not 0 < len(dtypes) <= 256 or not all(_byte_column(d) for d in dtypes):
        return None
    labels = _Labels(df)
    (plan,) = _face.frame_plans(ranges, keywords, labels.has, labels.column)
    queries = []
    for _, col, lo, hi in plan:
        try:
            queries.append((col, *host_bounds(col, lo, hi)))
        except _accessor.AskHost:
            return None
    n = len(df)
    if _sf._core._auto_threads(n * sum(getattr(c.dtype, "itemsize", 8) for c, _, _ in queries)) > 1:
        return None  # the positions' way reads the columns on several threads; this on one
    try:
        got = _sf._core._filter_rows(
            queries,
            inclusive,
            _byte_columns(df),
            n,
            np.dtype(np.intp),  # what index.take converts positions to, before it takes
            _face.ONE_PASS_MOST,
        )
    except Exception:  # a column or bound the kernels leave, or any error: the other way
        return None
    return None if got is None else _frame_of(df, *got)


def _take(obj: Any, idx: np.ndarray) -> Any:
    """``obj.iloc[idx]`` (a Series or DataFrame, `idx` ascending positions).

    Columns of 1 to 8-byte NumPy elements are taken by the library (`_take_rows`);
    a frame with any other column by pandas. pandas' take refuses a column of
    non-native byte order ("Big-endian buffer not supported on little-endian
    compiler"), where ``s[mask]`` reads it with NumPy: there the rows come by a
    boolean mask, column by column for a frame, each column's dtype (its byte order
    too), the index and the labels kept. That is ``s[s.between(...)]`` for a
    Series; for a frame pandas' own ``df[mask]`` raises, and this gives the rows it
    would (`_take_rows` copies such columns' bytes as they are: the same)."""
    dtypes = [obj.dtype] if isinstance(obj, pd.Series) else list(obj.dtypes)
    if 0 < len(dtypes) <= 256 and all(_byte_column(d) for d in dtypes):
        return _take_rows(obj, idx)
    if isinstance(obj, pd.Series):
        if not _non_native(obj.dtype):
            return obj.iloc[idx]
    elif not any(_non_native(d) for d in obj.dtypes):
        return obj.iloc[idx]
    mask = np.zeros(len(obj), dtype=bool)
    mask[idx] = True
    if isinstance(obj, pd.Series):
        return obj[mask]
    out = pd.concat([obj.iloc[:, j][mask] for j in range(obj.shape[1])], axis=1)
    out.columns = obj.columns
    return out


class _Pandas(_accessor.Host):
    """pandas' adapter of the column verbs (simdfilter._accessor): its
    ``inclusive`` names, the bounds it compares its own way (``host_bounds``),
    its ``between`` and ``isin`` for what the kernels leave, and its Series."""

    names = _face.PANDAS_NAMES
    wide = np.int64

    def probe(self, closed: Any) -> Any:
        return _probe(closed)

    def bounds(self, s: Any, lo: Any, hi: Any) -> Tuple[Any, Any]:
        return host_bounds(s, lo, hi)

    def mask(self, s: Any, lo: Any, hi: Any, inclusive: str) -> Any:
        return _host(s, lo, hi, inclusive)

    def kernel_between(self, s: Any, lo: Any, hi: Any, inclusive: str, invert: bool) -> Any:
        return _series_like(_masks.pandas_between(s, lo, hi, inclusive, invert), s)

    def mask_positions(self, s: Any, m: Any) -> Any:
        return np.flatnonzero(_bools(m)).astype(_face.index_dtype(len(s)))

    def take(self, s: Any, idx: np.ndarray) -> Any:
        return _take(s, idx)

    def take_mask(self, s: Any, m: Any) -> Any:
        return s[_bools(m)]

    def count_mask(self, m: Any) -> int:
        return int(np.count_nonzero(_bools(m)))

    def kernel_isin(self, s: Any, values: Any, invert: bool, **options: Any) -> Any:
        return _series_like(kernel_isin(s, values, invert), s)

    def isin(self, s: Any, values: Any, **options: Any) -> Any:
        return s.isin(values)


_PANDAS = _Pandas()


class SeriesAccessor:
    """``s.sf``: range queries on one column through simdfilter's kernels.

    Accelerated dtypes: bool, int8..uint64, float32, float64, datetime64 (naive
    or tz-aware) and timedelta64, NumPy-backed, nullable or Arrow-backed. Other
    columns, and bounds pandas compares its own way, go to pandas itself (so
    `indexes` gives the positions `filter` keeps). NA, NaN and NaT never match.
    """

    def __init__(self, series: "pd.Series") -> None:
        self._s = series

    def indexes(
        self, lo: Any, hi: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> _Positions:
        """Positions (``iloc``) of the elements in range, ascending.

        Parameters
        ----------
        lo, hi : scalar or None
            Bounds; None is unbounded. On datetime columns: datetime-likes or
            strings, read as pandas reads them (in the column's zone if tz-aware).
            A column no kernel reads, or bounds pandas compares its own way,
            pandas compares.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: the elements outside the range instead, as
            ``np.flatnonzero(~s.between(lo, hi, inclusive))`` with NA dropped:
            NaN and NaT are kept, NA never.

        Returns
        -------
        numpy.ndarray
            uint32 positions (int64 from 2**32 rows on), as ``simdfilter.filter_indexes``.

        Raises
        ------
        TypeError, OverflowError, ...
            What pandas raises for these bounds on this column (its type).
        ValueError
            Bad `inclusive`.
        """
        return _accessor.indexes(_PANDAS, self._s, lo, hi, inclusive, invert)

    def between(
        self, left: Any, right: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> "pd.Series[bool]":
        """A drop-in for ``s.between(left, right, inclusive)``.

        Parameters
        ----------
        left, right : scalar or None
            Bounds, named as pandas names them; None is unbounded.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        invert : bool or None, default False (None: False)
            True: ``~s.between(left, right, inclusive)``, in the same pass: True
            outside the range and at NaN and NaT (which are not in it), NA
            where the column is NA (pandas' ``~NA`` is NA).

        Returns
        -------
        pandas.Series
            Same index and name as ``s``; dtype bool, or ``boolean`` with NA at
            the NA of a nullable column (``bool[pyarrow]`` for Arrow-backed
            ones), as pandas gives it.
        """
        return _accessor.between(_PANDAS, self._s, left, right, inclusive, invert)

    def filter(
        self, lo: Any, hi: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> "pd.Series":
        """The elements in range, index kept: ``s[s.between(lo, hi, inclusive)]``.

        `invert` True: the elements outside it, ``s[~s.between(...)]`` with NA
        dropped (the outliers; NaN and NaT kept)."""
        return _accessor.filter(_PANDAS, self._s, lo, hi, inclusive, invert)

    def count(
        self, lo: Any, hi: Any, inclusive: str = "both", *, invert: Optional[bool] = False
    ) -> int:
        """How many elements are in range: ``int(s.between(lo, hi, inclusive).sum())``;
        `invert` True: how many lie outside it (NA not counted)."""
        return _accessor.count(_PANDAS, self._s, lo, hi, inclusive, invert)

    def isin(self, values: Any, *, invert: Optional[bool] = False) -> "pd.Series[bool]":
        """A drop-in for ``s.isin(values)``: whether each element equals one of `values`.

        Parameters
        ----------
        values : set or list-like
            The items, as pandas takes them. Numbers on number columns and
            times of the column's kind on datetime64/timedelta64 columns are
            looked up by the kernels (``simdfilter.isin``); anything else
            (missing values among them, strings, Arrow-backed or tz-aware
            columns, a column no kernel reads) pandas answers itself.
        invert : bool or None, default False (None: False)
            True: ``~s.isin(values)``, in the same pass (True at NaN, and at the
            NA of a nullable column, whose ``isin`` is False there).

        Returns
        -------
        pandas.Series
            Same index and name as ``s``; dtype bool, or ``boolean`` for a
            nullable column, as pandas gives it.
        """
        return _accessor.isin(_PANDAS, self._s, values, invert)


def _column(df: "pd.DataFrame", label: Hashable) -> "pd.Series":
    col = df[label]
    if isinstance(col, pd.DataFrame):
        raise ValueError(f"column label {label!r} names {col.shape[1]} columns, not one")
    return col


class _Labels:
    """What a label of a frame query names in `df`, as ``df.query`` resolves a
    name: a column first; else a level of the row index, by its name (any
    hashable but None), by ``ilevel_<i>`` for an unnamed level i, or
    ``"index"`` for the whole index when it has one level. pandas' own
    ``DataFrame.eval`` puts the column resolvers before the index resolvers, so
    a column shadows a level of the same name there too."""

    def __init__(self, df: "pd.DataFrame") -> None:
        self._df = df

    def level(self, label: Hashable) -> Optional[int]:
        """The number of the index level `label` names, or None."""
        index = self._df.index
        names: List[Hashable] = list(index.names)
        if label is None:
            return None
        if isinstance(index, pd.MultiIndex) and isinstance(label, str) and label == "index":
            raise TypeError(
                "'index' names the whole MultiIndex (as in df.query), which has no "
                f"range: name one of its levels, {names!r} (ilevel_<i> for an unnamed one)"
            )
        for i, name in enumerate(names):
            key = name if name is not None else f"ilevel_{i}"
            if _same_label(key, label):
                return i
        if len(names) == 1 and isinstance(label, str) and label == "index":
            return 0
        return None

    def has(self, label: Hashable) -> bool:
        if label in self._df.columns or self.level(label) is not None:
            return True
        raise KeyError(
            f"{label!r}: no column, nor index level, of that name "
            f"(columns {list(self._df.columns)!r}, index levels {list(self._df.index.names)!r})"
        )

    def column(self, label: Hashable) -> "pd.Series":
        if label in self._df.columns:
            return _column(self._df, label)
        i = self.level(label)
        assert i is not None  # has() said so
        values = self._df.index.get_level_values(i)
        return pd.Series(values.array, name=values.name, copy=False)


def _same_label(a: Hashable, b: Hashable) -> bool:
    """Whether two labels are one, as ``label in df.columns`` compares them (``==``)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # an == with no truth value
        return False


def _frame_positions(
    col: "pd.Series", lo: Any, hi: Any, inclusive: str, within: Any, invert: bool = False
) -> Optional[np.ndarray]:
    try:
        return _positions(col, lo, hi, inclusive, within=within, invert=invert)
    except _accessor.AskHost:
        return None  # pandas answers, at the rows left


def _rows(
    df: "pd.DataFrame",
    ranges: Any,
    keywords: Dict[str, Any],
    inclusive: Any,
    invert: Any = False,
) -> np.ndarray:
    """Positions of the rows a frame query keeps (simdfilter._face.frame_query):
    in every range of a mapping, or of any mapping of a list; with `invert`,
    the others (NA never). Columns no kernel reads are compared by pandas at
    the rows the others left. A label names a column, or an index level."""
    inclusive = _check_inclusive(inclusive)
    invert = _face.frame_invert(invert)
    labels = _Labels(df)
    plans = _face.frame_plans(ranges, keywords, labels.has, labels.column)

    def mask(col: "pd.Series", lo: Any, hi: Any, at: Any, invert: bool = False) -> np.ndarray:
        return _host_bool(col if at is None else _take(col, at), lo, hi, inclusive, invert)

    def positions(
        col: "pd.Series", lo: Any, hi: Any, within: Any, invert: bool = False
    ) -> Optional[np.ndarray]:
        return _frame_positions(col, lo, hi, inclusive, within, invert)

    return _face.frame_query(
        plans, len(df), inclusive, invert=invert, wide=np.int64, positions=positions, mask=mask
    )


class DataFrameAccessor:
    """``df.sf``: multi-column range queries without a boolean mask per column.

    ``df.sf.filter({"a": (lo, hi), "b": (lo, hi)})``, or ``df.sf.filter(a=(lo, hi),
    b=(lo, hi))`` for labels that are identifiers, equals
    ``df[df.a.between(lo, hi) & df.b.between(lo, hi)]``. The mapping takes any
    label: ints, strings with spaces, MultiIndex tuples, a column called
    ``inclusive``, and, as ``df.query`` does, the name of an index level (a
    column of that name wins, as there). A list of mappings is their OR:
    ``df.sf.filter([{"a": ra}, {"b": rb}])`` equals
    ``df[df.a.between(*ra) | df.b.between(*rb)]``. ``invert=True`` keeps the
    other rows: ``df[~(...)]``, the rows where pandas' mask is False (NaN and
    NaT are outside every range; NA in the mask, pandas' ``~NA``, is dropped).

    The kernels read the columns most selective first: each one whole while
    many rows stand (its in-range bits ANDed with the others'), then each
    further one only at the rows left; columns no kernel reads come last,
    compared by pandas only at the rows left. Accelerated columns as in ``s.sf``.
    """

    def __init__(self, frame: "pd.DataFrame") -> None:
        self._df = frame

    def indexes(
        self,
        ranges: _Ranges = None,
        /,
        inclusive: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> _Positions:
        """Positions (``iloc``) of the rows where every named column is in its range.

        Parameters
        ----------
        ranges : mapping or sequence of mappings, optional
            ``{label: (lo, hi)}``, any column label or index level name; a None
            end is unbounded. A list (or tuple) of such mappings is their OR:
            the rows in every range of any one of them.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Applies to every range.
        invert : bool or None, default False (None: False)
            True: the rows the query does not keep, as ``df[~mask]`` keeps them:
            where pandas' mask is False (a value outside its range, NaN and NaT
            included), not where it is NA.
        **keywords : (lo, hi)
            More ranges, ``label=(lo, hi)``, for labels that are identifiers
            (not beside a list of mappings).

        Returns
        -------
        numpy.ndarray
            uint32 positions, ascending (int64 from 2**32 rows on).

        Raises
        ------
        KeyError
            A label that names no column and no index level (the message names it).
        TypeError
            No range, an empty list or mapping, a range that is not a pair, a
            label given twice, keywords beside a list, ``invert`` not a bool (a
            column named invert goes in the mapping); or pandas' own, as below.
        TypeError, OverflowError, ...
            What pandas raises comparing a column with its bounds (its type).
        ValueError
            Bad `inclusive`, or a label that names several columns.

        Examples
        --------
        >>> import pandas as pd, simdfilter.pandas
        >>> df = pd.DataFrame({"a": [1, 5, 9], "b": [0.5, None, 7.0]},
        ...                   index=pd.Index([10, 20, 30], name="id"))
        >>> df.sf.indexes({"a": (4, 10), "id": (None, 25)})
        array([1], dtype=uint32)
        >>> df.sf.indexes([{"a": (0, 2)}, {"b": (6, 8)}])
        array([0, 2], dtype=uint32)
        >>> df.sf.indexes(b=(0, 1), invert=True)   # NaN is outside the range
        array([1, 2], dtype=uint32)
        """
        return _rows(self._df, ranges, keywords, inclusive, invert)

    def filter(
        self,
        ranges: _Ranges = None,
        /,
        inclusive: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> "pd.DataFrame":
        """The rows where every named column is in its range, index kept.

        A drop-in for ``df[df.a.between(...) & df.b.between(...)]``; a list of
        mappings for ``df[(...) | (...)]``, `invert` for ``df[~(...)]``. A
        column no kernel reads is compared by pandas, only at the rows the
        others left. Parameters, and what is raised, as :meth:`indexes`.
        """
        return _filter_frame(self._df, ranges, keywords, inclusive, invert)

    def count(
        self,
        ranges: _Ranges = None,
        /,
        inclusive: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> int:
        """How many rows :meth:`filter` keeps. Parameters as :meth:`indexes`."""
        return len(_rows(self._df, ranges, keywords, inclusive, invert))


@overload
def sf(obj: pd.DataFrame) -> DataFrameAccessor: ...
@overload
def sf(obj: pd.Series) -> SeriesAccessor: ...
def sf(obj: Union[pd.Series, pd.DataFrame]) -> Union[SeriesAccessor, DataFrameAccessor]:
    """``obj.sf``, typed: the accessor of a Series or a DataFrame.

    The registered ``s.sf`` and ``df.sf`` are invisible to type checkers
    (pandas-stubs reads ``df.sf`` as a column, ``s.sf`` as an element); this
    function gives the same accessor with its type, for code checked by mypy or
    pyright:

    >>> import pandas as pd
    >>> from simdfilter.pandas import sf
    >>> df = pd.DataFrame({"year": [1992, 2018, 1934, 2002]})
    >>> sf(df).count(year=(1982, 2000))
    1
    >>> sf(df["year"]).indexes(1982, 2010)
    array([0, 3], dtype=uint32)

    Raises
    ------
    TypeError
        `obj` is neither a Series nor a DataFrame.
    """
    if isinstance(obj, pd.DataFrame):
        return DataFrameAccessor(obj)
    if isinstance(obj, pd.Series):
        return SeriesAccessor(obj)
    raise TypeError(f"sf() takes a pandas Series or DataFrame, not {type(obj).__name__}")


pd.api.extensions.register_series_accessor("sf")(SeriesAccessor)
pd.api.extensions.register_dataframe_accessor("sf")(DataFrameAccessor)
