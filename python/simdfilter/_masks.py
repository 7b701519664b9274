"""``between`` as the kernels write it: one pass, a result per element.

The pandas and Polars faces call these for ``s.sf.between``; they raise
TypeError or ValueError where the kernels cannot answer (a column no kernel
reads, bounds of the wrong kind), and the face then asks its host.

- NumPy-backed pandas columns: ``in_range``'s bool array (the kernels' byte
  mask, SF_OP_MASK8), as pandas' ``between`` gives it.
- Nullable pandas columns (``Int64``, ``Float64``, ``boolean``, ...): the same
  values in a ``boolean`` array whose NA are the column's (a copy of its mask).
- Arrow-backed pandas columns and Polars Series: an Arrow boolean array built
  by the kernels (SF_OP_BITS: the values bitmap, a null's bit 0) with the
  column's validity bitmap, imported through the Arrow PyCapsule interface
  without a copy: ``bool[pyarrow]`` with nulls, or a Polars Boolean Series
  null where the column is.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _core

__all__ = [
    "ArrowBools",
    "arrow_in_range",
    "items_array",
    "pandas_between",
    "pandas_isin",
    "polars_between",
    "polars_is_in",
]


class ArrowBools:
    """An Arrow boolean array the kernels wrote, for any Arrow PyCapsule consumer
    (``pyarrow.array``, ``polars.Series``): its capsules can be taken once."""

    __slots__ = ("_capsules",)

    def __init__(self, capsules: Tuple[Any, Any]) -> None:
        self._capsules = capsules

    def __arrow_c_array__(self, requested_schema: Optional[Any] = None) -> Tuple[Any, Any]:
        if self._capsules is None:
            raise ValueError("this Arrow array was already imported")
        capsules, self._capsules = self._capsules, None
        return capsules


def arrow_in_range(
    values: Any, lo: Any, hi: Any, inclusive: str = "both", threads: Optional[int] = None
) -> ArrowBools:
    """``in_range`` as an Arrow boolean array (nulls where `values` has them)."""
    return ArrowBools(_core._in_range_arrow(values, lo, hi, inclusive=inclusive, threads=threads))


def pandas_between(s: Any, lo: Any, hi: Any, inclusive: str, invert: bool = False) -> Any:
    """The array ``s.between(lo, hi, inclusive)`` holds, in the dtype pandas gives:
    bool, ``boolean`` (NA at the NA of a nullable column), or ``bool[pyarrow]``
    with nulls (Arrow-backed columns; pandas before 2.0 gives ``boolean``).
    `invert`: ``~s.between(...)``'s, in the same pass (NaN and NaT True, NA kept)."""
    import pandas as pd

    array = s.array
    if isinstance(s.dtype, pd.ArrowDtype) and int(pd.__version__.split(".")[0]) >= 2:
        import pyarrow as pa

        bools = ArrowBools(_core._in_range_arrow(s, lo, hi, inclusive=inclusive, invert=invert))
        return pd.arrays.ArrowExtensionArray(pa.array(bools))
    values = _core.in_range(s, lo, hi, inclusive=inclusive, invert=invert)
    masked = (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)
    if isinstance(array, masked) or isinstance(s.dtype, pd.ArrowDtype):
        mask = getattr(array, "_mask", None)
        nulls = mask.copy() if isinstance(mask, np.ndarray) else s.isna().to_numpy()
        return pd.arrays.BooleanArray(values, nulls, copy=False)
    return values


def polars_between(s: Any, lo: Any, hi: Any, inclusive: str) -> Any:
    """``s.is_between(lo, hi, closed)`` as a Boolean Series named as `s`, null where
    `s` is, from the kernels' bitmaps without a copy."""
    import polars as pl

    return pl.Series(arrow_in_range(s, lo, hi, inclusive)).alias(s.name)


def items_array(items: Any) -> np.ndarray:
    """The items of an ``isin`` as ``simdfilter.isin`` reads them: ``np.asarray(items)``,
    but a set (or any iterable that is neither a sequence nor array-like) by its
    elements, where ``np.asarray`` would make one object of it. For the faces'
    checks of what their host compares its own way."""
    if isinstance(items, (set, frozenset)) or (
        not hasattr(items, "__len__")
        and hasattr(items, "__iter__")
        and not hasattr(items, "__array__")
    ):
        items = list(items)
    return np.asarray(items)


def pandas_isin(s: Any, items: Any, invert: bool = False) -> Any:
    """The array ``s.isin(items)`` holds, in the dtype pandas gives: bool, or
    ``boolean`` without NA for a nullable column (pandas puts False at its NA: no
    item is NA here). `invert`: ``~s.isin(items)``'s, True at NA and NaN."""
    import pandas as pd

    values = _core.isin(s, items, invert=invert)
    array = s.array
    if isinstance(array, (pd.arrays.IntegerArray, pd.arrays.FloatingArray, pd.arrays.BooleanArray)):
        if invert:
            values |= np.asarray(s.isna().to_numpy(), dtype=bool)
        return pd.arrays.BooleanArray(values, np.zeros(len(values), dtype=bool), copy=False)
    return values


def polars_is_in(s: Any, items: Any) -> Any:
    """``s.is_in(items)`` as a Boolean Series named as `s`, null where `s` is, from
    the kernels' bitmaps without a copy."""
    import polars as pl

    return pl.Series(ArrowBools(_core._in_range_arrow(s, isin=items))).alias(s.name)
