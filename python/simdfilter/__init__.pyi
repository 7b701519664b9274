from types import TracebackType
from typing import Any, Literal, Optional, Tuple, Type

import numpy as np
import numpy.typing as npt

_Inclusive = Literal["both", "left", "right", "neither"]
_Bound = Any  # a real number, None, or (datetime data) a datetime-like / ISO string;
# or a list, tuple or 1-d array of those (several ranges, lo[i] with hi[i])

__version__: str

def filter_indexes(
    values: npt.ArrayLike,
    lo: _Bound,
    hi: _Bound,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[np.ndarray] = None,
    index_dtype: Optional[npt.DTypeLike] = None,
    threads: Optional[int] = None,
    within: Optional[npt.ArrayLike] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
) -> np.ndarray: ...
def filter_values(
    values: npt.ArrayLike,
    lo: _Bound,
    hi: _Bound,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
) -> Any: ...  # numpy.ndarray; on a tz-aware column, the column's own kind with its zone
def count_in_range(
    values: npt.ArrayLike,
    lo: _Bound,
    hi: _Bound,
    *,
    inclusive: _Inclusive = "both",
    threads: Optional[int] = None,
    within: Optional[npt.ArrayLike] = None,
    assume_sorted: bool = False,
    invert: Optional[bool] = False,
) -> int: ...
def in_range(
    values: npt.ArrayLike,
    lo: _Bound,
    hi: _Bound,
    *,
    inclusive: _Inclusive = "both",
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
    invert: Optional[bool] = False,
) -> npt.NDArray[np.bool_]: ...

class ZoneMap:
    values: Any
    block: int
    def __init__(self, values: npt.ArrayLike, block: int = 4096) -> None: ...
    @property
    def nbytes(self) -> int: ...
    def filter_indexes(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        out: Optional[np.ndarray] = None,
        index_dtype: Optional[npt.DTypeLike] = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> np.ndarray: ...
    def filter_values(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        out: Optional[np.ndarray] = None,
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> Any: ...  # as the function: a tz-aware column's own kind
    def count_in_range(
        self,
        lo: _Bound,
        hi: _Bound,
        *,
        inclusive: _Inclusive = "both",
        threads: Optional[int] = None,
        invert: Optional[bool] = False,
    ) -> int: ...

def available_kernels() -> Tuple[str, ...]: ...
def compiled_kernels() -> Tuple[str, ...]: ...
def active_kernel() -> str: ...
def default_kernel() -> str: ...
def cpu_features() -> Tuple[str, ...]: ...

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
