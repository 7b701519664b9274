"""The Dask half of the user's typed script (user_script.py has the rest): the
Dask face's calls, accessors through its typed ``sf(obj)``.

tests/test_typing.py checks it with ``mypy --strict`` and pyright, with no
ignore comment, and runs it, where Dask exports what it names: Dask 2024.8 (the
newest for CPython 3.9, its DataFrame in the separate dask-expr package) has no
``dask.dataframe.Scalar``, and type checkers find dask.array's and
dask.dataframe's names unexported there.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
from typing_extensions import assert_type

import simdfilter.dask

df = pd.DataFrame(
    {
        "delay": pd.array([2, 33, None, 17, 80, 15], dtype="Int64"),
        "hour": pd.date_range("2013-02-27 06:00", periods=6, freq="D"),
    }
)
either: List[Dict[str, Tuple[Any, Any]]] = [{"delay": (15, 60)}, {"hour": ("2013-03-01", None)}]

# ---- Dask -------------------------------------------------------------------------
# Dask annotates chunks= as a str (its default, "auto"): a size in bytes is one.
x = da.from_array(np.arange(1000, dtype=np.uint32), chunks="1000 B")
assert_type(simdfilter.dask.filter_indexes(x, 10, 19), da.Array)
assert_type(simdfilter.dask.filter_values(x, 10, 19, inclusive="left"), da.Array)
assert_type(simdfilter.dask.count_in_range(x, 10, 19), da.Array)
# Dask's constructors are unannotated: a declared type picks sf()'s overload.
ddf: dd.DataFrame = dd.from_pandas(df, npartitions=2)
dframe = simdfilter.dask.sf(ddf)
assert_type(dframe, simdfilter.dask.DataFrameAccessor)
assert_type(dframe.filter({"delay": (15, 60)}), dd.DataFrame)
assert_type(dframe.count(delay=(15, 60)), dd.Scalar)
assert_type(dframe.filter([{"delay": (15, 60)}, {"delay": (None, 5)}], invert=True), dd.DataFrame)
assert_type(dframe.count(either), dd.Scalar)
ddelay: dd.Series = ddf["delay"]
dseries = simdfilter.dask.sf(ddelay)
assert_type(dseries, simdfilter.dask.SeriesAccessor)
assert_type(dseries.between(15, 60), dd.Series)
assert_type(dseries.between(15, 60, invert=True), dd.Series)
assert_type(dseries.filter(15, 60, invert=True), dd.Series)
assert_type(dseries.count(15, 60), dd.Scalar)
