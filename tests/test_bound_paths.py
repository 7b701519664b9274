"""The C bound rule gives the ranges (and the errors) the Python rule gave, bound type
by bound type.

simdfilter resolves every bound in C (csrc/cpython/bounds_py.c, bounds_exact.c,
bounds_time.c, bounds_time_rest.c). On time data `_core._resolve_bounds` holds its
range against the Python rule it replaced (tests/bounds_before_44.py, frozen), given
as an oracle (python=); on numeric data against simdfilter.reference. Every bound
type is drawn here, on both sides, in every inclusive mode, at the edges (dtype
limits, NaT, 2**53 + 1, 2**64 - 1, instants between two ticks before 1970), and must
give the old range, or, where the old rule refused the bound, raise its error.
`in_c` marks the bounds the fast readers took before issue 44 (the rest now reach
bounds_time_rest.c).
"""

import datetime as dt
import zoneinfo

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import _core, reference

from arrays import MODES, NUMERIC_DTYPES, dtype_id, edge_values
from bounds_before_44 import resolve as python_rule
from conftest import examples

pd = pytest.importorskip(
    "pandas", reason="pandas bounds are half of what is tested here (pip install '.[test]')"
)

resolve = _core._resolve_bounds

# Data units: every NumPy unit, finer ones, and multiples.
DATA_UNITS = [
    "Y",
    "M",
    "W",
    "D",
    "h",
    "m",
    "s",
    "ms",
    "us",
    "ns",
    "ps",
    "as",
    "3D",
    "10ms",
    "2M",
    "25ns",
]
BOUND_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "7s", "3M"]
I64 = np.iinfo(np.int64)
# pandas before 2.0 makes nanosecond Timestamps and Timedeltas only (a coarser
# np.datetime64 is converted, and overflows beyond 1677-2262).
PANDAS_UNITS = ["s", "ms", "us", "ns"] if int(pd.__version__.split(".")[0]) >= 2 else ["ns"]


def check(values, lo, hi, inclusive, in_c=True):
    """The binding gives the old Python rule's range, or its error in its words (time
    data); the reference's answer (numeric data). `in_c`: what the fast readers took
    before issue 44, kept to show which draws reach bounds_time_rest.c."""
    if values.dtype.kind not in "mM":
        want = reference.filter_indexes(values, lo, hi, inclusive=inclusive)
        got = simdfilter.filter_indexes(values, lo, hi, inclusive=inclusive)
        np.testing.assert_array_equal(got, want, err_msg=repr((lo, hi, inclusive)))
        assert resolve(values, lo, hi, inclusive)[0] == "c", (lo, hi, inclusive)
        return
    try:
        want = resolve(values, lo, hi, inclusive, python=python_rule)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)) as got_exc:
            resolve(values, lo, hi, inclusive)
        assert str(got_exc.value) == str(exc), (lo, hi, inclusive)
        return
    assert want[0] == "python"
    got = resolve(values, lo, hi, inclusive)
    assert got == ("c", want[1]), (lo, hi, inclusive, got, want)


# ---- numbers --------------------------------------------------------------------

INT_SCALARS = [
    np.int8,
    np.uint8,
    np.int16,
    np.uint16,
    np.int32,
    np.uint32,
    np.int64,
    np.uint64,
    np.intc,
    np.uintc,
    np.longlong,
    np.ulonglong,
]
FLOAT_SCALARS = [np.float16, np.float32, np.float64]
BIG = [
    2**53 + 1,
    -(2**53) - 1,
    2**53 + 3,
    2**63 - 1,
    2**63,
    2**64 - 1,
    2**64,
    2**64 + 1,
    -(2**63) - 1,
    2**70 + 1,
    2**1100,
    -(2**1100),
    2**1024 - 2**970,
    2**1024 - 2**970 - 1,
    2**128 - 2**103,
]


def _as_numpy(v, types):
    """`v` as each NumPy scalar type that holds it exactly."""
    out = []
    for t in types:
        if np.issubdtype(t, np.integer):
            info = np.iinfo(t)
            if info.min <= v <= info.max:
                out.append(t(v))
        else:
            with np.errstate(over="ignore"):
                x = t(v)
            if float(x) == v or (v != v and x != x):
                out.append(x)
    return out


@st.composite
def number_bound(draw, dtype):
    edges = [int(v) if isinstance(v, bool) else v for v in edge_values(dtype)]
    kind = draw(st.sampled_from(["int", "float", "numpy int", "numpy float", "bool", "none"]))
    if kind == "none":
        return None
    if kind == "bool":
        return draw(st.sampled_from([True, False, np.True_, np.False_]))
    if kind in ("int", "numpy int"):
        v = draw(
            st.sampled_from([int(e) for e in edges if np.isfinite(e) and e == int(e)] + BIG)
            | st.integers(-(2**66), 2**66)
        )
        if kind == "int":
            return v
        return draw(st.sampled_from(_as_numpy(v, INT_SCALARS) or [np.int64(0)]))
    v = draw(
        st.sampled_from([float(e) for e in edges]) | st.floats(allow_nan=True, allow_infinity=True)
    )
    if kind == "float":
        return v
    return draw(st.sampled_from(_as_numpy(v, FLOAT_SCALARS) or [np.float64(v)]))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=dtype_id)
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_number_bounds_agree(dtype, data):
    a = np.array(edge_values(dtype), dtype=dtype)
    lo, hi = data.draw(number_bound(dtype), label="lo"), data.draw(number_bound(dtype), label="hi")
    check(a, lo, hi, data.draw(st.sampled_from(MODES), label="inclusive"))


@pytest.mark.parametrize("dtype", ["f4", "f8", "i8", "u8"])
@pytest.mark.parametrize("mode", MODES)
def test_big_ints_on_float_data_every_mode(dtype, mode):
    """Ints around the exactness limits, alone and paired, in every mode (the draw above
    may miss a pair)."""
    a = np.array(edge_values(dtype), dtype=dtype)
    for v in BIG + [2**24 + 1, -(2**24) - 1]:
        check(a, v, None, mode)
        check(a, None, v, mode)
        check(a, v, v, mode)
        check(a, -v, v, mode)


# ---- time data, naive -----------------------------------------------------------


def _edge_ticks():
    return (
        st.sampled_from([I64.min, I64.min + 1, I64.max, I64.max - 1, 0, 1, -1, -(2**40), 2**40])
        | st.integers(I64.min, I64.max)
        | st.integers(-(2**35), 2**35)
    )


# Strings C leaves to Python: what NumPy reads otherwise or refuses (a zone, whitespace,
# an hour alone, a sign, a day or time out of range, digits finer than attoseconds).
ISO_NEAR_MISSES = [
    "2021-02-29",
    "1900-02-29",
    "2020-00",
    "2020-13",
    "2020-01-01T00:00:00:5",
    "2020-02-30",
    "2020-04-31",
    "2020-13-01",
    "2020-00-10",
    "2020-01-00",
    "2020-01-01T24:00",
    "2020-01-01T23:60",
    "2020-01-01T23:59:60",
    "2020-01-01t00:00",
    "2020-01-01T05",
    "2020-01-01T00:00Z",
    "2020-01-01T00:00:00.5+01:00",
    " 2020-01-01",
    "2020-01-01 ",
    "+2020-01-01",
    "2020-1-01",
    "20200101",
    "2020-01-01T00:00:00.",
    "1969-12-31T23:59:59." + "9" * 19,
    "2020-01-01T00:00:00.0000000000000000001",
    "NaT",
    "today",
    "2020-01-01T00:00:00\u00b75",
    "\u0662020-01-01",
]


@st.composite
def iso_string(draw):
    """(an ISO string, whether C reads it): each form bounds_time.c's iso_value reads, at
    any instant from year 0 to 9999 and with 1-18 digits of a second, or a near miss."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(ISO_NEAR_MISSES)), False
    when = draw(
        st.datetimes(
            min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59, 59)
        )
        | st.sampled_from([dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(2020, 2, 29)])
    )
    year = draw(st.sampled_from([when.year, when.year, 0, 1970, 9999]))  # NumPy reads year 0000
    form = draw(st.sampled_from(["Y", "M", "D", "minute", "second", "fraction"]))
    text = f"{year:04d}" + (f"-{when.month:02d}" if form != "Y" else "")
    if form not in ("Y", "M"):
        day = min(when.day, 28) if year != when.year else when.day
        text += f"-{day:02d}" + draw(st.sampled_from("T ")) + f"{when.hour:02d}:{when.minute:02d}"
        if form == "D":
            text = text[:10]
        elif form != "minute":
            text += f":{when.second:02d}"
        if form == "fraction":
            text += draw(st.sampled_from(".,")) + draw(
                st.text("0123456789", min_size=1, max_size=18)
            )
    return text, True


@st.composite
def datetime_bound(draw):
    """(bound, whether C resolves it)."""
    kind = draw(
        st.sampled_from(["datetime64", "datetime", "date", "Timestamp", "NaT", "none", "str"])
    )
    if kind == "none":
        return None, True
    if kind == "NaT":
        return draw(
            st.sampled_from([pd.NaT, np.datetime64("NaT", "s"), np.datetime64("NaT", "ns")])
        ), True
    if kind == "datetime64":
        return np.datetime64(draw(_edge_ticks()), draw(st.sampled_from(BOUND_UNITS))), True
    if kind == "str":
        return draw(iso_string())
    when = draw(
        st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31, 23, 59))
    )
    if kind == "date":
        return when.date(), True
    if kind == "datetime":
        return when, True
    unit = draw(st.sampled_from(PANDAS_UNITS))
    if unit == "ns":  # ns Timestamps hold 1677-2262 only
        ticks = draw(st.integers(I64.min + 1, I64.max) | st.integers(-(10**12), 10**12))
    else:  # any Timestamp of coarser units, years beyond 1-9999 included (Python reads those)
        ticks = draw(st.integers(-(2**50), 2**50))
    return pd.Timestamp(np.datetime64(ticks, unit)), True


@st.composite
def timedelta_bound(draw):
    kind = draw(
        st.sampled_from(
            [
                "timedelta64",
                "timedelta",
                "Timedelta",
                "int",
                "numpy int",
                "NaT",
                "none",
                "bool",
                "datetime64",
            ]
        )
    )
    if kind == "none":
        return None, True
    if kind == "NaT":
        return draw(
            st.sampled_from([pd.NaT, np.timedelta64("NaT", "ns"), np.timedelta64("NaT", "s")])
        ), True
    if kind == "timedelta64":
        return np.timedelta64(draw(_edge_ticks()), draw(st.sampled_from(BOUND_UNITS))), True
    if kind == "timedelta":
        td = draw(st.timedeltas())
        return td, abs(td // dt.timedelta(microseconds=1)) < 2**63  # NumPy wraps the others
    if kind == "Timedelta":
        return pd.Timedelta(
            np.timedelta64(
                draw(_edge_ticks().filter(lambda t: t != I64.min)),
                draw(st.sampled_from(PANDAS_UNITS)),
            )
        ), True
    if kind == "int":
        return draw(_edge_ticks() | st.integers(-(2**70), 2**70)), True
    if kind == "numpy int":
        return draw(st.sampled_from(INT_SCALARS))(draw(st.integers(0, 127))), True
    if kind == "bool":
        return True, False
    return np.datetime64(1, "s"), False


def _time_data(kind, unit):
    ticks = [I64.min, I64.min + 1, I64.max, -1, 0, 1, -(10**15), 10**15, 2**40]
    return np.array(ticks, dtype=np.int64).view(f"{kind}8[{unit}]")


@pytest.mark.parametrize("unit", DATA_UNITS)
@pytest.mark.parametrize("kind", ["M", "m"])
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_time_bounds_agree(kind, unit, data):
    a = _time_data(kind, unit)
    strategy = datetime_bound() if kind == "M" else timedelta_bound()
    (lo, lo_c), (hi, hi_c) = data.draw(strategy, label="lo"), data.draw(strategy, label="hi")
    check(a, lo, hi, data.draw(st.sampled_from(MODES), label="inclusive"), lo_c and hi_c)
    check(a, hi, lo, "both", lo_c and hi_c)


@pytest.mark.parametrize("mode", MODES)
def test_instants_between_ticks_before_1970(mode):
    """An instant between two ticks of the data's unit rounds up as a low end and down as
    a high end, also below zero, where truncation would round the wrong way."""
    for unit in ["D", "s", "ms", "us", "M", "Y", "W"]:
        a = _time_data("M", unit)
        for b in [
            np.datetime64(-1, "ns"),
            np.datetime64(-(10**15) - 1, "as"),
            dt.datetime(1969, 12, 31, 23, 59, 59, 1),
            pd.Timestamp("1969-12-31 23:59:59.999999999"),
            dt.date(1969, 12, 31),
            np.datetime64("1969-12", "M"),
            pd.Timestamp("1677-09-21 00:12:43.145224193"),
            np.datetime64(-7, "W"),
        ]:
            check(a, b, None, mode)
            check(a, None, b, mode)
            check(a, b, b, mode)


def test_edges_the_slow_readers_take():
    """Bounds the fast readers leave to bounds_time_rest.c (Python's before issue 44):
    the old range."""
    a = _time_data("m", "us")
    for b in [dt.timedelta.max, dt.timedelta.min]:  # NumPy's conversion wraps these
        check(a, b, None, "both", in_c=False)
    if "s" in PANDAS_UNITS:  # pandas before 2.0 has no Timestamp past 2262
        far = pd.Timestamp(np.datetime64(10**12, "s"))  # year 33658: datetime holds a stand-in year
        assert far.year > 9999
        check(_time_data("M", "s"), far, None, "both")  # C reads its ticks, not the fields
    check(_time_data("M", "s"), "2020-01-01T05", None, "both", in_c=False)  # an hour alone


@pytest.mark.parametrize("unit", DATA_UNITS)
@pytest.mark.parametrize("mode", MODES)
def test_iso_strings_every_form(unit, mode):
    """Each ISO form C reads, on data of every unit, at instants before 1970 and between two
    ticks, agrees with Python and is read in C; on tz-aware data, those with a UTC offset."""
    a = _time_data("M", unit)
    for text in [
        "2020",
        "1969-12",
        "0000-01",
        "2020-02-29",
        "1969-12-31 23:59",
        "1969-12-31T23:59:59",
        "1969-12-31T23:59:59.999999999999999999",
        "2020-01-01T00:00:00,5",
        "9999-12-31T23:59:59.1",
    ]:
        check(a, text, None, mode)
        check(a, None, text, mode)
    for text in ISO_NEAR_MISSES:
        check(a, text, None, mode, in_c=False)
    aware = pd.Series(pd.to_datetime([0, 10**12]).tz_localize("Europe/Paris"))
    check(aware, "2020-01-01", None, mode, in_c=False)  # a wall time in the zone
    for text in [
        "1970-01-01T00:00Z",
        "1970-01-01 01:00:00.000000001+01:00",
        "1969-12-31T23:59:59.5-0130",
    ]:
        check(aware, text, None, mode)
        check(aware, None, text, mode)


# ---- tz-aware data ---------------------------------------------------------------

ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]


@st.composite
def iso_string_with_offset(draw):
    """(an ISO string for tz-aware data, whether C reads it): a time of day with a UTC
    offset in each form _iso.ISO_OFFSET takes (C reads those), without one (a wall time
    in the data's zone: Python), or a near miss."""
    text, in_c = draw(iso_string())
    offset = draw(
        st.sampled_from(
            [
                "Z",
                "z",
                "+01",
                "-05",
                "+0530",
                "-0945",
                "+05:30",
                "-12:00",
                "+99:99",
                "",
                " +01:00",
                "+1",
                "+01:0",
                "+01-00",
                "Z ",
            ]
        )
    )
    if not in_c or len(text) < 16 or offset in ("", " +01:00", "+1", "+01:0", "+01-00", "Z "):
        in_c = False  # no time of day, no offset, or one C leaves to Python
    return text + offset, in_c


@st.composite
def aware_bound(draw):
    kind = draw(
        st.sampled_from(["Timestamp", "datetime", "naive", "NaT", "datetime64", "none", "str"])
    )
    if kind == "none":
        return None, True
    if kind == "NaT":
        return draw(st.sampled_from([pd.NaT, np.datetime64("NaT", "us")])), True
    if kind == "datetime64":
        return np.datetime64(3, "s"), False  # no zone: Python refuses it
    if kind == "str":
        return draw(iso_string_with_offset())
    ns = draw(
        st.integers(-(2**62), 2**62) | st.integers(1_300_000_000 * 10**9, 1_400_000_000 * 10**9)
    )
    zone = draw(st.sampled_from(ZONES + ["-05:00"]))
    ts = pd.Timestamp(ns, tz="UTC").tz_convert(zone)
    if kind == "Timestamp":
        return ts, True
    if kind == "naive":
        return ts.tz_localize(None), False
    tz = draw(
        st.sampled_from(
            [
                zoneinfo.ZoneInfo(zone) if zone[0] != "-" else dt.timezone(dt.timedelta(hours=-5)),
                dt.timezone.utc,
                dt.timezone(dt.timedelta(hours=5, minutes=30, seconds=7)),
            ]
        )
    )
    return ts.to_pydatetime(warn=False).astimezone(tz), True


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize("unit", PANDAS_UNITS)
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_aware_bounds_agree(tz, unit, data):
    ticks = np.array(
        [
            I64.min + 1,
            -1,
            0,
            1,
            1_350_000_000 * 10**9 // {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[unit],
        ]
    )
    s = pd.Series(ticks.view(f"M8[{unit}]")).dt.tz_localize("UTC").dt.tz_convert(tz)
    (lo, lo_c), (hi, hi_c) = (
        data.draw(aware_bound(), label="lo"),
        data.draw(aware_bound(), label="hi"),
    )
    check(s, lo, hi, data.draw(st.sampled_from(MODES), label="inclusive"), lo_c and hi_c)


def test_aware_bounds_at_clock_changes():
    """Both instants of a repeated wall time (fold) and the edges of a skipped one."""
    s = pd.Series(
        pd.date_range("2020-10-24 23:00", periods=8, freq="30min", tz="UTC").tz_convert(
            "Europe/Paris"
        )
    )
    first = pd.Timestamp("2020-10-25 02:30").tz_localize("Europe/Paris", ambiguous=True)
    second = pd.Timestamp("2020-10-25 02:30").tz_localize("Europe/Paris", ambiguous=False)
    for b in [
        first,
        second,
        first.to_pydatetime(),
        second.to_pydatetime(),
        pd.Timestamp("2020-03-29 03:00", tz="Europe/Paris"),
    ]:
        for mode in MODES:
            check(s, b, None, mode)
            check(s, None, b, mode)
    assert simdfilter.filter_indexes(s, second, None).tolist() == [5, 6, 7]
    assert simdfilter.filter_indexes(s, first, first).tolist() == [3]


def test_aware_wall_times_past_the_zone_rules_every_precision():
    """A wall time in a named zone from before year 1 or after 9999, at a year's or
    a month's precision too, is refused as the Python rule refused it (bounds_time_rest.c
    once let '0000' and '0000-01' through: its out-of-range stand-in was inside the
    years in attoseconds), a NaT other bound included."""
    s = (
        pd.Series(np.array([0, 1], dtype="M8[s]"))
        .dt.tz_localize("UTC")
        .dt.tz_convert("America/New_York")
    )
    for text in ["0000", "0000-01", "-0001", "-0001-12", "10000", "10000-01", "0000-12-31"]:
        for lo, hi in [(None, text), (text, None), (pd.NaT, text), (text, pd.NaT)]:
            for mode in MODES:
                check(s, lo, hi, mode)
        with pytest.raises(ValueError, match="lies outside years 1-9999"):
            simdfilter.filter_indexes(s, None, text)
    check(s, None, "0001", "both")  # the first year with rules: read


class _FixedOffset(dt.tzinfo):
    """A tzinfo of our own, whose utcoffset() answers whatever it was given."""

    def __init__(self, offset):
        self.offset = offset

    def utcoffset(self, when):
        return self.offset

    def dst(self, when):
        return None

    def tzname(self, when):
        return "fixed"


@pytest.mark.parametrize(
    "offset, in_c",
    [
        (dt.timedelta(hours=5, minutes=30), True),
        (dt.timedelta(hours=-23, minutes=-59, microseconds=-999_999), True),
        (dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999_999), True),
        (dt.timedelta(days=1), False),  # datetime.utcoffset() refuses it: so do both paths
        (dt.timedelta(days=-1), False),
        (dt.timedelta(days=-2), False),
        (None, False),  # a naive datetime, by Python's rules
    ],
)
def test_any_tzinfo_as_python_reads_it(offset, in_c):
    """The C path asks tzinfo.utcoffset(dt) itself: it must make the checks that
    dt.utcoffset() makes, and leave what they refuse to the Python path."""
    s = pd.Series(pd.date_range("2013-01-01", periods=48, freq="h", tz="UTC"))
    bound = dt.datetime(2013, 1, 1, 10, tzinfo=_FixedOffset(offset))
    for mode in MODES:
        check(s, bound, None, mode, in_c)
        check(s, None, bound, mode, in_c)


# ---- the call itself --------------------------------------------------------------


def test_calls_take_the_c_path_and_match_the_reference():
    a = np.array(["1969-12-31T23:59:59.999999999", "1970-01-01", "2020-01-01", "NaT"], "M8[ns]")
    for lo, hi in [
        (pd.Timestamp("1969-12-31 23:59:59.999999999"), None),
        (dt.date(1970, 1, 1), dt.datetime(2020, 1, 1)),
        (np.datetime64(-1, "us"), np.datetime64("2020", "Y")),
        (pd.NaT, None),
    ]:
        assert resolve(a, lo, hi)[0] == "c"
        np.testing.assert_array_equal(
            simdfilter.filter_indexes(a, lo, hi), reference.filter_indexes(a, lo, hi)
        )


def test_every_float16_bound():
    """Every half (subnormals, infinities, NaNs of both signs): C reads its bits itself."""
    a = np.array([0.0, 1.0], np.float32)
    halves = np.arange(2**16, dtype=np.uint16).view(np.float16)
    for h in halves[::7].tolist() + [
        halves[i] for i in (0, 1, 0x3FF, 0x400, 0x7BFF, 0x7C00, 0x7C01, 0x8001, 0xFC00)
    ]:
        h = np.float16(h)
        check(a, h, None, "both")
        check(a, None, h, "neither")
