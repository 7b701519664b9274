"""Columns as data tools hold them: Arrow arrays and streams (pyarrow, Polars, pandas'
Arrow dtypes, any object with the Arrow PyCapsule interface), pandas nullable and
tz-aware columns, numpy.ma. Every result is checked against simdfilter.reference,
every kernel pinned in turn."""

import datetime as dt
import decimal
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import simdfilter
from simdfilter import reference

pa = pytest.importorskip("pyarrow", reason="the Arrow inputs are built with pyarrow")
pd = pytest.importorskip("pandas", reason="pandas columns and tz-aware bounds")
pl = pytest.importorskip("polars", reason="Polars Series are one of the inputs")

KERNELS = simdfilter.available_kernels()
INCLUSIVE = ("both", "left", "right", "neither")


# -- The examples and the wrong answers that motivated reading columns in place ----------


def test_examples():
    r = simdfilter.filter_indexes(pa.array([5, None, 7, 12], pa.int32()), 5, 10)
    assert r.dtype == np.uint32 and r.tolist() == [0, 2]
    r = simdfilter.filter_indexes(pl.Series([1.5, None, 3.0]), 1, 2)
    assert r.dtype == np.uint32 and r.tolist() == [0]
    t = pd.to_datetime(pd.Series(["2013-01-01 05:00:00+00:00", "2013-01-01 06:00:00+00:00"]))
    r = simdfilter.filter_indexes(t, pd.Timestamp("2013-01-01 06:00", tz="UTC"), None)
    assert r.dtype == np.uint32 and r.tolist() == [1]


def _between(s, lo, hi):
    mask = s.notna()
    if lo is not None:
        mask &= s >= lo
    if hi is not None:
        mask &= s <= hi
    return np.flatnonzero(mask.fillna(False).to_numpy(dtype=bool)).tolist()


@pytest.mark.parametrize("kernel", KERNELS)
def test_integers_beyond_2_53_are_exact(kernel):
    v = 2**53 + 1
    cases = [
        (pd.Series([v, None, 5], dtype="Int64"), v, v, [0]),
        (pd.Series([2**64 - 2, None], dtype="UInt64"), None, 2**64 - 2, [0]),
        (pd.Series([2**64 - 1, None, 2**64 - 2], dtype="UInt64"), 2**64 - 2, 2**64 - 2, [2]),
        (pd.Series([v, None, v - 1], dtype="int64[pyarrow]"), v, v, [0]),
    ]
    with simdfilter.use_kernel(kernel):
        for s, lo, hi, expected in cases:
            want = _between(s, lo, hi)
            assert want == expected  # pandas' own answer, not a float's
            assert simdfilter.filter_indexes(s, lo, hi).tolist() == want, (s, lo, hi)
            assert simdfilter.filter_values(s, lo, hi).tolist() == [int(s[i]) for i in want]
        for col in (pa.array([v, None, 5]), pl.Series([v, None, 5])):
            assert simdfilter.filter_indexes(col, v, v).tolist() == [0]
            assert simdfilter.filter_values(col, v, v).tolist() == [v]
            assert simdfilter.count_in_range(col, v, v) == 1
            assert simdfilter.filter_indexes(col, v - 1, v - 1).tolist() == []


# -- Random columns of every Arrow type -----------------------------------------------

ZONES = (None, "UTC", "Europe/Paris", "+01:00")
ARROW_TYPES = (
    [
        pa.int8(),
        pa.int16(),
        pa.int32(),
        pa.int64(),
        pa.uint8(),
        pa.uint16(),
        pa.uint32(),
        pa.uint64(),
        pa.float32(),
        pa.float64(),
        pa.bool_(),
        pa.date32(),
        pa.date64(),
    ]
    + [pa.timestamp(u, tz) for u in ("s", "ms", "us", "ns") for tz in ZONES]
    + [pa.duration(u) for u in ("s", "ms", "us", "ns")]
    + [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")]
)
DENSITIES = (0.0, 0.01, 0.5, 1.0)
_DAY = {"s": 86400, "ms": 86400 * 10**3, "us": 86400 * 10**6, "ns": 86400 * 10**9}


def _storage(t, n, rng):
    """Random values for `n` slots of Arrow type `t`, as the NumPy array of its data
    buffer (bools: one bool per slot). Few distinct values, so bounds hit them."""
    if pa.types.is_boolean(t):
        return rng.random(n) < 0.5
    if pa.types.is_floating(t):
        f = rng.choice(
            np.array([-3.5, -1.0, 0.0, -0.0, 0.5, 1.0, 2.25, 7.0, np.nan, np.inf, -np.inf]), n
        )
        return f.astype(t.to_pandas_dtype())
    if pa.types.is_integer(t):
        info = np.iinfo(t.to_pandas_dtype())
        special = np.array(
            [info.min, info.min + 1, 0, 1, 2, 3, 5, 9, info.max - 1, info.max], dtype=object
        )
        return np.array(rng.choice(special, n), dtype=t.to_pandas_dtype())
    if pa.types.is_date32(t):
        return rng.integers(15000, 15040, n).astype(np.int32)
    if pa.types.is_date64(t):
        return (rng.integers(15000, 15040, n) * 86400000).astype(np.int64)
    if pa.types.is_time32(t) or pa.types.is_time64(t):
        day = _DAY[t.unit]
        v = rng.choice(np.array([0, 1, day // 2, day // 2 + 1, day - 1], dtype=np.int64), n)
        return v.astype(np.int32 if pa.types.is_time32(t) else np.int64)
    # timestamps and durations: around 2013 (Paris changes its clocks on 2013-03-31)
    scale = _DAY[t.unit] // 86400
    base = 1364691600 * scale  # 2013-03-31T01:00:00Z, the Paris clock change
    v = base + rng.choice(np.array([-7200, -3600, -1, 0, 1, 3600, 7200]), n) * scale
    return (v + rng.integers(-2, 3, n)).astype(np.int64)


def _arrow_array(t, n, density, rng):
    """A pyarrow Array of type t: values under nulls are random too (a kernel that
    ignored validity would be caught), sliced at a random offset."""
    off = int(rng.integers(0, 20))
    total = off + n + int(rng.integers(0, 9))
    values = _storage(t, total, rng)
    valid = rng.random(total) >= density
    if density == 1.0:
        valid[:] = False
    vbuf = pa.py_buffer(np.packbits(valid, bitorder="little"))
    if density == 0.0 and rng.random() < 0.5:
        vbuf = None  # no bitmap at all
    if pa.types.is_boolean(t):
        dbuf = pa.py_buffer(np.packbits(values, bitorder="little"))
    else:
        dbuf = pa.py_buffer(np.ascontiguousarray(values))
    arr = pa.Array.from_buffers(t, total, [vbuf, dbuf], null_count=-1)
    return arr.slice(off, n)


def _chunked(arr, rng):
    """arr in random pieces, empty ones included."""
    cuts = sorted(int(c) for c in rng.integers(0, len(arr) + 1, int(rng.integers(0, 5))))
    edges = [0] + cuts + [len(arr)]
    pieces = [arr.slice(a, b - a) for a, b in zip(edges, edges[1:])]
    if rng.random() < 0.5:
        pieces.insert(int(rng.integers(0, len(pieces) + 1)), pa.array([], arr.type))
    return pa.chunked_array(pieces, arr.type)


class CArray:
    """Only the Arrow PyCapsule interface, as nanoarrow or any other producer offers."""

    def __init__(self, arr):
        self.arr = arr

    def __arrow_c_array__(self, requested_schema=None):
        return self.arr.__arrow_c_array__(requested_schema)


class CStream:
    def __init__(self, chunked):
        self.chunked = chunked

    def __arrow_c_stream__(self, requested_schema=None):
        return self.chunked.__arrow_c_stream__(requested_schema)


def _bounds(t, col_values, rng):
    """A few (lo, hi) pairs: data values, values between them, None, and for
    aware timestamps aware Timestamps and ISO strings with an offset."""
    picks = [v for v in col_values if v is not None]
    out = [(None, None)]
    for _ in range(3):
        if not picks:
            break
        a, b = sorted(
            [picks[int(rng.integers(len(picks)))], picks[int(rng.integers(len(picks)))]], key=_key
        )
        out.append((a, b))
        out.append((a, None) if rng.random() < 0.5 else (None, b))
    if pa.types.is_integer(t) and picks:
        out.append((picks[0] - 0.5, picks[0] + 0.5))
    return out


def _key(v):
    if isinstance(v, float) and np.isnan(v):
        return -np.inf
    if isinstance(v, (pd.Timestamp, str)):
        return pd.Timestamp(v).value
    return v


def _python_bounds(t, arr):
    """Bounds drawn from the column's own values, in the forms a user writes them
    (timestamps: see _timestamps_raw)."""
    vals = []
    for v in arr.to_pylist() if len(arr) < 400 else arr.slice(0, 400).to_pylist():
        if v is None:
            continue
        if pa.types.is_date(t):
            v = np.datetime64(v, "D") if pa.types.is_date32(t) else np.datetime64(v, "ms")
        elif pa.types.is_duration(t):
            v = pd.Timedelta(v).to_timedelta64().astype(f"m8[{t.unit}]")
        elif pa.types.is_time(t):  # times of day take datetime.time bounds
            if not isinstance(v, dt.time):  # nanoseconds: the microsecond below
                ns = int(v.value) if hasattr(v, "value") else int(v)
                secs, ns = divmod(ns, 10**9)
                v = dt.time(secs // 3600, secs // 60 % 60, secs % 60, ns // 1000)
        vals.append(v)
    return vals


def _timestamps_raw(arr):
    """Bounds for timestamps read from the raw ticks: exact in every unit."""
    t = arr.type
    ticks = arr.view(pa.int64())
    vals = []
    for v in ticks.to_pylist()[:400]:
        if v is None:
            continue
        d = np.datetime64(v, t.unit)
        if t.tz is None:
            vals.append(d)
        else:
            ts = pd.Timestamp(d).tz_localize("UTC").tz_convert(t.tz)
            vals.append(ts if len(vals) % 2 else ts.isoformat())  # ISO strings carry the offset
    return vals


def _inputs(t, arr, rng):
    """The column as every kind of input that holds it."""
    chunked = _chunked(arr, rng)
    out = [
        ("pyarrow.Array", arr),
        ("pyarrow.ChunkedArray", chunked),
        ("capsule array", CArray(arr)),
        ("capsule stream", CStream(chunked)),
        ("pandas ArrowDtype", pd.Series(pd.arrays.ArrowExtensionArray(chunked))),
    ]
    try:
        out.append(("polars", pl.from_arrow(chunked)))
    except Exception as exc:  # a type Polars cannot hold: say so, test the rest
        print(f"polars cannot hold {t}: {exc}")
    return out


def _utc_instants(got, col, ctx):
    """filter_values' result as the reference gives it (NumPy): a tz-aware column's
    values come back in the column's own kind with its zone, which is checked here."""
    if isinstance(got, np.ndarray):
        return got
    zone = got.dtype.time_zone if isinstance(got, pl.Series) else pa.array(got).type.tz
    if isinstance(col, pd.Series):
        assert isinstance(got, pd.api.extensions.ExtensionArray), ctx
        assert got.dtype == col.dtype, (ctx, got.dtype, col.dtype)
    elif isinstance(col, pl.Series):
        assert isinstance(got, pl.Series) and got.dtype == col.dtype, (ctx, got.dtype, col.dtype)
    else:
        assert isinstance(got, pa.Array), ctx
    assert zone, ctx
    arrow = got.to_arrow() if isinstance(got, pl.Series) else pa.array(got)
    return arrow.cast(pa.int64()).to_numpy().view(f"datetime64[{arrow.type.unit}]")


def _check(col, lo, hi, inclusive, label, cache=None):
    """Every kernel against the reference. `cache` (a dict) shares the reference's
    answer between inputs that hold the same data."""
    key = (repr(lo), repr(hi), inclusive)
    if cache is not None and key in cache:
        want_i, want_v = cache[key]
    else:
        want_i = reference.filter_indexes(col, lo, hi, inclusive=inclusive)
        want_v = reference.filter_values(col, lo, hi, inclusive=inclusive)
        if cache is not None:
            cache[key] = want_i, want_v
    for k in KERNELS:
        with simdfilter.use_kernel(k):
            got_i = simdfilter.filter_indexes(col, lo, hi, inclusive=inclusive)
            got_v = simdfilter.filter_values(col, lo, hi, inclusive=inclusive)
            got_n = simdfilter.count_in_range(col, lo, hi, inclusive=inclusive)
        ctx = (label, k, lo, hi, inclusive)
        assert got_i.dtype == want_i.dtype and got_i.tolist() == want_i.tolist(), ctx
        got_v = _utc_instants(got_v, col, ctx)
        assert got_v.dtype == want_v.dtype, (ctx, got_v.dtype, want_v.dtype)
        np.testing.assert_array_equal(got_v, want_v, err_msg=str(ctx))
        assert got_n == len(want_i), ctx


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("t", ARROW_TYPES, ids=str)
def test_arrow_types_every_input_kind(t, density, rng):
    for n in (int(rng.integers(0, 300)),):
        arr = _arrow_array(t, n, density, rng)
        vals = _timestamps_raw(arr) if pa.types.is_timestamp(t) else _python_bounds(t, arr)
        bounds = _bounds(t, vals, rng)
        shared = {}
        inclusive = [INCLUSIVE[int(rng.integers(4))] for _ in bounds]
        for label, col in _inputs(t, arr, rng):
            # The same Arrow data: one reference answer for all but Polars, which
            # may hold some types in other units. The reference reads each input
            # kind itself in the other tests of this module and for Polars here.
            cache = None if label == "polars" else shared
            for (lo, hi), inc in zip(bounds, inclusive):
                _check(col, lo, hi, inc, f"{label} {t} n={n}", cache)


@pytest.mark.slow
@pytest.mark.parametrize("t", ARROW_TYPES, ids=str)
def test_arrow_types_long_columns(t, rng):
    """Longer columns in more chunks: many vectors per chunk, chunk ends inside vectors."""
    for density in DENSITIES:
        n = int(rng.integers(1000, 5000))
        arr = _arrow_array(t, n, density, rng)
        vals = _timestamps_raw(arr) if pa.types.is_timestamp(t) else _python_bounds(t, arr)
        shared = {}
        for label, col in _inputs(t, arr, rng)[:2]:  # Array and ChunkedArray
            for lo, hi in _bounds(t, vals, rng)[:3]:
                _check(col, lo, hi, "both", f"{label} {t} n={n}", shared)


# -- pandas nullable and tz-aware columns, numpy.ma ------------------------------------

MASKED = [
    "Int8",
    "Int16",
    "Int32",
    "Int64",
    "UInt8",
    "UInt16",
    "UInt32",
    "UInt64",
    "Float32",
    "Float64",
    "boolean",
]


def _masked_parts(name, n, density, rng):
    np_dtype = pd.api.types.pandas_dtype(name).numpy_dtype
    t = pa.from_numpy_dtype(np_dtype)
    data = _storage(t, n, rng)
    mask = rng.random(n) < density if density < 1 else np.ones(n, dtype=bool)
    return data, mask


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("name", MASKED)
def test_pandas_masked_and_numpy_ma(name, density, rng):
    for n in (int(rng.integers(0, 40)), int(rng.integers(40, 300))):
        data, mask = _masked_parts(name, n, density, rng)
        off = int(rng.integers(0, 9))
        arr = pd.array(data, dtype=name)
        arr = type(arr)(data, mask)  # the values under NA stay random
        cols = [
            ("pandas " + name, pd.Series(arr)[off:]),
            ("pandas array " + name, arr[off:]),
            ("numpy.ma", np.ma.MaskedArray(data, mask)[off:]),
        ]
        picks = [v for v, m in zip(data.tolist(), mask) if not m] or [0]
        for label, col in cols:
            for _ in range(3):
                a, b = sorted([picks[int(rng.integers(len(picks)))] for _ in range(2)], key=_key)
                lo, hi = [(a, b), (a, None), (None, b)][int(rng.integers(3))]
                _check(col, lo, hi, INCLUSIVE[int(rng.integers(4))], label)


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize(
    "tz", ["UTC", "Europe/Paris", dt.timezone(dt.timedelta(hours=-5))], ids=str
)
def test_pandas_tz_aware(unit, tz, density, rng):
    t = pa.timestamp(unit)
    for n in (int(rng.integers(0, 40)), int(rng.integers(40, 300))):
        ticks = _storage(t, n, rng)
        ticks[rng.random(n) < density] = np.iinfo(np.int64).min  # NaT
        if density == 1:
            ticks[:] = np.iinfo(np.int64).min
        s = pd.Series(ticks.view(f"M8[{unit}]")).dt.tz_localize("UTC").dt.tz_convert(tz)
        off = int(rng.integers(0, 9))
        s = s[off:]
        picks = [x for x in s if x is not pd.NaT] or [pd.Timestamp("2013-03-31", tz="UTC")]
        for _ in range(2):
            a, b = sorted([picks[int(rng.integers(len(picks)))] for _ in range(2)])
            a = a if rng.random() < 0.5 else a.isoformat()
            lo, hi = [(a, b), (a, None), (None, b)][int(rng.integers(3))]
            _check(s, lo, hi, INCLUSIVE[int(rng.integers(4))], f"pandas tz {tz}")
            # The same comparison as pandas makes it.
            want = _between(s, lo, hi)
            got = simdfilter.filter_indexes(s, lo, hi).tolist()
            assert got == want, (lo, hi)


def test_wall_time_strings_on_aware_columns_as_pandas():
    s = pd.to_datetime(pd.Series(["2013-01-01 05:00:00+00:00", "2013-01-01 06:00:00+00:00", None]))
    s = s.dt.tz_convert("Europe/Paris")
    # 06:30 in Paris is 05:30 UTC.
    assert (
        simdfilter.filter_indexes(s, "2013-01-01 06:30", None).tolist()
        == _between(s, "2013-01-01 06:30", None)
        == [1]
    )
    assert simdfilter.filter_indexes(s, "2013-01-01 06:30+00:00", None).tolist() == []
    v = simdfilter.filter_values(s, None, None)
    # The values keep the column's zone: what pandas' own filter gives.
    assert v.dtype == s.dtype
    pd.testing.assert_extension_array_equal(v, s[s.notna()].array)


@pytest.mark.parametrize(
    "bound",
    [pd.Timestamp("2013-01-01"), dt.datetime(2013, 1, 1), np.datetime64("2013-01-01T00:00")],
)
def test_naive_bound_on_aware_columns_is_a_type_error(bound):
    s = pd.to_datetime(pd.Series(["2013-01-01 05:00:00+00:00"]))
    with pytest.raises(TypeError):
        s >= bound  # pandas refuses
    arrow_aware = pa.array([1], pa.timestamp("us", "UTC"))
    for col in (s, arrow_aware, pl.from_arrow(arrow_aware)):
        with pytest.raises(TypeError, match="time zone"):
            simdfilter.filter_indexes(col, bound, None)


@pytest.mark.parametrize(
    "bound",
    [
        pd.Timestamp("2013-01-01", tz="UTC"),
        dt.datetime(2013, 1, 1, tzinfo=dt.timezone.utc),
        "2013-01-01 06:00+00:00",
    ],
)
def test_aware_bound_on_naive_columns_is_a_type_error(bound):
    s = pd.to_datetime(pd.Series(["2013-01-01 05:00"]))
    with pytest.raises(TypeError):
        s >= bound
    naive = pa.array([1], pa.timestamp("us"))
    for col in (s, naive, pl.from_arrow(naive)):
        with pytest.raises(TypeError, match="timezone"):
            simdfilter.filter_indexes(col, bound, None)


# -- What is refused --------------------------------------------------------------------


class _UserType(pa.ExtensionType):
    def __init__(self):
        super().__init__(pa.int64(), "simdfilter.test.user")

    def __arrow_ext_serialize__(self):
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls()


def _unsupported_arrow():
    return [
        pa.array(["a", "b", "a"]).dictionary_encode(),
        pl.Series(["a", "b"]).cast(pl.Categorical),
        pa.array([decimal.Decimal("1.5")]),
        pl.Series([1.5]).cast(pl.Decimal(10, 2)),
        pa.array([[1, 2]]),
        pa.array([{"x": 1}]),
        pl.Series([[1, 2]]),
        pa.array(np.array([1, 2], np.float16)),
        pa.ExtensionArray.from_storage(_UserType(), pa.array([1])),
        pa.nulls(3),
        pa.array([(1, 2, 3)], pa.month_day_nano_interval()),
    ]


@pytest.mark.parametrize("col", _unsupported_arrow(), ids=lambda c: f"{type(c).__name__}")
def test_unsupported_arrow_types_raise(col):
    for f in (simdfilter.filter_indexes, simdfilter.filter_values, simdfilter.count_in_range):
        with pytest.raises(
            TypeError, match="int8.*uint64.*float32.*bool.*date32.*timestamp.*duration.*time64"
        ):
            f(col, 0, 1)
    with pytest.raises(TypeError):
        simdfilter.filter_indexes(CArray(pa.array(["a"])), 0, 1)


@pytest.mark.parametrize(
    "col",
    [
        pd.Series(pd.period_range("2000", periods=2)),
        pd.Series(pd.interval_range(0, 2)),
        pd.Series(["a"], dtype="category"),
        pd.Series([1, 2], dtype="category"),
    ],
    ids=lambda s: str(s.dtype),
)
def test_unsupported_pandas_columns_raise(col):
    with pytest.raises(TypeError, match="supports|reads Arrow arrays of int8"):
        simdfilter.filter_indexes(col, 0, 1)


# -- Strings and frames: refused in the user's terms (issue 43, item 5) ------------------

PANDAS = None  # a pandas column's kind: its dtype, as this pandas names it
FUNCTIONS = (
    simdfilter.filter_indexes,
    simdfilter.filter_values,
    simdfilter.count_in_range,
    simdfilter.in_range,
    lambda col, lo, hi: simdfilter.ZoneMap(col),
)


@pytest.mark.parametrize(
    "col, kind, instead",
    [
        (pd.Series(["b", "a"], name="name", dtype="str"), PANDAS, "s.between(lo, hi)"),
        (pd.Series(["b", None], name="name", dtype="string"), "pandas string", "s.between("),
        (
            pd.Series(["b"], name="name", dtype=pd.ArrowDtype(pa.string())),
            "pandas string[pyarrow]",
            "s.sf.",
        ),
        (pd.Series(["b", "a"], name="name", dtype=object), "pandas object", "s.between("),
        (pd.Index(["b", "a"], name="name"), PANDAS, "s.between("),
        (pl.Series("name", ["b", None]), "Polars String", "s.is_between(lo, hi)"),
        (pa.array(["b", None]), "pyarrow string", "pc.greater_equal"),
        (pa.array(["b"], pa.large_string()), "pyarrow large_string", "pc.less_equal"),
        (pa.chunked_array([["b"], ["a"]]), "pyarrow string", "pyarrow.compute"),
        (np.array(["b", "a"]), "NumPy <U1", "np.flatnonzero((a >= lo) & (a <= hi))"),
        (np.array([b"b", b"a"]), "NumPy |S1", "np.flatnonzero"),
        (np.array(["b", None], dtype=object), "NumPy object", "np.flatnonzero"),
        (["b", "a"], "a list of <U1", "np.flatnonzero"),
    ],
    ids=lambda x: x if isinstance(x, str) else type(x).__name__,
)
def test_strings_are_refused_in_the_users_terms(col, kind, instead):
    # Before: "simdfilter reads Arrow arrays of int8..., not large_string" (pandas 3's
    # str), "... not string_view" (Polars), "supports ... not dtype('<U1')" (NumPy).
    if kind is PANDAS:  # the default for strings: "str" from pandas 3, object before
        kind = f"pandas {col.dtype}"
    named = "column 'name'" if getattr(col, "name", None) == "name" else "the column"
    for f in FUNCTIONS:
        with pytest.raises(TypeError) as got:
            f(col, "a", "b")
        message = str(got.value)
        assert message.startswith(
            f"simdfilter compares numbers, booleans, dates and times; {named} holds strings "
            f"({kind}): compare strings with "
        ), message
        assert instead in message, message


def test_string_advice_works():
    # What the messages say to use answers the question, in each host.
    import simdfilter.pandas  # noqa: F401  (the accessors the messages name)
    import simdfilter.polars  # noqa: F401

    s = pd.Series(["b", "a", "c", None], name="name", dtype="str")
    assert s.between("a", "b").tolist() == [True, True, False, False]
    assert s.sf.indexes("a", "b").tolist() == [0, 1] and s.sf.count("a", "b") == 2
    p = pl.Series("name", ["b", "a", "c", None])
    assert p.is_between("a", "b").to_list() == [True, True, False, None]
    assert p.sf.indexes("a", "b").to_list() == [0, 1] and p.sf.filter("a", "b").to_list() == [
        "b",
        "a",
    ]
    a = np.array(["b", "a", "c"])
    assert np.flatnonzero((a >= "a") & (a <= "b")).tolist() == [0, 1]
    pc = pytest.importorskip("pyarrow.compute")
    got = pc.and_(
        pc.greater_equal(pa.array(["b", "c"]), "a"), pc.less_equal(pa.array(["b", "c"]), "b")
    )
    assert got.to_pylist() == [True, False]


def _frames():
    frames = [
        ("pandas", pd.DataFrame({"a": [1, 2], "b": [3, 4]}), "df.sf.indexes({'a': (lo, hi), 'b'"),
        ("pandas", pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}), "df.sf.filter({'a'"),
        ("pandas", pd.DataFrame({"a": [1, None]}, dtype="Int64"), "df.sf.count({'a'"),
        ("Polars", pl.DataFrame({"a": [1, 2], "b": [3, 4]}), "df.sf.filter({'a': (lo, hi), 'b'"),
        ("Polars", pl.DataFrame({"a": [1, 2], "b": [3, 4]}).lazy(), "pl.col('a').sf.between"),
    ]
    try:
        import dask.dataframe as dd
    except ImportError:
        return frames
    ddf = dd.from_pandas(pd.DataFrame({"a": [1, 2], "b": [3, 4]}), npartitions=1)
    return frames + [("Dask", ddf, "ddf.sf.filter({'a': (lo, hi), 'b'")]


@pytest.mark.parametrize(
    "host, frame, call", _frames(), ids=lambda x: x if isinstance(x, str) else type(x).__name__
)
def test_frames_are_refused_naming_the_frame_call(host, frame, call):
    # Before: a pandas DataFrame was flattened (positions in the 2-D array, not
    # rows: [0 1 2] for {'a': [1, 2], 'b': [3, 4]} in [1, 3]), a Dask one computed
    # and flattened, a Polars one refused as "not struct", a LazyFrame as lacking
    # the Arrow PyCapsule interface.
    names = ("filter_indexes", "filter_values", "count_in_range", "in_range", "ZoneMap")
    for name, f in zip(names, FUNCTIONS):
        with pytest.raises(TypeError) as got:
            f(frame, 1, 3)
        message = str(got.value)
        assert message.startswith(f"{name} reads one column, not a {host} {type(frame).__name__}")
        assert call in message, message


def test_dask_array_functions_refuse_frames_too():
    dd = pytest.importorskip("dask.dataframe")
    import simdfilter.dask as sfd

    ddf = dd.from_pandas(pd.DataFrame({"a": [1, 2], "b": [3, 4]}), npartitions=1)
    for name in ("filter_indexes", "filter_values", "count_in_range"):
        with pytest.raises(TypeError, match=f"simdfilter.dask.{name} reads one column.*ddf.sf"):
            getattr(sfd, name)(ddf, 1, 3)


def test_the_frame_calls_named_answer():
    import simdfilter.pandas  # noqa: F401  (the accessors the messages name)
    import simdfilter.polars  # noqa: F401

    df = pd.DataFrame({"a": [1, 2], "b": [3, 4]})
    assert df.sf.indexes({"a": (1, 3), "b": (1, 3)}).tolist() == [0]
    assert df.sf.count({"a": (1, 3)}) == 2
    pdf = pl.DataFrame({"a": [1, 2], "b": [3, 4]})
    assert pdf.sf.filter({"a": (1, 3), "b": (1, 3)}).height == 1
    lazy = pdf.lazy().filter(pl.col("a").sf.between(1, 3) & pl.col("b").sf.between(1, 3))
    assert lazy.collect().height == 1


def test_one_column_of_a_frame_is_still_read():
    assert simdfilter.filter_indexes(pd.DataFrame({"a": [1, 5]})["a"], 1, 3).tolist() == [0]
    assert simdfilter.filter_indexes(pl.DataFrame({"a": [1, 5]})["a"], 1, 3).tolist() == [0]
    assert simdfilter.filter_indexes(np.array([[1, 5], [2, 9]]), 1, 3).tolist() == [0, 2]


# -- Capsules released, nothing copied ---------------------------------------------------


class FreshArray:
    """Exports a new pyarrow array on every call: an unreleased export keeps its
    buffer, so pyarrow's allocation count shows it."""

    def __init__(self, data, typ=None):
        self.data, self.typ = data, typ

    def __arrow_c_array__(self, requested_schema=None):
        return pa.array(self.data, self.typ).__arrow_c_array__(requested_schema)


class FreshStream:
    """The same as a stream only, in three chunks (one empty)."""

    def __init__(self, data, typ=None):
        self.data, self.typ = data, typ

    def __arrow_c_stream__(self, requested_schema=None):
        a = pa.array(self.data, self.typ)
        return pa.chunked_array([a[:3], a[3:3], a[3:]]).__arrow_c_stream__(requested_schema)


def _calls(col):
    """Successful calls and failing ones, some failing after the capsule is read."""
    ok = [
        lambda: simdfilter.filter_indexes(col, 2, 900),
        lambda: simdfilter.filter_values(col, None, 500),
        lambda: simdfilter.count_in_range(col, 3, 3),
    ]
    bad = [
        lambda: simdfilter.filter_indexes(col, "not a bound", None),
        lambda: simdfilter.filter_indexes(col, 1, 2, inclusive="sideways"),
        lambda: simdfilter.filter_values(col, dt.date(2013, 1, 1), None),
        lambda: simdfilter.filter_indexes(col, 1, 2, out=np.empty(2, np.uint32)),
        lambda: simdfilter.filter_indexes(col, 1, 2, out=np.empty(5000, np.float64)),
    ]
    return ok, bad


@pytest.mark.parametrize("wrapper", [FreshArray, FreshStream])
def test_capsules_are_released(wrapper):
    data = [None if i % 7 == 0 else i for i in range(1000)]
    gc.collect()
    base = pa.total_allocated_bytes()
    col = wrapper(data, pa.int64())
    ok, bad = _calls(col)
    for _ in range(600):
        for f in ok:
            f()
        for f in bad:
            with pytest.raises((TypeError, ValueError)):
                f()
    # An unsupported type is refused after its schema was read.
    strings = wrapper(["a", None, "b"] * 10, pa.string())
    for _ in range(1000):
        with pytest.raises(TypeError):
            simdfilter.filter_indexes(strings, 0, 1)
    ref = weakref.ref(col)
    del col, ok, bad, strings, f
    gc.collect()
    assert ref() is None
    assert pa.total_allocated_bytes() == base


def test_streams_of_many_chunks():
    # More chunks than the binding keeps inline (8): the chunk list grows, and every
    # chunk is still released, on success and on a refused bound.
    rng = np.random.default_rng(7)
    values = rng.integers(0, 100, 1000)
    arr = pa.array(values, mask=rng.random(1000) < 0.1)
    cuts = np.sort(rng.integers(0, 1000, 60))
    chunked = pa.chunked_array([arr.slice(a, b - a) for a, b in zip([0, *cuts], [*cuts, 1000])])
    assert chunked.num_chunks == 61
    want = reference.filter_indexes(arr, 20, 40)
    cols = (chunked, pl.from_arrow(chunked, rechunk=False))
    assert cols[1].n_chunks() > 8  # Polars keeps the chunks (it may drop empty ones)
    gc.collect()
    base = pa.total_allocated_bytes()
    for col in cols:
        np.testing.assert_array_equal(simdfilter.filter_indexes(col, 20, 40), want)
        assert simdfilter.count_in_range(col, 20, 40) == want.size
        with pytest.raises(TypeError):
            simdfilter.filter_indexes(col, object(), None)
    gc.collect()
    assert pa.total_allocated_bytes() == base


def test_columns_are_not_kept_alive():
    gc.collect()
    base = pa.total_allocated_bytes()
    arr = pa.array(np.arange(100_000), pa.int64())
    chunked = pa.chunked_array([arr, arr])
    s = pl.from_arrow(chunked)
    ps = pd.Series(pd.arrays.ArrowExtensionArray(chunked))
    wrap = CArray(arr)
    refs = [weakref.ref(wrap)]
    for col in (arr, chunked, s, ps, wrap):
        for _ in range(50):
            simdfilter.count_in_range(col, 10, 20)
            simdfilter.filter_values(col, 10, 20)
            with pytest.raises(TypeError):
                simdfilter.filter_indexes(col, object(), None)
    del arr, chunked, s, ps, wrap, col
    gc.collect()
    assert [r() for r in refs] == [None]
    assert pa.total_allocated_bytes() == base


def test_no_copy_of_the_values():
    n = 10_000_000
    rng = np.random.default_rng(11)
    valid = rng.random(n) >= 0.1
    arr = pa.Array.from_buffers(
        pa.float64(),
        n,
        [pa.py_buffer(np.packbits(valid, bitorder="little")), pa.py_buffer(rng.random(n))],
    )
    cols = [
        ("pyarrow", arr),
        ("chunked", pa.chunked_array([arr.slice(0, 3), arr.slice(3)])),
        ("polars", pl.from_arrow(arr)),
    ]
    masked = pd.array(rng.integers(0, 100, n), dtype="Int64")
    cols += [
        ("pandas Int64", pd.Series(masked)),
        ("numpy.ma", np.ma.MaskedArray(rng.random(n), mask=~valid)),
    ]
    out = np.empty(n, dtype=np.uint32)
    for label, col in cols:
        lo, hi = (25, 50) if label == "pandas Int64" else (0.25, 0.5)
        simdfilter.filter_indexes(col, lo, hi, out=out)  # warm up lazy imports
        tracemalloc.start()
        try:
            r = simdfilter.filter_indexes(col, lo, hi, out=out)
            c = simdfilter.count_in_range(col, lo, hi)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert c == len(r) > 0
        assert peak < n // 10, (label, peak)  # far below one byte per element
