"""Fresh results on both sides of each edge of result.c's paths.

A fresh result whose worst case fits _core._FRESH_STAGED_MAX bytes is filled into a
staging buffer and copied into an exact-size array; up to _core._FRESH_COUNTED_MAX it is
counted first, then filled exactly; a larger one is filled into a worst-case array and
shrunk. All must give what out= and the reference give: every op, result width, thread
count and within=, at each edge and one either side of it.
"""

import numpy as np
import pytest

import simdfilter
from simdfilter import _core

EDGE = _core._FRESH_STAGED_MAX
COUNTED = _core._FRESH_COUNTED_MAX


def _data(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 100, n).astype(dtype)


def _check(got, want):
    assert got.flags.owndata and got.flags.writeable and got.flags.c_contiguous
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_edges_are_a_few_mib():
    assert 2**20 <= EDGE < COUNTED <= 64 * 2**20


@pytest.mark.parametrize("op, dtype, size", [("indexes", np.uint8, 4), ("values", np.uint32, 4)])
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_counted_edge(op, dtype, size, delta, threads):
    n = COUNTED // size + delta
    a = _data(n, dtype, seed=n)
    mask = (a >= 40) & (a <= 59)
    if op == "indexes":
        want = np.flatnonzero(mask).astype(np.uint32)
        got = simdfilter.filter_indexes(a, 40, 59, threads=threads)
    else:
        want = a[mask]
        got = simdfilter.filter_values(a, 40, 59, threads=threads)
    _check(got, want)
    empty = (simdfilter.filter_indexes if op == "indexes" else simdfilter.filter_values)(
        a, 200, 300, threads=threads
    )
    assert empty.size == 0 and empty.dtype == want.dtype


# (op, dtype of the data, index_dtype, bytes per result)
CASES = [
    ("indexes", np.uint8, None, 4),
    ("indexes", np.uint32, np.int64, 8),
    ("values", np.uint8, None, 1),
    ("values", np.uint16, None, 2),
    ("values", np.uint32, None, 4),
    ("values", np.float64, None, 8),
]


@pytest.mark.parametrize("op, dtype, index_dtype, size", CASES)
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bounds", [(0, 99), (40, 59), (200, 300)], ids=["all", "some", "none"])
def test_fresh_equals_out_and_reference_at_the_edge(
    op, dtype, index_dtype, size, delta, threads, bounds
):
    n = EDGE // size + delta
    a = _data(n, dtype, seed=n)
    lo, hi = bounds
    mask = (a >= lo) & (a <= hi)
    if op == "indexes":
        kw = {} if index_dtype is None else {"index_dtype": index_dtype}
        want = np.flatnonzero(mask).astype(index_dtype or np.uint32)
        got = simdfilter.filter_indexes(a, lo, hi, threads=threads, **kw)
        out = np.full(n, 7, dtype=want.dtype)
        via_out = simdfilter.filter_indexes(a, lo, hi, threads=threads, out=out, **kw)
    else:
        want = a[mask]
        got = simdfilter.filter_values(a, lo, hi, threads=threads)
        out = np.full(n, 7, dtype=a.dtype)
        via_out = simdfilter.filter_values(a, lo, hi, threads=threads, out=out)
    _check(got, want)
    np.testing.assert_array_equal(via_out, want)


@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("delta", [-1, 0, 1])
@pytest.mark.parametrize("threads", [1, 2])
def test_within_at_the_edge(wide, delta, threads):
    size = 8 if wide else 4
    m = EDGE // size + delta  # len(within): the most results
    a = _data(m + m // 3, np.uint16, seed=m)
    rng = np.random.default_rng(m)
    within = np.sort(rng.choice(a.size, m, replace=False)).astype(np.int64 if wide else np.uint32)
    want = within[(a[within] >= 30) & (a[within] <= 80)]
    _check(simdfilter.filter_indexes(a, 30, 80, within=within, threads=threads), want)
    assert simdfilter.count_in_range(a, 30, 80, within=within, threads=threads) == want.size


def test_the_staged_result_is_an_independent_array():
    a = _data(1000, np.uint32, seed=1)
    r1 = simdfilter.filter_indexes(a, 10, 50)
    r2 = simdfilter.filter_indexes(a, 10, 50)
    r1[:] = 0  # a second call's result shares nothing with the first
    np.testing.assert_array_equal(r2, np.flatnonzero((a >= 10) & (a <= 50)))
