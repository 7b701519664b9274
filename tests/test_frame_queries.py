"""Frame queries beyond one AND (issue 43 item 6): an OR of mappings
(``df.sf.filter([{...}, {...}])``), ``invert=True``, and pandas' index levels
named as ``df.query`` names them, on the pandas, Polars (eager and lazy) and
Dask faces, each against its host's own idiom: ``df[(m1 & m2) | m3]`` and
``df[~(...)]`` in pandas, ``df.filter(~(e1 | e2))`` in Polars, whose masks are
three-valued (Kleene) and whose filters drop null. NaN and NaT are outside
every range; a None end is unbounded (the one comparison the other end leaves,
NaN excluded)."""

import datetime as dt
import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agree import pandas_between
from conftest import examples

pd = pytest.importorskip("pandas", reason="pandas is not installed")
pdt = pytest.importorskip("pandas.testing")
import simdfilter.pandas  # noqa: E402,F401  (registers .sf)

HAS_ARROW = importlib.util.find_spec("pyarrow") is not None
INCLUSIVE = ("both", "left", "right", "neither")
CLOSED = {"both": "both", "left": "left", "right": "right", "neither": "none"}
DAY0 = pd.Timestamp("2020-01-01")

# ---- pandas -----------------------------------------------------------------------


def _pandas_frame(draw, n):
    """n rows: a nullable Int64, float64 with NaN, datetime64 with NaT, uint8,
    object strings with None (no kernel: pandas compares them), an Arrow-backed
    float column with nulls where pyarrow is installed; the index one level
    named "lvl" (ints) or two, "k" (ints) and an unnamed one (strings)."""
    ints = draw(st.lists(st.one_of(st.none(), st.integers(-5, 60)), min_size=n, max_size=n))
    floats = draw(
        st.lists(
            st.one_of(st.just(np.nan), st.floats(-10, 10, allow_nan=False)),
            min_size=n,
            max_size=n,
        )
    )
    days = draw(st.lists(st.one_of(st.none(), st.integers(0, 30)), min_size=n, max_size=n))
    words = draw(st.lists(st.one_of(st.none(), st.sampled_from("abcxyz")), min_size=n, max_size=n))
    small = draw(st.lists(st.integers(0, 255), min_size=n, max_size=n))
    df = pd.DataFrame(
        {
            "i": pd.array(ints, dtype="Int64"),
            "f": np.array(floats, dtype=np.float64),
            "t": pd.Series(
                [pd.NaT if d is None else DAY0 + pd.Timedelta(days=d) for d in days],
                dtype="datetime64[ns]",
            ),
            "u": np.array(small, dtype=np.uint8),
            "s": pd.Series(words, dtype=object),
        }
    )
    if HAS_ARROW:
        df["a"] = pd.Series([None if x is None else x / 4 for x in ints], dtype="float64[pyarrow]")
    keys = draw(st.lists(st.integers(0, 9), min_size=n, max_size=n))
    if draw(st.booleans()):
        df.index = pd.Index(keys, name="lvl", dtype=np.int64)
    else:
        df.index = pd.MultiIndex.from_arrays(
            [np.array(keys, dtype=np.int64), [w or "q" for w in words]], names=["k", None]
        )
    return df


def _pandas_bound(draw, label):
    if label in ("i", "u", "lvl", "k"):
        return draw(st.one_of(st.none(), st.integers(-5, 60)))
    if label in ("f", "a"):
        return draw(st.one_of(st.none(), st.floats(-10, 10, allow_nan=False)))
    if label == "t":
        day = draw(st.integers(0, 30))
        return draw(st.sampled_from([None, DAY0 + pd.Timedelta(days=day)]))
    return draw(st.one_of(st.none(), st.sampled_from("abcxyz")))  # "s", "ilevel_1"


@st.composite
def pandas_queries(draw):
    n = draw(st.integers(0, 40))
    df = _pandas_frame(draw, n)
    labels = [c for c in df.columns]
    labels += ["lvl"] if df.index.nlevels == 1 else ["k", "ilevel_1"]
    mappings = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True))
        mappings.append({c: (_pandas_bound(draw, c), _pandas_bound(draw, c)) for c in chosen})
    return df, mappings, draw(st.sampled_from(INCLUSIVE)), draw(st.booleans())


def _pandas_values(df, label):
    """The Series a label names, as df.query resolves it (a column first)."""
    if label in df.columns:
        return df[label]
    if label == "ilevel_1":
        return pd.Series(df.index.get_level_values(1), index=df.index)
    return pd.Series(df.index.get_level_values(label), index=df.index)


def _pandas_idiom(df, mappings, inclusive, invert):
    """df[~((m1 & m2) | m3)]: pandas' own three-valued masks, NA dropped by the filter."""
    mask = None
    for mapping in mappings:
        term = None
        for label, (lo, hi) in mapping.items():
            m = pandas_between(_pandas_values(df, label), lo, hi, inclusive)
            # pandas' Kleene logic, on its "boolean" dtype: pandas itself cannot
            # combine a nullable "boolean" mask with a "bool[pyarrow]" one that
            # holds NA (TypeError: boolean value of NA is ambiguous, pandas 3.1)
            m = m.astype("boolean")
            term = m if term is None else term & m
        mask = term if mask is None else mask | term
    if invert:
        mask = ~mask
    keep = mask.to_numpy(dtype=bool, na_value=False)
    return df[keep]


@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck))
@given(query=pandas_queries())
def test_pandas_or_and_invert_are_the_mask_idiom(query):
    df, mappings, inclusive, invert = query
    want = _pandas_idiom(df, mappings, inclusive, invert)
    ranges = mappings if len(mappings) > 1 else mappings[0]
    got = df.sf.filter(ranges, inclusive, invert=invert)
    pdt.assert_frame_equal(got, want)
    assert df.sf.count(ranges, inclusive, invert=invert) == len(want)
    idx = df.sf.indexes(mappings, inclusive, invert=invert)
    assert idx.dtype == np.uint32
    pdt.assert_frame_equal(df.iloc[idx], want)


def test_pandas_invert_keeps_nan_and_nat_and_drops_na():
    df = pd.DataFrame(
        {
            "f": [1.0, np.nan, 5.0, 2.0],
            "t": pd.to_datetime(["2020-01-01", None, "2020-03-01", "2020-01-02"]),
            "i": pd.array([1, 2, None, 9], dtype="Int64"),
        }
    )
    assert df.sf.filter(f=(0, 3), invert=True).index.tolist() == [1, 2]  # NaN kept
    assert df.sf.filter(t=("2019-12-01", "2020-02-01"), invert=True).index.tolist() == [1, 2]
    # ~(i in [0, 5]): row 2 is NA, pandas' ~NA is NA, and the filter drops it
    assert df.sf.filter(i=(0, 5), invert=True).index.tolist() == [3]
    # Kleene: NA & False is False (kept inverted); NA & True is NA (dropped)
    both = dict(i=(0, 5), f=(0, 3))
    pdt.assert_frame_equal(
        df.sf.filter(both, invert=True),
        df[(~(df.i.between(0, 5) & df.f.between(0, 3))).fillna(False).astype(bool)],
    )


def test_pandas_index_levels_are_named_as_query_names_them():
    df = pd.DataFrame(
        {"a": [1, 5, 9, 3], "lvl": [40, 30, 20, 10]},
        index=pd.Index([4, 3, 2, 1], name="lvl"),
    )
    # a column of the level's name wins, as in df.query (DataFrame.eval's resolvers)
    pdt.assert_frame_equal(df.sf.filter(lvl=(15, 35)), df.query("15 <= lvl <= 35"))
    plain = df.drop(columns="lvl")
    pdt.assert_frame_equal(plain.sf.filter(lvl=(2, 3)), plain.query("2 <= lvl <= 3"))
    pdt.assert_frame_equal(plain.sf.filter(index=(2, 3)), plain.query("2 <= index <= 3"))
    mi = pd.DataFrame(
        {"a": [1, 2, 3, 4]},
        index=pd.MultiIndex.from_arrays(
            [[1, 2, 3, 4], pd.to_datetime(["2020-01-01", "2021-01-01", None, "2023-01-01"])],
            names=["k", None],
        ),
    )
    pdt.assert_frame_equal(mi.sf.filter(k=(2, None)), mi.query("k >= 2"))
    pdt.assert_frame_equal(
        mi.sf.filter({"ilevel_1": ("2020-06-01", "2022-01-01")}),
        mi.query("ilevel_1 >= '2020-06-01' and ilevel_1 <= '2022-01-01'"),
    )
    assert mi.sf.filter({"ilevel_1": ("2020-06-01", None)}, invert=True).a.tolist() == [1, 3]
    with pytest.raises(TypeError, match="MultiIndex.*'k'"):
        mi.sf.filter(index=(1, 2))
    with pytest.raises(KeyError, match="ilevel_0"):  # level 0 is named: ilevel_0 is no name
        mi.sf.filter(ilevel_0=(1, 2))
    # a tz-aware index level keeps its zone (strings read in it, as for columns)
    tz = pd.DataFrame(
        {"a": [1, 2, 3]},
        index=pd.date_range("2024-03-01", periods=3, freq="D", tz="Asia/Tokyo", name="day"),
    )
    pdt.assert_frame_equal(
        tz.sf.filter(day=("2024-03-02", None)),
        tz[tz.index >= pd.Timestamp("2024-03-02", tz="Asia/Tokyo")],
    )


def test_pandas_empty_frames():
    df = pd.DataFrame({"a": pd.Series([], dtype="Int64"), "b": pd.Series([], dtype=float)})
    for invert in (False, True):
        for ranges in ({"a": (1, 2)}, [{"a": (1, 2)}, {"b": (0.0, None)}]):
            pdt.assert_frame_equal(df.sf.filter(ranges, invert=invert), df)
            assert df.sf.count(ranges, invert=invert) == 0
            assert df.sf.indexes(ranges, invert=invert).tolist() == []


def test_pandas_bad_queries_raise_clear_errors():
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]}, index=pd.Index([0, 1, 2], name="k"))
    for verb in ("filter", "count", "indexes"):
        call = getattr(df.sf, verb)
        with pytest.raises(TypeError, match="list of mappings is empty"):
            call([])
        with pytest.raises(TypeError, match="mapping 1 of the list is empty"):
            call([{"a": (1, 2)}, {}])
        with pytest.raises(TypeError, match="item 1 of the list must be a mapping"):
            call([{"a": (1, 2)}, ("b", (1, 2))])
        with pytest.raises(TypeError, match=r"keywords do not combine.*\['b'\]"):
            call([{"a": (1, 2)}], b=(1, 2))
        with pytest.raises(KeyError, match="nope.*no column, nor index level"):
            call([{"a": (1, 2)}, {"nope": (1, 2)}])
        with pytest.raises(TypeError, match="the range of 'b' must be a pair"):
            call([{"a": (1, 2)}, {"b": 5}])
        with pytest.raises(TypeError, match="invert must be True, False or None, not 'yes'"):
            call(a=(1, 2), invert="yes")
        with pytest.raises(TypeError, match=r"mapping: filter\(\{'invert': \(0, 1\)\}\)"):
            call(invert=(0, 1))
    named = pd.DataFrame({"invert": [0, 1, 2]})
    assert named.sf.filter({"invert": (0, 1)}).invert.tolist() == [0, 1]


def test_pandas_series_verbs_refuse_a_truthy_invert():
    # Once, the host's path read invert="yes" as True (a column no kernel reads
    # too); it is the functions' TypeError everywhere.
    for s in (pd.Series([1.0, 5.0, np.nan]), pd.Series(["a", "b"], dtype=object)):
        for verb in ("between", "filter", "count", "indexes"):
            with pytest.raises(TypeError, match="invert must be"):
                getattr(s.sf, verb)(0, 2, invert="yes")


# ---- Polars -----------------------------------------------------------------------


def _polars():
    pl = pytest.importorskip("polars", reason="polars is not installed")
    import simdfilter.polars  # noqa: F401  (registers .sf)

    return pl


@st.composite
def polars_queries(draw):
    pl = _polars()
    n = draw(st.integers(0, 40))
    ints = draw(st.lists(st.one_of(st.none(), st.integers(-5, 60)), min_size=n, max_size=n))
    floats = draw(
        st.lists(
            st.one_of(st.none(), st.just(float("nan")), st.floats(-10, 10, allow_nan=False)),
            min_size=n,
            max_size=n,
        )
    )
    days = draw(st.lists(st.one_of(st.none(), st.integers(0, 30)), min_size=n, max_size=n))
    words = draw(st.lists(st.one_of(st.none(), st.sampled_from("abcxyz")), min_size=n, max_size=n))
    df = pl.DataFrame(
        {
            "i": pl.Series(ints, dtype=pl.Int32),
            "f": pl.Series(floats, dtype=pl.Float64),
            "t": pl.Series(
                [
                    None if d is None else dt.datetime(2020, 1, 1) + dt.timedelta(days=d)
                    for d in days
                ],
                dtype=pl.Datetime("us"),
            ),
            "s": pl.Series(words, dtype=pl.String),  # no kernel: Polars compares it
        }
    )
    if n > 2 and draw(st.booleans()):  # two chunks
        df = pl.concat([df[: n // 2], df[n // 2 :]], rechunk=False)

    def bound(label):
        if label == "i":
            return draw(st.one_of(st.none(), st.integers(-5, 60)))
        if label == "f":
            return draw(st.one_of(st.none(), st.floats(-10, 10, allow_nan=False)))
        if label == "t":
            day = draw(st.integers(0, 30))
            return draw(st.sampled_from([None, dt.datetime(2020, 1, 1) + dt.timedelta(days=day)]))
        return draw(st.one_of(st.none(), st.sampled_from("abcxyz")))

    mappings = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(df.columns), min_size=1, max_size=3, unique=True))
        mappings.append({c: (bound(c), bound(c)) for c in chosen})
    return df, mappings, draw(st.sampled_from(INCLUSIVE)), draw(st.booleans())


def _polars_between(name, lo, hi, inclusive, is_float):
    """is_between, a None end unbounded (the one comparison left, NaN out of range
    there as the kernels have it: Polars orders NaN above every number); a str
    bound a value, as the frame verbs read it."""
    pl = _polars()
    col, closed = pl.col(name), CLOSED[inclusive]
    lo, hi = (pl.lit(b) if isinstance(b, str) else b for b in (lo, hi))
    if lo is not None and hi is not None:
        return col.is_between(lo, hi, closed=closed)
    if lo is None and hi is None:
        m = col == col
    elif lo is not None:
        m = col >= lo if inclusive in ("both", "left") else col > lo
    else:
        m = col <= hi if inclusive in ("both", "right") else col < hi
    return m & ~col.is_nan() if is_float else m


def _polars_idiom(df, mappings, inclusive, invert):
    """The expression of df.filter(~((e1 & e2) | e3)), Polars' Kleene logic."""
    mask = None
    for mapping in mappings:
        term = None
        for name, (lo, hi) in mapping.items():
            e = _polars_between(name, lo, hi, inclusive, df[name].dtype.is_float())
            term = e if term is None else term & e
        mask = term if mask is None else mask | term
    return ~mask if invert else mask


@settings(max_examples=examples(120), deadline=None, suppress_health_check=list(HealthCheck))
@given(query=polars_queries())
def test_polars_or_and_invert_are_the_filter_idiom(query):
    pl = _polars()
    from polars.testing import assert_frame_equal

    df, mappings, inclusive, invert = query
    mask = _polars_idiom(df, mappings, inclusive, invert)
    want = df.filter(mask)
    rows = df.with_row_index("_row").filter(mask)["_row"].to_list()
    closed = CLOSED[inclusive]
    ranges = mappings if len(mappings) > 1 else mappings[0]
    assert_frame_equal(df.sf.filter(ranges, closed, invert=invert), want)
    assert df.sf.count(ranges, closed, invert=invert) == want.height
    assert df.sf.indexes(mappings, closed, invert=invert).to_list() == rows
    lf = df.lazy()
    assert_frame_equal(lf.sf.filter(ranges, closed, invert=invert).collect(), want)
    assert lf.sf.count(ranges, closed, invert=invert).collect().item() == want.height
    assert lf.sf.indexes(mappings, closed, invert=invert).collect()["index"].to_list() == rows
    assert_frame_equal(lf.filter(lf.sf.mask(ranges, closed, invert=invert)).collect(), want)
    assert isinstance(lf.sf.filter(ranges, closed, invert=invert), pl.LazyFrame)


def test_polars_lazy_verbs_stay_lazy_and_name_their_columns():
    pl = _polars()
    lf = pl.LazyFrame({"a": [1, 5, None, 9], "b": [0.5, 2.0, 3.0, float("nan")]})
    for verb in ("filter", "count", "indexes"):
        assert isinstance(getattr(lf.sf, verb)(a=(0, 6)), pl.LazyFrame)
    assert isinstance(lf.sf.mask(a=(0, 6)), pl.Expr)
    count = lf.sf.count([{"a": (0, 2)}, {"b": (2.5, 5)}]).collect()
    assert count.columns == ["count"] and count.dtypes == [pl.get_index_type()]
    assert (
        count.item()
        == lf.filter(pl.col("a").is_between(0, 2) | pl.col("b").is_between(2.5, 5)).collect().height
    )
    idx = lf.sf.indexes(b=(0, 2.5), invert=True).collect()
    assert idx.columns == ["index"] and idx["index"].to_list() == [2, 3]  # NaN is outside
    # a lazy frame with a column called "index": its positions are still "index", alone
    assert lf.rename({"a": "index"}).sf.indexes(index=(0, 6)).collect()["index"].to_list() == [0, 1]


def test_polars_missing_columns_name_the_column():
    pl = _polars()
    df = pl.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError) as theirs:
        df.lazy().filter(pl.col("nope").is_between(0, 1) | pl.col("a").is_between(0, 1)).collect()
    for ranges in ([{"a": (1, 2)}, {"nope": (0, 1)}], {"nope": (0, 1)}):
        with pytest.raises(type(theirs.value), match="nope"):
            df.sf.filter(ranges)
        with pytest.raises(KeyError, match="nope"):
            df.sf.count(ranges, invert=True)
        plan = df.lazy().sf.filter(ranges)  # lazy: Polars' own error, when collected
        with pytest.raises(type(theirs.value), match="nope"):
            plan.collect()
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="by str"):
        df.lazy().sf.filter({1: (0, 1)})


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_polars_bad_queries_raise_clear_errors(lazy):
    pl = _polars()
    df = pl.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]})
    frame = df.lazy() if lazy else df
    for verb in ("filter", "count", "indexes"):
        call = getattr(frame.sf, verb)
        with pytest.raises(TypeError, match="list of mappings is empty"):
            call([])
        with pytest.raises(TypeError, match="mapping 0 of the list is empty"):
            call([{}])
        with pytest.raises(TypeError, match="item 0 of the list must be a mapping"):
            call(["a"])
        with pytest.raises(TypeError, match="keywords do not combine"):
            call([{"a": (1, 2)}], b=(1, 2))
        with pytest.raises(TypeError, match="invert must be True, False or None"):
            call(a=(1, 2), invert=1)
        with pytest.raises(TypeError, match=r"\{'invert': \(0, 1\)\}"):
            call(invert=(0, 1))
        with pytest.raises(TypeError, match=r"\{'closed': \(0, 1\)\}"):
            call(closed=(0, 1))


def test_polars_empty_frames():
    pl = _polars()
    df = pl.DataFrame({"a": pl.Series([], dtype=pl.Int64), "b": pl.Series([], dtype=pl.Float64)})
    for invert in (False, True):
        for ranges in ({"a": (1, 2)}, [{"a": (1, 2)}, {"b": (0.0, None)}]):
            assert df.sf.filter(ranges, invert=invert).height == 0
            assert df.sf.count(ranges, invert=invert) == 0
            assert df.lazy().sf.count(ranges, invert=invert).collect().item() == 0
            assert df.lazy().sf.indexes(ranges, invert=invert).collect().height == 0


def test_polars_expression_verbs_invert_as_not():
    pl = _polars()
    from polars.testing import assert_series_equal

    df = pl.DataFrame(
        {
            "x": [1.5, None, float("nan"), -3.0, 7.0, 2.0],
            "g": ["a", "a", "b", "b", "b", "a"],
        }
    )
    x = pl.col("x")
    for lo, hi in [(0, 3), (None, 2.0), (pl.lit(0.0), 3)]:  # the last: Polars' own path
        ours = df.select(x.sf.between(lo, hi, invert=True)).to_series()
        if lo is None:
            theirs = ~((x <= hi) & ~x.is_nan())
        else:
            theirs = ~x.is_between(lo, hi)
        assert ours.to_list() == df.select(theirs).to_series().to_list()
        keep = df.select(theirs).to_series().fill_null(False)
        got = df.select(x.sf.filter(lo, hi, invert=True)).to_series()
        assert_series_equal(got, df["x"].filter(keep))  # NaN kept: equal as Polars has it
        got = df.select(x.sf.indexes(lo, hi, invert=True)).to_series()
        assert got.to_list() == keep.arg_true().to_list()
        assert df.select(x.sf.count(lo, hi, invert=True)).item() == keep.sum()
    grouped = df.group_by("g", maintain_order=True).agg(x.sf.count(0, 3, invert=True))
    assert grouped.rows() == [("a", 0), ("b", 3)]  # NaN, -3 and 7 are outside
    with pytest.raises(TypeError, match="invert must be"):
        x.sf.between(0, 1, invert="yes")
    with pytest.raises(TypeError, match="invert must be"):
        x.sf.count(0, 1, invert=[True])


def test_polars_series_between_inverts_as_not():
    pl = _polars()
    from polars.testing import assert_series_equal

    s = pl.Series("x", [1.5, None, float("nan"), -3.0, 7.0, 2.0])
    assert_series_equal(s.sf.between(0, 3, invert=True), ~s.is_between(0, 3))
    strings = pl.Series("s", ["a", None, "q"])  # no kernel: Polars' own
    assert_series_equal(strings.sf.between("b", "z", invert=True), ~strings.is_between("b", "z"))
    with pytest.raises(TypeError, match="invert must be"):
        s.sf.between(0, 3, invert="yes")


def test_polars_typed_entry_gives_the_lazy_namespace():
    pl = _polars()
    from simdfilter.polars import LazyFrameNamespace, sf

    lf = pl.LazyFrame({"a": [1, 2]})
    ns = sf(lf)
    assert isinstance(ns, LazyFrameNamespace)
    assert ns.count(a=(2, 9)).collect().item() == 1


# ---- Dask -------------------------------------------------------------------------


def test_dask_or_invert_and_the_index_name():
    dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed")
    import dask

    import simdfilter.dask  # noqa: F401  (registers .sf)

    df = pd.DataFrame(
        {
            "a": pd.array([1, None, 9, 3, 5, 2] * 4, dtype="Int64"),
            "b": [0.5, np.nan, 7.0, 2.0, None, 1.0] * 4,
        },
        index=pd.Index(range(24), name="id"),
    )
    ddf = dd.from_pandas(df, npartitions=3)
    ranges = [{"a": (2, 6), "b": (0, 3)}, {"id": (10, 12)}]
    ids = df.index.to_series()
    mask = (df.a.between(2, 6) & df.b.between(0, 3)) | ids.between(10, 12)
    with dask.config.set(scheduler="synchronous"):
        for invert in (False, True):
            want = df[(~mask if invert else mask).to_numpy(dtype=bool, na_value=False)]
            pdt.assert_frame_equal(ddf.sf.filter(ranges, invert=invert).compute(), want)
            assert ddf.sf.count(ranges, invert=invert).compute() == len(want)
        pdt.assert_series_equal(ddf.a.sf.between(2, 6, invert=True).compute(), ~df.a.between(2, 6))
    with pytest.raises(KeyError, match="nope"):
        ddf.sf.filter([{"a": (1, 2)}, {"nope": (1, 2)}])
    with pytest.raises(TypeError, match="list of mappings is empty"):
        ddf.sf.count([])
    with pytest.raises(TypeError, match="invert must be"):
        ddf.sf.filter(a=(1, 2), invert="yes")
