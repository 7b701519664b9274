"""Membership in a set of numbers: ``simdfilter.isin(values, items)`` and
``isin=items`` in place of ``lo, hi`` in filter_indexes, filter_values and
count_in_range.

The answers are NumPy 2's ``np.isin(values, items)``: every kernel pinned in
turn, every dtype (NaN and NaT never match, -0.0 equals 0.0), items of the
data's dtype and of others (2.5 never matches integers, 3.0 matches 3, items
outside the dtype match nothing, float64's 0.1 is not float32's), sets of 0, 1,
8, 9, 1,000 and 10^5 items (a few merged ranges compared in registers; many
looked up in a bitmap over their span, or by binary search over their sorted
values), duplicates, ``invert``, threads, nulls, ``within=`` and
``assume_sorted``; and the errors for a call that gives both a range and a set,
or neither, or items that are not numbers.
"""

import numpy as np
import pytest

import simdfilter

from arrays import ALL_DTYPES, KERNEL_DTYPES, dtype_id, edge_array, edge_values

SET_SIZES = (0, 1, 8, 9, 1000)


def answers(a, items, invert=False):
    """Every op's answer through simdfilter, as NumPy-comparable arrays."""
    return dict(
        mask=simdfilter.isin(a, items, invert=invert),
        indexes=simdfilter.filter_indexes(a, isin=items, invert=invert),
        values=simdfilter.filter_values(a, isin=items, invert=invert),
        count=simdfilter.count_in_range(a, isin=items, invert=invert),
    )


NUMPY1 = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def skip_where_numpy1_rounds(a, items):
    """NumPy 1 compares 64-bit integers with integers of the other signedness (and
    with Python ints in an object array) as doubles; NumPy 2, whose answers isin
    gives, exactly. On NumPy 1 those comparisons have no answer to hold isin to."""
    it = np.asarray(items)
    mixed = it.dtype == object or (it.dtype.kind in "iu" and it.dtype.kind != a.dtype.kind)
    if NUMPY1 and a.dtype.kind in "iu" and a.dtype.itemsize == 8 and mixed:
        pytest.skip(
            f"NumPy {np.__version__} is not NumPy 2, whose answers isin gives: it compares "
            f"{a.dtype} data with {it.dtype} items as doubles"
        )


def check(a, items, invert=False):
    """simdfilter's every op against np.isin on the same items."""
    skip_where_numpy1_rounds(a, items)
    want = np.isin(a.ravel(), np.asarray(items), invert=invert)
    got = answers(a, items, invert)
    assert got["mask"].dtype == np.bool_
    np.testing.assert_array_equal(got["mask"], want)
    np.testing.assert_array_equal(got["indexes"], np.flatnonzero(want).astype(np.uint32))
    assert got["indexes"].dtype == np.uint32
    np.testing.assert_array_equal(
        got["values"].view(np.uint8),
        a.ravel()[want].astype(a.dtype.newbyteorder("=")).view(np.uint8),
    )
    assert got["count"] == int(want.sum())


def items_of(rng, dtype, a, k):
    """k items of `dtype`: half drawn from the data, half from its edge values
    (NaN and NaT included), duplicates allowed."""
    edges = np.array(edge_values(dtype), dtype=dtype)
    from_data = rng.choice(a.ravel(), size=k // 2) if a.size else edges[:0]
    return np.concatenate([from_data, rng.choice(edges, size=k - k // 2)]).astype(dtype)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_every_kernel_and_set_size(kernel, rng, dtype):
    a = edge_array(dtype, 4099, rng)  # past two 2,048-element blocks
    for k in SET_SIZES:
        items = items_of(rng, dtype, a, k)
        check(a, items)
        check(a, items, invert=True)
        check(a[: 1 + k % 70], items)  # a short array: one kernel call


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_dtype_with_items_of_its_own_and_as_a_list(rng, dtype):
    a = edge_array(dtype, 300, rng).reshape(3, 100)  # N-d: flat C order, as np.isin
    for k in (1, 8, 9, 40):
        items = items_of(rng, dtype, a, k)
        check(a, items)
        check(a, items, invert=True)
        objects = np.array(list(items), dtype=object)  # read one by one: the same answers
        if dtype.kind in "mM":  # np.isin compares M8/m8 data with objects as ints
            np.testing.assert_array_equal(simdfilter.isin(a, objects), np.isin(a.ravel(), items))
        else:
            check(a, objects)


@pytest.mark.parametrize(
    "dtype, items",
    [
        ("int64", [2.5, 3.0, -1.0, 1e30, np.nan, -0.0]),
        ("int32", np.array([2.5, 3.0, 2**31, -(2**31) - 1], dtype=np.float64)),
        ("uint8", [-1, 256, 255, 0]),
        ("uint8", np.array([-1, 256, 255, 7], dtype=np.int16)),
        ("int8", np.array([127, 128, -129, -128], dtype=np.int64)),
        ("uint64", np.array([2**64 - 1, 2**63, 5], dtype=np.uint64)),
        ("uint64", np.array([-1, 5, 2**62], dtype=np.int64)),
        ("int64", np.array([2**63 - 1, 2**63, 2**64 - 1], dtype=np.uint64)),
        ("int64", np.array([2.0**53, 2.0**53 + 2, 2.0**63, -(2.0**63)])),  # NumPy rounds int64
        ("float32", [0.1, 0.5, -0.0, np.inf, np.nan]),  # float64's 0.1 is no float32
        ("float32", np.array([0.1, 0.5], dtype=np.float32)),
        ("float32", np.array([3, 2**24 + 1, 16777217], dtype=np.int32)),
        ("float64", np.array([2**53 + 1, 3], dtype=np.int64)),  # rounded to a double by NumPy
        ("float64", np.array([1.5, 2], dtype=np.float16)),
        ("bool", [1, 2, 0.5]),
        ("bool", [True]),
        ("bool", np.array([0], dtype=np.uint64)),
    ],
)
def test_items_of_another_type_answer_as_np_isin(dtype, items):
    dtype = np.dtype(dtype)
    base = edge_values(dtype) + ([3, 7, 2**24 + 1] if dtype.kind == "f" else [])
    extra = [5, 7, 3, 2**53, 2**62] if dtype.kind in "iu" and dtype.itemsize == 8 else []
    a = np.array(base + extra, dtype=dtype)
    a = np.concatenate([a] * 5)  # 9+ distinct ranges or not, and several blocks
    check(a, items)
    check(a, items, invert=True)


@pytest.mark.parametrize("k", [9, 100, 10**5])
@pytest.mark.parametrize(
    "dtype, span",
    [
        ("uint8", 256),
        ("int16", 2**16),
        ("uint32", 10**6),  # a bitmap over the span
        ("int32", 2**32),  # wide: sorted intervals searched
        ("int64", 2**62),
        ("uint64", 2**64),
        ("float32", 10**6),
        ("float64", 2**40),
        ("M8[ns]", 10**6),
        ("m8[s]", 2**62),
    ],
)
def test_large_sets(rng, dtype, span, k):
    dtype = np.dtype(dtype)
    lo = -(span // 2) if dtype.kind in "ifmM" else 0
    if dtype.kind == "b" or (dtype.kind == "u" and dtype.itemsize == 8):
        draw = lambda n: rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)  # noqa: E731
    else:
        draw = lambda n: rng.integers(lo, lo + span, n)  # noqa: E731
    raw = draw(20_000)
    a = raw.astype(dtype) if dtype.kind not in "mM" else raw.astype(np.int64).view(dtype)
    items_raw = np.concatenate([draw(k // 2), rng.choice(raw, k - k // 2)])
    items = (
        items_raw.astype(dtype)
        if dtype.kind not in "mM"
        else items_raw.astype(np.int64).view(dtype)
    )
    check(a, items)
    check(a, items, invert=True)


def test_signed_items_around_zero_and_the_ends(rng):
    """A bitmap in the signed order: items from -5 to 5 and the type's ends."""
    for dtype in (np.int8, np.int16, np.int32, np.int64):
        info = np.iinfo(dtype)
        a = rng.integers(-20, 20, 5000).astype(dtype)
        a[::97] = info.min
        a[::89] = info.max
        for items in (np.arange(-5, 6), np.array([info.min, info.max, 0, -1, 1, 3, -3, 9, -9])):
            check(a, items.astype(dtype))
            check(a, items.astype(dtype), invert=True)


def test_duplicates_and_order_do_not_matter(rng):
    a = rng.integers(0, 50, 3000).astype(np.uint16)
    items = rng.integers(0, 60, 40)
    want = simdfilter.isin(a, items)
    for same in (items[::-1], np.repeat(items, 3), list(set(items.tolist())), set(items.tolist())):
        np.testing.assert_array_equal(simdfilter.isin(a, same), want)
    np.testing.assert_array_equal(want, np.isin(a, items))


def test_no_items():
    a = np.array([1.0, np.nan, 3.0])
    for empty in ([], (), np.array([], dtype=np.int64), set()):
        assert not simdfilter.isin(a, empty).any()
        assert simdfilter.isin(a, empty, invert=True).all()  # NaN is in no set
        assert simdfilter.count_in_range(a, isin=empty) == 0
        assert simdfilter.filter_indexes(a, isin=empty, invert=True).tolist() == [0, 1, 2]


def test_nan_nat_and_signed_zero():
    a = np.array([0.0, -0.0, np.nan, 1.0, -np.inf])
    assert simdfilter.isin(a, [np.nan]).tolist() == [False] * 5
    assert simdfilter.isin(a, [-0.0]).tolist() == [True, True, False, False, False]
    assert simdfilter.isin(a, [0.0, np.nan], invert=True).tolist() == [
        False,
        False,
        True,
        True,
        True,
    ]
    t = np.array(["2020-01-01", "NaT", "2020-01-02T00:00:00.5"], dtype="M8[ms]")
    assert simdfilter.isin(t, np.array(["NaT", "2020-01-01"], dtype="M8[D]")).tolist() == [
        True,
        False,
        False,
    ]
    assert simdfilter.isin(t, np.array(["2020-01-02"], dtype="M8[s]")).tolist() == [False] * 3
    assert simdfilter.isin(t, ["2020-01-01"]).tolist() == [True, False, False]  # ISO strings
    check(t, np.array(["NaT", "2020-01-01", "2020-01-02T00:00:00.5"], dtype="M8[ms]"))


@pytest.mark.parametrize("dtype", ["uint32", "float64", "int16"])
@pytest.mark.parametrize("k", [3, 1000])
def test_threads(rng, dtype, k):
    """Long enough for two threads (and a team's blocks of the masks)."""
    a = rng.integers(0, 3000, 600_011).astype(dtype)
    items = rng.integers(0, 3000, k).astype(dtype)
    want = np.isin(a, items)
    np.testing.assert_array_equal(simdfilter.isin(a, items, threads=2), want)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(a, isin=items, threads=2), np.flatnonzero(want).astype(np.uint32)
    )
    assert simdfilter.count_in_range(a, isin=items, threads=2, invert=True) == int((~want).sum())


def test_layouts_within_and_sorted(rng):
    a = rng.integers(-100, 100, 10_000).astype(np.int32)
    items = rng.integers(-120, 120, 30)
    want = np.isin(a, items)
    for view in (a[::3], a[::-1], a.byteswap().view(a.dtype.newbyteorder())):
        np.testing.assert_array_equal(simdfilter.isin(view, items), np.isin(view, items))
    within = np.arange(0, a.size, 7, dtype=np.uint32)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(a, isin=items, within=within), within[want[within]]
    )
    assert simdfilter.count_in_range(a, isin=items, within=within) == int(want[within].sum())
    s = np.sort(a)
    for k in (3, 30, 600):
        items = rng.integers(-120, 120, k)
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(s, isin=items, assume_sorted=True),
            np.flatnonzero(np.isin(s, items)).astype(np.uint32),
        )


def test_out(rng):
    a = rng.integers(0, 100, 1000)
    out = np.zeros(1200, dtype=bool)
    r = simdfilter.isin(a, [1, 2, 3], out=out)
    assert np.shares_memory(r, out)
    np.testing.assert_array_equal(r, np.isin(a, [1, 2, 3]))


def test_nulls_never_match():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1, None, 3, 4], dtype="Int64")
    assert simdfilter.isin(s, [1, 3]).tolist() == [True, False, True, False]
    assert simdfilter.isin(s, [1, 3], invert=True).tolist() == [False, False, False, True]
    pa = pytest.importorskip("pyarrow")
    arr = pa.chunked_array([[1, None, 3], [None, 5]])
    assert simdfilter.filter_indexes(arr, isin=[1, 5, 7]).tolist() == [0, 4]
    assert simdfilter.count_in_range(arr, isin=[1, 5], invert=True) == 1


@pytest.mark.parametrize("k", [100, 5_000, 40_000])
def test_the_hash_table_s_empty_mark_as_a_value_and_an_item(rng, k):
    """The table marks free slots with one int64 value (lib/ranges.c); as data and as
    an item it is a value like any other, in the branch-free table (100, 5,000 items)
    and the probed one (40,000)."""
    mark = 0x7FF4DEADBEEF1234
    a = rng.integers(-(2**62), 2**62, 5000)
    a[::7] = mark
    items = rng.integers(-(2**62), 2**62, k)
    items[: k // 4] = rng.choice(a, k // 4)
    items = items[items != mark]
    check(a, items)
    check(a, items, invert=True)
    items[3] = mark
    check(a, items)
    check(a, items, invert=True)


def test_a_large_set_s_memory_goes_back_after_the_call(rng):
    """10^5 items take 4 MB of ranges, from the result arena (huge pages, warm on
    the next call): handed back when the call ends, answered or refused."""
    from simdfilter import _core

    a = rng.integers(0, 10**6, 50_000)
    items = rng.integers(0, 10**6, 10**5)
    live = _core._result_pool()["live"]
    for _ in range(3):
        check(a, items)
        assert simdfilter.count_in_range(a, isin=items) == np.isin(a, items).sum()
        assert _core._result_pool()["live"] == live
    lo = np.arange(0, 10**6, 30, dtype=np.int64)  # 33,334 ranges: 1.3 MB
    got = simdfilter.filter_indexes(a, list(lo), list(lo + 2))
    np.testing.assert_array_equal(got, np.flatnonzero(a % 30 <= 2).astype(np.uint32))
    del got  # a fresh result of the arena's own
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(a, isin=list(items[:30_000]) + ["x"])
    assert _core._result_pool()["live"] == live


def test_many_ranges_through_the_set(rng):
    """lo and hi sequences of more than eight ranges take the same set: ranges,
    not only points, against NumPy's OR of the ranges."""
    for dtype in (np.int8, np.int64, np.uint32, np.float32, np.float64):
        a = (
            rng.integers(-100, 100, 5000).astype(dtype)
            if np.dtype(dtype).kind != "u"
            else (rng.integers(0, 200, 5000).astype(dtype))
        )
        for k in (9, 17, 200):
            lo = np.sort(rng.integers(-110, 110, k)).astype(np.float64) + 0.5 * (k % 2)
            hi = lo + rng.integers(-3, 20, k)
            mask = np.zeros(a.size, bool)
            for x, y in zip(lo, hi):
                mask |= (a >= x) & (a <= y)
            np.testing.assert_array_equal(
                simdfilter.filter_indexes(a, list(lo), list(hi)),
                np.flatnonzero(mask).astype(np.uint32),
            )
            np.testing.assert_array_equal(
                simdfilter.filter_indexes(a, list(lo), list(hi), invert=True),
                np.flatnonzero(~mask).astype(np.uint32),
            )


def test_errors():
    a = np.arange(10)
    with pytest.raises(TypeError, match="either lo and hi"):
        simdfilter.filter_indexes(a, 1, 2, isin=[1])
    with pytest.raises(TypeError, match="inclusive"):
        simdfilter.count_in_range(a, isin=[1], inclusive="left")
    with pytest.raises(TypeError, match="missing required argument 'lo'"):
        simdfilter.filter_values(a)
    with pytest.raises(TypeError, match="missing required argument 'items'"):
        simdfilter.isin(a)
    with pytest.raises(TypeError, match="unexpected keyword"):
        simdfilter.isin(a, [1], within=[1])
    with pytest.raises(TypeError, match="not a number|numbers"):
        simdfilter.isin(a, [1, None])
    with pytest.raises(TypeError, match="numbers"):
        simdfilter.isin(a, ["1"])
    with pytest.raises(TypeError, match="numbers"):
        simdfilter.isin(a, [1, "2"])
    with pytest.raises(TypeError, match="collection of numbers"):
        simdfilter.isin(a, "123")
    with pytest.raises(TypeError):
        simdfilter.isin(a, [np.datetime64("2020-01-01")])
    with pytest.raises(TypeError):
        simdfilter.isin(np.array(["2020"], dtype="M8[D]"), [np.timedelta64(1, "D")])
    # isin=None is "not given": the range is then needed
    with pytest.raises(TypeError, match="missing required argument 'lo'"):
        simdfilter.count_in_range(a, isin=None)
    assert simdfilter.count_in_range(a, 2, 4, isin=None) == 3
