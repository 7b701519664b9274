"""A user's script calling every documented function, accessors included (the
Dask face's in user_script_dask.py).

tests/test_typing.py checks it with ``mypy --strict`` and pyright, with no
ignore comment, and runs it. The registered accessors (``s.sf``, ``df.sf``,
``pl.col(c).sf``, ``ddf.sf``) are invisible to type checkers: pandas-stubs reads
``df.sf`` as a column and ``s.sf`` as an element, Polars' classes have no ``sf``.
Typed code calls the same accessors through ``sf(obj)`` of each face, as here.
``assert_type`` pins what each call's result is typed as.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple, Union

import numpy as np
import numpy.typing as npt
import pandas as pd
import polars as pl
from typing_extensions import assert_type

import simdfilter
import simdfilter.pandas
import simdfilter.polars

Positions = npt.NDArray[np.integer[Any]]

# ---- NumPy ------------------------------------------------------------------------
years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)
assert_type(simdfilter.filter_indexes(years, 1982, 2000), Positions)
assert_type(simdfilter.filter_values(years, 1982, 2000), npt.NDArray[np.uint32])
assert_type(simdfilter.filter_values([1.5, 2.5], 0, 2), npt.NDArray[Any])
assert_type(simdfilter.count_in_range(years, 2000, None), int)
assert_type(simdfilter.in_range(years, 1982, 2000), npt.NDArray[np.bool_])
delays = np.array([3.5, 41.0, np.nan, -2.0, 7.25, 0.0], dtype=np.float64)
outliers = simdfilter.filter_indexes(delays, 0, 30, invert=True, inclusive="left")
assert_type(delays[outliers], npt.NDArray[np.float64])
simdfilter.filter_indexes(years, [1930, 2015], [1980, 2020], index_dtype=np.int64, threads=1)
out = np.empty(len(years), dtype=np.uint32)
assert_type(simdfilter.filter_values(years, 1982, 2000, out=out), npt.NDArray[np.uint32])
ts = np.arange("2026-12-04T00:00", "2026-12-05T00:00", dtype="datetime64[s]")
simdfilter.count_in_range(ts, "2026-12-04T13:00", "2026-12-04T14:00", assume_sorted=True)
within = simdfilter.filter_indexes(years, 1900, 2000)
simdfilter.count_in_range(years, 1990, None, within=within)
assert_type(simdfilter.isin(years, [1934, 1996]), npt.NDArray[np.bool_])
assert_type(simdfilter.isin(years, {1934}, invert=True, threads=1), npt.NDArray[np.bool_])
assert_type(simdfilter.filter_indexes(years, isin=[1934, 1996]), Positions)
assert_type(simdfilter.filter_values(years, isin=np.array([1934])), npt.NDArray[np.uint32])
assert_type(simdfilter.count_in_range(years, isin=range(1990, 2000), invert=True), int)

zm = simdfilter.ZoneMap(delays, block=2)
assert_type(zm, simdfilter.ZoneMap[np.float64])
assert_type(zm.filter_indexes(0.0, 30.0), Positions)
assert_type(zm.filter_values(0.0, 30.0, invert=True), npt.NDArray[np.float64])
assert_type(zm.count_in_range(0.0, None), int)
assert_type(zm.nbytes, int)

kernels: Tuple[str, ...] = simdfilter.available_kernels()
assert_type(simdfilter.compiled_kernels(), Tuple[str, ...])
assert_type(simdfilter.default_kernel(), str)
assert_type(simdfilter.cpu_features(), Tuple[str, ...])
assert_type(simdfilter.set_result_pool_limit(simdfilter.set_result_pool_limit(1 << 30)), int)
with simdfilter.use_kernel("scalar") as chosen:
    assert_type(chosen.name, str)
    assert_type(simdfilter.active_kernel(), str)
simdfilter.use_kernel(simdfilter.default_kernel())
assert_type(simdfilter.__version__, str)

# ---- pandas -----------------------------------------------------------------------
df = pd.DataFrame(
    {
        "delay": pd.array([2, 33, None, 17, 80, 15], dtype="Int64"),
        "hour": pd.date_range("2013-02-27 06:00", periods=6, freq="D"),
    }
)
delay = simdfilter.pandas.sf(df["delay"])
assert_type(delay, simdfilter.pandas.SeriesAccessor)
assert_type(delay.between(15, 60, inclusive="left"), "pd.Series[bool]")
assert_type(delay.between(15, 60, invert=True), "pd.Series[bool]")
assert_type(delay.filter(15, 60, invert=True), "pd.Series[Any]")
assert_type(delay.count(15, 60), int)
assert_type(delay.isin([2, 17], invert=True), "pd.Series[bool]")
pandas_positions: npt.NDArray[Union[np.uint32, np.int64]] = delay.indexes(15, 60)
frame = simdfilter.pandas.sf(df)
assert_type(frame, simdfilter.pandas.DataFrameAccessor)
assert_type(frame.filter({"delay": (15, 60), "hour": ("2013-03-01", None)}), pd.DataFrame)
assert_type(frame.filter(delay=(15, 60)), pd.DataFrame)
assert_type(frame.count(delay=(15, 60)), int)
assert_type(frame.filter([{"delay": (15, 60)}, {"hour": ("2013-03-01", None)}]), pd.DataFrame)
either: List[Dict[str, Tuple[Any, Any]]] = [{"delay": (15, 60)}, {"hour": ("2013-03-01", None)}]
assert_type(frame.filter(either, invert=True), pd.DataFrame)
assert_type(frame.indexes(either[0], invert=None), npt.NDArray[Union[np.uint32, np.int64]])
assert_type(frame.count([{"delay": (None, 10)}, {"delay": (50, None)}], "left"), int)
assert_type(frame.indexes({"delay": (15, 60)}, "neither"), npt.NDArray[Union[np.uint32, np.int64]])
rows = df.iloc[frame.indexes(delay=(15, 60))]

# ---- Polars -----------------------------------------------------------------------
pdf = pl.from_pandas(df)
pdelay = simdfilter.polars.sf(pdf["delay"])
assert_type(pdelay, simdfilter.polars.SeriesNamespace)
assert_type(pdelay.between(15, 60, closed="left"), pl.Series)
assert_type(pdelay.filter(15, 60, invert=True), pl.Series)
assert_type(pdelay.indexes(15, 60), pl.Series)
assert_type(pdelay.count(15, None), int)
assert_type(pdelay.is_in([2, 17], nulls_equal=False, invert=True), pl.Series)
pframe = simdfilter.polars.sf(pdf)
assert_type(pframe, simdfilter.polars.DataFrameNamespace)
assert_type(pframe.filter({"delay": (15, 60)}), pl.DataFrame)
assert_type(pframe.indexes(delay=(15, 60)), pl.Series)
assert_type(pframe.count(delay=(15, 60), closed="none"), int)
assert_type(
    pframe.filter([{"delay": (None, 10)}, {"delay": (50, None)}], invert=True), pl.DataFrame
)
outer: List[Dict[str, Tuple[Any, Any]]] = [{"delay": (None, 10)}, {"delay": (50, None)}]
assert_type(pframe.count(outer), int)
plazy = simdfilter.polars.sf(pdf.lazy())
assert_type(plazy, simdfilter.polars.LazyFrameNamespace)
assert_type(plazy.filter({"delay": (15, 60)}, invert=True), pl.LazyFrame)
assert_type(plazy.count([{"delay": (None, 10)}, {"delay": (50, None)}]), pl.LazyFrame)
assert_type(plazy.indexes(delay=(15, 60)), pl.LazyFrame)
assert_type(plazy.mask(delay=(15, 60)), pl.Expr)
expr = simdfilter.polars.sf(pl.col("delay"))
assert_type(expr, simdfilter.polars.ExprNamespace)
lazy = pdf.lazy().filter(expr.between(15, 60, closed="left")).collect()
assert_type(lazy, pl.DataFrame)
assert_type(expr.count(15, 60), pl.Expr)
assert_type(expr.between(15, 60, invert=True), pl.Expr)
assert_type(expr.count(15, 60, invert=True), pl.Expr)
assert_type(expr.filter(15, 60), pl.Expr)
assert_type(expr.is_in([2, 17], invert=True), pl.Expr)
assert_type(expr.indexes(15, 60, closed="none", invert=True), pl.Expr)
assert_type(pdelay.between(15, 60, invert=True), pl.Series)
pdf.group_by("hour").agg(expr.count(15, 60))
