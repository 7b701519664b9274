"""What the pandas, Polars and Dask faces share: one face, three hosts.

Each face (``simdfilter.pandas``, ``simdfilter.polars``, ``simdfilter.dask``) is a
thin adapter that says how its host reads a column, builds its result and compares
a column no kernel reads (a :class:`simdfilter._accessor.Host`, whose module holds
the verbs of a column once); the rest is here, once:

- the vocabulary: which ``inclusive`` (pandas, Dask) or ``closed`` (Polars) names
  the host takes, and for any other value the host's own error, read from the host
  itself (``checked_inclusive``), so the message is the installed version's;
- the fallback rule for columns no kernel reads (object, strings, categoricals,
  Periods, intervals, decimals, ...): the host computes the answer, and a None end
  is unbounded there too, as it is on the kernels' path (``host_mask``);
- the frame query: the ranges of ``df.sf.filter({...}, **ranges)`` read into one
  plan, any hashable label allowed (``frame_plan``), evaluated as one conjunction
  in which the columns no kernel reads are compared last and only at the rows the
  others left (``frame_rows``, over :mod:`simdfilter._conjunction`); a list of
  mappings is an OR of such plans (``frame_plans``), and ``invert=True`` keeps
  the rows where the host's mask is False, never where it is null
  (``frame_query``);
- the positions' dtype at 2**32 rows and more (``index_dtype``), and the
  ``filter_indexes`` call on a column that gives them (``positions``).

The bounds follow one rule on every face, NumPy 2's (NEP 50), applied by the
C binding itself (csrc/cpython/bounds_py.c): no face adjusts a bound of its own,
except where its host compares otherwise (an Arrow-backed float32 column in pandas).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Callable, Dict, Hashable, List, Mapping, Optional

import numpy as np

from . import _conjunction as _conj
from . import _core

# The kernels' names for the closed ends; each host's names map onto them.
KERNEL_NAMES = ("both", "left", "right", "neither")
PANDAS_NAMES: Dict[str, str] = {n: n for n in KERNEL_NAMES}
POLARS_NAMES: Dict[str, str] = {"both": "both", "left": "left", "right": "right", "none": "neither"}
# ... and back, for a host that is asked in its own words.
TO_POLARS = {v: k for k, v in POLARS_NAMES.items()}

_PROBE_ANSWERS = {
    (True, True, True): "both",
    (True, True, False): "left",
    (False, True, True): "right",
    (False, True, False): "neither",
}


def checked_inclusive(value: Any, names: Mapping[str, str], probe: Callable[[Any], Any]) -> str:
    """The kernels' name for the host's `value`.

    A name in `names` maps directly. Any other value is the host's to judge:
    ``probe(value)`` asks the host to compare ``[0, 1, 2]`` with ``(0, 2)`` so
    closed; the host's exception (its type and message, of the installed
    version) propagates, and a value the host takes (pandas 1.5's booleans,
    with its FutureWarning) means what the host's answer shows.
    """
    if isinstance(value, str) and value in names:
        return names[value]
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        got = tuple(bool(x) for x in probe(value))
    for w in warned:  # the host's warning, at the caller's line as the host gives it
        warnings.warn(w.message, w.category, stacklevel=_caller_level())
    try:
        return _PROBE_ANSWERS[got]
    except KeyError:  # pragma: no cover - no host answers so
        raise ValueError(f"unsupported closed ends: {value!r}") from None


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _caller_level() -> int:
    """The ``warnings.warn`` stacklevel, in this function's caller, of the first
    frame outside simdfilter (pandas' find_stack_level, for this package)."""
    frame, level = sys._getframe(1), 1
    while (
        frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE
    ):
        frame, level = frame.f_back, level + 1
    return level


def checked_invert(invert: Any) -> bool:
    """`invert` as the functions take it (True, False, None for False, a NumPy
    bool); anything else is the functions' TypeError, raised before a face could
    read a truthy value as True on its host's path."""
    if invert is None or invert is False:
        return False
    if invert is True:
        return True
    if isinstance(invert, np.bool_):
        return bool(invert)
    raise TypeError(f"invert must be True, False or None, not {invert!r}")


def refuse_range_as(name: str, value: Any, what: str) -> None:
    """A clear TypeError for a range given as ``name=(lo, hi)`` to a frame verb:
    `name` is one of its parameters (`what` says which), so a column of that
    name cannot be a keyword and goes in the mapping."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        raise TypeError(
            f"{name}={value!r}: `{name}` is the {what}; a column named {name!r} goes in "
            f"the mapping: filter({{{name!r}: {tuple(value)!r}}})"
        )


def frame_invert(invert: Any) -> bool:
    """`checked_invert` for a frame verb, refusing ``invert=(lo, hi)``."""
    refuse_range_as("invert", invert, "parameter (True: the rows outside the ranges)")
    return checked_invert(invert)


# The frame faces' one pass (``_core._filter_rows``) is asked only while a sample
# keeps at most this fraction of the rows; from there on the positions' way. At
# 50 % of 10 M rows of three 8-byte columns the one pass measured 1.1x slower in
# pandas and 1.2-1.7x in Polars (AMD EPYC Zen 4, one core, loaded): its outputs,
# over the arena's 64 MiB of idle memory, landed in pages the OS had to clear
# (51 huge-page faults a call against the take's few), and Polars' own gather
# writes into its allocator's memory. At 10 % it measured 1.2-1.6x faster. The
# crossing between them was not measured; a quarter is a guess between the two.
ONE_PASS_MOST = 0.25


def index_dtype(n: int, wide: Any = np.int64) -> Any:
    """The positions' dtype for `n` rows: uint32, or `wide` from 2**32 rows on
    (int64 for NumPy and pandas, as ``filter_indexes`` gives; uint64 for Polars)."""
    return np.uint32 if n < 2**32 else wide


def positions(
    col: Any,
    lo: Any,
    hi: Any,
    inclusive: str,
    *,
    wide: Any,
    within: Any = None,
    invert: bool = False,
    assume_sorted: bool = False,
) -> np.ndarray:
    """``simdfilter.filter_indexes`` on a face's column, positions in
    ``index_dtype(len(col), wide)``; `within` passed only when given (the
    refinement of a conjunction), `assume_sorted` as the face knows it. With
    `within` ``_conjunction.BITS``, the column's in-range bits instead, and with
    a ``_conjunction.Standing``, the positions of its rows in range (a
    conjunction's columns read whole). TypeError and ValueError as the kernel
    raises them."""
    kw: Dict[str, Any] = dict(
        inclusive=inclusive, index_dtype=index_dtype(len(col), wide), invert=invert
    )
    if within is _conj.BITS:
        return _core._in_range_bits(col, lo, hi, inclusive=inclusive, invert=invert)
    if isinstance(within, _conj.Standing):
        return _core._filter_indexes_where(within.bits, col, lo, hi, **kw)
    if within is not None:
        kw["within"] = within
    if assume_sorted:
        kw["assume_sorted"] = True
    return _core.filter_indexes(col, lo, hi, **kw)


def host_mask(
    col: Any,
    lo: Any,
    hi: Any,
    inclusive: str,
    between: Callable[[Any, Any, Any], Any],
    everything: Callable[[], Any],
) -> Any:
    """The host's own answer for a column no kernel reads (or bounds the kernels
    leave to the host), with a None end unbounded.

    ``between(col, lo, hi)`` is the host's two-ended comparison (``Series.between``,
    ``is_between``) with the closed ends already bound; a one-ended range is the
    one comparison it leaves, and no bound at all ``everything()``, the host's
    ``col == col``: so the answer has the host's dtype, its nulls included."""
    if lo is not None and hi is not None:
        return between(col, lo, hi)
    if lo is None and hi is None:
        return everything()
    if lo is not None:
        return (col >= lo) if inclusive in ("both", "left") else (col > lo)
    return (col <= hi) if inclusive in ("both", "right") else (col < hi)


# ---- frames ---------------------------------------------------------------------


def frame_plan(
    ranges: Optional[Mapping[Hashable, Any]],
    keywords: Dict[str, Any],
    has: Callable[[Hashable], bool],
    column: Callable[[Hashable], Any],
) -> _conj.Plan:
    """[(label, column, lo, hi)] of ``filter(ranges, **keywords)``.

    `ranges` maps any label (an int, a str with spaces, a MultiIndex tuple, one
    called ``inclusive``) to its ``(lo, hi)``; `keywords` are the short form for
    labels that are identifiers. A label given both ways is refused, as is an
    unknown one (KeyError) or a range that is not a pair (TypeError).
    """
    if ranges is not None and not isinstance(ranges, Mapping):
        raise TypeError(
            "the ranges must be a mapping {column: (lo, hi)}, a list of such mappings "
            f"(their OR), or column=(lo, hi) keywords, not {type(ranges).__name__}"
        )
    merged: Dict[Hashable, Any] = dict(ranges or {})
    for name, rng in keywords.items():
        if name in merged:
            raise TypeError(f"column {name!r} is given twice, in the mapping and as a keyword")
        merged[name] = rng
    if not merged:
        raise TypeError("give at least one range, as {column: (lo, hi)} or column=(lo, hi)")
    plan: _conj.Plan = []
    for label, rng in merged.items():
        if not has(label):
            raise KeyError(label)
        try:
            lo, hi = rng
        except (TypeError, ValueError):
            raise TypeError(
                f"the range of {label!r} must be a pair (lo, hi), not {rng!r}"
            ) from None
        plan.append((label, column(label), lo, hi))
    return plan


def frame_plans(
    ranges: Any,
    keywords: Dict[str, Any],
    has: Callable[[Hashable], bool],
    column: Callable[[Hashable], Any],
) -> List[_conj.Plan]:
    """The plans of ``filter(ranges, **keywords)``, an OR of ANDs: one plan (the
    AND of its ranges) for a mapping and keywords, as ``frame_plan`` reads them;
    one per mapping for a list (or tuple) of mappings, whose rows are those of
    any of them. Each column is fetched once, whichever mappings name it.

    Refused with a TypeError: an empty list, an item that is not a mapping or
    is empty (it would keep every row), and keywords beside a list (which
    mapping would they join?). An unknown column: KeyError, as ``frame_plan``.
    """
    fetched: Dict[Hashable, Any] = {}

    def once(label: Hashable) -> Any:
        if label not in fetched:
            fetched[label] = column(label)
        return fetched[label]

    if not isinstance(ranges, (list, tuple)):
        return [frame_plan(ranges, keywords, has, once)]
    if keywords:
        raise TypeError(
            "column=(lo, hi) keywords do not combine with a list of mappings (an OR "
            f"of them): put {sorted(keywords)!r} in the mappings they belong to"
        )
    if not ranges:
        raise TypeError(
            "the list of mappings is empty: give at least one {column: (lo, hi)} "
            "(the rows kept are those in the ranges of any mapping)"
        )
    plans = []
    for i, mapping in enumerate(ranges):
        if not isinstance(mapping, Mapping):
            raise TypeError(
                f"item {i} of the list must be a mapping {{column: (lo, hi)}}, "
                f"not {type(mapping).__name__}"
            )
        if not mapping:
            raise TypeError(
                f"mapping {i} of the list is empty: give at least one range in it "
                "(an empty one would keep every row)"
            )
        plans.append(frame_plan(mapping, {}, has, once))
    return plans


def frame_rows(
    plan: _conj.Plan,
    n: int,
    inclusive: str,
    *,
    wide: Any,
    positions: Callable[[Any, Any, Any, Optional[np.ndarray]], Optional[np.ndarray]],
    mask: Callable[[Any, Any, Any, Optional[np.ndarray]], np.ndarray],
    searched: Callable[[Any], bool] = lambda col: False,
) -> np.ndarray:
    """Positions of the rows where every column of `plan` is in its range.

    A column for which ``searched(col)`` is true (Polars' sorted flag) is never
    read whole: its positions are a binary search.

    ``positions(col, lo, hi, within)`` is the kernel's answer (None: the host's
    to give); ``mask(col, lo, hi, at)`` the host's, a bool array with nulls
    False, over the whole column or only at the positions `at`. Columns no
    kernel reads go last, so the host compares only the rows the kernels left.
    """
    plan, fractions = _conj.most_selective_first(plan, n, inclusive)
    fractions = [float("nan") if searched(col) else f for f, (_, col, _, _) in zip(fractions, plan)]
    return _conj.conjunction(
        plan,
        n,
        inclusive,
        index_dtype=index_dtype(n, wide),
        positions=positions,
        mask=mask,
        fallback=(TypeError, ValueError),
        fractions=fractions,
    )


def frame_query(
    plans: List[_conj.Plan],
    n: int,
    inclusive: str,
    *,
    invert: bool,
    wide: Any,
    positions: Callable[..., Optional[np.ndarray]],
    mask: Callable[..., np.ndarray],
    searched: Callable[[Any], bool] = lambda col: False,
) -> np.ndarray:
    """Positions of the rows an OR of conjunctions keeps (`plans`, from
    ``frame_plans``), or with `invert` those it does not, as the host's
    ``df[~(m1 | m2)]`` (pandas) or ``df.filter(~(e1 | e2))`` (Polars) keeps them.

    The host's masks are three-valued (Kleene logic: null AND False is False,
    null OR True is True, NOT null is null) and its filter drops null, so:

    - not inverted, a row is kept where some conjunction is True, i.e. all of
      its ranges are (``frame_rows``, then the union of the conjunctions' rows);
    - inverted, where every conjunction is False, i.e. each has a column whose
      value is there and outside its range: per column the kernels' inverted
      bits (NaN and NaT in them, nulls never), ORed within a conjunction and
      ANDed across them, one whole pass per column.

    `positions` and `mask` are ``frame_rows``'s, taking ``invert=True`` too
    (the column's inverted bits; the host's ``~mask`` with nulls False).
    """
    dtype = index_dtype(n, wide)
    if not invert:
        parts = [
            frame_rows(
                plan, n, inclusive, wide=wide, positions=positions, mask=mask, searched=searched
            )
            for plan in plans
        ]
        return parts[0] if len(parts) == 1 else _union(parts, n, dtype)
    bits: Optional[np.ndarray] = None
    for plan in plans:
        outside: Optional[np.ndarray] = None
        for _, col, lo, hi in plan:
            got = _outside_bits(col, lo, hi, positions, mask)
            outside = got if outside is None else np.bitwise_or(outside, got, out=outside)
        bits = outside if bits is None else np.bitwise_and(bits, outside, out=bits)
    assert bits is not None
    return _core._positions_of_bits(bits, n, dtype)


def _outside_bits(
    col: Any,
    lo: Any,
    hi: Any,
    positions: Callable[..., Optional[np.ndarray]],
    mask: Callable[..., np.ndarray],
) -> np.ndarray:
    """A bit per row (uint8, LSB first): the value is there and outside the
    range; the kernels' inverted bits, or the host's ``~mask`` (nulls False)
    packed, where the kernels leave the column to the host."""
    try:
        got = positions(col, lo, hi, _conj.BITS, invert=True)
    except (TypeError, ValueError):
        got = None
    if got is None:
        got = np.packbits(mask(col, lo, hi, None, invert=True), bitorder="little")
    return got


def _union(parts: List[np.ndarray], n: int, dtype: Any) -> np.ndarray:
    """The ascending union of ascending positions in [0, n): by sorting when they
    are few, by a byte per row otherwise."""
    if sum(len(p) for p in parts) * 8 < n:
        return np.unique(np.concatenate(parts)).astype(dtype, copy=False)
    keep = np.zeros(n, dtype=bool)
    for p in parts:
        keep[p] = True
    return np.flatnonzero(keep).astype(dtype)


def is_bound_list(bound: Any) -> bool:
    """Whether a bound is a sequence of bounds (a list, tuple or 1-d NumPy array),
    which the functions read as one range per pair (``lo[i]``, ``hi[i]``) and
    pandas and Polars compare element by element with the column: the drop-ins
    leave such bounds to their host."""
    return isinstance(bound, (list, tuple)) or (isinstance(bound, np.ndarray) and bound.ndim == 1)


def past_int64(bound: Any) -> bool:
    """Whether a bound is a Python int (not a bool) outside int64: pandas makes no
    int64 scalar of it (OverflowError), Polars' Series methods raise
    OverflowError and its expressions compare it as a wider literal. Both faces
    leave it to their host."""
    return isinstance(bound, int) and not isinstance(bound, bool) and not -(2**63) <= bound < 2**63
