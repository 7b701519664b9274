"""Every kernel against the reference: lengths, alignments, selectivities.

The C scalar kernel is checked against the pure-NumPy reference; every SIMD kernel
against the C scalar kernel (and so, transitively, against the reference too).
uint32 is the dtype each kernel family was first written for, so it gets the
densest checks here; tests/test_dtypes.py runs the same kernels on every dtype.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from agree import assert_same, reference_answers
from arrays import MODES, crowded
from conftest import KERNELS, SIMD_KERNELS, examples

U32_MAX = 2**32 - 1
# uint32's edges around the sign bit that the SSE/AVX kernels flip to compare unsigned.
EDGES = [0, 1, 2, 2**31 - 1, 2**31, 2**32 - 2, 2**32 - 1]


def with_scalar(fn):
    with simdfilter.use_kernel("scalar"):
        return fn()


def check(a, lo, hi, inclusive="both", **kw):
    """The active kernel against the reference (scalar) or the C scalar kernel (SIMD)."""
    got = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, **kw)
    if kw:
        want = reference.filter_indexes(a, lo, hi, inclusive=inclusive, **kw)
    else:  # the same answer for every kernel: computed once (agree.py)
        want = reference_answers(a, lo, hi, inclusive)[0]
    assert got.dtype == want.dtype
    assert_same(got, want)
    if simdfilter.active_kernel() != "scalar":
        base = with_scalar(lambda: simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, **kw))
        assert_same(got, base)
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want.size
    return got


def test_years_example(kernel):
    years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)
    got = simdfilter.filter_indexes(years, 1982, 2000)
    assert got.dtype == np.uint32
    assert got.tolist() == [0, 5, 7]


def test_every_length_and_offset(kernel, rng):
    """Every length 0..70 at every start offset 0..15 (alignments), edge bounds."""
    buf = crowded(rng, 70 + 16, EDGES)
    bounds = [
        (0, U32_MAX),
        (2**31 - 1, 2**31),
        (1, 2**32 - 2),
        (5, 5),
        (9, 3),
        (0, 0),
        (U32_MAX, U32_MAX),
        (2**31, U32_MAX),
    ]
    for offset in range(16):
        for n in range(71):
            a = buf[offset : offset + n]
            for lo, hi in bounds:
                check(a, lo, hi)


@pytest.mark.parametrize("inclusive", MODES)
def test_edge_bounds_all_modes(kernel, rng, inclusive):
    a = crowded(rng, 3000, EDGES)
    for lo in EDGES:
        for hi in EDGES:
            check(a, lo, hi, inclusive)


def test_random_lengths(kernel, rng):
    for _ in range(40):
        n = int(rng.integers(0, 5000))
        off = int(rng.integers(0, 17))
        a = rng.integers(0, 2**32, size=n + off, dtype=np.uint32)[off:]
        lo, hi = sorted(int(v) for v in rng.integers(0, 2**32, size=2))
        check(a, lo, hi, MODES[int(rng.integers(0, 4))])


@pytest.mark.parametrize("selectivity", [0.0, 0.01, 0.5, 0.99, 1.0])
def test_large_array(kernel, rng, selectivity):
    """At least 10^6 elements per kernel, across selectivities."""
    a = rng.integers(0, 2**32, size=1_200_007, dtype=np.uint32)
    hi = int(selectivity * U32_MAX)
    got = check(a, 0, hi) if selectivity < 1 else check(a, 0, U32_MAX)
    assert abs(got.size / a.size - selectivity) < 0.01


@pytest.mark.parametrize("index_dtype", [np.uint32, np.int64, np.uint64, np.intp, "int64", None])
def test_index_dtypes(kernel, rng, index_dtype):
    a = rng.integers(0, 1000, size=1003, dtype=np.uint32)[1:]
    got = check(a, 100, 600, index_dtype=index_dtype)
    assert got.dtype == np.dtype(index_dtype or np.uint32)


@pytest.mark.parametrize("index_dtype", [np.uint32, np.int64, np.uint64])
def test_out(kernel, rng, index_dtype):
    a = rng.integers(0, 1000, size=777, dtype=np.uint32)
    out = np.full(800, 12345, dtype=index_dtype)
    got = simdfilter.filter_indexes(a, 100, 600, out=out)
    want = reference.filter_indexes(a, 100, 600, index_dtype=index_dtype)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.dtype(index_dtype)
    assert got.base is out, "the result must be a view of out"
    assert (out[777:] == 12345).all(), "wrote past values.size"
    empty = simdfilter.filter_indexes(a, 700, 600, out=out)
    assert empty.size == 0 and empty.base is out


@settings(max_examples=examples(60), deadline=None)
@given(
    data=st.lists(st.sampled_from(EDGES) | st.integers(0, U32_MAX), max_size=300),
    offset=st.integers(0, 15),
    lo=st.sampled_from(EDGES + [-1, 2**32, None])
    | st.integers(0, U32_MAX)
    | st.floats(allow_nan=True),
    hi=st.sampled_from(EDGES + [-1, 2**32, None])
    | st.integers(0, U32_MAX)
    | st.floats(allow_nan=True),
    inclusive=st.sampled_from(MODES),
    kernel_name=st.sampled_from(KERNELS),
)
def test_property_against_reference(data, offset, lo, hi, inclusive, kernel_name):
    buf = np.zeros(len(data) + offset, dtype=np.uint32)
    buf[offset:] = data
    with simdfilter.use_kernel(kernel_name):
        check(buf[offset:], lo, hi, inclusive)


@pytest.mark.skipif(not SIMD_KERNELS, reason="no SIMD kernel runs on this CPU; nothing to compare")
@pytest.mark.parametrize("name", SIMD_KERNELS)
def test_simd_equals_scalar_many_lengths(name, rng):
    """Each SIMD kernel against the C scalar kernel on every length up to 300."""
    base = rng.integers(0, 2**32, size=400, dtype=np.uint32)
    for n in range(301):
        off = n % 17
        a = base[off : off + n]
        lo, hi = sorted(int(v) for v in rng.integers(0, 2**32, size=2))
        want = with_scalar(lambda: simdfilter.filter_indexes(a, lo, hi))
        with simdfilter.use_kernel(name):
            got = simdfilter.filter_indexes(a, lo, hi)
        assert_same(got, want)


# The x86 kernels choose their loop per window from what the previous window
# kept: a sparse loop over 32-element blocks (64 on AVX-512: skips a block that
# keeps nothing, writes a few hits one by one) or the dense loop. The windows are
# 2048 elements (sse41 and avx2: after a first one of 256, and the last one is
# what is left, down to a multiple of 64). These arrays
# change from empty to nearly empty to dense within one call, in regions of
# whole 32-element blocks, so every call runs both loops and switches between
# them both ways; the hits sit at the first and the last lane of blocks.
BLOCK = 32
REGIONS = ["empty", "first lane", "last lane", "one random lane", "0.2%", "half", "all"]


def clustered(rng, n, dtype, lo, hi):
    """`n` elements of `dtype`, in range [lo, hi] as the regions say, else outside."""
    inside = np.zeros(n, dtype=bool)
    i = 0
    while i < n:
        end = min(n, i + BLOCK * int(rng.choice([1, 2, 7, 64, 70, 200])))
        lane = np.arange(i, end) % BLOCK
        region = REGIONS[int(rng.integers(len(REGIONS)))]
        inside[i:end] = {
            "empty": False,
            "first lane": lane == 0,
            "last lane": lane == BLOCK - 1,
            "one random lane": lane == int(rng.integers(BLOCK)),
            "0.2%": rng.random(end - i) < 0.002,
            "half": rng.random(end - i) < 0.5,
            "all": True,
        }[region]
        i = end
    # in range: lo or hi themselves, or between; outside: just below lo or above hi
    a = np.where(
        inside, np.where(rng.random(n) < 0.5, lo, hi), np.where(rng.random(n) < 0.5, lo - 1, hi + 1)
    ).astype(dtype)
    return a, np.flatnonzero(inside)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "uint32", "int64", "float32", "float64"])
def test_clustered_blocks_sparse_and_dense_in_one_call(kernel, rng, dtype):
    for n in (320 + 31, 2304 + 64 + 7, 4096, 4096 + 31, 6144 + 1, 20_000, 65_536 + 5):
        a, want = clustered(rng, n, dtype, 10, 20)
        np.testing.assert_array_equal(check(a, 10, 20), want)
        with simdfilter.use_kernel("scalar"):
            wv = simdfilter.filter_values(a, 10, 20)
        np.testing.assert_array_equal(simdfilter.filter_values(a, 10, 20), wv)
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(a, 10, 20, index_dtype=np.int64), want
        )
        # nulls: the same loops with the validity bits of a masked array
        m = np.ma.masked_array(a, mask=rng.random(n) < 0.3)
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(m, 10, 20), reference.filter_indexes(m, 10, 20)
        )


def dense_variants():
    """The benchmark-only variants (the x86 filter loop without its sparse windows)
    of the kernels this CPU runs: hidden from available_kernels, chosen by name."""
    return [k + "_dense" for k in SIMD_KERNELS if k in ("sse41", "avx2", "avx512_zen4", "avx512")]


@pytest.mark.skipif(not dense_variants(), reason="no x86 SIMD kernel runs here: no dense variant")
@pytest.mark.parametrize("name", dense_variants() or ["none"])
def test_dense_variant_equals_scalar(name, rng):
    assert name not in simdfilter.available_kernels()
    assert name not in simdfilter.compiled_kernels()
    for n in (0, 1, 31, 300, 4096, 20_000):
        a, want = clustered(rng, n, np.uint32, 1000, 2000)
        with simdfilter.use_kernel(name):
            assert simdfilter.active_kernel() == name
            np.testing.assert_array_equal(simdfilter.filter_indexes(a, 1000, 2000), want)
            assert simdfilter.count_in_range(a, 1000, 2000) == want.size
