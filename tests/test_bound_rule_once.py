"""The bound rule on numeric data is written once, in C (issue 44 item 2): every
number bound, the exact ones too (Fractions and other numbers.Rational, Decimals,
NumPy long doubles, other numbers.Integral, 0-d arrays, np.timedelta64 on integer
data), is read by csrc/cpython (bounds_py.c, bounds_exact.c) and answers as
simdfilter.reference does (pure NumPy and exact Python arithmetic, sharing no code
with the library), on every numeric dtype in both byte orders; the bounds it
refuses are refused in the words the Python rule used."""

import numbers
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import simdfilter as sf
from simdfilter import _core, reference

from arrays import MODES, NUMERIC_DTYPES, dtype_id, edge_values
from conftest import quick_loop

# Every numeric dtype, and each in the other byte order (the kernels read them
# byte-swapped; the bound rule must not care).
DTYPES = NUMERIC_DTYPES + [d.newbyteorder("S") for d in NUMERIC_DTYPES if d.itemsize > 1]


class Whole(numbers.Integral):
    """A numbers.Integral that is no int: read through int()."""

    def __init__(self, v):
        self.v = v

    def __int__(self):
        return self.v

    __index__ = __pos__ = __int__  # +self is Integral's numerator, which Fraction() reads

    def __repr__(self):
        return f"Whole({self.v})"

    # The abstract methods numbers.Integral asks for; none is called.
    def _no(self, *a):
        raise AssertionError("not called")

    __abs__ = __add__ = __and__ = __ceil__ = __eq__ = __floor__ = __floordiv__ = _no
    __invert__ = __le__ = __lshift__ = __lt__ = __mod__ = __mul__ = __neg__ = _no
    __or__ = __pow__ = __radd__ = __rand__ = __rfloordiv__ = _no
    __rlshift__ = __rmod__ = __rmul__ = __ror__ = __round__ = __rpow__ = _no
    __rrshift__ = __rshift__ = __rtruediv__ = __rxor__ = __truediv__ = _no
    __trunc__ = __xor__ = _no
    __hash__ = object.__hash__


class Ratio(numbers.Rational):
    """A numbers.Rational that is no Fraction, perhaps with a negative denominator."""

    def __init__(self, num, den):
        self._num, self._den = num, den

    @property
    def numerator(self):
        return self._num

    @property
    def denominator(self):
        return self._den

    def __repr__(self):
        return f"Ratio({self.numerator}, {self.denominator})"

    def _no(self, *a):
        raise AssertionError("not called")

    __abs__ = __add__ = __ceil__ = __eq__ = __floor__ = __floordiv__ = _no
    __le__ = __lt__ = __mod__ = __mul__ = __neg__ = __pos__ = __pow__ = _no
    __radd__ = __rfloordiv__ = __rmod__ = __rmul__ = __round__ = __rpow__ = _no
    __rtruediv__ = __truediv__ = __trunc__ = _no
    __hash__ = object.__hash__


def anchors(dtype):
    """Exact numbers at the places where the dtype's values turn."""
    out = [Fraction(0), Fraction(1, 3), Fraction(-7, 2), Fraction(5, 2), Fraction(255)]
    for v in edge_values(dtype):
        if isinstance(v, float) and not np.isfinite(v):
            continue
        out.append(Fraction(v))
    out += [Fraction(2**53 + 1), Fraction(2**63), Fraction(-(2**63)), Fraction(2**64 - 1)]
    return out


def exact_bounds(dtype):
    """Every kind of exact bound near every anchor, as (bound, what the reference
    is given for it): the reference takes Fractions, Decimals and long doubles
    itself, and a Rational through Fraction()."""
    tiny = Fraction(1, 10**40)
    out = []
    for q in anchors(dtype):
        for x in (q, q + tiny, q - tiny):
            out.append((x, x))
        out.append((np.array(q + tiny, dtype=object), q + tiny))  # a 0-d array: its element
        out.append((Ratio(q.numerator, q.denominator), q))
        if q.denominator == 1:
            out.append((Whole(int(q)), q))
        d = Decimal(q.numerator) / Decimal(q.denominator)  # 28 digits: inexact for 1/3
        # Zero's neighbours are 1e-1000026: the hostile tests' business.
        near = (d.next_plus(), d.next_minus()) if d else (Decimal("1e-30"), Decimal("-1e-30"))
        for x in (d,) + near:
            out.append((x, x))
    out += [
        (Decimal("NaN"), float("nan")),
        (Decimal("Infinity"), float("inf")),
        (Decimal("-Infinity"), float("-inf")),
    ]
    for x in (Decimal("-0"), Decimal("1e401"), Decimal("-1e401"), Decimal("1e-401")):
        out.append((x, x))
    out += [(Fraction(2**1101 + 1),) * 2, (Fraction(-1, 2**1101 + 1),) * 2]
    # a negative denominator (a Fraction keeps one unnormalised: the reference gets it reduced)
    out += [(Ratio(-7, -2), Fraction(7, 2)), (Ratio(7, -2), Fraction(-7, 2))]
    return out


def long_doubles():
    ld = np.longdouble
    out = [ld(1) / ld(3), ld(-2.5), ld(2) ** 63 + ld(1), ld(2) ** 64 - ld(1), ld("nan")]
    out += [np.array(ld(1) / ld(3)), ld(2) ** 70, -(ld(2) ** 1030)]
    with np.errstate(all="ignore"):
        out += [ld(2) ** -1080, np.nextafter(ld(1), ld(2)), np.nextafter(ld(2) ** 53, ld(0))]
        out += [np.nextafter(ld(float(np.finfo(np.float32).max)), ld(np.inf))]
    return out


def zero_d(dtype):
    """0-d arrays of the plain bounds: each reads as its element."""
    return [
        np.array(2),
        np.array(-1.5),
        np.array(True),
        np.array(np.float32(0.1)),
        np.array(2**64 - 1, dtype=np.uint64),
        np.array(7, dtype=np.int8),
    ]


def check(a, lo, hi, inclusive, ref_lo=None, ref_hi=None):
    """C's answer is the reference's (given ref_lo/ref_hi for the bounds it reads
    otherwise), and C read the bounds."""
    ref_lo = lo if ref_lo is None else ref_lo
    ref_hi = hi if ref_hi is None else ref_hi
    want = reference.filter_indexes(a, ref_lo, ref_hi, inclusive=inclusive)
    got = sf.filter_indexes(a, lo, hi, inclusive=inclusive)
    np.testing.assert_array_equal(got, want, err_msg=f"{a.dtype} {lo!r} {hi!r} {inclusive}")
    assert _core._resolve_bounds(a, lo, hi, inclusive)[0] == "c"


def data(dtype):
    vals = [v for v in edge_values(dtype)]
    a = np.array(vals, dtype=np.dtype(dtype).newbyteorder("="))
    if dtype.kind == "f":
        a = np.concatenate([a, np.array([0.1, 1 / 3, 2.5, -3.5, 1e-40, 255.0], dtype=a.dtype)])
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: dtype_id(d) + d.byteorder)
def test_exact_bounds_answer_as_the_reference(dtype):
    a = data(dtype)
    pairs = exact_bounds(dtype) + [(b, b) for b in long_doubles() + zero_d(dtype)]
    # The quick loop: every bound on each side in one mode (turning through
    # them), every third bound on the other byte order; the full suite: all.
    quick = quick_loop()
    if quick and not dtype.isnative:
        pairs = pairs[::3]
    for i, (b, ref) in enumerate(pairs):
        for inclusive in MODES[i % 4 :][:1] if quick else MODES:
            check(a, b, None, inclusive, ref, None)
            check(a, None, b, MODES[(i + 1) % 4] if quick else inclusive, None, ref)
        check(a, b, b, "both", ref, ref)
    for lo, hi in [
        (Fraction(-1, 3), Decimal("2.5")),
        (np.longdouble(-1) / 3, Fraction(7, 3)),
        (np.array(Fraction(1, 2), dtype=object), np.array(3)),
    ]:
        for inclusive in MODES:
            check(a, lo, hi, inclusive)
    for inclusive in MODES:
        check(a, Whole(-1), Ratio(5, 2), inclusive, Fraction(-1), Fraction(5, 2))


@pytest.mark.parametrize(
    "dtype", [d for d in DTYPES if d.kind in "biu"], ids=lambda d: dtype_id(d) + d.byteorder
)
def test_timedelta64_on_integer_data_counts_its_units(dtype):
    a = data(dtype)
    if a.dtype.str[1:] == "u8":  # NumPy refuses the cast
        with pytest.raises(TypeError, match="a timedelta64 bound does not apply to numeric data"):
            sf.filter_indexes(a, np.timedelta64(1, "s"), None)
        return
    bounds = [
        np.timedelta64(1, "s"),
        np.timedelta64(-2, "D"),
        np.timedelta64("NaT", "s"),  # units named: NumPy 2.5 deprecates the generic one
        np.timedelta64(3, "us"),
        np.timedelta64(2**63 - 1, "ns"),
        np.timedelta64(-(2**63) + 1, "ns"),
        np.array(np.timedelta64(1, "ms")),
    ]
    for b in bounds:
        for inclusive in MODES:
            check(a, b, None, inclusive)
            check(a, None, b, inclusive)
            check(a, b, b, inclusive)
        # beside an int: int64's -2**63 is NaT, which matches nothing
        check(a, -(2**70), b, "both")
        check(a, b, 2**70, "both")


# The words of the refusals: the Python rule's (simdfilter._bounds before issue 44),
# which the tests and users match.
REFUSED = [
    ("x", TypeError, "a str bound does not apply to numeric data"),
    (np.str_("1"), TypeError, "a str_ bound does not apply to numeric data"),
    (np.datetime64("2024-01-01"), TypeError, "a datetime64 bound does not apply to numeric data"),
    (np.array(np.datetime64(1, "s")), TypeError, "a datetime64 bound does not apply"),
    (b"1", TypeError, "bounds must be real numbers or None, not bytes"),
    (1j, TypeError, "bounds must be real numbers or None, not complex"),
    (object(), TypeError, "bounds must be real numbers or None, not object"),
    (Ratio(1, 0), ZeroDivisionError, "a Ratio bound has a zero denominator"),
]


@pytest.mark.parametrize(
    "dtype", [np.dtype(np.int64), np.dtype(">f4"), np.dtype(np.bool_)], ids=["i8", ">f4", "bool"]
)
@pytest.mark.parametrize(
    "bad, exc, words", REFUSED, ids=[type(r[0]).__name__ + str(i) for i, r in enumerate(REFUSED)]
)
def test_refusals_keep_their_words(dtype, bad, exc, words):
    a = np.arange(4).astype(dtype)
    for lo, hi in ((bad, None), (None, bad), (0, bad)):
        with pytest.raises(exc, match=words):
            sf.filter_indexes(a, lo, hi)


def test_dates_and_nat_are_refused_on_numbers():
    import datetime as dt

    a = np.arange(4)
    for b, name in [
        (dt.date(2024, 1, 1), "date"),
        (dt.datetime(2024, 1, 1), "datetime"),
        (dt.timedelta(1), "timedelta"),
    ]:
        with pytest.raises(TypeError, match=f"a {name} bound does not apply to numeric data"):
            sf.count_in_range(a, b, None)
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="a NaT bound does not apply to numeric data"):
        sf.count_in_range(a, pd.NaT, None)
    with pytest.raises(TypeError, match="a Timestamp bound does not apply to numeric data"):
        sf.count_in_range(a, pd.Timestamp(0), None)


@pytest.mark.parametrize("dtype", [">f4", "<f4", ">f8", ">i8", ">u2", ">i4"])
def test_non_native_byte_order_takes_every_bound_kind(dtype):
    # The big-endian float32 wrong answer of issue 44 came from a second copy of
    # the rule that did not normalise byte order: one rule now.
    a = np.arange(10, dtype=dtype)
    native = a.astype(a.dtype.newbyteorder("="))
    for lo, hi in [
        (2.5, 7),
        (np.float32(2.5), np.int64(7)),
        (Fraction(5, 2), Decimal("7")),
        (np.longdouble(2.5), np.array(7.0)),
        (Decimal("2.5"), Fraction(15, 2)),
        (Whole(2), 7.000001),
        (np.array(2.5), np.uint64(7)),
    ]:
        for inclusive in MODES:
            want = reference.filter_indexes(native, lo, hi, inclusive=inclusive)
            got = sf.filter_indexes(a, lo, hi, inclusive=inclusive)
            np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {lo!r} {hi!r}")
            np.testing.assert_array_equal(
                sf.filter_indexes(native, lo, hi, inclusive=inclusive), want
            )
    np.testing.assert_array_equal(
        sf.filter_indexes(np.arange(10, dtype=">f4"), 2.5, 7), [3, 4, 5, 6, 7]
    )
