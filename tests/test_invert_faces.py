"""invert=True on the pandas, Polars and Dask verbs that filter: each host's own
negated filter (``s[~s.between(...)]``, ``s.filter(~s.is_between(...))``) with
nulls dropped, on the kernels' path and on the host's fallback alike."""

import importlib.util

import numpy as np
import pytest

import simdfilter
from simdfilter import reference

from agree import pandas_between


def pandas_series():
    pd = pytest.importorskip("pandas")
    out = [
        pd.Series([1.5, np.nan, -3.0, 7.0, 2.0, np.inf], index=list("abcdef")),
        pd.Series([1, None, 9, 3, -4], dtype="Int64"),
        pd.Series([0.5, None, 4.0, 2.0], dtype="Float64"),
        pd.Series(pd.to_datetime(["2024-01-01", None, "2031-05-01", "2020-01-01"])),
        pd.Series(["a", None, "q", "c"], dtype=object),  # no kernel: pandas' answer
    ]
    if importlib.util.find_spec("pyarrow") is None:
        print("pyarrow is not installed: no Arrow-backed pandas column here")
    else:
        out.append(pd.Series([1.0, None, 12.0, float("nan")], dtype="float64[pyarrow]"))
    return out


def pandas_bounds(s):
    pd = pytest.importorskip("pandas")
    if s.dtype == object:
        return [("b", "p"), ("z", "a"), (None, "b")]
    if str(s.dtype).startswith("datetime"):
        return [("2021-01-01", "2025-01-01"), (None, "2022-01-01"), (pd.NaT, None)]
    return [(0, 3), (3, 0), (None, 2), (1.5, None), (None, None), (np.nan, 1)]


def test_pandas_series_verbs():
    pd = pytest.importorskip("pandas")
    import simdfilter.pandas  # noqa: F401  (registers .sf)

    for s in pandas_series():
        for lo, hi in pandas_bounds(s):
            for inclusive in ("both", "neither"):
                host = pandas_between(s, lo, hi, inclusive)
                keep = (~host).fillna(False).to_numpy(dtype=bool, na_value=False)
                what = f"{s.dtype} {lo!r} {hi!r} {inclusive}"
                got = s.sf.filter(lo, hi, inclusive, invert=True)
                pd.testing.assert_series_equal(got, s[keep], obj=what)
                assert s.sf.count(lo, hi, inclusive, invert=True) == keep.sum(), what
                if s.dtype != object:
                    idx = s.sf.indexes(lo, hi, inclusive, invert=True)
                    assert idx.tolist() == np.flatnonzero(keep).tolist(), what


def test_pandas_between_invert_is_not_between():
    """``s.sf.between(..., invert=True)`` is pandas' ``~s.between(...)``: same
    dtype, index and name, NaN and NaT True, NA kept (pandas' ~NA is NA)."""
    pd = pytest.importorskip("pandas")
    import simdfilter.pandas  # noqa: F401  (registers .sf)

    for s in pandas_series():
        for lo, hi in pandas_bounds(s):
            for inclusive in ("both", "neither"):
                want = ~pandas_between(s, lo, hi, inclusive)
                got = s.sf.between(lo, hi, inclusive, invert=True)
                pd.testing.assert_series_equal(got, want, obj=f"{s.dtype} {lo!r} {hi!r}")
                got = s.sf.between(lo, hi, inclusive, invert=np.False_)
                pd.testing.assert_series_equal(got, pandas_between(s, lo, hi, inclusive))


def test_polars_series_verbs():
    pl = pytest.importorskip("polars")
    from polars.testing import assert_series_equal as assert_polars_equal

    import simdfilter.polars  # noqa: F401  (registers .sf)

    series = [
        pl.Series("f", [1.5, None, float("nan"), -3.0, 7.0, 2.0]),
        pl.Series("i", [1, None, 9, 3, -4], dtype=pl.Int32),
        pl.Series("s", ["a", None, "q", "c"]),  # no kernel: Polars' answer
    ]
    for s in series:
        bounds = [("b", "p"), ("z", "a")] if s.dtype == pl.String else [(0, 3), (3, 0), (0, 2)]
        if s.dtype.is_float():
            bounds += [(float("nan"), 1.0), (None, 2.0)]
        for lo, hi in bounds:
            for closed in ("both", "none"):
                if lo is None:
                    m = s <= hi if closed == "both" else s < hi
                    m = m & ~s.is_nan()
                else:
                    m = s.is_between(lo, hi, closed=closed)
                keep = (~m).fill_null(False)
                what = f"{s.dtype} {lo!r} {hi!r} {closed}"
                got = s.sf.filter(lo, hi, closed, invert=True)
                assert_polars_equal(got, s.filter(keep))
                assert s.sf.count(lo, hi, closed, invert=True) == keep.sum(), what
                if s.dtype != pl.String:
                    got = s.sf.indexes(lo, hi, closed, invert=True).to_list()
                    assert got == keep.arg_true().to_list(), what


def test_dask_arrays():
    da = pytest.importorskip("dask.array")
    import dask

    import simdfilter.dask as sfd

    rng = np.random.default_rng(5)
    a = rng.normal(size=(40, 30))
    a[rng.random(a.shape) < 0.05] = np.nan
    for chunks in ((7, 30), (13, 11)):
        x = da.from_array(a, chunks=chunks)
        with dask.config.set(scheduler="synchronous"):
            for lo, hi in [(-1.0, 1.0), (1.0, -1.0), (None, 0.0)]:
                want = reference.filter_indexes(a, lo, hi, invert=True).astype(np.int64)
                got = sfd.filter_indexes(x, lo, hi, invert=True).compute()
                assert got.tolist() == want.tolist()
                values = sfd.filter_values(x, lo, hi, invert=True).compute()
                ref = reference.filter_values(a, lo, hi, invert=True)
                assert values.tobytes() == ref.tobytes()
                assert sfd.count_in_range(x, lo, hi, invert=True).compute() == want.size
    with pytest.raises(TypeError, match="invert"):
        sfd.filter_indexes(da.from_array(a), 0, 1, invert="yes")


def test_dask_series():
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import simdfilter.dask  # noqa: F401  (registers .sf)

    s = pd.Series([1.5, np.nan, -3.0, 7.0, 2.0, 0.5] * 5)
    ds = dd.from_pandas(s, npartitions=3)
    with dask.config.set(scheduler="synchronous"):
        got = ds.sf.filter(0, 2, invert=True).compute()
        pd.testing.assert_series_equal(got, s[~s.between(0, 2)])
        assert ds.sf.count(0, 2, invert=True).compute() == (~s.between(0, 2)).sum()


def test_plain_call_takes_pandas_and_polars_nulls():
    pd = pytest.importorskip("pandas")
    s = pd.Series([1, None, 9, 3], dtype="Int64")
    assert simdfilter.filter_indexes(s, 0, 3, invert=True).tolist() == [2]
