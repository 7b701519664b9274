"""assume_sorted=True: binary search on sorted data gives exactly the scan's answer.

The scan (the same call without assume_sorted) is itself tested against the
reference by the other families; here every result with assume_sorted=True is
compared with it, on data sorted as np.sort sorts it (NaN and NaT last,
duplicates, runs of one value, empty), every dtype, bound and ``inclusive``,
layouts that keep the order, Arrow columns with nulls (first or last), and
the Polars face, which reads the Series' own sorted flag.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import simdfilter
from arrays import (
    ALL_DTYPES,
    KERNEL_DTYPES,
    LAYOUTS,
    MODES,
    bound_strategy,
    data_strategy,
    dtype_id,
    edge_values,
)

KERNELS = simdfilter.available_kernels()


def both_ways(values, lo, hi, inclusive="both"):
    """Each function's answer with and without assume_sorted; the same, or fail."""
    for fn in (simdfilter.filter_indexes, simdfilter.filter_values):
        try:
            want = fn(values, lo, hi, inclusive=inclusive)
        except (TypeError, ValueError) as exc:
            with pytest.raises(type(exc)):
                fn(values, lo, hi, inclusive=inclusive, assume_sorted=True)
            return
        got = fn(values, lo, hi, inclusive=inclusive, assume_sorted=True)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    want = simdfilter.count_in_range(values, lo, hi, inclusive=inclusive)
    assert (
        simdfilter.count_in_range(values, lo, hi, inclusive=inclusive, assume_sorted=True) == want
    )


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@given(data=st.data())
def test_sorted_data_gives_the_scans_answer(dtype, data):
    a = np.sort(data.draw(data_strategy(dtype, max_size=300)))  # NaN, NaT last
    if data.draw(st.booleans()):  # duplicates and runs of one value
        a = np.sort(np.repeat(a, data.draw(st.integers(1, 5))))
    lo, hi = data.draw(bound_strategy(dtype)), data.draw(bound_strategy(dtype))
    both_ways(a, lo, hi, data.draw(st.sampled_from(MODES)))


def _order(layout):
    """1: the layout keeps the base's order in flat C order; -1: reverses it;
    0: neither (a transpose)."""
    flat = np.ravel(LAYOUTS[layout](np.arange(120, dtype=np.int64)))
    steps = np.diff(flat.astype(np.int64))
    return 1 if (steps > 0).all() else -1 if (steps < 0).all() else 0


# Layouts whose flat C order is the base's order or its reverse (those get a
# base sorted descending).
ORDERED_LAYOUTS = [name for name in LAYOUTS if _order(name)]


@pytest.mark.rotate_kernels  # the quick loop: each case on one kernel in turn
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("layout", ORDERED_LAYOUTS)
@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_layouts_and_kernels(kernel, layout, dtype, rng):
    edges = np.array(edge_values(dtype), dtype=dtype)
    base = np.sort(np.concatenate([edges, rng.choice(edges, 500)]))
    if _order(layout) < 0:
        base = base[::-1]
    a = LAYOUTS[layout](base)
    bounds = [None] + [v for v in edge_values(dtype)]
    with simdfilter.use_kernel(kernel):
        for _ in range(12):
            lo, hi = bounds[rng.integers(len(bounds))], bounds[rng.integers(len(bounds))]
            both_ways(a, lo, hi, MODES[rng.integers(4)])


@pytest.mark.parametrize(
    "values",
    [
        np.array([], dtype=np.int64),
        np.full(1000, 7, dtype=np.int16),
        np.array([np.nan] * 50),
        np.array([1.0, 2.0, np.inf, np.nan, np.nan], dtype=np.float32),
        np.array([-np.inf, -0.0, 0.0, -0.0, 0.0, 1.0]),
        np.array(["NaT", "NaT"], dtype="M8[s]"),
        np.array([0, 0, 1, 1, 1], dtype=bool),
    ],
    ids=["empty", "all-equal", "all-nan", "nan-last", "signed-zeros", "all-nat", "bool"],
)
@pytest.mark.parametrize("inclusive", MODES)
def test_edge_cases(values, inclusive):
    for lo, hi in [(None, None), (0, 7), (-0.0, 0.0), (1, None), (7, 7), (True, True)]:
        if values.dtype.kind == "M":
            lo = hi = None
        both_ways(values, lo, hi, inclusive)


def test_sorted_time_series():
    """The case it is for: a day of sorted timestamps, the rows of one hour,
    with NaT at the end (as np.sort leaves it)."""
    rng = np.random.default_rng(5)
    ts = np.sort(
        np.datetime64("2026-12-04T00:00", "ns")
        + rng.integers(0, 86_400 * 10**9, 200_000).astype("m8[ns]")
    )
    ts[-10:] = np.datetime64("NaT", "ns")
    hour = (np.datetime64("2026-12-04T13:00"), "2026-12-04T14:00")
    got = simdfilter.filter_indexes(ts, *hour, inclusive="left", assume_sorted=True)
    want = np.flatnonzero((ts >= np.datetime64(hour[0])) & (ts < np.datetime64(hour[1])))
    np.testing.assert_array_equal(got, want)
    ends = np.searchsorted(ts, np.array([hour[0], hour[1]], dtype="M8[ns]"))
    assert got.size == ends[1] - ends[0] > 7000
    both_ways(ts, *hour)


def test_fresh_result_is_exact_and_writable():
    a = np.arange(1_000_000, dtype=np.int64)
    got = simdfilter.filter_indexes(a, 10, 14, assume_sorted=True)
    assert got.tolist() == [10, 11, 12, 13, 14] and got.flags.writeable and got.flags.owndata
    out = np.empty(a.size, np.uint32)
    view = simdfilter.filter_indexes(a, 999_998, None, out=out, assume_sorted=True)
    assert view.tolist() == [999_998, 999_999] and np.shares_memory(view, out)


@given(
    st.lists(st.integers(-20, 20), max_size=200),
    st.integers(-25, 25),
    st.integers(-25, 25),
)
def test_unsorted_data_gives_a_subset(xs, lo, hi):
    """The caller's promise broken: never a crash, never a position out of
    range; some positions may be missing."""
    a = np.array(xs, dtype=np.int32)
    scan = simdfilter.filter_indexes(a, lo, hi)
    got = simdfilter.filter_indexes(a, lo, hi, assume_sorted=True)
    assert np.isin(got, scan).all() and (np.diff(got.astype(np.int64)) > 0).all()
    assert set(simdfilter.filter_values(a, lo, hi, assume_sorted=True)) <= set(a[scan])
    assert simdfilter.count_in_range(a, lo, hi, assume_sorted=True) <= scan.size


def test_unsorted_data_can_miss_positions():
    # The binary search trusts the order: it skips what it is told is before lo.
    a = np.array([2, 0, 0, 0, 1], dtype=np.uint8)
    assert simdfilter.filter_indexes(a, 1, 2).tolist() == [0, 4]
    assert simdfilter.filter_indexes(a, 1, 2, assume_sorted=True).tolist() == [4]


def test_arguments():
    a = np.arange(10)
    with pytest.raises(TypeError, match="assume_sorted must be True or False"):
        simdfilter.filter_indexes(a, 1, 2, assume_sorted=1)
    with pytest.raises(ValueError, match="within"):
        simdfilter.count_in_range(a, 1, 2, within=[1, 2], assume_sorted=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'assume_sorted'"):
        simdfilter.in_range(a, 1, 2, assume_sorted=True)
    assert simdfilter.count_in_range(a, 1, 2, assume_sorted=False) == 2
    assert simdfilter.count_in_range(a, 1, 2, assume_sorted=None) == 2
    assert simdfilter.count_in_range(a, 1, 2, assume_sorted=np.True_) == 2
    assert "assume_sorted" in simdfilter.filter_indexes.__doc__


# ---- columns with nulls ----------------------------------------------------------


@pytest.mark.parametrize("nulls_last", [False, True])
@pytest.mark.parametrize("chunks", [1, 3])
def test_arrow_columns_with_nulls(nulls_last, chunks, rng):
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[test]')")
    values = np.sort(rng.integers(0, 100, 3000))
    nulls = np.zeros(3000, bool)
    if nulls_last:
        nulls[-300:] = True
    else:
        nulls[:300] = True
    # Under a null, any value: a sorted column says nothing about them.
    values[nulls] = rng.integers(-1000, 1000, 300)
    arr = pa.array(values, mask=nulls)
    cuts = np.linspace(0, 3000, chunks + 1).astype(int)
    column = pa.chunked_array([arr[a:b] for a, b in zip(cuts[:-1], cuts[1:])])
    for lo, hi in [(10, 20), (None, 50), (90, None), (-1000, 1000), (200, 300)]:
        both_ways(column, lo, hi)
    # A chunk without nulls beside them is still searched, and right.
    both_ways(pa.chunked_array([arr.slice(0, 0), pa.array(np.arange(50))]), 10, 12)


def test_pandas_columns():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    s = pd.Series(np.arange(0, 1000, 3))
    both_ways(s, 10, 100)
    nullable = pd.array([None, 1, 2, 3, 5, None], dtype="Int64")
    both_ways(pd.Series(nullable), 2, 3)


# ---- the Polars face -------------------------------------------------------------


def test_polars_face_uses_the_sorted_flag():
    pl = pytest.importorskip("polars", reason="polars is not installed (pip install '.[test]')")
    import simdfilter.polars  # noqa: F401  (registers .sf)

    s = pl.Series("t", np.sort(np.random.default_rng(3).integers(0, 1000, 10_000))).sort()
    assert s.flags["SORTED_ASC"]
    plain = pl.Series("t", s.to_numpy())  # the same values, no flag
    assert not plain.flags["SORTED_ASC"]
    for lo, hi, closed in [(10, 20, "both"), (500, None, "left"), (None, 3, "none")]:
        assert s.sf.indexes(lo, hi, closed).to_list() == plain.sf.indexes(lo, hi, closed).to_list()
        assert s.sf.count(lo, hi, closed) == plain.sf.count(lo, hi, closed)
        assert s.sf.filter(lo, hi, closed).to_list() == plain.sf.filter(lo, hi, closed).to_list()
    # With nulls (sorted first) and NaN (last): the scan's answer still.
    f = pl.Series("f", [None, None, -1.0, 0.5, 2.0, float("nan")]).sort(nulls_last=False)
    assert f.flags["SORTED_ASC"]
    assert f.sf.indexes(0, 5).to_list() == [3, 4]
    # The flag is what the face reads: a false one shows (a subset, as documented).
    liar = pl.Series("x", [2, 0, 0, 0, 1]).set_sorted()
    assert liar.sf.indexes(1, 2).to_list() == [4]
    assert pl.Series("x", [2, 0, 0, 0, 1]).sf.indexes(1, 2).to_list() == [0, 4]
