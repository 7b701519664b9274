"""simdfilter on Dask arrays and DataFrames: each chunk filtered where it lives.

>>> import dask.array as da, simdfilter.dask as sfd
>>> x = da.arange(1_000_000, chunks=250_000).astype("uint32")
>>> sfd.count_in_range(x, 10, 19).compute()
np.int64(10)
>>> sfd.filter_indexes(x, 999_998, None).compute()
array([999998, 999999])

Every function is lazy and builds one task per chunk (one ``simdfilter`` call
on the chunk, on whichever worker holds it) plus the assembly; no task ever
makes a boolean mask of the data's size, and no chunk travels to the client.

Functions
---------
filter_indexes   global flat C-order positions of the values in range
filter_values    the values in range, in flat C order
count_in_range   how many values are in range (a tree reduction)

Importing this module also registers the ``sf`` accessor on Dask DataFrames and
Series (when ``dask.dataframe`` is importable): ``ds.sf.between``,
``ds.sf.filter``, ``ds.sf.count``, ``ddf.sf.filter(**ranges)`` and
``ddf.sf.count(**ranges)``. See :class:`SeriesAccessor` and
:class:`DataFrameAccessor`. They run this module's own per-partition functions
(``simdfilter.filter_indexes`` / ``count_in_range`` on each partition's NumPy
data), with pandas' own comparisons for the column kinds the kernels cannot
read yet (nullable, Arrow-backed, tz-aware, strings, object...), so their
results are always pandas'.

Install with ``pip install 'simdfilter[dask]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union, overload

try:
    import dask.array  # noqa: F401  (the array functions need it; checked here first)
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "simdfilter.dask needs the 'dask' package (with dask.array): pip install 'simdfilter[dask]'"
    ) from exc

# The arrays and the DataFrame accessor live in private modules of their own;
# this module is their public face and registers the accessors.
from simdfilter._dask_arrays import count_in_range, filter_indexes, filter_values
from simdfilter._dask_frame import DataFrameAccessor, SeriesAccessor

if TYPE_CHECKING:  # for the annotations only: dask.dataframe may be absent
    import dask.dataframe as dd

__all__ = [
    "filter_indexes",
    "filter_values",
    "count_in_range",
    "sf",
    "SeriesAccessor",
    "DataFrameAccessor",
]

# They are documented, and shown by help() and repr(), as this module's.
for _public in (filter_indexes, filter_values, count_in_range, SeriesAccessor, DataFrameAccessor):
    _public.__module__ = __name__
del _public


def _register_accessors() -> bool:
    try:
        from dask.dataframe.extensions import (
            register_dataframe_accessor,
            register_series_accessor,
        )
    except ImportError:
        # dask without its dataframe part (pandas, pyarrow): arrays only.
        return False
    register_series_accessor("sf")(SeriesAccessor)
    register_dataframe_accessor("sf")(DataFrameAccessor)
    return True


HAS_DATAFRAME: bool = _register_accessors()


@overload
def sf(obj: dd.DataFrame) -> DataFrameAccessor: ...
@overload
def sf(obj: dd.Series) -> SeriesAccessor: ...
def sf(obj: Union[dd.Series, dd.DataFrame]) -> Union[SeriesAccessor, DataFrameAccessor]:
    """``obj.sf``, typed: the accessor of a Dask Series or DataFrame.

    The registered ``ddf.sf`` is invisible to type checkers; this function gives
    the same accessor with its type. (Dask's own constructors, ``from_pandas``
    among them, are unannotated: annotate the frame, ``ddf: dd.DataFrame = ...``,
    so that a checker picks the overload.)

    Raises
    ------
    TypeError
        `obj` is neither a Dask Series nor a Dask DataFrame (or this dask has no
        ``dask.dataframe``).
    """
    if HAS_DATAFRAME:
        import dask.dataframe as dd

        if isinstance(obj, dd.DataFrame):
            return DataFrameAccessor(obj)
        if isinstance(obj, dd.Series):
            return SeriesAccessor(obj)
    raise TypeError(f"sf() takes a Dask Series or DataFrame, not {type(obj).__name__}")
