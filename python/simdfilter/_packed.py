"""Packed: a column bit-packed by frame of reference per block, which answers
range queries by reading its packed words, not the raw array.

Per block of ``block`` values the column keeps the block's least value (its
reference), its greatest offset above it and that offset's bit width; the
offsets follow, ``width`` bits each, in interleaved lanes that a vector unpacks
by shifts and masks in its registers (``csrc/kernels/packed.h``). A query
resolves its bounds exactly as the functions do
(:func:`simdfilter._core._resolve_bounds`, the library's rule), and the C
library (``csrc/lib/packed.c``) translates the range into each block's own
offsets once: a block wholly outside is skipped, one wholly inside taken whole
without reading its words, and the others compared lane by lane, packed.
"""

from __future__ import annotations

import types
from typing import Any, Optional, Tuple

import numpy as np

from . import _core, _face

DEFAULT_BLOCK = 4096

# The parts' order, as _core._packed_build gives them: per-block reference,
# greatest offset, bit width, start of its words in data (one more: the end),
# and the words.
_Parts = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]

_OP_COUNT, _OP_INDEXES, _OP_VALUES, _OP_MASK = 0, 1, 2, 3


def _storage(dtype: np.dtype) -> np.dtype:
    """The native integer dtype the values are packed as: bools as uint8,
    datetime64/timedelta64 as int64 ticks, integers as themselves. Refuses
    floats (saying why) and every other kind."""
    if dtype.kind == "f":
        raise TypeError(
            f"Packed packs integers, not {dtype}: float bits (even as an order-preserving "
            "integer image) span most of their width within a block unless the values "
            "are nearly equal, so they would not pack; store them as scaled integers "
            "(cents, ticks, ...) to pack them"
        )
    if dtype.kind == "b":
        return np.dtype(np.uint8)
    if dtype.kind in "Mm":
        return np.dtype(np.int64)
    if dtype.kind in "iu":
        return dtype.newbyteorder("=")
    raise TypeError(f"Packed packs bool, integer, datetime64 and timedelta64 data, not {dtype}")


def _rebuild(dtype: np.dtype, shape: Tuple[int, ...], block: int, parts: _Parts) -> "Packed":
    """A Packed from its pickled state (checked by every query in C)."""
    p = Packed.__new__(Packed)
    p._set(dtype, shape, block, tuple(parts))  # type: ignore[arg-type]
    return p


class Packed:
    """A column bit-packed by frame of reference per block, queried packed.

    ``p = Packed(values)`` packs `values` once; ``p.count_in_range(lo, hi)``,
    ``p.filter_indexes(lo, hi)``, ``p.filter_values(lo, hi)`` and
    ``p.in_range(lo, hi)`` then give the answers of the functions of those
    names on `values`, reading the packed words instead of the raw array: a
    column whose values lie close together within each block (counters, ids,
    sensor readings, delays, timestamps in seconds stored as int64) takes a
    fraction of its memory, and a scan that is bound by memory reads that
    fraction. Each block's range is translated into the block's own offsets
    once: a block wholly outside the range is skipped, one wholly inside taken
    whole without being read, and the others unpacked and compared in vector
    registers (AVX2 and AVX-512 kernels; the scalar twin elsewhere, NEON and
    SVE included in this version).

    Parameters
    ----------
    values : numpy.ndarray
        bool, int8..uint64, datetime64 or timedelta64 data, of any shape
        (positions are flat, in C order, as in the functions) and byte order.
        The values are copied in packed form: `values` is not kept. Floats are
        refused: their bits, even as an order-preserving integer image, span
        most of their width within a block unless the values are nearly
        equal, so they would not pack.
    block : int, default 4096
        Values per block: a multiple of 1024, at most 65536. Each block costs
        25 bytes besides its words, and a block the range cuts a call of the
        packed kernel (64 Mi uint32 of 12-bit span, AMD Zen 4: count_in_range
        1.36x the raw scan's speed at 1024, 1.9x at 8192); smaller blocks pack
        data that drifts (timestamps) tighter and skip more.

    Attributes
    ----------
    dtype : numpy.dtype
        The values' dtype (in native byte order).
    shape : tuple of int
        The values' shape.
    size : int
        How many values.
    block : int
        Values per block.
    nbytes : int
        Memory the packed column takes, words and per-block data.

    Raises
    ------
    TypeError
        `values` is not a NumPy array, or holds floats (see above) or any other
        kind than bool, integers, datetime64 and timedelta64.
    ValueError
        `block` is not a multiple of 1024 from 1024 to 65536.

    Notes
    -----
    The queries take the functions' `inclusive` and `invert` (NaT kept when
    inverted, as the functions keep it), one range at a time, on one thread;
    several ranges, `within`, `out` and `threads` are for a later version.

    Examples
    --------
    >>> import numpy as np, simdfilter
    >>> t = np.arange(1_000_000, dtype=np.int64) * 3 + 10**12  # rising ids
    >>> p = simdfilter.Packed(t)
    >>> p.nbytes < t.nbytes // 4  # 14-bit offsets of 64-bit values
    True
    >>> p.count_in_range(10**12, 10**12 + 2999) == simdfilter.count_in_range(t, 10**12, 10**12 + 2999)
    True
    >>> np.array_equal(p.to_numpy(), t)
    True
    """

    __class_getitem__ = classmethod(types.GenericAlias)
    __slots__ = ("dtype", "shape", "size", "block", "_storage", "_parts", "_empty", "_lowest")

    def __init__(self, values: np.ndarray, block: int = DEFAULT_BLOCK) -> None:
        if not isinstance(values, np.ndarray) or isinstance(values, np.ma.MaskedArray):
            raise TypeError(
                f"Packed takes a NumPy array in this version, not {type(values).__name__} "
                "(pass np.asarray(values) for a column without nulls)"
            )
        if isinstance(block, bool) or not isinstance(block, (int, np.integer)):
            raise TypeError(f"block must be an int, not {type(block).__name__}")
        dtype = values.dtype.newbyteorder("=")
        storage = _storage(values.dtype)
        flat = np.ascontiguousarray(values.reshape(-1).astype(dtype, copy=False)).view(storage)
        self._set(dtype, values.shape, int(block), _core._packed_build(flat, int(block)))

    def _set(self, dtype: np.dtype, shape: Tuple[int, ...], block: int, parts: _Parts) -> None:
        self.dtype = np.dtype(dtype)
        self.shape = tuple(int(s) for s in shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.block = block
        self._storage = _storage(self.dtype)
        self._parts = parts
        self._empty = np.zeros(0, self.dtype)
        info = np.iinfo(self._storage)
        self._lowest = int(info.min)

    def __reduce__(self) -> Any:
        return (_rebuild, (self.dtype, self.shape, self.block, self._parts))

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 1

    @property
    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self._parts)

    def __repr__(self) -> str:
        raw = self.size * self.dtype.itemsize
        ratio = f"{self.nbytes / raw:.3f}x" if raw else "-"
        return (
            f"Packed({self.size:,} values of {self.dtype}, blocks of {self.block:,}, "
            f"{self.nbytes:,} bytes, {ratio} the raw array)"
        )

    def to_numpy(self) -> np.ndarray:
        """The values, exactly as packed: dtype and shape of the array given.

        Returns
        -------
        numpy.ndarray
            A new array (native byte order).
        """
        got = _core._packed_decode(self._parts, self._storage, self.size, self.block)
        return got.view(self.dtype).reshape(self.shape)

    # ---- the queries ---------------------------------------------------------------

    def _query(self, op: int, lo: Any, hi: Any, inclusive: str, invert: Optional[bool]) -> Any:
        from . import count_in_range

        if _face.is_bound_list(lo) or _face.is_bound_list(hi):
            raise TypeError(
                "Packed takes one range (lo, hi) in this version, not sequences of them"
            )
        # The caller's arguments judged by the function, in its words.
        count_in_range(self._empty, lo, hi, inclusive=inclusive, invert=invert)
        rng = _core._resolve_bounds(self._empty, lo, hi, inclusive)[1]
        ends = (None, None) if rng is None else (rng[0] - self._lowest, rng[1] - self._lowest)
        return _core._packed_query(
            self._parts, self._storage, self.size, self.block, op, *ends, bool(invert)
        )

    def count_in_range(
        self, lo: Any, hi: Any, *, inclusive: str = "both", invert: Optional[bool] = False
    ) -> int:
        """How many values are in range: ``simdfilter.count_in_range(values, lo, hi, ...)``.

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds, as `simdfilter.count_in_range` takes them (None:
            unbounded on that side).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        invert : bool or None, default False (None: False)
            True: how many lie outside the range, NaT included.

        Returns
        -------
        int
            The function's count.

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.count_in_range` raises them for the same
            arguments; a TypeError for sequences of bounds.
        """
        return int(self._query(_OP_COUNT, lo, hi, inclusive, invert))

    def filter_indexes(
        self, lo: Any, hi: Any, *, inclusive: str = "both", invert: Optional[bool] = False
    ) -> np.ndarray:
        """Positions of the values in range: ``simdfilter.filter_indexes(values, lo, hi, ...)``.

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds, as `simdfilter.filter_indexes` takes them.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        invert : bool or None, default False (None: False)
            True: the positions of the values outside the range, NaT included.

        Returns
        -------
        numpy.ndarray
            Ascending flat positions, the function's: uint32 below 2**32
            values, int64 from there.

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.filter_indexes` raises them for the same
            arguments; a TypeError for sequences of bounds.
        """
        return self._query(_OP_INDEXES, lo, hi, inclusive, invert)  # type: ignore[no-any-return]

    def filter_values(
        self, lo: Any, hi: Any, *, inclusive: str = "both", invert: Optional[bool] = False
    ) -> np.ndarray:
        """The values in range: ``simdfilter.filter_values(values, lo, hi, ...)``.

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds, as `simdfilter.filter_values` takes them.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        invert : bool or None, default False (None: False)
            True: the values outside the range, NaT included.

        Returns
        -------
        numpy.ndarray
            The values in flat C order, of the column's dtype.

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.filter_values` raises them for the same arguments;
            a TypeError for sequences of bounds.
        """
        got = self._query(_OP_VALUES, lo, hi, inclusive, invert)
        return got.view(self.dtype)  # type: ignore[no-any-return]

    def in_range(
        self, lo: Any, hi: Any, *, inclusive: str = "both", invert: Optional[bool] = False
    ) -> np.ndarray:
        """A bool array, True where the value is in range: ``simdfilter.in_range(values, lo, hi, ...)``.

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds, as `simdfilter.in_range` takes them.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
            Which bounds are part of the range.
        invert : bool or None, default False (None: False)
            True: True where the value is outside the range, NaT included.

        Returns
        -------
        numpy.ndarray
            bool, of the column's shape.

        Raises
        ------
        TypeError, ValueError
            As `simdfilter.in_range` raises them for the same arguments; a
            TypeError for sequences of bounds.
        """
        got = self._query(_OP_MASK, lo, hi, inclusive, invert)
        return got.reshape(self.shape)  # type: ignore[no-any-return]


Packed.__module__ = __name__.rpartition(".")[0]  # help() and repr name simdfilter.Packed
