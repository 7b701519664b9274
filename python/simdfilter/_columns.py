"""What the C binding leaves to Python about columns.

The binding reads every column itself (csrc/cpython/column_hosts.c: pandas
columns and numpy.ma arrays; the Arrow PyCapsule interface). What is here:
``zoned_values``, which the binding still calls through the registry
(``_core._register``), off the NumPy fast path; ``_pandas_array`` for ZoneMap;
and the Polars version floor. A refused column's words (a frame, strings) are
the binding's too (csrc/cpython/refusals.c, ``_core._refused_column``).
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np


def _pandas_array(values: Any) -> Any:
    """The array behind a Series or Index, or the array itself (as the binding
    finds it: column_hosts.c)."""
    array = getattr(values, "_values", None)
    if array is None:
        array = getattr(values, "array", values)
    return array


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
