"""simdfilter on Dask arrays and DataFrames: each chunk filtered where it lives.

>>> import dask.array as da, simdfilter.dask as sfd
>>> x = da.arange(1_000_000, chunks=250_000).astype("uint32")
>>> sfd.count_in_range(x, 10, 19).compute()
np.int64(10)
>>> sfd.filter_indexes(x, 999_998, None).compute()
array([999998, 999999])

Every function is lazy and builds one task per chunk (one ``simdfilter`` call
on the chunk, on whichever worker holds it) plus the assembly; no task ever
makes a boolean mask of the data's size, and no chunk travels to the client.

Functions
---------
filter_indexes   global flat C-order positions of the values in range
filter_values    the values in range, in flat C order
count_in_range   how many values are in range (a tree reduction)

Importing this module also registers the ``sf`` accessor on Dask DataFrames and
Series (when ``dask.dataframe`` is importable): ``ds.sf.between``,
``ds.sf.filter``, ``ds.sf.count``, ``ddf.sf.filter(**ranges)`` and
``ddf.sf.count(**ranges)``. See :class:`SeriesAccessor` and
:class:`DataFrameAccessor`. They run this module's own per-partition functions
(``simdfilter.filter_indexes`` / ``count_in_range`` on each partition's NumPy
data), with pandas' own comparisons for the column kinds the kernels cannot
read yet (nullable, Arrow-backed, tz-aware, strings, object...), so their
results are always pandas'.

Install with ``pip install 'simdfilter[dask]'``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

try:
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "simdfilter.dask needs the 'dask' package (with dask.array): "
        "pip install 'simdfilter[dask]'"
    ) from exc

import simdfilter

__all__ = ["filter_indexes", "filter_values", "count_in_range"]

_INCLUSIVE = ("both", "left", "right", "neither")
_INDEX_DTYPES = (np.dtype(np.uint32), np.dtype(np.int64), np.dtype(np.uint64))


# --------------------------------------------------------------------------
# Arrays
# --------------------------------------------------------------------------


def _as_dask_array(x: Any) -> "da.Array":
    if not isinstance(x, da.Array):
        x = da.asarray(x)
    # A 0-d array has one position, 0, as np.flatnonzero says.
    return x.reshape((1,)) if x.ndim == 0 else x


def _validate(x: "da.Array", lo: Any, hi: Any, inclusive: str) -> None:
    """Raise now, not at compute time, for what every chunk would reject:
    an unsupported dtype, bounds of the wrong kind, a bad `inclusive`."""
    simdfilter.count_in_range(np.empty(0, dtype=x.dtype), lo, hi, inclusive=inclusive)


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


def _chunk_indexes(block, lo, hi, inclusive, offsets, shape, out_dtype):
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
        local = simdfilter.filter_indexes(block, lo, hi, inclusive=inclusive, index_dtype=out_dtype)
        if start:
            local += start
        return local
    local = simdfilter.filter_indexes(block, lo, hi, inclusive=inclusive, index_dtype=np.int64)
    return _unravel_to_global(local, block.shape, offsets, shape).astype(out_dtype, copy=False)


def _unravel_to_global(local, chunk_shape, offsets, shape):
    rows = np.unravel_index(local, chunk_shape)
    return np.ravel_multi_index(tuple(r + o for r, o in zip(rows, offsets)), shape)


def _chunk_values(block, lo, hi, inclusive):
    return simdfilter.filter_values(block, lo, hi, inclusive=inclusive)


def _chunk_positions_and_values(block, lo, hi, inclusive, offsets, shape):
    # Positions are needed to put the values of chunks that interleave in C
    # order back in order; the values are gathered from the positions, so the
    # chunk is still read by one simdfilter call.
    local = simdfilter.filter_indexes(block, lo, hi, inclusive=inclusive, index_dtype=np.int64)
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
    return da.Array(graph, name, chunks=((np.nan,) * nparts,), dtype=dtype,
                    meta=np.empty(0, dtype=dtype))


def filter_indexes(
    x: Any,
    lo: Any,
    hi: Any,
    *,
    inclusive: str = "both",
    index_dtype: Optional[Any] = None,
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
    lo, hi : scalar or None
        The bounds, exactly as for ``simdfilter.filter_indexes`` (None is
        unbounded, NaN/NaT or ``lo > hi`` give an empty result).
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.
    index_dtype : dtype, optional
        int64 (the default: Dask arrays routinely pass 2**32 elements),
        uint64, or uint32 when ``x.size <= 2**32``.

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
    x = _as_dask_array(x)
    _validate(x, lo, hi, inclusive)
    out_dtype = np.dtype(np.int64 if index_dtype is None else index_dtype)
    if out_dtype not in _INDEX_DTYPES:
        raise ValueError(f"index_dtype must be one of int64, uint64, uint32, not {out_dtype!r}")
    _known_sizes(x, "filter_indexes")
    if x.size > int(np.iinfo(out_dtype).max) + 1:
        raise ValueError(f"{x.size} elements do not fit {out_dtype} positions; use int64")
    token = tokenize(x, lo, hi, inclusive, out_dtype)
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
            layer[key] = (_chunk_indexes, (x.name,) + b, lo, hi, inclusive, offs, x.shape, out_dtype)
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
) -> "da.Array":
    """Lazy values of a Dask array that lie in [lo, hi], in flat C order.

    Equal to ``a[(a >= lo) & (a <= hi)]`` of the computed array ``a`` (ravelled in
    C order), through one ``simdfilter.filter_values`` call per chunk.

    Parameters
    ----------
    x : dask.array.Array or array_like
        As for :func:`filter_indexes`. 1-d arrays may have unknown chunk sizes
        (e.g. the result of another filter).
    lo, hi : scalar or None
        The bounds, as for ``simdfilter.filter_values``.
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.

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
    x = _as_dask_array(x)
    _validate(x, lo, hi, inclusive)
    out_dtype = x.dtype.newbyteorder("=")
    token = tokenize(x, lo, hi, inclusive)
    name = "sf-filter-values-" + token
    bands = _band_layout(x)
    layer: Dict[Any, Any] = {}
    if len(bands[0]) == 1:
        for i, band in enumerate(bands):
            layer[(name, i)] = (_chunk_values, (x.name,) + band[0], lo, hi, inclusive)
    else:
        _known_sizes(x, "filter_values on an array chunked along a trailing axis")
        chunk_name = "sf-chunk-values-" + token
        offsets = _offsets(x.chunks)
        n = 0
        for i, band in enumerate(bands):
            keys = []
            for b in band:
                offs = tuple(offsets[k][b[k]] for k in range(x.ndim))
                layer[(chunk_name, n)] = (_chunk_positions_and_values, (x.name,) + b,
                                          lo, hi, inclusive, offs, x.shape)
                keys.append((chunk_name, n))
                n += 1
            layer[(name, i)] = (_merge_values,) + tuple(keys)
    return _result(layer, name, len(bands), out_dtype, [x])


def _chunk_count(block, axis=None, keepdims=True, *, lo, hi, inclusive):
    n = simdfilter.count_in_range(block, lo, hi, inclusive=inclusive)
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
) -> "da.Array":
    """Lazy number of elements of a Dask array in [lo, hi].

    One ``simdfilter.count_in_range`` call per chunk (which allocates nothing),
    the counts summed by a tree reduction.

    Parameters
    ----------
    x : dask.array.Array or array_like
        Any shape, chunking (known or unknown sizes) and supported dtype.
    lo, hi : scalar or None
        The bounds, as for ``simdfilter.count_in_range``.
    inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        Which bounds belong to the range.
    split_every : int, optional
        Fan-in of the reduction tree (Dask's default when None).

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
    x = _as_dask_array(x)
    _validate(x, lo, hi, inclusive)
    chunk = functools.partial(_chunk_count, lo=lo, hi=hi, inclusive=inclusive)
    return da.reduction(
        x, chunk, _sum_counts, combine=_sum_counts, axis=None, keepdims=False,
        dtype=np.int64, split_every=split_every, name="sf-count-in-range",
        meta=np.empty((), dtype=np.int64),
    )


# --------------------------------------------------------------------------
# DataFrames: the `sf` accessor
# --------------------------------------------------------------------------


class _Fallback(Exception):
    """This column/bound combination goes to pandas' own comparisons."""


def _lossless(src: np.dtype, dst: np.dtype) -> bool:
    """Whether every value of `src` is exactly a value of `dst`."""
    if src == dst or src.kind == "b":
        return True
    if src.kind in "iu" and dst.kind in "iu":
        return bool(np.can_cast(src, dst, "safe"))
    if src.kind in "iu" and dst.kind == "f":
        bits = src.itemsize * 8 - (src.kind == "i")
        return bits <= np.finfo(dst).nmant + 1
    if src.kind == "f" and dst.kind == "f":
        return dst.itemsize >= src.itemsize
    return False


def _exactly_in(value: Any, dtype: np.dtype) -> bool:
    with np.errstate(all="ignore"):
        try:
            cast = dtype.type(value)
        except (OverflowError, ValueError, TypeError):
            return False
    if dtype.kind == "f":
        if not np.isfinite(cast):
            return bool(np.isinf(cast)) and cast == value
        return Fraction(float(cast)) == Fraction(value)
    return int(cast) == value


def _numeric_bound(dtype: np.dtype, value: Any) -> Any:
    """The bound, if NumPy's comparison of this column with it is exact (then it
    equals simdfilter's); otherwise _Fallback."""
    if isinstance(value, (np.timedelta64, np.datetime64)) or not isinstance(
        value, (bool, int, float, np.bool_, np.integer, np.floating)
    ):
        raise _Fallback
    if type(value) is int and dtype.kind in "biu" and np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        # NumPy 2 compares integer arrays with Python ints exactly, in range or not.
        return value
    try:
        with np.errstate(all="ignore"):
            rt = np.result_type(dtype, value)
    except (OverflowError, TypeError, ValueError):
        raise _Fallback from None
    if not (_lossless(dtype, rt) and _exactly_in(value, rt)):
        raise _Fallback
    return value


def _time_bound(dtype: np.dtype, value: Any) -> Any:
    import pandas as pd

    unit = np.datetime_data(dtype)[0]
    if dtype.kind == "M":
        if not isinstance(value, (str, pd.Timestamp, np.datetime64)) and not (
            hasattr(value, "hour") and hasattr(value, "year")  # datetime.datetime, not date
        ):
            raise _Fallback
        try:
            ts = pd.Timestamp(value)
        except (ValueError, TypeError, OverflowError):
            raise _Fallback from None
        if ts is pd.NaT or ts.tz is not None:
            raise _Fallback
        raw = ts.to_datetime64()
    else:
        if not isinstance(value, (str, pd.Timedelta, np.timedelta64)) and not (
            hasattr(value, "total_seconds")  # datetime.timedelta
        ):
            raise _Fallback
        try:
            ts = pd.Timedelta(value)
        except (ValueError, TypeError, OverflowError):
            raise _Fallback from None
        if ts is pd.NaT:
            raise _Fallback
        raw = ts.to_timedelta64()
    # Only bounds the column's unit holds exactly: no question of how pandas rounds.
    try:
        with np.errstate(all="ignore"):
            same = raw.astype(f"{dtype.kind}8[{unit}]")
        if same.astype(raw.dtype) != raw:
            raise _Fallback
    except (OverflowError, ValueError):
        raise _Fallback from None
    return same


def _kernel_bounds(dtype: Any, lo: Any, hi: Any, none_unbounded: bool) -> Tuple[Any, Any]:
    """Bounds for simdfilter that give exactly pandas' answer on this column, or
    _Fallback when only pandas itself can say (extension dtypes: nullable,
    tz-aware, Arrow, categorical...; object and string columns; bounds that
    NumPy would compare after a lossy conversion)."""
    if not isinstance(dtype, np.dtype) or dtype.kind not in "biufmM" or dtype == np.float16:
        raise _Fallback
    out = []
    for value in (lo, hi):
        if value is None:
            if not none_unbounded:
                raise _Fallback
            out.append(None)
        elif dtype.kind in "mM":
            out.append(_time_bound(dtype, value))
        else:
            out.append(_numeric_bound(dtype, value))
    return out[0], out[1]


def _check_inclusive(inclusive: Any) -> None:
    if inclusive not in _INCLUSIVE:
        # pandas' own message for Series.between.
        raise ValueError("Inclusive has to be either string of 'both','left', 'right', or 'neither'.")


def _pandas_mask(s, lo, hi, inclusive) -> np.ndarray:
    """pandas' own answer as a NumPy bool array (NA -> no match), None unbounded."""
    _check_inclusive(inclusive)
    if lo is not None and hi is not None:
        m = s.between(lo, hi, inclusive=inclusive)
    else:
        m = s.notna()
        if lo is not None:
            m = m & ((s >= lo) if inclusive in ("both", "left") else (s > lo))
        if hi is not None:
            m = m & ((s <= hi) if inclusive in ("both", "right") else (s < hi))
    return m.to_numpy(dtype=bool, na_value=False)


def _series_positions(s, lo, hi, inclusive) -> np.ndarray:
    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=True)
    except _Fallback:
        return np.flatnonzero(_pandas_mask(s, lo, hi, inclusive))
    _check_inclusive(inclusive)
    return simdfilter.filter_indexes(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)


def _partition_between(s, lo, hi, inclusive):
    import pandas as pd

    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=False)
    except _Fallback:
        return s.between(lo, hi, inclusive=inclusive)
    _check_inclusive(inclusive)
    mask = np.zeros(len(s), dtype=bool)
    mask[simdfilter.filter_indexes(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)] = True
    return pd.Series(mask, index=s.index, name=s.name, copy=False)


def _partition_filter(s, lo, hi, inclusive):
    return s.iloc[_series_positions(s, lo, hi, inclusive)]


def _partition_count(s, lo, hi, inclusive) -> int:
    try:
        klo, khi = _kernel_bounds(s.dtype, lo, hi, none_unbounded=True)
    except _Fallback:
        return int(np.count_nonzero(_pandas_mask(s, lo, hi, inclusive)))
    _check_inclusive(inclusive)
    return simdfilter.count_in_range(s.to_numpy(copy=False), klo, khi, inclusive=inclusive)


def _frame_positions(df, ranges, inclusive) -> np.ndarray:
    """Rows where every column is in its range: the first range over the whole
    column, each further one only on the values at the surviving positions."""
    positions: Optional[np.ndarray] = None
    for column, (lo, hi) in ranges.items():
        s = df[column]
        if positions is None:
            positions = _series_positions(s, lo, hi, inclusive).astype(np.int64, copy=False)
        else:
            survivors = s.iloc[positions]
            positions = positions[_series_positions(survivors, lo, hi, inclusive)]
    if positions is None:
        return np.arange(len(df), dtype=np.int64)
    return positions


def _partition_frame_filter(df, ranges, inclusive):
    return df.iloc[_frame_positions(df, ranges, inclusive)]


def _partition_frame_count(df, ranges, inclusive) -> int:
    return int(_frame_positions(df, ranges, inclusive).size)


def _sum_partition_counts(counts):
    return np.int64(np.sum(np.asarray(counts, dtype=np.int64)))


def _ranges(columns, ranges: Dict[str, Any]) -> Dict[str, Tuple[Any, Any]]:
    out = {}
    for column, bounds in ranges.items():
        if column not in columns:
            raise KeyError(column)
        if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
            raise TypeError(f"the range of {column!r} must be a (lo, hi) pair, not {bounds!r}")
        out[column] = (bounds[0], bounds[1])
    return out


class SeriesAccessor:
    """``ds.sf``: simdfilter verbs on a Dask Series, one kernel call per partition.

    Columns of a NumPy dtype simdfilter reads (bool, integers, float32/64,
    datetime64, timedelta64) are accelerated. Everything else (pandas nullable
    and Arrow-backed columns, tz-aware datetimes, categoricals, strings, object)
    and any bound NumPy would compare after a lossy conversion (a float bound on
    int64 data, say) is computed by pandas' own comparisons on that partition,
    so results are always what pandas gives.
    """

    def __init__(self, series: Any) -> None:
        self._s = series

    def between(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """Drop-in for ``ds.between(lo, hi, inclusive)``.

        Parameters
        ----------
        lo, hi : scalar
            The bounds, as pandas takes them (a None bound gives what pandas gives).
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe.Series
            The same values, dtype, index and name as ``Series.between``.
        """
        s = self._s
        meta = _partition_between(s._meta, lo, hi, inclusive)  # raises what pandas raises
        return s.map_partitions(_partition_between, lo, hi, inclusive, meta=meta)

    def filter(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """The elements in range, as ``ds[ds.between(lo, hi, inclusive)]`` (index kept).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe.Series
        """
        s = self._s
        _partition_filter(s._meta, lo, hi, inclusive)
        return s.map_partitions(_partition_filter, lo, hi, inclusive, meta=s._meta)

    def count(self, lo: Any, hi: Any, inclusive: str = "both") -> Any:
        """How many elements are in range (lazy scalar, a tree reduction).

        Parameters
        ----------
        lo, hi : scalar or None
            The bounds; None is unbounded on that side.
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'

        Returns
        -------
        dask.dataframe Scalar
            Computes to an int64.
        """
        s = self._s
        _partition_count(s._meta, lo, hi, inclusive)
        return s.reduction(
            chunk=_partition_count, aggregate=_sum_partition_counts,
            chunk_kwargs=dict(lo=lo, hi=hi, inclusive=inclusive), meta=np.int64(0),
        )


class DataFrameAccessor:
    """``ddf.sf``: range queries over several columns of a Dask DataFrame.

    Each partition evaluates the conjunction without boolean masks: the first
    range through the kernel over its column, each further one only on the
    values at the surviving positions. Column kinds and fallbacks as
    :class:`SeriesAccessor`.
    """

    def __init__(self, frame: Any) -> None:
        self._df = frame

    def filter(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> Any:
        """The rows where every named column is in its range.

        Equal to ``ddf[ddf.a.between(*ra) & ddf.b.between(*rb)]``, with a None
        end unbounded.

        Parameters
        ----------
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        **ranges : (lo, hi)
            ``column=(lo, hi)`` for each column to restrict.

        Returns
        -------
        dask.dataframe.DataFrame

        Examples
        --------
        >>> ddf.sf.filter(dep_delay=(15, 60), time_hour=("2013-03-01", "2013-04-01"))  # doctest: +SKIP
        """
        df = self._df
        ranges = _ranges(df.columns, ranges)
        _partition_frame_filter(df._meta, ranges, inclusive)
        return df.map_partitions(_partition_frame_filter, ranges, inclusive, meta=df._meta)

    def count(self, inclusive: str = "both", **ranges: Tuple[Any, Any]) -> Any:
        """How many rows :meth:`filter` keeps (lazy scalar, a tree reduction).

        Parameters
        ----------
        inclusive : {'both', 'left', 'right', 'neither'}, default 'both'
        **ranges : (lo, hi)

        Returns
        -------
        dask.dataframe Scalar
        """
        df = self._df
        ranges = _ranges(df.columns, ranges)
        _partition_frame_count(df._meta, ranges, inclusive)
        return df.reduction(
            chunk=_partition_frame_count, aggregate=_sum_partition_counts,
            chunk_kwargs=dict(ranges=ranges, inclusive=inclusive), meta=np.int64(0),
        )


def _register_accessors() -> bool:
    try:
        from dask.dataframe.extensions import (
            register_dataframe_accessor,
            register_series_accessor,
        )
    except ImportError:
        # dask without its dataframe part (pandas, pyarrow): arrays only.
        return False
    register_series_accessor("sf")(SeriesAccessor)
    register_dataframe_accessor("sf")(DataFrameAccessor)
    return True


HAS_DATAFRAME: bool = _register_accessors()
