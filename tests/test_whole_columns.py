"""The three private steps a frame query takes when it reads its columns whole
(simdfilter._conjunction): ``_core._in_range_bits`` (a column's in-range bits),
``_core._positions_of_bits`` (bits back to rows) and
``_core._filter_indexes_where`` (the last column, at the rows set in the bits),
each against NumPy on every kernel dtype, lengths across the library's blocks of
2,048, nulls in every form and the layouts; the faces' own tests compare the
frame queries with pandas and Polars."""

import numpy as np
import pytest

import simdfilter
from simdfilter import _core

from arrays import KERNEL_DTYPES, dtype_id

LENGTHS = [0, 1, 7, 8, 9, 63, 64, 65, 2047, 2048, 2049, 5003]


def packed(mask):
    return np.packbits(np.asarray(mask, dtype=bool), bitorder="little")


def data(dtype, n, rng):
    if dtype.kind == "f":
        a = rng.normal(size=n).astype(dtype)
        a[rng.random(n) < 0.05] = np.nan
        return a
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "mM":
        return rng.integers(-1000, 1000, n).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def bounds(a):
    """A range holding about half the values (a bool column: True only)."""
    if a.dtype.kind == "b":
        return True, True
    s = np.sort(a[~np.isnan(a)] if a.dtype.kind == "f" else a)
    if len(s) == 0:
        s = np.array([0, 1]).astype(a.dtype)
    return s[len(s) // 4], s[(3 * len(s)) // 4]


def in_range(a, lo, hi):
    return (a >= lo) & (a <= hi)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_in_range_bits_are_in_range_packed(dtype, kernel, rng):
    for n in LENGTHS:
        a = data(dtype, n, rng)
        lo, hi = bounds(a)
        want = packed(in_range(a, lo, hi))
        np.testing.assert_array_equal(_core._in_range_bits(a, lo, hi), want)
        out = np.full(len(want) + 3, 0xAB, dtype=np.uint8)
        got = _core._in_range_bits(a, lo, hi, out=out)
        np.testing.assert_array_equal(got, want)
        assert got.base is out and (out[len(want) :] == 0xAB).all()  # nothing past ceil(n/8)
        inverted = _core._in_range_bits(a, lo, hi, invert=True)
        np.testing.assert_array_equal(inverted, packed(~in_range(a, lo, hi)))


def test_in_range_bits_nulls_are_zero(rng):
    ma = np.ma.masked_array(rng.normal(size=3001), mask=rng.random(3001) < 0.2)
    want = packed((ma.data >= -1) & (ma.data <= 1) & ~ma.mask)
    np.testing.assert_array_equal(_core._in_range_bits(ma, -1.0, 1.0), want)


def test_in_range_bits_out_is_checked(rng):
    a = rng.normal(size=100)
    with pytest.raises(ValueError, match="ceil"):
        _core._in_range_bits(a, 0.0, 1.0, out=np.zeros(12, np.uint8))
    with pytest.raises(TypeError, match="dtype"):
        _core._in_range_bits(a, 0.0, 1.0, out=np.zeros(13, np.int8))
    with pytest.raises(TypeError, match="no out"):
        _core._in_range_arrow(a, 0.0, 1.0, out=np.zeros(13, np.uint8))


@pytest.mark.parametrize("index_dtype", [np.uint32, np.int64, np.uint64])
def test_positions_of_bits_are_the_set_bits(index_dtype, kernel, rng):
    for n in LENGTHS + [3 * 2048 + 5]:
        for density in (0.0, 0.01, 0.03, 0.2, 0.7, 1.0):
            mask = rng.random(n) < density
            bits = packed(mask)
            if n % 8:  # bits past n are not rows
                bits[-1] |= np.uint8(0xFF << (n % 8) & 0xFF)
            got = _core._positions_of_bits(bits, n, index_dtype)
            assert got.dtype == np.dtype(index_dtype)
            np.testing.assert_array_equal(got, np.flatnonzero(mask))


def test_positions_of_bits_errors():
    bits = np.zeros(4, np.uint8)
    with pytest.raises(ValueError, match="33 bits"):
        _core._positions_of_bits(bits, 33, np.uint32)
    with pytest.raises(TypeError, match="uint8"):
        _core._positions_of_bits(bits.view(np.int8), 8, np.uint32)
    with pytest.raises(TypeError, match="index_dtype"):
        _core._positions_of_bits(bits, 8, np.float64)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_filter_indexes_where_keeps_the_rows_set(dtype, kernel, rng):
    for n in LENGTHS:
        a = data(dtype, n, rng)
        lo, hi = bounds(a)
        rows = rng.random(n) < 0.3
        got = _core._filter_indexes_where(packed(rows), a, lo, hi)
        np.testing.assert_array_equal(got, np.flatnonzero(rows & in_range(a, lo, hi)))
        got = _core._filter_indexes_where(packed(rows), a, lo, hi, invert=True)
        np.testing.assert_array_equal(got, np.flatnonzero(rows & ~in_range(a, lo, hi)))


def test_filter_indexes_where_nulls_and_layouts(rng):
    n = 20_011
    base = rng.normal(size=n)
    rows = rng.random(n) < 0.5
    bits = packed(rows)

    def check(values, plain, valid, **kw):
        want = np.flatnonzero(rows & valid & (plain >= -1) & (plain <= 1))
        np.testing.assert_array_equal(
            _core._filter_indexes_where(bits, values, -1.0, 1.0, **kw), want
        )

    every = np.ones(n, dtype=bool)
    check(base, base, every)
    check(base, base, every, index_dtype=np.int64)
    check(base.byteswap().view(base.dtype.newbyteorder()), base, every)
    nulls = rng.random(n) < 0.2
    check(np.ma.masked_array(base, mask=nulls), base, ~nulls)
    rev = np.ascontiguousarray(base)[::-1]
    check(rev, rev, every)
    wide = np.repeat(base, 3)[::3]  # strided
    check(wide, base, every)
    pd = pytest.importorskip("pandas", reason="pandas columns: pandas is not installed")
    check(pd.Series(pd.array(np.where(nulls, np.nan, base), dtype="Float64")), base, ~nulls)
    pa = pytest.importorskip("pyarrow", reason="Arrow columns: pyarrow is not installed")
    # two chunks, the second a slice (an offset into its buffers), nulls in both
    cut = 7_777
    tail = pa.array(
        np.concatenate([[0.0] * 3, base[cut:]]), mask=np.concatenate([[True] * 3, nulls[cut:]])
    )
    chunked = pa.chunked_array([pa.array(base[:cut], mask=nulls[:cut]), tail.slice(3)])
    check(chunked, base, ~nulls)


def test_filter_indexes_where_threads_and_2d(rng):
    # 2**20 + 3 rows: runs long enough for threads=2 to split them (the bits
    # read from each part's own position on); a Fortran-order 2-D masked array,
    # walked row by row in C order (a run per row).
    n = (1 << 20) + 3
    a = rng.normal(size=n)
    rows = rng.random(n) < 0.5
    want = np.flatnonzero(rows & (a >= -1) & (a <= 1))
    for threads in (1, 2):
        got = _core._filter_indexes_where(packed(rows), a, -1.0, 1.0, threads=threads)
        np.testing.assert_array_equal(got, want)
    m = 3001 * 7
    grid = np.asfortranarray(rng.normal(size=(3001, 7)))
    nulls = rng.random((3001, 7)) < 0.2
    masked = np.ma.masked_array(grid, mask=np.asfortranarray(nulls))
    keep = rng.random(m) < 0.5
    flat, valid = grid.ravel(), ~nulls.ravel()
    got = _core._filter_indexes_where(packed(keep), masked, -1.0, 1.0)
    np.testing.assert_array_equal(got, np.flatnonzero(keep & valid & (flat >= -1) & (flat <= 1)))


def test_filter_indexes_where_errors(rng):
    a = rng.normal(size=100)
    bits = np.zeros(13, np.uint8)
    with pytest.raises(ValueError, match="ceil"):
        _core._filter_indexes_where(bits[:12], a, 0.0, 1.0)
    shared = np.full(400, 255, np.uint8)
    with pytest.raises(ValueError, match="share memory with where"):
        _core._filter_indexes_where(shared, a, -10.0, 10.0, out=shared.view(np.uint32))
    with pytest.raises(TypeError, match="uint8"):
        _core._filter_indexes_where(bits.view(np.int8), a, 0.0, 1.0)
    with pytest.raises(TypeError, match="within"):
        _core._filter_indexes_where(bits, a, 0.0, 1.0, within=np.arange(3))
    with pytest.raises(TypeError, match="assume_sorted"):
        _core._filter_indexes_where(bits, a, 0.0, 1.0, assume_sorted=True)
    with pytest.raises(TypeError, match="needs where"):
        _core._filter_indexes_where()
    assert simdfilter.filter_indexes(a, 0.0, 1.0).size  # the public function is untouched
