"""invert=True: the elements outside the range, in the kernels' one pass.

Every kernel pinned in turn, every kernel dtype, every length 0..70 at several
offsets, edge and shortcut bounds (empty ranges, a whole integer width, NaN/NaT
and None bounds): the answers equal the pure-NumPy reference's and, for NumPy
data with bounds of the data's dtype, NumPy's own ``~((a >= lo) & (a <= hi))``;
the inverted and plain answers split the non-null elements exactly. Nulls are
never kept; ``within=`` keeps the given positions whose values are outside.
"""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from agree import assert_same, check_answers
from arrays import (
    KERNEL_DTYPES,
    MODES,
    bound_strategy,
    data_strategy,
    dtype_id,
    edge_array,
    edge_values,
    ordered_edge_values,
)
from conftest import KERNELS, buffer_offsets, examples


def numpy_outside(a, lo, hi):
    """NumPy 2's own answer, for bounds NumPy compares as they are."""
    with np.errstate(invalid="ignore"):
        return np.flatnonzero(~((a >= lo) & (a <= hi)))


def shortcut_bounds(dtype):
    """Bound pairs that the library answers before any kernel runs, or nearly:
    empty (lo > hi, NaN/NaT), the whole domain, one-sided, unbounded."""
    edges = ordered_edge_values(dtype)
    nan = [v for v in edge_values(dtype) if v not in edges or v != v]
    lo, hi = min(edges), max(edges)
    pairs = [(lo, hi), (hi, lo), (None, None), (lo, None), (None, hi), (None, lo), (hi, None)]
    pairs += [(b, b) for b in edges[:4]]
    pairs += [(n, hi) for n in nan] + [(lo, n) for n in nan]
    if np.dtype(dtype).kind in "iu":
        pairs += [(-(2**70), 2**70), (2**70, 2**71), (-(2**70), -(2**69)), (1.5, 1.25)]
    if np.dtype(dtype).kind == "f":
        pairs += [(-np.inf, np.inf), (0.0, -0.0), (-0.0, 0.0), (np.inf, np.inf)]
    return pairs


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_every_length_offset_and_shortcut(kernel, rng, dtype):
    buf = edge_array(dtype, 70 + 9, rng)
    pairs = shortcut_bounds(dtype)
    for offset in buffer_offsets():
        for n in range(71):
            a = buf[offset : offset + n]
            for lo, hi in pairs[: 4 if n % 5 else len(pairs)]:
                check_answers(a, lo, hi, MODES[n % 4], invert=True)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_numpy_expression(kernel, rng, dtype):
    """For NumPy data and bounds of its dtype: exactly NumPy's expression, NaN
    and NaT outside (kept), every bound of the edges against every other."""
    a = edge_array(dtype, 500, rng)
    for lo in edge_values(dtype)[::2]:
        for hi in edge_values(dtype)[1::2]:
            blo, bhi = np.array([lo, hi], dtype=dtype)
            want = numpy_outside(a, blo, bhi).astype(np.uint32)
            assert_same(simdfilter.filter_indexes(a, blo, bhi, invert=True), want)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_inverted_and_plain_split_the_valid_elements(kernel, rng, dtype):
    a = edge_array(dtype, 3001, rng)
    nulls = rng.random(a.size) < 0.2
    m = np.ma.masked_array(a, mask=nulls)
    for lo, hi in shortcut_bounds(dtype):
        inside = simdfilter.filter_indexes(m, lo, hi)
        outside = simdfilter.filter_indexes(m, lo, hi, invert=True)
        both = np.sort(np.concatenate([inside, outside]))
        assert_same(both, np.flatnonzero(~nulls).astype(np.uint32))
        assert simdfilter.count_in_range(m, lo, hi, invert=True) == outside.size


@pytest.mark.parametrize("selectivity", [0.0, 0.002, 0.5, 0.998, 1.0])
@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint32", "int64", "float32", "float64"])
def test_sparse_and_dense_windows(kernel, rng, dtype, selectivity):
    """Outside shares from none to all, in blocks, so that the x86 kernels' sparse
    windows run inverted too (and threads split the run)."""
    n = 300_007
    inside = rng.random(n) >= selectivity
    if 0 < selectivity < 1:
        inside[: n // 3] = True  # a long stretch of nothing outside: sparse windows
    a = np.where(inside, 15, np.where(rng.random(n) < 0.5, 9, 21)).astype(dtype)
    want = np.flatnonzero(~inside).astype(np.uint32)
    assert_same(simdfilter.filter_indexes(a, 10, 20, invert=True), want)
    assert_same(simdfilter.filter_indexes(a, 10, 20, invert=True, threads=2), want)
    assert simdfilter.count_in_range(a, 10, 20, invert=True) == want.size
    assert_same(simdfilter.filter_values(a, 10, 20, invert=True), a[want])


def test_within(kernel, rng):
    a = rng.normal(size=5000)
    a[rng.random(a.size) < 0.05] = np.nan
    within = np.flatnonzero(rng.random(a.size) < 0.3).astype(np.uint32)
    for lo, hi in [(-1.0, 1.0), (1.0, -1.0), (None, 0.5), (np.nan, 1.0)]:
        mask = reference.in_range_mask(a, lo, hi, invert=True)
        want = within[mask[within]]
        assert_same(simdfilter.filter_indexes(a, lo, hi, within=within, invert=True), want)
        wide = simdfilter.filter_indexes(a, lo, hi, within=within.astype(np.int64), invert=True)
        assert_same(wide, want.astype(np.int64))
        assert simdfilter.count_in_range(a, lo, hi, within=within, invert=True) == want.size


def test_out(kernel, rng):
    a = rng.integers(0, 1000, size=777, dtype=np.uint32)
    out = np.full(800, 12345, dtype=np.uint32)
    got = simdfilter.filter_indexes(a, 100, 600, out=out, invert=True)
    assert got.base is out
    assert_same(got, reference.filter_indexes(a, 100, 600, invert=True))
    assert (out[777:] == 12345).all()
    everything = simdfilter.filter_indexes(a, 700, 600, out=out, invert=True)
    assert_same(everything, np.arange(777, dtype=np.uint32))
    values = np.empty(800, np.uint32)
    assert_same(simdfilter.filter_values(a, 0, 2000, out=values, invert=True), a[:0])


def test_nan_and_nat_are_outside_nulls_are_not():
    a = np.array([1.0, np.nan, 5.0, -np.inf, 2.0])
    assert simdfilter.filter_indexes(a, 0, 3, invert=True).tolist() == [1, 2, 3]
    assert simdfilter.filter_indexes(a, np.nan, 3, invert=True).tolist() == [0, 1, 2, 3, 4]
    t = np.array(["2024-01-01", "NaT", "2030-01-01"], dtype="M8[s]")
    # NumPy: NaT compares False with everything, so it is outside every range
    want = np.flatnonzero(
        ~((t >= np.datetime64("2020-01-01")) & (t <= np.datetime64("2025-01-01")))
    )
    got = simdfilter.filter_indexes(t, "2020-01-01", "2025-01-01", invert=True)
    assert got.tolist() == want.tolist() == [1, 2]
    m = np.ma.masked_array(a, mask=[False, True, True, False, False])
    assert simdfilter.filter_indexes(m, 0, 3, invert=True).tolist() == [3]
    assert simdfilter.in_range(m, 0, 3, invert=True).tolist() == [False] * 3 + [True, False]


def test_nulls_of_columns_are_never_kept():
    pa = pytest.importorskip("pyarrow")
    arr = pa.array([1, None, 7, 3, None, -4], type=pa.int32())
    assert simdfilter.filter_indexes(arr, 0, 3, invert=True).tolist() == [2, 5]
    assert simdfilter.filter_indexes(arr, 3, 0, invert=True).tolist() == [0, 2, 3, 5]
    assert simdfilter.count_in_range(arr, None, None, invert=True) == 0
    chunked = pa.chunked_array([[1.5, None], [float("nan"), 9.0]])
    assert simdfilter.filter_indexes(chunked, 0, 2, invert=True).tolist() == [2, 3]


def test_whole_width_keeps_nothing_empty_keeps_everything(kernel):
    a = np.arange(-128, 128, dtype=np.int8)
    assert simdfilter.count_in_range(a, -128, 127, invert=True) == 0
    assert simdfilter.count_in_range(a, -(2**70), 2**70, invert=True) == 0
    assert simdfilter.count_in_range(a, 5, 4, invert=True) == 256
    assert simdfilter.count_in_range(a, 200, 300, invert=True) == 256
    assert simdfilter.filter_indexes(a, -127, 127, invert=True).tolist() == [0]
    assert simdfilter.in_range(a, None, None, invert=True).sum() == 0
    b = np.array([True, False, True])
    assert simdfilter.filter_indexes(b, True, True, invert=True).tolist() == [1]


@pytest.mark.parametrize("bad", [1, 0, "yes", np.int64(1), [True]])
def test_invert_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="invert must be True, False or None"):
        simdfilter.filter_indexes(np.arange(3), 0, 1, invert=bad)


def test_invert_none_is_false_everywhere():
    # None means "not given" for every other keyword; for invert it raised
    # TypeError (issue 41, item 5). Functions, ZoneMap methods and the faces.
    a = np.array([3.0, np.nan, -1.0, 7.0, 2.0], dtype=np.float32)
    for fn in ("filter_indexes", "filter_values", "count_in_range", "in_range"):
        got = getattr(simdfilter, fn)(a, 0, 5, invert=None)
        assert_same(got, getattr(simdfilter, fn)(a, 0, 5, invert=False))
    zm = simdfilter.ZoneMap(a, block=2)
    for fn in ("filter_indexes", "filter_values", "count_in_range"):
        assert_same(getattr(zm, fn)(0, 5, invert=None), getattr(zm, fn)(0, 5))
    pd = pytest.importorskip("pandas")
    importlib.import_module("simdfilter.pandas")
    s = pd.Series(a)
    assert_same(s.sf.indexes(0, 5, invert=None), s.sf.indexes(0, 5))
    assert s.sf.filter(0, 5, invert=None).equals(s.sf.filter(0, 5))
    assert s.sf.count(0, 5, invert=None) == s.sf.count(0, 5) == 2
    pl = pytest.importorskip("polars")
    importlib.import_module("simdfilter.polars")
    p = pl.Series(a)
    assert p.sf.indexes(0, 5, invert=None).to_list() == [0, 4]
    assert p.sf.filter(0, 5, invert=None).to_list() == [3.0, 2.0]
    assert p.sf.count(0, 5, invert=None) == 2


def test_numpy_bools_are_taken():
    a = np.arange(10, dtype=np.int32)
    assert simdfilter.count_in_range(a, 2, 5, invert=np.True_) == 6
    assert simdfilter.count_in_range(a, 2, 5, invert=np.False_) == 4


@settings(max_examples=examples(150), deadline=None)
@given(data=st.data(), dtype=st.sampled_from(KERNEL_DTYPES), kernel_name=st.sampled_from(KERNELS))
def test_property_against_reference(data, dtype, kernel_name):
    a = data.draw(data_strategy(dtype))
    lo = data.draw(bound_strategy(dtype))
    hi = data.draw(bound_strategy(dtype))
    inclusive = data.draw(st.sampled_from(MODES))
    with simdfilter.use_kernel(kernel_name):
        check_answers(a, lo, hi, inclusive, invert=True)


def test_invert_with_assume_sorted_is_the_scan():
    # The outside of a sorted stretch is two stretches: the call scans, and its
    # answer is the plain inverted one (Polars' sorted flag sets assume_sorted).
    a = np.sort(np.array([3.0, np.nan, -1.0, 7.0, 2.0, 2.0, 9.0, np.nan]))
    want = np.flatnonzero(~((a >= 2.0) & (a <= 7.0)))
    for f in (simdfilter.filter_indexes, simdfilter.count_in_range, simdfilter.filter_values):
        got = f(a, 2.0, 7.0, invert=True, assume_sorted=True)
        ref = f(a, 2.0, 7.0, invert=True)
        np.testing.assert_array_equal(got, ref)
    assert simdfilter.filter_indexes(a, 2.0, 7.0, invert=True, assume_sorted=True).tolist() == (
        want.tolist()
    )
    pl = pytest.importorskip("polars", reason="the Polars face's sorted flag")
    importlib.import_module("simdfilter.polars")

    s = pl.Series("x", a).sort()
    assert s.flags["SORTED_ASC"]
    assert s.sf.indexes(2.0, 7.0, invert=True).to_list() == want.tolist()
    assert s.sf.count(2.0, 7.0, invert=True) == want.size
