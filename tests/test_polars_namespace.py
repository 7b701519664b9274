"""The Polars ``sf`` namespace against Polars' own expressions, on every dtype it reads."""

import datetime as dt
import subprocess
import textwrap

import numpy as np
import pytest

pl = pytest.importorskip("polars", reason="polars is not installed")
from polars.testing import assert_frame_equal, assert_series_equal  # noqa: E402

import simdfilter  # noqa: E402
import simdfilter.polars  # noqa: E402,F401
from simdfilter import _conjunction, _face  # noqa: E402

N = 300
INCLUSIVE = ("both", "left", "right", "neither")
CLOSED = {"both": "both", "left": "left", "right": "right", "neither": "none"}
BASE = dt.datetime(2013, 1, 1)


def make_series(kind, rng, n=N):
    """A random Series of `kind`, with nulls, in two chunks; and bounds inside its range."""
    nulls = rng.random(n) < 0.1
    if kind.startswith(("Int", "UInt")):
        dtype = getattr(pl, kind)
        info = np.iinfo(kind.lower())
        values = rng.integers(max(int(info.min), -1000), min(int(info.max), 1000), n, endpoint=True)
        s = pl.Series("col", values, dtype=dtype)
    elif kind.startswith("Float"):
        values = rng.normal(0, 100, n)
        values[rng.random(n) < 0.05] = np.nan
        s = pl.Series("col", values, dtype=getattr(pl, kind))
    elif kind == "Boolean":
        s = pl.Series("col", rng.random(n) < 0.5)
    elif kind.startswith("Datetime"):
        unit, _, zone = kind[9:-1].partition(",")
        ticks = rng.integers(0, 400 * 86400 * 10**6, n)
        s = pl.Series("col", ticks, dtype=pl.Int64).cast(pl.Datetime("us"))
        s = s.cast(pl.Datetime(unit))
        if zone:
            s = s.dt.replace_time_zone("UTC").dt.convert_time_zone(zone)
    elif kind == "Duration":
        s = pl.Series("col", rng.integers(0, 10**12, n), dtype=pl.Int64).cast(pl.Duration("ns"))
    else:
        raise AssertionError(kind)
    s = s.scatter(np.flatnonzero(nulls), None)
    s = pl.concat([s[: n // 3], s[n // 3 :]], rechunk=False)  # chunked, read through Arrow
    valid = s.drop_nulls()
    if s.dtype.is_float():
        valid = valid.filter(~valid.is_nan())
    valid = valid.sort()
    lo, hi = valid[len(valid) // 4], valid[3 * len(valid) // 4]
    if kind == "Boolean":
        lo, hi = True, True
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
    "Datetime(ms)",
    "Datetime(us,America/New_York)",
    "Datetime(ns,Asia/Kolkata)",
    "Duration",
]


@pytest.mark.parametrize("kind", KINDS)
def test_every_verb_matches_polars(kind, kernel, rng):
    s, lo, hi = make_series(kind, rng)
    assert s.n_chunks() == 2
    rotate = INCLUSIVE[KINDS.index(kind) % 4 :][:1]
    for inclusive in INCLUSIVE if kernel == simdfilter.default_kernel() else rotate:
        closed = CLOSED[inclusive]
        if kind == "Boolean":
            # Polars' Series method has no >= on Boolean (NotImplementedError, 2.1):
            # every verb raises what it raises (the expression's answer is tested
            # with the expressions).
            with pytest.raises(Exception) as theirs:
                s.is_between(lo, hi, closed=closed)
            for verb in (s.sf.between, s.sf.filter, s.sf.count, s.sf.indexes):
                with pytest.raises(type(theirs.value)):
                    verb(lo, hi, closed)
            continue
        expected = s.is_between(lo, hi, closed=closed)
        assert_series_equal(s.sf.between(lo, hi, closed), expected)
        assert_series_equal(s.sf.filter(lo, hi, closed=closed), s.filter(expected))
        assert s.sf.count(lo, hi, closed) == expected.sum()
        idx = s.sf.indexes(lo, hi, closed)
        assert idx.dtype == pl.UInt32
        assert idx.to_list() == expected.fill_null(False).arg_true().to_list()


def test_polars_closed_names_are_accepted_and_bad_ones_refused():
    s = pl.Series([1, 2, 3, 4])
    assert s.sf.count(1, 4, "none") == 2 == s.is_between(1, 4, "none").sum()
    assert s.sf.count(1, 4, closed="left") == 3
    for bad in ("all", None, 3, "neither", "NONE"):
        with pytest.raises((ValueError, TypeError)) as theirs:  # Polars' expression says why
            pl.select(pl.lit(s).is_between(1, 2, closed=bad))
        for call in (s.sf.between, s.sf.filter, s.sf.count, s.sf.indexes):
            with pytest.raises(type(theirs.value)) as ours:
                call(1, 2, bad)
            assert str(ours.value) == str(theirs.value)
        with pytest.raises(type(theirs.value)):
            pl.col("x").sf.between(1, 2, closed=bad)
        with pytest.raises(type(theirs.value)):
            pl.DataFrame({"a": [1]}).sf.filter({"a": (1, 2)}, closed=bad)
    with pytest.raises(TypeError):  # Polars has no `inclusive`
        s.sf.between(1, 2, inclusive="both")


def test_nan_bounds_follow_polars_order():
    # Polars orders NaN above every number: is_between(0, nan) keeps everything >= 0.
    s = pl.Series([1.0, None, np.nan, -1.0, np.inf])
    for lo, hi in [(0.0, np.nan), (np.nan, np.nan), (np.nan, 5.0)]:
        expected = s.is_between(lo, hi)
        assert_series_equal(s.sf.between(lo, hi), expected)
        assert s.sf.count(lo, hi) == expected.sum()
        assert s.sf.indexes(lo, hi).to_list() == expected.fill_null(False).arg_true().to_list()


@pytest.mark.parametrize(
    "make,lo,hi",
    [
        (lambda: pl.Series(["b", "a", None, "d", "c"]), "b", "d"),
        (lambda: pl.Series(["b", "a", None, "d", "c"], dtype=pl.Categorical), "b", "d"),
        (
            lambda: pl.Series([dt.date(2013, 1, d) for d in (3, 1, 9, 5)]),
            dt.date(2013, 1, 2),
            dt.date(2013, 1, 6),
        ),
    ],
    ids=["string", "categorical", "date"],
)
def test_dtypes_no_kernel_reads_are_computed_by_polars(make, lo, hi):
    s = make()
    try:
        expected = s.is_between(lo, hi)
    except Exception as exc:  # Polars refuses: so must the drop-in
        with pytest.raises(type(exc)):
            s.sf.between(lo, hi)
        return
    assert_series_equal(s.sf.between(lo, hi), expected)
    assert_series_equal(s.sf.filter(lo, hi), s.filter(expected))
    assert s.sf.count(lo, hi) == expected.sum()


def test_indexes_refuses_strings():
    with pytest.raises(TypeError):
        pl.Series(["a", "b"]).sf.indexes("a", "b")


def make_frame(rng, n=2000):
    ticks = rng.integers(0, 400 * 86400 * 10**6, n)
    df = pl.DataFrame(
        {
            "dep_delay": pl.Series(rng.integers(-20, 200, n)).scatter(
                np.flatnonzero(rng.random(n) < 0.1), None
            ),
            "distance": rng.gamma(2, 500, n),
            "time_hour": pl.Series(ticks).cast(pl.Datetime("us")).dt.replace_time_zone("UTC"),
            "carrier": rng.choice(["AA", "B6", "UA", "DL"], n),
        }
    )
    return pl.concat([df[: n // 2], df[n // 2 :]], rechunk=False)


def _expr(name, lo, hi, inclusive):
    col = pl.col(name)
    closed = CLOSED[inclusive]
    lo, hi = (pl.lit(b) if isinstance(b, str) else b for b in (lo, hi))  # a bare str names a column
    if lo is not None and hi is not None:
        return col.is_between(lo, hi, closed=closed)
    if hi is None:
        return col >= lo if closed in ("both", "left") else col > lo
    return col <= hi if closed in ("both", "right") else col < hi


UTC = dt.timezone.utc
QUERIES = [
    dict(dep_delay=(15, 60)),
    dict(
        dep_delay=(15, 60),
        time_hour=(dt.datetime(2013, 3, 1, tzinfo=UTC), dt.datetime(2013, 6, 1, tzinfo=UTC)),
    ),
    dict(distance=(None, 800), dep_delay=(0, None)),
    dict(carrier=("B6", "DL"), distance=(200, 2000)),
    dict(dep_delay=(1000, 2000), distance=(0, 1)),
]


@pytest.mark.parametrize("ranges", QUERIES, ids=lambda r: "+".join(r))
def test_dataframe_filter_equals_the_polars_filter(ranges, kernel, rng):
    df = make_frame(rng)
    for inclusive in INCLUSIVE:
        expr = pl.all_horizontal([_expr(k, lo, hi, inclusive) for k, (lo, hi) in ranges.items()])
        expected = df.filter(expr)
        closed = CLOSED[inclusive]
        assert_frame_equal(df.sf.filter(closed=closed, **ranges), expected)
        assert_frame_equal(df.sf.filter(ranges, closed=closed), expected)
        assert df.sf.count(ranges, closed) == expected.height
        if "carrier" in ranges:
            with pytest.raises(TypeError, match="carrier"):
                df.sf.indexes(closed=closed, **ranges)
        else:
            rows = df.with_row_index("i").filter(expr)["i"].to_list()
            assert df.sf.indexes(ranges, closed=closed).to_list() == rows


def test_dataframe_result_does_not_depend_on_the_evaluation_order(rng, monkeypatch):
    # Above the size where the namespace estimates selectivities and reorders;
    # "carrier" (strings: no kernel) goes last, answered by Polars.
    df = make_frame(rng, n=_conjunction.ORDER_MIN_ROWS + 10)
    ranges = dict(carrier=("B6", "DL"), dep_delay=(15, 60), distance=(100, 300))
    expr = pl.all_horizontal([_expr(k, lo, hi, "both") for k, (lo, hi) in ranges.items()])
    expected = df.filter(expr)
    assert_frame_equal(df.sf.filter(**ranges), expected)
    monkeypatch.setattr(_conjunction, "ORDER_MIN_ROWS", 10**12)  # the order given
    assert_frame_equal(df.sf.filter(**ranges), expected)
    assert_frame_equal(df.sf.filter(**dict(reversed(list(ranges.items())))), expected)


@pytest.mark.parametrize("bits_from", [0.0, None, 2.0], ids=["whole", "default", "at-rows"])
def test_dataframe_rows_alike_whether_columns_are_read_whole_or_at_the_rows_left(
    bits_from, rng, whole_column_calls
):
    # As in the pandas face's test: two chunks, nulls, a tz-aware and a string
    # column, every column read whole (0) or at the rows left (2).
    df = make_frame(rng, n=_conjunction.ORDER_MIN_ROWS + 1013)
    calls, set_bits_from = whole_column_calls
    set_bits_from(bits_from)
    wide = dict(dep_delay=(-20, 150), distance=(100, 3000))
    for ranges in QUERIES + [wide]:
        for inclusive in ("both", "neither"):
            expr = pl.all_horizontal(
                [_expr(k, lo, hi, inclusive) for k, (lo, hi) in ranges.items()]
            )
            assert_frame_equal(df.sf.filter(ranges, closed=CLOSED[inclusive]), df.filter(expr))
    if bits_from == 0.0:
        assert {"_in_range_bits", "_filter_indexes_where"} <= set(calls)
    if bits_from == 2.0:
        assert calls == []


def test_dataframe_sorted_column_keeps_its_binary_search(rng, monkeypatch):
    # A column Polars knows sorted is binary-searched, never read whole, even
    # where the next column would be (BITS_FROM 0).
    n = _conjunction.ORDER_MIN_ROWS + 1013
    df = pl.DataFrame({"t": np.arange(n), "x": rng.random(n)}).with_columns(
        pl.col("t").set_sorted()
    )
    monkeypatch.setattr(_conjunction, "BITS_FROM", 0.0)
    calls = []
    real = _face._core._in_range_bits
    monkeypatch.setattr(
        _face._core, "_in_range_bits", lambda *a, **k: calls.append(a) or real(*a, **k)
    )
    ranges = {"t": (0, n // 10), "x": (0.0, 0.5)}
    expected = df.filter(pl.col("t").is_between(0, n // 10) & pl.col("x").is_between(0.0, 0.5))
    assert_frame_equal(df.sf.filter(ranges), expected)
    assert calls == []


def test_dataframe_errors():
    df = pl.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(KeyError, match="nope"):
        df.sf.filter(a=(1, 2), nope=(0, 1))
    with pytest.raises(TypeError):
        df.sf.filter(a=5)
    with pytest.raises(TypeError):
        df.sf.filter()


def test_without_polars_the_import_names_it(fresh_python):
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "polars" or name.startswith("polars."):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        try:
            import simdfilter.polars
        except ImportError as exc:
            print("ImportError:", exc)
    """)
    out = subprocess.run(
        [fresh_python, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "ImportError: simdfilter.polars needs polars" in out


def test_a_polars_below_the_floor_is_refused_by_name(fresh_python):
    # Before 1.33.1 Polars fails the Arrow C stream of every temporal Series in its
    # own export (error 2001): the namespace says which Polars it needs instead.
    code = textwrap.dedent("""
        import polars
        polars.__version__ = "1.4.1"
        try:
            import simdfilter.polars
        except ImportError as exc:
            print("ImportError:", exc)
    """)
    out = subprocess.run(
        [fresh_python, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "ImportError: simdfilter.polars needs Polars >= 1.33.1" in out
    assert "this is Polars 1.4.1" in out


def test_failed_stream_of_an_old_polars_names_the_version(monkeypatch):
    from simdfilter import _columns

    s = pl.Series([dt.date(2011, 2, 22)])
    assert _columns.stream_failure_hint(s) == ""  # this Polars is at or above the floor
    monkeypatch.setattr(pl, "__version__", "1.30.0")
    hint = _columns.stream_failure_hint(s)
    assert "simdfilter needs Polars >= 1.33.1" in hint and "this is Polars 1.30.0" in hint
    assert _columns.stream_failure_hint(np.arange(3)) == ""  # not Polars: no hint


@pytest.mark.parametrize(
    "version, older",
    [
        ("1.4.1", True),
        ("1.33.0", True),
        ("1.33.1", False),
        ("1.33.1rc1", False),
        ("1.100.0", False),
        ("2.1.0", False),
    ],
)
def test_version_comparison(version, older):
    from simdfilter._columns import older_than

    assert older_than(version, (1, 33, 1)) is older
