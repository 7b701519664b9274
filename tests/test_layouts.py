"""Inputs are read in place, whatever their layout, and give the reference's answer.

Layouts come from arrays.LAYOUTS (offset, strided, reversed, a column, unaligned,
byte-swapped, read-only, N-d in C and F order) plus memory maps.
"""

import os
import subprocess
import tracemalloc

import numpy as np
import pytest

import simdfilter
from simdfilter import reference

from agree import assert_all_agree
from arrays import KERNEL_DTYPES, LAYOUTS, dtype_id, edge_array, memmap_copy, ordered_edge_values


# Layouts are the binding's and the driver's, the same for every kernel: the
# quick loop runs each case on one kernel in turn (rotate_kernels, conftest.py).
@pytest.mark.rotate_kernels
@pytest.mark.parametrize("layout", list(LAYOUTS) + ["memmap"])
@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_layouts(kernel, dtype, layout, rng, tmp_path):
    base = edge_array(dtype, 5003, rng)
    a = memmap_copy(base, tmp_path, offset_elems=1) if layout == "memmap" else LAYOUTS[layout](base)
    vals = ordered_edge_values(dtype)
    v = lambda i: vals[i % len(vals)]  # noqa: E731
    for lo, hi in [(v(0), v(3)), (v(1), v(-1)), (None, v(2)), (v(4), None)]:
        assert_all_agree(a, lo, hi)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(a, None, None),
        np.flatnonzero(reference.in_range_mask(a, None, None, "both")),
    )


@pytest.mark.rotate_kernels
@pytest.mark.parametrize(
    "shape",
    [(3, 5), (40000, 3), (7, 1023), (5, 1024), (4, 1025), (20, 3, 4), (0, 3), (3, 0), (16385, 1)],
)
@pytest.mark.parametrize("dtype", ["u1", ">u2", "f4", "i8"])
def test_nd_rows_short_and_long(kernel, shape, dtype):
    """Non-C-contiguous N-d arrays: short rows are batched (16 Ki elements at a
    time), long rows filtered one by one; the boundary sits at 1024 columns."""
    b = np.random.default_rng(1).integers(0, 10, size=shape).astype(dtype)
    views = [b.T, np.asfortranarray(b)]
    views.append(b[:, ::-1] if b.ndim == 2 else b.transpose(2, 0, 1))
    for v in views:
        mask = (v >= 3) & (v <= 6)
        np.testing.assert_array_equal(simdfilter.filter_indexes(v, 3, 6), np.flatnonzero(mask))
        np.testing.assert_array_equal(simdfilter.filter_values(v, 3, 6), v.ravel()[mask.ravel()])


def test_filter_values_byteswapped_comes_out_native():
    a = np.arange(10, dtype=">i4")
    got = simdfilter.filter_values(a, 2, 4)
    assert got.dtype == np.dtype("=i4") and got.tolist() == [2, 3, 4]


def _traced_peak(fn):
    """Peak bytes NumPy allocated (it reports its data buffers to tracemalloc) during fn().
    For calls too short to release the GIL: no other thread runs meanwhile."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# The layouts whose rows are shorter than the binding's 1024-element batching threshold.
SHORT_ROWS = {"fortran", "transposed3d"}
SHORT_ROW_BATCH = 16384

# Run in a fresh interpreter: tracemalloc counts every thread's allocations, and
# in the test process other threads run while the call has released the GIL (a
# Dask cluster's event loop, pytest-xdist's I/O thread: 12 to 270 KiB seen).
# One interpreter measures every layout in turn, each call traced by itself
# (starting one per layout cost a second each here, ten or more under qemu).
_NO_COPY_SCRIPT = """
import sys, traceback, tracemalloc
import numpy as np, simdfilter
sys.path.insert(0, sys.argv[1])
from arrays import LAYOUTS
base = np.random.default_rng(7).integers(0, 1000, size=4_000_000, dtype=np.uint32)
for layout in sys.argv[2:]:
    try:
        a = LAYOUTS[layout](base)
        out = np.empty(a.size, dtype=np.uint32)
        simdfilter.filter_indexes(a, 100, 200, out=out)  # warm: imports, first-call caches
        tracemalloc.start()
        tracemalloc.reset_peak()
        got = simdfilter.filter_indexes(a, 100, 200, out=out)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        ok = bool((got == np.flatnonzero((a.ravel() >= 100) & (a.ravel() <= 200))).all())
        print(layout, peak, a.itemsize, ok)
    except Exception:
        print(layout, "error", repr(traceback.format_exc()))
"""


@pytest.fixture(scope="module")
def no_copy_peaks(fresh_python):
    """{layout: (peak bytes, itemsize, right positions)} from one fresh interpreter."""
    tests_dir = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(
        [fresh_python, "-c", _NO_COPY_SCRIPT, tests_dir] + list(LAYOUTS),
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in r.stdout.splitlines()}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_no_copy_of_input(layout, no_copy_peaks):
    """With out= given, a call allocates (almost) nothing, whatever the layout."""
    result = no_copy_peaks.get(layout)
    assert result is not None, f"{layout}: not measured ({no_copy_peaks})"
    assert not result.startswith("error"), f"{layout}: {result}"
    peak, itemsize, ok = result.split()
    assert ok == "True", f"{layout}: wrong positions"
    # N-d arrays with short rows are gathered a batch of rows at a time into one
    # bounded buffer (16 Ki elements): a fixed cost, not a copy of the input.
    limit = 64 * 1024 + (SHORT_ROW_BATCH * int(itemsize) if layout in SHORT_ROWS else 0)
    assert int(peak) < limit, f"{layout}: {peak} bytes allocated for 16 MB of input"


def test_memmap(tmp_path):
    path = tmp_path / "data.u32"
    np.arange(100_000, dtype=np.uint32).tofile(path)
    m = np.memmap(path, dtype=np.uint32, mode="r")
    got = simdfilter.filter_indexes(m[10:], 5, 20)
    assert got.tolist() == list(range(0, 11))
    assert type(got) is np.ndarray


def test_pandas_series_into_iloc():
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    df = pd.DataFrame({"ts": np.array([5, 50, 500, 42, 7], dtype=np.uint32), "x": list("abcde")})
    pos = simdfilter.filter_indexes(df["ts"], 6, 100)
    assert pos.tolist() == [1, 3, 4]
    assert df.iloc[pos]["x"].tolist() == ["b", "d", "e"]
    assert np.shares_memory(df["ts"].to_numpy(), df["ts"].to_numpy())
    out = np.empty(len(df), dtype=np.uint32)
    peak = _traced_peak(lambda: simdfilter.filter_indexes(df["ts"], 6, 100, out=out))
    assert peak < 16 * 1024


def test_lists_and_nd():
    assert simdfilter.filter_indexes([3, 10, 4], 3, 4).tolist() == [0, 2]
    a = np.arange(24, dtype=np.uint32).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(a, 5, 17), np.flatnonzero((a >= 5) & (a <= 17))
    )
    t = a.transpose(2, 0, 1)
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(t, 5, 17), np.flatnonzero((t >= 5) & (t <= 17))
    )
    assert simdfilter.filter_indexes(np.uint32(7), 5, 9).tolist() == [0]
