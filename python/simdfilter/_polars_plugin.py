"""``pl.col(c).sf.between`` and ``.sf.count`` as a Polars expression plugin.

The C library exports the functions of Polars' plugin ABI from the extension
module itself (``csrc/cpython/polars_plugin.c``, which describes the ABI): Polars
loads ``simdfilter._core`` as the plugin library and calls the kernels on each
batch of the column with no Python, and ``explain()`` names the function
(``sf_between``, ``sf_count32``/``sf_count64``).

The expression does not know its column's dtype, which decides how a bound
compares (``simdfilter._polars_bounds``). So the bounds are resolved here, once
per expression, for each dtype the column could have among those the kernels
read and for which the bounds are the kernels' (the inclusive range in the
column's own type, or "nothing in range"), and travel to the plugin as a
Binary literal, its second input (kwargs stay empty): per Arrow format string,
the range; then the pickled ``(lo, hi, inclusive)``. A batch of any other dtype
(a String, a Decimal, a Datetime of another unit than the bound's ...) is
answered by ``_batch`` below: the plugin takes the GIL and calls it, and it
computes what the ``map_batches`` path computes (Polars' own ``is_between`` for
those), so every answer is the same.

The plugin is used on Polars 2 and later. Polars 1 raises InvalidOperationError
(and others) where a comparison is refused, and an error raised in a plugin
always reaches the user as ComputeError ("the plugin failed with message:
..."): there the ``map_batches`` path keeps Polars' own exception types.
Polars 2 raises ComputeError for those itself. ``SIMDFILTER_POLARS_PLUGIN=0``
turns the plugin off (the ``map_batches`` path then runs everywhere).

The Binary literal holds a pickle, as a serialized plan holding a Python
function does: deserialize only plans you trust.
"""

from __future__ import annotations

import datetime as dt
import os
import pickle
import struct
import zoneinfo
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple

import polars as pl

from simdfilter import _core  # type: ignore[attr-defined]
from simdfilter._polars_bounds import delegate, expression_bounds

__all__ = ["available", "between", "count"]

#: How many batches Python answered (the dtypes the kernels do not read): tests
#: read it to see that the kernels' batches never reach Python.
python_batches = 0

_MAGIC = b"SFP1"

# The dtypes whose bounds can be the kernels', by Arrow format string (as Polars
# exports a column to a plugin).
_NUMBERS: List[Tuple[str, Any]] = [
    ("c", pl.Int8),
    ("s", pl.Int16),
    ("i", pl.Int32),
    ("l", pl.Int64),
    ("C", pl.UInt8),
    ("S", pl.UInt16),
    ("I", pl.UInt32),
    ("L", pl.UInt64),
    ("f", pl.Float32),
    ("g", pl.Float64),
    ("b", pl.Boolean),
]
_UNITS: Tuple[Literal["ms", "us", "ns"], ...] = ("ms", "us", "ns")

# Temporal bounds stay on the map_batches path for now: on a column of another
# zone or kind Polars 2.1 raises SchemaError (not ComputeError), which a plugin
# cannot pass on (see the module's docstring). The plugin's side handles them
# (their entries are made below); what is left is keeping the exception type.
_TEMPORAL_BOUNDS = False
_ARROW_UNIT = {"ms": "m", "us": "u", "ns": "n"}


def available() -> bool:
    """Whether expressions use the plugin: Polars 2 or later (see the module's
    docstring), and not turned off by ``SIMDFILTER_POLARS_PLUGIN=0``."""
    if os.environ.get("SIMDFILTER_POLARS_PLUGIN", "1") == "0":
        return False
    try:
        return int(pl.__version__.split(".")[0]) >= 2
    except ValueError:
        return False


def _datetimes(zone: Optional[str]) -> List[Tuple[str, Any]]:
    return [("ts%s:%s" % (_ARROW_UNIT[u], zone or ""), pl.Datetime(u, zone)) for u in _UNITS]


def _zone(bound: dt.datetime) -> Optional[str]:
    tz = bound.tzinfo
    if tz is None:
        return None
    if tz is dt.timezone.utc:
        return "UTC"
    return tz.key if isinstance(tz, zoneinfo.ZoneInfo) else None


def _candidates(lo: Any, hi: Any) -> List[Tuple[str, Any]]:
    """The dtypes worth a range in the literal, from the bounds' kinds."""
    bounds = [b for b in (lo, hi) if b is not None]
    # Python numbers only: Polars 2.1 raises SchemaError for some NumPy scalars
    # on temporal columns (np.int8(-1) beside 0 on a Datetime), which the
    # plugin's Python answer could only pass on as ComputeError.
    if all(type(b) in (bool, int, float) for b in bounds):
        out = list(_NUMBERS)
        if not bounds:  # unbounded: every kernel dtype
            out += _datetimes(None) + [("tdD", pl.Date), ("ttn", pl.Time)]
            out += [("tD%s" % _ARROW_UNIT[u], pl.Duration(u)) for u in _UNITS]
        return out
    if not _TEMPORAL_BOUNDS:
        return []
    if all(isinstance(b, dt.datetime) for b in bounds):
        zones = {_zone(b) for b in bounds}
        return _datetimes(zones.pop()) if len(zones) == 1 else []
    if all(isinstance(b, dt.date) and not isinstance(b, dt.datetime) for b in bounds):
        return [("tdD", pl.Date)] + _datetimes(None)
    if all(isinstance(b, dt.timedelta) for b in bounds):
        return [("tD%s" % _ARROW_UNIT[u], pl.Duration(u)) for u in _UNITS]
    if all(isinstance(b, dt.time) for b in bounds):
        return [("ttn", pl.Time)]
    return []


def _end(dtype: Any, value: Any) -> bytes:
    if dtype in (pl.Float32, pl.Float64):
        return struct.pack("<d", float(value))
    v = int(value)
    return struct.pack("<Q" if v >= 2**63 else "<q", v)


def _entry(fmt: str, dtype: Any, lo: Any, hi: Any, inclusive: str) -> Optional[bytes]:
    """The literal's entry for one dtype: the kernels' inclusive range (or
    nothing in range), or None where Polars answers (the map_batches path's rule,
    simdfilter.polars._batch_between)."""
    s = pl.Series("x", [], dtype=dtype)
    try:
        lo, hi = expression_bounds(s, lo, hi)
    except OverflowError:
        return None
    if delegate(lo, hi, s, True):
        return None
    try:
        _, ends = _core._resolve_bounds(s, lo, hi, inclusive)
    except (TypeError, ValueError, OverflowError):
        return None
    head = bytes([len(fmt)]) + fmt.encode()
    if ends is None:
        return head + b"\0" + bytes(16)
    return head + b"\1" + _end(dtype, ends[0]) + _end(dtype, ends[1])


def _spec(lo: Any, hi: Any, inclusive: str) -> Optional[bytes]:
    """The bounds literal, or None where the plugin would hand every batch to
    Python anyway (bounds no kernel dtype takes, or that cannot be pickled)."""
    entries = [e for e in (_entry(f, d, lo, hi, inclusive) for f, d in _candidates(lo, hi)) if e]
    if not entries:
        return None
    try:
        pickled = pickle.dumps((lo, hi, inclusive), protocol=4)
    except Exception:  # noqa: BLE001 - an unpicklable bound: the map_batches path
        return None
    return (
        _MAGIC
        + struct.pack("<I", len(entries))
        + b"".join(entries)
        + struct.pack("<I", len(pickled))
        + pickled
    )


_cache: Dict[Any, Optional[bytes]] = {}


def _cached_spec(lo: Any, hi: Any, inclusive: str) -> Optional[bytes]:
    # The same bounds, of the same types (1 and 1.0 and True differ here), give the
    # same literal: a loop building expressions resolves them once.
    key = (
        type(lo),
        lo,
        _zone(lo) if isinstance(lo, dt.datetime) else None,
        type(hi),
        hi,
        _zone(hi) if isinstance(hi, dt.datetime) else None,
        inclusive,
    )
    try:
        return _cache[key]
    except (KeyError, TypeError):
        pass
    got = _spec(lo, hi, inclusive)
    try:
        if len(_cache) >= 256:
            _cache.clear()
        _cache[key] = got
    except TypeError:  # unhashable
        pass
    return got


def _register(e: "pl.Expr", name: str, spec: bytes, elementwise: bool) -> "pl.Expr":
    from polars.plugins import register_plugin_function

    return register_plugin_function(
        plugin_path=_core.__file__,
        function_name=name,
        args=[e, pl.lit(spec, dtype=pl.Binary)],
        is_elementwise=elementwise,
        returns_scalar=not elementwise,
    )


def between(e: "pl.Expr", lo: Any, hi: Any, inclusive: str) -> Optional["pl.Expr"]:
    """``e.sf.between`` as the plugin's expression, or None (the caller's
    map_batches path) where the plugin is not used."""
    if not available():
        return None
    spec = _cached_spec(lo, hi, inclusive)
    if spec is None:
        return None
    return _register(e, "sf_between", spec, elementwise=True)


def count(e: "pl.Expr", lo: Any, hi: Any, inclusive: str) -> Optional["pl.Expr"]:
    """``e.sf.count`` as the plugin's expression (one value of Polars' index
    type per batch or group), or None."""
    if not available():
        return None
    spec = _cached_spec(lo, hi, inclusive)
    if spec is None:
        return None
    name = "sf_count64" if pl.get_index_type() == pl.UInt64 else "sf_count32"
    return _register(e, name, spec, elementwise=False)


class _Chunk:
    """One chunk of a batch the plugin hands over (a schema and an array
    capsule), for ``pl.Series``."""

    __slots__ = ("_capsules",)

    def __init__(self, capsules: Tuple[Any, Any]) -> None:
        self._capsules = capsules

    def __arrow_c_array__(self, requested_schema: Optional[Any] = None) -> Tuple[Any, Any]:
        return self._capsules


def _batch(op: str, pickled: bytes, chunks: Sequence[Tuple[Any, Any]], name: str) -> "pl.Series":
    """A batch of a dtype the literal has no range for, as the map_batches path
    answers it (called by the plugin, with the GIL)."""
    global python_batches
    python_batches += 1
    from simdfilter import polars as face

    lo, hi, inclusive = pickle.loads(pickled)
    if not chunks:
        raise ValueError("simdfilter's plugin: a batch without chunks")
    parts = [pl.Series(_Chunk(c)) for c in chunks]
    s = (parts[0] if len(parts) == 1 else pl.concat(parts, rechunk=False)).alias(name)
    if op == "between":
        return face._batch_between(s, lo, hi, inclusive)
    return face._batch_count(s, lo, hi, inclusive)
