"""Byte order never changes an answer (issue 41).

A dtype compared with ``== np.float32`` is False for the non-native ``'>f4'``
(on a little-endian machine), so a rule keyed that way silently skips
big-endian data. Every dtype the functions take is drawn here in both byte
orders, with plain bounds (Python ints and floats, time scalars) and with one
bound wrapped (a 0-d array, an ``np.longdouble``, a ``Fraction`` or a
``Decimal``, which the C binding reads exactly since issue 44), and the answers of filter_indexes, count_in_range and ZoneMap
are NumPy's own ``(a >= lo) & (a <= hi)`` (every ``inclusive``); where NumPy
raises or warns, the native-order twin's answer (or its error).
"""

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import _core, reference

from agree import assert_same, generic_timedelta_deprecated, numpy_answer
from arrays import ALL_DTYPES, MODES, bound_strategy, data_strategy, dtype_id
from conftest import examples

NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
needs_numpy2 = pytest.mark.skipif(
    not NUMPY2, reason=f"NumPy {np.__version__} is not NumPy 2, whose answers the rule gives"
)
SETTINGS = settings(
    max_examples=examples(80), deadline=None, suppress_health_check=list(HealthCheck)
)
WRAPPERS = ("0-d array", "longdouble", "Fraction", "Decimal")


def _wrapped(b, how):
    """`b` wrapped: as a 0-d array, long double, Fraction or Decimal (a 0-d array
    where `how` cannot hold it: NaN, infinities, time scalars)."""
    if how == "longdouble" and isinstance(b, (int, float)) and not isinstance(b, bool):
        with np.errstate(over="ignore"):
            return np.longdouble(b) if not isinstance(b, int) or abs(b) < 2**1000 else np.array(b)
    finite = isinstance(b, int) or (isinstance(b, float) and math.isfinite(b))
    if how == "Fraction" and finite:
        return Fraction(b)
    if how == "Decimal" and finite:
        return Decimal(b)
    return np.array(b)


def _time_bounds(dtype):
    """For time data: the dtype's own bounds, and on timedelta data the ints, bools
    and unitless timedelta64 NumPy reads as ticks of the data's unit."""
    base = bound_strategy(dtype)
    if dtype.kind != "m":
        return base
    ticks = st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 3)
    drawn = base | ticks | st.sampled_from([True, False, np.True_, np.False_])
    if generic_timedelta_deprecated():  # NumPy 2.5 on: not drawn, it warns
        return drawn
    return drawn | ticks.map(np.timedelta64)  # unitless


@needs_numpy2
@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@SETTINGS
@given(data=st.data())
def test_every_dtype_either_byte_order_either_bound_path_is_numpys(dtype, order, data):
    native = data.draw(data_strategy(dtype, max_size=40), label="values")
    a = native.astype(dtype.newbyteorder(order))
    bounds = _time_bounds(dtype) if dtype.kind in "mM" else bound_strategy(dtype)
    lo, hi = data.draw(bounds, label="lo"), data.draw(bounds, label="hi")
    path = data.draw(st.sampled_from(["c", "python"]), label="path")
    if path == "python" and (lo, hi) != (None, None):  # one bound wrapped, never None
        # On time data only a 0-d array: NumPy refuses the others there (but
        # answers on empty data, comparing nothing).
        how = data.draw(st.sampled_from(WRAPPERS[:1] if dtype.kind in "mM" else WRAPPERS))
        if hi is None or (lo is not None and data.draw(st.booleans(), label="wrap lo")):
            lo = _wrapped(lo, how)
        else:
            hi = _wrapped(hi, how)
    elif path == "python":
        path = "c"
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")

    from_numpy = numpy_answer(a, lo, hi, inclusive)
    want = from_numpy
    if want is None:  # NumPy raises or warns: the native twin's answer, or its error
        try:
            want = simdfilter.filter_indexes(native, lo, hi, inclusive=inclusive)
        except (TypeError, ValueError) as exc:
            with pytest.raises(type(exc)):
                simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
            with pytest.raises(type(exc)):
                simdfilter.count_in_range(a, lo, hi, inclusive=inclusive)
            return
    if path == "c":  # plain bounds are C's to resolve, wrapped ones Python's
        assert _core._resolve_bounds(a, lo, hi, inclusive)[0] == "c"
    assert_same(simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive), want.astype(np.uint32))
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want.size
    zm = simdfilter.ZoneMap(a, block=7)
    assert_same(zm.filter_indexes(lo, hi, inclusive=inclusive), want.astype(np.uint32))
    assert zm.count_in_range(lo, hi, inclusive=inclusive) == want.size
    if from_numpy is not None:
        assert_same(reference.filter_indexes(a, lo, hi, inclusive=inclusive), want)


# ---- the reported cases --------------------------------------------------------


@pytest.mark.parametrize("order", ["<", ">"])
def test_python_float32_bounds_round_on_either_byte_order(order):
    # A 0-d array as the other bound sent the call to the Python resolver, whose
    # rule tested `dtype == np.float32`: False for '>f4', so 16777217 was not
    # rounded to float32 (16777216) as NumPy 2 rounds it. One rule now, in C.
    a = np.array([16777216.0], f"{order}f4")
    if NUMPY2:  # NumPy 1.x compares otherwise
        assert np.flatnonzero((a >= 16777217) & (a <= np.array(2e7))).tolist() == [0]
    assert _core._resolve_bounds(a, 16777217, np.array(2e7))[0] == "c"
    assert simdfilter.filter_indexes(a, 16777217, np.array(2e7)).tolist() == [0]
    assert simdfilter.count_in_range(a, 16777217, np.array(2e7)) == 1
    assert simdfilter.ZoneMap(a).filter_indexes(16777217, np.array(2e7)).tolist() == [0]
    assert reference.filter_indexes(a, 16777217, np.array(2e7)).tolist() == [0]
    b = np.array([0.1], f"{order}f4")
    assert np.count_nonzero((b > 0.1) & (b < np.array(1.0))) == 0
    assert simdfilter.count_in_range(b, 0.1, np.array(1.0), inclusive="neither") == 0
    assert simdfilter.ZoneMap(b).count_in_range(0.1, np.array(1.0), inclusive="neither") == 0
    assert simdfilter.filter_indexes(b, np.longdouble(0.05), 0.1).tolist() == [0]
