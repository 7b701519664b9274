"""What the C binding leaves to Python about columns.

The binding reads every column itself (csrc/cpython/column_hosts.c: pandas
columns and numpy.ma arrays; the Arrow PyCapsule interface). What is here:
``_pandas_array`` and ``column_parts`` for ZoneMap (the column's values and
nulls as NumPy, and its stretches in its own kind), and the Polars version floor. A refused column's
words (a frame, strings) are the binding's too (csrc/cpython/refusals.c,
``_core._refused_column``), and so are tz-aware values given back their zone
(column_hosts.c).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _core  # type: ignore[attr-defined]


def _pandas_array(values: Any) -> Any:
    """The array behind a Series or Index, or the array itself (as the binding
    finds it: column_hosts.c)."""
    array = getattr(values, "_values", None)
    if array is None:
        array = getattr(values, "array", values)
    return array


# The oldest Polars whose Arrow C stream of a Date, Datetime, Duration or Time
# Series works: before it the chunks have the storage type (Int32, Int64) where
# the schema says the temporal one, and Polars' own export refuses them.
POLARS_MIN = (1, 33, 1)


def older_than(version: str, minimum: Tuple[int, ...]) -> bool:
    """Whether a release number ("1.4.1", "2.1.0") is below `minimum`; a pre-release
    counts as its release ("1.33.1rc1" as 1.33.1)."""
    parts = []
    for piece in version.split(".")[: len(minimum)]:
        digits = piece[: len(piece) - len(piece.lstrip("0123456789"))]
        parts.append(int(digits or 0))
    return tuple(parts) < tuple(minimum)


def stream_failure_hint(values: Any) -> str:
    """What to add to the message of a failed Arrow C stream of `values` ("" or a
    sentence): called by the binding only when a producer's stream fails."""
    if type(values).__module__.split(".")[0] != "polars":
        return ""
    import polars

    version = getattr(polars, "__version__", "")
    if not version or not older_than(version, POLARS_MIN):
        return ""
    need = ".".join(map(str, POLARS_MIN))
    return (
        f"; Polars before {need} fails the Arrow C stream of Date, Datetime, Duration "
        f"and Time columns, whoever reads it: simdfilter needs Polars >= {need} for "
        f"them (this is Polars {version})"
    )


def _flat_array(values: np.ndarray, who: str) -> np.ndarray:
    """An ndarray in flat C order without a copy (1-d of any layout, or N-d
    C-contiguous), as the functions count its positions."""
    if values.ndim == 1:
        return values
    if not values.flags.c_contiguous:
        raise ValueError(
            f"{who} reads an N-d array in flat C order without copying it: pass a "
            "C-contiguous array (np.ascontiguousarray(values))"
        )
    return values.reshape(-1)


def _bits(buffer: Any, offset: int, n: int) -> np.ndarray:
    """Bits [offset, offset + n) of an Arrow bitmap, one bool each."""
    raw = np.frombuffer(buffer, np.uint8)[offset // 8 : (offset + n + 7) // 8]
    return np.unpackbits(raw, bitorder="little")[offset % 8 : offset % 8 + n].view(bool)


def _arrow_numpy(arrow: Any) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """(values, nulls) of an Arrow column (a pyarrow ChunkedArray) as NumPy,
    the values in the bits the kernels compare: integers for dates, times,
    timestamps and durations (time zones are instants: UTC ticks), bytes for
    bools. One view per chunk; several chunks are joined (a copy, for the build
    only)."""
    import pyarrow as pa

    t = arrow.type
    storage = None if pa.types.is_boolean(t) else np.dtype(f"i{t.bit_width // 8}")
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        storage = np.dtype(t.to_pandas_dtype())
    datas, masks = [], []
    for chunk in arrow.chunks:
        n, offset = len(chunk), chunk.offset
        validity, data = chunk.buffers()[:2]
        if storage is None:
            datas.append(_bits(data, offset, n) if n else np.zeros(0, bool))
        else:
            datas.append(
                np.frombuffer(data, storage)[offset : offset + n] if n else np.zeros(0, storage)
            )
        nulls = None
        if validity is not None and chunk.null_count:
            nulls = ~_bits(validity, offset, n)
        masks.append(nulls)
    if not datas:
        return np.zeros(0, storage or bool), None
    data = datas[0] if len(datas) == 1 else np.concatenate(datas)
    if all(m is None for m in masks):
        return data, None
    return data, np.concatenate(
        [np.zeros(len(d), bool) if m is None else m for d, m in zip(datas, masks)]
    )


def _as_arrow(values: Any, who: str) -> Any:
    """An Arrow PyCapsule producer as a pyarrow ChunkedArray (pyarrow reads the
    buffers the map is built from)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover - exercised without pyarrow only
        raise TypeError(
            f"{who} reads an Arrow column ({type(values).__name__}) with pyarrow: "
            "pip install pyarrow"
        ) from None
    if isinstance(values, pa.ChunkedArray):
        return values
    if isinstance(values, pa.Array):
        return pa.chunked_array([values])
    if hasattr(values, "__arrow_c_stream__"):
        return pa.chunked_array(values)
    return pa.chunked_array([pa.array(values)])


def column_parts(values: Any, who: str) -> Tuple[np.ndarray, Optional[np.ndarray], Any]:
    """(data, nulls, part) of any column the functions take: its values in flat
    order as NumPy (tz-aware instants as UTC; Arrow temporal data as the
    integers the kernels compare), a bool array True at nulls (or None), and
    ``part(start, stop)``, the column's elements [start, stop) in the column's
    own kind (a view), which the functions read with its nulls and time zone.
    Found as the functions find them; `who`, the class reading it, names it in
    an error."""
    # The functions' refusals, in the same words (a frame, strings, float16...):
    # asked of the whole column, which they answer without reading it.
    try:
        _core._resolve_bounds(values, None, None)
    except TypeError as exc:
        message = _core._refused_column(values, who)
        if message is None:
            raise TypeError(str(exc).replace("_resolve_bounds", who)) from None
        raise TypeError(message) from None
    if isinstance(values, np.ma.MaskedArray):
        flat = _flat_array(values, who)
        data, nulls, _ = _core._column_buffers(flat)
        return data, nulls, lambda a, b: flat[a:b]
    if isinstance(values, np.ndarray):
        flat = _flat_array(values, who)
        return flat, None, lambda a, b: flat[a:b]
    module = type(values).__module__.partition(".")[0]
    if module == "pandas":
        array = _pandas_array(values)
        got = _core._column_buffers(values)
        part = lambda a, b: array[a:b]  # noqa: E731
        if isinstance(got, tuple):
            return got[0], got[1], part
        data, nulls = _arrow_numpy(_as_arrow(got, who))
        return data, nulls, part
    if hasattr(values, "__arrow_c_array__") or hasattr(values, "__arrow_c_stream__"):
        arrow = _as_arrow(values, who)
        data, nulls = _arrow_numpy(arrow)
        sliced = values if module in ("polars", "pyarrow") else arrow
        return data, nulls, lambda a, b: sliced.slice(a, b - a)
    flat = _flat_array(np.asarray(values), who)  # lists and other array-likes, as the functions
    return flat, None, lambda a, b: flat[a:b]
