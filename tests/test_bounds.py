"""Bounds: exact arithmetic at every dtype's limits, inclusive modes, time units.

A bound is a mathematical number (or instant): the number NumPy 2 compares the
data with (NEP 50: a Python float on float32 data at float32, a Python int on
float data as NumPy converts it...; tests/test_numpy_bound_rule.py), or exactly
the bound where NumPy has no such number (Fractions, Decimals, overflows); a value
is in range when it compares so exactly with it.
"""

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from arrays import MODES, NUMERIC_DTYPES, TIME_UNITS, bound_strategy, dtype_id, edge_values
from conftest import examples

U32_MAX = 2**32 - 1


def test_bounds_are_mathematical(kernel):
    a = np.array([0, 1, 2, 3, 2**31, U32_MAX], dtype=np.uint32)
    assert simdfilter.filter_indexes(a, -1, 1).tolist() == [0, 1]
    assert simdfilter.filter_indexes(a, -(2**70), 2**40).tolist() == [0, 1, 2, 3, 4, 5]
    assert simdfilter.filter_indexes(a, 2**32, 2**40).tolist() == []
    assert simdfilter.filter_indexes(a, 1.5, 3.0).tolist() == [2, 3]
    assert simdfilter.filter_indexes(a, 1.5, 2.9999).tolist() == [2]
    assert simdfilter.filter_indexes(a, None, 1).tolist() == [0, 1]
    assert simdfilter.filter_indexes(a, 3, None).tolist() == [3, 4, 5]
    assert simdfilter.filter_indexes(a, None, None).tolist() == [0, 1, 2, 3, 4, 5]
    assert simdfilter.filter_indexes(a, 3, 2).tolist() == []
    assert simdfilter.filter_indexes(a, float("nan"), 3).tolist() == []
    assert simdfilter.filter_indexes(a, 0, float("inf")).tolist() == [0, 1, 2, 3, 4, 5]
    assert simdfilter.filter_indexes(a, float("-inf"), 0, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(a, 0, 2**31, inclusive="neither").tolist() == [1, 2, 3]
    assert simdfilter.filter_indexes(a, np.uint32(1), np.int64(3)).tolist() == [1, 2, 3]
    assert simdfilter.filter_indexes(a, np.float32(0.5), np.float64(2.5)).tolist() == [1, 2]
    assert simdfilter.filter_indexes(a, 2**32 - 1, 2**32 - 1).tolist() == [5]
    assert simdfilter.filter_indexes(a, 2**32 - 1.0, 1e300).tolist() == [5]


def test_exact_bounds_examples():
    i64 = np.array([-(2**63), -1, 0, 2**53 + 1, 2**63 - 1], dtype=np.int64)
    assert simdfilter.filter_indexes(i64, 0, 2**63).tolist() == [2, 3, 4]
    assert simdfilter.filter_indexes(i64, 0, 1e19).tolist() == [2, 3, 4]
    assert simdfilter.filter_indexes(i64, 2.0**53, 2.0**53 + 2).tolist() == [3]
    u64 = np.array([0, 1, 2**64 - 1], dtype=np.uint64)
    assert simdfilter.filter_indexes(u64, -1, 1).tolist() == [0, 1]
    assert simdfilter.filter_indexes(u64, 2**64 - 1, None).tolist() == [2]
    i8 = np.array([-128, -1, 0, 127], dtype=np.int8)
    assert simdfilter.filter_indexes(i8, -1000, 1000).tolist() == [0, 1, 2, 3]
    assert simdfilter.filter_indexes(i8, -1.5, 0.5).tolist() == [1, 2]
    f64 = np.array([2.0**53, 2.0**53 + 2, np.nan, -0.0, 0.0, np.inf], dtype=np.float64)
    # NumPy 2 rounds a Python int to a double on float64 data (2**53 + 1 -> 2**53) ...
    assert simdfilter.filter_indexes(f64, 2**53 + 1, None).tolist() == [0, 1, 5]
    assert simdfilter.filter_indexes(f64, None, 2**53 + 1).tolist() == [0, 3, 4]
    # ... and has no number for a Fraction: compared exactly.
    assert simdfilter.filter_indexes(f64, Fraction(2**53 + 1), None).tolist() == [1, 5]
    assert simdfilter.filter_indexes(f64, None, Fraction(2**53 + 1)).tolist() == [0, 3, 4]
    assert simdfilter.filter_indexes(f64, 0.0, 0.0).tolist() == [3, 4]
    assert simdfilter.filter_indexes(f64, -0.0, 0.0, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(f64, 1, np.inf, inclusive="left").tolist() == [0, 1]
    assert simdfilter.filter_indexes(f64, np.nan, None).tolist() == []
    f32 = np.array([16777216.0, 16777218.0], dtype=np.float32)  # 2**24 and the next float32
    # Python numbers at float32, as NumPy 2 takes them: 2**24 + 1 and 16777216.5 -> 2**24.
    assert simdfilter.filter_indexes(f32, 2**24 + 1, None).tolist() == [0, 1]
    assert simdfilter.filter_indexes(f32, 16777216.5, None).tolist() == [0, 1]
    assert simdfilter.filter_indexes(f32, np.float64(16777216.5), None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, Fraction(2**25 + 1, 2), None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, Decimal("16777216.000001"), None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, None, 1e300).tolist() == [0, 1]
    b = np.array([False, True, True])
    assert simdfilter.filter_indexes(b, True, True).tolist() == [1, 2]
    assert simdfilter.filter_indexes(b, False, False).tolist() == [0]
    assert simdfilter.filter_values(b, 0.5, None).tolist() == [True, True]
    assert simdfilter.filter_indexes(b, np.True_, np.True_).tolist() == [1, 2]  # no __index__
    assert simdfilter.filter_indexes(np.arange(3), np.False_, np.True_).tolist() == [0, 1]


def _slow_path(b, dtype):
    """The same bound as an object only simdfilter._bounds (Python) resolves, which
    it compares exactly: on float data the number NumPy 2 compares the data with."""
    if b is None:
        return None
    if dtype.kind == "f":
        b = reference._numpy_number(dtype, b)
    if isinstance(b, (float, np.floating)):
        return Decimal(float(b))  # exact, and keeps NaN and infinities
    return Fraction(int(b))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=dtype_id)
@settings(max_examples=examples(150), deadline=None)
@given(data=st.data())
def test_c_and_python_bound_paths_agree(dtype, data):
    """The C fast path (ints, floats) and the exact Python path give the same ranges."""
    dtype = np.dtype(dtype)
    lo, hi = (
        data.draw(bound_strategy(dtype), label="lo"),
        data.draw(bound_strategy(dtype), label="hi"),
    )
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    # int64/uint64 data meet a float bound beyond 2**53 as doubles in NumPy 2, which
    # no exact bound stands for (tests/test_numpy_bound_rule.py checks those).
    for b in (lo, hi):
        assume(not reference._rounds_data(dtype, b) or not abs(b) >= 2**53)
    a = np.array(edge_values(dtype) * 3, dtype=dtype)
    fast = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    slow = simdfilter.filter_indexes(
        a, _slow_path(lo, dtype), _slow_path(hi, dtype), inclusive=inclusive
    )
    np.testing.assert_array_equal(fast, slow)


def test_open_float_bounds_beyond_2_53_on_integers():
    """NumPy 2 compares int64/uint64 data with a float in float64 (the values rounded
    to doubles: 2**60 +- 1 -> 2**60); an exact number (a Fraction) compares exactly."""
    a = np.array([2**60, 2**60 + 1, 2**60 - 1], np.int64)
    assert simdfilter.filter_indexes(a, 2.0**60, None, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(a, None, 2.0**60, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(a, 2.0**60, 2.0**60).tolist() == [0, 1, 2]
    assert simdfilter.filter_indexes(a, Fraction(2**60), None, inclusive="neither").tolist() == [1]
    assert simdfilter.filter_indexes(a, None, Fraction(2**60), inclusive="neither").tolist() == [2]
    m = np.array([-(2**63), -(2**63) + 1])
    assert simdfilter.filter_indexes(m, -(2.0**63), None, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(m, -(2**63), None, inclusive="neither").tolist() == [1]
    u = np.array([2**53, 2**53 + 1], np.uint64)
    assert simdfilter.filter_indexes(u, 2.0**53, None, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(u, 2**53, None, inclusive="neither").tolist() == [1]


def test_time_bounds_beyond_the_units_range_are_not_wrapped():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    a = np.array(["2000-01-01", "2020-06-01", "2250-01-01", "NaT"], "M8[ns]")
    for lo, hi in [
        (None, "9999-12-31"),
        ("1000-01-01", None),
        (None, dt.date(3000, 1, 1)),
        (np.datetime64("-200000-01-01"), np.datetime64("200000-01-01")),
    ]:
        assert simdfilter.filter_indexes(a, lo, hi).tolist() == [0, 1, 2]
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(a, lo, hi), reference.filter_indexes(a, lo, hi)
        )
    assert simdfilter.filter_indexes(a, "9999-12-31", None).tolist() == []
    # What pandas gives for the same open end: from pandas 2 on, the same; pandas 1.5
    # refuses a string past the nanosecond range instead.
    if int(pd.__version__.split(".")[0]) >= 2:
        assert pd.Series(a[:3]).between(pd.Timestamp.min, "9999-12-31").all()
    else:
        with pytest.raises(TypeError, match="Invalid comparison"):
            pd.Series(a[:3]).between(pd.Timestamp.min, "9999-12-31")
    td = np.array([1, 10**18], "m8[ns]")
    assert simdfilter.filter_indexes(td, None, np.timedelta64(10**6, "D")).tolist() == [0, 1]
    # A bound finer than attoseconds of any data unit: compared exactly.
    secs = np.array([0, 1, 2], "M8[s]")
    assert simdfilter.filter_indexes(secs, np.datetime64(1, "as"), None).tolist() == [1, 2]
    months = np.array(["2020-01", "2020-02", "2020-03"], "M8[M]")
    assert simdfilter.filter_indexes(months, "2020-01-15", "2020-03-01").tolist() == [1, 2]
    # Calendar bounds past int64 days (NumPy's own conversion would wrap them).
    far = np.datetime64(2**62, "Y")
    assert simdfilter.filter_indexes(secs, None, far).tolist() == [0, 1, 2]
    assert simdfilter.filter_indexes(secs, far, None).tolist() == []
    assert simdfilter.filter_indexes(secs, np.datetime64(-(2**62), "Y"), None).tolist() == [0, 1, 2]
    years = np.array(["2020", "2021"], "M8[Y]")
    assert simdfilter.filter_indexes(years, np.datetime64("2020-06", "M"), None).tolist() == [1]
    assert (
        simdfilter.filter_indexes(
            years, np.datetime64("2021-01-01T00:00:00.000000001"), None
        ).tolist()
        == []
    )


def test_nat_and_odd_bounds():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    assert simdfilter.filter_indexes(np.array([1, 2, 3], "M8[s]"), pd.NaT, None).tolist() == []
    assert simdfilter.filter_indexes(np.array([1, 2, 3], "m8[s]"), None, pd.NaT).tolist() == []
    with pytest.raises(TypeError, match="numeric data"):
        simdfilter.filter_indexes(np.arange(3), pd.NaT, None)
    f = np.array([np.inf, 1.0, -np.inf])
    big = np.longdouble("1e4000")
    if np.isfinite(big):  # long double wider than double on this platform
        assert simdfilter.filter_indexes(f, big, None, inclusive="neither").tolist() == [0]
        assert simdfilter.filter_indexes(f, None, -big, inclusive="neither").tolist() == [2]
    assert simdfilter.filter_indexes(np.arange(10), np.array(3), np.array([5])[0]).tolist() == [
        3,
        4,
        5,
    ]
    with pytest.raises(TypeError, match="timezone"):
        simdfilter.filter_indexes(np.array([1], "M8[s]"), "1970-01-01T00:00:02Z", None)


@settings(max_examples=examples(200), deadline=None)
@given(data=st.data())
def test_property_time_bounds_any_unit(data):
    """Random datetime64 data and bounds of any unit, including far outside the
    data unit's range, against the exact (Python-int) reference."""
    unit = data.draw(st.sampled_from(TIME_UNITS), label="data unit")
    ticks = data.draw(
        st.lists(st.integers(-(2**40), 2**40) | st.just(-(2**63)), max_size=40), label="ticks"
    )
    a = np.array(ticks, dtype=np.int64).view(f"M8[{unit}]")

    def bound(label):
        bunit = data.draw(st.sampled_from(TIME_UNITS), label=label + " unit")
        value = data.draw(st.integers(-(2**62), 2**62) | st.integers(-(2**40), 2**40), label=label)
        return data.draw(st.sampled_from([None, np.datetime64(value, bunit)]), label=label + "?")

    lo, hi = bound("lo"), bound("hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    for b in (lo, hi):
        # The reference turns calendar bounds into days with NumPy, which wraps
        # silently past int64 days: keep it to bounds it can convert exactly.
        if b is not None and np.datetime_data(b.dtype)[0] in ("Y", "M"):
            assume(b.astype("M8[D]").astype(b.dtype) == b)
    want = reference.filter_indexes(a, lo, hi, inclusive=inclusive)
    np.testing.assert_array_equal(simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive), want)


def test_time_bound_errors():
    d = np.array(["2020-01-01"], dtype="M8[s]")
    with pytest.raises(TypeError, match="datetime64 data"):
        simdfilter.filter_indexes(d, 0, 10)
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(d, np.timedelta64(1, "s"), None)
    with pytest.raises(ValueError, match="cannot read"):
        simdfilter.filter_indexes(d, "not a date", None)
    with pytest.raises(TypeError, match="timezone"):
        simdfilter.filter_indexes(d, dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), None)
    with pytest.raises(TypeError, match="does not apply to numeric data"):
        simdfilter.filter_indexes(np.arange(3), np.datetime64("2020"), None)
    # NumPy compares int data with a timedelta64 (as counts of its unit), not these:
    for data in (np.arange(3, dtype=np.uint64), np.arange(3.0), np.arange(3, dtype=np.float32)):
        with pytest.raises(TypeError, match="does not apply to numeric data"):
            simdfilter.filter_indexes(data, np.timedelta64(1, "s"), None)  # an np.integer!


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(simdfilter.filter_indexes, id="filter_indexes"),
        pytest.param(simdfilter.filter_values, id="filter_values"),
        pytest.param(simdfilter.count_in_range, id="count_in_range"),
        pytest.param(reference.filter_indexes, id="reference"),
    ],
)
def test_inclusive_none_is_refused(fn):
    """inclusive=None is not a mode (pandas' between() raises too), not 'both'."""
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="inclusive must be one of"):
        fn(a, 0, 1, inclusive=None)
