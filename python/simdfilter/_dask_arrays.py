"""Dask arrays for :mod:`simdfilter.dask`: the lazy functions and their task graphs.

Private: import the public names from ``simdfilter.dask``, which checks that dask
is installed (with a clear ImportError) before importing this module. The chunk
functions here run on the workers, which import this module to unpickle them.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

import simdfilter
from simdfilter import _core

__all__ = ["filter_indexes", "filter_values", "count_in_range"]

_INDEX_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64), np.dtype(np.uint64))


def _as_dask_array(x: Any, function: str) -> "da.Array":
    if not isinstance(x, da.Array):
        frame = _core._refused_column(x, f"simdfilter.dask.{function}", strings=False)
        if frame is not None:  # da.asarray would flatten its columns into one
            raise TypeError(frame)
        x = da.asarray(x)
    # A 0-d array has one position, 0, as np.flatnonzero says.
    return x.reshape((1,)) if x.ndim == 0 else x


def _validate(
    x: "da.Array", lo: Any, hi: Any, inclusive: str, invert: Optional[bool] = False
) -> None:
    """Raise now, not at compute time, for what every chunk would reject:
    an unsupported dtype, bounds of the wrong kind, a bad `inclusive` or `invert`."""
    empty = np.empty(0, dtype=x.dtype)
    simdfilter.count_in_range(empty, lo, hi, inclusive=inclusive, invert=invert)


def _c_strides(shape: Sequence[int]) -> List[int]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return strides[::-1]


def _offsets(chunks: Tuple[Tuple[int, ...], ...]) -> List[List[int]]:
    out = []
    for axis in chunks:
        acc, starts = 0, []
        for c in axis:
            starts.append(acc)
            acc += c
        out.append(starts)
    return out


def _known_sizes(x: "da.Array", what: str) -> None:
    if any(math.isnan(c) for axis in x.chunks for c in axis):
        raise ValueError(
            f"{what} needs the chunk sizes of the array, which are unknown here; "
            "call x.compute_chunk_sizes() first"
        )


def _chunk_indexes(block, lo, hi, inclusive, offsets, shape, out_dtype, invert=False):
    """Global positions of the matches of one chunk, in `out_dtype`."""
    strides = _c_strides(shape)
    start = sum(o * s for o, s in zip(offsets, strides))
    last = sum((o + c - 1) * s for o, c, s in zip(offsets, block.shape, strides))
    if block.size == 0:
        return np.empty(0, dtype=out_dtype)
    if last - start + 1 == block.size:
        # The chunk is one run of the flat order (every 1-d chunk, and N-d chunks
        # spanning all trailing axes): positions straight in the result dtype,
        # shifted in place.
        local = simdfilter.filter_indexes(
            block, lo, hi, inclusive=inclusive, index_dtype=out_dtype, invert=invert
        )
        if start:
            local += start
        return local
    local = simdfilter.filter_indexes(
        block, lo, hi, inclusive=inclusive, index_dtype=np.int64, invert=invert
    )
    return _unravel_to_global(local, block.shape, offsets, shape).astype(out_dtype, copy=False)


def _unravel_to_global(local, chunk_shape, offsets, shape):
    rows = np.unravel_index(local, chunk_shape)
    return np.ravel_multi_index(tuple(r + o for r, o in zip(rows, offsets)), shape)


def _chunk_values(block, lo, hi, inclusive, invert=False):
    return simdfilter.filter_values(block, lo, hi, inclusive=inclusive, invert=invert)


def _chunk_positions_and_values(block, lo, hi, inclusive, offsets, shape, invert=False):
    # Positions are needed to put the values of chunks that interleave in C
    # order back in order; the values are gathered from the positions, so the
    # chunk is still read by one simdfilter call.
    local = simdfilter.filter_indexes(
        block, lo, hi, inclusive=inclusive, index_dtype=np.int64, invert=invert
    )
    values = block[np.unravel_index(local, block.shape)]
    values = values.astype(values.dtype.newbyteorder("="), copy=False)
    return _unravel_to_global(local, block.shape, offsets, shape), values


def _merge_indexes(*parts: np.ndarray) -> np.ndarray:
    if len(parts) == 1:
        return parts[0]
    # Each part is sorted: a stable sort of their concatenation is a merge of runs.
    return np.sort(np.concatenate(parts), kind="stable")


def _merge_values(*parts: Tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    positions = np.concatenate([p for p, _ in parts])
    values = np.concatenate([v for _, v in parts])
    return values[np.argsort(positions, kind="stable")]


def _band_layout(x: "da.Array"):
    """Block indices grouped by band (blocks sharing a block along axis 0).

    Positions of different bands never interleave; positions of the blocks of
    one band do when the array is chunked along a trailing axis."""
    bands = []
    for b0 in range(x.numblocks[0]):
        bands.append([(b0,) + rest for rest in np.ndindex(*x.numblocks[1:])])
    return bands


def _result(graph_layers, name, nparts, dtype, deps) -> "da.Array":
    graph = HighLevelGraph.from_collections(name, graph_layers, dependencies=deps)
    dtype = np.dtype(dtype)
    return da.Array(
        graph, name, chunks=((np.nan,) * nparts,), dtype=dtype, meta=np.empty(0, dtype=dtype)
    )


def filter_indexes(
    x: Any,
    lo: Any,
    hi: Any,
    *,
    inclusive: str = "both",
    index_dtype: Optional[Any] = None,
    invert: Optional[bool] = False,
) -> "da.Array":
    """Lazy global positions of the elements of a Dask array in [lo, hi].

    Equal to ``np.flatnonzero((a >= lo) & (a <= hi))`` of the computed array
    ``a`` (with simdfilter's exact comparison semantics), without ever making
    its boolean mask: each chunk goes through one ``simdfilter.filter_indexes``
    call on the worker that holds it.

    Parameters
    ----------
    x : dask.array.Array or array_like
        Any shape and chunking; chunks may be Fortran-ordered, strided or
        byte-swapped. Every dtype ``simdfilter.filter_indexes`` supports. The
        chunk sizes must be known. Anything else goes through ``da.asarray``.
    lo, hi : scalar, None, or sequences of them
        The bounds, exactly as for ``simdfilter.filter_indexes`` (None is
        unbounded, NaN/NaT or ``lo > hi`` give an empty result; equal-length
        sequences: the elements in any of the ranges ``[lo[i], hi[i]]``).
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.
    index_dtype : dtype, optional
        int64 (the default: Dask arrays routinely pass 2**32 elements),
        uint64, or uint32 when ``x.size <= 2**32``.
    invert : bool or None, default False (None: False)
        True: the positions outside the range instead,
        ``np.flatnonzero(~((a >= lo) & (a <= hi)))`` (NaN and NaT kept), in
        the same one call per chunk.

    Returns
    -------
    dask.array.Array
        1-d, ascending flat C-order positions, chunks of unknown length (one per
        chunk of `x`, or one per block along the first axis when `x` is also
        chunked along a trailing axis, see Notes).

    Raises
    ------
    TypeError
        Unsupported dtype or bounds of the wrong kind (raised here, not at
        compute time).
    ValueError
        Bad `inclusive` or `index_dtype`, or unknown chunk sizes.

    Notes
    -----
    Blocks that share a block along axis 0 but differ along a trailing axis
    interleave in C order; their positions are merged (a stable sort of sorted
    runs) in one task per such band. Chunk along the first axis only to avoid
    that step.

    Examples
    --------
    >>> import dask.array as da, simdfilter.dask as sfd
    >>> x = da.from_array([[5, 1, 7], [3, 9, 2]], chunks=(1, 2))
    >>> sfd.filter_indexes(x, 2, 7).compute()
    array([0, 2, 3, 5])
    """
    x = _as_dask_array(x, "filter_indexes")
    _validate(x, lo, hi, inclusive, invert)
    out_dtype = np.dtype(np.int64 if index_dtype is None else index_dtype)
    if out_dtype not in _INDEX_DTYPES:
        raise ValueError(f"index_dtype must be one of int64, uint64, uint32, not {out_dtype!r}")
    _known_sizes(x, "filter_indexes")
    if x.size > int(np.iinfo(out_dtype).max) + 1:
        raise ValueError(f"{x.size} elements do not fit {out_dtype} positions; use int64")
    token = tokenize(x, lo, hi, inclusive, out_dtype, invert)
    name = "sf-filter-indexes-" + token
    chunk_name = "sf-chunk-indexes-" + token
    offsets = _offsets(x.chunks)
    bands = _band_layout(x)
    layer: Dict[Any, Any] = {}
    merge = len(bands[0]) > 1
    n = 0
    for i, band in enumerate(bands):
        keys = []
        for b in band:
            offs = tuple(offsets[k][b[k]] for k in range(x.ndim))
            key = (chunk_name, n) if merge else (name, i)
            n += 1
            layer[key] = (
                _chunk_indexes,
                (x.name,) + b,
                lo,
                hi,
                inclusive,
                offs,
                x.shape,
                out_dtype,
                invert,
            )
            keys.append(key)
        if merge:
            layer[(name, i)] = (_merge_indexes,) + tuple(keys)
    return _result(layer, name, len(bands), out_dtype, [x])


def filter_values(
    x: Any,
    lo: Any,
    hi: Any,
    *,
    inclusive: str = "both",
    invert: Optional[bool] = False,
) -> "da.Array":
    """Lazy values of a Dask array that lie in [lo, hi], in flat C order.

    Equal to ``a[(a >= lo) & (a <= hi)]`` of the computed array ``a`` (ravelled in
    C order), through one ``simdfilter.filter_values`` call per chunk.

    Parameters
    ----------
    x : dask.array.Array or array_like
        As for :func:`filter_indexes`. 1-d arrays may have unknown chunk sizes
        (e.g. the result of another filter).
    lo, hi : scalar, None, or sequences of them
        The bounds, as for ``simdfilter.filter_values``.
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.
    invert : bool or None, default False (None: False)
        True: the values outside the range, ``a[~((a >= lo) & (a <= hi))]``.

    Returns
    -------
    dask.array.Array
        1-d, the dtype of `x` in native byte order, chunks of unknown length.

    Raises
    ------
    TypeError, ValueError
        As :func:`filter_indexes`.

    Examples
    --------
    >>> import dask.array as da, simdfilter.dask as sfd
    >>> x = da.from_array([5.0, 1.0, float("nan"), 3.0], chunks=2)
    >>> sfd.filter_values(x, 2, None).compute()
    array([5., 3.])
    """
    x = _as_dask_array(x, "filter_values")
    _validate(x, lo, hi, inclusive, invert)
    out_dtype = x.dtype.newbyteorder("=")
    token = tokenize(x, lo, hi, inclusive, invert)
    name = "sf-filter-values-" + token
    bands = _band_layout(x)
    layer: Dict[Any, Any] = {}
    if len(bands[0]) == 1:
        for i, band in enumerate(bands):
            layer[(name, i)] = (_chunk_values, (x.name,) + band[0], lo, hi, inclusive, invert)
    else:
        _known_sizes(x, "filter_values on an array chunked along a trailing axis")
        chunk_name = "sf-chunk-values-" + token
        offsets = _offsets(x.chunks)
        n = 0
        for i, band in enumerate(bands):
            keys = []
            for b in band:
                offs = tuple(offsets[k][b[k]] for k in range(x.ndim))
                layer[(chunk_name, n)] = (
                    _chunk_positions_and_values,
                    (x.name,) + b,
                    lo,
                    hi,
                    inclusive,
                    offs,
                    x.shape,
                    invert,
                )
                keys.append((chunk_name, n))
                n += 1
            layer[(name, i)] = (_merge_values,) + tuple(keys)
    return _result(layer, name, len(bands), out_dtype, [x])


def _chunk_count(block, axis=None, keepdims=True, *, lo, hi, inclusive, invert=False):
    n = simdfilter.count_in_range(block, lo, hi, inclusive=inclusive, invert=invert)
    return np.full((1,) * block.ndim, n, dtype=np.int64)


def _sum_counts(counts, axis=None, keepdims=False):
    return np.sum(counts, axis=axis, keepdims=keepdims, dtype=np.int64)


def count_in_range(
    x: Any,
    lo: Any,
    hi: Any,
    *,
    inclusive: str = "both",
    split_every: Optional[int] = None,
    invert: Optional[bool] = False,
) -> "da.Array":
    """Lazy number of elements of a Dask array in [lo, hi].

    One ``simdfilter.count_in_range`` call per chunk (which allocates nothing),
    the counts summed by a tree reduction.

    Parameters
    ----------
    x : dask.array.Array or array_like
        Any shape, chunking (known or unknown sizes) and supported dtype.
    lo, hi : scalar, None, or sequences of them
        The bounds, as for ``simdfilter.count_in_range``.
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.
    split_every : int, optional
        Fan-in of the reduction tree (Dask's default when None).
    invert : bool or None, default False (None: False)
        True: how many lie outside the range (NaN and NaT included).

    Returns
    -------
    dask.array.Array
        0-d, int64.

    Examples
    --------
    >>> import dask.array as da, simdfilter.dask as sfd
    >>> sfd.count_in_range(da.arange(100, chunks=10), 10, 20, inclusive="left").compute()
    np.int64(10)
    """
    x = _as_dask_array(x, "count_in_range")
    _validate(x, lo, hi, inclusive, invert)
    chunk = functools.partial(_chunk_count, lo=lo, hi=hi, inclusive=inclusive, invert=invert)
    return da.reduction(
        x,
        chunk,
        _sum_counts,
        combine=_sum_counts,
        axis=None,
        keepdims=False,
        dtype=np.int64,
        split_every=split_every,
        name="sf-count-in-range",
        meta=np.empty((), dtype=np.int64),
    )
