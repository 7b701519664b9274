"""``df.sf.filter`` in one pass (issue 42 item 5): a query of one mapping, not
inverted, on a frame whose every column is NumPy-backed with 1, 2, 4 or 8-byte
elements, goes to ``_core._filter_rows`` (lib/frame.c: each block of rows read
once for the ranges and taken from while cached). Its rows are pandas' own:
``df[mask]`` and ``df.iloc[np.flatnonzero(mask)]``, with the index, labels,
dtypes (byte order too) and attrs, NaN and NaT outside every range. Anything
else (a list of mappings, ``invert=True``, another column kind, bounds pandas
compares its own way) takes the positions' way, which the other frame tests
hold."""

import decimal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agree import pandas_between
from conftest import examples

pd = pytest.importorskip("pandas", reason="pandas is not installed")
pdt = pytest.importorskip("pandas.testing")
import simdfilter  # noqa: E402
import simdfilter.pandas  # noqa: E402,F401  (registers .sf)

INCLUSIVE = ("both", "left", "right", "neither")
DAY0 = np.datetime64("2020-01-01", "ns")
KINDS = ("i8", "u2", "i4", "f8", "f4", ">i8", ">f8", "b", "M", "m")


@pytest.fixture
def one_pass_calls(monkeypatch):
    """The calls that went to ``_core._filter_rows`` (and what they answered)."""
    calls = []
    real = simdfilter._core._filter_rows

    def spy(*args):
        try:
            got = real(*args)
        except Exception as exc:
            calls.append(exc)
            raise
        calls.append(got)
        return got

    monkeypatch.setattr(simdfilter._core, "_filter_rows", spy)
    return calls


def _column(draw, kind, n):
    ints = draw(st.lists(st.integers(0, 20), min_size=n, max_size=n))
    holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if kind == "b":
        return np.array([x % 2 == 0 for x in ints])
    if kind == "M":
        t = DAY0 + np.array(ints, dtype="m8[D]").astype("m8[ns]")
        t[np.array(holes, dtype=bool) & (np.array(ints) > 17)] = np.datetime64("NaT", "ns")
        return t
    if kind == "m":
        return np.array(ints, dtype="m8[s]")
    a = np.array(ints).astype(kind)
    if a.dtype.kind == "f":
        a[np.array(holes, dtype=bool) & (np.array(ints) > 17)] = np.nan
    return a


def _bound(draw, kind):
    x = draw(st.one_of(st.none(), st.integers(-1, 21)))
    if x is None:
        return None
    if kind == "b":
        return bool(x % 2)
    if kind == "M":
        day = str(DAY0 + np.timedelta64(x, "D"))[:10]
        return draw(st.sampled_from([pd.Timestamp(day), day]))  # strings as pandas reads them
    if kind == "m":
        return pd.Timedelta(seconds=x)
    if "f" in kind:
        return x + draw(st.sampled_from([0.0, 0.5]))
    return x


@st.composite
def frames(draw):
    n = draw(st.integers(0, 60))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))
    df = pd.DataFrame({f"c{j}": _column(draw, k, n) for j, k in enumerate(kinds)})
    if draw(st.booleans()):  # a column that is a strided view of a 2-d block
        block = np.arange(2 * n, dtype=np.int64).reshape(n, 2) % 23
        df["s"] = block[:, 1]
        kinds.append("i8")
    index = draw(st.sampled_from(["range", "ints", "level"]))
    if index == "ints":
        df.index = pd.Index(np.arange(n)[::-1] * 3, name="k")
    elif index == "level":
        df.index = pd.MultiIndex.from_arrays(
            [np.arange(n) % 7, np.arange(n).astype(str)], names=["lvl", None]
        )
    labels = list(df.columns) + (["lvl"] if index == "level" else [])
    chosen = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=3, unique=True))
    kind_of = dict(zip(df.columns, kinds), lvl="i8")
    mapping = {c: (_bound(draw, kind_of[c]), _bound(draw, kind_of[c])) for c in chosen}
    return df, mapping, draw(st.sampled_from(INCLUSIVE))


def _values(df, label):
    if label in df.columns:
        return df[label]
    return pd.Series(df.index.get_level_values(label), index=df.index)


def _idiom(df, mapping, inclusive):
    mask = np.ones(len(df), dtype=bool)
    for label, (lo, hi) in mapping.items():
        mask &= pandas_between(_values(df, label), lo, hi, inclusive).to_numpy(dtype=bool)
    return mask


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(query=frames())
def test_one_pass_rows_are_the_mask_idiom(query):
    df, mapping, inclusive = query
    mask = _idiom(df, mapping, inclusive)
    got = df.sf.filter(mapping, inclusive)
    idx = np.flatnonzero(mask)
    if any(d.byteorder == ">" for d in df.dtypes):  # pandas' take refuses those
        want = pd.DataFrame({c: df[c].to_numpy()[idx] for c in df.columns}, index=df.index[idx])
    else:
        want = df.iloc[idx]
        pdt.assert_frame_equal(got, df[mask])
    pdt.assert_frame_equal(got, want)
    assert [d.str for d in got.dtypes] == [d.str for d in df.dtypes]


def test_the_one_pass_is_taken_and_left(one_pass_calls):
    df = pd.DataFrame({"a": np.arange(10), "b": np.linspace(0, 1, 10), "c": np.arange(10) % 3})
    df.attrs["source"] = "test"
    got = df.sf.filter(a=(2, 8), c=(0, 1))
    pdt.assert_frame_equal(got, df[df.a.between(2, 8) & df.c.between(0, 1)])
    assert got.attrs == {"source": "test"}
    assert len(one_pass_calls) == 1 and isinstance(one_pass_calls[0], tuple)
    # the positions' way: an OR of mappings, invert=True, a column no kernel reads
    # or the take does not copy, bounds pandas compares itself
    df.sf.filter([{"a": (2, 8)}, {"c": (0, 0)}])
    df.sf.filter(a=(2, 8), invert=True)
    df.assign(s=list("abcdefghij")).sf.filter(a=(2, 8))
    df.sf.filter(b=(decimal.Decimal("0.25"), 1))
    assert len(one_pass_calls) == 1
    # a query the binding refuses (an Arrow-backed index level) falls back
    pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    arrow = df.set_index(pd.Index(pd.array(np.arange(10), dtype="int64[pyarrow]"), name="k"))
    pdt.assert_frame_equal(arrow.sf.filter(k=(3, 5), a=(0, 4)), arrow.iloc[[3, 4]])
    assert len(one_pass_calls) == 2 and isinstance(one_pass_calls[1], TypeError)


@pytest.mark.parametrize("rows", [4095, 4096, 70_001])
def test_one_pass_across_blocks(rows, one_pass_calls):
    """Frames of several blocks of rows, every selectivity from none to all."""
    rng = np.random.default_rng(rows)
    df = pd.DataFrame(
        {
            "a": rng.integers(0, 100, rows),
            "b": rng.random(rows),
            "c": rng.integers(0, 5, rows).astype(np.uint8),
            "t": DAY0 + rng.integers(0, 10**9, rows).astype("m8[ns]"),
        }
    )
    for hi in (-1, 0, 10, 50, 99):
        for mapping in ({"a": (0, hi)}, {"a": (0, hi), "b": (0.2, 0.9), "c": (1, 4)}):
            mask = _idiom(df, mapping, "both")
            pdt.assert_frame_equal(df.sf.filter(mapping), df[mask])
    assert len(one_pass_calls) == 10


def test_filter_rows_refuses_what_it_does_not_take():
    core = simdfilter._core
    a = np.arange(10)
    u32 = np.dtype(np.uint32)
    pos, (taken,) = core._filter_rows([(a, 2, 4)], "both", [a], 10, u32)
    assert pos.tolist() == [2, 3, 4] and taken.tolist() == [2, 3, 4] and pos.dtype == u32
    with pytest.raises(TypeError, match="one NumPy run"):
        core._filter_rows([(a.reshape(2, 5), 2, 4)], "both", [a], 10, u32)
    with pytest.raises(TypeError, match="one NumPy run"):
        core._filter_rows([(a[:5], 2, 4)], "both", [a], 10, u32)
    with pytest.raises(TypeError, match="column 0"):
        core._filter_rows([(a, 2, 4)], "both", [a.astype(object)], 10, u32)
    with pytest.raises(ValueError, match="1 to 64 queries"):
        core._filter_rows([], "both", [a], 10, u32)
    with pytest.raises(TypeError, match="index_dtype"):
        core._filter_rows([(a, 2, 4)], "both", [a], 10, np.dtype(np.int32))
    with pytest.raises(ValueError):
        core._filter_rows([(a, 2, 4)], "sideways", [a], 10, u32)
    with pytest.raises(TypeError):
        core._filter_rows([(a, "x", 4)], "both", [a], 10, u32)
    pos, (taken,) = core._filter_rows([(a, 5, 4)], "both", [a], 10, np.dtype(np.int64))
    assert pos.tolist() == [] and pos.dtype == np.int64 and taken.dtype == a.dtype
    # most=: None where a sample (from 65,536 rows on) keeps more of the rows
    big = np.arange(1 << 16) % 100
    assert core._filter_rows([(big, 0, 49)], "both", [big], len(big), u32, 0.25) is None
    pos, _ = core._filter_rows([(big, 0, 9)], "both", [big], len(big), u32, 0.25)
    assert len(pos) == np.count_nonzero(big <= 9)
    assert len(core._filter_rows([(a, 0, 9)], "both", [a], 10, u32, 0.0)[0]) == 10  # no sample


# ---- Polars: df.sf.filter of numbers in one chunk, without nulls --------------------

PL_KINDS = ("i8", "u1", "i4", "u8", "f8", "f4")


def _polars():
    """Polars with its .sf namespace registered, or a skip saying why."""
    pl = pytest.importorskip("polars", reason="polars is not installed")
    import simdfilter.polars  # noqa: F401

    return pl


@st.composite
def polars_frames(draw):
    pl = _polars()
    n = draw(st.integers(0, 60))
    kinds = draw(st.lists(st.sampled_from(PL_KINDS), min_size=1, max_size=4))
    df = pl.DataFrame({f"c{j}": _column(draw, k, n) for j, k in enumerate(kinds)})
    chosen = draw(st.lists(st.sampled_from(df.columns), min_size=1, max_size=3, unique=True))
    kind_of = dict(zip(df.columns, kinds))
    mapping = {c: (_bound(draw, kind_of[c]), _bound(draw, kind_of[c])) for c in chosen}
    return df, mapping, draw(st.sampled_from(("both", "left", "right", "none")))


def _polars_idiom(pl, df, mapping, closed):
    """df.filter(e1 & e2 ...), a None end unbounded (the comparison the other end
    leaves), NaN out of every range as the kernels have it (Polars orders NaN
    above every number)."""
    expr = pl.lit(True)
    for name, (lo, hi) in mapping.items():
        c = pl.col(name)
        if lo is not None:
            expr = expr & (c >= lo if closed in ("both", "left") else c > lo)
        if hi is not None:
            expr = expr & (c <= hi if closed in ("both", "right") else c < hi)
        if df[name].dtype.is_float():
            expr = expr & c.is_not_nan()
    return df.filter(expr)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=list(HealthCheck))
@given(query=polars_frames())
def test_polars_one_pass_rows_are_the_filter_idiom(query):
    pl = _polars()
    df, mapping, closed = query
    got = df.sf.filter(mapping, closed)
    want = _polars_idiom(pl, df, mapping, closed)
    assert got.schema == want.schema
    assert got.equals(want), (got, want)


def test_polars_the_one_pass_is_taken_and_left(one_pass_calls):
    pl = _polars()
    df = pl.DataFrame({"a": np.arange(10), "b": np.linspace(0, 1, 10), "c": np.arange(10) % 3})
    df = df.with_columns(pl.col("a").alias("s").set_sorted())
    expr = pl.col("a").is_between(2, 8) & pl.col("c").is_between(0, 1)
    got = df.sf.filter({"a": (2, 8), "c": (0, 1)})
    assert got.equals(df.filter(expr)) and got["s"].flags["SORTED_ASC"]  # as filter keeps it
    assert len(one_pass_calls) == 1 and isinstance(one_pass_calls[0], tuple)
    # the positions' way: an OR, invert=True, a sorted column queried (a binary
    # search), nulls, a column of another kind
    assert df.sf.filter([{"a": (2, 8)}, {"c": (0, 0)}]).height == 9
    assert df.sf.filter({"a": (2, 8)}, invert=True).height == 3
    assert df.sf.filter({"s": (2, 8)}).height == 7
    nulls = df.with_columns(pl.when(pl.col("a") > 5).then(pl.col("b")).alias("b"))
    assert nulls.sf.filter({"a": (2, 8)}).equals(nulls.filter(pl.col("a").is_between(2, 8)))
    words = df.with_columns(pl.col("a").cast(pl.String).alias("w"))
    assert words.sf.filter({"a": (2, 8)}).height == 7
    assert len(one_pass_calls) == 1


def test_one_pass_keeping_more_rows_than_its_sample_said(one_pass_calls):
    """The outputs are sized by a sample of evenly spaced rows: a query whose
    rows the sample misses runs again, with room for them."""
    n = 1 << 17
    a = np.ones(n, dtype=np.int64)
    a[:: n // 1024] = 0  # every sampled row out of range
    df = pd.DataFrame({"a": a, "b": np.arange(n, dtype=np.float64)})
    got = df.sf.filter(a=(1, 1))
    pdt.assert_frame_equal(got, df[df.a == 1])
    assert len(got) == n - 1024 and len(one_pass_calls) == 1
