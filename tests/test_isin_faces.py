"""The faces' isin: ``s.sf.isin(values)`` against pandas' ``s.isin(values)``,
``s.sf.is_in(other)`` and ``pl.col(...).sf.is_in(other)`` against Polars'
``is_in``, and Dask's ``ds.sf.isin`` against ``ds.isin``: the same values,
dtype, nulls, index and name, or the host's own error; ``invert=True`` as the
host's ``~``.
"""

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import simdfilter.pandas  # noqa: E402,F401

COLUMNS = {
    "int64": lambda: pd.Series([1, 2, 3, 2**60, -5, 0, 7], name="x"),
    "uint8": lambda: pd.Series(
        np.array([0, 1, 255, 7, 3, 3, 9], dtype=np.uint8), index=list("abcdefg")
    ),
    "float64": lambda: pd.Series([1.0, np.nan, 2.5, -0.0, np.inf, 3.0, 1e300]),
    "float32": lambda: pd.Series(np.array([0.1, 0.5, 1.0, np.nan], dtype=np.float32)),
    "bool": lambda: pd.Series([True, False, True]),
    "Int64": lambda: pd.Series([1, None, 3, 4], dtype="Int64"),
    "Float64": lambda: pd.Series([1.5, None, 3.0], dtype="Float64"),
    "boolean": lambda: pd.Series([True, None, False], dtype="boolean"),
    "datetime": lambda: pd.Series(pd.to_datetime(["2020-01-01", "NaT", "2021-06-01"])),
    "timedelta": lambda: pd.Series(pd.to_timedelta([1, 2, None], unit="s")),
    "int64[pyarrow]": lambda: pd.Series([1, None, 3], dtype="int64[pyarrow]"),
    "tz": lambda: pd.Series(pd.date_range("2020-01-01", periods=3, tz="Europe/Paris")),
    "str": lambda: pd.Series(["a", "b", None]),
    "category": lambda: pd.Series(["a", "b", "a"], dtype="category"),
}

ITEMS = [
    [],
    [1],
    [1, 3, 2**60],
    [2.5, 3.0, -0.0],
    [0.1],
    np.array([0.1, 0.5], dtype=np.float32),
    {1, 7, 255, 9},
    list(range(50)),
    [np.nan, 1.0],
    [None, 1],
    [True],
    ["a"],
    np.array(["2020-01-01", "2021-06-01"], dtype="M8[ns]"),
    np.array(["2020-01-01"], dtype="M8[D]"),
    pd.to_timedelta([1, 3], unit="s").to_numpy(),
    [pd.Timestamp("2020-01-01", tz="Europe/Paris")],
]


def host(s, items, invert):
    try:
        r = s.isin(items)
    except Exception as exc:  # pandas' error is the answer
        return type(exc)
    return ~r if invert else r


def ours(s, items, invert):
    try:
        return s.sf.isin(items, invert=invert)
    except Exception as exc:
        return type(exc)


@pytest.mark.parametrize("column", sorted(COLUMNS))
@pytest.mark.parametrize("invert", [False, True])
def test_pandas_isin_is_pandas(column, invert):
    if column.endswith("[pyarrow]"):
        pytest.importorskip("pyarrow", reason="an Arrow-backed pandas column needs pyarrow")
    s = COLUMNS[column]()
    for items in ITEMS:
        want, got = host(s, items, invert), ours(s, items, invert)
        if isinstance(want, type):
            assert got is want, (column, items)
        else:
            pd.testing.assert_series_equal(got, want, obj=f"{column} isin {items!r}")


def test_pandas_isin_long_column_takes_the_kernels(rng, monkeypatch):
    s = pd.Series(rng.integers(0, 1000, 100_000), name="v")
    items = rng.integers(0, 1000, 300)
    calls = []
    real = simdfilter._core.isin
    monkeypatch.setattr(simdfilter._core, "isin", lambda *a, **k: calls.append(1) or real(*a, **k))
    pd.testing.assert_series_equal(s.sf.isin(items), s.isin(items))
    pd.testing.assert_series_equal(s.sf.isin(items, invert=True), ~s.isin(items))
    assert calls


def test_dask_isin():
    dd = pytest.importorskip("dask.dataframe")
    import simdfilter.dask  # noqa: F401

    s = pd.Series(np.arange(40) % 7, name="x")
    ds = dd.from_pandas(s, npartitions=3)
    got = ds.sf.isin([1, 3]).compute(scheduler="sync")
    pd.testing.assert_series_equal(got, s.isin([1, 3]))
    got = ds.sf.isin([1, 3], invert=True).compute(scheduler="sync")
    pd.testing.assert_series_equal(got, ~s.isin([1, 3]))


# ---- Polars ------------------------------------------------------------------------

POLARS = {
    "Int64": lambda pl: pl.Series("x", [1, None, 3, 2**60, -5]),
    "Int8": lambda pl: pl.Series("x", [1, 2, -128, 127], dtype=pl.Int8),
    "UInt32": lambda pl: pl.Series("x", [0, 1, 4_000_000_000, None], dtype=pl.UInt32),
    "Float64": lambda pl: pl.Series("x", [1.0, None, float("nan"), -0.0, 2.5]),
    "Float32": lambda pl: pl.Series("x", [0.1, 0.5, 1.0], dtype=pl.Float32),
    "Boolean": lambda pl: pl.Series("x", [True, None, False]),
    "String": lambda pl: pl.Series("x", ["a", None, "b"]),
    "Date": lambda pl: pl.Series("x", [0, 1, None], dtype=pl.Int32).cast(pl.Date),
}

POLARS_ITEMS = [
    [],
    [1],
    [1, 3, 2**60],
    [2.5, -0.0],
    [0.1],
    [300, 1],
    [-1, 0, 1],
    [float("nan"), 1.0],
    [None, 1],
    list(range(40)),
    ["a"],
]


def polars_answer(fn):
    try:
        return fn()
    except Exception as exc:
        return type(exc)


@pytest.mark.parametrize("column", sorted(POLARS))
@pytest.mark.parametrize("invert", [False, True])
def test_polars_is_in_is_polars(column, invert):
    pl = pytest.importorskip("polars")
    import simdfilter.polars  # noqa: F401
    from polars.testing import assert_series_equal

    s = POLARS[column](pl)
    for items in POLARS_ITEMS:
        for nulls_equal in (False, True):
            want = polars_answer(lambda: s.is_in(items, nulls_equal=nulls_equal))
            if invert and not isinstance(want, type):
                want = ~want
            got = polars_answer(lambda: s.sf.is_in(items, nulls_equal=nulls_equal, invert=invert))
            if isinstance(want, type):
                assert isinstance(got, type) and issubclass(got, Exception), (column, items)
                continue
            assert_series_equal(got, want)
            # in an expression, eager and lazy
            frame = s.to_frame()
            e_want = polars_answer(
                lambda: frame.select(pl.col("x").is_in(items, nulls_equal=nulls_equal)).to_series()
            )
            if isinstance(e_want, type):
                continue
            if invert:
                e_want = ~e_want
            e_got = (
                frame.lazy()
                .select(pl.col("x").sf.is_in(items, nulls_equal=nulls_equal, invert=invert))
                .collect()
                .to_series()
            )
            assert_series_equal(e_got, e_want)
