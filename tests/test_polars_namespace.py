"""The Polars ``sf`` namespace against Polars' own expressions, on every dtype it reads."""

import datetime as dt
from decimal import Decimal
import subprocess
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pl = pytest.importorskip("polars", reason="polars is not installed")
from polars.testing import assert_frame_equal, assert_series_equal  # noqa: E402

import simdfilter  # noqa: E402
import simdfilter.polars  # noqa: E402,F401
from simdfilter import _conjunction, _face  # noqa: E402

from conftest import examples  # noqa: E402

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


def test_indexes_of_strings_are_polars():
    s = pl.Series(["a", "c", "b"])
    assert s.sf.indexes("a", "b").to_list() == [0, 2]
    assert s.sf.indexes("a", "b").dtype == pl.UInt32


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
        # carrier (strings) included: Polars compares it at the rows left
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


@pytest.mark.parametrize("verb", ["filter", "count", "indexes"])
def test_a_missing_column_is_polars_column_not_found_and_a_key_error(verb):
    df = pl.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError) as theirs:
        df.filter(pl.col("nope").is_between(0, 1))
    with pytest.raises(type(theirs.value), match="nope"):
        getattr(df.sf, verb)({"nope": (0, 1)})
    with pytest.raises(KeyError, match="nope"):  # what the namespace raised before
        getattr(df.sf, verb)(a=(1, 2), nope=(0, 1))


def test_a_column_named_closed_goes_in_the_mapping():
    df = pl.DataFrame({"closed": [1, 5]})
    assert_frame_equal(
        df.sf.filter({"closed": (0, 1)}), df.filter(pl.col("closed").is_between(0, 1))
    )
    with pytest.raises(TypeError, match=r"mapping.*\{'closed': \(0, 1\)\}"):
        df.sf.filter(closed=(0, 1))
    for bad in ("all", (0, 1, 2), None):  # any other bad value: Polars' own error
        with pytest.raises((TypeError, ValueError)) as theirs:
            df.filter(pl.col("closed").is_between(0, 1, closed=bad))
        with pytest.raises(type(theirs.value)) as ours:
            df.sf.filter({"closed": (0, 1)}, closed=bad)
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "column, lo, hi",
    [
        ([dt.timedelta(0)] * 2, "0:00:00", dt.date(2020, 1, 1)),
        (pl.Series(["a", "b"]), 0, 5),  # columns no kernel reads too
        (pl.Series(["a", "b"], dtype=pl.Categorical), 0, 5),
        (pl.Series(["a", "b"]), dt.date(2020, 1, 1), dt.date(2021, 1, 1)),
    ],
    ids=["duration-str", "string-int", "categorical-int", "string-date"],
)
@pytest.mark.parametrize("verb", ["filter", "count", "indexes"])
def test_a_range_polars_refuses_raises_where_another_leaves_no_row(verb, column, lo, hi):
    # df.filter checks every comparison's types before it reads a row (and raises
    # another type on an empty frame, Polars 2.1: ComputeError for SchemaError);
    # the conjunction stops once no row stands, before the column Polars refuses.
    full = pl.DataFrame({"a": [1, 2], "x": column})
    ranges = {"a": (100, 200), "x": (lo, hi)}
    expr = pl.all_horizontal(_expr(k, lo, hi, "both") for k, (lo, hi) in ranges.items())
    for df in (full, full.clear()):
        with pytest.raises(pl.exceptions.PolarsError) as theirs:
            df.filter(expr)
        for order in (ranges, dict(reversed(list(ranges.items())))):
            with pytest.raises(type(theirs.value)):
                getattr(df.sf, verb)(order)
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


# ---- bounds Polars converts its own way (issue 28: B1, B2, C1) ---------------------

TOKYO = pytest.importorskip("zoneinfo").ZoneInfo("Asia/Tokyo")
NS = np.datetime64("2020-01-01T00:00:00.000000001")


def _f32():
    return pl.Series("x", [0.1, 0.2], dtype=pl.Float32)


def _durations():
    return pl.Series("x", [dt.timedelta(0), dt.timedelta(1)])


def _tokyo():
    return pl.Series("x", [dt.datetime(2020, 1, 1, 6)]).dt.replace_time_zone("Asia/Tokyo")


FOREIGN_BOUNDS = [
    (_f32, np.float64(0.1), 0.1, "both"),
    (_f32, 0.1, np.uint64(2**64 - 1), "right"),
    (lambda: pl.Series("x", [dt.datetime(2020, 1, 1)]), NS, dt.datetime(2021, 1, 1), "both"),
    (lambda: pl.Series("x", [dt.date(2020, 1, 1)]), NS, dt.datetime(2021, 1, 1), "both"),
    (_durations, np.timedelta64(1, "ns"), dt.timedelta(1), "both"),
    (_durations, dt.timedelta(0), np.uint64(2**64 - 1), "both"),
    (_durations, np.int8(-1), dt.timedelta(2), "both"),
    (_durations, 0, 10**12, "both"),
    (lambda: pl.Series("x", [1, 2]), True, Decimal("1.5"), "both"),
    (lambda: pl.Series("x", [1, 2]), Decimal("1.5"), 2, "both"),
    (lambda: pl.Series("x", [0, 1]), np.float32(0.1), 1, "both"),
    (lambda: pl.Series("x", [1, 2], dtype=pl.Int8), 0, 2**53 + 1, "both"),
    (lambda: pl.Series("x", [1, 2], dtype=pl.UInt8), -1, 5, "both"),
    (lambda: pl.Series("x", [True, False, None]), False, True, "both"),
    (_tokyo, dt.datetime(2019, 1, 1, tzinfo=UTC), dt.datetime(2030, 1, 1, tzinfo=UTC), "both"),
    (_tokyo, dt.datetime(2019, 1, 1, tzinfo=TOKYO), dt.datetime(2030, 1, 1), "both"),
    (lambda: pl.Series("x", [dt.datetime(2020, 1, 1)]), dt.date(2019, 1, 1), None, "both"),
    (lambda: pl.Series("x", [dt.date(2000, 1, 1)]), "2000-01-01", "2000-01-02", "both"),
    (_tokyo, "2019-01-01", "2030-01-01", "both"),
    (lambda: pl.Series("x", [dt.datetime(2020, 1, 1)]), "2019-01-01", "2030-01-01", "both"),
    (_durations, "0", "1", "both"),
    (_durations, "0:00:00", dt.date(2020, 1, 1), "both"),  # an empty frame: ComputeError
    (lambda: pl.Series("x", [dt.time(1)]), "00:00", "02:00", "both"),
]


def _host(face, s, lo, hi, closed):
    """The host's answer for `face`: the eager Series method (with a None end the
    comparison it leaves), the expression, or df.filter's row positions."""
    x = s if face == "series" else pl.col("x")
    if face == "frame":  # a str in a frame's mapping is a value
        lo, hi = (pl.lit(b) if isinstance(b, str) else b for b in (lo, hi))
    if lo is not None and hi is not None:
        m = x.is_between(lo, hi, closed=closed)
    else:  # a None end is unbounded: the comparison the other leaves
        m = x == x
        if lo is not None:
            m = m & (x >= lo if closed in ("both", "left") else x > lo)
        if hi is not None:
            m = m & (x <= hi if closed in ("both", "right") else x < hi)
    if face == "series":
        return m.to_list()
    if face == "frame":
        return s.to_frame().with_row_index("i").filter(m)["i"].to_list()
    return s.to_frame().select(m).to_series().to_list()


def _ours(face, verb, s, lo, hi, closed):
    if face == "series":
        got = getattr(s.sf, verb)(lo, hi, closed)
        return got if verb == "count" else got.to_list()
    if face == "frame":
        return s.to_frame().sf.indexes({"x": (lo, hi)}, closed=closed).to_list()
    return s.to_frame().select(pl.col("x").sf.between(lo, hi, closed)).to_series().to_list()


def _agree(face, s, lo, hi, closed):
    try:
        want = _host(face, s, lo, hi, closed)
    except Exception as exc:  # the host raises: so does every verb of the face
        verbs = ("between", "filter", "count", "indexes") if face == "series" else ("between",)
        for verb in verbs:
            with pytest.raises(type(exc)):
                _ours(face, verb, s, lo, hi, closed)
        if face == "frame":
            with pytest.raises(type(exc)):
                s.to_frame().sf.filter({"x": (lo, hi)}, closed=closed)
            with pytest.raises(type(exc)):
                s.to_frame().sf.count({"x": (lo, hi)}, closed=closed)
        return
    assert _ours(face, "between", s, lo, hi, closed) == want
    if face == "series":
        hits = [i for i, v in enumerate(want) if v]
        assert _ours(face, "indexes", s, lo, hi, closed) == hits
        assert _ours(face, "count", s, lo, hi, closed) == len(hits)
        assert _ours(face, "filter", s, lo, hi, closed) == s.gather(hits).to_list()
    if face == "frame":
        rows = s.to_frame().sf.filter({"x": (lo, hi)}, closed=closed)
        assert_frame_equal(rows, s.to_frame()[want])


@pytest.mark.parametrize("face", ["series", "expr", "frame"])
@pytest.mark.parametrize("make, lo, hi, closed", FOREIGN_BOUNDS)
def test_bounds_polars_converts_its_own_way(face, make, lo, hi, closed):
    # The acceptance tester's reproducers: NumPy scalars not of the column's dtype,
    # Decimals, strs on temporal columns, datetimes of another zone, numbers on
    # Boolean and temporal columns, ints outside a narrow integer Series' dtype.
    _agree(face, make(), lo, hi, closed)


TEMPORAL = [
    "Datetime(us)",
    "Datetime(ns)",
    "Datetime(ms)",
    "Datetime(us,UTC)",
    "Datetime(us,Asia/Tokyo)",
    "Date",
    "Duration(us)",
    "Duration(ns)",
    "Time",
]
T0 = dt.datetime(2020, 1, 1)
ZONES = [None, UTC, TOKYO, dt.timezone(dt.timedelta(hours=9))]


def _temporal(kind):
    offsets = [dt.timedelta(days=d, microseconds=u) for d in (-1, 0, 1) for u in (0, 1, 999, 1000)]
    if kind == "Date":
        return pl.Series("x", [T0.date() + dt.timedelta(days=d) for d in (-1, 0, 1)] + [None])
    if kind == "Time":
        return pl.Series(
            "x", [(T0 + dt.timedelta(hours=h) + o).time() for h in (1, 5) for o in offsets] + [None]
        )
    if kind.startswith("Duration"):
        unit = kind[9:-1]
        return pl.Series("x", offsets + [None], dtype=pl.Duration(unit))
    unit, _, zone = kind[9:-1].partition(",")
    s = pl.Series("x", [T0 + o for o in offsets] + [None], dtype=pl.Datetime(unit))
    return s.dt.replace_time_zone(zone) if zone else s


@st.composite
def temporal_bounds(draw):
    kind = draw(
        st.sampled_from(
            [
                "none",
                "datetime",
                "date",
                "timedelta",
                "time",
                "datetime64",
                "timedelta64",
                "number",
                "str",
            ]
        )
    )
    delta = dt.timedelta(
        days=draw(st.integers(-2, 2)), microseconds=draw(st.sampled_from([0, 1, 999, 1000, 10**6]))
    )
    unit = draw(st.sampled_from(["D", "s", "ms", "us", "ns"]))
    if kind == "none":
        return None
    if kind == "datetime":
        return (T0 + delta).replace(tzinfo=draw(st.sampled_from(ZONES)))
    if kind == "date":
        return (T0 + delta).date()
    if kind == "timedelta":
        return delta
    if kind == "time":
        return (T0 + delta).time()
    if kind == "datetime64":
        return np.datetime64(T0 + delta).astype(f"M8[{unit}]")
    if kind == "timedelta64":
        return np.timedelta64(delta).astype(f"m8[{unit}]")
    if kind == "number":
        return draw(st.sampled_from([0, -1, 10**12, 2**64 - 1, np.int8(-1), np.int64(10**9), 1.5]))
    return (T0 + delta).isoformat() if draw(st.booleans()) else str(delta)


@pytest.mark.parametrize("face", ["series", "expr", "frame"])
@pytest.mark.parametrize("kind", TEMPORAL)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_temporal_bounds_are_polars(kind, face, data):
    # Python, NumPy, numeric and str bounds on every temporal dtype: each face
    # answers as its host does, or raises its host's exception type.
    lo, hi = data.draw(temporal_bounds(), label="lo"), data.draw(temporal_bounds(), label="hi")
    closed = data.draw(st.sampled_from(list(CLOSED.values())), label="closed")
    _agree(face, _temporal(kind), lo, hi, closed)


@pytest.mark.parametrize(
    "dtype",
    # Polars 1.33 has Int128 but no UInt128
    [d for d in (getattr(pl, "Int128", None), getattr(pl, "UInt128", None)) if d is not None],
    ids=str,
)
def test_wide_integer_series_are_polars(dtype):
    # No kernel reads Int128/UInt128: every verb is Polars' own, never an error of
    # ours: Polars' answer, or Polars' own error where Polars compares no such
    # Series (1.36's UInt128 has no comparison with a scalar: NotImplementedError).
    s = pl.Series([1, 2, 3], dtype=dtype)
    for lo, hi in [(0, 2), (0.5, 2), (1.5, 2.5)]:
        try:
            want = s.is_between(lo, hi)
        except Exception as exc:  # noqa: BLE001 - Polars' own, whatever its type
            for verb in (s.sf.between, s.sf.count):
                with pytest.raises(type(exc)):
                    verb(lo, hi)
            continue
        assert s.sf.between(lo, hi).to_list() == want.to_list()
        assert s.sf.count(lo, hi) == want.sum()


def _outcome(f):
    """A call's result as comparable data, or its exception's type."""
    try:
        got = f()
    except Exception as exc:  # noqa: BLE001 - the host's own exception, whatever its type
        return type(exc)
    return got.to_list() if isinstance(got, pl.Series) else got.rows()


def test_indexes_on_a_column_no_kernel_reads_are_the_rows_filter_keeps():
    s = pl.Series("s", ["b", None, "a", "c", "b"])
    want = s.is_between("b", "c").fill_null(False).arg_true().to_list()
    assert s.sf.indexes("b", "c").to_list() == want
    df = pl.DataFrame({"s": s, "x": [1, 2, 3, 4, 5]})
    idx = df.sf.indexes({"s": ("b", "c"), "x": (2, 5)})
    assert_frame_equal(df[idx.to_numpy()], df.sf.filter({"s": ("b", "c"), "x": (2, 5)}))
    assert idx.to_list() == [3, 4]


def test_aware_bounds_polars_refuses_are_polars():
    ZONEINFO = pytest.importorskip("zoneinfo")
    zone = "Europe/Paris"
    naive = [dt.datetime(2024, 3, 31, 1, 0), dt.datetime(2024, 3, 31, 4, 0)]
    t = pl.Series("t", naive).dt.replace_time_zone(zone)
    df = pl.DataFrame({"t": t})
    hi = dt.datetime(2024, 4, 1, tzinfo=ZONEINFO.ZoneInfo(zone))
    cases = [
        dt.datetime(
            2024, 3, 31, 2, 30, tzinfo=ZONEINFO.ZoneInfo(zone)
        ),  # in the spring-forward gap
        dt.datetime(2024, 3, 30, tzinfo=dt.timezone(dt.timedelta(hours=5), zone)),  # a named offset
        dt.datetime(2024, 3, 30, tzinfo=dt.timezone.utc),  # another zone than the column's
    ]
    for lo in cases:
        theirs = _outcome(lambda: df.select(pl.col("t").is_between(lo, hi)).to_series())
        ours = _outcome(lambda: df.select(pl.col("t").sf.between(lo, hi)).to_series())
        assert ours == theirs, lo
        assert _outcome(lambda: df.sf.filter(t=(lo, hi))) == _outcome(
            lambda: df.filter(pl.col("t").is_between(lo, hi))
        ), lo
        assert _outcome(lambda: t.sf.between(lo, hi)) == _outcome(lambda: t.is_between(lo, hi)), lo


@pytest.mark.parametrize("closed", ["both", "left", "right", "none"])
def test_expression_uint64_bound_past_int64_beside_a_float(closed):
    """A NumPy uint64 bound past Int64 beside a float bound on Int64 data: Polars 2
    folds x < 2**63 into the plan (true for every Int64) and compares the float
    bound in Float64, where the kernels compared both as doubles (2**63 - 1 is
    2**63 as a double); Polars 1 refuses the uint64 literal (TypeError). Hypothesis
    found lo=0.0, hi=np.uint64(2**63), 'left'. Each face gives its host's outcome."""
    s = pl.Series("x", [2**63 - 1, 2**63 - 2, 2**62, 2**53 + 1, 0, -1], dtype=pl.Int64)
    df = s.to_frame()
    for lo, hi in [(0.0, np.uint64(2**63)), (np.uint64(2**63), 1e30), (-0.5, np.uint64(2**64 - 1))]:
        expr_host = _outcome(lambda: df.select(pl.col("x").is_between(lo, hi, closed=closed)))
        expr_ours = _outcome(lambda: df.select(pl.col("x").sf.between(lo, hi, closed=closed)))
        assert expr_ours == expr_host, (lo, hi)
        frame_host = _outcome(lambda: df.filter(pl.col("x").is_between(lo, hi, closed=closed)))
        frame_ours = _outcome(lambda: df.sf.filter({"x": (lo, hi)}, closed=closed))
        assert frame_ours == frame_host, (lo, hi)
