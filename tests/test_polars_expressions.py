"""``pl.col(...).sf``: the kernels inside Polars expressions, against ``Expr.is_between``.

The first tests are Polars' own ``is_between`` tests (py-polars/tests/unit:
dataframe/test_df.py, series/test_series.py, operations/test_comparison.py),
written again through the expression namespace; then every dtype against
Polars' expression, and the contexts an expression stands in (select,
with_columns, filter, lazy frames, the streaming engine, group_by, over).
"""

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest

pl = pytest.importorskip("polars", reason="polars is not installed")
from polars.testing import assert_frame_equal, assert_series_equal  # noqa: E402

import simdfilter.polars  # noqa: E402,F401

CLOSED = ("both", "left", "right", "none")


# ---- Polars' own tests, through sf ---------------------------------------------


@pytest.fixture
def fruits_cars():
    return pl.DataFrame(
        {
            "A": [1, 2, 3, 4, 5],
            "fruits": ["banana", "banana", "apple", "apple", "banana"],
            "B": [5, 4, 3, 2, 1],
            "cars": ["beetle", "audi", "beetle", "beetle", "beetle"],
        },
        schema_overrides={"A": pl.Int64, "B": pl.Int64},
    )


def test_is_between(fruits_cars):
    result = fruits_cars.select(pl.col("A").sf.between(2, 4)).to_series()
    assert_series_equal(result, pl.Series("A", [False, True, True, True, False]))
    for closed, want in [
        ("none", [False, False, True, False, False]),
        ("both", [False, True, True, True, False]),
        ("right", [False, False, True, True, False]),
        ("left", [False, True, True, False, False]),
    ]:
        result = fruits_cars.select(pl.col("A").sf.between(2, 4, closed=closed)).to_series()
        assert_series_equal(result, pl.Series("A", want))


def test_is_between_data_types():
    df = pl.DataFrame(
        {
            "flt": [1.4, 1.2, 2.5],
            "int": [2, 3, 4],
            "str": ["xyz", "str", "abc"],
            "date": [dt.date(2020, 1, 1), dt.date(2020, 2, 2), dt.date(2020, 3, 3)],
            "datetime": [
                dt.datetime(2020, 1, 1, 0, 0, 0),
                dt.datetime(2020, 1, 1, 10, 0, 0),
                dt.datetime(2020, 1, 1, 12, 0, 0),
            ],
            "tm": [dt.time(10, 30), dt.time(0, 45), dt.time(15, 15)],
        }
    )
    # on purpose, for float and int, a mixture of bound types
    assert_series_equal(
        df.select(pl.col("flt").sf.between(1, 2.3))[:, 0], pl.Series("flt", [True, True, False])
    )
    assert_series_equal(
        df.select(pl.col("int").sf.between(1.5, 3))[:, 0], pl.Series("int", [True, True, False])
    )
    assert_series_equal(
        df.select(pl.col("date").sf.between(dt.date(2019, 1, 1), dt.date(2020, 2, 5)))[:, 0],
        pl.Series("date", [True, True, False]),
    )
    assert_series_equal(
        df.select(
            pl.col("datetime").sf.between(
                dt.datetime(2020, 1, 1, 5, 0, 0), dt.datetime(2020, 1, 1, 11, 0, 0)
            )
        )[:, 0],
        pl.Series("datetime", [False, True, False]),
    )
    assert_series_equal(
        df.select(pl.col("str").sf.between(pl.lit("str"), pl.lit("zzz"), closed="left"))[:, 0],
        pl.Series("str", [True, True, False]),
    )
    assert_series_equal(
        df.select(
            pl.col("tm")
            .sf.between(dt.time(0, 45), dt.time(10, 30), closed="right")
            .alias("tm_between")
        )[:, 0],
        pl.Series("tm_between", [True, False, False]),
    )


def test_is_between_datetime():
    s = pl.Series("a", [dt.datetime(2020, 1, 1, 10), dt.datetime(2020, 1, 1, 20)])
    start, end = dt.datetime(2020, 1, 1, 12), dt.datetime(2020, 1, 1, 23)
    result = s.to_frame().with_columns(pl.col("*").sf.between(start, end)).to_series()
    assert_series_equal(result, pl.Series("a", [False, True]))


def test_is_between_nulls_and_expression_bounds():
    df = pl.DataFrame({"num": [1, 2, None, 4, 5]})
    got = lambda e: df.select(e).to_series().to_list()  # noqa: E731
    assert got(pl.col("num").sf.between(2, 4)) == [False, True, None, True, False]
    assert got(pl.col("num").sf.between(2, 4, closed="left")) == [False, True, None, False, False]
    assert got(pl.col("num").sf.between(2, 4, "right")) == [False, False, None, True, False]
    # expression bounds: Polars' own is_between
    assert got(pl.col("num").sf.between(pl.lit(2) / 2, pl.lit(4) * 2)) == [
        True,
        True,
        None,
        True,
        True,
    ]


def test_raise_invalid_is_between():
    # (ComputeError in Polars 2, InvalidOperationError in 1.33)
    with pytest.raises(pl.exceptions.PolarsError) as theirs:
        pl.select(pl.lit(2).is_between(pl.lit("11"), pl.lit("33")))
    with pytest.raises(type(theirs.value)):
        pl.select(pl.lit(2).sf.between(pl.lit("11"), pl.lit("33")))
    # and a literal bound the column cannot take: the kernels refuse it, Polars raises
    with pytest.raises(pl.exceptions.PolarsError) as theirs:
        pl.DataFrame({"s": ["a"]}).select(pl.col("s").is_between(1, 2))
    with pytest.raises(type(theirs.value)):
        pl.DataFrame({"s": ["a"]}).select(pl.col("s").sf.between(1, 2))


def test_is_between_coerces_dynamic_float_bounds():
    # Distinct in float64, the same in float32: a Python float meets Float32 data at
    # float32 (Polars' expressions, and NumPy 2).
    x = 1.0000001192092896  # == 1 + eps_f32
    lower_bound = 1.00000015  # < 1 + 2*eps_f32
    for dtype, want in [(pl.Float32, True), (pl.Float64, False)]:
        q = pl.LazyFrame({"x": [x]}, schema={"x": dtype}).select(
            sf=pl.col("x").sf.between(lower_bound, 2.0),
            polars=pl.col("x").is_between(lower_bound, 2.0),
        )
        assert q.collect().row(0) == (want, want)


def test_is_between_out_of_range_bounds_of_a_narrow_type():
    df = pl.DataFrame({"u16": pl.Series([0, 5, None, 65535], dtype=pl.UInt16)})
    for lo, hi in [(1 << 16, 1 << 17), (-5, 10), (-(1 << 40), 1 << 40), (10, 3)]:
        want = df.select(pl.col("u16").is_between(lo, hi)).to_series()
        assert_series_equal(df.select(pl.col("u16").sf.between(lo, hi)).to_series(), want)


# ---- every dtype ------------------------------------------------------------------


def _column(kind, rng, n=200):
    nulls = rng.random(n) < 0.1
    if kind in ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64"):
        info = np.iinfo(kind.lower())
        v = rng.integers(max(int(info.min), -1000), min(int(info.max), 1000), n, endpoint=True)
        s = pl.Series("c", v, dtype=getattr(pl, kind))
    elif kind in ("Float32", "Float64"):
        v = rng.normal(0, 100, n)
        v[rng.random(n) < 0.05] = np.nan
        s = pl.Series("c", v, dtype=getattr(pl, kind))
    elif kind == "Boolean":
        s = pl.Series("c", rng.random(n) < 0.5)
    elif kind.startswith("Datetime"):
        unit, _, zone = kind[9:-1].partition(",")
        s = pl.Series("c", rng.integers(0, 400 * 86400 * 10**6, n)).cast(pl.Datetime("us"))
        s = s.cast(pl.Datetime(unit))
        if zone:
            s = s.dt.replace_time_zone("UTC").dt.convert_time_zone(zone)
    elif kind == "Duration":
        s = pl.Series("c", rng.integers(0, 10**12, n)).cast(pl.Duration("ns"))
    elif kind == "Date":
        s = pl.Series("c", rng.integers(15000, 16000, n)).cast(pl.Int32).cast(pl.Date)
    elif kind == "Time":
        s = pl.Series("c", rng.integers(0, 86400 * 10**9, n)).cast(pl.Time)
    elif kind == "String":
        s = pl.Series("c", [f"k{i:03d}" for i in rng.integers(0, 500, n)])
    elif kind == "Categorical":
        v = rng.integers(0, 500, n)
        s = pl.Series("c", [None if z else f"k{i:03d}" for i, z in zip(v, nulls)], pl.Categorical)
    elif kind == "Decimal":
        v = rng.integers(-9999, 9999, n)
        s = pl.Series("c", [None if z else Decimal(int(i)) / 100 for i, z in zip(v, nulls)])
    else:
        raise AssertionError(kind)
    if kind not in ("Decimal", "Categorical"):
        s = s.scatter(np.flatnonzero(nulls), None)
    valid = s.drop_nulls()
    if s.dtype.is_float():
        valid = valid.filter(~valid.is_nan())
    valid = valid.sort()
    lo, hi = valid[len(valid) // 4], valid[3 * len(valid) // 4]
    if kind == "Boolean":
        lo, hi = False, True
    return s, lo, hi


KINDS = [
    "Int8",
    "UInt8",
    "Int16",
    "UInt16",
    "Int32",
    "UInt32",
    "Int64",
    "UInt64",
    "Float32",
    "Float64",
    "Boolean",
    "Datetime(us)",
    "Datetime(ns)",
    "Datetime(ms,Asia/Kolkata)",
    "Duration",
    "Date",
    "Time",
    "String",
    "Categorical",
    "Decimal",
]


def _both(df, ours, theirs):
    """(our column, Polars' column), or (exception, exception) types where Polars raises."""
    try:
        want = df.select(theirs).to_series()
    except Exception as exc:  # noqa: BLE001 - whatever Polars raises, we must too
        with pytest.raises(type(exc)):
            df.select(ours)
        return None, None
    return df.select(ours).to_series(), want


@pytest.mark.parametrize("kind", KINDS)
def test_every_dtype_is_polars_expression(kind, rng):
    s, lo, hi = _column(kind, rng)
    df = pl.concat([s[:70].to_frame(), s[70:].to_frame()], rechunk=False)
    for closed in CLOSED:
        if kind in ("String", "Categorical"):  # a str names a column in an expression
            lo_, hi_ = pl.lit(lo), pl.lit(hi)
        else:
            lo_, hi_ = lo, hi
        got, want = _both(
            df, pl.col("c").sf.between(lo_, hi_, closed), pl.col("c").is_between(lo_, hi_, closed)
        )
        if want is not None:
            assert_series_equal(got, want)
            n = df.select(pl.col("c").sf.count(lo_, hi_, closed)).item()
            assert n == want.sum()
    # a float bound on a Decimal, and a numeric bound on a temporal column
    got, want = _both(df, pl.col("c").sf.between(0.5, 2.5), pl.col("c").is_between(0.5, 2.5))
    if want is not None:
        assert_series_equal(got, want)


@pytest.mark.parametrize("unit", ["ns", "us", "ms"])
@pytest.mark.parametrize("kind", ["Datetime", "Duration"])
def test_python_time_bounds_at_polars_precision(kind, unit):
    # Polars compares a bound of whole microseconds with ns data at microseconds in
    # expressions (exactly in Series methods), and floors it to ms on ms data.
    ticks = pl.Series("c", [-1500, -999, -1, 0, 999, 1000, 1001, 1999, 2000, 10**6 + 500])
    s = ticks.cast(getattr(pl, kind)("ns")).cast(getattr(pl, kind)(unit))
    base = dt.datetime(1970, 1, 1) if kind == "Datetime" else dt.timedelta(0)
    us = lambda k: base + dt.timedelta(microseconds=k)  # noqa: E731
    for lo, hi in [(us(-1), us(1)), (us(1), us(2)), (us(1500), us(2500)), (us(0), us(1000))]:
        for closed in CLOSED:
            got, want = _both(
                s.to_frame(),
                pl.col("c").sf.between(lo, hi, closed),
                pl.col("c").is_between(lo, hi, closed),
            )
            assert got.to_list() == want.to_list(), (lo, hi, closed)
            if kind == "Datetime":  # Polars 2.1 has no Series comparisons on Duration
                assert (
                    s.sf.between(lo, hi, closed).to_list() == s.is_between(lo, hi, closed).to_list()
                )


def test_nan_bounds_and_data_follow_polars_order():
    df = pl.DataFrame({"x": [1.0, None, np.nan, -1.0, np.inf]})
    for lo, hi in [(0.0, np.nan), (np.nan, np.nan), (np.nan, 5.0), (-np.inf, np.inf)]:
        want = df.select(pl.col("x").is_between(lo, hi)).to_series()
        assert_series_equal(df.select(pl.col("x").sf.between(lo, hi)).to_series(), want)


def test_a_none_bound_is_unbounded():
    df = pl.DataFrame({"x": [1.0, None, np.nan, 3.0], "s": ["a", "b", None, "d"]})
    got = df.select(
        a=pl.col("x").sf.between(2, None),
        b=pl.col("x").sf.between(None, 2),
        c=pl.col("x").sf.between(None, None),
        d=pl.col("s").sf.between(pl.lit("b"), None),
    )
    assert got.to_dict(as_series=False) == {
        "a": [False, None, False, True],
        "b": [True, None, False, False],
        "c": [True, None, False, True],
        "d": [False, True, None, True],
    }


# ---- where an expression stands ----------------------------------------------------


@pytest.fixture
def frame(rng):
    n = 5000
    return pl.DataFrame(
        {
            "g": rng.integers(0, 7, n),
            "a": pl.Series(rng.integers(-100, 100, n)).scatter(
                np.flatnonzero(rng.random(n) < 0.1), None
            ),
            "b": rng.normal(0, 1, n),
            "t": pl.Series(rng.integers(0, 10**12, n)).cast(pl.Datetime("us")),
        }
    )


def test_lazy_filter_with_columns_select_and_the_streaming_engine(frame):
    lo_t, hi_t = dt.datetime(1970, 1, 3), dt.datetime(1970, 1, 9)
    ours = (
        pl.col("a").sf.between(-50, 50)
        & pl.col("b").sf.between(-1.0, 0.5, "left")
        & pl.col("t").sf.between(lo_t, hi_t, closed="none")
    )
    theirs = (
        pl.col("a").is_between(-50, 50)
        & pl.col("b").is_between(-1.0, 0.5, "left")
        & pl.col("t").is_between(lo_t, hi_t, closed="none")
    )
    lf = frame.lazy()
    want = lf.filter(theirs).collect()
    assert 0 < want.height < frame.height
    for engine in ("in-memory", "streaming"):
        assert_frame_equal(lf.filter(ours).collect(engine=engine), want)
        assert_frame_equal(
            lf.with_columns(m=ours).collect(engine=engine),
            lf.with_columns(m=theirs).collect(engine=engine),
        )
        assert_frame_equal(
            lf.select(pl.col("a").sf.between(0, 10)).collect(engine=engine),
            lf.select(pl.col("a").is_between(0, 10)).collect(engine=engine),
        )
    assert_frame_equal(frame.filter(ours), want)


def test_group_by_and_over(frame):
    q = lambda e, n: (  # noqa: E731
        frame.group_by("g", maintain_order=True).agg(e.alias("m"), n.alias("n")).sort("g")
    )
    assert_frame_equal(
        q(pl.col("a").sf.between(-10, 30), pl.col("a").sf.count(-10, 30)),
        q(pl.col("a").is_between(-10, 30), pl.col("a").is_between(-10, 30).sum()),
    )
    assert_frame_equal(
        frame.select(pl.col("b").sf.between(-0.5, 0.5).over("g")),
        frame.select(pl.col("b").is_between(-0.5, 0.5).over("g")),
    )
    assert_frame_equal(
        frame.select(pl.col("b").sf.count(-0.5, 0.5)),
        frame.select(pl.col("b").is_between(-0.5, 0.5).sum()),
    )


def test_on_a_computed_expression_and_its_name(frame):
    got = frame.select(
        (pl.col("a") * 2).sf.between(0, 50).alias("x2"), pl.col("b").sf.between(0, 1)
    )
    want = frame.select(
        (pl.col("a") * 2).is_between(0, 50).alias("x2"), pl.col("b").is_between(0, 1)
    )
    assert_frame_equal(got, want)
