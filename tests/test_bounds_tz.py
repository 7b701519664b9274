"""Bounds on datetime data with a time zone become UTC ticks exactly as pandas compares
them (checked against the installed pandas). The C binding reads them all
(csrc/cpython/bounds_time.c, bounds_time_rest.c: the zone's rules through zoneinfo);
`resolve` below asks it for the inclusive range on an Arrow timestamp column, which
carries any zone name."""

import datetime as dt
import zoneinfo

import numpy as np
import pytest

from simdfilter import _core

pd = pytest.importorskip("pandas", reason="pandas is the behaviour the time zone rules follow")
pa = pytest.importorskip("pyarrow", reason="an Arrow timestamp column carries any zone name")


def resolve(dtype, lo, hi, inclusive, tz=None):
    """The binding's inclusive range (None: empty) for bounds on a column of `dtype`
    (datetime64 in zone `tz`: an Arrow timestamp column; else a NumPy array)."""
    dtype = np.dtype(dtype)
    if tz is None:
        values = np.zeros(1, dtype)
    else:
        unit = np.datetime_data(dtype)[0]
        values = pa.array(np.zeros(1, np.int64), pa.timestamp(unit, tz=tz))
    got = _core._resolve_bounds(values, lo, hi, inclusive)[1]
    # An Arrow column has no NaT: its unbounded low end is int64's least value,
    # which NumPy data keep for NaT (the ranges mean the same values otherwise).
    if got is not None and got[0] == -(2**63):
        got = (-(2**63) + 1, got[1])
    return got


ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
UNITS = ["s", "ms", "us", "ns"]


def _ticks(ts, unit):
    """The UTC ticks of an aware pandas Timestamp in `unit`."""
    return int(
        ts.tz_convert("UTC")
        .tz_localize(None)
        .to_datetime64()
        .astype(f"M8[{unit}]")
        .astype(np.int64)
    )


def _pandas_mask(data_utc_ticks, unit, tz, lo, hi, inclusive):
    s = pd.Series(np.asarray(data_utc_ticks, dtype=np.int64).view(f"M8[{unit}]")).dt.tz_localize(
        "UTC"
    )
    s = s.dt.tz_convert(tz)
    mask = np.ones(len(s), dtype=bool)  # Series.between takes no None
    if lo is not None:
        mask &= (s >= lo if inclusive in ("both", "left") else s > lo).to_numpy()
    if hi is not None:
        mask &= (s <= hi if inclusive in ("both", "right") else s < hi).to_numpy()
    return mask


def _resolved_mask(data_utc_ticks, unit, tz, lo, hi, inclusive):
    r = resolve(np.dtype(f"M8[{unit}]"), lo, hi, inclusive, tz=tz)
    d = np.asarray(data_utc_ticks, dtype=np.int64)
    if r is None:
        return np.zeros(d.shape, dtype=bool)
    return (d >= r[0]) & (d <= r[1])


@pytest.mark.parametrize("tz", ZONES)
@pytest.mark.parametrize("unit", UNITS)
def test_bounds_match_pandas(tz, unit, rng):
    base = pd.Timestamp("2013-03-30", tz="UTC")
    # Data a few ticks around every bound, across two clock changes of the year.
    for _ in range(5):
        step = int(rng.integers(1, 10**6)) * 10**6  # up to ~11 days in ns
        a = base + pd.Timedelta(int(rng.integers(0, 220 * 86400 * 10**9)), "ns")
        b = a + pd.Timedelta(step, "ns")
        a, b = a.tz_convert(tz), b.tz_convert(tz)
        forms = [
            (a, b),  # aware Timestamps
            (a.tz_convert("Asia/Tokyo"), b.tz_convert("-05:00")),  # other zones: the same instants
            (a.isoformat(), b.isoformat()),  # ISO strings with the offset
            (a.tz_convert("UTC").isoformat().replace("+00:00", "Z"), None),
            (a.tz_localize(None).isoformat(), b.tz_localize(None).isoformat()),  # wall times in tz
            (a.to_pydatetime(warn=False), None),  # datetime with tzinfo (microseconds)
        ]
        centre = [_ticks(a, unit), _ticks(b, unit)]
        data = np.array([c + k for c in centre for k in (-2, -1, 0, 1, 2)], dtype=np.int64)
        for lo, hi in forms:
            for inclusive in ("both", "left", "right", "neither"):
                try:
                    want = _pandas_mask(data, unit, tz, lo, hi, inclusive)
                except TypeError:  # pandas: a wall time a clock change skips or repeats
                    with pytest.raises(ValueError, match="ambiguous|does not exist"):
                        resolve(np.dtype(f"M8[{unit}]"), lo, hi, inclusive, tz=tz)
                    continue
                got = _resolved_mask(data, unit, tz, lo, hi, inclusive)
                assert (got == want).all(), (tz, unit, lo, hi, inclusive, data, got, want)


def test_issue_example_utc():
    d = np.dtype("M8[us]")
    six = int(np.datetime64("2013-01-01T06:00", "us").astype(np.int64))
    assert resolve(d, pd.Timestamp("2013-01-01 06:00", tz="UTC"), None, "both", tz="UTC") == (
        six,
        2**63 - 1,
    )
    assert resolve(d, "2013-01-01 06:00+00:00", None, "both", tz="UTC") == (six, 2**63 - 1)
    assert resolve(d, "2013-01-01T06:00Z", None, "both", tz="UTC") == (six, 2**63 - 1)
    assert resolve(d, "2013-01-01 07:00+0100", None, "both", tz="UTC") == (six, 2**63 - 1)
    assert resolve(d, "2013-01-01 06:00", None, "both", tz="UTC") == (six, 2**63 - 1)


@pytest.mark.parametrize("tz", ["+01:00", "UTC+01:00", "+0100", "Europe/Paris"])
def test_wall_strings_read_in_the_data_zone(tz):
    d = np.dtype("M8[s]")
    five = int(np.datetime64("2013-01-01T05:00", "s").astype(np.int64))
    assert resolve(d, "2013-01-01 06:00", "2013-01-01 06:00", "both", tz=tz) == (five, five)
    # A date alone is its midnight in the zone.
    m = int(np.datetime64("2012-12-31T23:00", "s").astype(np.int64))
    assert resolve(d, "2013-01-01", None, "both", tz=tz)[0] == m


def test_negative_offsets_and_named_zone_objects():
    d = np.dtype("M8[us]")
    t = int(np.datetime64("2013-01-01T11:00", "us").astype(np.int64))
    assert resolve(d, "2013-01-01 06:00-05:00", None, "both", tz="UTC")[0] == t
    ny = dt.datetime(2013, 1, 1, 6, tzinfo=zoneinfo.ZoneInfo("America/New_York"))
    assert resolve(d, ny, None, "both", tz="Europe/Paris")[0] == t
    assert resolve(d, "2013-01-01 06:00", None, "both", tz="America/New_York")[0] == t


def test_exact_beyond_microseconds():
    # Nanosecond and finer strings keep every digit; half ticks round inward.
    d = np.dtype("M8[ns]")
    t = int(np.datetime64("2013-01-01T05:00:00.000000001", "ns").astype(np.int64))
    assert resolve(d, "2013-01-01T06:00:00.000000001+01:00", None, "both", tz="UTC")[0] == t
    assert resolve(d, "2013-01-01T06:00:00.0000000005+01:00", None, "both", tz="UTC")[0] == t
    assert resolve(d, None, "2013-01-01T06:00:00.0000000015+01:00", "both", tz="UTC")[1] == t
    ts = pd.Timestamp("2013-01-01 06:00:00.000000001", tz="+01:00")
    assert resolve(d, ts, ts, "both", tz="Europe/Paris") == (t, t)
    # An aware Timestamp on second data: the fraction decides open and closed ends.
    s = np.dtype("M8[s]")
    five = int(np.datetime64("2013-01-01T05:00", "s").astype(np.int64))
    assert resolve(s, ts, None, "both", tz="UTC")[0] == five + 1
    assert resolve(s, None, ts, "both", tz="UTC")[1] == five


def test_far_bounds_never_wrap():
    d = np.dtype("M8[ns]")
    assert resolve(d, "2300-01-01T00:00+00:00", None, "both", tz="UTC") is None
    assert resolve(d, None, "1600-01-01T00:00-01:00", "both", tz="UTC") is None
    # The largest ns instant, written with an offset that takes it past the end.
    assert resolve(d, "2262-04-11T23:47:16.854775807-00:01", None, "both", tz="UTC") is None
    assert resolve(d, None, "2262-04-11T23:47:16.854775807-00:01", "both", tz="UTC") == (
        -(2**63) + 1,
        2**63 - 1,
    )


def test_nat_bound_matches_nothing():
    d = np.dtype("M8[us]")
    assert resolve(d, pd.NaT, None, "both", tz="UTC") is None
    assert resolve(d, None, np.datetime64("NaT", "us"), "both", tz="UTC") is None
    assert resolve(d, "NaT", None, "both", tz="UTC") is None
    assert resolve(d, None, None, "both", tz="UTC") == (-(2**63) + 1, 2**63 - 1)


@pytest.mark.parametrize(
    "bound",
    [
        pd.Timestamp("2013-01-01"),
        dt.datetime(2013, 1, 1),
        np.datetime64("2013-01-01T00:00"),
        dt.date(2013, 1, 1),
    ],
)
def test_naive_bound_on_aware_data_is_a_type_error(bound):
    s = pd.Series(pd.to_datetime(["2013-01-01 05:00"])).dt.tz_localize("UTC")
    with pytest.raises(TypeError, match="Invalid comparison"):
        s >= bound  # what pandas does
    with pytest.raises(TypeError, match="Invalid comparison.*time zone"):
        resolve(np.dtype("M8[us]"), bound, None, "both", tz="UTC")
    with pytest.raises(TypeError, match="Invalid comparison.*time zone"):
        resolve(np.dtype("M8[us]"), None, bound, "both", tz="Europe/Paris")


@pytest.mark.parametrize(
    "bound",
    [
        pd.Timestamp("2013-01-01", tz="UTC"),
        dt.datetime(2013, 1, 1, tzinfo=dt.timezone.utc),
        "2013-01-01 06:00+00:00",
        "2013-01-01T06:00Z",
    ],
)
def test_aware_bound_on_naive_data_is_a_type_error(bound):
    s = pd.Series(pd.to_datetime(["2013-01-01 05:00"]))
    with pytest.raises(TypeError, match="Invalid comparison"):
        s >= bound
    with pytest.raises(TypeError, match="timezone"):
        resolve(np.dtype("M8[us]"), bound, None, "both")
    with pytest.raises(TypeError, match="timezone"):
        resolve(np.dtype("M8[us]"), bound, None, "both", tz=None)


@pytest.mark.parametrize("bound", ["2013-03-31 02:30", "2013-10-27 02:30"])
def test_skipped_and_repeated_wall_times_are_refused(bound):
    s = pd.Series(pd.to_datetime(["2013-01-01 05:00"])).dt.tz_localize("Europe/Paris")
    # pandas refuses too: a TypeError wrapping the zone's ValueError (pandas 2, 3),
    # pytz's own error (pandas 1.5).
    with pytest.raises(Exception):
        s >= bound
    with pytest.raises(ValueError, match="ambiguous|does not exist"):
        resolve(np.dtype("M8[us]"), bound, None, "both", tz="Europe/Paris")
    # With an offset, either reading is explicit.
    assert (
        resolve(np.dtype("M8[us]"), bound + "+01:00", None, "both", tz="Europe/Paris") is not None
    )


def test_other_errors():
    with pytest.raises(ValueError, match="unknown time zone"):
        resolve(np.dtype("M8[us]"), "2013-01-01", None, "both", tz="Mars/Olympus_Mons")
    with pytest.raises(TypeError, match="aware pandas.Timestamp"):
        resolve(np.dtype("M8[us]"), 5, None, "both", tz="UTC")
    with pytest.raises(ValueError, match="cannot read"):
        resolve(np.dtype("M8[us]"), "yesterday-ish", None, "both", tz="UTC")
    with pytest.raises(ValueError, match="outside years"):
        resolve(np.dtype("M8[s]"), "12000-01-01", None, "both", tz="Europe/Paris")
    # A fixed offset needs no zone rules, any year.
    assert resolve(np.dtype("M8[s]"), "12000-01-01", None, "both", tz="+01:00") is not None


def test_backward_compatible_signature():
    assert resolve(np.dtype("int32"), 1.5, 9, "both") == (2, 9)
    assert resolve("M8[D]", "2013-01-01", "2013-01-02", "left") == (15706, 15706)


@pytest.mark.parametrize("tz", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_filter_values_keeps_the_zone_as_each_host_filter(tz):
    """filter_values on a zoned column gives what the host's own filter gives: the
    values with their zone (local midnight stays midnight), in the host's kind."""
    import simdfilter

    s = pd.Series(pd.date_range("2024-03-09 22:00", periods=8, freq="h", tz=tz))
    s.iloc[2] = pd.NaT
    lo, hi = s.iloc[1], s.iloc[6]
    want = s[s.between(lo, hi)]
    for column in (s, pd.DatetimeIndex(s), s.array):
        got = simdfilter.filter_values(column, lo, hi)
        assert got.dtype == s.dtype
        pd.testing.assert_extension_array_equal(got, want.array)
    pa = pytest.importorskip("pyarrow", reason="the Arrow columns")
    arrow = pa.array(s)
    got = simdfilter.filter_values(arrow, lo, hi)
    assert got.type == arrow.type and got.equals(arrow.filter(pa.array(s.between(lo, hi))))
    got = simdfilter.filter_values(pd.Series(pd.arrays.ArrowExtensionArray(arrow)), lo, hi)
    assert got.dtype == pd.ArrowDtype(arrow.type)
    assert got.tolist() == want.tolist()
    pl = pytest.importorskip("polars", reason="the Polars column")
    column = pl.Series("t", s)
    got = simdfilter.filter_values(column, lo, hi)
    assert got.dtype == column.dtype
    assert got.to_list() == column.filter(column.is_between(lo, hi)).to_list()


def test_filter_values_into_out_stays_utc_instants():
    """out= is the caller's NumPy array: the UTC instants are written there."""
    import simdfilter

    s = pd.Series(pd.date_range("2024-01-01", periods=3, freq="D", tz="America/New_York"))
    out = np.empty(3, dtype=s.dtype.base)
    got = simdfilter.filter_values(s, None, None, out=out)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, s.dt.tz_convert(None).to_numpy())
