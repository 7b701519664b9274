"""Time-of-day columns (Arrow time32/time64, Polars Time) take datetime.time
bounds, as pandas and Polars compare them, and refuse timedeltas (pandas raises
TypeError comparing times with timedeltas; Polars refuses them too)."""

import datetime as dt

import numpy as np
import pytest

import simdfilter as sf
from simdfilter import _core

from bounds_before_44 import resolve as python_rule

pa = pytest.importorskip("pyarrow")

TIMES = [
    dt.time(0, 0),
    dt.time(1, 30, 0, 500),
    dt.time(1, 30, 1),
    None,
    dt.time(12, 0),
    dt.time(23, 59, 59, 999999),
]
ARROW_TYPES = [pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns")]
BOUNDS = [
    (dt.time(1, 30), dt.time(12)),
    (dt.time(1, 30, 0, 500), None),
    (None, dt.time(1, 30, 0, 499)),
    (dt.time(23, 59, 59, 999999), dt.time(23, 59, 59, 999999)),
    (dt.time(13), dt.time(2)),
]


def arrow_times(t):
    if t.unit in ("s", "ms"):  # whole units only: a time32 holds no finer value
        cut = [
            None
            if v is None
            else v.replace(microsecond=0 if t.unit == "s" else v.microsecond // 1000 * 1000)
            for v in TIMES
        ]
        return pa.array(cut, t), cut
    return pa.array(TIMES, t), TIMES


def expected(values, lo, hi, inclusive):
    lo_ok = {"both": lambda v: v >= lo, "left": lambda v: v >= lo}.get(inclusive, lambda v: v > lo)
    hi_ok = {"both": lambda v: v <= hi, "right": lambda v: v <= hi}.get(inclusive, lambda v: v < hi)
    return [
        i
        for i, v in enumerate(values)
        if v is not None and (lo is None or lo_ok(v)) and (hi is None or hi_ok(v))
    ]


@pytest.mark.parametrize("t", ARROW_TYPES, ids=str)
@pytest.mark.parametrize("lo,hi", BOUNDS)
@pytest.mark.parametrize("inclusive", ["both", "left", "right", "neither"])
def test_arrow_time_bounds(t, lo, hi, inclusive):
    arr, values = arrow_times(t)
    got = sf.filter_indexes(arr, lo, hi, inclusive=inclusive)
    assert got.tolist() == expected(values, lo, hi, inclusive)
    c_path = _core._resolve_bounds(arr, lo, hi, inclusive)
    py_path = _core._resolve_bounds(arr, lo, hi, inclusive, python=python_rule)
    assert c_path[0] == "c" and py_path[0] == "python"
    assert c_path[1] == py_path[1]


@pytest.mark.parametrize("t", ARROW_TYPES, ids=str)
@pytest.mark.parametrize(
    "bound",
    [
        dt.timedelta(hours=1),
        np.timedelta64(1, "h"),
        3600,
        "01:00",
        dt.time(1, tzinfo=dt.timezone.utc),
    ],
    ids=repr,
)
def test_arrow_time_refuses_other_bounds(t, bound):
    arr, _ = arrow_times(t)
    with pytest.raises(TypeError, match="time-of-day data must be naive datetime.time"):
        sf.filter_indexes(arr, bound, None)
    with pytest.raises(TypeError, match="time-of-day data must be naive datetime.time"):
        sf.count_in_range(arr, None, bound)


def test_pandas_refuses_timedelta_on_times():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError):
        pd.Series([dt.time(1)]).between(dt.timedelta(0), dt.timedelta(hours=2))


def test_polars_time_as_is_between():
    pl = pytest.importorskip("polars")
    s = pl.Series([v for v in TIMES], dtype=pl.Time)
    for lo, hi in BOUNDS:
        if lo is None or hi is None:
            continue
        for closed, inclusive in [
            ("both", "both"),
            ("left", "left"),
            ("right", "right"),
            ("none", "neither"),
        ]:
            want = s.is_between(lo, hi, closed=closed).fill_null(False).arg_true().to_list()
            assert sf.filter_indexes(s, lo, hi, inclusive=inclusive).tolist() == want
    with pytest.raises(TypeError):
        sf.filter_indexes(s, dt.timedelta(0), None)
