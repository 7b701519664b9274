"""One face, three hosts (simdfilter._face): the vocabulary read from the host, a
None end unbounded on every column, frame queries that name any column, and
pandas' own ``Series.between`` tests run against ``s.sf.between``."""

import datetime as dt
import decimal
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="pandas is not installed")
import simdfilter.pandas  # noqa: E402,F401
from simdfilter import _conjunction, _face  # noqa: E402


# ---- pandas' own tests ------------------------------------------------------------


def test_pandas_own_between_tests_pass_against_sf(tmp_path, fresh_python):
    """pandas/tests/series/methods/test_between.py of the installed pandas, with
    ``.between(`` read as ``.sf.between(``."""
    own = pathlib.Path(pd.__file__).parent / "tests/series/methods/test_between.py"
    if not own.exists():
        pytest.skip(f"this pandas ({pd.__version__}) was installed without its tests")
    text = own.read_text()
    n = text.count(".between(")
    assert n >= 5
    ours = tmp_path / "test_pandas_between_through_sf.py"
    ours.write_text(
        "import simdfilter.pandas  # noqa\n" + text.replace(".between(", ".sf.between(")
    )
    out = subprocess.run(
        [fresh_python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error", str(ours)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        # No third-party pytest plugin: the file needs none, and loading every
        # installed one was 0.5-0.9 s of this test's 1.5 s of CPU (AMD EPYC Zen 4).
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", out.stdout) and " failed" not in out.stdout


@pytest.mark.parametrize("bad", ["yes", True, False, None, "BOTH", 1])
def test_bad_inclusive_is_pandas_own_error(bad):
    s = pd.Series([1, 2, 3])
    try:
        want = s.between(1, 2, inclusive=bad)
    except Exception as exc:  # noqa: BLE001 - whatever pandas raises
        for verb in ("between", "filter", "count", "indexes"):
            with pytest.raises(type(exc)) as ours:
                getattr(s.sf, verb)(1, 2, bad)
            assert str(ours.value) == str(exc)
        with pytest.raises(type(exc)):
            pd.DataFrame({"a": s}).sf.filter({"a": (1, 2)}, inclusive=bad)
        return
    # a pandas that takes it (1.5 takes booleans, warning): what it means there
    pd.testing.assert_series_equal(s.sf.between(1, 2, bad), want)


# ---- a None end is unbounded everywhere ------------------------------------------------


COLUMNS = {
    "object": lambda: pd.Series(["a", "b", None, "c"], dtype=object),
    "string": lambda: pd.Series(["a", "b", None, "c"], dtype="string"),
    "category": lambda: pd.Series(pd.Categorical(["a", "b", None, "c"], ordered=True)),
    "period": lambda: pd.Series(pd.period_range("2000-01", periods=4, freq="M")).where(
        lambda s: s.index != 2
    ),
    "decimal": lambda: pd.Series(
        [decimal.Decimal("1.5"), decimal.Decimal("2.5"), None, decimal.Decimal("3.5")],
        dtype=object,
    ),
}


@pytest.mark.parametrize("kind", COLUMNS)
def test_a_none_end_is_unbounded_on_columns_no_kernel_reads(kind):
    s = COLUMNS[kind]()
    mid = s.iloc[1]
    for inclusive in ("both", "left", "right", "neither"):
        closed_lo = inclusive in ("both", "left")
        closed_hi = inclusive in ("both", "right")
        want_lo = (s >= mid) if closed_lo else (s > mid)
        want_hi = (s <= mid) if closed_hi else (s < mid)
        pd.testing.assert_series_equal(s.sf.between(mid, None, inclusive), want_lo)
        pd.testing.assert_series_equal(s.sf.between(None, mid, inclusive), want_hi)
        assert s.sf.count(mid, None, inclusive) == int(want_lo.fillna(False).sum())
        pd.testing.assert_series_equal(
            s.sf.filter(None, mid, inclusive), s[want_hi.fillna(False).astype(bool)]
        )
    assert s.sf.count(None, None) == 3  # every value but the missing one
    df = pd.DataFrame({"k": s, "x": [1, 2, 3, 4]})
    pd.testing.assert_frame_equal(
        df.sf.filter(k=(mid, None)), df[(s >= mid).fillna(False).astype(bool)]
    )


def test_reported_none_end():
    assert pd.Series(["a", "b", "c"]).sf.between("b", None).tolist() == [False, True, True]


# ---- frames that name any column ---------------------------------------------------------


def _frame(n=1000, seed=5):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "a": rng.integers(0, 100, n),
            3: rng.random(n),
            "dep delay": rng.normal(0, 10, n),
            "inclusive": rng.integers(0, 10, n),
            "k": rng.choice(["x", "y", "z"], n),
        }
    )


def test_mapping_names_any_label():
    df = _frame()
    ranges = {"a": (10, 60), 3: (0.2, 0.9), "dep delay": (None, 5.0), "inclusive": (2, 7)}
    want = df[
        df["a"].between(10, 60, "left")
        & df[3].between(0.2, 0.9, "left")
        & (df["dep delay"] < 5.0)
        & df["inclusive"].between(2, 7, "left")
    ]
    pd.testing.assert_frame_equal(df.sf.filter(ranges, inclusive="left"), want)
    pd.testing.assert_frame_equal(df.sf.filter(ranges, "left"), want)
    np.testing.assert_array_equal(
        df.sf.indexes(ranges, inclusive="left"), np.flatnonzero(df.index.isin(want.index))
    )
    assert df.sf.count(ranges, inclusive="left") == len(want)
    # the short form and the mapping together; a label given twice is refused
    pd.testing.assert_frame_equal(
        df.sf.filter({3: (0.2, 0.9)}, a=(10, 60)),
        df[df["a"].between(10, 60) & df[3].between(0.2, 0.9)],
    )
    with pytest.raises(TypeError, match="twice"):
        df.sf.filter({"a": (1, 2)}, a=(1, 2))
    with pytest.raises(KeyError):
        df.sf.filter({4: (1, 2)})
    with pytest.raises(TypeError):
        df.sf.filter([("a", (1, 2))])
    with pytest.raises(TypeError):
        df.sf.filter()


def test_multiindex_columns():
    df = _frame()
    df.columns = pd.MultiIndex.from_tuples(
        [("x", "a"), ("x", "b"), ("y", "d"), ("y", "i"), ("z", "k")]
    )
    ranges = {("x", "a"): (10, 60), ("z", "k"): ("y", "z")}
    want = df[df[("x", "a")].between(10, 60) & df[("z", "k")].between("y", "z")]
    pd.testing.assert_frame_equal(df.sf.filter(ranges), want)
    with pytest.raises(ValueError, match="names 2 columns"):
        df.sf.filter({"x": (0, 1)})


def test_columns_no_kernel_reads_are_compared_only_at_the_rows_left(monkeypatch):
    df = _frame()
    seen = []
    real = simdfilter.pandas._host_bool

    def spy(col, lo, hi, inclusive, invert=False):
        seen.append(len(col))
        return real(col, lo, hi, inclusive, invert)

    monkeypatch.setattr(simdfilter.pandas, "_host_bool", spy)
    # the string column is given first: it still goes last, after the kernel's ranges
    ranges = {"k": ("y", "y"), "a": (0, 9)}
    want = df[(df["k"] == "y") & df["a"].between(0, 9)]
    pd.testing.assert_frame_equal(df.sf.filter(ranges), want)
    assert seen and seen[0] == int(df["a"].between(0, 9).sum()) < len(df)


def test_order_puts_host_columns_last_at_any_size():
    df = _frame(n=50)
    assert len(df) < _conjunction.ORDER_MIN_ROWS
    plan = _face.frame_plan({"k": ("x", "y"), "a": (1, 2)}, {}, df.columns.__contains__, df.get)
    ordered, _ = _conjunction.most_selective_first(plan, len(df), "both")
    assert [p[0] for p in ordered] == ["a", "k"]


def test_index_dtype():
    assert _face.index_dtype(2**32 - 1) is np.uint32
    assert _face.index_dtype(2**32) is np.int64
    assert _face.index_dtype(2**32, np.uint64) is np.uint64


def test_date_bounds_on_datetime_columns_raise_as_pandas():
    for s in (
        pd.Series(pd.to_datetime(["1970-01-02"])),
        pd.Series(pd.to_datetime(["1970-01-02"])).dt.tz_localize("UTC"),
    ):
        with pytest.raises(TypeError):
            s.between(dt.date(1970, 1, 1), dt.date(1970, 1, 3))
        for verb in ("between", "filter", "count", "indexes"):
            with pytest.raises(TypeError):
                getattr(s.sf, verb)(dt.date(1970, 1, 1), dt.date(1970, 1, 3))


# ---- Polars frames --------------------------------------------------------------------


def test_polars_mapping_names_any_column():
    pl = pytest.importorskip("polars")
    import simdfilter.polars  # noqa: F401

    df = pl.from_pandas(_frame().rename(columns={3: "3"}))
    ranges = {"dep delay": (-5.0, 5.0), "closed": (0, 1), "k": ("y", "z")}
    df = df.rename({"inclusive": "closed"})
    want = df.filter(
        pl.col("dep delay").is_between(-5.0, 5.0, "right")
        & pl.col("closed").is_between(0, 1, "right")
        & pl.col("k").is_between(pl.lit("y"), pl.lit("z"), "right")
    )
    from polars.testing import assert_frame_equal

    assert_frame_equal(df.sf.filter(ranges, closed="right"), want)
    assert df.sf.count(ranges, "right") == want.height
    with pytest.raises(KeyError):
        df.sf.filter({"nope": (1, 2)})


# ---- Dask frames ------------------------------------------------------------------------


def test_dask_mapping_names_any_label():
    dd = pytest.importorskip("dask.dataframe")
    import simdfilter.dask  # noqa: F401

    ddf = dd.from_pandas(_frame(), npartitions=3)
    pdf = ddf.compute(scheduler="sync")  # as Dask holds it (its string dtype)
    ranges = {3: (0.1, 0.8), "inclusive": (2, None), "dep delay": (-5.0, 5.0)}
    want = pdf[
        pdf[3].between(0.1, 0.8, "neither")
        & (pdf["inclusive"] > 2)
        & pdf["dep delay"].between(-5.0, 5.0, "neither")
    ]
    got = ddf.sf.filter(ranges, inclusive="neither").compute(scheduler="sync")
    pd.testing.assert_frame_equal(got, want)
    assert int(ddf.sf.count(ranges, "neither").compute(scheduler="sync")) == len(want)
    with pytest.raises(KeyError):
        ddf.sf.filter({7: (0, 1)})
    with pytest.raises(ValueError):
        ddf.sf.filter(ranges, inclusive="all")
