"""Assertions every test family shares: simdfilter against simdfilter.reference,
and the hosts' own answers the faces are held to (`numpy_answer`, `pandas_between`).

The reference's answers are memoized by content (`reference_answers`): a
test pinned to each kernel in turn draws the same data for every kernel (the
`rng` fixture's seed leaves the kernel out), and the exact reference (Python-int
and Fraction comparisons) costs several times the kernels themselves, so it
runs once per input instead of once per kernel. Under qemu-aarch64, where
Python runs 10 to 30 times slower, that is most of the suite's time.
"""

import datetime as dt
import hashlib
import warnings
from collections import OrderedDict
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import simdfilter
from simdfilter import reference

# Bound types whose repr says their value exactly (with the type beside it in
# the key): anything else is never memoized.
_EXACT_REPR = (
    type(None),
    bool,
    int,
    float,
    str,
    Fraction,
    Decimal,
    np.generic,
    dt.date,
    dt.timedelta,
)
# At most this many bytes of answers are kept (least recently used out first).
_MEMO_BUDGET = 64 * 2**20
_memo = OrderedDict()
_memo_bytes = 0


def _bound_key(b):
    if not isinstance(b, _EXACT_REPR) or isinstance(b, np.void):
        return None
    if isinstance(b, (dt.time, dt.datetime)) and b.tzinfo is not None:
        return None  # a tzinfo's repr need not say its offsets
    return type(b).__qualname__, repr(b)


def _key(a, lo, hi, inclusive):
    if type(a) is not np.ndarray or a.dtype.hasobject:
        return None
    klo, khi = _bound_key(lo), _bound_key(hi)
    if klo is None and lo is not None or khi is None and hi is not None:
        return None
    # The values in C order, their dtype (byte order included) and shape are all
    # the reference reads of an ndarray: strides and alignment change nothing.
    raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
    digest = hashlib.blake2b(raw.data, digest_size=16).digest()
    return a.dtype.str, a.shape, digest, klo, khi, inclusive


def reference_answers(a, lo, hi, inclusive="both"):
    """(reference.filter_indexes, reference.filter_values) of `a`, read-only,
    computed once per distinct input."""
    global _memo_bytes
    key = _key(a, lo, hi, inclusive)
    if key is not None and key in _memo:
        _memo.move_to_end(key)
        return _memo[key]
    answers = (
        reference.filter_indexes(a, lo, hi, inclusive=inclusive),
        reference.filter_values(a, lo, hi, inclusive=inclusive),
    )
    if key is not None:
        for x in answers:
            x.flags.writeable = False
        _memo[key] = answers
        _memo_bytes += sum(x.nbytes for x in answers)
        while _memo_bytes > _MEMO_BUDGET and len(_memo) > 1:
            _memo_bytes -= sum(x.nbytes for x in _memo.popitem(last=False)[1])
    return answers


def assert_same(got, want, err_msg=""):
    """np.testing.assert_array_equal, at the cost of `==` when they are equal (its
    own bookkeeping costs ten times the comparison of a short array), and stricter:
    the shapes must be the same, not merely broadcastable."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape == want.shape and np.array_equal(got, want):
        return
    np.testing.assert_array_equal(got, want, err_msg=err_msg)
    raise AssertionError("shapes differ: %s and %s %s" % (got.shape, want.shape, err_msg))


def assert_all_agree(a, lo, hi, inclusive="both"):
    """filter_indexes (32- and 64-bit positions), filter_values and count_in_range
    all equal the reference on `a`."""
    want_idx, want_val = reference_answers(a, lo, hi, inclusive)
    got_idx = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    got_val = simdfilter.filter_values(a, lo, hi, inclusive=inclusive)
    assert got_idx.dtype == want_idx.dtype
    assert_same(got_idx, want_idx)
    # 64-bit positions take their own kernel path (index64).
    got64 = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, index_dtype=np.int64)
    assert got64.dtype == np.int64
    assert_same(got64, want_idx)
    assert got_val.dtype == want_val.dtype
    # Compare bits: NaN never matches, and -0.0 must stay -0.0.
    assert got_val.shape == want_val.shape and got_val.tobytes() == want_val.tobytes()
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want_idx.size


def check_answers(a, lo, hi, inclusive="both", invert=False, **kw):
    """Every answer on `a` (one range, or the ranges (lo[i], hi[i])) against the
    reference: filter_indexes (`kw` passed to its 32-bit call; 64-bit positions
    too), filter_values, count_in_range and in_range, each with `invert`.
    """
    want = reference.filter_indexes(a, lo, hi, inclusive=inclusive, invert=invert)
    got = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, invert=invert, **kw)
    assert_same(got, want)
    got64 = simdfilter.filter_indexes(
        a, lo, hi, inclusive=inclusive, invert=invert, index_dtype=np.int64
    )
    assert_same(got64, want.astype(np.int64))
    values = simdfilter.filter_values(a, lo, hi, inclusive=inclusive, invert=invert)
    want_values = reference.filter_values(a, lo, hi, inclusive=inclusive, invert=invert)
    assert values.dtype == want_values.dtype
    assert values.tobytes() == want_values.tobytes()  # bits: NaN and -0.0 as they are
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive, invert=invert) == want.size
    mask = simdfilter.in_range(a, lo, hi, inclusive=inclusive, invert=invert)
    assert_same(mask, reference.in_range_mask(a, lo, hi, inclusive, invert=invert).ravel())


def _numpy_misreads_swapped_timedeltas():
    """Whether this NumPy compares timedelta64 data of the other byte order with a
    Python int by the raw bytes of both, unswapped: NumPy 2.0.x does (1 and 256
    seconds stored big-endian read as 2**56 and 2**48, the int 2 as 2**57; NaT is
    not recognised either). NumPy 2.1 on compares the values, as NumPy documents
    comparisons to do whatever the byte order; NumPy 1.x refuses the int, and
    NumPy 2.5 deprecates it (DeprecationWarning: numpy_answer is None there)."""
    a = np.array([1, 256], ">i8").view(">m8[s]")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the answer, not the warning
        try:
            return not a.dtype.isnative and (a <= 2).tolist() != [True, False]
        except TypeError:  # NumPy 1.x: no cast from a unitless int's timedelta64
            return False


NUMPY_MISREADS_SWAPPED_TIMEDELTAS = _numpy_misreads_swapped_timedeltas()


def numpy_answer(a, lo, hi, inclusive):
    """NumPy's own positions, or None where NumPy raises or warns (a Decimal bound
    beside NaN data raises decimal.InvalidOperation, an ArithmeticError).

    Where NumPy 2.0.x misreads swapped timedelta64 data beside a Python int
    (NUMPY_MISREADS_SWAPPED_TIMEDELTAS), NumPy's answer on the native copy of the
    data: what it documents, and what 2.1 on gives."""
    if (
        NUMPY_MISREADS_SWAPPED_TIMEDELTAS
        and a.dtype.kind == "m"
        and not a.dtype.isnative
        and any(type(b) is int for b in (lo, hi))
    ):
        a = a.astype(a.dtype.newbyteorder("="))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            m = a == a  # an unbounded end: every value but NaN, as a comparison would
            if lo is not None:
                m &= (a >= lo) if inclusive in ("both", "left") else (a > lo)
            if hi is not None:
                m &= (a <= hi) if inclusive in ("both", "right") else (a < hi)
        except (ArithmeticError, TypeError, RuntimeWarning, DeprecationWarning):
            # NumPy 2.5 deprecates comparing timedelta64 data with a bare int
            return None
    return np.flatnonzero(m)


def pandas_between(s, lo, hi, inclusive):
    """pandas' own mask for s in [lo, hi] (a Series, NA where s is), a None end
    unbounded: pandas' between compares with None itself."""
    if lo is not None and hi is not None:
        return s.between(lo, hi, inclusive=inclusive)
    if lo is None and hi is None:
        return s == s
    if lo is not None:
        return s >= lo if inclusive in ("both", "left") else s > lo
    return s <= hi if inclusive in ("both", "right") else s < hi


def generic_timedelta_deprecated():
    """Whether this NumPy deprecates timedelta64's generic unit (2.5 on: it warns
    on making one and on comparing with it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        try:
            np.timedelta64(0)
        except DeprecationWarning:
            return True
    return False


def generic_timedelta(n):
    """np.timedelta64(n) with no unit, or a skip where NumPy deprecates that unit."""
    if generic_timedelta_deprecated():
        pytest.skip(f"NumPy {np.__version__} deprecates timedelta64's generic unit")
    return np.timedelta64(n)
