"""Every supported dtype, every kernel, against the reference; unsupported ones refused."""

import datetime as dt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import simdfilter
from simdfilter import reference

from agree import assert_all_agree
from arrays import (
    KERNEL_DTYPES,
    MODES,
    NUMERIC_DTYPES,
    bound_strategy,
    data_strategy,
    dtype_id,
    edge_array,
    ordered_edge_values,
)
from conftest import KERNELS, examples


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
@settings(max_examples=examples(40), deadline=None)
@given(data=st.data())
def test_property_every_dtype_and_kernel(dtype, data):
    a = data.draw(data_strategy(dtype), label="values")
    off = data.draw(st.integers(0, 7), label="offset")
    lo, hi = (
        data.draw(bound_strategy(dtype), label="lo"),
        data.draw(bound_strategy(dtype), label="hi"),
    )
    inclusive = data.draw(st.sampled_from(MODES), label="inclusive")
    buf = np.zeros(a.size + off, dtype=a.dtype)
    buf[off:] = a
    for name in KERNELS:
        with simdfilter.use_kernel(name):
            assert_all_agree(buf[off:], lo, hi, inclusive)


# Numeric only: time data runs the int64 kernels, and its exact reference costs
# several times the numeric sweep for no kernel path of its own.
@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=dtype_id)
def test_every_length_edges(kernel, dtype, rng):
    """Lengths 0..130 (covers every vector width's tail) of edge-crowded data."""
    buf = edge_array(dtype, 200, rng)
    edge_bounds = ordered_edge_values(dtype)
    pairs = [(lo, hi) for lo in edge_bounds[:6] for hi in edge_bounds[:6]] + [(None, None)]
    for n in range(131):
        a = buf[n % 9 : n % 9 + n]
        for lo, hi in pairs[:: 1 + n % 5]:
            assert_all_agree(a, lo, hi)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES, ids=dtype_id)
def test_large_random(kernel, dtype, rng):
    dtype = np.dtype(dtype)
    # The reference compares time data as Python ints: 30 001 are plenty for the
    # vector loops there (the int64 kernels get 300 001 as int64).
    n = 30_001 if dtype.kind in "Mm" else 300_001
    if dtype.kind == "f":
        a = (rng.standard_normal(n) * 100).astype(dtype)
        a[::97] = np.nan
        lo, hi = -30.5, 80
    elif dtype.kind == "b":
        a = rng.integers(0, 2, size=n).astype(bool)
        lo, hi = True, True
    elif dtype.kind in "Mm":
        a = rng.integers(-(2**62), 2**62, size=n).view(dtype)
        a[::97] = np.array("NaT", dtype=dtype)
        scalar = np.datetime64 if dtype.kind == "M" else np.timedelta64
        unit = np.datetime_data(dtype)[0]
        lo, hi = scalar(-(2**60), unit), scalar(2**61, unit)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
        lo, hi = int(info.min) // 3, int(info.max) // 2
    assert_all_agree(a, lo, hi)


@pytest.mark.parametrize("unit", ["D", "s", "ms", "ns"])
def test_datetime64(kernel, unit):
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    days = np.array(
        ["2019-12-31", "2020-01-01", "NaT", "2020-06-15", "2021-01-01", "1969-12-31"], dtype="M8[D]"
    ).astype(f"M8[{unit}]")
    a = np.concatenate([days] * 20)  # long enough for the vector loops
    bounds = [
        ("2020-01-01", "2020-12-31"),
        (np.datetime64("2020-01-01T00:00:00.5"), None),
        (None, np.datetime64("2020-01-01T00:00:00.000000001")),
        (dt.date(2020, 1, 1), dt.datetime(2020, 6, 15)),
        (pd.Timestamp("2019-12-31 12:00"), pd.Timestamp("2021-01-01")),
        (np.datetime64("NaT", "s"), None),
        (None, None),
        (np.datetime64("1969-12-31"), np.datetime64("1970-01-01")),
    ]
    for lo, hi in bounds:
        for mode in MODES:
            assert_all_agree(a, lo, hi, mode)
    assert simdfilter.filter_indexes(days, "2020-01-01", "2020-12-31").tolist() == [1, 3]
    assert simdfilter.filter_indexes(days, None, None).tolist() == [0, 1, 3, 4, 5]


def test_timedelta64(kernel):
    pd = pytest.importorskip("pandas", reason="pandas is not installed (pip install '.[test]')")
    a = np.array([0, 1500, -1, np.iinfo(np.int64).min, 3_600_000], dtype="m8[ms]")
    a = np.concatenate([a] * 13)
    for lo, hi in [
        (np.timedelta64(1, "s"), np.timedelta64(1, "h")),
        (0, 1500),
        (dt.timedelta(seconds=-1), pd.Timedelta("1h")),
        (np.timedelta64("NaT", "s"), 0),
        (np.timedelta64(1, "us"), None),
    ]:
        for mode in MODES:
            assert_all_agree(a, lo, hi, mode)


def test_bool_bytes_other_than_0_and_1_are_true(kernel):
    raw = np.array([0, 1, 2, 255] * 40, np.uint8).view(np.bool_)
    assert simdfilter.count_in_range(raw, None, None) == raw.size
    np.testing.assert_array_equal(simdfilter.filter_indexes(raw, True, True), np.flatnonzero(raw))
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(raw, False, False), np.flatnonzero(~raw)
    )
    np.testing.assert_array_equal(
        simdfilter.filter_indexes(raw, True, True), reference.filter_indexes(raw, True, True)
    )


def test_unsupported_dtypes_name_the_supported_ones():
    for bad in [
        np.array([1 + 2j]),
        np.array(["a"]),
        np.array([None], dtype=object),
        np.array([1], dtype=np.float16),
        np.zeros(2, dtype=[("a", "i4")]),
    ]:
        with pytest.raises(TypeError, match="supports .*uint32|compares numbers, booleans"):
            simdfilter.filter_indexes(bad, 0, 1)


def test_masked_elements_never_match_and_object_arrays_are_refused():
    # The mask is read, not ignored: a masked element never matches.
    assert simdfilter.filter_indexes(
        np.ma.array([1, 2, 3, 4], mask=[0, 1, 0, 0]), 2, 3
    ).tolist() == [2]
    with pytest.raises(TypeError, match="Python objects"):
        simdfilter.filter_indexes(np.array([object()]), 0, 1)
