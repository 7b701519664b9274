"""Every supported dtype and layout, every kernel, against the reference."""

import datetime as dt
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from conftest import KERNELS

INT_TYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]
FLOAT_TYPES = [np.float32, np.float64]
NUMERIC = INT_TYPES + FLOAT_TYPES + [np.bool_]
MODES = ["both", "left", "right", "neither"]


def edge_values(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = [info.min, info.min + 1, info.max - 1, info.max, 0, 1, 2]
        if dtype.kind == "i":
            vals += [-1, -2]
        else:
            vals += [info.max // 2, info.max // 2 + 1]
        return [int(v) for v in vals]
    info = np.finfo(dtype)
    tiny = float(info.smallest_subnormal)
    return [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(info.max), float(-info.max),
            tiny, -tiny, float(info.tiny), 0.5, 1.5, 2.0**24 + 1, -(2.0**53) - 1]


def data_strategy(dtype, max_size=200):
    dtype = np.dtype(dtype)
    edges = st.sampled_from(edge_values(dtype))
    if dtype.kind == "f":
        elems = edges | st.floats(width=dtype.itemsize * 8, allow_nan=True, allow_subnormal=True)
    elif dtype.kind == "b":
        elems = st.booleans()
    else:
        info = np.iinfo(dtype)
        elems = edges | st.integers(int(info.min), int(info.max))
    return st.lists(elems, max_size=max_size).map(lambda xs: np.array(xs, dtype=dtype))


def bound_strategy(dtype):
    dtype = np.dtype(dtype)
    extra = [None, -1, 0, 1, 2**63, -(2**63) - 1, 2**64, 1e19, -1e19, 1.5, -1.5, np.inf, -np.inf,
             np.nan, 2**53 + 1, -(2**53) - 1, 2**24 + 1, -0.0]
    return (st.sampled_from(edge_values(dtype) + extra) | st.integers(-(2**65), 2**65)
            | st.floats(allow_nan=True))


def assert_all_agree(a, lo, hi, inclusive="both"):
    want_idx = reference.filter_indexes(a, lo, hi, inclusive=inclusive)
    want_val = reference.filter_values(a, lo, hi, inclusive=inclusive)
    got_idx = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    got_val = simdfilter.filter_values(a, lo, hi, inclusive=inclusive)
    assert got_idx.dtype == want_idx.dtype
    np.testing.assert_array_equal(got_idx, want_idx)
    # 64-bit positions take their own kernel path (index64).
    got64 = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, index_dtype=np.int64)
    assert got64.dtype == np.int64
    np.testing.assert_array_equal(got64, want_idx)
    assert got_val.dtype == want_val.dtype
    # Compare bits: NaN never matches, and -0.0 must stay -0.0.
    assert got_val.tobytes() == want_val.tobytes()
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want_idx.size


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_property_every_dtype_and_kernel(dtype, data):
    a = data.draw(data_strategy(dtype), label="values")
    off = data.draw(st.integers(0, 7), label="offset")
    lo, hi = data.draw(bound_strategy(dtype), label="lo"), data.draw(bound_strategy(dtype), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    buf = np.zeros(a.size + off, dtype=a.dtype)
    buf[off:] = a
    for name in KERNELS:
        with simdfilter.use_kernel(name):
            assert_all_agree(buf[off:], lo, hi, inclusive)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_every_length_edges(kernel, dtype, rng):
    """Lengths 0..130 (covers every vector width's tail) of edge-crowded data."""
    edges = np.array(edge_values(dtype), dtype=dtype)
    buf = rng.choice(edges, size=200)
    edge_bounds = [v for v in edge_values(dtype) if not (isinstance(v, float) and np.isnan(v))]
    pairs = [(lo, hi) for lo in edge_bounds[:6] for hi in edge_bounds[:6]] + [(None, None)]
    for n in range(131):
        a = buf[n % 9: n % 9 + n]
        for lo, hi in pairs[:: 1 + n % 5]:
            assert_all_agree(a, lo, hi)


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_large_random(kernel, dtype, rng):
    n = 300_001
    if np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(n) * 100).astype(dtype)
        a[::97] = np.nan
        lo, hi = -30.5, 80
    elif np.dtype(dtype).kind == "b":
        a = rng.integers(0, 2, size=n).astype(bool)
        lo, hi = True, True
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
        lo, hi = int(info.min) // 3, int(info.max) // 2
    assert_all_agree(a, lo, hi)


LAYOUTS = ["strided", "reversed", "column", "byteswapped", "byteswapped_strided", "fortran",
           "c2d", "transposed3d", "unaligned"]


def make_layout(layout, base):
    if layout == "strided":
        return base[::3]
    if layout == "reversed":
        return base[::-1]
    if layout == "column":
        return base[: base.size // 5 * 5].reshape(-1, 5)[:, 2]
    if layout == "byteswapped":
        return base.astype(base.dtype.newbyteorder())
    if layout == "byteswapped_strided":
        return base.astype(base.dtype.newbyteorder())[::-2]
    if layout == "fortran":
        return np.asfortranarray(base[: base.size // 6 * 6].reshape(-1, 6))
    if layout == "c2d":
        return base[: base.size // 6 * 6].reshape(6, -1)
    if layout == "transposed3d":
        return base[: base.size // 12 * 12].reshape(2, 3, -1).transpose(1, 2, 0)
    if layout == "unaligned":
        raw = np.zeros(base.nbytes + 1, dtype=np.uint8)
        view = raw[1:].view(base.dtype)
        view[:] = base
        return view
    raise AssertionError(layout)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_layouts(kernel, dtype, layout, rng):
    edges = np.array(edge_values(dtype), dtype=dtype)
    base = rng.choice(edges, size=5003)
    a = make_layout(layout, base)
    vals = [v for v in edge_values(dtype) if not (isinstance(v, float) and np.isnan(v))]
    v = lambda i: vals[i % len(vals)]  # noqa: E731
    for lo, hi in [(v(0), v(3)), (v(1), v(-1)), (None, v(2)), (v(4), None)]:
        assert_all_agree(a, lo, hi)
    np.testing.assert_array_equal(simdfilter.filter_indexes(a, None, None),
                                  np.flatnonzero(reference.in_range_mask(a, None, None, "both")))


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
    assert simdfilter.filter_indexes(f64, 2**53 + 1, None).tolist() == [1, 5]
    assert simdfilter.filter_indexes(f64, None, 2**53 + 1).tolist() == [0, 3, 4]
    assert simdfilter.filter_indexes(f64, 0.0, 0.0).tolist() == [3, 4]
    assert simdfilter.filter_indexes(f64, -0.0, 0.0, inclusive="neither").tolist() == []
    assert simdfilter.filter_indexes(f64, 1, np.inf, inclusive="left").tolist() == [0, 1]
    assert simdfilter.filter_indexes(f64, np.nan, None).tolist() == []
    f32 = np.array([16777216.0, 16777218.0], dtype=np.float32)  # 2**24 and the next float32
    assert simdfilter.filter_indexes(f32, 2**24 + 1, None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, 16777216.5, None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, Fraction(2**25 + 1, 2), None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, Decimal("16777216.000001"), None).tolist() == [1]
    assert simdfilter.filter_indexes(f32, None, 1e300).tolist() == [0, 1]
    b = np.array([False, True, True])
    assert simdfilter.filter_indexes(b, True, True).tolist() == [1, 2]
    assert simdfilter.filter_indexes(b, False, False).tolist() == [0]
    assert simdfilter.filter_values(b, 0.5, None).tolist() == [True, True]
    assert simdfilter.filter_indexes(b, np.True_, np.True_).tolist() == [1, 2]  # no __index__
    assert simdfilter.filter_indexes(np.arange(3), np.False_, np.True_).tolist() == [0, 1]


@pytest.mark.parametrize("unit", ["D", "s", "ms", "ns"])
def test_datetime64(kernel, unit):
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    days = np.array(["2019-12-31", "2020-01-01", "NaT", "2020-06-15", "2021-01-01", "1969-12-31"],
                    dtype="M8[D]").astype(f"M8[{unit}]")
    a = np.concatenate([days] * 20)  # long enough for the vector loops
    bounds = [
        ("2020-01-01", "2020-12-31"),
        (np.datetime64("2020-01-01T00:00:00.5"), None),
        (None, np.datetime64("2020-01-01T00:00:00.000000001")),
        (dt.date(2020, 1, 1), dt.datetime(2020, 6, 15)),
        (pd.Timestamp("2019-12-31 12:00"), pd.Timestamp("2021-01-01")),
        (np.datetime64("NaT"), None),
        (None, None),
        (np.datetime64("1969-12-31"), np.datetime64("1970-01-01")),
    ]
    for lo, hi in bounds:
        for mode in MODES:
            assert_all_agree(a, lo, hi, mode)
    assert simdfilter.filter_indexes(days, "2020-01-01", "2020-12-31").tolist() == [1, 3]
    assert simdfilter.filter_indexes(days, None, None).tolist() == [0, 1, 3, 4, 5]


def test_timedelta64(kernel):
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    a = np.array([0, 1500, -1, np.iinfo(np.int64).min, 3_600_000], dtype="m8[ms]")
    a = np.concatenate([a] * 13)
    for lo, hi in [(np.timedelta64(1, "s"), np.timedelta64(1, "h")), (0, 1500),
                   (dt.timedelta(seconds=-1), pd.Timedelta("1h")), (np.timedelta64("NaT"), 0),
                   (np.timedelta64(1, "us"), None)]:
        for mode in MODES:
            assert_all_agree(a, lo, hi, mode)


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
    with pytest.raises(TypeError, match="does not apply to numeric data"):
        simdfilter.filter_indexes(np.arange(3), np.timedelta64(1, "s"), None)  # an np.integer!


@pytest.mark.parametrize("dtype", NUMERIC + ["M8[s]"], ids=lambda d: np.dtype(d).name)
def test_filter_values_out(dtype):
    a = np.arange(100).astype(dtype)
    out = np.empty(100, dtype=dtype)
    lo, hi = (a[10], a[20]) if np.dtype(dtype).kind != "b" else (True, True)
    got = simdfilter.filter_values(a, lo, hi, out=out)
    assert got.base is out
    np.testing.assert_array_equal(got, reference.filter_values(a, lo, hi))
    with pytest.raises(TypeError, match="dtype"):
        simdfilter.filter_values(a, lo, hi, out=np.empty(100, dtype=np.complex64))


def test_filter_values_byteswapped_comes_out_native():
    a = np.arange(10, dtype=">i4")
    got = simdfilter.filter_values(a, 2, 4)
    assert got.dtype == np.dtype("=i4") and got.tolist() == [2, 3, 4]


def _slow_path(b):
    """The same bound as an object only simdfilter._bounds (Python) resolves."""
    if b is None:
        return None
    if isinstance(b, (float, np.floating)):
        return Decimal(float(b))  # exact, and keeps NaN and infinities
    return Fraction(int(b))


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_c_and_python_bound_paths_agree(dtype, data):
    """The C fast path (ints, floats) and the exact Python path give the same ranges."""
    lo, hi = data.draw(bound_strategy(dtype), label="lo"), data.draw(bound_strategy(dtype), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    a = np.array(edge_values(dtype) * 3, dtype=dtype)
    fast = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    slow = simdfilter.filter_indexes(a, _slow_path(lo), _slow_path(hi), inclusive=inclusive)
    np.testing.assert_array_equal(fast, slow)


# ---- regressions found in review -------------------------------------------------


def test_open_float_bounds_beyond_2_53_on_integers():
    a = np.array([2**60, 2**60 + 1, 2**60 - 1], np.int64)
    assert simdfilter.filter_indexes(a, 2.0**60, None, inclusive="neither").tolist() == [1]
    assert simdfilter.filter_indexes(a, None, 2.0**60, inclusive="neither").tolist() == [2]
    m = np.array([-(2**63), -(2**63) + 1])
    assert simdfilter.filter_indexes(m, -(2.0**63), None, inclusive="neither").tolist() == [1]
    u = np.array([2**53, 2**53 + 1], np.uint64)
    assert simdfilter.filter_indexes(u, 2.0**53, None, inclusive="neither").tolist() == [1]


def test_time_bounds_beyond_the_units_range_are_not_wrapped():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    a = np.array(["2000-01-01", "2020-06-01", "2250-01-01", "NaT"], "M8[ns]")
    for lo, hi in [(None, "9999-12-31"), ("1000-01-01", None), (None, dt.date(3000, 1, 1)),
                   (np.datetime64("-200000-01-01"), np.datetime64("200000-01-01"))]:
        assert simdfilter.filter_indexes(a, lo, hi).tolist() == [0, 1, 2]
        np.testing.assert_array_equal(simdfilter.filter_indexes(a, lo, hi),
                                      reference.filter_indexes(a, lo, hi))
    assert simdfilter.filter_indexes(a, "9999-12-31", None).tolist() == []
    # What pandas gives for the same open end:
    assert pd.Series(a[:3]).between(pd.Timestamp.min, "9999-12-31").all()
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
    assert simdfilter.filter_indexes(years, np.datetime64("2021-01-01T00:00:00.000000001"), None).tolist() == []


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
    assert simdfilter.filter_indexes(np.arange(10), np.array(3), np.array([5])[0]).tolist() == [3, 4, 5]
    with pytest.raises(TypeError, match="timezone"):
        simdfilter.filter_indexes(np.array([1], "M8[s]"), "1970-01-01T00:00:02Z", None)


def test_bool_bytes_other_than_0_and_1_are_true(kernel):
    raw = np.array([0, 1, 2, 255] * 40, np.uint8).view(np.bool_)
    assert simdfilter.count_in_range(raw, None, None) == raw.size
    np.testing.assert_array_equal(simdfilter.filter_indexes(raw, True, True), np.flatnonzero(raw))
    np.testing.assert_array_equal(simdfilter.filter_indexes(raw, False, False), np.flatnonzero(~raw))
    np.testing.assert_array_equal(simdfilter.filter_indexes(raw, True, True),
                                  reference.filter_indexes(raw, True, True))


TIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_property_time_bounds_any_unit(data):
    """Random datetime64 data and bounds of any unit, including far outside the
    data unit's range, against the exact (Python-int) reference."""
    unit = data.draw(st.sampled_from(TIME_UNITS), label="data unit")
    ticks = data.draw(st.lists(st.integers(-(2**40), 2**40) | st.just(-(2**63)), max_size=40),
                      label="ticks")
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


@pytest.mark.parametrize("shape", [(3, 5), (40000, 3), (7, 1023), (5, 1024), (4, 1025), (20, 3, 4),
                                   (0, 3), (3, 0), (16385, 1)])
@pytest.mark.parametrize("dtype", ["u1", ">u2", "f4", "i8"])
def test_nd_rows_short_and_long(kernel, shape, dtype):
    """Non-C-contiguous N-d arrays: short rows are batched (16 Ki elements at a
    time), long rows filtered one by one; the boundary sits at 1024 columns."""
    b = np.random.default_rng(1).integers(0, 10, size=shape).astype(dtype)
    views = [b.T, np.asfortranarray(b)]
    views.append(b[:, ::-1] if b.ndim == 2 else b.transpose(2, 0, 1))
    for v in views:
        mask = (v >= 3) & (v <= 6)
        np.testing.assert_array_equal(simdfilter.filter_indexes(v, 3, 6), np.flatnonzero(mask))
        np.testing.assert_array_equal(simdfilter.filter_values(v, 3, 6), v.ravel()[mask.ravel()])
