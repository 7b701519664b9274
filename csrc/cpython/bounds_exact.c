/*
 * Number bounds that no machine type holds, read exactly: fractions.Fraction
 * (and any numbers.Rational), decimal.Decimal, NumPy long doubles, other
 * numbers.Integral, np.timedelta64 on integer data; and the refusal of every
 * other bound on numeric data, in the words the tests match. bounds_py.c reads
 * the machine numbers (ints, floats, NumPy scalars) and hands the rest here.
 *
 * Only the objects' own methods and attributes are called (as_tuple(),
 * numerator, bit_length()...), and Python ints do the arithmetic, so no bound
 * is ever wrapped or rounded. A rational becomes a bound sf_resolve_range takes
 * with the same answer: on integer data its ceiling or floor (closed); on
 * float data the double nearest it, closed and stepped inward when the
 * rational lies between two doubles (every float32 is a double, so no value
 * of the data lies between them either).
 *
 * Rationals whose cost grows with their size (Decimal('1e999999999'),
 * Fraction(1, 10**10**7)) stand in for a small one that compares alike with
 * every value of every dtype read here: all of those (ints, float32, float64)
 * are multiples of 2**-1074 below 2**1024 in magnitude. Beyond 2**FAR, any
 * number of a sign compares alike; below 2**-FAR, any nonzero one of a sign
 * lies strictly between 0 and the smallest subnormal; in between, a number off
 * the 2**-GRID grid compares as the midpoint of its grid interval, which
 * holds no value of any dtype. So the answer is exact, and costs what the
 * number's first couple of thousand bits cost (tests/test_hostile_producers.py).
 */
#include "binding.h"

#include <float.h>
#include <math.h>

#define FAR 1100
#define GRID 1076
#define DECIMAL_FAR 400   /* 10**400 > 2**1100 and 10**-400 < 2**-1100 */
#define DECIMAL_GRID 1100 /* 10**-1100 divides 2**-1074: a multiple of it holds every float */

void sfpy_float_near(double d, int cmp, int lower, sf_bound *b, int *closed) {
    if (cmp) {
        *closed = 1;
        if (lower && cmp > 0)
            d = nextafter(d, INFINITY);
        else if (!lower && cmp < 0)
            d = nextafter(d, -INFINITY);
    }
    b->kind = SF_BOUND_FLOAT;
    b->f = d;
}

static int refuse(PyObject *exc, const char *format, PyObject *obj) {
    PyObject *name = sfpy_type_name(obj);
    if (name) {
        PyErr_Format(exc, format, name);
        Py_DECREF(name);
    }
    return -1;
}

/* The sign of a Python int: -1, 0 or 1; -2 with an exception. */
static int sign_of(PyObject *x) {
    PyObject *zero = PyLong_FromLong(0);
    const int lt = zero ? PyObject_RichCompareBool(x, zero, Py_LT) : -1;
    const int gt = lt >= 0 ? PyObject_RichCompareBool(x, zero, Py_GT) : -1;
    Py_XDECREF(zero);
    return lt < 0 || gt < 0 ? -2 : gt - lt;
}

/* |x|'s bit length; -1 with an exception. */
static Py_ssize_t bits_of(PyObject *x) {
    PyObject *n = PyObject_CallMethod(x, "bit_length", NULL);
    const Py_ssize_t bits = n ? PyLong_AsSsize_t(n) : -1;
    Py_XDECREF(n);
    return bits;
}

/* New references: 1 << k, and a << k. */
static PyObject *shifted(PyObject *a, long k) {
    PyObject *kk = PyLong_FromLong(k);
    PyObject *r = kk ? PyNumber_Lshift(a, kk) : NULL;
    Py_XDECREF(kk);
    return r;
}
static PyObject *power_of_two(long k) {
    PyObject *one = PyLong_FromLong(1);
    PyObject *r = one ? shifted(one, k) : NULL;
    Py_XDECREF(one);
    return r;
}

/* a * b - c * d compared with 0: -1, 0, 1; -2 with an exception. */
static int cross_sign(PyObject *a, PyObject *b, PyObject *c, PyObject *d) {
    PyObject *ab = PyNumber_Multiply(a, b);
    PyObject *cd = ab ? PyNumber_Multiply(c, d) : NULL;
    const int lt = cd ? PyObject_RichCompareBool(ab, cd, Py_LT) : -1;
    const int gt = lt >= 0 ? PyObject_RichCompareBool(ab, cd, Py_GT) : -1;
    Py_XDECREF(ab);
    Py_XDECREF(cd);
    return lt < 0 || gt < 0 ? -2 : gt - lt;
}

/* The number q = num/den (den > 0; both steal no reference) on float data: the
 * double nearest it (Python's int division rounds correctly), moved as
 * sfpy_float_near says when q is not that double. 1, or -1. */
static int rational_on_float(PyObject *num, PyObject *den, int sign, int lower, sf_bound *b,
                             int *closed) {
    PyObject *q = PyNumber_TrueDivide(num, den);
    if (!q) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear(); /* beyond every double: between +-DBL_MAX and +-inf */
        sfpy_float_near(sign > 0 ? DBL_MAX : -DBL_MAX, sign, lower, b, closed);
        return 1;
    }
    const double d = PyFloat_AsDouble(q);
    PyObject *ratio = PyObject_CallMethod(q, "as_integer_ratio", NULL);
    Py_DECREF(q);
    if (!ratio)
        return -1;
    /* sign(num/den - A/B) = sign(num * B - A * den) */
    const int cmp = cross_sign(num, PyTuple_GET_ITEM(ratio, 1), PyTuple_GET_ITEM(ratio, 0), den);
    Py_DECREF(ratio);
    if (cmp == -2)
        return -1;
    sfpy_float_near(d, cmp, lower, b, closed);
    return 1;
}

/* q = num/den (den > 0) on integer data: its ceiling (lower, closed), the
 * floor plus one (lower, open), the floor (upper, closed) or the ceiling less
 * one (upper, open), closed. 1, or -1. */
static int rational_on_int(PyObject *num, PyObject *den, int lower, sf_bound *b, int *closed) {
    const int ceiling = lower == *closed;
    PyObject *n = ceiling ? PyNumber_Negative(num) : num;
    if (!n)
        return -1;
    if (!ceiling)
        Py_INCREF(n);
    PyObject *fl = PyNumber_FloorDivide(n, den); /* floor(q), or floor(-q) = -ceil(q) */
    Py_DECREF(n);
    PyObject *v = fl ? (ceiling ? PyNumber_Negative(fl) : fl) : NULL;
    if (fl && ceiling)
        Py_DECREF(fl);
    if (!v)
        return -1;
    PyObject *one = PyLong_FromLong(lower ? 1 : -1);
    PyObject *w = one && !*closed ? PyNumber_Add(v, one) : v;
    if (w == v)
        Py_INCREF(w);
    Py_XDECREF(one);
    Py_DECREF(v);
    if (!w)
        return -1;
    sfpy_int_bound(w, b);
    Py_DECREF(w);
    *closed = 1;
    return 1;
}

/* num/den (den > 0) as a bound of data of type t, or its stand-in (see the top
 * of the file). 1, or -1 with an exception. */
static int rational_bound(PyObject *num, PyObject *den, sf_type t, int lower, sf_bound *b,
                          int *closed) {
    const int sign = sign_of(num);
    if (sign == -2)
        return -1;
    if (sign == 0) {
        b->kind = SF_BOUND_INT;
        b->i = 0;
        return 1;
    }
    const Py_ssize_t nb = bits_of(num), db = nb < 0 ? -1 : bits_of(den);
    if (nb < 0 || db < 0)
        return -1;
    const Py_ssize_t e = nb - db; /* 2**(e-1) < |num/den| < 2**(e+1) */
    const int on_float = t == SF_T_F32 || t == SF_T_F64;
    if (e > FAR) {
        if (on_float) {
            sfpy_float_near(sign > 0 ? DBL_MAX : -DBL_MAX, sign, lower, b, closed);
        } else {
            b->kind = SF_BOUND_HUGE;
            b->i = sign;
        }
        return 1;
    }
    PyObject *n = NULL, *d = NULL;
    if (e < -FAR) { /* between 0 and the smallest subnormal, of its sign */
        n = PyLong_FromLong(sign);
        d = power_of_two(FAR);
    } else if (db > 2 * FAR) {
        /* A short quotient of long numbers: floor(q * 2**GRID), and whether
         * anything was left, as an odd multiple of 2**-(GRID + 1). */
        PyObject *big = shifted(num, GRID);
        PyObject *qr = big ? PyNumber_Divmod(big, den) : NULL;
        Py_XDECREF(big);
        if (!qr)
            return -1;
        const int rest = PyObject_IsTrue(PyTuple_GET_ITEM(qr, 1));
        PyObject *two_k = rest < 0 ? NULL : shifted(PyTuple_GET_ITEM(qr, 0), 1);
        PyObject *odd = rest ? PyLong_FromLong(1) : NULL;
        n = two_k && rest ? PyNumber_Add(two_k, odd) : two_k;
        if (n && n == two_k)
            Py_INCREF(n);
        Py_XDECREF(two_k);
        Py_XDECREF(odd);
        Py_DECREF(qr);
        d = n ? power_of_two(GRID + 1) : NULL;
    } else {
        n = num;
        d = den;
        Py_INCREF(n);
        Py_INCREF(d);
    }
    int got = -1;
    if (n && d)
        got = on_float ? rational_on_float(n, d, sign, lower, b, closed)
                       : rational_on_int(n, d, lower, b, closed);
    Py_XDECREF(n);
    Py_XDECREF(d);
    return got;
}

/* ---- The objects ---------------------------------------------------------------------- */

/* A numbers.Rational: int(numerator) / int(denominator), its sign on top. */
static int rational_object(PyObject *obj, sf_type t, int lower, sf_bound *b, int *closed) {
    PyObject *n0 = PyObject_GetAttrString(obj, "numerator");
    PyObject *d0 = n0 ? PyObject_GetAttrString(obj, "denominator") : NULL;
    PyObject *n = d0 ? PyNumber_Long(n0) : NULL;
    PyObject *d = n ? PyNumber_Long(d0) : NULL;
    Py_XDECREF(n0);
    Py_XDECREF(d0);
    int got = -1;
    const int ds = d ? sign_of(d) : -2;
    if (ds == 0) {
        refuse(PyExc_ZeroDivisionError, "a %U bound has a zero denominator", obj);
    } else if (ds == -1) {
        PyObject *nn = PyNumber_Negative(n), *dd = nn ? PyNumber_Negative(d) : NULL;
        if (dd)
            got = rational_bound(nn, dd, t, lower, b, closed);
        Py_XDECREF(nn);
        Py_XDECREF(dd);
    } else if (ds == 1) {
        got = rational_bound(n, d, t, lower, b, closed);
    }
    Py_XDECREF(n);
    Py_XDECREF(d);
    return got;
}

/* 10**k as a Python int. */
static PyObject *power_of_ten(long k) {
    PyObject *ten = PyLong_FromLong(10), *kk = PyLong_FromLong(k);
    PyObject *r = ten && kk ? PyNumber_Power(ten, kk, Py_None) : NULL;
    Py_XDECREF(ten);
    Py_XDECREF(kk);
    return r;
}

/* The first `k` digits of an as_tuple() digit tuple as a Python int. */
static PyObject *digits_int(PyObject *digits, Py_ssize_t k) {
    char *s = PyMem_Malloc((size_t)k + 1);
    if (!s)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < k; i++)
        s[i] = (char)('0' + PyLong_AsLong(PyTuple_GET_ITEM(digits, i)));
    s[k] = '\0';
    PyObject *r = PyErr_Occurred() ? NULL : PyLong_FromString(s, NULL, 10);
    PyMem_Free(s);
    return r;
}

/* A decimal.Decimal, through as_tuple(): (sign, digits, exponent), the
 * exponent 'n' or 'N' for a NaN and 'F' for an infinity. Its exponent alone
 * decides one far out of range (Fraction(d) would compute 10**exponent), and
 * digits finer than 10**-DECIMAL_GRID only say whether any is nonzero. */
static int decimal_object(PyObject *obj, sf_type t, int lower, sf_bound *b, int *closed) {
    PyObject *tup = PyObject_CallMethod(obj, "as_tuple", NULL);
    if (!tup)
        return -1;
    int got = -1;
    PyObject *digits = PySequence_GetItem(tup, 1), *exp = PySequence_GetItem(tup, 2);
    PyObject *signobj = PySequence_GetItem(tup, 0);
    const long negative = signobj ? PyLong_AsLong(signobj) : -1;
    Py_XDECREF(signobj);
    PyObject *num = NULL, *den = NULL;
    if (!digits || !exp || negative == -1 || !PyTuple_Check(digits)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "a Decimal bound's as_tuple() is not a DecimalTuple");
        goto done;
    }
    if (PyUnicode_Check(exp)) { /* 'n', 'N': NaN; 'F': an infinity */
        b->kind = SF_BOUND_FLOAT;
        b->f = PyUnicode_CompareWithASCIIString(exp, "F") == 0 ? (negative ? -INFINITY : INFINITY)
                                                               : NAN;
        got = 1;
        goto done;
    }
    const long e = PyLong_AsLong(exp);
    const Py_ssize_t n = PyTuple_GET_SIZE(digits);
    if (e == -1 && PyErr_Occurred())
        goto done;
    int zero = 1;
    for (Py_ssize_t i = 0; i < n && zero; i++)
        zero = PyLong_AsLong(PyTuple_GET_ITEM(digits, i)) == 0;
    if (zero) {
        b->kind = SF_BOUND_INT;
        b->i = 0;
        got = PyErr_Occurred() ? -1 : 1;
        goto done;
    }
    const long adjusted = e + (long)n - 1;
    if (adjusted > DECIMAL_FAR || adjusted < -DECIMAL_FAR) {
        /* far beyond every value, or between 0 and the smallest subnormal */
        num = PyLong_FromLong(negative ? -1 : 1);
        den = adjusted > DECIMAL_FAR ? PyLong_FromLong(1) : power_of_two(FAR);
        if (num && den && adjusted > DECIMAL_FAR) {
            Py_SETREF(num, shifted(num, FAR + 2));
        }
    } else if (e < -DECIMAL_GRID) {
        const Py_ssize_t keep = n - (Py_ssize_t)(-DECIMAL_GRID - e);
        int rest = 0;
        for (Py_ssize_t i = keep; i < n && !rest; i++)
            rest = PyLong_AsLong(PyTuple_GET_ITEM(digits, i)) != 0;
        PyObject *kept = digits_int(digits, keep);
        PyObject *scale = kept ? power_of_ten(DECIMAL_GRID) : NULL;
        if (scale && rest) { /* the midpoint of its 10**-DECIMAL_GRID step */
            PyObject *one = PyLong_FromLong(1), *twice = shifted(kept, 1);
            num = one && twice ? PyNumber_Add(twice, one) : NULL;
            den = num ? shifted(scale, 1) : NULL;
            Py_XDECREF(one);
            Py_XDECREF(twice);
        } else if (scale) {
            num = kept;
            den = scale;
            Py_INCREF(num);
            Py_INCREF(den);
        }
        Py_XDECREF(kept);
        Py_XDECREF(scale);
        if (num && negative)
            Py_SETREF(num, PyNumber_Negative(num));
    } else {
        num = digits_int(digits, n);
        PyObject *scale = num ? power_of_ten(e < 0 ? -e : e) : NULL;
        if (scale && e >= 0) {
            Py_SETREF(num, PyNumber_Multiply(num, scale));
            den = PyLong_FromLong(1);
            Py_DECREF(scale);
        } else {
            den = scale;
        }
        if (num && negative)
            Py_SETREF(num, PyNumber_Negative(num));
    }
    if (num && den)
        got = rational_bound(num, den, t, lower, b, closed);
done:
    Py_XDECREF(num);
    Py_XDECREF(den);
    Py_XDECREF(digits);
    Py_XDECREF(exp);
    Py_DECREF(tup);
    return got;
}

/* A NumPy long double. Where it is a double it is read as one (on int64 and
 * uint64 data NumPy compares a long double of 64 or more mantissa bits
 * exactly, a shorter one as a double: bounds_py.c's rule); else its mantissa,
 * 32 bits at a time, over a power of two. */
static int long_double_object(PyObject *obj, sf_type t, int lower, sf_bound *b, int *closed) {
    const long double x = PyArrayScalar_VAL(obj, LongDouble);
    if (isnan(x) || isinf(x) || (long double)(double)x == x) {
        b->kind = SF_BOUND_FLOAT;
        b->f = (double)x;
        return 1;
    }
    int e;
    long double m = frexpl(fabsl(x), &e); /* |x| = m * 2**e, 0.5 <= m < 1 */
    long k = 0;
    PyObject *num = PyLong_FromLong(0);
    while (num && m != 0) {
        m = ldexpl(m, 32);
        const long double top = floorl(m);
        m -= top;
        k += 32;
        PyObject *up = shifted(num, 32), *add = PyLong_FromUnsignedLong((unsigned long)top);
        Py_SETREF(num, up && add ? PyNumber_Or(up, add) : NULL);
        Py_XDECREF(up);
        Py_XDECREF(add);
    }
    PyObject *den = NULL; /* |x| = num * 2**(e - k) */
    if (num && e - k >= 0) {
        Py_SETREF(num, shifted(num, e - k));
        den = PyLong_FromLong(1);
    } else if (num) {
        den = power_of_two(k - e);
    }
    if (num && x < 0)
        Py_SETREF(num, PyNumber_Negative(num));
    const int got = num && den ? rational_bound(num, den, t, lower, b, closed) : -1;
    Py_XDECREF(num);
    Py_XDECREF(den);
    return got;
}

int sfpy_exact_number(sfpy_state *st, PyObject *obj, sf_type t, int lower, sf_bound *b,
                      int *closed) {
    int is;
    if (sfpy_is_pandas_nat(st, obj)) {
        PyErr_SetString(PyExc_TypeError, "a NaT bound does not apply to numeric data");
        return -1;
    }
    if (PyArray_IsScalar(obj, Timedelta)) {
        /* NumPy casts integer and bool data to the bound's unit (uint64 it
         * refuses): the bound's count of units is what the data compare with. */
        if (t == SF_T_F32 || t == SF_T_F64 || t == SF_T_U64)
            return refuse(PyExc_TypeError, "a %U bound does not apply to numeric data", obj);
        const npy_timedelta v = PyArrayScalar_VAL(obj, Timedelta);
        b->kind = v == NPY_DATETIME_NAT ? SF_BOUND_FLOAT : SF_BOUND_INT;
        b->f = NAN;
        b->i = v;
        return 1;
    }
    if (PyArray_IsScalar(obj, Datetime) || sfpy_is_date_or_delta(obj) || PyUnicode_Check(obj))
        return refuse(PyExc_TypeError, "a %U bound does not apply to numeric data", obj);
    if (PyArray_IsScalar(obj, LongDouble))
        return long_double_object(obj, t, lower, b, closed);
    if ((is = sfpy_instance_of(obj, "decimal", "Decimal")) != 0)
        return is < 0 ? -1 : decimal_object(obj, t, lower, b, closed);
    if ((is = sfpy_instance_of(obj, "numbers", "Integral")) > 0) {
        PyObject *as_int = PyNumber_Long(obj), *one = PyLong_FromLong(1);
        const int got = as_int && one ? rational_bound(as_int, one, t, lower, b, closed) : -1;
        Py_XDECREF(as_int);
        Py_XDECREF(one);
        return got;
    }
    if (is == 0 && (is = sfpy_instance_of(obj, "numbers", "Rational")) > 0)
        return rational_object(obj, t, lower, b, closed);
    if (is < 0)
        return -1;
    return refuse(PyExc_TypeError, "bounds must be real numbers or None, not %U", obj);
}
