"""The buffers behind pandas columns and numpy.ma arrays, for the C binding.

``unwrap_pandas(values)`` (for a pandas object) and ``unwrap_masked(values)``
(for a numpy.ma array) are called by simdfilter._core and answer without
copying anything:

- ``(data, mask, tz)``: a NumPy array of the values, a bool array of the same
  shape that is True at nulls (or None), and the time zone of tz-aware
  timestamps (a str, or None);
- or an object with the Arrow PyCapsule interface (the pyarrow data of a
  pandas column with an Arrow dtype), which the binding reads as Arrow.

It reads pandas' own arrays (``Series._values``, a masked array's ``_data`` and
``_mask``, a datetime array's ``_ndarray``, an Arrow array's ``_pa_array``):
private names, chosen because the public routes copy or cost far more per call
(``Series.__arrow_c_stream__`` converts through pyarrow: 32 us where this takes
under one). Each is looked up with a fallback to the public, copying route, so
a pandas that renames them gives right answers, only slower.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple, Union

import numpy as np

Unwrapped = Union[Tuple[np.ndarray, Optional[np.ndarray], Optional[str]], Any]

_SUPPORTED = (
    "bool, int8..uint64, float32, float64, datetime64 (naive or tz-aware) and "
    "timedelta64, NumPy-backed, nullable (Int*, UInt*, Float*, boolean) or Arrow-backed"
)


def unwrap_masked(values: np.ma.MaskedArray) -> Unwrapped:
    """The buffers of a numpy.ma array (see the module docstring)."""
    data = values.data  # a view of the values, not a copy
    mask = np.ma.getmask(values)
    if mask is np.ma.nomask or mask.shape != data.shape:
        return data, None, None
    return data, mask, None


def _pandas_array(values: Any) -> Any:
    """The array behind a Series or Index, or the array itself."""
    array = getattr(values, "_values", None)
    if array is None:
        array = getattr(values, "array", values)
    return array


def _zone(tz: Any) -> Optional[str]:
    if tz is None:
        return None
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)  # zoneinfo, pytz
    return str(key) if key else str(tz)


def _pandas_types() -> dict:
    import pandas as pd

    arrays = pd.arrays
    found = lambda *names: tuple(getattr(arrays, n) for n in names if hasattr(arrays, n))  # noqa: E731
    return {
        "masked": found("IntegerArray", "FloatingArray", "BooleanArray"),
        "times": found("DatetimeArray", "TimedeltaArray"),
        "arrow": found("ArrowExtensionArray", "ArrowStringArray"),
        # The old name only if the new one is missing: pandas 2.1-2.x warn on touching it.
        "numpy": found("NumpyExtensionArray") or found("PandasArray"),
    }


_types: dict = {}
# The kind of each pandas array type met so far ("masked", "times", "arrow",
# "numpy" or "other"): one dict lookup per call instead of a row of isinstance
# checks. It holds the types themselves, so an entry never outlives its type.
_kinds: dict = {}


def _kind_of(array_type: type) -> str:
    if not _types:
        _types.update(_pandas_types())
    for kind in ("masked", "times", "arrow", "numpy"):
        if issubclass(array_type, _types[kind]):
            return kind
    return "other"


def unwrap_pandas(values: Any) -> Unwrapped:
    """The buffers of a pandas Series, Index or array (see the module docstring)."""
    array = _pandas_array(values)
    if isinstance(array, np.ndarray):
        return array, None, None
    kind = _kinds.get(type(array))
    if kind is None:
        kind = _kinds[type(array)] = _kind_of(type(array))
    if kind == "masked":
        return array._data, array._mask, None
    if kind == "times":
        tz = getattr(array.dtype, "tz", None)
        data = getattr(array, "_ndarray", None)
        if data is None:
            data = (array.tz_convert(None) if tz is not None else array).to_numpy()
        return data, None, _zone(tz)
    if kind == "arrow":
        data = getattr(array, "_pa_array", None)  # pandas >= 2.1; 1.5 to 2.0 named it _data
        if data is None and type(getattr(array, "_data", None)).__module__.startswith("pyarrow"):
            data = array._data
        if data is None:
            import pyarrow as pa

            data = pa.chunked_array([pa.array(array)])
        return data  # read through its Arrow C stream: types, nulls and zones there
    if kind == "numpy":
        return array.to_numpy(), None, None
    raise TypeError(f"simdfilter supports pandas columns of {_SUPPORTED}, not {array.dtype}")


def zoned_values(utc: np.ndarray, source: Any, tz: str) -> Any:
    """filter_values' result on tz-aware data, with the column's zone back.

    The kernels write instants as naive UTC ``datetime64`` (NumPy has no zone);
    a user asked for values of a zoned column, so the result is the column's own
    kind with its zone: a pandas extension array for a pandas Series, Index or
    array (a ``DatetimeArray``, or an Arrow-backed array for an Arrow dtype), a
    Polars Series for a Polars one, and a pyarrow array for any other Arrow
    producer (the UTC ``datetime64`` itself when pyarrow is not installed).
    """
    host = type(source).__module__.partition(".")[0]
    if host == "pandas":
        import pandas as pd

        dtype = source.dtype
        if isinstance(dtype, getattr(pd, "ArrowDtype", ())):
            import pyarrow as pa

            return pd.array(pa.array(utc, type=dtype.pyarrow_dtype), dtype=dtype)
        return pd.DatetimeIndex(utc).tz_localize("UTC").tz_convert(tz).array
    if host == "polars":
        import polars as pl

        series = pl.Series(getattr(source, "name", ""), utc)
        return series.dt.replace_time_zone("UTC").dt.convert_time_zone(tz)
    try:
        import pyarrow as pa
    except ImportError:
        return utc
    unit = np.datetime_data(utc.dtype)[0]
    return pa.array(utc, type=pa.timestamp(unit, tz=tz))


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


# ---- columns the functions refuse, in the user's terms --------------------------

_WHAT = "simdfilter compares numbers, booleans, dates and times"


# The packages whose DataFrame (or LazyFrame) is a frame, and their host. Dask's
# DataFrame lived in the dask-expr package (module dask_expr) from Dask 2024.3
# until 2025.1 moved it into dask itself.
_FRAME_HOSTS = {"pandas": "pandas", "polars": "polars", "dask": "dask", "dask_expr": "dask"}


def _frame_refusal(values: Any, function: str) -> Optional[str]:
    """The message for a frame given where one column goes, or None."""
    frame = next(
        (
            c
            for c in type(values).__mro__
            if c.__name__ in ("DataFrame", "LazyFrame")
            and c.__module__.partition(".")[0] in _FRAME_HOSTS
        ),
        None,
    )  # the binding's test (column.c, frame_host), on the same names
    if frame is None:
        return None
    host, lazy = _FRAME_HOSTS[frame.__module__.partition(".")[0]], frame.__name__ == "LazyFrame"
    try:
        labels = list(values.collect_schema().names() if lazy else values.columns)[:2]
    except Exception:  # noqa: BLE001 - only for the example: any labels do
        labels = []
    labels = (labels + ["a", "b"])[:2] if len(labels) < 2 else labels
    a, b = (repr(x) for x in labels)
    ranges = f"{{{a}: (lo, hi), {b}: (lo, hi)}}"
    one = f"{function}(df[{a}])" if function == "ZoneMap" else f"{function}(df[{a}], lo, hi)"
    who = {"pandas": "pandas", "polars": "Polars", "dask": "Dask"}[host]
    head = f"{function} reads one column, not a {who} {type(values).__name__}"
    if lazy:
        return (
            f"{head}: keep the rows where every column is in its range with "
            f"lf.filter(pl.col({a}).sf.between(lo, hi) & pl.col({b}).sf.between(lo, hi)) "
            f"(import simdfilter.polars), or collect first: lf.collect().sf.filter({ranges})"
        )
    if host == "dask":
        return (
            f"{head}: for the rows where every column is in its range use "
            f"ddf.sf.filter({ranges}) or ddf.sf.count({ranges}) (import simdfilter.dask); "
            f"for one column, ddf[{a}].sf.filter(lo, hi)"
        )
    face = "polars" if host == "polars" else "pandas"
    return (
        f"{head}: for the rows where every column is in its range use "
        f"df.sf.indexes({ranges}) (their positions), df.sf.filter({ranges}) (the rows) or "
        f"df.sf.count({ranges}) (import simdfilter.{face}); for one column, {one}"
    )


_STRING_ARROW = ("string", "large_string", "string_view", "binary", "large_binary", "binary_view")


def _strings_kind(values: Any) -> Optional[Tuple[str, str]]:
    """(what the column is, what compares strings in its host), for a column of
    strings (or bytes); None for any other."""
    host = type(values).__module__.partition(".")[0]
    dtype = getattr(values, "dtype", None)
    if host == "pandas":
        import pandas as pd

        text = isinstance(dtype, pd.StringDtype) or (
            isinstance(dtype, getattr(pd, "ArrowDtype", ()))
            and str(dtype.pyarrow_dtype) in _STRING_ARROW
        )
        if not text and getattr(dtype, "kind", "") == "O":
            text = pd.api.types.infer_dtype(values, skipna=True) in ("string", "bytes")
        if not text:
            return None
        return f"pandas {dtype}", "s.between(lo, hi) (or s.sf.indexes, s.sf.filter, s.sf.count)"
    if host == "polars":
        import polars as pl

        if dtype not in (pl.String, pl.Binary):
            return None
        return f"Polars {dtype}", "s.is_between(lo, hi) (or s.sf.indexes, s.sf.filter, s.sf.count)"
    if host == "pyarrow":
        if str(getattr(values, "type", "")) not in _STRING_ARROW:
            return None
        return (
            f"pyarrow {values.type}",
            "pyarrow.compute: pc.and_(pc.greater_equal(a, lo), pc.less_equal(a, hi))",
        )
    if isinstance(values, np.ndarray):
        array = values
    elif isinstance(values, (list, tuple)):
        try:
            array = np.asarray(values)
        except Exception:  # noqa: BLE001 - not an array: nothing to say
            return None
    else:
        return None
    kind = array.dtype.kind
    if kind == "O":
        found = [x for x in array.flat[:1000] if x is not None]
        if not found or not all(isinstance(x, (str, bytes)) for x in found):
            return None
    elif kind not in "US":
        return None
    where = "NumPy" if isinstance(values, np.ndarray) else f"a {type(values).__name__} of"
    return f"{where} {array.dtype}", "NumPy: np.flatnonzero((a >= lo) & (a <= hi))"


def refused_column(values: Any, function: str) -> Optional[str]:
    """Called by the binding when a function refused `values` (a TypeError): the
    error in the user's terms, or None to keep the binding's. A frame is several
    columns (the frame's own ``df.sf`` calls take it); strings are no numbers
    (their host compares them)."""
    frame = _frame_refusal(values, function)
    if frame is not None:
        return frame
    found = _strings_kind(values)
    if found is None:
        return None
    kind, instead = found
    name = getattr(values, "name", None)
    subject = f"column {name!r}" if isinstance(name, str) and name else "the column"
    return f"{_WHAT}; {subject} holds strings ({kind}): compare strings with {instead}"
