"""Rows taken by the library (``_core._take_rows``, the pandas face's ``_take``): the same
frame or Series as ``obj.iloc[positions]``, dtypes, index, labels, attrs and flags included,
for every column kind it takes; the others still go to pandas."""

import numpy as np
import pytest

import simdfilter
from simdfilter import _core

pd = pytest.importorskip("pandas", reason="the pandas face's row take needs pandas")
import simdfilter.pandas as sfpd  # noqa: E402

N = 1000
POSITIONS = {
    "none": np.array([], np.uint32),
    "first": np.array([0], np.uint32),
    "last": np.array([N - 1], np.uint32),
    "every third": np.arange(0, N, 3, dtype=np.uint32),
    "all": np.arange(N, dtype=np.uint32),
    "int64": np.arange(1, N, 7, dtype=np.int64),
    "past a block": np.arange(0, N, 1, dtype=np.uint32)[np.arange(N) % 5 != 1],
}
COLUMNS = {
    "int8": lambda r: r.integers(-100, 100, N).astype(np.int8),
    "uint16": lambda r: r.integers(0, 60000, N).astype(np.uint16),
    "int32": lambda r: r.integers(-(2**31), 2**31 - 1, N).astype(np.int32),
    "uint64": lambda r: r.integers(0, 2**63, N).astype(np.uint64),
    "float32": lambda r: r.random(N).astype(np.float32),
    "float64 with NaN": lambda r: np.where(r.random(N) < 0.1, np.nan, r.random(N)),
    "bool": lambda r: r.random(N) < 0.5,
    "datetime64[ns]": lambda r: r.integers(0, 2**60, N).astype("datetime64[ns]"),
    "timedelta64[ns]": lambda r: r.integers(-(2**60), 2**60, N).astype("timedelta64[ns]"),
    "big-endian int64": lambda r: r.integers(-(2**40), 2**40, N).astype(">i8"),
    "big-endian float64": lambda r: r.random(N).astype(">f8"),
}
INDEXES = {
    "range": lambda: pd.RangeIndex(N),
    "stepped range": lambda: pd.RangeIndex(5, 5 + 3 * N, 3),
    "labels": lambda: pd.Index([f"r{i}" for i in range(N)]),
    "datetime": lambda: pd.date_range("2020-01-01", periods=N, freq="h", name="when"),
    "two levels": lambda: pd.MultiIndex.from_arrays(
        [np.arange(N) % 7, np.arange(N)], names=["g", "i"]
    ),
}


def _frame(kinds, index, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({k: COLUMNS[k](rng) for k in kinds}, index=INDEXES[index]())
    df.attrs["source"] = "test"
    return df


def _want(obj, idx):
    """obj.iloc[idx]; pandas' take refuses big-endian columns, so those are taken from a
    native copy and given their dtype back: the rows pandas would give."""
    dtypes = obj.dtypes if obj.ndim == 2 else pd.Series([obj.dtype])
    if all(d.isnative for d in dtypes):
        return obj.iloc[idx]
    native = (
        obj.astype(obj.dtype.newbyteorder("="))
        if obj.ndim == 1
        else obj.astype({c: d.newbyteorder("=") for c, d in obj.dtypes.items()})
    )
    taken = native.iloc[idx]
    return taken.astype(obj.dtype) if obj.ndim == 1 else taken.astype(dict(obj.dtypes.items()))


@pytest.mark.parametrize("where", list(POSITIONS))
@pytest.mark.parametrize("index", list(INDEXES))
def test_a_frame_s_rows_are_iloc_s(where, index):
    df = _frame(list(COLUMNS), index)
    idx = POSITIONS[where]
    got = sfpd._take(df, idx)
    pd.testing.assert_frame_equal(got, _want(df, idx), check_exact=True)
    assert got.attrs == df.attrs
    assert not np.shares_memory(got.iloc[:, 0].to_numpy(), df.iloc[:, 0].to_numpy())


@pytest.mark.parametrize("kind", list(COLUMNS))
@pytest.mark.parametrize("where", ["every third", "int64", "none"])
def test_a_series_rows_are_iloc_s(kind, where):
    s = _frame([kind], "labels")[kind].rename("x")
    idx = POSITIONS[where]
    got = sfpd._take(s, idx)
    pd.testing.assert_series_equal(got, _want(s, idx), check_exact=True)


def test_labels_duplicate_names_and_flags_are_kept():
    df = _frame(["int8", "float32", "bool"], "range")
    df.columns = pd.MultiIndex.from_tuples([("a", 1), ("a", 1), ("b", 2)], names=["x", "y"])
    idx = POSITIONS["every third"]
    pd.testing.assert_frame_equal(sfpd._take(df, idx), df.iloc[idx], check_exact=True)
    flagged = _frame(["int32"], "range").set_flags(allows_duplicate_labels=False)
    assert sfpd._take(flagged, idx).flags.allows_duplicate_labels is False


def test_columns_it_does_not_take_go_to_pandas():
    df = _frame(["int32", "float64 with NaN"], "range")
    df["s"] = [f"v{i}" for i in range(N)]  # object
    df["n"] = pd.array(np.arange(N), dtype="Int64")  # nullable: an extension array
    df["c"] = np.arange(N, dtype=np.complex128)  # 16-byte elements
    idx = POSITIONS["every third"]
    pd.testing.assert_frame_equal(sfpd._take(df, idx), df.iloc[idx], check_exact=True)


def test_a_strided_column_is_read_in_place():
    block = np.arange(3 * N, dtype=np.float64).reshape(N, 3)  # F-order columns: stride 24
    df = pd.DataFrame(np.asfortranarray(block.T).T, columns=list("abc"))
    idx = POSITIONS["every third"]
    pd.testing.assert_frame_equal(sfpd._take(df, idx), df.iloc[idx], check_exact=True)


def test_the_face_s_filter_gives_the_rows_pandas_gives():
    import simdfilter.pandas  # noqa: F401  (registers df.sf)

    df = _frame(["int32", "float64 with NaN", "datetime64[ns]", "big-endian int64"], "labels")
    got = df.sf.filter(**{"int32": (-(2**30), 2**30), "float64 with NaN": (0.2, 0.7)})
    mask = df["int32"].between(-(2**30), 2**30) & df["float64 with NaN"].between(0.2, 0.7)
    want = _want(df, np.flatnonzero(mask.to_numpy()))
    pd.testing.assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("wide", [np.uint32, np.int64, np.uint64])
def test_take_rows_is_numpy_s_take(wide):
    rng = np.random.default_rng(3)
    cols = [
        rng.integers(0, 255, 9000).astype(np.uint8),
        rng.random(9000).astype(np.float32)[::1],
        rng.random(18000)[::2],  # strided
        rng.integers(0, 2**15, 9000).astype(">i2"),
    ]
    idx = np.sort(rng.choice(9000, 5000, replace=False)).astype(wide)
    idx = np.concatenate([idx, idx[::-1]])  # any order, repeats
    for got, col in zip(_core._take_rows(cols, idx), cols):
        assert got.dtype == col.dtype and got.flags.c_contiguous and got.flags.writeable
        np.testing.assert_array_equal(got, col.take(idx.astype(np.intp)))


@pytest.mark.parametrize(
    "columns, positions, error, says",
    [
        ([np.arange(5)], np.array([5], np.uint32), IndexError, r"positions\[0\] = 5"),
        ([np.arange(5)], np.array([1, -1], np.int64), IndexError, r"positions\[1\]"),
        ([np.arange(5)], np.array([1], np.int32), TypeError, "uint32, int64 or uint64"),
        ([np.arange(5)], np.array([[1]], np.uint32), TypeError, "1-d"),
        ([np.arange(5), np.arange(4)], np.array([1], np.uint32), ValueError, "4 rows"),
        ([np.array(["a"] * 5, object)], np.array([1], np.uint32), TypeError, "without objects"),
        ([np.zeros(5, np.complex128)], np.array([1], np.uint32), TypeError, "8-byte"),
        ([np.zeros((5, 2))], np.array([1], np.uint32), TypeError, "1-d"),
        (np.arange(5), np.array([1], np.uint32), TypeError, "column 0"),
    ],
)
def test_take_rows_refuses_what_it_cannot_take(columns, positions, error, says):
    with pytest.raises(error, match=says):
        _core._take_rows(columns, positions)


def test_take_rows_without_columns_or_positions():
    assert _core._take_rows([], np.arange(3, dtype=np.uint32)) == []
    (empty,) = _core._take_rows([np.arange(5)], np.array([], np.uint32))
    assert empty.size == 0 and empty.dtype == np.arange(5).dtype
    assert simdfilter.filter_indexes(np.arange(3), 5, 6).size == 0
