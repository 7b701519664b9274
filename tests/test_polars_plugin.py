"""The Polars expression plugin (csrc/cpython/polars_plugin.c): ``pl.col().sf.between``
and ``.sf.count`` run as plugin functions Polars calls per batch, with Polars'
``is_between`` answers."""

from __future__ import annotations

import math

import pytest

pl = pytest.importorskip("polars")

import simdfilter.polars  # noqa: E402,F401
from simdfilter import _polars_plugin  # noqa: E402

pytestmark = pytest.mark.skipif(
    not _polars_plugin.available(),
    reason="the plugin runs on Polars 2 and later (older ones keep map_batches): Polars %s"
    % pl.__version__,
)

CLOSED = ["both", "left", "right", "none"]
NUMERIC = [
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
    pl.Float32,
    pl.Float64,
]


def _values(dtype):
    if dtype.is_float():
        return [0.5, None, -3.0, 2.0, float("nan"), 7.25, float("inf"), -0.0, 3.0, None]
    lo = -3 if dtype.is_signed_integer() else 0
    return [lo, None, 1, 2, 3, 4, 5, 100, None, 0]


def _frame(dtype):
    # two chunks, nulls in both
    v = _values(dtype)
    return pl.concat(
        [
            pl.DataFrame({"x": pl.Series(v[:5], dtype=dtype)}),
            pl.DataFrame({"x": pl.Series(v[5:], dtype=dtype)}),
        ],
        rechunk=False,
    )


def test_explain_names_the_plugin():
    lf = pl.LazyFrame({"x": [1, 2, 3]}).filter(pl.col("x").sf.between(1, 2))
    plan = lf.explain()
    assert "sf_between" in plan and "python_udf" not in plan
    assert "sf_count" in pl.LazyFrame({"x": [1]}).select(pl.col("x").sf.count(0, 1)).explain()


@pytest.mark.parametrize("dtype", NUMERIC + [pl.Boolean], ids=str)
@pytest.mark.parametrize("closed", CLOSED)
def test_between_is_is_between(dtype, closed, monkeypatch):
    if dtype == pl.Boolean:
        df = pl.DataFrame({"x": [True, None, False, True]})
        bounds = [(False, True), (True, True), (None, False)]
    else:
        df = _frame(dtype)
        bounds = [
            (1, 4),
            (1.5, 4),
            (-1, 2.5),
            (None, 3),
            (2, None),
            (None, None),
            (5, 1),
            (-(2**63), 2**63 - 1),
            (0.5, math.inf),
        ]
    assert df["x"].n_chunks() == (1 if dtype == pl.Boolean else 2)
    for lo, hi in bounds:
        before = _polars_plugin.python_batches
        ours = pl.col("x").sf.between(lo, hi, closed=closed)
        if lo is None or hi is None:
            # a None end is unbounded (is_between gives null there): today's
            # map_batches path, whose answers the other tests hold to Polars'
            with monkeypatch.context() as m:
                m.setenv("SIMDFILTER_POLARS_PLUGIN", "0")
                theirs = pl.col("x").sf.between(lo, hi, closed=closed)
            assert "python_udf" in pl.LazyFrame({"x": []}).select(theirs).explain()
        else:
            theirs = pl.col("x").is_between(lo, hi, closed=closed)
        for engine in ("in-memory", "streaming"):
            got = df.lazy().select(ours).collect(engine=engine).to_series()
            want = df.lazy().select(theirs).collect(engine=engine).to_series()
            assert got.to_list() == want.to_list(), (lo, hi, engine)
            n = df.lazy().select(pl.col("x").sf.count(lo, hi, closed)).collect(engine=engine)
            assert n.item() == (want.sum() or 0)
        assert df.select(ours).to_series().to_list() == df.select(theirs).to_series().to_list()
        rows = df.filter(ours)
        assert rows.equals(df.filter(theirs))
        # the kernels answered every batch (none went to Python), but for ints
        # past 2**53 on Float32, which Polars compares its own ways (_polars_bounds)
        if not (dtype == pl.Float32 and lo is not None and abs(lo) > 2**53):
            assert _polars_plugin.python_batches == before, (lo, hi)


def test_dtypes_no_kernel_reads_are_answered_by_python():
    df = pl.DataFrame({"d": pl.Series([1, 2, 3], dtype=pl.Decimal(10, 2)), "s": ["a", "b", "c"]})
    before = _polars_plugin.python_batches
    got = df.select(pl.col("d").sf.between(1.5, 3)).to_series().to_list()
    assert got == df.select(pl.col("d").is_between(1.5, 3)).to_series().to_list()
    assert _polars_plugin.python_batches > before


def test_an_error_in_the_plugin_is_a_python_exception():
    df = pl.DataFrame({"s": ["a", "b"]})
    with pytest.raises(pl.exceptions.PolarsError) as theirs:
        df.select(pl.col("s").is_between(1, 2))
    with pytest.raises(type(theirs.value), match="cannot compare string"):
        df.select(pl.col("s").sf.between(1, 2))


def test_groups_and_large_chunked_columns():
    n = 300_000
    df = pl.concat(
        [pl.DataFrame({"g": [i % 3 for i in range(n)], "x": list(range(n))})] * 2, rechunk=False
    )
    got = df.group_by("g").agg(pl.col("x").sf.count(10, 200_000)).sort("g")
    want = df.group_by("g").agg(pl.col("x").is_between(10, 200_000).sum()).sort("g")
    assert got.rows() == want.rows()
    assert df.filter(pl.col("x").sf.between(10, 200_000, "none")).equals(
        df.filter(pl.col("x").is_between(10, 200_000, "none"))
    )


def test_turned_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("SIMDFILTER_POLARS_PLUGIN", "0")
    assert "python_udf" in pl.LazyFrame({"x": [1]}).filter(pl.col("x").sf.between(0, 1)).explain()
