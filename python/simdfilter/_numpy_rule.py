"""NumPy 2's rule for a bound (NEP 50): the number NumPy compares numeric data with.

NumPy compares an array with a bound in the type NEP 50 promotes them to, and
where that type holds the bound or the data only roughly, it rounds: a Python
float on float32 data is taken at float32; a Python int on float data as NumPy
converts it (to a double, then to float32 on float32 data); a 64-bit NumPy
integer on float data as a double; on int64/uint64 data a float bound is
compared with the data's values rounded to doubles. Where NumPy raises or warns
instead (an int beyond every double, a float32 overflow) the number is kept.
The weak scalars are the exact int, float and bool from NumPy 2.1 on; NumPy
2.0.x (the NumPy of CPython 3.9) takes subclasses of int and float for weak
scalars too, and the rule follows the NumPy running (SUBCLASSES_WEAK).
The C binding follows the same rule (csrc/cpython/bounds_py.c, numpy_rule);
simdfilter._bounds applies it before its exact arithmetic.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Optional, Union

import numpy as np

Number = Union[int, float]


def _subclasses_weak() -> bool:
    """Whether this NumPy takes a subclass of int or float for a weak scalar, as
    NumPy 2.0.x does (its abstractdtypes.h checks PyLong_Check and PyFloat_Check,
    with a note to make them exact in 2.1); asked of NumPy itself. NumPy 1.x: no,
    the rule is NumPy 2's newest (as csrc/cpython/bounds_py.c's subclass_weak)."""

    class _Sub(float):
        pass

    return np.lib.NumpyVersion(np.__version__) >= "2.0.0" and np.result_type(
        np.float32, _Sub(1.0)
    ) == np.dtype(np.float32)


SUBCLASSES_WEAK = _subclasses_weak()


def is_weak(value: Any) -> bool:
    """Whether NumPy reads `value` as one of NEP 50's weak scalars (a Python int,
    float or bool; a subclass of int or float where SUBCLASSES_WEAK)."""
    if type(value) in (int, float, bool):
        return True
    return SUBCLASSES_WEAK and isinstance(value, (int, float)) and not isinstance(value, np.generic)


def scalar(value: Any) -> Any:
    """0-d arrays stand for their element, as they do in NumPy comparisons."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


# The least double a float32 cast overflows at: FLT_MAX plus half an ulp (ties go
# to infinity, FLT_MAX being odd). NumPy warns there.
F32_OVERFLOW = float.fromhex("0x1.ffffffp127")


def _as_float32(d: float) -> Optional[float]:
    """A double as NumPy casts it to float32, or None where the cast overflows."""
    if math.isfinite(d) and abs(d) >= F32_OVERFLOW:
        return None
    # struct's float packing is C's (float)d, as NumPy 2 and bounds_py.c cast;
    # np.float32(d) is not that in NumPy 1.x at the top of float32's range.
    return struct.unpack("f", struct.pack("f", d))[0]


def _rounded_data_bound(f: float, lower: bool, closed: bool) -> Number:
    """A float bound on int64/uint64 data, which NumPy compares as float(x) with f,
    as an int bound with the same answer (same closedness). float(x) is monotone:
    float(x) >= f from the least x whose double is f or above (t), float(x) <= f up
    to the greatest whose double is f or below (u); x >= t, x > u, x <= u, x < t
    for lower closed, lower open, upper closed, upper open. Below 2**53 f compares
    exactly, beyond 2**65 no value reaches it, NaN and infinities stay."""
    if not 2.0**53 <= abs(f) <= 2.0**65:
        return f
    least = lower == closed  # t, else u
    g = math.nextafter(f, -math.inf if least else math.inf)
    # The integers between f and g round to f past their midpoint m, to g before
    # it, and at m to the one of even mantissa (float() rounds ints as C does).
    m = (int(f) + int(g)) // 2
    if float(m) == f:
        return m
    return m + 1 if least else m - 1


def numpy_rule(dtype: np.dtype, value: Any, lower: bool, closed: bool) -> Any:
    """`value` as the number NumPy 2 compares numeric data of `dtype` with (NEP 50):
    see the module's docstring. Other bounds come back as they are."""
    value = scalar(value)
    kind = dtype.kind
    if value is None or kind not in "fiu":
        return value
    if kind == "f":
        # itemsize, not `dtype == np.float32`: that is False for a non-native '>f4'.
        single = dtype.itemsize == 4
        if is_weak(value) and isinstance(value, float):  # the data's precision
            r = _as_float32(value) if single else value
            return value if r is None else r
        if is_weak(value):  # an int or bool: a double, then the data's precision
            try:
                d = float(value)
            except OverflowError:  # NumPy raises: the number is kept
                return value
            r = _as_float32(d) if single else d
            return value if r is None else r
        if isinstance(value, (np.timedelta64, np.datetime64)):
            return value
        if isinstance(value, np.integer):  # int64/uint64 promote with floats to float64
            return float(value) if value.dtype.itemsize == 8 else value
        if isinstance(value, int) and -(2**63) <= value < 2**64:  # NumPy reads it as (u)int64
            return float(value)
        return value
    if (
        dtype.itemsize == 8
        and isinstance(value, (float, np.floating))
        and not (isinstance(value, np.longdouble) and np.finfo(np.longdouble).nmant >= 63)
    ):
        return _rounded_data_bound(float(value), lower, closed)
    return value
