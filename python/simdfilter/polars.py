"""The ``sf`` namespace on Polars Series, DataFrames and expressions.

``import simdfilter.polars`` registers it (Polars stays an optional dependency):

>>> import polars as pl, simdfilter.polars
>>> s = pl.Series("year", [1992, 2018, 1934, 2002, 2022, 1998])
>>> s.sf.indexes(1982, 2000).to_list()
[0, 5]
>>> s.sf.count(1982, 2000)
2
>>> df = pl.DataFrame({"year": s, "score": [3.5, 1.0, None, 2.0, 4.0, 9.5]})
>>> df.sf.filter({"year": (1982, 2000), "score": (None, 5)}).rows()
[(1992, 3.5)]
>>> df.lazy().filter(pl.col("year").sf.between(1982, 2000, closed="none")).collect().rows()
[(1992, 3.5), (1998, 9.5)]
>>> df.lazy().sf.filter([{"year": (None, 1950)}, {"score": (9, None)}]).collect().rows()
[(1934, None), (1998, 9.5)]

The Series is read in place through its Arrow C stream (chunks and nulls
included, no copy). Accelerated dtypes: Boolean, Int8..Int64, UInt8..UInt64,
Float32, Float64, Date, Datetime (with or without a time zone), Duration, Time
(Boolean in expressions and frames: Polars' Series methods have no comparison
on it, and the Series verbs raise its NotImplementedError). Any other (String,
Categorical, Decimal, ...) is computed by Polars itself, in every verb. Nulls
never match; `between` is null where Polars' ``is_between`` is. A None end is
unbounded. The ends are Polars' ``closed``: 'both', 'left', 'right', 'none'.
In expressions (``pl.col("x").sf.between``) the answer is Polars' expression's,
on every dtype (see :class:`ExprNamespace`); the Series verbs give the eager
``Series.is_between``'s, and bounds Polars converts its own way are Polars'
to answer or refuse (see `simdfilter._polars_bounds`).
"""

from __future__ import annotations

import functools
import operator
from typing import (
    Any,
    Callable,
    Dict,
    Generic,
    Hashable,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    overload,
)

import numpy as np

try:
    import polars as pl
except ImportError as exc:  # pragma: no cover - exercised in a subprocess test
    raise ImportError(
        "simdfilter.polars needs polars, which is not installed: pip install polars"
    ) from exc

from simdfilter import _accessor, _core, _face  # type: ignore[attr-defined]
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

from simdfilter._polars_bounds import delegate, expression_bounds  # noqa: E402
from simdfilter._polars_expr import ExprNamespace  # noqa: E402
from simdfilter._polars_host import (  # noqa: E402, F401 (the plugin's batches)
    _POLARS,
    _batch_between,
    _batch_count,
    _batch_is_in,
    _check,
    _polars_mask,
    _positions,
    _sorted,
)

# Defined in _polars_expr (this file stays readable), public here: its name says so.
ExprNamespace.__module__ = __name__

__all__ = [
    "SeriesNamespace",
    "DataFrameNamespace",
    "LazyFrameNamespace",
    "ExprNamespace",
    "ColumnNotFoundError",
    "sf",
]


class SeriesNamespace:
    """``s.sf``: range queries on one Polars Series through simdfilter's kernels.

    Accelerated dtypes: Int8..Int64, UInt8..UInt64, Float32, Float64, Date,
    Datetime (naive or with a time zone), Duration, Time; others are computed
    by Polars (``indexes`` gives the positions ``filter`` keeps). Each verb follows the eager ``Series.is_between`` (its answer,
    or its exception: NotImplementedError on Boolean Series, Polars 2.1).
    The closed ends are Polars' ``closed``: 'both', 'left', 'right', 'none'.
    """

    def __init__(self, series: "pl.Series") -> None:
        self._s = series

    def indexes(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> "pl.Series":
        """Positions of the elements in range, ascending.

        Parameters
        ----------
        lower_bound, upper_bound : scalar or None
            Bounds; None is unbounded.
        closed : {'both', 'left', 'right', 'none'}, default 'both'
            Which ends are in range, as in Polars' ``is_between``.
        invert : bool or None, default False (None: False)
            True: the elements outside the range instead, as
            ``(~s.is_between(...)).arg_true()``: NaN kept, nulls never.

        Returns
        -------
        polars.Series
            UInt32 (UInt64 from 2**32 rows on), named as the Series.

        Raises
        ------
        TypeError, NotImplementedError, ...
            What Polars' ``is_between`` raises for these bounds on this Series
            (its type): a dtype no kernel reads is compared by Polars.
        ValueError
            Bad `closed` (Polars' own message).
        """
        return _accessor.indexes(_POLARS, self._s, lower_bound, upper_bound, closed, invert)

    def between(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> "pl.Series":
        """A drop-in for ``s.is_between(lower_bound, upper_bound, closed)``: Boolean,
        null at the nulls; a None bound is unbounded. `invert` True:
        ``~s.is_between(...)`` (NaN True, as it is not between; null stays null)."""
        return _accessor.between(_POLARS, self._s, lower_bound, upper_bound, closed, invert)

    def filter(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> "pl.Series":
        """The elements in range: ``s.filter(s.is_between(lower_bound, upper_bound, closed))``;
        `invert` True: those outside it, ``s.filter(~s.is_between(...))`` (NaN
        kept, nulls dropped)."""
        return _accessor.filter(_POLARS, self._s, lower_bound, upper_bound, closed, invert)

    def count(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> int:
        """How many elements are in range: ``s.is_between(lower_bound, upper_bound, closed).sum()``;
        `invert` True: how many lie outside it (nulls not counted)."""
        return _accessor.count(_POLARS, self._s, lower_bound, upper_bound, closed, invert)

    def is_in(
        self, other: Any, *, nulls_equal: bool = False, invert: Optional[bool] = False
    ) -> "pl.Series":
        """A drop-in for ``s.is_in(other, nulls_equal=...)``: Boolean, whether each
        value equals one of `other`, null at the nulls (``nulls_equal=True``:
        Polars answers, nulls then compared as values). Number items on number
        Series are looked up by the kernels (``simdfilter.isin``); Polars answers
        anything else itself. `invert` True: ``~s.is_in(other)`` (NaN True; null
        stays null)."""
        return _accessor.isin(_POLARS, self._s, other, invert, nulls_equal=nulls_equal)


# ---- frames -----------------------------------------------------------------------


class ColumnNotFoundError(pl.exceptions.ColumnNotFoundError, KeyError):
    """A column the frame lacks: Polars' ColumnNotFoundError, as ``df.filter``
    raises, and a KeyError, as the frame namespace raised before (issue 28)."""

    def __str__(self) -> str:
        return str(self.args[0])  # the message, not KeyError's repr of it


def _frame_closed(closed: Any) -> str:
    """`_check` for a frame verb, refusing ``closed=(lo, hi)``."""
    _face.refuse_range_as(
        "closed", closed, "closed-ends parameter ('both', 'left', 'right', 'none')"
    )
    return _check(closed)


# A frame query: a mapping {name: (lo, hi)} (an AND), or a sequence of them (an OR).
_Ranges = Union[Mapping[str, Tuple[Any, Any]], Sequence[Mapping[str, Tuple[Any, Any]]], None]


def _has(df: "pl.DataFrame") -> Callable[[Hashable], bool]:
    """Whether a name is a column of `df`; ColumnNotFoundError naming it otherwise."""
    names = set(df.columns)

    def has(name: Hashable) -> bool:
        if name not in names:
            raise ColumnNotFoundError(
                f"unable to find column {name!r}; valid columns: {df.columns!r}"
            )
        return True

    return has


# The columns the one pass reads and takes: numbers held as NumPy holds them.
_NUMBERS = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
    pl.Float32,
    pl.Float64,
)


def _as_numpy(s: "pl.Series") -> Optional[np.ndarray]:
    """The Series' values in place, when it holds numbers in one chunk, no null."""
    if s.dtype not in _NUMBERS or s.null_count() or s.n_chunks() != 1:
        return None
    return s.to_numpy(allow_copy=False)


def _expression_bounds(col: "pl.Series", lo: Any, hi: Any) -> Optional[Tuple[Any, Any]]:
    """The bounds of a frame query's range as the host compares them (its host is
    ``df.filter(pl.col(c).is_between(...) & ...)``: an expression's casts), or
    None where Polars answers itself."""
    try:
        lo, hi = expression_bounds(col, lo, hi)
    except OverflowError:
        return None
    return None if delegate(lo, hi, col, True) else (lo, hi)


def _filter_frame(
    df: "pl.DataFrame", ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
) -> "pl.DataFrame":
    """``df.sf.filter``'s rows: in one pass over the columns where
    ``_core._filter_rows`` takes the query (one mapping, not inverted, every
    column numbers in one chunk without nulls, no column Polars knows sorted,
    every range read by a kernel), else the positions (`_rows`), then ``df[idx]``.
    The one pass keeps the columns' sorted flags, as ``df.filter`` does."""
    if not isinstance(ranges, (list, tuple)):
        inclusive = _frame_closed(closed)  # the errors _rows raises, in its order
        if not _face.frame_invert(invert):
            got = _one_pass(df, ranges, keywords, inclusive)
            if got is not None:
                return got
    # Row selection by an integer array: every Polars has it; DataFrame.gather
    # does not (Polars 1.40 and older lack it, Series.gather is far older).
    return df[_rows(df, ranges, keywords, closed, invert)]


def _one_pass(
    df: "pl.DataFrame", ranges: Any, keywords: Dict[str, Any], inclusive: str
) -> Optional["pl.DataFrame"]:
    """`_filter_frame`'s one pass, or None where the query is not one it takes, or
    where the positions' way would read the columns on several threads."""
    series = df.get_columns()
    columns = [_as_numpy(s) for s in series]
    if not 0 < len(columns) <= 256 or any(c is None for c in columns):
        return None
    (plan,) = _face.frame_plans(ranges, keywords, _has(df), df.get_column)
    queries = []
    for _, col, lo, hi in plan:
        values = _as_numpy(col)
        if values is None or _sorted(col):  # a sorted column is a binary search
            return None
        bounds = _expression_bounds(col, lo, hi)
        if bounds is None:
            return None
        queries.append((values, *bounds))
    n = df.height
    if _core._auto_threads(sum(q[0].nbytes for q in queries)) > 1:
        return None  # the positions' way reads the columns on several threads; this on one
    try:
        got = _core._filter_rows(
            queries,
            inclusive,
            columns,
            n,
            np.dtype(_face.index_dtype(n, np.uint64)),
            _face.ONE_PASS_MOST,
        )
    except Exception:  # a column or bound the kernels leave, or any error: the other way
        return None
    if got is None:  # many rows kept: the positions' way
        return None
    taken = got[1]
    out = pl.DataFrame([pl.Series(s.name, v) for s, v in zip(series, taken)])
    flagged = [
        pl.col(s.name).set_sorted(descending=s.flags["SORTED_DESC"])
        for s in series
        if s.flags.get("SORTED_ASC") or s.flags.get("SORTED_DESC")
    ]
    return out.with_columns(flagged) if flagged else out


def _rows(
    df: "pl.DataFrame",
    ranges: Any,
    keywords: Dict[str, Any],
    closed: Any,
    invert: Any = False,
) -> np.ndarray:
    """Positions of the rows a frame query keeps (simdfilter._face.frame_query):
    in every range of a mapping, or of any mapping of a list; with `invert`, the
    others (null never). Columns no kernel reads are compared by Polars at the
    rows the others left."""
    inclusive = _frame_closed(closed)
    invert = _face.frame_invert(invert)
    plans = _face.frame_plans(ranges, keywords, _has(df), df.get_column)

    def mask(
        col: "pl.Series", lo: Any, hi: Any, at: Optional[np.ndarray], invert: bool = False
    ) -> np.ndarray:
        if at is not None:
            col = col.gather(at)
        m = _polars_mask(col, lo, hi, inclusive, True)
        return (~m if invert else m).fill_null(False).to_numpy()

    def positions(col: "pl.Series", lo: Any, hi: Any, within: Any, invert: bool = False) -> Any:
        bounds = _expression_bounds(col, lo, hi)
        if bounds is None:
            return None
        return _positions(col, *bounds, inclusive, within=within, invert=invert)

    return _face.frame_query(
        plans,
        len(df),
        inclusive,
        invert=invert,
        wide=np.uint64,
        positions=positions,
        mask=mask,
        searched=_sorted,
    )


_Idx = TypeVar("_Idx")
_Rows = TypeVar("_Rows")
_Count = TypeVar("_Count")


class _FrameVerbs(Generic[_Idx, _Rows, _Count]):
    """``indexes``, ``filter`` and ``count`` of a frame query, their signature
    written once for DataFrameNamespace and LazyFrameNamespace. Each class
    answers a query in ``_indexes``, ``_filter`` and ``_count`` (the verb's
    arguments as given), whose docstrings and result types are its verbs' own
    (``_accessor.own_verbs``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The verbs of a subclass, worded as its answers (``_accessor.own_verbs``)."""
        super().__init_subclass__(**kwargs)
        _accessor.own_verbs(cls, _FrameVerbs, ("indexes", "filter", "count"))

    def indexes(
        self,
        ranges: _Ranges = None,
        /,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> _Idx:
        return self._indexes(ranges, keywords, closed, invert)

    def filter(
        self,
        ranges: _Ranges = None,
        /,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> _Rows:
        return self._filter(ranges, keywords, closed, invert)

    def count(
        self,
        ranges: _Ranges = None,
        /,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> _Count:
        return self._count(ranges, keywords, closed, invert)

    def _indexes(self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any) -> _Idx:
        raise NotImplementedError

    def _filter(self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any) -> _Rows:
        raise NotImplementedError

    def _count(self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any) -> _Count:
        raise NotImplementedError


class DataFrameNamespace(_FrameVerbs["pl.Series", "pl.DataFrame", int]):
    """``df.sf``: multi-column range queries, no boolean mask per column.

    ``df.sf.filter({"a": (lo, hi), "b": (lo, hi)})`` (or ``a=(lo, hi), b=(lo, hi)``)
    equals ``df.filter(pl.col("a").is_between(lo, hi) & pl.col("b").is_between(lo, hi))``.
    The mapping takes any column name (with spaces, or ``closed``); columns no
    kernel reads come last, compared by Polars only at the rows the others left.
    A list of mappings is their OR: ``df.sf.filter([{"a": ra}, {"b": rb}])``
    equals ``df.filter(pl.col("a").is_between(*ra) | pl.col("b").is_between(*rb))``;
    ``invert=True`` keeps the other rows, as ``df.filter(~(...))``: where the
    mask is False (NaN is outside every range), not where it is null.
    """

    def __init__(self, frame: "pl.DataFrame") -> None:
        self._df = frame

    def _indexes(
        self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
    ) -> "pl.Series":
        """Positions of the rows where every named column is in its range (UInt32/UInt64).

        Parameters
        ----------
        ranges : mapping or sequence of mappings, optional
            ``{name: (lo, hi)}``; a None end is unbounded. A list (or tuple) of
            such mappings is their OR: the rows in every range of any of them.
        closed : {'both', 'left', 'right', 'none'}, default 'both'
            Applies to every range.
        invert : bool or None, default False (None: False)
            True: the rows the query does not keep, as ``df.filter(~mask)``
            keeps them: where the mask is False (a value outside its range,
            NaN included), not where it is null.
        **keywords : (lo, hi)
            More ranges, ``name=(lo, hi)`` (not beside a list of mappings).

        Raises
        ------
        ColumnNotFoundError
            An unknown column: Polars' ``ColumnNotFoundError``, and a KeyError;
            the message names it.
        TypeError
            No range, an empty list or mapping, a range that is not a pair, a
            name given twice, keywords beside a list, ``invert`` not a bool (a
            column named invert goes in the mapping); or Polars' own exception
            for a range it refuses (its type).
        ValueError
            Bad `closed` (Polars' own error; a TypeError for ``closed=(lo, hi)``,
            a range meant for a column named closed, which goes in `ranges`).
        """
        idx = _rows(self._df, ranges, keywords, closed, invert)
        return pl.Series("index", idx)

    def _filter(
        self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
    ) -> "pl.DataFrame":
        """The rows where every named column is in its range, in order.

        A drop-in for ``df.filter(e1 & e2)``; a list of mappings for
        ``df.filter((...) | (...))``, `invert` for ``df.filter(~(...))``. A
        column no kernel reads is compared by Polars, at the rows left.
        Parameters, and what is raised, as :meth:`indexes`.
        """
        return _filter_frame(self._df, ranges, keywords, closed, invert)

    def _count(self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any) -> int:
        """How many rows :meth:`filter` keeps. Parameters as :meth:`indexes`."""
        return len(_rows(self._df, ranges, keywords, closed, invert))


def _lazy_mask(ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any) -> "pl.Expr":
    """A frame query as one Polars expression: each range ``pl.col(name).sf.between``
    (a str bound a value, as in the DataFrame verbs), ANDed within a mapping,
    ORed across a list, ``~`` for `invert` (Kleene logic, Polars' own)."""
    inclusive = _frame_closed(closed)
    invert = _face.frame_invert(invert)

    def has(name: Hashable) -> bool:
        # A missing column is Polars' ColumnNotFoundError, when the plan resolves.
        if not isinstance(name, str):
            raise ColumnNotFoundError(
                f"unable to find column {name!r}: Polars names columns by str"
            )
        return True

    plans = _face.frame_plans(ranges, keywords, has, pl.col)
    closed = _face.TO_POLARS[inclusive]
    terms = []
    for plan in plans:
        ands = [
            ExprNamespace(col).between(
                *(pl.lit(b) if isinstance(b, str) else b for b in (lo, hi)), closed
            )
            for _, col, lo, hi in plan
        ]
        terms.append(functools.reduce(operator.and_, ands))
    mask = functools.reduce(operator.or_, terms)
    return ~mask if invert else mask


class LazyFrameNamespace(_FrameVerbs["pl.LazyFrame", "pl.LazyFrame", "pl.LazyFrame"]):
    """``lf.sf``: the frame verbs of ``df.sf`` on a LazyFrame, lazy.

    Each verb returns a LazyFrame and reads nothing: the query is one
    expression, each range ``pl.col(name).sf.between(lo, hi, closed)`` (the
    kernels inside Polars' plan, batch by batch, streaming included), ANDed
    within a mapping, ORed across a list of mappings, ``~`` for ``invert``:
    ``lf.sf.filter({"a": ra, "b": rb})`` is
    ``lf.filter(pl.col("a").is_between(*ra) & pl.col("b").is_between(*rb))``.
    A missing column, or a range Polars refuses, raises Polars' own error when
    the plan is collected, as the ``is_between`` query would. :meth:`mask` gives
    the expression itself.
    """

    def __init__(self, frame: "pl.LazyFrame") -> None:
        self._lf = frame

    def mask(
        self,
        ranges: _Ranges = None,
        /,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
        **keywords: Tuple[Any, Any],
    ) -> "pl.Expr":
        """The query as a Boolean expression (null where Polars' mask is null),
        for ``filter``, ``with_columns`` or another frame of the same columns.
        Parameters as :meth:`DataFrameNamespace.indexes`."""
        return _lazy_mask(ranges, keywords, closed, invert)

    def _filter(
        self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
    ) -> "pl.LazyFrame":
        """``lf.filter(mask)``: the rows in every range of a mapping (or of any
        mapping of a list), or with `invert` the rows where the mask is False.
        Parameters as :meth:`DataFrameNamespace.indexes`.

        Examples
        --------
        >>> import polars as pl, simdfilter.polars
        >>> lf = pl.LazyFrame({"a": [1, 5, None, 9], "b": [0.5, 2.0, 3.0, float("nan")]})
        >>> lf.sf.filter(a=(4, 10), b=(0, 5)).collect().rows()
        [(5, 2.0)]
        >>> lf.sf.filter([{"a": (0, 2)}, {"b": (2.5, 5)}]).collect().rows()
        [(1, 0.5), (None, 3.0)]
        >>> lf.sf.filter(b=(0, 2.5), invert=True).collect().rows()   # NaN is outside
        [(None, 3.0), (9, nan)]
        """
        return self._lf.filter(_lazy_mask(ranges, keywords, closed, invert))

    def _count(
        self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
    ) -> "pl.LazyFrame":
        """How many rows :meth:`filter` keeps, lazily: a LazyFrame of one row and
        one column ``count`` (Polars' index type, UInt32), ``lf.select(mask.sum())``;
        ``.collect().item()`` gives the int. Parameters as :meth:`filter`."""
        return self._lf.select(_lazy_mask(ranges, keywords, closed, invert).sum().alias("count"))

    def _indexes(
        self, ranges: Any, keywords: Dict[str, Any], closed: Any, invert: Any
    ) -> "pl.LazyFrame":
        """Positions of the rows :meth:`filter` keeps, lazily: a LazyFrame of one
        column ``index`` (UInt32), ``lf.select(mask.arg_true())``.
        Parameters as :meth:`filter`."""
        mask = _lazy_mask(ranges, keywords, closed, invert)
        return self._lf.select(mask.arg_true().alias("index"))


@overload
def sf(obj: pl.DataFrame) -> DataFrameNamespace: ...
@overload
def sf(obj: pl.LazyFrame) -> LazyFrameNamespace: ...
@overload
def sf(obj: pl.Series) -> SeriesNamespace: ...
@overload
def sf(obj: pl.Expr) -> ExprNamespace: ...
def sf(
    obj: Union[pl.Series, pl.DataFrame, pl.LazyFrame, pl.Expr],
) -> Union[SeriesNamespace, DataFrameNamespace, LazyFrameNamespace, ExprNamespace]:
    """``obj.sf``, typed: the namespace of a Series, a DataFrame, a LazyFrame or
    an expression.

    Polars' registered namespaces are invisible to type checkers (``"Expr" has
    no attribute "sf"``); this function gives the same namespace with its type,
    for code checked by mypy or pyright:

    >>> import polars as pl
    >>> from simdfilter.polars import sf
    >>> df = pl.DataFrame({"year": [1992, 2018, 1934, 2002]})
    >>> df.filter(sf(pl.col("year")).between(1982, 2010))["year"].to_list()
    [1992, 2002]
    >>> sf(df).count(year=(1982, 2000))
    1

    Raises
    ------
    TypeError
        `obj` is not a Series, a DataFrame, a LazyFrame or an expression.
    """
    if isinstance(obj, pl.DataFrame):
        return DataFrameNamespace(obj)
    if isinstance(obj, pl.LazyFrame):
        return LazyFrameNamespace(obj)
    if isinstance(obj, pl.Series):
        return SeriesNamespace(obj)
    if isinstance(obj, pl.Expr):
        return ExprNamespace(obj)
    raise TypeError(
        f"sf() takes a Polars Series, DataFrame, LazyFrame or expression, not {type(obj).__name__}"
    )


pl.api.register_series_namespace("sf")(SeriesNamespace)
pl.api.register_dataframe_namespace("sf")(DataFrameNamespace)
pl.api.register_lazyframe_namespace("sf")(LazyFrameNamespace)
pl.api.register_expr_namespace("sf")(ExprNamespace)
