from types import TracebackType
from typing import Any, Generic, Literal, Optional, Sequence, Tuple, Type, TypeVar, overload

import numpy as np
import numpy.typing as npt

_Inclusive = Literal["both", "left", "right", "neither"]
_Bound = Any  # a real number, None, or (datetime data) a datetime-like / ISO string;
# or a list, tuple or 1-d array of those (several ranges, lo[i] with hi[i])

_ScalarT = TypeVar("_ScalarT", bound=np.generic)
# Positions: uint32 below 2**32 elements, int64 from there, or the index_dtype asked for.
_Positions = npt.NDArray[np.integer[Any]]

__version__: str

def filter_indexes(
    values: npt.ArrayLike,
    lo: _Bound = None,
    hi: _Bound = None,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[npt.NDArray[Any]] = None,
    index_dtype: Optional[npt.DTypeLike] = None,
    threads: Optional[int] = None,
    within: Optional[npt.ArrayLike] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
    isin: Optional[npt.ArrayLike] = None,
) -> _Positions: ...

# filter_values: a NumPy array of the input's dtype (a MaskedArray's data, the
# values themselves), a NumPy array for a Python sequence; for a column (pandas,
# Polars, Arrow) a NumPy array too, except on a tz-aware datetime column, where it
# is the column's own kind with its zone (a pandas DatetimeArray, a Polars Series,
# an Arrow array): the last overload says Any for that reason.
@overload
def filter_values(
    values: np.ndarray[Any, np.dtype[_ScalarT]],
    lo: _Bound = None,
    hi: _Bound = None,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[npt.NDArray[_ScalarT]] = None,
    threads: Optional[int] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
    isin: Optional[npt.ArrayLike] = None,
) -> npt.NDArray[_ScalarT]: ...
@overload
def filter_values(
    values: Sequence[Any],
    lo: _Bound = None,
    hi: _Bound = None,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[np.ndarray[Any, np.dtype[Any]]] = None,
    threads: Optional[int] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
    isin: Optional[npt.ArrayLike] = None,
) -> npt.NDArray[Any]: ...
@overload
def filter_values(
    values: object,
    lo: _Bound = None,
    hi: _Bound = None,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[np.ndarray[Any, np.dtype[Any]]] = None,
    threads: Optional[int] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
    isin: Optional[npt.ArrayLike] = None,
) -> Any: ...
def count_in_range(
    values: npt.ArrayLike,
    lo: _Bound = None,
    hi: _Bound = None,
    *,
    inclusive: _Inclusive = "both",
    threads: Optional[int] = None,
    within: Optional[npt.ArrayLike] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
    isin: Optional[npt.ArrayLike] = None,
) -> int: ...
def in_range(
    values: npt.ArrayLike,
    lo: _Bound,
    hi: _Bound,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[npt.NDArray[Any]] = None,
    threads: Optional[int] = None,
    invert: Optional[bool] = False,
) -> npt.NDArray[np.bool_]: ...
def isin(
    values: npt.ArrayLike,
    items: Any,
    *,
    out: Optional[npt.NDArray[Any]] = None,
    threads: Optional[int] = None,
    invert: Optional[bool] = False,
) -> npt.NDArray[np.bool_]: ...

class ZoneMap(Generic[_ScalarT]):
    values: Any  # the column as given: a NumPy array, a pandas, Polars or Arrow column
    block: int
    @overload
    def __init__(self, values: npt.NDArray[_ScalarT], block: int = 4096) -> None: ...
    @overload
    def __init__(self: ZoneMap[Any], values: npt.ArrayLike, block: int = 4096) -> None: ...
    @property
    def nbytes(self) -> int: ...
    def filter_indexes(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        out: Optional[npt.NDArray[Any]] = None,
        index_dtype: Optional[npt.DTypeLike] = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> _Positions: ...
    def filter_values(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        out: Optional[npt.NDArray[Any]] = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> npt.NDArray[_ScalarT]: ...  # ZoneMap[Any]: as the function (a tz-aware column's kind)
    def count_in_range(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> int: ...

class Packed(Generic[_ScalarT]):
    dtype: np.dtype[Any]
    shape: Tuple[int, ...]
    size: int
    block: int
    def __init__(self, values: npt.NDArray[_ScalarT], block: int = 4096) -> None: ...
    @property
    def nbytes(self) -> int: ...
    def __len__(self) -> int: ...
    def to_numpy(self) -> npt.NDArray[_ScalarT]: ...
    def count_in_range(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        invert: Optional[bool] = False,
    ) -> int: ...
    def filter_indexes(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        invert: Optional[bool] = False,
    ) -> _Positions: ...
    def filter_values(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        invert: Optional[bool] = False,
    ) -> npt.NDArray[_ScalarT]: ...
    def in_range(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        invert: Optional[bool] = False,
    ) -> npt.NDArray[np.bool_]: ...

def available_kernels() -> Tuple[str, ...]: ...
def compiled_kernels() -> Tuple[str, ...]: ...
def active_kernel() -> str: ...
def default_kernel() -> str: ...
def cpu_features() -> Tuple[str, ...]: ...
def set_result_pool_limit(nbytes: int, /) -> int: ...

class use_kernel:
    name: str
    def __init__(self, name: str) -> None: ...
    def __enter__(self) -> "use_kernel": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None: ...
