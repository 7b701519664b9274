"""One rule for bounds, the ecosystem's (issue 28): NumPy 2's.

Wherever NumPy 2 answers ``np.flatnonzero((a >= lo) & (a <= hi))`` without an
error or a warning, simdfilter gives that answer: a Python float on float32 data
is taken at float32, a Python int on float data as NumPy converts it, NumPy
scalars by NumPy's promotion, int64/uint64 data with a float bound compared in
float64. Where NumPy raises or warns, simdfilter compares the number exactly
(checked against ``simdfilter.reference``, the exact oracle). The pandas, Polars
and Dask faces give what their host gives. Each is checked against NumPy, pandas
and Polars themselves.
"""

import importlib
import math
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import _core, reference

from agree import generic_timedelta, numpy_answer
from arrays import MODES, edge_values
from bounds_before_44 import resolve as python_rule
from conftest import examples

NUMPY_SCALARS = [
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]
# Where conversions to float32/float64 and from int64/uint64 round.
EDGE_INTS = [
    2**24,
    2**24 + 1,
    2**24 + 3,
    2**53,
    2**53 + 1,
    2**53 + 3,
    2**60 + 2**36 + 1,  # rounds twice (int -> double -> float32) to another float32
    2**63 - 1,
    2**63,
    2**63 + 1,
    2**64 - 1,
    2**64,
    2**64 + 1,
    2**128 - 2**103,  # float32's FLT_MAX + half an ulp: overflows float32
    10**30,
    2**1023,
    2**1024,  # beyond every double: NumPy raises OverflowError
    10**400,
]
DTYPES = ["f4", "f8", "i8", "u8", "i4", "u1"]
# The rule is NumPy 2's. NumPy 1.x compares by value-based casting, and pandas and
# Polars on it (or Polars 1.x itself) answer their own way: against those hosts
# the comparisons below do not apply (CI's oldest-versions stage runs NumPy 1.23),
# and the rule is still checked by the exact-oracle tests above them.
NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
needs_numpy2 = pytest.mark.skipif(
    not NUMPY2, reason=f"NumPy {np.__version__} is not NumPy 2, whose answers the rule gives"
)
SETTINGS = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=list(HealthCheck)
)
# The hosts' comparisons (pandas, Polars, NumPy's timedelta64 casts) run 25
# examples per case in the quick loop, not a quarter of 300: 75 took 7.6 s of
# the quick loop's CPU (AMD EPYC Zen 4), each example a few pandas or Polars
# calls. The full suite runs 300, qemu's profile 75.
HOST_SETTINGS = settings(SETTINGS, max_examples=examples(300, quick=25))


class IntSub(int):
    pass


class FloatSub(float):
    pass


ints = st.tuples(
    st.sampled_from(EDGE_INTS) | st.integers(-(2**70), 2**70) | st.integers(-10, 10),
    st.booleans(),
).map(lambda t: -t[0] if t[1] else t[0])
floats = st.floats() | st.floats(width=32)


def _numpy_scalars(v):
    """`v` as every NumPy scalar type that takes it without an error or a warning."""
    out = []
    for t in NUMPY_SCALARS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                out.append(t(v))
            except (OverflowError, ValueError, RuntimeWarning):
                pass
    return out


@st.composite
def bounds(draw, kinds=("int", "float", "numpy", "subclass", "bool", "none")):
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None
    if kind == "int":
        return draw(ints)
    if kind == "float":
        return draw(floats)
    if kind == "bool":
        return draw(st.sampled_from([True, False, np.True_, np.False_]))
    if kind == "decimal":
        # At most 38 digits: Polars 2.1 panics on a wider Decimal literal.
        edge = st.sampled_from([Decimal(v) for v in EDGE_INTS if abs(v) < 10**30])
        return draw(edge | st.decimals(-(10**20), 10**20, places=6))
    v = draw(ints | floats)
    if kind == "subclass":
        return IntSub(v) if isinstance(v, int) else FloatSub(v)
    return draw(st.sampled_from(_numpy_scalars(v) or [np.int64(0)]))


def _near(dtype, bounds_):
    """Values of `dtype` at and around each bound's conversions (where rounding shows)."""
    dtype = np.dtype(dtype)
    out = []
    for b in bounds_:
        if b is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                x = np.array([b]).astype(dtype)[0]
            except (OverflowError, ValueError, TypeError):
                continue
        if dtype.kind == "f":
            out += [x, np.nextafter(x, dtype.type(np.inf)), np.nextafter(x, dtype.type(-np.inf))]
            continue
        info, xi = np.iinfo(dtype), int(x)
        h = max(1, int(math.ulp(float(xi))) // 2)  # half the gap of doubles there
        for d in (0, 1, -1, h, -h, h + 1, -h - 1, h - 1, 1 - h):
            if info.min <= xi + d <= info.max:
                out.append(xi + d)
    return out


def _data(dtype, lo, hi):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(edge_values(dtype) + _near(dtype, (lo, hi)), dtype=dtype)


def test_reported_reproducer():
    x = np.float32([-0.2, 0.2, 0.1, 0.3])
    assert np.flatnonzero((x >= -0.2) & (x <= 0.2)).tolist() == [0, 1, 2]
    assert simdfilter.filter_indexes(x, -0.2, 0.2).tolist() == [0, 1, 2]
    assert simdfilter.filter_values(x, -0.2, 0.2).tolist() == x[:3].tolist()
    assert simdfilter.count_in_range(x, -0.2, 0.2) == 3
    # np.float64 bounds promote float32 data to float64: compared exactly.
    assert simdfilter.filter_indexes(x, np.float64(-0.2), np.float64(0.2)).tolist() == [2]
    pd = pytest.importorskip("pandas")
    importlib.import_module("simdfilter.pandas")

    for dtype in ("float32", "Float32", "float32[pyarrow]"):
        if dtype.endswith("[pyarrow]"):
            pytest.importorskip("pyarrow")
        s = pd.Series(x, dtype=dtype)
        assert s.sf.between(-0.2, 0.2).tolist() == s.between(-0.2, 0.2).tolist(), dtype
    pl = pytest.importorskip("polars")
    importlib.import_module("simdfilter.polars")

    s = pl.Series(x)
    assert s.sf.between(-0.2, 0.2).to_list() == s.is_between(-0.2, 0.2).to_list()
    assert s.sf.between(-0.2, 0.2).to_list() == [True, True, True, False]


@needs_numpy2
def test_int_and_float_subclasses_are_read_as_the_numpy_running_reads_them():
    # NumPy 2.0.x (CPython 3.9's newest) takes subclasses of int and float for
    # NEP 50's weak scalars, as it takes int and float; 2.1 on reads them as
    # np.asarray does (int64, float64). Both paths follow the NumPy running.
    weak = np.lib.NumpyVersion(np.__version__) < "2.1.0"
    f32 = np.array([16777216.0, 16777218.0, 16777220.0, 2.0**60, 2.0**60 + 2**37], np.float32)
    cases = [
        # 2**24 + 1 at float32 is 2**24 (ties to even); in float64 it is itself.
        (FloatSub(16777217.0), None, [0, 1, 2, 3, 4] if weak else [1, 2, 3, 4]),
        (IntSub(16777217), None, [0, 1, 2, 3, 4] if weak else [1, 2, 3, 4]),
        # 2**24 + 3 at float32 is 2**24 + 4 (ties to even).
        (None, FloatSub(16777219.0), [0, 1, 2] if weak else [0, 1]),
        # int -> double -> float32 rounds twice, to 2**60; in float64, 2**60 + 2**36.
        (IntSub(2**60 + 2**36 + 1), None, [3, 4] if weak else [4]),
    ]
    for lo, hi, want in cases:
        assert numpy_answer(f32, lo, hi, "both").tolist() == want, (lo, hi)
        assert simdfilter.filter_indexes(f32, lo, hi).tolist() == want, (lo, hi)
        assert reference.filter_indexes(f32, lo, hi).tolist() == want, (lo, hi)
        assert _core._resolve_bounds(f32, lo, hi)[0] == "c", (lo, hi)
    # np.float64 is a float subclass too, and never weak.
    assert simdfilter.filter_indexes(f32, np.float64(16777217.0), None).tolist() == [1, 2, 3, 4]


def test_ints_as_numpy_converts_them():
    f64 = np.array([2.0**53, 2.0**53 + 2])
    assert simdfilter.filter_indexes(f64, 2**53 + 1, None).tolist() == [0, 1]  # -> 2**53
    f32 = np.array([2.0**60, 2.0**60 + 2**37], np.float32)
    # int -> double -> float32, rounding twice, as NumPy does
    assert simdfilter.filter_indexes(f32, None, 2**60 + 2**36 + 1).tolist() == [0]
    # NumPy raises OverflowError: the number is kept
    assert simdfilter.filter_indexes(f64, None, 10**400).tolist() == [0, 1]
    # int64 data meet a float in float64: 2**63 - 1 rounds to 2.0**63
    i64 = np.array([2**63 - 1, 2**62], np.int64)
    assert simdfilter.filter_indexes(i64, 2.0**63, None).tolist() == [0]
    assert simdfilter.filter_indexes(i64, 2**63, None).tolist() == []  # an int: exact


@needs_numpy2
@pytest.mark.parametrize("dtype", DTYPES)
@SETTINGS
@given(data=st.data())
def test_filter_indexes_is_numpys(dtype, data):
    lo, hi = data.draw(bounds(), label="lo"), data.draw(bounds(), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    a = _data(dtype, lo, hi)
    got = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    want = numpy_answer(a, lo, hi, inclusive)
    if want is None:  # NumPy raises or warns: the oracle, and there the number, exactly
        want = reference.filter_indexes(a, lo, hi, inclusive=inclusive)
        for b in (lo, hi):
            if type(b) in (int, float) and numpy_answer(a, b, None, "both") is None:
                exact = simdfilter.filter_indexes(a, Fraction(b), None)
                np.testing.assert_array_equal(simdfilter.filter_indexes(a, b, None), exact)
    np.testing.assert_array_equal(got, want)
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == len(want)


TIMEDELTA_UNITS = ["Y", "M", "W", "D", "h", "s", "ms", "ns"]
timedelta_counts = st.sampled_from([0, 1, -1, 127, 128, 255, 256, 2**31, 2**63 - 1, -(2**63) + 1])


@st.composite
def timedelta_or_int(draw):
    kind = draw(st.sampled_from(["timedelta64", "NaT", "int", "none"]))
    if kind == "none":
        return None
    if kind == "int":
        return draw(timedelta_counts | st.integers(-300, 300))
    unit = draw(st.sampled_from(TIMEDELTA_UNITS))
    if kind == "NaT":
        return np.timedelta64("NaT", unit)
    return np.timedelta64(draw(timedelta_counts | st.integers(-300, 300)), unit)


@needs_numpy2
@pytest.mark.parametrize("dtype", ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f4", "f8"])
@HOST_SETTINGS
@given(data=st.data())
def test_timedelta64_bounds_on_numeric_data_are_numpys(dtype, data):
    # NumPy casts integer and bool data to a timedelta64 bound's unit, so compares
    # them with the bound's count of units (NaT: with nothing); it refuses float
    # and uint64 data, and so do we (TypeError).
    lo, hi = data.draw(timedelta_or_int(), label="lo"), data.draw(timedelta_or_int(), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    a = _data(dtype, None, None)
    want = numpy_answer(a, lo, hi, inclusive)
    if want is None:
        with pytest.raises(TypeError):
            simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
        return
    np.testing.assert_array_equal(simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive), want)
    np.testing.assert_array_equal(reference.filter_indexes(a, lo, hi, inclusive=inclusive), want)
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == len(want)


@pytest.mark.parametrize("unit", ["s", "ns", "D"])
@pytest.mark.parametrize("as_type", [int, np.int64], ids=["int", "np.int64"])
def test_int_minimum_on_timedelta_data_is_nat(unit, as_type):
    # NumPy reads the int -2**63 as NaT on timedelta64 data: it matches nothing.
    a = np.array([-(2**63) + 1, -5, 0, 3, 2**63 - 1], dtype=np.int64).view(f"m8[{unit}]")
    low = as_type(-(2**63))
    for lo, hi in [(low, None), (None, low), (low, 5), (-3, low)]:
        want = numpy_answer(a, lo, hi, "both") if NUMPY2 else None
        if want is not None:  # None: NumPy 1.x, or 2.5 and later, which warn
            assert want.size == 0
        assert simdfilter.filter_indexes(a, lo, hi).size == 0, (lo, hi)
        assert simdfilter.count_in_range(a, lo, hi) == 0
    assert simdfilter.filter_indexes(a, low + 1, None).tolist() == [0, 1, 2, 3, 4]


@needs_numpy2
@pytest.mark.parametrize(
    "dtype",
    [
        "float32",
        "Float32",
        "float64",
        "int64",
        "bool",
        "boolean",
        "float32[pyarrow]",
        "double[pyarrow]",
        "int64[pyarrow]",
        "uint64[pyarrow]",
        "bool[pyarrow]",
    ],
)
@HOST_SETTINGS
@given(data=st.data())
def test_pandas_between_is_pandas(dtype, data):
    # Arrow-backed columns included, with ints, bools and NaN: pandas compares those
    # in Arrow's ways (a float in float64; an int rounded to float32 for >= but not
    # for <; NaN to null; an int past int64 refused), which the face follows.
    pd = pytest.importorskip("pandas")
    if dtype.endswith("[pyarrow]"):
        pytest.importorskip("pyarrow")
    importlib.import_module("simdfilter.pandas")

    kinds = ("int", "float", "numpy", "subclass", "bool")
    lo, hi = data.draw(bounds(kinds), label="lo"), data.draw(bounds(kinds), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    base = dtype.lower().replace("[pyarrow]", "").replace("double", "float64")
    if base in ("bool", "boolean"):
        s = pd.Series([False, True, True, False]).astype(dtype)
    else:
        s = pd.Series(_data(np.dtype(base), lo, hi)).astype(dtype)
    # Recorded, not raised: a warning raised inside pandas would change its answer.
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            want = s.between(lo, hi, inclusive=inclusive)
        except Exception as exc:  # pandas raises: so does every drop-in, the same type
            for verb in ("between", "filter", "count", "indexes"):
                with pytest.raises(type(exc)):
                    getattr(s.sf, verb)(lo, hi, inclusive)
            return
    if any(issubclass(w.category, RuntimeWarning) for w in warned):
        return  # pandas warns (a float32 overflow): simdfilter's exact answer is checked above
    pd.testing.assert_series_equal(s.sf.between(lo, hi, inclusive=inclusive), want)
    assert s.sf.count(lo, hi, inclusive=inclusive) == int(want.sum())
    hits = np.flatnonzero(want.to_numpy(dtype=bool, na_value=False))
    np.testing.assert_array_equal(s.sf.indexes(lo, hi, inclusive=inclusive), hits)


def _polars_want(pl, s, lo, hi, closed, expr):
    """Polars' own answer, through its Series methods or (`expr`) its expressions; a
    None end is the one comparison it leaves, NaN excluded (as the face does)."""
    x = pl.col("x") if expr else s
    if lo is not None and hi is not None:
        m = x.is_between(lo, hi, closed=closed)
    else:
        m = x == x  # True at every value (NaN too, in Polars)
        if lo is not None:
            m = m & (x >= lo if closed in ("both", "left") else x > lo)
        if hi is not None:
            m = m & (x <= hi if closed in ("both", "right") else x < hi)
        if s.dtype.is_float():
            m = m & ~x.is_nan()
    if expr:
        m = s.to_frame("x").select(m).to_series()
    return m.to_list()


@needs_numpy2
@pytest.mark.parametrize("dtype", ["Float32", "Float64", "Int64", "Int8", "UInt64"])
@pytest.mark.parametrize("face", ["series", "expr", "frame"])
@HOST_SETTINGS
@given(data=st.data())
def test_polars_between_is_polars(dtype, face, data):
    # Float32 with Python ints beyond 2**53 included: the Series methods round such
    # an int as NumPy does (to a double, then to float32); Polars' expressions
    # cast it once, or compare in Float64, depending on the other bound. NumPy
    # scalars, bools, int and float subclasses and Decimals too: an expression
    # casts to the supertype of the column and its literals, the Series method
    # casts each bound to the Series' dtype (OverflowError outside it). Each face
    # gives its own host's answer (a frame's host is df.filter(expression)), and
    # raises the exception type its host raises.
    pl = pytest.importorskip("polars")
    if int(pl.__version__.split(".")[0]) < 2:
        pytest.skip(
            f"Polars {pl.__version__} compares Python numbers its own way (Polars 2's is NumPy 2's)"
        )
    importlib.import_module("simdfilter.polars")

    kinds = ("int", "float", "none", "numpy", "bool", "subclass", "decimal")
    lo, hi = data.draw(bounds(kinds), label="lo"), data.draw(bounds(kinds), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    base = {"Float32": "f4", "Float64": "f8", "Int64": "i8", "Int8": "i1", "UInt64": "u8"}[dtype]
    s = pl.Series("x", _data(base, lo, hi))
    closed = "none" if inclusive == "neither" else inclusive

    def host():
        m = _polars_want(pl, s, lo, hi, closed, face != "series")
        return [i for i, v in enumerate(m) if v] if face == "frame" else m

    def ours():
        if face == "expr":
            return s.to_frame().select(pl.col("x").sf.between(lo, hi, closed)).to_series().to_list()
        if face == "frame":
            return s.to_frame().sf.indexes({"x": (lo, hi)}, closed=closed).to_list()
        return s.sf.between(lo, hi, closed).to_list()

    try:
        want = host()
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError) as exc:
        with pytest.raises(type(exc)):
            ours()
        return
    assert ours() == want


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@settings(max_examples=examples(25), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_dask_between_is_pandas(dtype, data):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    importlib.import_module("simdfilter.dask")

    kinds = ("int", "float", "numpy")
    lo, hi = data.draw(bounds(kinds), label="lo"), data.draw(bounds(kinds), label="hi")
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    s = pd.Series(_data(np.dtype(dtype), lo, hi))
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            want = s.between(lo, hi, inclusive=inclusive)
        except (OverflowError, TypeError, ValueError):
            return
    if any(issubclass(w.category, RuntimeWarning) for w in warned):
        return
    d = dd.from_pandas(s, npartitions=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pandas' own warnings where Dask falls back
        got = d.sf.between(lo, hi, inclusive=inclusive).compute(scheduler="sync")
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("lo, hi", [(0.0, 2**63), (-(2**63) - 1, 5.0), (0.0, 2**64 + 3)])
def test_polars_expression_int_past_int64_beside_a_float(lo, hi):
    # Found by hypothesis: with a float beside it, an int that fits Int64 makes the
    # expression compare in Float64, one past Int64 is compared exactly.
    pl = pytest.importorskip("polars")
    importlib.import_module("simdfilter.polars")
    s = pl.Series("x", _data("i8", lo, hi))
    for closed in ("both", "left", "right", "none"):
        try:
            want = _polars_want(pl, s, lo, hi, closed, expr=True)
        except (TypeError, OverflowError, pl.exceptions.PolarsError) as exc:
            with pytest.raises(type(exc)):
                s.to_frame().select(pl.col("x").sf.between(lo, hi, closed))
            continue
        got = s.to_frame().select(pl.col("x").sf.between(lo, hi, closed)).to_series()
        assert got.to_list() == want, closed


@needs_numpy2
@pytest.mark.parametrize("order", ["<", ">"])
def test_timedelta64_bound_on_int64_data_of_either_byte_order(order):
    # NumPy casts int64 data of either byte order to the bound's unit (-2**63 is NaT
    # then) and refuses uint64 of either; a dtype compared with `== np.int64` misses
    # the non-native one.
    a = np.array([-(2**63), -1, 0, 5, 2**63 - 1], dtype=f"{order}i8")
    for lo, hi in [(None, np.timedelta64(3, "s")), (-(2**63), np.timedelta64(3, "D"))]:
        want = numpy_answer(a, lo, hi, "both")
        assert want.tolist() == [1, 2]
        assert simdfilter.filter_indexes(a, lo, hi).tolist() == want.tolist()
        assert simdfilter.filter_indexes(a, lo, hi, invert=True).tolist() == [0, 3, 4]
        assert reference.filter_indexes(a, lo, hi).tolist() == want.tolist()
    u = np.arange(3, dtype=f"{order}u8")
    assert numpy_answer(u, np.timedelta64(1, "s"), None, "both") is None
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(u, np.timedelta64(1, "s"), None)
    with pytest.raises(TypeError):
        reference.filter_indexes(u, np.timedelta64(1, "s"), None)


@needs_numpy2
@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("unit", ["Y", "M", "W", "D", "h", "s", "ms", "ns", "ps", "3D", "25ns"])
def test_unitless_timedelta64_and_bool_bounds_on_timedelta_data_are_numpys(unit, order):
    # NumPy reads np.timedelta64(n) (no unit) and a bool as n, 0 or 1 ticks of the
    # data's unit, whatever the unit; both paths (C, and Python through a 0-d
    # array) and the reference answer so (issue 41, item 4).
    ticks = [-(2**63), -(2**63) + 1, -2, -1, 0, 1, 2, 3, 2**63 - 1]
    a = np.array(ticks, np.int64).view(f"m8[{unit}]").astype(f"{order}m8[{unit}]")
    bounds = [generic_timedelta(n) for n in (2, -(2**63) + 1, 2**63 - 1, "NaT")]
    bounds += [True, False, np.True_, np.False_, None]
    for lo in bounds:
        for hi in (None, generic_timedelta(3), True, 2):
            for inclusive in MODES:
                want = numpy_answer(a, lo, hi, inclusive)
                assert want is not None, (lo, hi)
                got = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
                np.testing.assert_array_equal(got, want, err_msg=repr((lo, hi, inclusive)))
                assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want.size
                if lo is not None:  # a 0-d array: read as its element, in C
                    wrapped = simdfilter.filter_indexes(a, np.array(lo), hi, inclusive=inclusive)
                    np.testing.assert_array_equal(wrapped, want, err_msg=repr((lo, inclusive)))
                np.testing.assert_array_equal(
                    reference.filter_indexes(a, lo, hi, inclusive=inclusive), want
                )
            c, py = (_core._resolve_bounds(a, lo, hi, python=p) for p in (None, python_rule))
            assert c == ("c", py[1]), (lo, hi)


@needs_numpy2
@pytest.mark.parametrize("bound", ["unitless 2", True, np.True_], ids=repr)
def test_unitless_timedelta64_and_bool_bounds_on_datetime_data_raise_as_numpy(bound):
    bound = generic_timedelta(2) if bound == "unitless 2" else bound
    a = np.array([0, 1, 2], np.int64).view("M8[s]")
    assert numpy_answer(a, bound, None, "both") is None
    with pytest.raises(TypeError):
        a >= bound
    for lo in (bound, np.array(bound)):
        with pytest.raises(TypeError):
            simdfilter.filter_indexes(a, lo, None)
