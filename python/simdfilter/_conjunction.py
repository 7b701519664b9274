"""The multi-column range query of both DataFrame faces (``df.sf`` in pandas and in
Polars): the ranges parsed once, the most selective first, the first evaluated by the
kernel over the whole column and each further one only at the rows still standing
(``within=``). Each face passes what differs: how it reads a column, and its own
library's mask for the columns no kernel reads.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import simdfilter as _sf

# Ordering by selectivity pays from this many rows; below it one sample costs
# about what it saves. The sample: evenly spaced rows, about this many.
ORDER_MIN_ROWS = 1 << 16
SAMPLE = 1024

Plan = List[Tuple[str, Any, Any, Any]]


def parse_ranges(ranges: Dict[str, Any], columns: Any, column: Callable[[str], Any]) -> Plan:
    """[(name, column, lo, hi)] of ``name=(lo, hi)`` keywords, refusing what is not one."""
    if not ranges:
        raise TypeError("give at least one range, as column=(lo, hi)")
    plan = []
    for name, rng in ranges.items():
        if name not in columns:
            raise KeyError(name)
        col = column(name)
        try:
            lo, hi = rng
        except (TypeError, ValueError):
            raise TypeError(f"the range of {name!r} must be a pair (lo, hi), not {rng!r}") from None
        plan.append((name, col, lo, hi))
    return plan


def _estimate(col: Any, lo: Any, hi: Any, inclusive: str, n: int) -> Optional[int]:
    """Hits among an evenly spaced sample of rows (none below ORDER_MIN_ROWS rows,
    where only whether a kernel reads the column is asked), or None if none does."""
    if n < ORDER_MIN_ROWS:
        sample = np.empty(0, dtype=np.intp)
    else:
        sample = np.arange(0, n, max(1, n // SAMPLE), dtype=np.intp)
    try:
        return _sf.count_in_range(col, lo, hi, inclusive=inclusive, within=sample)
    except (TypeError, ValueError):
        return None


def most_selective_first(plan: Plan, n: int, inclusive: str) -> Plan:
    """The plan reordered so that later passes read fewer rows; columns no kernel
    reads go last, at any size (the host then compares only the rows left). The
    order changes the cost, never the rows."""
    if len(plan) < 2:
        return plan
    est = [_estimate(col, lo, hi, inclusive, n) for _, col, lo, hi in plan]
    order = sorted(range(len(plan)), key=lambda i: (est[i] is None, est[i] or 0, i))
    return [plan[i] for i in order]


def conjunction(
    plan: Plan,
    n: int,
    inclusive: str,
    *,
    index_dtype: Any,
    positions: Callable[[Any, Any, Any, Optional[np.ndarray]], Optional[np.ndarray]],
    mask: Callable[[Any, Any, Any, Optional[np.ndarray]], np.ndarray],
    fallback: Tuple[type, ...] = (),
) -> np.ndarray:
    """Positions of the rows in every range of `plan` (n rows in all).

    ``positions(col, lo, hi, within)`` is the kernel's answer, or None when the
    face's own library must answer for these bounds; ``mask(col, lo, hi, at)`` is
    that library's answer, a bool array with nulls False, over the whole column
    (`at` None) or only at the positions `at` (the rows still standing). A kernel error of a type in
    `fallback` falls back to `mask`; any other propagates, a TypeError naming the
    column."""
    idx: Optional[np.ndarray] = None
    for name, col, lo, hi in plan:
        if idx is not None and len(idx) == 0:
            break
        try:
            got = positions(col, lo, hi, idx)
        except fallback:
            got = None
        except TypeError as exc:
            raise TypeError(f"column {name!r}: {exc}") from exc
        if got is not None:
            idx = got
            continue
        if idx is None:
            idx = np.flatnonzero(mask(col, lo, hi, None)).astype(index_dtype)
        else:
            idx = idx[mask(col, lo, hi, idx)]
    assert idx is not None
    return idx
