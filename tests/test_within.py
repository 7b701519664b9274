"""within=: the refinement step of a conjunction, reading only the given positions."""

import numpy as np
import pytest

import simdfilter
from simdfilter import reference

KERNELS = simdfilter.available_kernels()


def expected(values, lo, hi, within, inclusive="both"):
    within = np.asarray(within)
    keep = np.isin(within, reference.filter_indexes(values, lo, hi, inclusive=inclusive))
    return within[keep]


@pytest.fixture(params=KERNELS)
def kernel(request):
    with simdfilter.use_kernel(request.param):
        yield request.param


LAYOUTS = {
    "contiguous": lambda a: a,
    "strided": lambda a: np.repeat(a, 3)[::3],
    "reversed": lambda a: a[::-1].copy()[::-1],
    "byteswapped": lambda a: a.astype(a.dtype.newbyteorder()),
    "unaligned": lambda a: np.frombuffer(b"\0" + a.tobytes(), dtype=a.dtype, offset=1),
}


@pytest.mark.parametrize("dtype", ["u1", "i2", "u4", "i8", "f4", "f8", "M8[s]", "?"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_within_equals_the_reference(kernel, dtype, layout, rng):
    n = int(rng.integers(0, 3000))
    raw = rng.integers(0, 50, n)
    a = LAYOUTS[layout](raw.astype(dtype) if dtype[0] != "M" else raw.astype("M8[s]"))
    lo, hi = (10, 30) if dtype[0] != "M" else (np.datetime64(10, "s"), np.datetime64(30, "s"))
    if dtype == "?":
        lo, hi = True, True
    for density in (0.0, 0.01, 0.5, 1.0):
        within = np.flatnonzero(rng.random(n) < density).astype(np.uint32)
        for w in (within, within.astype(np.int64), within.astype(np.uint64)):
            got = simdfilter.filter_indexes(a, lo, hi, within=w)
            np.testing.assert_array_equal(got, expected(a, lo, hi, w))
            assert got.dtype == (np.uint32 if w.dtype == np.uint32 else np.int64)
            assert simdfilter.count_in_range(a, lo, hi, within=w) == len(got)


def test_within_on_columns_with_nulls(kernel, rng):
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install '.[test]')")
    values = rng.integers(0, 100, 5000)
    nulls = rng.random(5000) < 0.2
    arr = pa.array(values, mask=nulls)
    chunked = pa.chunked_array([arr[:1234], arr[1234:1234], arr[1234:4000].slice(3), arr[4003:]])
    masked = np.ma.array(values, mask=nulls)
    within = np.flatnonzero(rng.random(5000) < 0.3).astype(np.uint32)
    for column, valid in ((arr, ~nulls), (masked, ~nulls)):
        want = within[valid[within] & (values[within] >= 20) & (values[within] <= 70)]
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(column, 20, 70, within=within), want
        )
    flat = np.concatenate([values[:1234], values[1237:4000], values[4003:]])
    fvalid = np.concatenate([~nulls[:1234], ~nulls[1237:4000], ~nulls[4003:]])
    w = within[within < len(flat)]
    want = w[fvalid[w] & (flat[w] >= 20) & (flat[w] <= 70)]
    np.testing.assert_array_equal(simdfilter.filter_indexes(chunked, 20, 70, within=w), want)


def test_within_on_nd_arrays_gives_flat_positions(kernel):
    a = np.arange(60.0).reshape(3, 4, 5).transpose(2, 0, 1)
    within = np.array([0, 1, 7, 13, 14, 30, 59], np.uint32)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(a, 10, 50, within=within), expected(a, 10, 50, within)
    )


def test_within_out_and_dtypes():
    a = np.arange(100, dtype=np.int32)
    w = np.array([1, 50, 60, 99], np.uint32)
    out = np.empty(4, np.uint32)
    got = simdfilter.filter_indexes(a, 40, 70, within=w, out=out)
    assert got.tolist() == [50, 60] and np.shares_memory(got, out)
    assert simdfilter.filter_indexes(a, 40, 70, within=[1, 50, 60]).dtype == np.int64
    assert simdfilter.filter_indexes(a, 40, 70, within=np.array([], np.uint32)).tolist() == []
    with pytest.raises(ValueError, match="len\\(within\\)"):
        simdfilter.filter_indexes(a, 40, 70, within=w, out=np.empty(3, np.uint32))
    with pytest.raises(TypeError, match="as within holds them"):
        simdfilter.filter_indexes(a, 40, 70, within=w, index_dtype=np.int64)


@pytest.mark.parametrize(
    "bad, error",
    [
        ([3, 3], ValueError),
        ([5, 2], ValueError),
        ([-1, 3], IndexError),
        ([3, 100], IndexError),
        ([3, 2**40, 7], IndexError),
        (np.array([[1, 2]]), TypeError),
        ([0.5, 1.0], TypeError),
    ],
)
def test_bad_positions_are_refused(bad, error):
    a = np.arange(100, dtype=np.uint8)
    with pytest.raises(error):
        simdfilter.filter_indexes(a, 0, 255, within=bad)
    with pytest.raises(error):
        simdfilter.count_in_range(a, 0, 255, within=bad)


def test_filter_values_takes_no_within():
    with pytest.raises(TypeError, match="unexpected keyword argument 'within'"):
        simdfilter.filter_values(np.arange(3), 0, 1, within=[0])


@pytest.mark.parametrize("dtype", ["u4", "f4", "u8", "f8"])
def test_within_offsets_beyond_2_31_on_every_kernel(dtype, tmp_path):
    # A sparse file of 2**31 + 64 elements (8-16 GiB of address space, a few pages
    # of disk): offsets of 2**31 and more, where a gather's signed 32-bit indexes
    # would go negative (kernels/avx512.c and avx2.c widen them), next to small
    # offsets in the same call.
    n = 2**31 + 64
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(n * np.dtype(dtype).itemsize)
    a = np.memmap(path, dtype=dtype, mode="r+", shape=(n,))
    high = np.arange(n - 40, n, dtype=np.int64)
    a[high] = np.arange(40) % 5  # 0 1 2 3 4 0 1 ...: in [1, 3] three times in five
    low = np.arange(0, 24, dtype=np.int64)
    a[low] = 7  # outside [1, 3]
    within = np.concatenate([low[:8], high[::-1][:16], low[8:], high[:24]]).astype(np.uint32)
    within = np.sort(within)  # the driver asks for ascending positions
    want = within[np.isin(a[within], [1, 2, 3])]
    for k in KERNELS:
        with simdfilter.use_kernel(k):
            got = simdfilter.filter_indexes(a, 1, 3, within=within)
            got64 = simdfilter.filter_indexes(a, 1, 3, within=within.astype(np.int64))
        np.testing.assert_array_equal(got, want, err_msg=k)
        np.testing.assert_array_equal(got64, want, err_msg=k)
    del a


@pytest.mark.parametrize("dtype", ["u1", "i2", "u4", "i8", "f4", "f8", "M8[ns]", "?"])
def test_dense_and_sparse_stretches_of_positions(kernel, dtype, rng):
    """Blocks of close positions are answered by a pass over the stretch they cover
    (lib/driver.c's within_dense), sparse ones by loads at each position: every spacing
    either side of that choice, stretches longer than its window, values at the edges."""
    n = 40_000
    raw = rng.integers(0, 50, n)
    if dtype[0] == "M":
        a = raw.astype("M8[ns]")
        a[rng.random(n) < 0.05] = np.datetime64("NaT", "ns")
        lo, hi = np.datetime64(10, "ns"), np.datetime64(30, "ns")
    elif dtype == "?":
        a, lo, hi = raw % 2 == 1, True, True
    else:
        a = raw.astype(dtype)
        if dtype[0] == "f":
            a[rng.random(n) < 0.05] = np.nan
        lo, hi = 10, 30
    pieces, start = [], int(rng.integers(0, 7))
    for step in (1, 15, 16, 17, 2, 100, 3, 40, 1):
        stop = min(start + 5000, n)
        pieces.append(np.arange(start + int(rng.integers(0, step)), stop, step))
        start = stop
    within = np.concatenate(pieces).astype(np.uint32)
    for w in (within, within.astype(np.int64)):
        got = simdfilter.filter_indexes(a, lo, hi, within=w)
        np.testing.assert_array_equal(got, expected(a, lo, hi, w))
        assert simdfilter.count_in_range(a, lo, hi, within=w) == len(got)
        out = np.full(w.size, 7, dtype=got.dtype)
        np.testing.assert_array_equal(simdfilter.filter_indexes(a, lo, hi, within=w, out=out), got)
