"""simdfilter.ZoneMap: the same answers as the functions, reading fewer blocks.

Every query of a ZoneMap is compared with the plain function on the same array
(itself tested against the reference elsewhere): every dtype, bound and
``inclusive`` (hypothesis), blocks at the edges (a short last block, one block,
blocks of one element), NaN/NaT blocks and all-NaN ones, layouts, ``out=``.
Two tests show the skipping itself, through data changed after the build.
"""

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from arrays import ALL_DTYPES, LAYOUTS, MODES, bound_strategy, data_strategy, dtype_id, edge_values
from conftest import examples

# The two scans below (every dtype, three queries an example) run 10 examples per
# dtype in the quick loop, not 25: 4.3 s of its CPU (AMD EPYC Zen 4). The full
# suite runs 100, qemu's profile 25.
SCANS = settings(max_examples=examples(100, quick=10))

pa = pytest.importorskip("pyarrow", reason="the Arrow columns are built with pyarrow")
pd = pytest.importorskip("pandas", reason="pandas columns are among the kinds")
pl = pytest.importorskip("polars", reason="Polars Series are among the kinds")


def same_answers(values, zm, lo, hi, inclusive="both", invert=False):
    kw = dict(inclusive=inclusive, invert=invert)
    try:
        want = simdfilter.filter_indexes(values, lo, hi, **kw)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            zm.filter_indexes(lo, hi, **kw)
        return
    got = zm.filter_indexes(lo, hi, **kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    want_values = simdfilter.filter_values(values, lo, hi, **kw)
    got_values = zm.filter_values(lo, hi, **kw)
    assert got_values.dtype == want_values.dtype
    np.testing.assert_array_equal(got_values, want_values)
    assert zm.count_in_range(lo, hi, **kw) == want.size


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@SCANS
@given(data=st.data())
def test_equals_the_scan(dtype, data):
    a = data.draw(data_strategy(dtype, max_size=300))
    if data.draw(st.booleans()):  # clustered: neighbours close, as the map wants
        a = np.sort(a)
    zm = simdfilter.ZoneMap(a, block=data.draw(st.integers(1, 70)))
    for _ in range(3):
        lo, hi = data.draw(bound_strategy(dtype)), data.draw(bound_strategy(dtype))
        same_answers(a, zm, lo, hi, data.draw(st.sampled_from(MODES)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@SCANS
@given(data=st.data())
def test_inverted_equals_the_scan(dtype, data):
    # invert=True: the values outside the range, NaN and NaT kept; blocks wholly
    # inside and clean are skipped, and count_in_range counts whole the blocks
    # that miss the range.
    a = data.draw(data_strategy(dtype, max_size=300))
    if data.draw(st.booleans()):
        a = np.sort(a)
    zm = simdfilter.ZoneMap(a, block=data.draw(st.integers(1, 70)))
    for _ in range(3):
        lo, hi = data.draw(bound_strategy(dtype)), data.draw(bound_strategy(dtype))
        same_answers(a, zm, lo, hi, data.draw(st.sampled_from(MODES)), invert=True)


@pytest.mark.parametrize("dtype", ["f4", "f8", "M8[ns]", "m8[s]"])
def test_nan_and_nat_blocks(dtype, rng):
    a = np.sort(rng.integers(0, 10_000, 5_000)).astype(dtype)
    missing = np.array("NaT" if dtype[0] in "Mm" else np.nan, dtype=dtype)
    a[1000:1200] = missing  # two whole blocks of 100, and parts of others
    a[1234] = missing
    a[-7:] = missing  # the end of the short last block
    a[:100] = missing  # the first block, all of it
    as_bound = (lambda v: v) if dtype[0] == "f" else (lambda v: np.array(v).astype(dtype)[()])
    for block in (1, 7, 100, 333, 4096, 10_000):
        zm = simdfilter.ZoneMap(a, block=block)
        for lo, hi in [(0, 10_000), (2_000, 2_500), (None, None), (9_990, None), (3_000, 2_000)]:
            for inclusive in MODES:
                lo_b = None if lo is None else as_bound(lo)
                hi_b = None if hi is None else as_bound(hi)
                same_answers(a, zm, lo_b, hi_b, inclusive)
                same_answers(a, zm, lo_b, hi_b, inclusive, invert=True)


def test_all_nan_and_empty():
    for a in (np.full(1000, np.nan), np.array([], dtype=np.float64), np.array([np.nan])):
        zm = simdfilter.ZoneMap(a, block=64)
        for invert in (False, True):
            same_answers(a, zm, None, None, invert=invert)
            same_answers(a, zm, 0.0, 1.0, invert=invert)
            same_answers(a, zm, 1.0, 0.0, invert=invert)  # an empty range


@pytest.mark.parametrize("layout", [n for n in LAYOUTS if n not in ("fortran", "fortran_square")])
@pytest.mark.parametrize("dtype", ["i1", "u2", "i8", "f4", "f8", "M8[s]", "?"], ids=str)
def test_layouts(layout, dtype, rng):
    base = np.sort(rng.integers(0, 1000, 3000)).astype(dtype)
    a = LAYOUTS[layout](base)
    if a.ndim > 1 and not a.flags.c_contiguous:
        with pytest.raises(ValueError, match="C-contiguous"):
            simdfilter.ZoneMap(a)
        return
    zm = simdfilter.ZoneMap(a, block=37)
    bounds = [(100, 200), (None, 5), (999, None), (True, True)]
    if dtype == "M8[s]":
        bounds = [(np.datetime64(lo, "s"), np.datetime64(hi, "s")) for lo, hi in [(100, 200)]]
    for lo, hi in bounds:
        same_answers(a, zm, lo, hi)
        same_answers(a, zm, lo, hi, invert=True)


def test_fortran_arrays_are_refused():
    with pytest.raises(ValueError, match="C-contiguous"):
        simdfilter.ZoneMap(np.asfortranarray(np.zeros((10, 10))))


def test_out_and_index_dtype(rng):
    a = np.sort(rng.random(50_000))
    zm = simdfilter.ZoneMap(a, block=256)
    out = np.empty(a.size, np.int64)
    got = zm.filter_indexes(0.25, 0.5, out=out)
    np.testing.assert_array_equal(got, simdfilter.filter_indexes(a, 0.25, 0.5))
    assert np.shares_memory(got, out) and got.dtype == np.int64
    assert zm.filter_indexes(0.25, 0.5, index_dtype=np.uint64).dtype == np.uint64
    vals = np.empty(a.size)
    got = zm.filter_values(0.1, 0.2, out=vals)
    np.testing.assert_array_equal(got, simdfilter.filter_values(a, 0.1, 0.2))
    assert np.shares_memory(got, vals)
    with pytest.raises(ValueError, match="at least values.size"):
        zm.filter_indexes(0.25, 0.5, out=np.empty(10, np.uint32))
    with pytest.raises(TypeError):
        zm.filter_indexes(0.25, 0.5, out=np.empty(a.size, np.float32))
    with pytest.raises(ValueError, match="inclusive"):
        zm.count_in_range(0.25, 0.5, inclusive="sideways")
    for method in (zm.filter_indexes, zm.filter_values, zm.count_in_range):
        with pytest.raises(TypeError, match="invert must be True, False or None"):
            method(0.25, 0.5, invert=1)
    # Not taken: the map chooses what it reads.
    with pytest.raises(TypeError, match="within"):
        zm.filter_indexes(0.25, 0.5, within=np.arange(3))
    with pytest.raises(TypeError, match="within"):
        zm.count_in_range(0.25, 0.5, within=np.arange(3))
    with pytest.raises(TypeError, match="assume_sorted"):
        zm.filter_values(0.25, 0.5, assume_sorted=True)


@pytest.mark.parametrize("index_dtype", [None, np.uint32, np.int64, np.uint64, np.intp])
@pytest.mark.parametrize("bounds", [(0.25, 0.5), (0.0, 0.01), (2.0, 3.0), (None, None), (0.5, 0.2)])
def test_index_dtype_is_the_functions(index_dtype, bounds, rng):
    # Several stretches, one, none that meets the range, an empty range: the
    # dtype is the function's for the whole array, the caller's index_dtype or not.
    a = np.sort(rng.random(20_000))
    a[15_000:15_100] = 0.3  # out of order: 0.25..0.5 meets a second stretch of blocks
    zm = simdfilter.ZoneMap(a, block=256)
    kw = {} if index_dtype is None else {"index_dtype": index_dtype}
    want = simdfilter.filter_indexes(a, *bounds, **kw)
    got = zm.filter_indexes(*bounds, **kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.slow
def test_index_dtype_from_2_to_the_32_elements():
    # 2**32 + 3 elements without their memory: one value, stride 0. The
    # function gives int64 positions from 2**32 elements on; so must the map,
    # though no stretch it reads is that long, and it refuses uint32 as the
    # function does. The function's answer is taken on the empty range: its
    # dtype depends on the length alone, and a scan of 2**32 elements costs
    # seconds (a minute under qemu).
    a = np.broadcast_to(np.array([5], np.uint8), (2**32 + 3,))
    zm = simdfilter.ZoneMap(a, block=2**24)
    for lo, hi in [(7, 9), (9, 7)]:  # no block meets the first; the second holds nothing
        for kw in ({}, {"index_dtype": np.uint64}):
            want = simdfilter.filter_indexes(a, 9, 7, **kw)
            got = zm.filter_indexes(lo, hi, **kw)
            assert got.dtype == want.dtype == kw.get("index_dtype", np.int64)
            assert got.size == want.size == 0
    for call in (
        lambda: simdfilter.filter_indexes(a, 9, 7, index_dtype=np.uint32),
        lambda: zm.filter_indexes(7, 9, index_dtype=np.uint32),
    ):
        with pytest.raises(ValueError, match="fewer than 2\\*\\*32"):
            call()


def test_refused_inputs():
    # What the functions refuse, the map refuses in their words.
    for bad in (np.zeros(4, np.float16), np.zeros(3, object), np.zeros(2, complex)):
        with pytest.raises(TypeError, match="simdfilter supports") as got:
            simdfilter.ZoneMap(bad)
        with pytest.raises(TypeError) as want:
            simdfilter.filter_indexes(bad, 0, 1)
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match="simdfilter compares numbers.*holds strings"):
        simdfilter.ZoneMap(np.array(["a"]))
    with pytest.raises(ValueError, match="block must be >= 1"):
        simdfilter.ZoneMap(np.zeros(3), block=0)
    with pytest.raises(TypeError, match="block must be an int"):
        simdfilter.ZoneMap(np.zeros(3), block=2.5)


@pytest.mark.parametrize("dtype", ["?", "u1", "i2", "f4", "f8", "M8[ns]"])
def test_memory_under_one_percent(dtype):
    a = np.zeros(1_000_000, dtype)
    zm = simdfilter.ZoneMap(a)
    assert zm.nbytes < 0.01 * a.nbytes
    assert zm.values is a and "ZoneMap(1,000,000 values" in repr(zm)


def test_blocks_out_of_range_are_not_read():
    # Changed after the build: the map still describes the old data, which
    # shows what it reads (the docs say to build a new map after a change).
    a = np.arange(10_000, dtype=np.float64)
    zm = simdfilter.ZoneMap(a, block=100)
    a[50] = 5_000.0  # in a block whose old [min, max] is [0, 99]
    assert 50 not in zm.filter_indexes(4_990, 5_010)
    assert 50 in simdfilter.filter_indexes(a, 4_990, 5_010)
    a[5_050] = -1.0  # in a block wholly inside [0, 9_999]: counted, not read
    assert zm.count_in_range(0, 9_999) == 10_000
    assert simdfilter.count_in_range(a, 0, 9_999) == 9_999
    fresh = simdfilter.ZoneMap(zm.values, block=zm.block)  # the refresh the docs give
    assert fresh.count_in_range(0, 9_999) == 9_999
    assert 50 in fresh.filter_indexes(4_990, 5_010)


def test_inverted_blocks_skipped_and_counted_whole():
    # As above, through data changed after the build: inverted, a block wholly
    # inside the range and clean is not read, and count_in_range counts a
    # block that misses the range without reading it.
    a = np.arange(10_000, dtype=np.float64)
    zm = simdfilter.ZoneMap(a, block=100)
    a[150] = -1.0  # in block 1, old [100, 199], wholly inside [0, 9_999]
    assert 150 not in zm.filter_indexes(0, 9_999, invert=True)
    assert 150 in simdfilter.filter_indexes(a, 0, 9_999, invert=True)
    a[50] = 500.0  # in block 0, old [0, 99], which misses [200, 9_999]
    assert zm.count_in_range(200, 9_999, invert=True) == 200  # blocks 0, 1: counted whole
    assert simdfilter.count_in_range(a, 200, 9_999, invert=True) == 199
    a[5_050] = np.nan  # a block read inverted: its NaN is found
    assert 5_050 in zm.filter_indexes(0, 4_000, invert=True)
    fresh = simdfilter.ZoneMap(zm.values, block=zm.block)
    assert 150 in fresh.filter_indexes(0, 9_999, invert=True)
    assert fresh.count_in_range(200, 9_999, invert=True) == 199 + 1  # the NaN


def test_edge_values_every_block_size():
    for dtype in ("i8", "u8", "f8"):
        a = np.sort(np.array(edge_values(dtype) * 3, dtype=dtype))
        for block in range(1, a.size + 2):
            zm = simdfilter.ZoneMap(a, block=block)
            for lo in edge_values(dtype)[:6]:
                for invert in (False, True):
                    same_answers(a, zm, lo, None, invert=invert)
                    same_answers(a, zm, None, lo, invert=invert)


def test_help_is_readable():
    assert "Examples" in simdfilter.ZoneMap.__doc__
    assert "build a new map" in simdfilter.ZoneMap.__doc__
    assert simdfilter.ZoneMap.filter_indexes.__doc__


@pytest.mark.parametrize("block", [2**61, 2**62, 2**63, 2**64 + 1, 10**30])
def test_block_past_the_array_is_one_block(block):
    # A block longer than the array is the array: NumPy refused the (0, block)
    # shape once block * itemsize passed 2**63 (issue 41, item 5).
    a = np.array([5, 1, 9, 3], dtype=np.int64)
    zm = simdfilter.ZoneMap(a, block=block)
    assert zm.block == block
    assert zm.filter_indexes(2, 6).tolist() == [0, 3]
    assert zm.count_in_range(2, 6) == 2
    assert zm.count_in_range(0, 10) == 4  # the one block wholly inside, counted unread
    assert zm.filter_values(2, 6, invert=True).tolist() == [1, 9]
    assert simdfilter.ZoneMap(a[:0], block=block).count_in_range(None, None) == 0


# -- Every column kind the functions take (issue 43, item 5) ------------------------------


def _same_result(got, want, ctx):
    """The map's result is the function's: same kind, dtype and values (a
    tz-aware column's values in its own kind, with its zone)."""
    assert type(got) is type(want), (ctx, type(got), type(want))
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype, (ctx, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=str(ctx))
    elif hasattr(want, "to_list"):  # Polars
        assert got.dtype == want.dtype and got.to_list() == want.to_list(), ctx
    elif hasattr(want, "equals") and not hasattr(want, "dtype"):  # pyarrow
        assert got.equals(want), ctx
    else:  # a pandas array
        assert got.dtype == want.dtype and list(got) == list(want), ctx


def same_column_answers(col, zm, lo, hi, inclusive="both", invert=False):
    kw = dict(inclusive=inclusive, invert=invert)
    ctx = (type(col).__name__, lo, hi, inclusive, invert)
    for name in ("filter_indexes", "filter_values", "count_in_range"):
        try:
            want = getattr(simdfilter, name)(col, lo, hi, **kw)
        except (TypeError, ValueError) as exc:
            with pytest.raises(type(exc)):
                getattr(zm, name)(lo, hi, **kw)
            continue
        got = getattr(zm, name)(lo, hi, **kw)
        if name == "count_in_range":
            assert got == want, ctx
        else:
            _same_result(got, want, (name,) + ctx)


def _with_nulls(values, rng, density):
    """A null mask over `values`: random, and a run of nulls wider than a block."""
    nulls = rng.random(values.size) < density
    if density:
        nulls[values.size // 3 : values.size // 3 + 40] = True
    return nulls


def _column_kinds(rng, density):
    """The same clustered data as every column kind the functions take, nulls
    at the same places: [(label, column, bounds)]."""
    n = 300
    ints = np.sort(rng.integers(-50, 50, n))
    nulls = _with_nulls(ints, rng, density)
    with_none = [None if m else int(v) for v, m in zip(ints, nulls)]
    floats = np.where(rng.random(n) < 0.05, np.nan, ints / 4.0)
    float_none = [None if m else float(v) for v, m in zip(floats, nulls)]
    bools = [None if m else bool(v % 3 == 0) for v, m in zip(ints, nulls)]
    number_bounds = [
        (-10, 10),
        (0, None),
        (None, -40),
        (None, None),
        (5, -5),
        ([-50, 30], [-45, 40]),
    ]
    float_bounds = [(-2.5, 2.5), (0.0, None), (float("nan"), 1.0), (None, None)]
    bool_bounds = [(True, True), (False, False), (None, None)]
    when = pd.date_range("2024-03-09 20:00", periods=n, freq="37min", tz="America/New_York")
    when = pd.Series(when, name="when").mask(pd.Series(nulls))
    tz_bounds = [
        ("2024-03-10", "2024-03-10 03:00"),  # New York wall times across the clock change
        (pd.Timestamp("2024-03-10T06:00Z"), None),
        (None, "2024-03-11 12:00-05:00"),
        (None, None),
    ]
    kinds = [
        ("numpy", ints, number_bounds),
        ("numpy.ma", np.ma.array(ints, mask=nulls), number_bounds),
        ("list", ints.tolist(), number_bounds),
        ("pandas int64", pd.Series(ints, name="x"), number_bounds),
        ("pandas Int64", pd.Series(with_none, dtype="Int64"), number_bounds),
        ("pandas Float64", pd.Series(float_none, dtype="Float64"), float_bounds),
        ("pandas boolean", pd.Series(bools, dtype="boolean"), bool_bounds),
        ("pandas int64[pyarrow]", pd.Series(with_none, dtype="int64[pyarrow]"), number_bounds),
        ("pandas tz-aware", when, tz_bounds),
        ("pandas tz-aware Index", pd.DatetimeIndex(when), tz_bounds),
        (
            "pandas tz-aware Arrow",
            when.astype(pd.ArrowDtype(pa.timestamp("ns", tz="America/New_York"))),
            tz_bounds,
        ),
        ("polars Int64", pl.Series("x", with_none, dtype=pl.Int64), number_bounds),
        ("polars Float32", pl.Series("x", float_none, dtype=pl.Float32), float_bounds),
        ("polars Boolean", pl.Series("x", bools, dtype=pl.Boolean), bool_bounds),
        ("polars Datetime tz", pl.from_pandas(when), tz_bounds),
        ("pyarrow Array", pa.array([None] * 5 + with_none, pa.int64()).slice(5), number_bounds),
        (
            "pyarrow ChunkedArray",
            pa.chunked_array(
                [pa.array(part, pa.int64()) for part in (with_none[:77], [], with_none[77:])]
            ),
            number_bounds,
        ),
        ("pyarrow bool", pa.array(bools, pa.bool_()), bool_bounds),
        ("pyarrow tz-aware", pa.array(when), tz_bounds),
        (
            "pyarrow date32",
            pa.array(
                [
                    None if v is None else dt.date(2024, 1, 1) + dt.timedelta(days=v + 50)
                    for v in with_none
                ],
                pa.date32(),
            ),
            [(dt.date(2024, 2, 1), dt.date(2024, 2, 20)), ("2024-02-10", None), (None, None)],
        ),
        (
            "pyarrow time64",
            pa.array(
                [None if v is None else (v + 50) * 60_000_000 for v in with_none], pa.time64("us")
            ),
            [(dt.time(0, 10), dt.time(1, 0)), (None, dt.time(0, 30)), (None, None)],
        ),
        (
            "pyarrow duration",
            pa.array([None if v is None else v * 1000 for v in with_none], pa.duration("ms")),
            [(dt.timedelta(seconds=-10), dt.timedelta(seconds=10)), (None, None)],
        ),
    ]
    return kinds


@pytest.mark.parametrize("density", [0.0, 0.2, 1.0])
def test_every_column_kind_gives_the_functions_answers(density, rng):
    # Before: "ZoneMap supports NumPy arrays of ... not Series" for every kind
    # but a plain ndarray.
    for label, col, bounds in _column_kinds(rng, density):
        for block in (1, 7, 64, 1000):
            zm = simdfilter.ZoneMap(col, block=block)
            assert zm.values is col
            for lo, hi in bounds:
                for inclusive in ("both", "neither"):
                    for invert in (False, True):
                        same_column_answers(col, zm, lo, hi, inclusive, invert)


def test_tz_aware_columns_keep_their_zone():
    ny = pd.Series(pd.date_range("2024-03-09 22:00", periods=6, freq="h", tz="America/New_York"))
    for col in (ny, pl.from_pandas(ny), pa.array(ny)):
        zm = simdfilter.ZoneMap(col, block=2)
        assert zm.filter_indexes("2024-03-10", "2024-03-10 03:00").tolist() == [2, 3, 4]
        assert zm.filter_indexes("2024-03-10T06:00Z", None).tolist() == [3, 4, 5]
        assert zm.count_in_range("2024-03-10 03:00", None) == 2
        later = zm.filter_values("2024-03-10 03:00", None)
        _same_result(later, simdfilter.filter_values(col, "2024-03-10 03:00", None), "values")
        with pytest.raises(TypeError, match="naive Timestamp"):
            zm.filter_indexes(pd.Timestamp("2024-03-10 00:00"), None)
    later = simdfilter.ZoneMap(ny, block=2).filter_values("2024-03-10 03:00", None)
    assert later.strftime("%d %H:%M %Z").tolist() == ["10 03:00 EDT", "10 04:00 EDT"]
    # out=: UTC datetime64, as the function writes it
    out = np.empty(6, "M8[us]" if ny.dtype.unit == "us" else f"M8[{ny.dtype.unit}]")
    got = simdfilter.ZoneMap(ny, block=2).filter_values("2024-03-10", None, out=out)
    want = simdfilter.filter_values(ny, "2024-03-10", None, out=np.empty_like(out))
    np.testing.assert_array_equal(got, want)


def test_blocks_of_nulls_only_are_not_read():
    # A block of nulls holds no match, inverted or not, and is never counted whole.
    s = pd.Series([1, 2, None, None, None, None, 3, 4], dtype="Int64")
    zm = simdfilter.ZoneMap(s, block=2)
    assert zm.count_in_range(None, None) == 4
    assert zm.count_in_range(10, 20, invert=True) == 4
    assert zm.count_in_range(1, 2, invert=True) == 2
    assert zm.count_in_range(1, 4) == 4
    assert zm.filter_indexes(None, None, invert=True).tolist() == []
    assert zm.filter_indexes(3, 4).tolist() == [6, 7]
    a = pa.array([5, None, 7, None])
    assert simdfilter.ZoneMap(a, block=1).count_in_range(7, 5, invert=True) == 2  # empty range
