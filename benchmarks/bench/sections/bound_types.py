"""Call cost by bound type: microseconds per filter_indexes call at n = 16, and what each
bound type adds over a plain int bound on int64 data (the target: under 0.5 us).

`cases()` is shared with benchmarks/bound_cost.py, which times the same calls in an old and
a new checkout side by side and counts their instructions under callgrind.
"""

import datetime as dt

import numpy as np
import simdfilter as sf

from ..methods import Method
from ..report import print_table
from ..timing import measure

N = 16
BASE = "int bound, int64 data"
# The base of the aware rows: unwrapping a Series costs too. None keeps every row, so the aware
# rows' bounds keep every row as well (the first and the last): a call keeping 8 of 16 also
# pays the result's shrink (PyArray_Resize, ~800 instructions under callgrind), which is no
# bound's cost; the naive rows and their base all keep the same 8.
AWARE_BASE = "None, tz-aware Series"
TARGET_ADDED_US = 0.5


def cases(n=N):
    """[(name, values, lo, hi)]: one call per bound type, on data the bound applies to."""
    ints = np.arange(n, dtype=np.int64) * 1000
    floats = ints.astype(np.float64)
    ns = (ints * 10**9 + 1_577_836_800 * 10**9).view("M8[ns]")  # 2020-01-01 on
    td = ints.view("m8[ns]")
    lo_ns, hi_ns = ns[3], ns[10]
    out = [
        (BASE, ints, 3000, 10000),
        ("np.int64, int64 data", ints, np.int64(3000), np.int64(10000)),
        ("np.int32, int64 data", ints, np.int32(3000), np.int32(10000)),
        ("np.uint8, int64 data", ints, np.uint8(3), np.uint8(200)),
        ("np.float32, float64 data", floats, np.float32(3000), np.float32(10000)),
        ("np.float16, float64 data", floats, np.float16(3), np.float16(2000)),
        ("np.bool_, int64 data", ints, np.False_, np.True_),
        ("int 2**53+1, float64 data", floats, -(2**53) - 1, 2**53 + 1),
        ("int 2**64-1, float64 data", floats, None, 2**64 - 1),
        ("np.datetime64[ns], M8[ns] data", ns, lo_ns, hi_ns),
        ("np.datetime64[s], M8[ns] data", ns, lo_ns.astype("M8[s]"), hi_ns.astype("M8[s]")),
        (
            "np.datetime64[D], M8[ns] data",
            ns,
            np.datetime64("2020-01-01"),
            np.datetime64("2020-01-02"),
        ),
        (
            "datetime.datetime, M8[ns] data",
            ns,
            lo_ns.astype("M8[us]").item(),
            hi_ns.astype("M8[us]").item(),
        ),
        ("datetime.date, M8[ns] data", ns, dt.date(2020, 1, 1), dt.date(2020, 1, 2)),
        ("np.timedelta64[s], m8[ns] data", td, np.timedelta64(3, "us"), np.timedelta64(10, "us")),
        (
            "datetime.timedelta, m8[ns] data",
            td,
            dt.timedelta(microseconds=3),
            dt.timedelta(microseconds=10),
        ),
        ("int ticks, m8[ns] data", td, 3000, 10000),
        ("ISO string, M8[ns] data", ns, "2020-01-01T00:00:01", "2020-01-01T03:00"),
        ("ISO string, hour alone (Python path)", ns, "2020-01-01T00", "2020-01-01T03"),
    ]
    try:
        import pandas as pd
    except ImportError:
        return out
    aware = pd.Series(ns).dt.tz_localize("UTC").dt.tz_convert("Europe/Paris")
    out += [
        ("pd.Timestamp, M8[ns] data", ns, pd.Timestamp(lo_ns), pd.Timestamp(hi_ns)),
        ("pd.Timedelta, m8[ns] data", td, pd.Timedelta(3, "us"), pd.Timedelta(10, "us")),
        ("pd.NaT, M8[ns] data", ns, pd.NaT, None),
        (AWARE_BASE, aware, None, None),
        ("aware pd.Timestamp, tz-aware Series", aware, aware.iloc[0], aware.iloc[-1]),
        (
            "aware datetime, tz-aware Series",
            aware,
            aware.iloc[0].to_pydatetime(),
            aware.iloc[-1].to_pydatetime(),
        ),
        (
            "ISO string with offset, tz-aware Series",
            aware,
            aware.iloc[0].isoformat(),
            aware.iloc[-1].isoformat(),
        ),
    ]
    return out


def run(ctx):
    from simdfilter import reference

    methods = []
    for name, values, lo, hi in cases():
        got, want = sf.filter_indexes(values, lo, hi), reference.filter_indexes(values, lo, hi)
        if not np.array_equal(got, want):
            raise AssertionError(
                f"filter_indexes with a {name} bound gave a wrong result - not timing it"
            )
        methods.append(
            Method(
                name, "simdfilter", "none", lambda v=values, a=lo, b=hi: sf.filter_indexes(v, a, b)
            )
        )
    path = getattr(sf._core, "_resolve_bounds", None)
    res = measure(methods, ctx.cfg["overhead_target"], ctx.cfg["overhead_repeats"])
    rows = []
    for (name, values, lo, hi), m in zip(cases(), methods):
        where = path(values, lo, hi)[0] if path else "?"
        base = AWARE_BASE if "tz-aware" in name else BASE
        rows.append(
            dict(
                n=N,
                method=name,
                path=where,
                base=base,
                us=res[m][0] * 1e6,
                median_us=res[m][1] * 1e6,
            )
        )
    return rows


def report(rows, result):
    us = {r["method"]: r["us"] for r in rows}

    def verdict(r):
        if r["method"] in (BASE, AWARE_BASE) or r["path"] != "c":
            return ""
        return "ok" if r["us"] - us[r["base"]] < TARGET_ADDED_US else "MISSED"

    print_table(
        f"CALL COST BY BOUND TYPE - filter_indexes, n={N}, microseconds per call (best)",
        ["bound, data", "path", "us", "added", "target"],
        [
            [
                r["method"],
                r["path"],
                f"{r['us']:.3f}",
                f"{r['us'] - us[r['base']]:+.3f}",
                verdict(r),
            ]
            for r in rows
        ],
        note=f"added: over '{BASE}' (aware rows: over '{AWARE_BASE}', their bounds keeping "
        f"all {N} rows as None does); "
        f"target: a bound resolved in C adds under {TARGET_ADDED_US} us",
    )
