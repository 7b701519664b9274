"""simdfilter.ZoneMap: the same answers as the functions, reading fewer blocks.

Every query of a ZoneMap is compared with the plain function on the same array
(itself tested against the reference elsewhere): every dtype, bound and
``inclusive`` (hypothesis), blocks at the edges (a short last block, one block,
blocks of one element), NaN/NaT blocks and all-NaN ones, layouts, ``out=``.
Two tests show the skipping itself, through data changed after the build.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdfilter
from arrays import ALL_DTYPES, LAYOUTS, MODES, bound_strategy, data_strategy, dtype_id, edge_values


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
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    for bad in (
        [1, 2, 3],
        pd.Series([1.0, 2.0]),
        np.ma.array([1, 2], mask=[0, 1]),
        np.zeros(4, np.float16),
        np.array(["a"]),
        np.zeros(3, object),
    ):
        with pytest.raises(TypeError, match="ZoneMap supports"):
            simdfilter.ZoneMap(bad)
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
