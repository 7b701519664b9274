"""simdfilter.Packed: the raw array's answers, read from the packed words.

Every query is held against NumPy's own expression on the decoded data (and
the decoded data against the values given), with each kernel pinned: every
block width 0..64 (0..32 on 32-bit data, where the width of a block is exact
because each block holds its least and greatest offset), block edges and a
short last block, lengths 0..200 and one past a million, each ``inclusive``,
``invert``, empty ranges and ranges past the type's ends, every dtype the
class takes (NaT kept when inverted, as the functions keep it). The vector
kernels are held against the scalar twin on the same data besides.
"""

import pickle

import numpy as np
import pytest

import simdfilter
from simdfilter import _core

INCLUSIVE = ("both", "left", "right", "neither")
PACKED_KERNELS = {"avx2", "avx512", "avx512_zen4"}  # the others run the scalar twin


def expected(x, lo, hi, inclusive="both", invert=False):
    """NumPy's mask for the range on x (ints or times): None is unbounded."""
    keys = x.view(np.int64) if x.dtype.kind in "Mm" else x
    nat = (keys == np.iinfo(np.int64).min) if x.dtype.kind in "Mm" else np.zeros(x.shape, bool)
    mask = ~nat
    if lo is not None:
        mask &= keys >= lo if inclusive in ("both", "left") else keys > lo
    if hi is not None:
        mask &= keys <= hi if inclusive in ("both", "right") else keys < hi
    return ~mask if invert else mask


def check(p, x, lo, hi, inclusive="both", invert=False):
    """Every verb of p against NumPy's expression on x; returns the answers."""
    want = expected(x, lo, hi, inclusive, invert)
    kw = dict(inclusive=inclusive, invert=invert)
    lo_b, hi_b = lo, hi
    if x.dtype.kind in "Mm":
        unit = np.datetime_data(x.dtype)[0]
        make = np.datetime64 if x.dtype.kind == "M" else np.timedelta64
        lo_b = None if lo is None else make(int(lo), unit)
        hi_b = None if hi is None else make(int(hi), unit)
    count = p.count_in_range(lo_b, hi_b, **kw)
    idx = p.filter_indexes(lo_b, hi_b, **kw)
    vals = p.filter_values(lo_b, hi_b, **kw)
    mask = p.in_range(lo_b, hi_b, **kw)
    assert count == int(np.count_nonzero(want))
    assert idx.dtype == np.uint32
    np.testing.assert_array_equal(idx, np.flatnonzero(want))
    assert vals.dtype == x.dtype
    np.testing.assert_array_equal(
        vals.view(np.uint8 if x.dtype == bool else vals.dtype),
        x.reshape(-1)[want.reshape(-1)]
        .view(vals.dtype)
        .view(np.uint8 if x.dtype == bool else vals.dtype),
    )
    np.testing.assert_array_equal(mask, want)
    return count, idx, vals, mask


def block_data(rng, dtype, widths, block, tail):
    """Blocks of `dtype` whose offsets span exactly widths[i] bits each (the
    block holding its reference and reference + 2**w - 1), then `tail` more
    values of the last width: a short last block."""
    info = np.iinfo(dtype)
    parts = []
    for i, w in enumerate(list(widths) + [widths[-1]]):
        n = block if i < len(widths) else tail
        if n == 0:
            continue
        w = int(w)
        span = (1 << w) - 1
        low, high = int(info.min), int(info.max) - span
        base = low + int(rng.integers(0, 1 << 62)) % (high - low + 1)
        offs = (
            rng.integers(0, span, n, endpoint=True, dtype=np.uint64)
            if w
            else np.zeros(n, np.uint64)
        )
        offs[rng.integers(0, n)] = 0
        offs[rng.integers(0, n)] = span
        parts.append((np.array(base, dtype=object) + offs.astype(object)).astype(dtype))
    return np.concatenate(parts) if parts else np.zeros(0, dtype)


def ranges(rng, x):
    """Ranges that cut blocks, hold them whole, miss them, and pass the type's ends."""
    info = np.iinfo(x.dtype) if x.dtype.kind in "iu" else np.iinfo(np.int64)
    keys = x.view(np.int64) if x.dtype.kind in "Mm" else x
    a, b = sorted(int(v) for v in rng.choice(keys, 2))
    yield a, b
    yield int(keys.min()), int(keys.max())
    yield int(keys[0]), int(keys[0])
    yield None, a
    yield b, None
    yield b + 1, a - 1  # empty: inverted, everything
    yield int(info.min), int(info.max)


@pytest.mark.parametrize("dtype", [np.uint32, np.int64, np.uint64, np.uint8, np.int16])
def test_every_width(kernel, rng, dtype):
    """Each width the dtype holds, in blocks side by side (every width 0..bits,
    then the same widths in another order), with a short last block; the
    vector kernels' answers are the scalar twin's."""
    bits = np.iinfo(dtype).bits
    widths = list(range(bits + 1))
    widths += list(rng.permutation(widths))
    x = block_data(rng, dtype, widths, 1024, int(rng.integers(1, 1024)))
    p = simdfilter.Packed(x, block=1024)
    assert int(p._parts[2].max()) == bits
    np.testing.assert_array_equal(p.to_numpy(), x)
    for lo, hi in ranges(rng, x):
        for inclusive, invert in (("both", False), ("neither", True)):
            got = check(p, x, lo, hi, inclusive, invert)
            if kernel in PACKED_KERNELS:
                with simdfilter.use_kernel("scalar"):
                    twin = check(p, x, lo, hi, inclusive, invert)
                assert got[0] == twin[0]
                np.testing.assert_array_equal(got[1], twin[1])


def test_block_edges_and_lengths(kernel, rng):
    """Every length 0..200 in a block of 1024, and lengths around block and
    row edges (32 and 16 lanes) in blocks of 1024 and 2048."""
    x = (rng.integers(0, 1 << 11, 200) + 70_000).astype(np.uint32)
    for n in range(201):
        p = simdfilter.Packed(x[:n], block=1024)
        assert p.to_numpy().shape == (n,)
        lo, hi = 70_100, 71_000
        assert p.count_in_range(lo, hi) == np.count_nonzero((x[:n] >= lo) & (x[:n] <= hi))
        np.testing.assert_array_equal(
            p.filter_indexes(lo, hi, invert=True), np.flatnonzero(~((x[:n] >= lo) & (x[:n] <= hi)))
        )
    y = rng.integers(-(1 << 40), 1 << 40, 4200, dtype=np.int64)
    for block in (1024, 2048):
        for n in (1, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4200):
            p = simdfilter.Packed(y[:n], block=block)
            np.testing.assert_array_equal(p.to_numpy(), y[:n])
            check(p, y[:n], -(1 << 39), 1 << 38, "right", False)


DTYPES = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "M8[s]", "m8[ms]", ">i4", "<u8"]


# Every dtype on every kernel in the full suite; in the quick loop each dtype on
# one kernel in turn (rotate_kernels, conftest.py): the widths test pins every
# kernel on every width already.
@pytest.mark.rotate_kernels
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_as_the_functions(kernel, rng, dtype):
    """Each dtype, NaT among the times, against the functions on the raw array
    (their dtype of positions and values) and NumPy's expression."""
    dt = np.dtype(dtype)
    n = 3000
    if dt.kind == "b":
        x = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "Mm":
        x = (rng.integers(0, 5000, n) + 10**9).astype(np.int64).view(dt)
        x[::7] = np.array("NaT", dt)
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="), endpoint=True)
        x = x.astype(dt)
    p = simdfilter.Packed(x)
    assert p.dtype == dt.newbyteorder("=")
    np.testing.assert_array_equal(
        p.to_numpy().view(np.uint8 if dt.kind == "b" else p.dtype),
        x.astype(p.dtype).view(np.uint8 if dt.kind == "b" else p.dtype),
    )
    a, b = (
        sorted(rng.choice(x, 2).tolist()) if dt.kind not in "Mm" else sorted(rng.choice(x[1:7], 2))
    )
    for inclusive in INCLUSIVE:
        for invert in (False, True):
            kw = dict(inclusive=inclusive, invert=invert)
            assert p.count_in_range(a, b, **kw) == simdfilter.count_in_range(x, a, b, **kw)
            want = simdfilter.filter_indexes(x, a, b, **kw)
            got = p.filter_indexes(a, b, **kw)
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
            want_v, got_v = simdfilter.filter_values(x, a, b, **kw), p.filter_values(a, b, **kw)
            assert got_v.dtype == want_v.dtype
            view = np.uint8 if dt.kind == "b" else np.int64 if dt.kind in "Mm" else got_v.dtype
            np.testing.assert_array_equal(got_v.view(view), want_v.view(view))
            np.testing.assert_array_equal(
                p.in_range(a, b, **kw), simdfilter.in_range(x, a, b, **kw)
            )


def test_large(rng):
    """A million values and more, blocks of 4096 and 65536, against NumPy."""
    x = (rng.integers(0, 1 << 12, (1 << 20) + 12_345) + 3_000_000_000).astype(np.uint32)
    for block in (4096, 65536):
        p = simdfilter.Packed(x, block=block)
        assert p.nbytes <= 0.4 * x.nbytes
        np.testing.assert_array_equal(p.to_numpy(), x)
        check(p, x, 3_000_000_040, 3_000_000_080)
        check(p, x, 3_000_000_000, 3_000_002_047, invert=True)


def test_shape_pickle_nbytes(rng):
    """Positions are flat in C order; in_range and to_numpy keep the shape; a
    pickle round trip gives the same column; nbytes counts every part."""
    x = rng.integers(-50, 50, (30, 70)).astype(np.int16)
    p = simdfilter.Packed(x.T)  # not contiguous: packed in C order of x.T
    np.testing.assert_array_equal(p.to_numpy(), x.T)
    np.testing.assert_array_equal(
        p.filter_indexes(-5, 5), simdfilter.filter_indexes(x.T.copy(), -5, 5)
    )
    assert p.in_range(-5, 5).shape == (70, 30)
    q = pickle.loads(pickle.dumps(p))
    assert (q.dtype, q.shape, q.block, q.nbytes) == (p.dtype, p.shape, p.block, p.nbytes)
    np.testing.assert_array_equal(q.to_numpy(), x.T)
    assert q.count_in_range(0, None) == np.count_nonzero(x >= 0)
    assert p.nbytes == sum(a.nbytes for a in p._parts)
    # Each block: its words (`block` offsets of its width, the last padded)
    # and 25 bytes (reference, greatest offset, start, width); one more start.
    widths = p._parts[2].astype(np.int64)
    assert widths.max() <= 7  # offsets of values in [-50, 50)
    assert p.nbytes == int((widths * p.block // 8).sum()) + 25 * widths.size + 8


def test_memory_ratios():
    """The issue's memory bounds: 12-bit spans take at most 0.4x the raw array
    (uint32 and int64 alike), uniform 32-bit data at most 1.02x."""
    r = np.random.default_rng(45)
    n = 1 << 16
    narrow = r.integers(0, 1 << 12, n)
    for x in (narrow.astype(np.uint32) + 123_456, narrow.astype(np.int64) - 10**15):
        assert simdfilter.Packed(x).nbytes <= 0.4 * x.nbytes
    u = r.integers(0, 1 << 32, n, dtype=np.uint32)
    assert simdfilter.Packed(u).nbytes <= 1.02 * u.nbytes


def test_packed_kernel_follows_the_kernel(kernel):
    """The packed kernel is the pinned kernel's own where it has one, else the scalar twin."""
    assert _core._packed_kernel() == (kernel if kernel in PACKED_KERNELS else "scalar")


def test_refusals():
    x = np.arange(5000, dtype=np.int32)
    with pytest.raises(TypeError, match="would not pack"):
        simdfilter.Packed(np.zeros(3, np.float64))
    with pytest.raises(TypeError, match="NumPy array"):
        simdfilter.Packed([1, 2, 3])
    with pytest.raises(TypeError, match="not <U1"):
        simdfilter.Packed(np.array(["a"]))
    for block in (0, 1000, 1025, 1 << 17):
        with pytest.raises(ValueError, match="multiple of 1024"):
            simdfilter.Packed(x, block=block)
    p = simdfilter.Packed(x)
    with pytest.raises(TypeError, match="one range"):
        p.count_in_range([1, 2], [3, 4])
    with pytest.raises(ValueError, match="inclusive"):
        p.count_in_range(1, 2, inclusive="all")
    with pytest.raises(TypeError):
        p.filter_indexes(1, 2, invert="yes")
    assert p.count_in_range(2.5, 10**30) == 4997 and p.count_in_range(None, -(10**30)) == 0
    dtype, shape, block, parts = p.__reduce__()[1]
    damaged = list(parts)
    damaged[2] = damaged[2].copy()
    damaged[2][0] = 40  # a width past the values' 32 bits
    damaged_p = simdfilter._packed._rebuild(dtype, shape, block, tuple(damaged))
    with pytest.raises(ValueError, match="inconsistent"):
        damaged_p.count_in_range(1, 2)
    with pytest.raises(ValueError, match="inconsistent"):
        damaged_p.to_numpy()
