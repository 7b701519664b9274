"""Polars' adapter of the column verbs (:mod:`simdfilter._accessor`): how the
Polars face names its closed ends, reads a Series, asks Polars for its own
answer, and builds each result, on a Series (``_POLARS``) and on a batch of an
expression (``_EXPRESSION``, the bounds as the expression compares them).

Private to :mod:`simdfilter.polars` and :mod:`simdfilter._polars_expr`, which
import it once Polars is known to be recent enough.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np
import polars as pl

from simdfilter import _accessor, _face, _masks
from simdfilter._polars_bounds import delegate, expression_bounds, kernel_is_in


def _probe(closed: Any) -> Any:
    return pl.select(pl.lit(pl.Series([0, 1, 2])).is_between(0, 2, closed=closed)).to_series()


def _check(closed: Any) -> str:
    """The kernels' name for Polars' `closed`; for any other value the ValueError
    Polars' ``is_between`` expression raises (its Series method fails with an
    UnboundLocalError there, Polars 2.1)."""
    return _face.checked_inclusive(closed, _face.POLARS_NAMES, _probe)


def _polars_mask(s: "pl.Series", lo: Any, hi: Any, inclusive: str, expr: bool) -> "pl.Series":
    """Polars' own answer: ``is_between`` (the expression's with `expr`, the
    Series method's otherwise: their errors and a few answers differ), or the
    comparison an unbounded end leaves (NaN excluded there, as the kernels
    exclude it: Polars orders NaN above +inf)."""
    closed = _face.TO_POLARS[inclusive]
    # In an expression every comparison is the expression's (Polars' casts are its
    # own), and a str is a value (a frame's range), not the column it would name.
    x = pl.col("x") if expr else s
    if expr:
        lo, hi = (pl.lit(b) if isinstance(b, str) else b for b in (lo, hi))
    m = _face.host_mask(
        x,
        lo,
        hi,
        inclusive,
        between=lambda c, a, b: c.is_between(a, b, closed=closed),
        everything=lambda: x == x,
    )
    if (lo is None or hi is None) and s.dtype.is_float():
        m = m & ~x.is_nan()
    return pl.DataFrame([s.alias("x")]).select(m).to_series().alias(s.name) if expr else m


def _sorted(s: "pl.Series") -> bool:
    """Whether Polars knows the Series is sorted ascending (its own flag, set by
    ``sort()`` or ``set_sorted()``): then the kernels binary-search it
    (``assume_sorted=True``). Polars sorts NaN last, as NumPy does; nulls,
    first or last, make the chunk that holds them a scan."""
    return bool(s.flags.get("SORTED_ASC", False))


def _positions(
    s: "pl.Series",
    lo: Any,
    hi: Any,
    inclusive: str,
    within: Any = None,  # positions, or _conjunction.BITS
    invert: Optional[bool] = False,
) -> np.ndarray:
    """filter_indexes on the Series (uint32, uint64 from 2**32 rows on, Polars'
    index type), binary-searched where Polars knows it sorted."""
    return _face.positions(
        s,
        lo,
        hi,
        inclusive,
        wide=np.uint64,
        within=within,
        invert=invert,
        assume_sorted=within is None and _sorted(s),
    )


class _Polars(_accessor.Host):
    """Polars' adapter of the column verbs (simdfilter._accessor), on a Series:
    its ``closed`` names, the bounds its eager ``is_between`` compares its own
    way (``delegate``), its Series for every result."""

    names = _face.POLARS_NAMES
    wide = np.uint64

    def probe(self, closed: Any) -> Any:
        return _probe(closed)

    def is_sorted(self, s: Any) -> bool:
        return _sorted(s)

    def bounds(self, s: Any, lo: Any, hi: Any) -> Tuple[Any, Any]:
        if delegate(lo, hi, s):
            raise _accessor.AskHost("Polars compares these bounds its own way")
        return lo, hi

    def mask(self, s: Any, lo: Any, hi: Any, inclusive: str) -> Any:
        return _polars_mask(s, lo, hi, inclusive, False)

    def kernel_between(self, s: Any, lo: Any, hi: Any, inclusive: str, invert: bool) -> Any:
        m = _masks.polars_between(s, lo, hi, inclusive)  # null at the nulls
        return ~m if invert else m

    def positions(self, s: Any, idx: np.ndarray) -> Any:
        return pl.Series(s.name, idx)

    def mask_positions(self, s: Any, m: Any) -> Any:
        idx = m.fill_null(False).arg_true()
        return idx.cast(pl.UInt32 if len(s) < 2**32 else pl.UInt64).alias(s.name)

    def take(self, s: Any, idx: np.ndarray) -> Any:
        return s.gather(idx)

    def take_mask(self, s: Any, m: Any) -> Any:
        return s.filter(m)

    def count_mask(self, m: Any) -> int:
        return int(m.sum() or 0)

    def kernel_isin(self, s: Any, values: Any, invert: bool, **options: Any) -> Any:
        if options["nulls_equal"] or not kernel_is_in(s, values):
            raise _accessor.AskHost("Polars compares these items")
        m = _masks.polars_is_in(s, values)
        return ~m if invert else m

    def isin(self, s: Any, values: Any, **options: Any) -> Any:
        return s.is_in(values, nulls_equal=options["nulls_equal"])


class _PolarsExpression(_Polars):
    """The adapter on a batch of an expression (``pl.col(c).sf``, the frames'
    ``map_batches``): the bounds as Polars' expression compares them
    (``expression_bounds``; an int past Int64 is its own), its expression's
    ``is_between`` for the rest."""

    def bounds(self, s: Any, lo: Any, hi: Any) -> Tuple[Any, Any]:
        try:
            lo, hi = expression_bounds(s, lo, hi)
        except OverflowError:  # an int past every double: Polars' business
            raise _accessor.AskHost("an int past Int64: Polars' own comparison") from None
        if delegate(lo, hi, s, True):
            raise _accessor.AskHost("Polars compares these bounds its own way")
        return lo, hi

    def mask(self, s: Any, lo: Any, hi: Any, inclusive: str) -> Any:
        try:
            lo, hi = expression_bounds(s, lo, hi)
        except OverflowError:
            pass
        return _polars_mask(s, lo, hi, inclusive, True)


_POLARS, _EXPRESSION = _Polars(), _PolarsExpression()


# A batch of an expression (map_batches, or the plugin's Python path): the column
# verbs with the expression's adapter; `inclusive` in the kernels' names.


def _batch_between(s: "pl.Series", lo: Any, hi: Any, inclusive: str) -> "pl.Series":
    closed = _face.TO_POLARS[inclusive]
    return _accessor.between(_EXPRESSION, s, lo, hi, closed, False)


def _batch_is_in(s: "pl.Series", other: Any, nulls_equal: bool) -> "pl.Series":
    return _accessor.isin(_POLARS, s, other, False, nulls_equal=nulls_equal)


def _batch_count(s: "pl.Series", lo: Any, hi: Any, inclusive: str) -> "pl.Series":
    n = _accessor.count(_EXPRESSION, s, lo, hi, _face.TO_POLARS[inclusive], False)
    return pl.Series(s.name, [n], dtype=pl.get_index_type())
