"""What the C binding leaves to Python about columns.

The binding reads every column itself (csrc/cpython/column_hosts.c: pandas
columns and numpy.ma arrays; the Arrow PyCapsule interface). What is here:
``_pandas_array`` for ZoneMap and the Polars version floor. A refused column's
words (a frame, strings) are the binding's too (csrc/cpython/refusals.c,
``_core._refused_column``), and so are tz-aware values given back their zone
(column_hosts.c).
"""

from __future__ import annotations

from typing import Any, Tuple


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
