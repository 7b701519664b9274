"""ZoneMap: the minimum and maximum of each block of a column, so that repeated
range queries read only the blocks that can hold a value in range.

Built with NumPy's reductions (``minimum`` and ``maximum`` along each block: two
passes over the data; blocks holding NaN or NaT get ``fmin``/``fmax`` on
themselves only). A query resolves its bounds exactly as the functions do
(:func:`simdfilter._core._resolve_bounds`, the library's rule), picks the blocks
whose [min, max] meets the range, and runs the ordinary kernels on each stretch of
consecutive such blocks; a block wholly inside the range and free of NaN/NaT is
counted by ``count_in_range`` without being read. Inverted (``invert=True``: the
values outside the range, NaN and NaT among them) the roles swap: such a block is
skipped, and ``count_in_range`` counts a block that misses the range without
reading it.
"""

from __future__ import annotations

import operator
import types
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

from . import _core, _face

DEFAULT_BLOCK = 4096
_SUPPORTED = (
    "NumPy arrays of bool, int8..uint64, float32, float64, datetime64 or timedelta64 "
    "(1-d of any layout, or N-d C-contiguous)"
)


def _flat(values: Any) -> np.ndarray:
    if not isinstance(values, np.ndarray) or isinstance(values, np.ma.MaskedArray):
        raise TypeError(f"ZoneMap supports {_SUPPORTED}, not {type(values).__name__}")
    d = values.dtype
    if not (d.kind in "biuMm" or (d.kind == "f" and d.itemsize in (4, 8))):
        raise TypeError(f"ZoneMap supports {_SUPPORTED}, not dtype({d})")
    if values.ndim == 1:
        return values
    if not values.flags.c_contiguous:
        raise ValueError(
            "ZoneMap reads an N-d array in flat C order without copying it: pass a "
            "C-contiguous array (np.ascontiguousarray(values))"
        )
    return values.reshape(-1)


def _block_bounds(flat: np.ndarray, block: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mins, maxs, clean) per block, NaN and NaT left out of mins and maxs (a
    block of nothing else keeps NaN/NaT there, which meets no range); `clean`
    is False for a block that holds any."""
    n, dtype = flat.size, flat.dtype.newbyteorder("=")
    # A block past the array is the whole array: as one block of n, not a
    # (0, block) shape that NumPy refuses once block * itemsize passes 2**63.
    block = min(block, max(n, 1))
    nb, full = -(-n // block), n // block
    mins, maxs = np.empty(nb, dtype), np.empty(nb, dtype)
    clean = np.ones(nb, bool)
    parts = [(0, flat[: full * block].reshape(full, block))]
    if full < nb:
        parts.append((full, flat[full * block :].reshape(1, -1)))
    for first, blocks in parts:
        lo, hi = np.minimum.reduce(blocks, axis=1), np.maximum.reduce(blocks, axis=1)
        if dtype.kind in "fMm":
            dirty = np.flatnonzero(np.isnan(lo))  # minimum propagates NaN and NaT
            if dirty.size:
                lo[dirty] = np.fmin.reduce(blocks[dirty], axis=1)
                hi[dirty] = np.fmax.reduce(blocks[dirty], axis=1)
                clean[first + dirty] = False
        mins[first : first + lo.size], maxs[first : first + hi.size] = lo, hi
    return mins, maxs, clean


def _runs(blocks: np.ndarray) -> Iterator[Tuple[int, int]]:
    """[(first, stop)) of each stretch of consecutive block numbers."""
    if blocks.size == 0:
        return iter(())
    cut = np.flatnonzero(np.diff(blocks) != 1) + 1
    starts = blocks[np.concatenate(([0], cut))]
    stops = blocks[np.concatenate((cut - 1, [blocks.size - 1]))] + 1
    return zip(starts.tolist(), stops.tolist())


class ZoneMap:
    """The minimum and maximum of each block of an array, for repeated range queries.

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
    values : numpy.ndarray
        bool, int8..uint64, float32, float64, datetime64 or timedelta64; 1-d of
        any layout, or N-d and C-contiguous (positions are flat, in C order).
        The ZoneMap keeps a reference to it, never a copy.
    block : int, default 4096
        Elements per block. The map takes two elements (and one byte) per
        block: 0.05 % of float64 data at the default, 0.4 % of uint8 data at
        ``block=1024`` (keep it under 1 %: ``block >= 200`` for 1-byte data).

    Attributes
    ----------
    values : numpy.ndarray
        The array the map describes.
    block : int
        Elements per block.
    nbytes : int
        Memory the map itself takes.

    Raises
    ------
    TypeError
        `values` is not a NumPy array of a supported dtype (pandas, Arrow and
        Polars columns, numpy.ma arrays, float16...).
    ValueError
        An N-d array that is not C-contiguous, or `block` < 1.

    Notes
    -----
    The map describes `values` as they were when it was built. NumPy arrays
    are mutable: after writing to the array, build a new map
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

    __slots__ = ("values", "block", "_flat", "_mins", "_maxs", "_keys", "_clean")

    def __init__(self, values: np.ndarray, block: int = DEFAULT_BLOCK) -> None:
        flat = _flat(values)
        try:
            block = operator.index(block)
        except TypeError:
            raise TypeError(f"block must be an int, not {type(block).__name__}") from None
        if block < 1:
            raise ValueError(f"block must be >= 1, got {block}")
        self.values, self.block, self._flat = values, block, flat
        self._mins, self._maxs, self._clean = _block_bounds(flat, block)
        # The order the kernels compare in: datetime64/timedelta64 as int64
        # ticks (NaT, INT64_MIN, below every bound), the rest as they are.
        self._keys = (
            (self._mins.view(np.int64), self._maxs.view(np.int64))
            if flat.dtype.kind in "Mm"
            else (self._mins, self._maxs)
        )

    @property
    def nbytes(self) -> int:
        return self._mins.nbytes + self._maxs.nbytes + self._clean.nbytes

    def __repr__(self) -> str:
        return (
            f"ZoneMap({self._flat.size:,} values of {self._flat.dtype}, "
            f"{self._mins.size:,} blocks of {self.block:,}, {self.nbytes:,} bytes)"
        )

    # ---- which blocks ----------------------------------------------------------

    def _blocks(
        self, lo: Any, hi: Any, inclusive: str, inside: bool = False
    ) -> Optional[Tuple[np.ndarray, Optional[np.ndarray]]]:
        """The mask of the blocks that meet the range and (`inside`) of those
        wholly in it, or None when the range is empty. Several ranges (`lo` and
        `hi` sequences, which the caller's function call has checked): the
        blocks that meet any, and those wholly inside one of them."""
        pairs = zip(lo, hi) if _face.is_bound_list(lo) else [(lo, hi)]
        mins, maxs = self._keys
        touched = inner = None
        for one_lo, one_hi in pairs:
            rng = _core._resolve_bounds(self._flat[:0], one_lo, one_hi, inclusive)[1]
            if rng is None:
                continue
            rlo, rhi = mins.dtype.type(rng[0]), mins.dtype.type(rng[1])
            meets = (maxs >= rlo) & (mins <= rhi)
            within = meets & (mins >= rlo) & (maxs <= rhi) if inside else None
            touched = meets if touched is None else touched | meets
            if inside:
                inner = within if inner is None else inner | within
        if touched is None:
            return None
        return touched, None if inner is None else inner & self._clean

    def _stretches(self, blocks: np.ndarray) -> List[Tuple[int, int]]:
        """The element ranges [start, stop) of the runs of `blocks` (a mask)."""
        n, b = self._flat.size, self.block
        return [(s * b, min(e * b, n)) for s, e in _runs(np.flatnonzero(blocks))]

    # ---- the queries -------------------------------------------------------------

    def _collect(self, fn: Any, lo: Any, hi: Any, kw: dict, positions: bool) -> np.ndarray:
        flat = self._flat
        fn(flat[:0], lo, hi, **kw)  # the caller's arguments, judged by the function itself
        # The whole array asked a range that holds nothing, which the binding
        # answers without reading it: `out` checked against all of `values`
        # (its size, its overlap), and the dtype the function gives for all of
        # them. For positions that dtype is the binding's (uint32 or int64 by
        # the whole length, not a stretch's), so every stretch is asked for it:
        # a stretch's positions plus its start then always fit.
        zero = np.zeros((), flat.dtype)[()]
        empty = fn(flat, zero, zero, **{**kw, "inclusive": "neither", "invert": False})
        invert = bool(kw["invert"])
        blocks = self._blocks(lo, hi, kw["inclusive"], inside=invert)
        if blocks is None:  # the range holds nothing: inverted, everything
            return fn(flat, lo, hi, **kw) if invert else empty
        touched, inside = blocks
        # Inverted, a block can hold a match unless it lies wholly inside the
        # range with no NaN/NaT; the blocks wholly outside are read like the rest.
        read = ~inside if invert else touched
        out = kw.pop("out")
        if positions and out is None:
            kw["index_dtype"] = empty.dtype
        pieces, done = [], 0
        for start, stop in self._stretches(read):
            dst = None if out is None else out[done:]
            got = fn(flat[start:stop], lo, hi, out=dst, **kw)
            if positions and start:
                got += got.dtype.type(start)
            done += got.size
            if out is None:
                pieces.append(got)
        if out is not None:
            return out[:done]
        if len(pieces) == 1:  # one stretch (every block, on data in random order): no copy
            return pieces[0]
        return np.concatenate(pieces) if pieces else empty

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
    ) -> np.ndarray:
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
            The values, in flat C order, exactly the function's.

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

        flat = self._flat
        kw = dict(inclusive=inclusive, threads=threads, invert=invert)
        count_in_range(flat[:0], lo, hi, **kw)  # the caller's arguments, judged by the function
        invert = bool(invert)
        blocks = self._blocks(lo, hi, inclusive, inside=True)
        if blocks is None:  # the range holds nothing: inverted, everything
            return flat.size if invert else 0
        touched, inside = blocks
        # Counted whole without being read: the blocks wholly inside (none of
        # their values outside, as none is NaN/NaT) or, inverted, those that
        # miss the range (every value outside, NaN/NaT among them).
        whole = ~touched if invert else inside
        total = sum(stop - start for start, stop in self._stretches(whole))
        for start, stop in self._stretches(touched & ~inside):
            total += count_in_range(flat[start:stop], lo, hi, **kw)
        return total


ZoneMap.__module__ = __name__.rpartition(".")[0]  # help() and repr name simdfilter.ZoneMap
