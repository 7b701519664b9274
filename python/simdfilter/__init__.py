"""simdfilter: the positions of the values of an array that lie in a range, fast.

>>> import numpy as np, simdfilter
>>> years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)
>>> simdfilter.filter_indexes(years, 1982, 2000)
array([0, 5, 7], dtype=uint32)

One pass over memory with the best SIMD kernel this CPU and OS support (scalar,
SSE4.1, AVX2, AVX-512 on x86-64; NEON, SVE on aarch64), chosen at import.

Functions
---------
filter_indexes      positions of the values in [lo, hi]
filter_values       the values in [lo, hi] themselves
count_in_range      how many values are in [lo, hi]
available_kernels   kernels this machine can run, slowest first
active_kernel       the kernel in use
use_kernel          switch kernels (also a context manager)
cpu_features        what dispatch detected

The environment variable SIMDFILTER_KERNEL=<name>, read at import, picks the
kernel as use_kernel does.
"""

from __future__ import annotations

import os as _os

from . import _core
from ._core import (
    active_kernel,
    available_kernels,
    compiled_kernels,
    count_in_range,
    filter_indexes,
    filter_values,
)

__version__: str = _core.__version__

__all__ = [
    "filter_indexes",
    "filter_values",
    "count_in_range",
    "available_kernels",
    "compiled_kernels",
    "active_kernel",
    "use_kernel",
    "cpu_features",
    "__version__",
]


class use_kernel:
    """Make `name` the process-wide kernel; as a context manager, only inside the block.

    Parameters
    ----------
    name : str
        One of `available_kernels()`.

    Raises
    ------
    ValueError
        The name is unknown, or this CPU or OS cannot run that kernel; the message
        lists the available ones.

    Examples
    --------
    >>> simdfilter.use_kernel("scalar")          # from now on   # doctest: +SKIP
    >>> with simdfilter.use_kernel("avx2"):      # only inside   # doctest: +SKIP
    ...     simdfilter.filter_indexes(a, 10, 20)
    """

    __slots__ = ("name", "previous")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be a str, not {type(name).__name__}")
        self.name = name
        self.previous = _core._set_kernel(name)

    def __enter__(self) -> "use_kernel":
        return self

    def __exit__(self, *exc: object) -> None:
        _core._set_kernel(self.previous)

    def __repr__(self) -> str:
        return f"use_kernel({self.name!r})"


def cpu_features() -> tuple:
    """The CPU features dispatch detected and the OS enabled, e.g. ('sse4.1', 'avx2', ...)."""
    return tuple(_core.cpu_features().split())


def _apply_environment() -> None:
    name = _os.environ.get("SIMDFILTER_KERNEL", "").strip()
    if name:
        try:
            _core._set_kernel(name)
        except ValueError as exc:
            raise ImportError(f"SIMDFILTER_KERNEL={name!r}: {exc}") from None


_apply_environment()
