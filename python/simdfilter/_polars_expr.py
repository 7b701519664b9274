"""``pl.col(...).sf``: the kernels inside Polars expressions (the Polars face's
:class:`ExprNamespace`, which :mod:`simdfilter.polars` registers and exports).

Each verb is an expression: Polars' own ``is_between`` where a bound is an
expression, else the plugin (:mod:`simdfilter._polars_plugin`) or an
elementwise ``map_batches`` whose batches the column verbs answer with the
expression's adapter (``_polars_host._EXPRESSION``).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Optional, TypeVar, cast

import polars as pl

from simdfilter import _face, _polars_plugin
from simdfilter._polars_host import _batch_between, _batch_count, _batch_is_in, _check

__all__ = ["ExprNamespace"]


def _is_expression(bound: Any) -> bool:
    # What Polars' is_between reads as an expression: an Expr, a Series, or a str
    # (a column name, in an expression).
    return isinstance(bound, (pl.Expr, pl.Series, str))


_Verb = TypeVar("_Verb", bound=Callable[..., "pl.Expr"])


def _inverted_by_not(verb: _Verb) -> _Verb:
    """`invert` of an expression verb: the verb's expression, or ``~`` of it (NaN
    True, as it is not in range; null stays null), as ``~is_between(...)``.

    The wrapper takes `invert` (checked at once) and calls the verb without it,
    so the verb's body computes the range itself, whatever it is built of."""

    @functools.wraps(verb)
    def call(self: Any, *args: Any, invert: Optional[bool] = False, **kwargs: Any) -> "pl.Expr":
        invert = _face.checked_invert(invert)
        e = verb(self, *args, **kwargs)
        return ~e if invert else e

    return cast(_Verb, call)


def _inverted_by_counting_not(verb: _Verb) -> _Verb:
    """`invert` of ``count``: ``(~between(...)).sum()``, Polars' own count of the
    values out of range (nulls not counted); not inverted, the verb itself."""

    @functools.wraps(verb)
    def call(self: Any, *args: Any, invert: Optional[bool] = False, **kwargs: Any) -> "pl.Expr":
        if _face.checked_invert(invert):
            return cast("pl.Expr", self.between(*args, **kwargs, invert=True).sum())
        return verb(self, *args, **kwargs)

    return cast(_Verb, call)


class ExprNamespace:
    """``pl.col(...).sf``: the kernels inside Polars expressions.

    ``pl.col("x").sf.between(lo, hi, closed="both")`` is a drop-in for
    ``pl.col("x").is_between(lo, hi, closed="both")`` in ``select``,
    ``with_columns``, ``filter`` and lazy frames, the streaming engine included:
    the same Boolean answer, null at the nulls, on every dtype (the kernels read
    the accelerated ones, Polars' own expression answers the rest and raises
    what it raises). A None bound is unbounded. Bounds that are expressions (an
    Expr, or a str, which names a column there) are Polars' own ``is_between``.

    With Python-number bounds on Polars 2 it is an expression plugin
    (``simdfilter._polars_plugin``): Polars calls the kernels on each batch
    with no Python, and ``explain()`` names ``sf_between``. Otherwise it runs
    as an elementwise ``map_batches``, each call costing Polars tens of
    microseconds (the Polars guide says when, and has the figures). Either way
    Polars hands it each batch of the column (in ``group_by().agg`` and
    ``over`` each group's values), so the answer is the same wherever the
    expression stands.
    """

    def __init__(self, expr: "pl.Expr") -> None:
        self._e = expr

    @_inverted_by_not
    def between(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,  # applied by the decorator
    ) -> "pl.Expr":
        """Whether each value is in range: ``is_between(lower_bound, upper_bound, closed)``.

        Parameters
        ----------
        lower_bound, upper_bound : scalar, None, or expression
            Bounds; None is unbounded. An expression (or a str: a column name)
            is compared by Polars itself.
        closed : {'both', 'left', 'right', 'none'}, default 'both'
        invert : bool or None, default False (None: False)
            True: ``~is_between(...)``, True outside the range and at NaN (not
            in it), null where the value is null.

        Returns
        -------
        polars.Expr
            Boolean, null where the value is null.

        Raises
        ------
        ValueError
            Bad `closed` (Polars' own message), at once.
        TypeError
            `invert` not a bool, at once.
        """
        inclusive = _check(closed)
        lo, hi = lower_bound, upper_bound
        if _is_expression(lo) or _is_expression(hi):
            e = self._e
            return _face.host_mask(
                e,
                lo,
                hi,
                inclusive,
                between=lambda c, a, b: c.is_between(a, b, closed=closed),
                everything=lambda: e == e,
            )
        plugin = _polars_plugin.between(self._e, lo, hi, inclusive)
        if plugin is not None:
            return plugin
        return self._e.map_batches(
            functools.partial(_batch_between, lo=lo, hi=hi, inclusive=inclusive),
            return_dtype=pl.Boolean,
            is_elementwise=True,
        )

    @_inverted_by_counting_not
    def count(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,  # applied by the decorator
    ) -> "pl.Expr":
        """How many values are in range: ``is_between(...).sum()``, one value
        (per group in ``group_by().agg``), of Polars' index type (UInt32).
        `invert` True: how many are outside it, ``(~is_between(...)).sum()``."""
        inclusive = _check(closed)
        lo, hi = lower_bound, upper_bound
        if _is_expression(lo) or _is_expression(hi):
            return self.between(lo, hi, closed).sum()
        plugin = _polars_plugin.count(self._e, lo, hi, inclusive)
        if plugin is not None:
            return plugin
        return self._e.map_batches(
            functools.partial(_batch_count, lo=lo, hi=hi, inclusive=inclusive),
            return_dtype=pl.get_index_type(),
            returns_scalar=True,
        )

    @_inverted_by_not
    def is_in(
        self,
        other: Any,
        *,
        nulls_equal: bool = False,
        invert: Optional[bool] = False,  # applied by the decorator
    ) -> "pl.Expr":
        """Whether each value equals one of `other`: ``is_in(other, nulls_equal=...)``.

        Boolean, null where the value is null (``nulls_equal=False``). Number
        items on number columns are looked up by the kernels, batch by batch (an
        elementwise ``map_batches``); an expression, or items Polars compares
        its own way, is Polars' own ``is_in``. `invert` True: ``~is_in(...)``."""
        if isinstance(other, (pl.Expr, str)):
            return self._e.is_in(other, nulls_equal=nulls_equal)
        return self._e.map_batches(
            functools.partial(_batch_is_in, other=other, nulls_equal=nulls_equal),
            return_dtype=pl.Boolean,
            is_elementwise=True,
        )

    def filter(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> "pl.Expr":
        """The values in range: ``e.filter(e.is_between(lower_bound, upper_bound,
        closed))``; `invert` True: those outside it (NaN kept, nulls dropped).
        Parameters as :meth:`between`."""
        return self._e.filter(self.between(lower_bound, upper_bound, closed, invert=invert))

    def indexes(
        self,
        lower_bound: Any,
        upper_bound: Any,
        closed: str = "both",
        *,
        invert: Optional[bool] = False,
    ) -> "pl.Expr":
        """Positions of the values in range: ``e.is_between(...).arg_true()``,
        of Polars' index type (UInt32); `invert` True: of those outside it (NaN
        kept, nulls never). Parameters as :meth:`between`."""
        return self.between(lower_bound, upper_bound, closed, invert=invert).arg_true()
