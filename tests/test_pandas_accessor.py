"""The pandas ``sf`` accessor against pandas' own expressions, on every column kind it reads."""

import subprocess
import textwrap
from datetime import date, datetime
from decimal import Decimal

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
from agree import generic_timedelta  # noqa: E402

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
            expected = s.between(lo, hi if hi is not None else "2100-01-01")
        except Exception as exc:  # 01:30 on 2013-11-03 happens twice in New York, and
            # Arrow-backed timestamps take no strings: pandas refuses, so does the face
            for verb in ("between", "filter", "count", "indexes"):
                with pytest.raises(type(exc)):
                    getattr(s.sf, verb)(lo, hi)
            with pytest.raises(type(exc)):
                s.to_frame().sf.filter(col=(lo, hi))
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
    hits = np.flatnonzero(expected.fillna(False).astype(bool).to_numpy())
    np.testing.assert_array_equal(s.sf.indexes(lo, hi), hits)
    assert s.sf.indexes(lo, hi).dtype == np.uint32
    pdt.assert_series_equal(s.iloc[s.sf.indexes(lo, hi)], s.sf.filter(lo, hi))
    # in a frame: the positions of the rows filter keeps, as for the other columns
    df = pd.DataFrame({"c": s, "n": np.arange(len(s))})
    rows = df.sf.indexes(c=(lo, hi), n=(0, 3))
    pdt.assert_frame_equal(df.iloc[rows], df.sf.filter(c=(lo, hi), n=(0, 3)))
    pdt.assert_frame_equal(df.iloc[rows], df[expected.fillna(False).astype(bool) & (df.n <= 3)])


def test_interval_column_is_computed_by_pandas():
    s = pd.Series(pd.interval_range(0, 5))
    with pytest.raises(TypeError) as exc:
        s.between(0, 3)
    for verb in ("between", "filter", "count", "indexes"):
        with pytest.raises(type(exc.value)):
            getattr(s.sf, verb)(0, 3)


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
        # the positions of the rows filter keeps, columns pandas compares included
        np.testing.assert_array_equal(
            df.sf.indexes(inclusive=inclusive, **ranges), df.index.get_indexer(expected.index)
        )
        assert df.sf.count(inclusive=inclusive, **ranges) == len(expected)


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


def _arrow_series(values, pa_type):
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.array(values, type=pa_type)), name="c")


_TS = [pd.Timestamp("2020-01-01"), pd.Timestamp("2021-01-01"), None]


# Columns and bounds where pandas compares otherwise than the kernels (issue 28):
# (column, lo, hi), each a function of pa (None: pyarrow missing, skipped).
def _arrow_dates():
    return _arrow_series([date(2020, 1, 2), None], pa.date32())


HOST_CASES = {
    # A NaN or NaT bound: Arrow's comparison is null, so pandas answers NA.
    "int64[pyarrow]-nan": (lambda: _arrow_series([1, 2, None], pa.int64()), 0, np.nan),
    "int64[pyarrow]-nan-one-sided": (lambda: _arrow_series([1, 2, None], pa.int64()), np.nan, None),
    "uint64[pyarrow]-float32-nan": (
        lambda: _arrow_series([1, 2, None], pa.uint64()),
        np.float32("nan"),
        5,
    ),
    "bool[pyarrow]-nan": (lambda: _arrow_series([True, False, None], pa.bool_()), True, np.nan),
    "timestamp[pyarrow]-NaT": (lambda: _arrow_series(_TS, pa.timestamp("us")), _TS[0], pd.NaT),
    "timestamp[pyarrow]-np-NaT": (
        lambda: _arrow_series(_TS, pa.timestamp("us")),
        np.datetime64("NaT", "us"),
        None,
    ),
    "timestamptz[pyarrow]-NaT": (
        lambda: _arrow_series(_TS, pa.timestamp("ns", tz="Asia/Tokyo")),
        pd.NaT,
        pd.Timestamp("2022-01-01", tz="UTC"),
    ),
    "duration[pyarrow]-NaT": (
        lambda: _arrow_series([0, 5, None], pa.duration("ns")),
        pd.Timedelta(0),
        np.timedelta64("NaT", "ns"),
    ),
    # An int past int64: pandas' OverflowError.
    "bool-2**63": (lambda: pd.Series([True, False]), 0, 2**63),
    "boolean-2**64": (lambda: pd.Series([True, None], dtype="boolean"), -(2**64), True),
    "int64[pyarrow]-2**63": (lambda: _arrow_series([1, 2, None], pa.int64()), 0, 2**63),
    "uint64[pyarrow]-2**64": (lambda: _arrow_series([1, 2, None], pa.uint64()), 2**64, None),
    "bool[pyarrow]-2**63": (lambda: _arrow_series([True, None], pa.bool_()), -(2**63) - 1, 1),
    "duration[pyarrow]-2**63": (lambda: _arrow_series([0, 5], pa.duration("ns")), 0, 2**63),
    "float64-past-double": (lambda: pd.Series([0.5, np.nan]), 0, 10**400),
    "Float32-past-double": (lambda: pd.Series([0.5, None], dtype="Float32"), -(10**400), None),
    # Numbers on timedeltas: pandas' TypeError.
    "timedelta64-int": (lambda: pd.Series(pd.to_timedelta([0, 1])), 0, 5),
    "timedelta64-uint64": (lambda: pd.Series(pd.to_timedelta([0, 1])), np.uint64(0), None),
    "duration[pyarrow]-uint64": (
        lambda: _arrow_series([0, 5], pa.duration("ns")),
        np.uint64(0),
        pd.Timedelta(9),
    ),
    # A Decimal on floats with NaN: decimal.InvalidOperation.
    "float64-Decimal": (lambda: pd.Series([0.1, np.nan]), 0, Decimal("1.5")),
    "float32-Decimal": (
        lambda: pd.Series([0.1, np.nan], dtype="float32"),
        Decimal("0"),
        None,
    ),
    "Float64-Decimal": (
        lambda: pd.Series([0.1, None], dtype="Float64"),
        0,
        Decimal("1.5"),
    ),
    # Anything but dates on Arrow dates, str and NumPy datetimes on Arrow
    # timestamps: pandas' TypeError (NaT on dates: NA).
    "date32[pyarrow]-str": (
        _arrow_dates,
        "2020-01-01",
        "2020-12-31",
    ),
    "date32[pyarrow]-Timestamp": (
        _arrow_dates,
        pd.Timestamp("2020-01-01"),
        None,
    ),
    "date32[pyarrow]-datetime": (
        _arrow_dates,
        date(2020, 1, 1),
        datetime(2021, 1, 1),
    ),
    "date32[pyarrow]-datetime64": (
        _arrow_dates,
        np.datetime64("2020-01-01"),
        None,
    ),
    "date32[pyarrow]-NaT": (
        _arrow_dates,
        date(2020, 1, 1),
        pd.NaT,
    ),
    "date32[pyarrow]-np-NaT": (
        _arrow_dates,
        None,
        np.datetime64("NaT", "D"),
    ),
    "timestamp[pyarrow]-str": (lambda: _arrow_series(_TS, pa.timestamp("us")), "2020-06-01", None),
    "timestamptz[pyarrow]-str": (
        lambda: _arrow_series(_TS, pa.timestamp("us", tz="UTC")),
        "2019-06-01",
        "2020-06-01",
    ),
    "timestamp[pyarrow]-datetime64": (
        lambda: _arrow_series(_TS, pa.timestamp("us")),
        _TS[0],
        np.datetime64("2020-06-01"),
    ),
}


def _pandas_mask(s, lo, hi, inclusive):
    """pandas' own answer, a None end written as the one comparison it leaves."""
    if lo is not None and hi is not None:
        return s.between(lo, hi, inclusive=inclusive)
    if lo is not None:
        return s >= lo if inclusive in ("both", "left") else s > lo
    return s <= hi if inclusive in ("both", "right") else s < hi


@pytest.mark.parametrize("case", list(HOST_CASES))
@pytest.mark.parametrize("inclusive", ["both", "neither"])
def test_bounds_pandas_compares_its_own_way_give_pandas_answer(case, inclusive):
    make, lo, hi = HOST_CASES[case]
    if pa is None and "pyarrow" in case:
        pytest.skip("pyarrow is not installed")
    s = make()
    df = pd.DataFrame({"c": s, "n": np.arange(len(s))})
    try:
        want = _pandas_mask(s, lo, hi, inclusive)
    except Exception as exc:  # pandas raises: the same type, from every verb
        for verb in ("between", "filter", "count", "indexes"):
            with pytest.raises(type(exc)):
                getattr(s.sf, verb)(lo, hi, inclusive)
        for verb in ("filter", "count", "indexes"):
            with pytest.raises(type(exc)):
                getattr(df.sf, verb)(inclusive=inclusive, c=(lo, hi))
        return
    pdt.assert_series_equal(s.sf.between(lo, hi, inclusive), want)
    kept = s[want]  # pandas drops NA from the mask
    pdt.assert_series_equal(s.sf.filter(lo, hi, inclusive), kept)
    assert s.sf.count(lo, hi, inclusive) == int(want.sum())
    np.testing.assert_array_equal(s.sf.indexes(lo, hi, inclusive), s.index.get_indexer(kept.index))
    pdt.assert_series_equal(s.sf.filter(lo, hi, inclusive, invert=True), s[~want])
    pdt.assert_frame_equal(df.sf.filter(inclusive=inclusive, c=(lo, hi)), df[want])
    np.testing.assert_array_equal(
        df.sf.indexes(inclusive=inclusive, c=(lo, hi)), df.index.get_indexer(kept.index)
    )
    assert df.sf.count(inclusive=inclusive, c=(lo, hi)) == len(kept)


# Columns and bounds the kernels answer as pandas does: no delegation there.
KERNEL_CASES = {
    "int64[pyarrow]": (lambda: _arrow_series([1, 2, None], pa.int64()), 0, np.int64(1)),
    "uint64[pyarrow]": (lambda: _arrow_series([1, 2, None], pa.uint64()), 1.5, None),
    "bool[pyarrow]": (lambda: _arrow_series([True, False, None], pa.bool_()), False, True),
    "timestamp[pyarrow]": (
        lambda: _arrow_series(_TS, pa.timestamp("us")),
        pd.Timestamp("2020-06-01"),
        datetime(2022, 1, 1),
    ),
    "duration[pyarrow]": (
        lambda: _arrow_series([0, 5, None], pa.duration("ns")),
        np.timedelta64(1, "ns"),
        pd.Timedelta(9),
    ),
    "date32[pyarrow]": (
        _arrow_dates,
        date(2020, 1, 1),
        None,
    ),
    "bool": (lambda: pd.Series([True, False]), 0, 2**63 - 1),
    "boolean": (lambda: pd.Series([True, None], dtype="boolean"), True, None),
    "timedelta64": (lambda: pd.Series(pd.to_timedelta([0, 1])), pd.Timedelta(0), None),
    "timedelta64-numpy": (
        lambda: pd.Series(pd.to_timedelta([0, 1])),
        np.timedelta64(0, "ns"),
        np.timedelta64(1, "s"),
    ),
    "datetime64": (
        lambda: pd.Series(pd.to_datetime(["2020-01-01", "2021-01-01"])),
        np.datetime64("2020-06-01"),
        "2022-01-01",
    ),
    "float64": (lambda: pd.Series([0.5, np.nan]), np.nan, 10**300),
    "Float64": (lambda: pd.Series([0.5, None], dtype="Float64"), 0, np.float32(1)),
    "int64": (lambda: pd.Series([1, 2]), -(2**70), 2**64),
}


@pytest.mark.parametrize("case", list(KERNEL_CASES))
def test_ordinary_bounds_stay_on_the_kernels(case, monkeypatch):
    make, lo, hi = KERNEL_CASES[case]
    if pa is None and "pyarrow" in case:
        pytest.skip("pyarrow is not installed")
    if case == "duration[pyarrow]" and int(pd.__version__.split(".")[0]) < 2:
        pytest.skip(
            "pandas 1.x compares Arrow durations with Timedelta bounds in another unit "
            "(5 ns <= Timedelta(9) is False there): its bug, not an answer to match"
        )
    s = make()
    want = _pandas_mask(s, lo, hi, "both")

    def no_pandas(*args, **kwargs):
        raise AssertionError("pandas was asked")

    monkeypatch.setattr(simdfilter.pandas, "_host", no_pandas)
    pdt.assert_series_equal(s.sf.between(lo, hi), want)
    pdt.assert_series_equal(s.sf.filter(lo, hi), s[want])
    assert s.sf.count(lo, hi) == int(want.sum())
    np.testing.assert_array_equal(s.sf.indexes(lo, hi), np.flatnonzero(want.fillna(False)))
    df = pd.DataFrame({"c": s})
    pdt.assert_frame_equal(df.sf.filter(c=(lo, hi)), df[want])


@pytest.mark.parametrize(
    "column, lo, hi",
    [
        (lambda: pd.Series(pd.to_timedelta([0, 1])), 0, 5),
        (lambda: pd.Series([True, False]), 0, 2**63),
        (lambda: pd.Series(["a", "b"], dtype="string"), 0, 1),
    ],
    ids=["timedelta-int", "bool-2**63", "string-int"],
)
def test_frame_raises_what_pandas_raises_when_no_row_stands_before_the_column(column, lo, hi):
    # pandas compares every column; the conjunction stops once no row stands.
    # Older pandas answer some of these (pandas 1.5 compares bools with 2**63):
    # then the face answers the same (no row).
    df = pd.DataFrame({"a": [1, 2], "c": column()})
    try:
        want = df[df.a.between(5, 6) & df.c.between(lo, hi)]
    except Exception as exc:  # noqa: BLE001 - pandas' own exception, whatever its type
        for verb in ("filter", "count", "indexes"):
            with pytest.raises(type(exc)):
                getattr(df.sf, verb)(a=(5, 6), c=(lo, hi))
        return
    pdt.assert_frame_equal(df.sf.filter(a=(5, 6), c=(lo, hi)), want)
    assert df.sf.count(a=(5, 6), c=(lo, hi)) == len(want) == 0


@pytest.mark.skipif(pa is None, reason="pyarrow is not installed")
@pytest.mark.parametrize(
    "dtype", ["int64[pyarrow]", "int32[pyarrow]", "uint8[pyarrow]", "bool[pyarrow]"]
)
@pytest.mark.parametrize("with_null", [False, True], ids=["no-null", "null"])
def test_timedelta64_bound_on_arrow_ints_is_pandas(dtype, with_null):
    # pandas compares an Arrow int or bool column with a timedelta64 as NumPy does
    # (its count of units) only without nulls; with one it raises TypeError.
    values = [True, False, True] if dtype.startswith("bool") else [1, 2, 3]
    s = pd.Series(values[:2] + [None] if with_null else values, dtype=dtype)
    lo, hi = np.timedelta64(1, "s"), np.timedelta64(2, "s")
    _agrees_with_pandas(s, lo, hi, lambda: s.between(lo, hi))


def _series_or_skip(make, dtype):
    """The column, or a skip saying this pandas cannot make it (pandas 1.5 has
    no pyarrow durations and refuses big-endian timedelta64 data)."""
    try:
        return make()
    except (TypeError, ValueError, AssertionError) as exc:
        pytest.skip(f"pandas {pd.__version__} cannot make a {dtype} column: {exc!r:.120}")


def _agrees_with_pandas(s, lo, hi, between):
    """Every s.sf verb gives pandas' answer for [lo, hi], or pandas' TypeError."""
    try:
        want = between()
    except TypeError:
        for call in (s.sf.between, s.sf.filter, s.sf.indexes, s.sf.count):
            with pytest.raises(TypeError):
                call(lo, hi)
        return
    pdt.assert_series_equal(s.sf.between(lo, hi), want)
    pdt.assert_series_equal(s.sf.filter(lo, hi), s[want])
    assert s.sf.count(lo, hi) == int(want.sum())


@pytest.mark.parametrize("dtype", ["timedelta64[s]", "duration[s][pyarrow]"])
@pytest.mark.parametrize("bound", ["unitless 2", True, np.True_], ids=repr)
def test_unitless_timedelta64_and_bool_bounds_on_timedelta_columns_are_pandas(dtype, bound):
    bound = generic_timedelta(2) if bound == "unitless 2" else bound
    # The kernels read both as ticks of the column's unit, as NumPy does (issue 41);
    # pandas reads a unitless timedelta64 as nanoseconds on a NumPy-backed column
    # and refuses a bool there (TypeError), so those stay pandas'.
    if dtype.endswith("[pyarrow]") and pa is None:
        pytest.skip("pyarrow is not installed")
    s = _series_or_skip(lambda: pd.Series(np.arange(4).astype("m8[s]")).astype(dtype), dtype)
    hi = np.timedelta64(10, "s")
    _agrees_with_pandas(s, bound, hi, lambda: (s >= bound) & (s <= hi))


def _pandas_misreads_big_endian_timedeltas():
    """Whether this pandas compares a big-endian timedelta64 column by its bytes
    unswapped: pandas 2.x keeps such a column as it is and compares it through
    ``self._ndarray.view("i8")`` (TimedeltaArray's _cmp_method), a native int64
    view, so 1 ns reads as 2**56 ns. pandas 1.5 refuses the column and pandas 3
    makes it native: both compare values."""
    try:
        s = pd.Series(np.array([1, 256], ">i8").astype(">m8[ns]"))
    except (TypeError, ValueError, AssertionError):
        return False
    return not s.dtype.isnative and (s <= pd.Timedelta(2, "ns")).tolist() != [True, False]


@pytest.mark.parametrize("dtype", [">i8", ">f4", ">u2", ">M8[s]", ">m8[ns]"])
def test_filter_on_big_endian_columns_is_pandas(dtype):
    # pandas' take refuses big-endian columns (ValueError: Big-endian buffer not
    # supported on little-endian compiler); s[mask] reads them (issue 41, item 3).
    s = _series_or_skip(
        lambda: pd.Series(
            np.arange(10).astype(dtype[0] + "i8").astype(dtype), index=list("abcdefghij")
        ),
        dtype,
    )
    lo, hi = s.iloc[2], s.iloc[5]
    # pandas' answer: where pandas misreads the column's bytes, its answer on the
    # column's values in native order (what pandas 1.5 and 3 give).
    ref = s
    if s.dtype.kind == "m" and not s.dtype.isnative and _pandas_misreads_big_endian_timedeltas():
        ref = pd.Series(s.to_numpy().astype(s.dtype.newbyteorder("=")), index=s.index)
    between = ref.between(lo, hi)
    assert between.sum() == 4  # iloc 2 to 5
    want = s[between]
    got = s.sf.filter(lo, hi)
    assert got.dtype == want.dtype  # pandas keeps ">i8", and makes ">M8[s]" native
    pdt.assert_series_equal(got, want)
    pdt.assert_series_equal(s.sf.filter(lo, hi, invert=True), s[~between])
    # Frames: pandas' own df[mask] raises there; df.sf.filter gives the rows it
    # would, each column's dtype kept (a big-endian column it does not filter
    # on, a float16 one pandas compares, duplicate labels, a repeated index).
    df = pd.DataFrame(
        {"x": s.to_numpy(), "y": np.arange(10.0).astype(">f8"), "h": np.arange(10, dtype=">f2")},
        index=list("abcdeabcde"),
    )
    df.insert(3, "x", np.arange(10), allow_duplicates=True)
    mask = between.to_numpy() & (df["h"] >= 3).to_numpy()
    got = df.sf.filter({"y": (2.0, 5.0), "h": (3, None)})
    assert got.dtypes.tolist() == df.dtypes.tolist()
    assert got.index.tolist() == df.index[mask].tolist()
    assert got.columns.tolist() == df.columns.tolist()
    for j in range(df.shape[1]):
        np.testing.assert_array_equal(got.iloc[:, j].to_numpy(), df.iloc[:, j].to_numpy()[mask])
    one = pd.DataFrame({"x": s})
    got = one.sf.filter(x=(lo, hi))
    pdt.assert_frame_equal(got, pd.DataFrame({"x": want}))
