"""ZoneMap: the minimum and maximum of each block of a column, so that repeated
range queries read only the blocks that can hold a value in range.

Any column the functions take: its values found as the functions find them
(:mod:`simdfilter._columns`; Arrow buffers through pyarrow), and every query run
by the functions on stretches of the column in its own kind, so nulls, time
zones and bounds are theirs. Built with NumPy's reductions (``minimum`` and
``maximum`` along each block: two passes over the data; blocks holding NaN,
NaT or nulls again on their other values only). A query resolves its bounds
exactly as the functions do (:func:`simdfilter._core._resolve_bounds`, the
library's rule), picks the blocks whose [min, max] meets the range, and runs the
ordinary kernels on each stretch of consecutive such blocks; a block wholly
inside the range and free of NaN/NaT and nulls is counted by ``count_in_range``
without being read, and a block of nulls only is never read. Inverted
(``invert=True``: the values outside the range, NaN and NaT among them, nulls
never) the roles swap: a block wholly inside and free of NaN/NaT is skipped, and
``count_in_range`` counts a block that misses the range, free of nulls, without
reading it.
"""

from __future__ import annotations

import operator
import types
from datetime import time as _time
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from . import _columns, _core, _face

DEFAULT_BLOCK = 4096


def _keys(data: np.ndarray) -> np.ndarray:
    """The values in the order the kernels compare them: datetime64 and
    timedelta64 as int64 ticks (NaT, INT64_MIN, below every bound), the rest
    as they are."""
    if data.dtype.kind in "Mm":
        return data.view(np.dtype(np.int64).newbyteorder(data.dtype.byteorder))
    return data


def _extremes(dtype: np.dtype, nat: bool) -> Tuple[Any, Any]:
    """(top, bottom): a block's min and max start from them where some of its
    values are left out (nulls, NaN, NaT)."""
    if dtype.kind == "b":
        return True, False
    if dtype.kind == "f":
        return np.inf, -np.inf
    info = np.iinfo(dtype)
    # int64 ticks of datetime64: INT64_MIN is NaT, so the bottom is one above it.
    return info.max, info.min + nat


def _block_bounds(
    flat: np.ndarray, block: int, nulls: Optional[np.ndarray], nat: bool
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Optional[np.ndarray], Optional[np.ndarray]]:
    """(mins, maxs, clean, full, void) per block, NaN, NaT (`nat`: INT64_MIN
    of int64 ticks) and nulls left out of mins and maxs; `clean` is False for a
    block that holds NaN or NaT, `full` (None without nulls) True for one
    without nulls, `void` True for one of nulls only."""
    n, dtype = flat.size, flat.dtype.newbyteorder("=")
    # A block past the array is the whole array: as one block of n, not a
    # (0, block) shape that NumPy refuses once block * itemsize passes 2**63.
    block = min(block, max(n, 1))
    nb, full_blocks = -(-n // block), n // block
    mins, maxs = np.empty(nb, dtype), np.empty(nb, dtype)
    clean = np.ones(nb, bool)
    full = void = None
    if nulls is not None:
        full, void = np.ones(nb, bool), np.zeros(nb, bool)
    top, bottom = _extremes(dtype, nat)

    def shaped(a: np.ndarray) -> List[Tuple[int, np.ndarray]]:
        parts = [(0, a[: full_blocks * block].reshape(full_blocks, block))]
        if full_blocks < nb:
            parts.append((full_blocks, a[full_blocks * block :].reshape(1, -1)))
        return parts

    for (first, blocks), (_, held) in zip(
        shaped(flat), shaped(nulls) if nulls is not None else [(0, None)] * 2
    ):
        lo, hi = np.minimum.reduce(blocks, axis=1), np.maximum.reduce(blocks, axis=1)
        valid = None
        if held is not None:
            some, every = held.any(axis=1), held.all(axis=1)
            full[first : first + lo.size], void[first : first + lo.size] = ~some, every
            gappy = np.flatnonzero(some)
            if gappy.size:
                valid = ~held
                lo[gappy] = np.minimum.reduce(
                    blocks[gappy], axis=1, where=valid[gappy], initial=top
                )
                hi[gappy] = np.maximum.reduce(
                    blocks[gappy], axis=1, where=valid[gappy], initial=bottom
                )
        if dtype.kind == "f" or nat:
            # minimum propagates NaN; NaT is the least int64
            dirty = np.flatnonzero(
                np.isnan(lo) if dtype.kind == "f" else lo == np.iinfo(np.int64).min
            )
            if dirty.size:
                b = blocks[dirty]
                keep = ~np.isnan(b) if dtype.kind == "f" else b != np.iinfo(np.int64).min
                if valid is not None:
                    keep &= valid[dirty]
                lo[dirty] = np.minimum.reduce(b, axis=1, where=keep, initial=top)
                hi[dirty] = np.maximum.reduce(b, axis=1, where=keep, initial=bottom)
                clean[first + dirty] = False
        mins[first : first + lo.size], maxs[first : first + hi.size] = lo, hi
    return mins, maxs, clean, full, void


def _empty_range(empty: Any, bound: Any) -> bool:
    """Whether `bound` to `bound`, both ends open, is a range the functions
    take on this (empty) column, holding nothing."""
    try:
        return _core._resolve_bounds(empty, bound, bound, "neither")[1] is None
    except TypeError:
        return False


def _concat(pieces: List[Any]) -> Any:
    """filter_values' pieces of a tz-aware column, in its own kind, as one."""
    first = pieces[0]
    host = type(first).__module__.partition(".")[0]
    if host == "pandas":  # an ExtensionArray: the interface's own concatenation
        return type(first)._concat_same_type(pieces)
    if host == "polars":
        import polars as pl

        return pl.concat(pieces)
    if host == "pyarrow":
        import pyarrow as pa

        return pa.concat_arrays(pieces)
    return np.concatenate(pieces)


def _runs(blocks: np.ndarray) -> Iterator[Tuple[int, int]]:
    """[(first, stop)) of each stretch of consecutive block numbers."""
    if blocks.size == 0:
        return iter(())
    cut = np.flatnonzero(np.diff(blocks) != 1) + 1
    starts = blocks[np.concatenate(([0], cut))]
    stops = blocks[np.concatenate((cut - 1, [blocks.size - 1]))] + 1
    return zip(starts.tolist(), stops.tolist())


class ZoneMap:
    """The minimum and maximum of each block of a column, for repeated range queries.

    ``zm = ZoneMap(values)`` reads `values` once; ``zm.filter_indexes(lo, hi)``,
    ``zm.filter_values(lo, hi)`` and ``zm.count_in_range(lo, hi)`` then give the
    answers of the functions of those names, but read only the blocks whose
    [min, max] meets [lo, hi]. They take the functions' `inclusive`, `out`,
    `index_dtype`, `threads` and `invert`, not `within` nor `assume_sorted`. A
    block wholly inside the range (and free of NaN/NaT) is counted by
    `count_in_range` without being read; with ``invert=True`` it is skipped, and
    a block that misses the range is counted whole.
    On data whose neighbouring values are close (timestamps, sensor readings,
    anything appended roughly in order) most blocks are skipped; on data in
    random order every block meets a wide range and the query costs a scan.

    Parameters
    ----------
    values : array-like
        Any column the functions take: a NumPy array (1-d of any layout, or
        N-d and C-contiguous: positions are flat, in C order), a numpy.ma
        array, a pandas Series, Index or array (NumPy-backed, nullable,
        tz-aware or Arrow-backed), a Polars Series, a pyarrow Array or
        ChunkedArray, or any Arrow PyCapsule producer (read with pyarrow), of
        bool, int8..uint64, float32, float64 or temporal data. Nulls never
        match, as in the functions; a tz-aware column keeps its zone (bounds
        compare as the functions compare them, and ``filter_values`` gives the
        column's own kind). The ZoneMap keeps a reference to it, never a copy
        (the block minima and maxima of a chunked Arrow column are found on a
        joined copy, dropped once the map is built).
    block : int, default 4096
        Elements per block. The map takes two elements (and one byte) per
        block: 0.05 % of float64 data at the default, 0.4 % of uint8 data at
        ``block=1024`` (keep it under 1 %: ``block >= 200`` for 1-byte data);
        two more bytes per block on a column with nulls.

    Attributes
    ----------
    values : array-like
        The column the map describes, as given.
    block : int
        Elements per block.
    nbytes : int
        Memory the map itself takes.

    Raises
    ------
    TypeError
        `values` is no column the functions take, in their words (a frame,
        strings, float16...).
    ValueError
        An N-d array that is not C-contiguous, or `block` < 1.

    Notes
    -----
    The map describes `values` as they were when it was built. NumPy arrays
    (and the NumPy buffers of pandas columns) are mutable: after writing to
    one, build a new map
    (``zm = simdfilter.ZoneMap(zm.values, block=zm.block)``); queries on changed
    data give unspecified results (positions still hold values in range, but
    some may be missing and counts may be off).

    Examples
    --------
    >>> import numpy as np, simdfilter
    >>> t = np.cumsum(np.random.default_rng(0).random(1_000_000))  # rising readings
    >>> zm = simdfilter.ZoneMap(t)
    >>> zm
    ZoneMap(1,000,000 values of float64, 245 blocks of 4,096, 4,165 bytes)
    >>> rows = zm.filter_indexes(1000.0, 1010.0)
    >>> np.array_equal(rows, simdfilter.filter_indexes(t, 1000.0, 1010.0))
    True
    >>> zm.count_in_range(None, 5000.0) == simdfilter.count_in_range(t, None, 5000.0)
    True
    """

    # ZoneMap[np.float64] names its type at run time too (the stubs make it
    # generic in the values' scalar type).
    __class_getitem__ = classmethod(types.GenericAlias)

    __slots__ = (
        "values", "block", "_part", "_whole", "_size", "_dtype", "_nothing", "_zoned",
        "_mins", "_maxs", "_clean", "_full", "_void", "_valid",
    )  # fmt: skip

    def __init__(self, values: Any, block: int = DEFAULT_BLOCK) -> None:
        data, nulls, part = _columns.column_parts(values, "ZoneMap")
        try:
            block = operator.index(block)
        except TypeError:
            raise TypeError(f"block must be an int, not {type(block).__name__}") from None
        if block < 1:
            raise ValueError(f"block must be >= 1, got {block}")
        self.values, self.block, self._part = values, block, part
        self._size, self._whole = data.size, part(0, data.size)
        self._dtype = str(getattr(values, "dtype", None) or getattr(values, "type", data.dtype))
        empty = part(0, 0)
        # A bound that makes the range empty on this column (NaN, NaT, or an
        # open range at midnight on times of day), for the function's answer
        # on the whole column that reads nothing (see _collect).
        self._nothing = next(
            b
            for b in (
                float("nan"),
                np.datetime64("NaT", "ns"),
                np.timedelta64("NaT", "ns"),
                _time(0),
            )
            if _empty_range(empty, b)
        )
        # filter_values on a tz-aware column: the column's own kind, with its zone.
        from . import filter_values

        self._zoned = not isinstance(filter_values(empty, None, None), np.ndarray)
        # The order the kernels compare in: datetime64/timedelta64 as int64
        # ticks (NaT, INT64_MIN, below every bound), the rest as they are.
        keys = _keys(data)
        self._mins, self._maxs, self._clean, self._full, self._void = _block_bounds(
            keys, block, nulls, data.dtype.kind in "Mm"
        )
        self._valid = data.size - (0 if nulls is None else int(np.count_nonzero(nulls)))

    @property
    def nbytes(self) -> int:
        flags = (self._clean, self._full, self._void)
        return self._mins.nbytes + self._maxs.nbytes + sum(f.nbytes for f in flags if f is not None)

    def __repr__(self) -> str:
        return (
            f"ZoneMap({self._size:,} values of {self._dtype}, "
            f"{self._mins.size:,} blocks of {self.block:,}, {self.nbytes:,} bytes)"
        )

    # ---- which blocks ----------------------------------------------------------

    def _blocks(self, lo: Any, hi: Any, inclusive: str) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """The masks of the blocks that meet the range (none of nulls only) and
        of those whose values (NaN, NaT and nulls aside) lie wholly in it, or
        None when the range is empty. Several ranges (`lo` and `hi` sequences,
        which the caller's function call has checked): the blocks that meet
        any, and those wholly inside one of them."""
        pairs = zip(lo, hi) if _face.is_bound_list(lo) else [(lo, hi)]
        mins, maxs = self._mins, self._maxs
        empty = self._part(0, 0)
        touched = inner = None
        for one_lo, one_hi in pairs:
            rng = _core._resolve_bounds(empty, one_lo, one_hi, inclusive)[1]
            if rng is None:
                continue
            rlo, rhi = mins.dtype.type(rng[0]), mins.dtype.type(rng[1])
            meets = (maxs >= rlo) & (mins <= rhi)
            within = meets & (mins >= rlo) & (maxs <= rhi)
            touched = meets if touched is None else touched | meets
            inner = within if inner is None else inner | within
        if touched is None or inner is None:
            return None
        if self._void is not None:
            touched &= ~self._void
        return touched, inner

    def _unread(self) -> np.ndarray:
        """The blocks no query reads: those of nulls only."""
        return self._void if self._void is not None else np.zeros(self._mins.size, bool)

    def _stretches(self, blocks: np.ndarray) -> List[Tuple[int, int]]:
        """The element ranges [start, stop) of the runs of `blocks` (a mask)."""
        n, b = self._size, self.block
        return [(s * b, min(e * b, n)) for s, e in _runs(np.flatnonzero(blocks))]

    # ---- the queries -------------------------------------------------------------

    def _collect(self, fn: Any, lo: Any, hi: Any, kw: dict, positions: bool) -> Any:
        fn(self._part(0, 0), lo, hi, **kw)  # the caller's arguments, judged by the function
        # The whole column asked a range that holds nothing, which the binding
        # answers without reading it: `out` checked against all of `values`
        # (its size, its overlap), and the dtype the function gives for all of
        # them. For positions that dtype is the binding's (uint32 or int64 by
        # the whole length, not a stretch's), so every stretch is asked for it:
        # a stretch's positions plus its start then always fit.
        nothing = self._nothing
        empty = fn(self._whole, nothing, nothing, **{**kw, "inclusive": "neither", "invert": False})
        invert = bool(kw["invert"])
        blocks = self._blocks(lo, hi, kw["inclusive"])
        if blocks is None:  # the range holds nothing: inverted, everything
            return fn(self._whole, lo, hi, **kw) if invert else empty
        touched, inside = blocks
        # Inverted, a block can hold a match unless its values lie wholly
        # inside the range with no NaN/NaT (its nulls are never kept either);
        # the blocks wholly outside are read like the rest.
        read = ~(inside & self._clean) & ~self._unread() if invert else touched
        out = kw.pop("out")
        if positions and out is None:
            kw["index_dtype"] = empty.dtype
        pieces, done = [], 0
        for start, stop in self._stretches(read):
            dst = None if out is None else out[done:]
            got = fn(self._part(start, stop), lo, hi, out=dst, **kw)
            if positions and start:
                got += got.dtype.type(start)
            done += len(got)
            if out is None:
                pieces.append(got)
        if out is not None:
            return out[:done]
        if len(pieces) == 1:  # one stretch (every block, on data in random order): no copy
            return pieces[0]
        if not pieces:
            return empty
        return _concat(pieces) if self._zoned else np.concatenate(pieces)

    def filter_indexes(
        self,
        lo: Any,
        hi: Any,
        *,
        inclusive: str = "both",
        out: Optional[np.ndarray] = None,
        index_dtype: Any = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> np.ndarray:
        """Positions of the values in range: ``simdfilter.filter_indexes(zm.values,
        lo, hi, ...)``, reading only the blocks that can hold one.

        Parameters
        ----------
        lo, hi : scalar, None, or sequences of them
            The bounds, as `simdfilter.filter_indexes` takes them (sequences:
            several ranges; a block is read when it meets any of them).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        out : numpy.ndarray, optional
            As in `simdfilter.filter_indexes`: at least ``values.size``
            elements; the result is then ``out[:k]``.
        index_dtype : dtype, optional
            uint32, int64 (or ``np.intp``) or uint64. By default the
            function's for the whole array: uint32 below 2**32 elements,
            int64 from there.
        threads : int, optional
            Up to this many threads for each stretch of blocks read.
        invert : bool or None, default False (None: False)
            True: the positions of the values outside the range, NaN and NaT
            included (``~((values >= lo) & (values <= hi))``). The blocks
            wholly inside the range and free of NaN/NaT are skipped.

        Returns
        -------
        numpy.ndarray
            Ascending flat positions, exactly the function's (values and dtype).

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.filter_indexes` raises them for the same arguments.

        Notes
        -----
        `within` and `assume_sorted` are not taken (passing them is a
        TypeError): the map chooses what to read itself.
        """
        from . import filter_indexes

        kw: dict = dict(inclusive=inclusive, out=out, threads=threads, invert=invert)
        if index_dtype is not None:  # else the function's own choice (see _collect)
            kw["index_dtype"] = index_dtype
        return self._collect(filter_indexes, lo, hi, kw, positions=True)

    def filter_values(
        self,
        lo: Any,
        hi: Any,
        *,
        inclusive: str = "both",
        out: Optional[np.ndarray] = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> Any:
        """The values in range: ``simdfilter.filter_values(zm.values, lo, hi, ...)``,
        reading only the blocks that can hold one.

        Parameters
        ----------
        lo, hi : scalar, None, or sequences of them
            The bounds, as `simdfilter.filter_values` takes them.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        out : numpy.ndarray, optional
            As in `simdfilter.filter_values`: the values' dtype, at least
            ``values.size`` elements; the result is then ``out[:k]``.
        threads : int, optional
            Up to this many threads for each stretch of blocks read.
        invert : bool or None, default False (None: False)
            True: the values outside the range, NaN and NaT included. The
            blocks wholly inside the range and free of NaN/NaT are skipped.

        Returns
        -------
        numpy.ndarray
            The values, in flat C order, exactly the function's (on a tz-aware
            column, the column's own kind with its zone, as the function).

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.filter_values` raises them for the same arguments.

        Notes
        -----
        `assume_sorted` is not taken (passing it is a TypeError).
        """
        from . import filter_values

        kw = dict(inclusive=inclusive, out=out, threads=threads, invert=invert)
        return self._collect(filter_values, lo, hi, kw, positions=False)

    def count_in_range(
        self,
        lo: Any,
        hi: Any,
        *,
        inclusive: str = "both",
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> int:
        """How many values are in range: ``simdfilter.count_in_range(zm.values,
        lo, hi, ...)``, the blocks wholly in range counted without being read,
        those that miss it skipped, and only the others scanned.

        Parameters
        ----------
        lo, hi : scalar, None, or sequences of them
            The bounds, as `simdfilter.count_in_range` takes them (sequences:
            a block wholly inside one of the ranges is counted unread).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        threads : int, optional
            Up to this many threads for each stretch of blocks read.
        invert : bool or None, default False (None: False)
            True: how many lie outside the range, NaN and NaT included. A
            block wholly outside the range (NaN/NaT or not) then counts whole
            without being read, and one wholly inside it and free of NaN/NaT
            counts nothing.

        Returns
        -------
        int
            The function's count.

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.count_in_range` raises them for the same arguments.

        Notes
        -----
        `within` and `assume_sorted` are not taken (passing them is a
        TypeError).
        """
        from . import count_in_range

        kw = dict(inclusive=inclusive, threads=threads, invert=invert)
        count_in_range(self._part(0, 0), lo, hi, **kw)  # the caller's arguments, judged
        invert = bool(invert)
        blocks = self._blocks(lo, hi, inclusive)
        if blocks is None:  # the range holds nothing: inverted, every value not null
            return self._valid if invert else 0
        touched, inside = blocks
        full = self._full if self._full is not None else np.ones(touched.size, bool)
        # Counted whole without being read: the blocks wholly inside (none of
        # their values outside, as none is NaN/NaT or null) or, inverted, those
        # that miss the range (every value outside, NaN/NaT among them) and
        # hold no null. Inverted, the blocks wholly inside and free of NaN/NaT
        # count nothing (their nulls are never kept).
        clean_inside = inside & self._clean
        if invert:
            whole = ~touched & full
            read = ~clean_inside & ~whole & ~self._unread()
        else:
            whole = clean_inside & full
            read = touched & ~whole
        total = sum(stop - start for start, stop in self._stretches(whole))
        for start, stop in self._stretches(read):
            total += count_in_range(self._part(start, stop), lo, hi, **kw)
        return total


ZoneMap.__module__ = __name__.rpartition(".")[0]  # help() and repr name simdfilter.ZoneMap
