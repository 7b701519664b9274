"""in_range (the kernels' byte mask) and its Arrow form (their bitmap).

Every dtype, layout and pinned kernel against simdfilter.reference and NumPy 2's
own ``(a >= lo) & (a <= hi)``; nulls of pandas and Arrow columns (chunks at
offsets that are no multiple of 8) False, and carried as the validity of the
Arrow form; out=, threads and the argument checks of the other functions.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import _core, _masks, reference

from arrays import ALL_DTYPES, LAYOUTS, MODES, bound_strategy, data_strategy, dtype_id
from conftest import KERNELS, examples


def expected(values, lo, hi, inclusive="both"):
    return reference.in_range_mask(values, lo, hi, inclusive).ravel()


def check(values, lo, hi, inclusive="both", **kw):
    got = simdfilter.in_range(values, lo, hi, inclusive=inclusive, **kw)
    want = expected(values, lo, hi, inclusive)
    assert got.dtype == np.bool_ and got.ndim == 1
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_property_every_dtype_layout_and_kernel(dtype, data):
    base = data.draw(data_strategy(dtype, max_size=300), label="values")
    layout = data.draw(st.sampled_from(sorted(LAYOUTS)), label="layout")
    a = LAYOUTS[layout if base.size >= 12 else "strided"](base)  # some need a few rows
    lo, hi = (
        data.draw(bound_strategy(dtype), label="lo"),
        data.draw(bound_strategy(dtype), label="hi"),
    )
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    try:
        want = expected(a, lo, hi, inclusive)
    except (TypeError, ValueError, OverflowError) as exc:
        with pytest.raises(type(exc)):
            simdfilter.in_range(a, lo, hi, inclusive=inclusive)
        return
    for name in KERNELS:
        with simdfilter.use_kernel(name):
            got = simdfilter.in_range(a, lo, hi, inclusive=inclusive)
        np.testing.assert_array_equal(got, want, err_msg=name)
        # the same elements as filter_indexes
        np.testing.assert_array_equal(
            np.flatnonzero(got), simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
        )


NUMERIC = [
    np.uint8,
    np.int8,
    np.uint16,
    np.int16,
    np.uint32,
    np.int32,
    np.uint64,
    np.int64,
    np.float32,
    np.float64,
    np.bool_,
]


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
@settings(max_examples=examples(30), deadline=None)
@given(data=st.data())
def test_property_equals_numpy(dtype, data):
    """Bounds of the data's own dtype: NumPy 2's expression, exactly."""
    a = data.draw(data_strategy(dtype, max_size=300), label="values")
    pool = data_strategy(dtype, max_size=2).filter(lambda x: x.size == 2)
    lo, hi = data.draw(pool, label="bounds")
    kernel = data.draw(st.sampled_from(KERNELS), label="kernel")
    with simdfilter.use_kernel(kernel):
        got = simdfilter.in_range(a, lo, hi)
    np.testing.assert_array_equal(got, (a >= lo) & (a <= hi))


def test_every_length_and_offset(kernel, rng):
    """Lengths 0..300 at every start offset 0..7, around every vector's tail."""
    buf = rng.integers(0, 10, 300 + 8).astype(np.float64)
    buf[::17] = np.nan
    for off in range(8):
        for n in range(0, 301, 7 if off else 1):
            check(buf[off : off + n], 2.0, 6.0)


@pytest.mark.parametrize("selectivity", [0.0, 0.01, 0.5, 0.99, 1.0])
def test_threads_equal_one_thread(rng, selectivity):
    a = rng.random(3 * 2**18 + 4097)
    one = simdfilter.in_range(a, 0.0, selectivity, threads=1)
    for t in (2, 3, 8):
        np.testing.assert_array_equal(simdfilter.in_range(a, 0.0, selectivity, threads=t), one)
    np.testing.assert_array_equal(one, (a >= 0.0) & (a <= selectivity))


def test_out(rng):
    a = rng.integers(0, 100, 777).astype(np.int32)
    out = np.ones(1000, dtype=bool)
    got = simdfilter.in_range(a, 10, 20, out=out)
    assert got.base is out and got.size == a.size
    np.testing.assert_array_equal(got, (a >= 10) & (a <= 20))
    assert out[777:].all(), "wrote past values.size"
    got = simdfilter.in_range(a, 30, 20, out=out)  # empty range: all False, still written
    assert not got.any() and got.base is out
    exact = np.ones(777, dtype=bool)
    assert simdfilter.in_range(a, 10, 20, out=exact) is exact


def test_argument_checks(rng):
    a = rng.random(50)
    with pytest.raises(TypeError, match="out has dtype"):
        simdfilter.in_range(a, 0, 1, out=np.empty(50, np.uint8))
    with pytest.raises(ValueError, match="at least"):
        simdfilter.in_range(a, 0, 1, out=np.empty(49, bool))
    with pytest.raises(ValueError, match="share memory"):
        b = np.zeros(64, np.uint8)
        simdfilter.in_range(b, 0, 1, out=b.view(bool))
    with pytest.raises(TypeError, match="within"):
        simdfilter.in_range(a, 0, 1, within=[1, 2])
    with pytest.raises(TypeError, match="index_dtype"):
        simdfilter.in_range(a, 0, 1, index_dtype=np.uint32)
    with pytest.raises(ValueError, match="inclusive"):
        simdfilter.in_range(a, 0, 1, inclusive="both ")
    with pytest.raises(ValueError, match="threads"):
        simdfilter.in_range(a, 0, 1, threads=0)
    with pytest.raises(TypeError):
        simdfilter.in_range(np.array(["a"]), 0, 1)
    with pytest.raises(TypeError, match="positional"):
        simdfilter.in_range(a, 0, 1, "both")


def test_nullable_pandas(kernel):
    pd = pytest.importorskip("pandas")
    s = pd.Series([1, None, 3, 4, None, 6, 7, 8, 9, 10], dtype="Int64")
    got = simdfilter.in_range(s, 3, 9)
    np.testing.assert_array_equal(got, s.between(3, 9).fillna(False).to_numpy(bool))


def _chunked(pa, rng, n, nulls):
    """A chunked int64 array of slices at offsets and lengths no multiple of 8."""
    values = rng.integers(0, 100, n + 40)
    mask = rng.random(n + 40) < nulls
    whole = pa.array(values, mask=mask)
    chunks, at = [], 0
    while at < n:
        length = int(rng.integers(0, 40))
        chunks.append(whole.slice(at + int(rng.integers(0, 8)), length))
        at += length
    return pa.chunked_array(chunks, type=pa.int64())


@pytest.mark.parametrize("nulls", [0.0, 0.1, 1.0])
def test_arrow_chunks_at_any_offset(kernel, rng, nulls):
    pa = pytest.importorskip("pyarrow")
    pc = pytest.importorskip("pyarrow.compute")
    col = _chunked(pa, rng, 3000, nulls)
    np.testing.assert_array_equal(simdfilter.in_range(col, 20, 70), expected(col, 20, 70))
    arr = pa.array(_masks.arrow_in_range(col, 20, 70))
    host = pc.and_(pc.greater_equal(col, 20), pc.less_equal(col, 70)).combine_chunks()
    assert arr.type == pa.bool_() and len(arr) == len(col)
    assert arr.null_count == col.null_count
    assert arr.equals(host), "values or validity differ from pyarrow's own compare"
    # the values bitmap alone: in range and not null (a null's bit is 0)
    bits = np.unpackbits(np.frombuffer(arr.buffers()[1], np.uint8), bitorder="little")[: len(col)]
    np.testing.assert_array_equal(bits.astype(bool), expected(col, 20, 70))
    if col.null_count == 0:
        assert arr.buffers()[0] is None


def test_arrow_long_chunks_on_threads(rng):
    """Chunks of odd lengths, each long enough for threads: the bits of every
    chunk after the first start inside a byte."""
    pa = pytest.importorskip("pyarrow")
    parts = [rng.random(n) for n in (2**19 + 3, 3 * 2**18 + 5, 13, 2**19 + 1)]
    col = pa.chunked_array([pa.array(p) for p in parts])
    want = np.concatenate(parts) <= 0.5
    for threads in (1, 2, 4):
        arr = pa.array(_masks.arrow_in_range(col, None, 0.5, threads=threads))
        np.testing.assert_array_equal(arr.to_numpy(zero_copy_only=False), want)
        np.testing.assert_array_equal(simdfilter.in_range(col, None, 0.5, threads=threads), want)


def test_arrow_capsules_taken_once():
    pa = pytest.importorskip("pyarrow")
    bools = _masks.arrow_in_range(np.arange(10), 2, 5)
    assert pa.array(bools).to_pylist() == [False, False, True, True, True, True] + [False] * 4
    with pytest.raises(ValueError, match="already"):
        pa.array(bools)
    _core._in_range_arrow(np.arange(10), 2, 5)  # dropped unimported: the capsules free it
    empty = pa.array(_masks.arrow_in_range(np.arange(0), 2, 5))
    assert len(empty) == 0


@pytest.mark.parametrize(
    "dtype",
    [
        "float64",
        "Float64",
        "Int32",
        "int64[pyarrow]",
        "float32[pyarrow]",
        "datetime64[ns]",
        "bool",
        "boolean",
    ],
)
def test_pandas_between_is_pandas(dtype, rng):
    pd = pytest.importorskip("pandas")
    import simdfilter.pandas  # noqa: F401

    if "pyarrow" in dtype:
        pytest.importorskip("pyarrow")
    raw = rng.integers(0, 20, 500).astype(float)
    s = pd.Series(raw, index=rng.permutation(500), name="x")
    if dtype.startswith("datetime"):
        s = pd.Series(pd.to_datetime(raw, unit="D"), index=s.index, name="x")
        lo, hi = pd.Timestamp("1970-01-05"), pd.Timestamp("1970-01-12")
    elif dtype in ("bool", "boolean"):
        s = (s > 9).astype(dtype)
        lo, hi = True, True
    else:
        s = s.astype(dtype)
        lo, hi = 4, 12
    if dtype[0].isupper() or "pyarrow" in dtype or dtype == "boolean":
        s.iloc[::7] = None
    for inclusive in MODES:
        pd.testing.assert_series_equal(
            s.sf.between(lo, hi, inclusive=inclusive), s.between(lo, hi, inclusive=inclusive)
        )


def test_polars_between_is_polars(rng):
    pl = pytest.importorskip("polars")
    import simdfilter.polars  # noqa: F401

    a = pl.Series("v", [None if i % 11 == 0 else float(i % 23) for i in range(3001)])
    chunked = pl.concat([a.slice(0, 1001), a.slice(1001, 13), a.slice(1014)], rechunk=False)
    for s in (a, chunked, a.cast(pl.Int16), a.fill_null(0.0)):
        for closed in ("both", "left", "right", "none"):
            got = s.sf.between(3, 17, closed=closed)
            want = s.is_between(3, 17, closed=closed)
            assert got.dtype == pl.Boolean and got.name == s.name
            assert got.null_count() == s.null_count()
            assert got.to_list() == want.to_list()
