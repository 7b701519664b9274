"""The multi-column range query of both DataFrame faces (``df.sf`` in pandas and in
Polars): the ranges parsed once, the most selective first, then each column read in
one of two ways, by how many rows still stand:

- many (at least BITS_FROM of them, by the sample): the kernel reads the whole
  column into in-range bits (``_core._in_range_bits``, one streamed pass at the
  speed of ``count_in_range``), ANDed with the bits so far; the positions are
  taken from the bits once, when the rows become few or the columns run out;
- few: the kernel reads the column only at the rows still standing (``within=``).

Each face passes what differs: how it reads a column, and its own library's mask
for the columns no kernel reads (compared last, at the rows left).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from . import _core

# Ordering by selectivity pays from this many rows; below it one sample costs
# about what it saves. The sample: evenly spaced rows, about this many.
ORDER_MIN_ROWS = 1 << 16
SAMPLE = 1024

# The fraction of rows standing (by the sample) from which the next column is
# read whole into bits rather than at each row left (within=). A row left is a
# load of its own where the rows are spread (a cache line each, the prefetcher
# of no help), a whole pass streams. On AMD EPYC Zen 4 (family 25 model 17,
# avx2 kernel, one core, 10 M rows) the two ways measured alike at 1/32: read
# whole, 1.04x (float64) and 1.13x (uint8) faster there, 1.33-1.70x at 1/8,
# 0.67-0.85x at 1/128 (docs/performance.rst, "Frame queries"). Not measured on
# another CPU yet; on one with cheaper scattered loads the crossing moves up.
BITS_FROM = 1 / 32

# ``positions(col, lo, hi, BITS)`` asks a face for the kernel's in-range bits
# of the whole column (a uint8 array, LSB first) instead of positions.
BITS = object()


class Standing:
    """The rows still standing as bits (a uint8 array, LSB first):
    ``positions(col, lo, hi, Standing(bits))`` asks a face for the positions of
    those rows in range, read in one pass over the column (the last column
    read whole: ``_core._filter_indexes_where``)."""

    __slots__ = ("bits",)

    def __init__(self, bits: np.ndarray) -> None:
        self.bits = bits


Plan = List[Tuple[Any, Any, Any, Any]]


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


def _estimate(col: Any, lo: Any, hi: Any, inclusive: str, n: int) -> Optional[float]:
    """The fraction of an evenly spaced sample of rows in range (NaN below
    ORDER_MIN_ROWS rows, where only whether a kernel reads the column is asked),
    or None if no kernel does."""
    if n < ORDER_MIN_ROWS:
        sample = np.empty(0, dtype=np.intp)
    else:
        sample = np.arange(0, n, max(1, n // SAMPLE), dtype=np.intp)
    try:
        hits = _core.count_in_range(col, lo, hi, inclusive=inclusive, within=sample)
    except (TypeError, ValueError):
        return None
    return hits / len(sample) if len(sample) else float("nan")


def most_selective_first(plan: Plan, n: int, inclusive: str) -> Tuple[Plan, List[Optional[float]]]:
    """The plan reordered so that later passes read fewer rows, with each range's
    sampled fraction in range (NaN: not sampled; None: no kernel reads the
    column). Columns no kernel reads go last, at any size (the host then compares
    only the rows left). The order changes the cost, never the rows."""
    if len(plan) < 2:
        return plan, [float("nan")] * len(plan)
    est = [_estimate(col, lo, hi, inclusive, n) for _, col, lo, hi in plan]
    order = sorted(range(len(plan)), key=lambda i: (est[i] is None, est[i] or 0, i))
    return [plan[i] for i in order], [est[i] for i in order]


def _sampled(fraction: Optional[float]) -> bool:
    """Whether a sampled fraction was taken (not None, not NaN)."""
    return fraction is not None and fraction == fraction


def _dense_next(fraction: Optional[float], standing: float) -> bool:
    """Whether the next column (its sampled `fraction`) is read whole, with
    `standing` of the rows left before it."""
    return _sampled(fraction) and standing >= BITS_FROM


def conjunction(
    plan: Plan,
    n: int,
    inclusive: str,
    *,
    index_dtype: Any,
    positions: Callable[[Any, Any, Any, Any], Optional[np.ndarray]],
    mask: Callable[[Any, Any, Any, Optional[np.ndarray]], np.ndarray],
    fallback: Tuple[type, ...] = (),
    fractions: Optional[List[Optional[float]]] = None,
) -> np.ndarray:
    """Positions of the rows in every range of `plan` (n rows in all).

    ``positions(col, lo, hi, within)`` is the kernel's answer, or None when the
    face's own library must answer for these bounds: positions (at the rows
    `within` when not None, or at the rows set in a ``Standing``), or with
    `within` BITS the column's in-range bits.
    ``mask(col, lo, hi, at)`` is that library's answer, a bool array with nulls
    False, over the whole column (`at` None) or only at the positions `at` (the
    rows still standing). `fractions` are the plan's sampled fractions in range
    (most_selective_first): the columns are read whole while the rows standing
    are at least BITS_FROM of them, into bits ANDed together, the last one into
    positions. A kernel error of a type in
    `fallback` falls back to `mask`; any other propagates, a TypeError naming the
    column. Once no row stands, the columns left are still asked (the kernels at
    no row, the host at the first row): the host's own idiom compares every
    column, and raises for a range it refuses."""

    def kernels(name: Any, col: Any, lo: Any, hi: Any, within: Any) -> Optional[np.ndarray]:
        try:
            return positions(col, lo, hi, within)
        except fallback:
            return None
        except TypeError as exc:
            raise TypeError(f"column {name!r}: {exc}") from exc

    idx: Optional[np.ndarray] = None
    bits: Optional[np.ndarray] = None
    fracs = list(fractions) if fractions is not None else [None] * len(plan)
    fracs.append(None)  # past the last column
    standing = 1.0  # the sampled fraction of rows in range so far
    for i, (name, col, lo, hi) in enumerate(plan):
        frac = fracs[i]
        # Bits while many rows stand; the first column only when the next one
        # is read into bits too (else its positions cost as little, and a
        # sorted column's are a binary search).
        dense = (
            idx is None
            and _sampled(frac)
            and standing >= BITS_FROM
            and (bits is not None or _dense_next(fracs[i + 1], frac))
        )
        # Bits are kept only when the next column qualifies (`last` below), so a
        # column after bits is always read whole too.
        assert bits is None or dense
        if idx is not None and len(idx) == 0:
            # At the first row, not at none: on no row a host may raise another
            # type (Polars: ComputeError where its rows give SchemaError).
            first = np.arange(min(n, 1), dtype=index_dtype)
            for name, col, lo, hi in plan[i:]:
                if kernels(name, col, lo, hi, idx) is None:
                    mask(col, lo, hi, first)
            break
        # The last column read whole gives the positions itself.
        last = dense and bits is not None and not _dense_next(fracs[i + 1], standing * frac)
        ask = (Standing(bits) if last else BITS) if dense else idx
        got = kernels(name, col, lo, hi, ask)
        if got is not None and last:
            idx, bits = got, None
            continue
        if got is not None and dense:
            bits = got if bits is None else np.bitwise_and(bits, got, out=bits)
            standing *= frac  # type: ignore[operator]
            continue
        if got is not None:
            idx = got
            continue
        if bits is not None:  # the host answers this column, at the rows standing
            idx, bits = _core._positions_of_bits(bits, n, index_dtype), None
        if idx is None:
            idx = np.flatnonzero(mask(col, lo, hi, None)).astype(index_dtype)
        else:
            idx = idx[mask(col, lo, hi, idx)]
    if bits is not None:
        idx = _core._positions_of_bits(bits, n, index_dtype)
    assert idx is not None
    return idx
