"""The pandas ``sf`` accessor against pandas' own expressions, on every column kind it reads."""

import subprocess
import textwrap

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="pandas is not installed")
try:
    import pyarrow as pa
except ImportError:  # the Arrow-backed kinds skip, saying why; the rest still run
    pa = None
import pandas.testing as pdt  # noqa: E402

import simdfilter  # noqa: E402
import simdfilter.pandas  # noqa: E402,F401
from simdfilter import _conjunction  # noqa: E402

N = 300
INCLUSIVE = ("both", "left", "right", "neither")


def _ints(rng, dtype, n=N):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    return rng.integers(lo, hi, n, endpoint=True).astype(dtype)


def _times(rng, unit, n=N):
    base = np.datetime64("2013-01-01", unit)
    return base + rng.integers(0, 400 * 86400, n).astype("m8[s]").astype(f"m8[{unit}]")


def _with_nulls(rng, n=N):
    return rng.random(n) < 0.1


def make_column(kind, rng):
    """A random Series of the given kind (some with NA), and bounds inside its range."""
    nulls = _with_nulls(rng)
    if kind in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        s = pd.Series(_ints(rng, kind))
    elif kind in ("float32", "float64"):
        a = rng.normal(0, 100, N).astype(kind)
        a[nulls] = np.nan
        s = pd.Series(a)
    elif kind == "bool":
        s = pd.Series(rng.random(N) < 0.5)
    elif kind in ("datetime64[ns]", "datetime64[us]", "datetime64[s]"):
        unit = kind[11:-1]
        a = _times(rng, unit)
        a[nulls] = np.datetime64("NaT", unit)
        s = pd.Series(a)
    elif kind == "timedelta64[ns]":
        a = rng.integers(0, 10**12, N).astype("m8[ns]")
        a[nulls] = np.timedelta64("NaT", "ns")
        s = pd.Series(a)
    elif kind.startswith("tz:"):
        s = pd.Series(_times(rng, "ns")).dt.tz_localize("UTC").dt.tz_convert(kind[3:]).copy()
        s[nulls] = pd.NaT
    elif kind in ("Int8", "Int64", "UInt16", "UInt64"):
        s = pd.Series(pd.array(_ints(rng, kind.lower()), dtype=kind))
        s[nulls] = pd.NA
    elif kind in ("Float32", "Float64"):
        s = pd.Series(pd.array(rng.normal(0, 100, N).astype(kind.lower()), dtype=kind))
        s[nulls] = pd.NA
    elif kind == "boolean":
        s = pd.Series(pd.array(rng.random(N) < 0.5, dtype="boolean"))
        s[nulls] = pd.NA
    elif kind.endswith("[pyarrow]"):
        pa_type = {
            "int64[pyarrow]": pa.int64(),
            "uint8[pyarrow]": pa.uint8(),
            "double[pyarrow]": pa.float64(),
            "timestamp[pyarrow]": pa.timestamp("us"),
            "timestamptz[pyarrow]": pa.timestamp("ns", tz="Europe/Paris"),
        }[kind]
        if pa.types.is_timestamp(pa_type):
            values = _times(rng, pa_type.unit).astype(np.int64)
        elif pa.types.is_floating(pa_type):
            values = rng.normal(0, 100, N)
        else:
            values = _ints(rng, pa_type.to_pandas_dtype())
        arr = (
            pa.array(values, mask=nulls).cast(pa_type)
            if not pa.types.is_timestamp(pa_type)
            else pa.array(values, type=pa.int64(), mask=nulls).cast(pa_type)
        )
        s = pd.Series(pd.arrays.ArrowExtensionArray(arr))
    else:
        raise AssertionError(kind)
    s.index = pd.RangeIndex(10, 10 + 3 * N, 3)  # an index that is not the positions
    s.name = "col"
    valid = s.dropna().sort_values()
    lo, hi = valid.iloc[len(valid) // 4], valid.iloc[3 * len(valid) // 4]
    if kind == "bool" or kind == "boolean":
        lo, hi = True, True
    return s, lo, hi


KINDS = [
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float32",
    "float64",
    "bool",
    "datetime64[ns]",
    "datetime64[us]",
    "datetime64[s]",
    "timedelta64[ns]",
    "tz:America/New_York",
    "tz:Asia/Kolkata",
    "Int8",
    "Int64",
    "UInt16",
    "UInt64",
    "Float32",
    "Float64",
    "boolean",
    "int64[pyarrow]",
    "uint8[pyarrow]",
    "double[pyarrow]",
    "timestamp[pyarrow]",
    "timestamptz[pyarrow]",
]


def _expected_positions(s, lo, hi, inclusive):
    mask = s.between(lo, hi, inclusive=inclusive)
    return np.flatnonzero(mask.fillna(False).astype(bool).to_numpy())


def _need_arrow(kind):
    if "pyarrow" in kind and pa is None:
        pytest.skip("pyarrow is not installed: no Arrow-backed columns to test")


@pytest.mark.parametrize("kind", KINDS)
def test_every_verb_matches_pandas(kind, kernel, rng):
    _need_arrow(kind)
    s, lo, hi = make_column(kind, rng)
    # Every `inclusive` on the best kernel; one per kind on the others (they
    # rotate over the kinds), to keep the suite fast.
    rotate = INCLUSIVE[KINDS.index(kind) % 4 :][:1]
    for inclusive in INCLUSIVE if kernel == simdfilter.default_kernel() else rotate:
        expected = s.between(lo, hi, inclusive=inclusive)
        pdt.assert_series_equal(s.sf.between(lo, hi, inclusive), expected)
        pdt.assert_series_equal(s.sf.filter(lo, hi, inclusive), s[expected])
        assert s.sf.count(lo, hi, inclusive) == int(expected.sum())
        np.testing.assert_array_equal(
            s.sf.indexes(lo, hi, inclusive), _expected_positions(s, lo, hi, inclusive)
        )


@pytest.mark.parametrize(
    "kind",
    [
        "datetime64[ns]",
        "tz:America/New_York",
        "tz:Asia/Kolkata",
        "timestamptz[pyarrow]",
        "timestamp[pyarrow]",
    ],
)
def test_string_bounds_on_datetime_columns_read_as_pandas_reads_them(kind, rng):
    _need_arrow(kind)
    s, _, _ = make_column(kind, rng)
    for lo, hi in [
        ("2013-03-01", "2013-04-01"),
        ("2013-03-01 05:30", "2013-11-03 01:30"),
        ("2013-06-01", None),
    ]:
        try:
            if kind.endswith("[pyarrow]"):  # pandas refuses strings there: say them as Timestamps
                zone = s.dtype.pyarrow_dtype.tz
                expected = s.between(*(pd.Timestamp(b or "2100-01-01", tz=zone) for b in (lo, hi)))
            else:
                expected = s.between(lo, hi if hi is not None else "2100-01-01")
        except Exception as exc:  # 01:30 on 2013-11-03 happens twice in New York: pandas refuses
            with pytest.raises(type(exc)):
                s.sf.between(lo, hi)
            with pytest.raises(type(exc)):
                s.sf.count(lo, hi)
            continue
        pdt.assert_series_equal(s.sf.between(lo, hi), expected)
        assert s.sf.count(lo, hi) == int(expected.sum())


def test_nan_never_matches_and_none_is_unbounded():
    s = pd.Series([np.nan, 1.0, 5.0, np.inf, -np.inf])
    np.testing.assert_array_equal(s.sf.indexes(None, None), [1, 2, 3, 4])
    np.testing.assert_array_equal(s.sf.indexes(2, None), [2, 3])
    assert s.sf.count(np.nan, 10) == 0 == int(s.between(np.nan, 10).sum())


@pytest.mark.parametrize(
    "make",
    [
        lambda: pd.Series(["b", "a", None, "d", "c"], dtype=object),
        lambda: pd.Series(["b", "a", None, "d", "c"], dtype="string"),
        pytest.param(
            lambda: pd.Series(["b", "a", None, "d", "c"], dtype="string[pyarrow]"),
            marks=pytest.mark.skipif(pa is None, reason="pyarrow is not installed"),
        ),
        lambda: pd.Series(pd.Categorical([3, 1, 2, 5, 4], ordered=True)),
        lambda: pd.Series(pd.period_range("2013-01", periods=5, freq="M")),
        lambda: pd.Series([1, "x", 3.5, None, 2], dtype=object),
    ],
    ids=["object", "string", "string-arrow", "categorical", "period", "mixed-object"],
)
def test_columns_no_kernel_reads_are_computed_by_pandas(make):
    s = make()
    valid = s.dropna()
    lo, hi = valid.iloc[0], valid.iloc[-1]
    if isinstance(s.dtype, pd.PeriodDtype):
        lo, hi = pd.Period("2013-02", "M"), pd.Period("2013-04", "M")
    try:
        expected = s.between(lo, hi)
    except TypeError as exc:  # mixed objects: pandas refuses, so must the drop-in
        with pytest.raises(TypeError, match=str(exc)[:20]):
            s.sf.between(lo, hi)
        return
    pdt.assert_series_equal(s.sf.between(lo, hi), expected)
    pdt.assert_series_equal(s.sf.filter(lo, hi), s[expected])
    assert s.sf.count(lo, hi) == int(expected.sum())
    with pytest.raises(TypeError):
        s.sf.indexes(lo, hi)


def test_interval_column_is_computed_by_pandas():
    s = pd.Series(pd.interval_range(0, 5))
    with pytest.raises(TypeError):
        s.sf.indexes(0, 3)
    with pytest.raises(TypeError) as exc:
        s.between(0, 3)
    with pytest.raises(type(exc.value)):
        s.sf.between(0, 3)


@pytest.mark.parametrize("inclusive", ["all", None, "BOTH", 1])
def test_bad_inclusive_is_the_value_error_pandas_raises(inclusive):
    s = pd.Series([1, 2, 3])
    with pytest.raises(ValueError) as theirs:
        s.between(1, 2, inclusive=inclusive)
    for verb in ("between", "filter", "count", "indexes"):
        with pytest.raises(ValueError, match=str(theirs.value)[:30]):
            getattr(s.sf, verb)(1, 2, inclusive)
    df = pd.DataFrame({"a": s})
    with pytest.raises(ValueError):
        df.sf.filter(inclusive=inclusive, a=(1, 2))


def test_bad_bounds_raise_what_pandas_raises():
    s = pd.Series(pd.date_range("2013-01-01", periods=4, tz="UTC"))
    naive = pd.Timestamp("2013-01-02")
    for bound in (naive, naive.to_datetime64(), naive.to_pydatetime()):
        with pytest.raises(TypeError):
            s.between(bound, bound)
        for verb in ("between", "filter", "count", "indexes"):
            with pytest.raises(TypeError):
                getattr(s.sf, verb)(bound, bound)
    with pytest.raises(TypeError):
        pd.Series([1, 2]).sf.indexes("a", "b")


def make_frame(rng, n=2000):
    df = pd.DataFrame(
        {
            "dep_delay": pd.array(rng.integers(-20, 200, n), dtype="Int64"),
            "distance": rng.gamma(2, 500, n),
            "time_hour": pd.Series(_times(rng, "ns", n))
            .dt.tz_localize("UTC")
            .dt.tz_convert("America/New_York"),
            "carrier": rng.choice(["AA", "B6", "UA", "DL"], n),
        },
        index=pd.RangeIndex(0, 2 * n, 2),
    )
    seats = rng.integers(50, 400, n)
    if pa is not None:  # an Arrow-backed column with nulls, in two chunks (the second
        # starts at a bit offset that is not a byte's)
        seats = pa.array(seats, mask=rng.random(n) < 0.05)
        cut = n // 3 + 3
        chunks = pa.chunked_array([seats.slice(0, cut), seats.slice(cut)])
        seats = pd.arrays.ArrowExtensionArray(chunks)
    df["seats"] = pd.Series(seats, index=df.index)
    df.loc[rng.random(n) < 0.1, "dep_delay"] = pd.NA
    df.loc[rng.random(n) < 0.05, "distance"] = np.nan
    return df


QUERIES = [
    dict(dep_delay=(15, 60)),
    dict(dep_delay=(15, 60), time_hour=("2013-03-01", "2013-06-01")),
    dict(distance=(None, 800), seats=(100, None), dep_delay=(0, None)),
    dict(carrier=("B6", "DL"), distance=(200, 2000)),  # a column pandas evaluates
    dict(dep_delay=(1000, 2000), distance=(0, 1)),  # nothing left after the first
]


def _pandas_rows(df, inclusive, ranges):
    """df[df.a.between(...) & ...], a None end written as the one comparison it leaves."""
    mask = pd.Series(True, index=df.index)
    for name, (lo, hi) in ranges.items():
        col = df[name]
        if lo is not None and hi is not None:
            m = col.between(lo, hi, inclusive=inclusive)
        elif lo is not None:
            m = col >= lo if inclusive in ("both", "left") else col > lo
        else:
            m = col <= hi if inclusive in ("both", "right") else col < hi
        mask &= m.fillna(False).astype(bool)
    return df[mask]


@pytest.mark.parametrize("ranges", QUERIES, ids=lambda r: "+".join(r))
def test_dataframe_filter_equals_the_boolean_mask_idiom(ranges, kernel, rng):
    df = make_frame(rng)
    for inclusive in INCLUSIVE:
        expected = _pandas_rows(df, inclusive, ranges)
        pdt.assert_frame_equal(df.sf.filter(inclusive=inclusive, **ranges), expected)
        if "carrier" in ranges:
            with pytest.raises(TypeError, match="carrier"):
                df.sf.indexes(inclusive=inclusive, **ranges)
        else:
            np.testing.assert_array_equal(
                df.sf.indexes(inclusive=inclusive, **ranges), df.index.get_indexer(expected.index)
            )


def test_dataframe_result_does_not_depend_on_the_evaluation_order(rng, monkeypatch):
    # Above the size where the accessor estimates selectivities and reorders.
    df = make_frame(rng, n=_conjunction.ORDER_MIN_ROWS + 10)
    ranges = dict(dep_delay=(15, 60), distance=(100, 300), time_hour=("2013-03-01", "2013-06-01"))
    expected = _pandas_rows(df, "both", ranges)
    pdt.assert_frame_equal(df.sf.filter(**ranges), expected)
    monkeypatch.setattr(_conjunction, "ORDER_MIN_ROWS", 10**12)  # the order given
    pdt.assert_frame_equal(df.sf.filter(**ranges), expected)
    pdt.assert_frame_equal(df.sf.filter(**dict(reversed(list(ranges.items())))), expected)


@pytest.mark.parametrize("bits_from", [0.0, None, 2.0], ids=["whole", "default", "at-rows"])
def test_dataframe_rows_alike_whether_columns_are_read_whole_or_at_the_rows_left(
    bits_from, rng, whole_column_calls
):
    # Above the size where columns are sampled: BITS_FROM 0 reads every kernel
    # column whole (bits ANDed, the last into positions), 2 each one at the
    # rows left (within=); nullable, NaN, tz-aware, Arrow-with-nulls and string
    # columns in each query.
    df = make_frame(rng, n=_conjunction.ORDER_MIN_ROWS + 1013)
    calls, set_bits_from = whole_column_calls
    set_bits_from(bits_from)
    wide = dict(dep_delay=(-20, 150), distance=(100, 3000), seats=(60, 390))
    for ranges in QUERIES + [wide]:
        for inclusive in ("both", "neither"):
            expected = _pandas_rows(df, inclusive, ranges)
            pdt.assert_frame_equal(df.sf.filter(ranges, inclusive=inclusive), expected)
    if bits_from == 0.0:  # the whole-column path ran, both of its steps
        assert {"_in_range_bits", "_filter_indexes_where"} <= set(calls)
    if bits_from == 2.0:
        assert calls == []


def test_dataframe_errors():
    df = pd.DataFrame({"a": [1, 2, 3], "b": [1.0, 2.0, 3.0]})
    with pytest.raises(KeyError, match="nope"):
        df.sf.filter(a=(1, 2), nope=(0, 1))
    with pytest.raises(KeyError):
        df.sf.indexes(nope=(0, 1))
    with pytest.raises(TypeError):
        df.sf.filter(a=5)
    with pytest.raises(TypeError):
        df.sf.filter()


def test_without_pandas_the_import_names_it(fresh_python):
    code = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "pandas" or name.startswith("pandas."):
                    raise ImportError("blocked: " + name)
        sys.meta_path.insert(0, Block())
        try:
            import simdfilter.pandas
        except ImportError as exc:
            print("ImportError:", exc)
        import simdfilter, numpy as np
        print(simdfilter.count_in_range(np.arange(10), 2, 4))
    """)
    out = subprocess.run(
        [fresh_python, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "ImportError: simdfilter.pandas needs pandas" in out
    assert out.strip().endswith("3")


def test_between_takes_pandas_keyword_names():
    s = pd.Series([1, 2, 3], name="x")
    want = s.between(left=1, right=2, inclusive="left")
    pdt.assert_series_equal(s.sf.between(left=1, right=2, inclusive="left"), want)
    pdt.assert_series_equal(s.sf.between(1, right=2, inclusive="left"), want)
