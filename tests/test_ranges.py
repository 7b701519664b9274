"""Several ranges in one call: ``lo`` and ``hi`` as equal-length sequences.

The positions of the elements in any of the ranges ``[lo[i], hi[i]]`` (in any
order, overlapping or empty), or with ``invert=True`` in none of them. Every
kernel pinned in turn, every kernel dtype, lengths 0..70 at several offsets and
long arrays on threads: the answers equal the pure-NumPy reference's (the OR of
each range's mask) and, for NumPy data with bounds of its dtype, NumPy's own
``|`` of the ranges' expressions. Nulls are never kept; a sequence of one range
is that range; the faces that stand in for pandas and Polars leave sequences to
their host, which compares them element by element.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from agree import assert_same, check_answers
from conftest import buffer_offsets, examples
from arrays import (
    KERNEL_DTYPES,
    MODES,
    bound_strategy,
    data_strategy,
    dtype_id,
    edge_array,
    edge_values,
)


def numpy_union(a, lo, hi):
    """NumPy 2's own answer for bounds NumPy compares as they are."""
    mask = np.zeros(a.shape, bool)
    with np.errstate(invalid="ignore"):
        for one_lo, one_hi in zip(lo, hi):
            mask |= (a >= one_lo) & (a <= one_hi)
    return mask


def random_ranges(rng, dtype, k):
    """k bound pairs drawn from the dtype's edge values (None and NaN included)."""
    edges = edge_values(dtype) + [None]
    pick = rng.integers(0, len(edges), size=(2, k))
    return [edges[i] for i in pick[0]], [edges[i] for i in pick[1]]


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_every_length_offset_and_range_count(kernel, rng, dtype):
    buf = edge_array(dtype, 70 + 9, rng)
    for offset in buffer_offsets():
        for n in range(0, 71, 3):
            a = buf[offset : offset + n]
            for k in (1, 2, 3, 5):
                lo, hi = random_ranges(rng, dtype, k)
                check_answers(a, lo, hi, MODES[n % 4], invert=bool(n % 2))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_numpy_expression(kernel, rng, dtype):
    """NumPy data, bounds of its dtype: exactly NumPy's OR of the ranges'
    expressions, and inverted exactly its complement (NaN and NaT kept)."""
    a = edge_array(dtype, 4099, rng)  # past one 2,048-element block of the C loop
    edges = edge_values(dtype)
    for k in (2, 4, 8):
        idx = rng.integers(0, len(edges), size=(2, k))
        lo = np.array([edges[i] for i in idx[0]], dtype=dtype)
        hi = np.array([edges[i] for i in idx[1]], dtype=dtype)
        inside = numpy_union(a, lo, hi)
        assert_same(simdfilter.filter_indexes(a, lo, hi), np.flatnonzero(inside).astype(np.uint32))
        outside = simdfilter.filter_indexes(a, lo, hi, invert=True)
        assert_same(outside, np.flatnonzero(~inside).astype(np.uint32))


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float32", "float64"])
def test_bits_and_threads_on_long_arrays(kernel, rng, dtype):
    """Long enough for several threads and the Arrow bit mask's whole bytes."""
    n = 600_011
    raw = rng.normal(size=n) * 40
    if np.dtype(dtype).kind == "u":  # a negative float cast to unsigned is invalid (warns on Arm)
        raw = np.abs(raw)
    a = raw.astype(dtype)
    lo, hi = [-30, 5, 20, 100], [-10, 12, 25, -100]  # the last one empty
    for invert in (False, True):
        want = reference.filter_indexes(a, lo, hi, invert=invert)
        for threads in (1, 2):
            got = simdfilter.filter_indexes(a, lo, hi, invert=invert, threads=threads)
            assert_same(got, want)
        out = np.empty(n, np.uint32)
        assert_same(simdfilter.filter_indexes(a, lo, hi, invert=invert, out=out), want)
        assert simdfilter.count_in_range(a, lo, hi, invert=invert, threads=2) == want.size


def test_arrow_bit_mask(rng):
    pa = pytest.importorskip("pyarrow", reason="the Arrow bit mask needs pyarrow")
    a = rng.normal(size=10_007)
    a[rng.random(a.size) < 0.1] = np.nan
    col = pa.array(a, mask=rng.random(a.size) < 0.2)
    lo, hi = [-1.0, 0.5], [-0.5, 2.0]
    for invert in (False, True):
        want = reference.in_range_mask(col, lo, hi, invert=invert)
        got = simdfilter.in_range(col, lo, hi, invert=invert)
        assert_same(np.asarray(got, dtype=bool), want)
        assert_same(
            simdfilter.filter_indexes(col, lo, hi, invert=invert),
            np.flatnonzero(want).astype(np.uint32),
        )


def test_nulls_are_never_kept(rng):
    a = rng.normal(size=3001)
    a[::7] = np.nan
    nulls = rng.random(a.size) < 0.2
    m = np.ma.masked_array(a, mask=nulls)
    lo, hi = [-1.0, 2.0, np.nan], [0.0, 3.0, 1.0]
    inside = simdfilter.filter_indexes(m, lo, hi)
    outside = simdfilter.filter_indexes(m, lo, hi, invert=True)
    assert not nulls[inside].any() and not nulls[outside].any()
    both = np.sort(np.concatenate([inside, outside]))
    assert_same(both, np.flatnonzero(~nulls).astype(np.uint32))  # they split the valid ones
    assert np.isnan(a[outside]).sum() == np.count_nonzero(np.isnan(a) & ~nulls)


def test_within(kernel, rng):
    a = rng.normal(size=5000)
    a[rng.random(a.size) < 0.05] = np.nan
    within = np.flatnonzero(rng.random(a.size) < 0.3).astype(np.uint32)
    for lo, hi in [([-1.0, 1.5], [-0.5, 2.0]), ([1.0, np.nan], [-1.0, 1.0]), ([None], [0.5])]:
        for invert in (False, True):
            mask = reference.in_range_mask(a, lo, hi, invert=invert)
            want = within[mask[within]]
            got = simdfilter.filter_indexes(a, lo, hi, within=within, invert=invert)
            assert_same(got, want)
            assert simdfilter.count_in_range(a, lo, hi, within=within, invert=invert) == want.size


def test_one_range_in_a_sequence_is_that_range(rng):
    a = edge_array("float64", 1000, rng)
    for lo, hi in [(-1.0, 1.0), (None, 0.0), (2.0, 1.0), (np.nan, 1.0)]:
        for invert in (False, True):
            one = simdfilter.filter_indexes(a, lo, hi, invert=invert)
            assert_same(simdfilter.filter_indexes(a, [lo], [hi], invert=invert), one)
            assert_same(simdfilter.filter_indexes(a, (lo,), np.array([hi]), invert=invert), one)


def test_order_and_overlap_do_not_matter(rng):
    a = rng.integers(-100, 100, size=10_000).astype(np.int16)
    lo, hi = [-50, -60, 10, 30, 90], [-40, -45, 35, 32, 80]
    want = simdfilter.filter_indexes(a, lo, hi)
    perm = rng.permutation(len(lo))
    assert_same(simdfilter.filter_indexes(a, np.array(lo)[perm], np.array(hi)[perm]), want)
    assert_same(simdfilter.filter_indexes(a, [-60, 10], [-40, 35]), want)  # merged by hand


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float64", "datetime64[s]"])
def test_sorted_data_and_assume_sorted(rng, dtype):
    """The binary searches' answer is the scan's, for overlapping ranges in any
    order, NaN and NaT last as np.sort puts them."""
    raw = rng.integers(0, 200, size=100_000)
    a = np.sort(raw.astype(dtype))
    if dtype == "float64":
        a[-100:] = np.nan
    if dtype.startswith("datetime"):
        a[-100:] = np.array("NaT", dtype=dtype)  # in the data's unit: a generic NaT is deprecated
    lo = np.array([150, 10, 60, 12, 190], dtype="int64").astype(dtype)
    hi = np.array([170, 20, 59, 15, 400], dtype="int64").astype(dtype)
    for invert in (False, True):
        want = reference.filter_indexes(a, lo, hi, invert=invert)
        got = simdfilter.filter_indexes(a, lo, hi, assume_sorted=True, invert=invert)
        assert_same(got, want)
        count = simdfilter.count_in_range(a, lo, hi, assume_sorted=True, invert=invert)
        assert count == want.size
        values = simdfilter.filter_values(a, lo, hi, assume_sorted=True, invert=invert)
        assert values.tobytes() == a[want].tobytes()  # NaN and NaT kept, as they are


def test_assume_sorted_reads_only_the_spans():
    """An in-range value planted outside every span (the promise broken on
    purpose) is found by the scan and not by the binary searches: they ran."""
    a = np.arange(1_000_000, dtype=np.int64)
    a[10] = 500_005
    lo, hi = [400_000, 500_000], [400_010, 500_010]
    assert 10 in simdfilter.filter_indexes(a, lo, hi)
    got = simdfilter.filter_indexes(a, lo, hi, assume_sorted=True)
    assert 10 not in got
    assert_same(got, np.r_[400_000:400_011, 500_000:500_011].astype(np.uint32))


def test_datetimes_with_strings():
    t = np.arange("2024-01-01", "2024-03-01", dtype="datetime64[h]")
    lo, hi = ["2024-01-05", "2024-02-10T06"], ["2024-01-05T03", "2024-02-10T07"]
    got = simdfilter.filter_values(t, lo, hi)
    want = np.array(
        ["2024-01-05T00", "2024-01-05T01", "2024-01-05T02", "2024-01-05T03"]
        + ["2024-02-10T06", "2024-02-10T07"],
        dtype="datetime64[h]",
    )
    assert_same(got, want)


@pytest.mark.parametrize(
    "lo, hi, error, words",
    [
        ([1, 2], 3, TypeError, "both sequences"),
        (1, (2, 3), TypeError, "both sequences"),
        ([1, 2], [3], ValueError, "same length"),
        ([], [], ValueError, "at least 1"),
        (np.array([1, 2]), np.array([[3, 4]]), TypeError, "both sequences"),
    ],
)
def test_bad_sequences_are_refused(lo, hi, error, words):
    a = np.arange(10)
    for fn in (simdfilter.filter_indexes, simdfilter.count_in_range, simdfilter.in_range):
        with pytest.raises(error, match=words):
            fn(a, lo, hi)


def test_a_bad_bound_inside_a_sequence_is_refused():
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(np.arange(10), [1, "x"], [3, 4])


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_hypothesis(dtype, data):
    a = data.draw(data_strategy(dtype))
    k = data.draw(st.integers(1, 5))
    lo = data.draw(st.lists(bound_strategy(dtype), min_size=k, max_size=k))
    hi = data.draw(st.lists(bound_strategy(dtype), min_size=k, max_size=k))
    inclusive = data.draw(st.sampled_from(MODES))
    check_answers(a, lo, hi, inclusive, invert=data.draw(st.booleans()))


def test_pandas_faces_leave_sequences_to_pandas():
    pd = pytest.importorskip("pandas", reason="the pandas face needs pandas")
    import simdfilter.pandas  # noqa: F401

    s = pd.Series([1.0, 2.0, 3.0, 4.0])
    same_length = ([0, 2, 2, 5], [1, 3, 2, 6])
    assert s.sf.between(*same_length).tolist() == s.between(*same_length).tolist()
    assert s.sf.count(*same_length) == int(s.between(*same_length).sum())
    with pytest.raises(ValueError) as host:
        s.between([1, 2], [3, 4])
    with pytest.raises(type(host.value)):
        s.sf.between([1, 2], [3, 4])


def test_polars_faces_leave_sequences_to_polars():
    pl = pytest.importorskip("polars", reason="the Polars face needs polars")
    import simdfilter.polars  # noqa: F401

    s = pl.Series([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(Exception) as host:
        s.is_between([1, 2], [3, 4])
    with pytest.raises(type(host.value)):
        s.sf.between([1, 2], [3, 4])


def test_dask_arrays(rng):
    da = pytest.importorskip("dask.array", reason="the Dask array functions need dask")
    import simdfilter.dask as sfd

    a = rng.normal(size=100_003)
    d = da.from_array(a, chunks=30_000)
    lo, hi = [-1.0, 1.0, 3.0], [0.0, 2.0, 2.5]
    for invert in (False, True):
        want = reference.filter_indexes(a, lo, hi, invert=invert)
        assert_same(np.asarray(sfd.filter_indexes(d, lo, hi, invert=invert)), want.astype(np.int64))
        assert_same(np.asarray(sfd.filter_values(d, lo, hi, invert=invert)), a[want])
        assert int(sfd.count_in_range(d, lo, hi, invert=invert)) == want.size


@pytest.mark.parametrize("dtype", ["float64", "int32", "datetime64[ms]"])
def test_zonemap(rng, dtype):
    """A ZoneMap answers several ranges as the functions do, skipping the
    blocks that meet none of them."""
    base = np.sort(rng.integers(0, 10**6, size=200_003))
    a = (base + rng.integers(-50, 50, size=base.size)).astype(dtype)
    if dtype == "float64":
        a[rng.random(a.size) < 0.001] = np.nan
    zm = simdfilter.ZoneMap(a, block=1024)
    lo = np.array([10_000, 500_000, 499_000, 900_000, 10**7], dtype="int64").astype(dtype)
    hi = np.array([12_000, 510_000, 500_100, 800_000, 10**8], dtype="int64").astype(dtype)
    for invert in (False, True):
        want = simdfilter.filter_indexes(a, lo, hi, invert=invert)
        assert_same(zm.filter_indexes(lo, hi, invert=invert), want)
        assert zm.count_in_range(lo, hi, invert=invert) == want.size
        assert zm.filter_values(lo, hi, invert=invert).tobytes() == a[want].tobytes()
    empty = zm.filter_indexes(lo[3:4], hi[3:4])  # lo > hi: nothing
    assert empty.size == 0 and empty.dtype == np.uint32
    with pytest.raises(ValueError, match="same length"):
        zm.count_in_range([1, 2], [3])
