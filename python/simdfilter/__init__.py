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
in_range            a bool array: True where the value is in [lo, hi]
isin                a bool array: True where the value equals one of some items (np.isin)
ZoneMap             min and max per block: repeated queries skip the blocks out of range
Packed              a column bit-packed per block, queried packed in a fraction of the memory
available_kernels   kernels this machine can run, slowest first
compiled_kernels    kernels compiled into this build, slowest first
active_kernel       the kernel a call made here runs
default_kernel      the kernel dispatch picks for this CPU
use_kernel          choose the kernel: process-wide, or in a ``with`` block only
cpu_features        what dispatch detected
set_result_pool_limit  how much memory of dead results is kept for the next calls

The environment variable SIMDFILTER_KERNEL=<name>, read by the C library at
import, sets the process default kernel as a bare ``use_kernel(name)`` call
does; a name this CPU cannot run makes the import fail, saying why.
"""

from __future__ import annotations

import threading as _threading
import weakref as _weakref

from . import _core
from ._core import (
    active_kernel,
    available_kernels,
    compiled_kernels,
    count_in_range,
    default_kernel,
    filter_indexes,
    filter_values,
    in_range,
    isin,
    set_result_pool_limit,
)
from ._packed import Packed
from ._zonemap import ZoneMap

__version__: str = _core.__version__


__all__ = [
    "filter_indexes",
    "filter_values",
    "count_in_range",
    "in_range",
    "isin",
    "ZoneMap",
    "Packed",
    "available_kernels",
    "compiled_kernels",
    "active_kernel",
    "default_kernel",
    "use_kernel",
    "cpu_features",
    "set_result_pool_limit",
    "__version__",
]


class _DefaultKernel:
    """The process default kernel, as the bare use_kernel calls left it.

    ``use_kernel(name)`` cannot tell whether a ``with`` follows it, so it sets
    the process default at once (what a bare call means) and ``__enter__``
    takes that change back: inside a block the kernel is the context's alone.
    Two threads can interleave their constructors and ``__enter__`` calls, so
    the changes are kept in order and taking one back restores what the others
    left, rather than what this one saw before it.
    """

    def __init__(self) -> None:
        self._lock = _threading.Lock()
        self._base = ""  # the default before the oldest change still kept
        self._changes: list = []  # [weakref to a use_kernel, its kernel name]

    def change(self, chooser: "use_kernel", name: str) -> None:
        with self._lock:
            previous = _core._set_default_kernel(name)
            if not self._changes:
                self._base = previous
            self._changes.append([_weakref.ref(chooser), name])
            self._forget_settled()

    def take_back(self, chooser: "use_kernel") -> None:
        with self._lock:
            for i, (ref, _name) in enumerate(self._changes):
                if ref() is chooser:
                    del self._changes[i]
                    break
            else:
                return
            _core._set_default_kernel(self._changes[-1][1] if self._changes else self._base)
            self._forget_settled()

    def _forget_settled(self) -> None:
        # A change whose use_kernel object is gone was never entered: it stands
        # for good, and every change before it can no longer show through.
        for i in range(len(self._changes) - 1, -1, -1):
            if self._changes[i][0]() is None:
                self._base = self._changes[i][1]
                del self._changes[: i + 1]
                return


_default_kernel = _DefaultKernel()


class use_kernel:
    """Choose the kernel: for the process, or as a context manager for the block only.

    A bare call, ``use_kernel(name)``, makes `name` the process default from then
    on. ``with use_kernel(name):`` runs the calls inside the block with `name` and
    leaves the process default as it was: the choice belongs to the block's
    thread or asyncio task (a context variable, as ``decimal.localcontext``), so
    other threads and tasks keep theirs, and blocks nest. A thread started inside
    a block runs the process default unless it is given the block's context
    (``contextvars.copy_context().run``). Every kernel gives the same results;
    only the speed differs.

    Parameters
    ----------
    name : str
        One of `available_kernels()`.

    Raises
    ------
    TypeError
        `name` is not a str.
    ValueError
        The name is unknown, belongs to another architecture or was left out of
        this build, or this CPU or OS cannot run that kernel; the message says
        which and lists the available ones.

    Examples
    --------
    >>> import numpy as np, simdfilter
    >>> a = np.arange(100, dtype=np.uint32)
    >>> with simdfilter.use_kernel("scalar"):
    ...     simdfilter.active_kernel(), simdfilter.count_in_range(a, 10, 19)
    ('scalar', 10)
    >>> simdfilter.active_kernel() == simdfilter.default_kernel()
    True
    """

    __slots__ = ("name", "_index", "_token", "__weakref__")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"kernel name must be a str, not {type(name).__name__}")
        self._index = _core._kernel_index(name)  # ValueError, saying why, if unusable
        self.name = name
        self._token = None
        _default_kernel.change(self, name)

    def __enter__(self) -> "use_kernel":
        _default_kernel.take_back(self)
        self._token = _core.kernel_context.set(self._index)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _core.kernel_context.reset(self._token)
            self._token = None

    def __repr__(self) -> str:
        return f"use_kernel({self.name!r})"


def cpu_features() -> tuple:
    """The CPU features dispatch detected and the OS enabled, e.g. ('sse4.1', 'avx2', ...)."""
    return tuple(_core.cpu_features().split())


def _check_environment() -> None:
    # The library reads SIMDFILTER_KERNEL itself (the Rust crate's too): a name
    # it refuses leaves it on its best kernel, and the import fails, saying why.
    try:
        _core._environment_kernel()
    except ValueError as exc:
        raise ImportError(str(exc)) from None


_check_environment()
