"""Two facts of NumPy 2's bound rule (NEP 50) that the faces weigh when they decide
whose answer a bound gets (pandas' or Polars' own, or the kernels'). The rule
itself is written once, in C (csrc/cpython/bounds_py.c, numpy_rule), and the C
binding alone applies it.
"""

from __future__ import annotations

import numpy as np


def _subclasses_weak() -> bool:
    """Whether this NumPy takes a subclass of int or float for a weak scalar, as
    NumPy 2.0.x does (its abstractdtypes.h checks PyLong_Check and PyFloat_Check,
    with a note to make them exact in 2.1); asked of NumPy itself. NumPy 1.x: no,
    the rule is NumPy 2's newest (as csrc/cpython/bounds_py.c's subclass_weak)."""

    class _Sub(float):
        pass

    return bool(
        np.lib.NumpyVersion(np.__version__) >= "2.0.0"
        and np.result_type(np.float32, _Sub(1.0)) == np.dtype(np.float32)
    )


SUBCLASSES_WEAK: bool = _subclasses_weak()

# The least double a float32 cast overflows at: FLT_MAX plus half an ulp (ties go
# to infinity, FLT_MAX being odd). NumPy warns there, and the C rule keeps the
# number (bounds_py.c's as_float32).
F32_OVERFLOW: float = float.fromhex("0x1.ffffffp127")
