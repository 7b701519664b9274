"""Fresh results: both sides of each edge of result.c's paths, and the result arena.

A fresh result whose worst case is below _core._FRESH_POOLED_MIN bytes is filled on the
stack and copied into an exact-size array; from there on it is a chunk of the module's
arena (csrc/cpython/arena.c) of the worst case, shrunk to the answer, its tail handed
back. All must give what out= and the reference give: every op, result width, thread
count and within=, at each edge and one either side of it. A chunk must never be handed
out again while any array over it lives, and the arena must keep within its idle limit
(_core._POOL_IDLE_MAX bytes of written, free memory).
"""

import gc
import pickle

import numpy as np
import pytest

import simdfilter
from simdfilter import _core

EDGE = _core._FRESH_POOLED_MIN
POOLED_MAX = _core._POOL_IDLE_MAX


def _data(n, dtype, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 100, n).astype(dtype)


def _check(got, want):
    # its own memory: from NumPy's allocator, or a pool buffer it holds
    assert got.flags.owndata or type(got.base) is _core._ResultBuffer
    assert got.flags.writeable and got.flags.c_contiguous
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_edges_are_sizes_of_results():
    assert 2**8 <= EDGE < 2**20 < POOLED_MAX <= 2**30


@pytest.mark.parametrize("op, dtype", [("indexes", np.uint8), ("values", np.float64)])
# Threaded, the edge itself in the quick loop; one past and one short of it
# threaded in the full suite only (each case allocates POOLED_MAX bytes: 0.3 s
# of CPU, AMD EPYC Zen 4, loaded).
@pytest.mark.parametrize(
    "delta, threads",
    [(-1, 1), (0, 1), (1, 1), (0, 2)]
    + [pytest.param(d, 2, marks=pytest.mark.slow) for d in (-1, 1)],
)
@pytest.mark.parametrize("lo, hi", [(40, 59), (0, 99)], ids=["copied", "handed-out"])
def test_pooled_max_edge(op, dtype, delta, threads, lo, hi):
    n = POOLED_MAX // 8 + delta  # 8-byte results: int64 positions, float64 values
    a = _data(n, dtype, seed=n)
    mask = (a >= lo) & (a <= hi)
    if op == "indexes":
        want = np.flatnonzero(mask).astype(np.int64)

        def f(lo, hi):
            return simdfilter.filter_indexes(a, lo, hi, threads=threads, index_dtype=np.int64)
    else:
        want = a[mask]

        def f(lo, hi):
            return simdfilter.filter_values(a, lo, hi, threads=threads)

    _check(f(lo, hi), want)
    empty = f(200, 300)
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


def _address(r):
    return r.__array_interface__["data"][0]


@pytest.fixture
def empty_pool():
    """The arena as a fresh process has it: earlier tests in this worker leave free
    memory, and the next call takes the best fit of it."""
    gc.collect()
    _core._release_result_pool()
    assert _core._result_pool()["idle_resident"] == 0
    yield


def test_a_dead_result_s_memory_serves_the_next_call(empty_pool):
    a = _data(1 << 18, np.uint32, seed=3)  # 1 MiB of worst-case uint32 positions
    want = np.flatnonzero(a <= 89)
    r = simdfilter.filter_indexes(a, 0, 89)
    assert type(r.base) is _core._ResultBuffer
    _check(r, want.astype(np.uint32))
    where = _address(r)
    live = _core._result_pool()["live"]
    del r
    now = _core._result_pool()
    assert now["live"] == live - 1 and now["idle_resident"] >= want.size * 4
    again = simdfilter.filter_indexes(a, 0, 89)
    assert _address(again) == where  # the same pages, not new ones
    _check(again, want.astype(np.uint32))


@pytest.mark.parametrize("n, hi", [(1 << 16, 0), (1 << 16, 2), (1 << 20, 0), (300_000, 0)])
def test_a_small_answer_of_a_large_worst_case_is_its_own_array(empty_pool, n, hi):
    # Past a 64 KiB worst case, an answer under 16 KiB and 1/32 of it is copied out and
    # its chunk freed: left in the arena it would pin a page or more of its own.
    a = _data(n, np.uint32, seed=11)
    a[::401] = 1000  # a few values out of the data's [0, 100), in range below
    lo = 1000 if hi == 0 else 0
    want = np.flatnonzero((a >= lo) & (a <= max(hi, lo))).astype(np.uint32)
    assert 0 < want.nbytes < min(16 << 10, n * 4 // 32)
    live = _core._result_pool()["live"]
    r = simdfilter.filter_indexes(a, lo, max(hi, lo))
    _check(r, want)
    assert r.flags.owndata and _core._result_pool()["live"] == live


def test_a_live_view_keeps_its_memory_out_of_the_arena(empty_pool):
    a = _data(1 << 18, np.uint32, seed=4)
    want = np.flatnonzero(a <= 89).astype(np.uint32)
    r = simdfilter.filter_indexes(a, 0, 89)
    view = r[7:-3]
    lo, hi = _address(r), _address(r) + r.nbytes
    del r
    gc.collect()
    # calls of every size and selectivity, each result written over and dropped
    for k in range(12):
        other = simdfilter.filter_indexes(a, 0, 99 - k * 7)
        assert _address(other) + other.nbytes <= lo or _address(other) >= hi
        other[:] = 0
    np.testing.assert_array_equal(view, want[7:-3])


def test_each_result_is_independent():
    a = _data(1 << 17, np.uint32, seed=5)
    want = np.flatnonzero(a <= 79).astype(np.uint32)
    results = [simdfilter.filter_indexes(a, 0, 79) for _ in range(4)]
    assert len({_address(r) for r in results}) == 4
    for r in results[1:]:
        r[:] = 12345
    np.testing.assert_array_equal(results[0], want)


def test_the_arena_stays_within_its_limit():
    assert _core._result_pool()["idle_max"] == POOLED_MAX
    rng = np.random.default_rng(6)
    for n in (1 << 14, 1 << 16, 3 << 16, 1 << 18, 5 << 17, 1 << 20, 1 << 21, 3 << 20):
        a = rng.integers(0, 100, n).astype(np.uint16)
        kept = [simdfilter.filter_indexes(a, 0, hi) for hi in (0, 30, 60, 99)]
        np.testing.assert_array_equal(kept[2], np.flatnonzero(a <= 60))
        del kept
        assert _core._result_pool()["idle_resident"] <= POOLED_MAX
    # a result past the limit: when it dies, the limit's worth of its pages stays
    big = np.zeros(POOLED_MAX // 4 + (1 << 20), np.uint8)
    r = simdfilter.filter_indexes(big, 0, 0)
    assert type(r.base) is _core._ResultBuffer and r.size == big.size
    del r
    assert _core._result_pool()["idle_resident"] <= POOLED_MAX


def test_a_result_holds_only_its_own_bytes(empty_pool):
    # 8 Mi uint8 values, 10 % selected: a 32 MiB worst case of uint32 positions, of which
    # the result keeps its 3.2 MiB; the rest is free for the next call at once.
    n = 8 << 20
    a = _data(n, np.uint8, seed=9)
    want = np.flatnonzero(a <= 9).astype(np.uint32)
    r = simdfilter.filter_indexes(a, 0, 9)
    _check(r, want)
    stats = _core._result_pool()
    assert stats["free_bytes"] >= stats["mapped"] - r.nbytes - 64
    # and a second call of the same worst case fits beside it, in the same slab
    again = simdfilter.filter_indexes(a, 0, 9)
    _check(again, want)
    assert _core._result_pool()["slabs"] == stats["slabs"]


def test_release_gives_free_memory_back(empty_pool):
    a = _data(1 << 20, np.uint32, seed=10)
    r = simdfilter.filter_indexes(a, 0, 49)
    keep = simdfilter.filter_indexes(a, 0, 9)
    del r
    assert _core._result_pool()["idle_resident"] > 0
    _core._release_result_pool()
    now = _core._result_pool()
    assert now["idle_resident"] == 0 and now["live"] >= 1
    _check(keep, np.flatnonzero(a <= 9).astype(np.uint32))


@pytest.fixture
def pool_limit():
    """set_result_pool_limit for one test; the default put back after it."""
    previous = simdfilter.set_result_pool_limit(POOLED_MAX)
    assert previous == POOLED_MAX  # no test leaves another limit behind
    yield simdfilter.set_result_pool_limit
    simdfilter.set_result_pool_limit(previous)


def test_a_raised_limit_keeps_a_big_dead_result_s_pages(empty_pool, pool_limit):
    # 24 Mi uint8 values all kept: a 96 MiB result of uint32 positions, past the default
    # limit. Raised, its pages all stay for the next call, which reuses them.
    big = np.zeros(POOLED_MAX // 4 + (8 << 20), np.uint8)
    pool_limit(4 * POOLED_MAX)
    r = simdfilter.filter_indexes(big, 0, 0)
    where, nbytes = _address(r), r.nbytes
    del r
    assert _core._result_pool()["idle_resident"] >= nbytes > POOLED_MAX
    again = simdfilter.filter_indexes(big, 0, 0)
    assert _address(again) == where and again.size == big.size
    del again
    # lowered, what is past the new limit goes back at once, with no call
    assert pool_limit(1 << 20) == 4 * POOLED_MAX
    assert _core._result_pool()["idle_resident"] <= 1 << 20
    assert pool_limit(0) == 1 << 20
    assert _core._result_pool()["idle_resident"] == 0


def test_a_zero_limit_keeps_nothing_after_each_call(empty_pool, pool_limit):
    pool_limit(0)
    a = _data(1 << 18, np.uint32, seed=11)
    for hi in (9, 49, 99):
        r = simdfilter.filter_indexes(a, 0, hi)
        _check(r, np.flatnonzero(a <= hi).astype(np.uint32))
        del r
        assert _core._result_pool()["idle_resident"] == 0


@pytest.mark.parametrize(
    "bad, error, says",
    [
        (1.5, TypeError, "integer number of bytes, not float"),
        ("1", TypeError, "not str"),
        (None, TypeError, "not NoneType"),
        (-1, ValueError, "from 0 to"),
        (2**70, ValueError, "from 0 to"),
    ],
)
def test_the_limit_refuses_what_is_not_a_byte_count(bad, error, says):
    with pytest.raises(error, match=says):
        simdfilter.set_result_pool_limit(bad)
    assert _core._result_pool()["idle_max"] == POOLED_MAX


def test_the_limit_takes_numpy_integers(pool_limit):
    assert pool_limit(np.int64(3 << 20)) == POOLED_MAX
    assert _core._result_pool()["idle_max"] == 3 << 20


def test_a_pooled_result_is_an_ordinary_array():
    a = _data(1 << 18, np.uint32, seed=7)
    r = simdfilter.filter_indexes(a, 0, 89)
    assert type(r.base) is _core._ResultBuffer
    back = pickle.loads(pickle.dumps(r))
    np.testing.assert_array_equal(back, r)
    assert not np.shares_memory(back, r)
    r += 1  # writable in place
    np.testing.assert_array_equal(r - 1, back)
    with pytest.raises(TypeError):
        _core._ResultBuffer()


def test_in_range_masks_come_from_the_pool(empty_pool):
    a = _data(1 << 18, np.uint16, seed=8)  # a 256 KiB mask
    want = (a >= 10) & (a <= 70)
    m = simdfilter.in_range(a, 10, 70)
    assert type(m.base) is _core._ResultBuffer and m.dtype == np.bool_
    np.testing.assert_array_equal(m, want)
    where = _address(m)
    del m
    again = simdfilter.in_range(a, 20, 30)
    assert _address(again) == where
    np.testing.assert_array_equal(again, (a >= 20) & (a <= 30))
    nothing = simdfilter.in_range(a, 200, 100)  # an empty range: all False, zeroed
    assert not nothing.any() and nothing.size == a.size
