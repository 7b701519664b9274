/*
 * Bounds as Python objects, turned into numbers the library resolves exactly
 * (sf_resolve_range). Read here: Python and NumPy ints, bools and floats of
 * every width (ints of any size on float data too), so that a call on a small
 * array costs well under a microsecond more than its plain-int twin; the
 * exact kinds (Fractions, Decimals, long doubles...) and the refusals of
 * numeric data are bounds_exact.c's, the time objects bounds_time.c's (and
 * bounds_time_rest.c's), and 0-d arrays stand for their element. This is the
 * only bound rule: no bound goes back to the package (issue 44).
 * _resolve_bounds (bounds_oracle.c) shows tests the range found, and holds it against an
 * oracle they give (the Python rule it replaced, kept in tests/).
 *
 * The bound's number is the one NumPy 2 compares the data with (NEP 50), so
 * that a call answers np.flatnonzero((a >= lo) & (a <= hi)) wherever NumPy
 * does without an error, a warning or a wrap (numpy_rule below).
 */
#include "binding.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "simdfilter_time.h"

/* An IEEE half as a double (exact: every half is a double). */
static double half_to_double(npy_half h) {
    const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    const double v = exp == 0    ? ldexp(mant, -24)
                     : exp == 31 ? (mant ? NAN : INFINITY)
                                 : ldexp(mant | 0x400, exp - 25);
    return h >> 15 ? -v : v;
}

/* A NumPy integer or float scalar of an exact NumPy type, read in place:
 * 1, or 0 for another type. */
static int numpy_number(PyObject *obj, sf_bound *b) {
    PyTypeObject *t = Py_TYPE(obj);
    b->kind = SF_BOUND_INT;
    if (t == &PyByteArrType_Type) b->i = PyArrayScalar_VAL(obj, Byte);
    else if (t == &PyShortArrType_Type) b->i = PyArrayScalar_VAL(obj, Short);
    else if (t == &PyIntArrType_Type) b->i = PyArrayScalar_VAL(obj, Int);
    else if (t == &PyLongArrType_Type) b->i = PyArrayScalar_VAL(obj, Long);
    else if (t == &PyLongLongArrType_Type) b->i = PyArrayScalar_VAL(obj, LongLong);
    else if (t == &PyUByteArrType_Type) b->i = PyArrayScalar_VAL(obj, UByte);
    else if (t == &PyUShortArrType_Type) b->i = PyArrayScalar_VAL(obj, UShort);
    else if (t == &PyUIntArrType_Type) b->i = PyArrayScalar_VAL(obj, UInt);
    else if (t == &PyULongArrType_Type || t == &PyULongLongArrType_Type) {
        const unsigned long long u = t == &PyULongArrType_Type ? PyArrayScalar_VAL(obj, ULong)
                                                               : PyArrayScalar_VAL(obj, ULongLong);
        b->kind = u > INT64_MAX ? SF_BOUND_UINT : SF_BOUND_INT;
        b->u = u;
        b->i = (int64_t)(u & INT64_MAX);
    } else if (t == &PyBoolArrType_Type) {
        b->i = PyArrayScalar_VAL(obj, Bool) != 0; /* no __index__ in NumPy 2, but 0 or 1 */
    } else if (t == &PyFloatArrType_Type) {
        b->kind = SF_BOUND_FLOAT;
        b->f = PyArrayScalar_VAL(obj, Float);
    } else if (t == &PyHalfArrType_Type) {
        b->kind = SF_BOUND_FLOAT;
        b->f = half_to_double(PyArrayScalar_VAL(obj, Half));
    } else {
        return 0;
    }
    return 1;
}

/* An int too large for 64 bits on float data, as the double that stands for
 * it exactly (as the library does below 2^64): the int if a double holds it,
 * else its neighbour inward of the range, closed. Python compares ints with
 * floats exactly. 1, or -1 with an exception. */
static int huge_on_float(PyObject *as_int, int lower, sf_bound *b, int *closed) {
    double d = PyLong_AsDouble(as_int);
    int cmp = 0; /* sign of (int - d) */
    if (d == -1.0 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear(); /* beyond every double: between +-DBL_MAX and +-inf */
        const int positive = b->i > 0; /* int_bound's sign of a HUGE int */
        d = positive ? DBL_MAX : -DBL_MAX;
        cmp = positive ? 1 : -1;
    } else {
        PyObject *f = PyFloat_FromDouble(d);
        const int lt = f ? PyObject_RichCompareBool(as_int, f, Py_LT) : -1;
        const int gt = lt >= 0 ? PyObject_RichCompareBool(as_int, f, Py_GT) : -1;
        Py_XDECREF(f);
        if (lt < 0 || gt < 0)
            return -1;
        cmp = gt - lt;
    }
    sfpy_float_near(d, cmp, lower, b, closed);
    return 1;
}

/* ---- NumPy 2's rule ------------------------------------------------------
 * NumPy 2 compares an array with a bound in the type NEP 50 promotes them to,
 * and where that type holds the bound or the data only roughly, it rounds:
 *  - a Python float on float32 data is taken at float32 (round to nearest
 *    even), unless it overflows there (NumPy warns; the number is kept);
 *  - a Python int on float data is taken as NumPy converts it: to a double
 *    (rounded), then on float32 data to a float32, unless either overflows
 *    (NumPy raises OverflowError or warns; the number is kept);
 *  - a 64-bit NumPy integer (or an int subclass, which NumPy 2.1 on reads as
 *    int64 or uint64) on float data is compared in float64: rounded to a double;
 *  - on int64/uint64 data a float bound (Python or NumPy, long double aside)
 *    is compared in float64, the data's values rounded to doubles.
 * Everything else NumPy compares exactly, and so does simdfilter.
 *
 * The weak scalars are the exact int, float and bool from NumPy 2.1 on; NumPy
 * 2.0.x takes subclasses of int and float (np.float64 aside) for weak scalars
 * too (its abstractdtypes.h checks PyLong_Check and PyFloat_Check, with a note
 * to make them exact checks in 2.1), and that is the NumPy a CPython 3.9 gets.
 * The rule follows the NumPy running (subclass_weak). */

/* The data's values NumPy 2 rounds to doubles before comparing with a float bound. */
static int rounds_data(sf_type t) {
    return t == SF_T_I64 || t == SF_T_U64;
}

/* A double as NumPy casts it to float32, or 0 when the cast overflows (NumPy
 * warns there: the number is kept). Done by hand beyond FLT_MAX, where ISO C
 * leaves (float)d undefined: up to FLT_MAX + half an ulp it rounds to FLT_MAX
 * (ties go to infinity: FLT_MAX is odd). */
static int as_float32(double d, double *out) {
    if (isnan(d) || isinf(d) || fabs(d) <= FLT_MAX) {
        *out = isnan(d) || isinf(d) ? d : (double)(float)d;
        return 1;
    }
    if (fabs(d) >= 0x1.ffffffp127)
        return 0;
    *out = d > 0 ? FLT_MAX : -FLT_MAX;
    return 1;
}

/* An integer as an exact bound: INT, UINT, or HUGE with its sign. */
static void wide_bound(__int128 w, sf_bound *b) {
    if (w >= INT64_MIN && w <= INT64_MAX) {
        b->kind = SF_BOUND_INT;
        b->i = (int64_t)w;
    } else if (w > 0 && w <= (__int128)UINT64_MAX) {
        b->kind = SF_BOUND_UINT;
        b->u = (uint64_t)w;
    } else {
        b->kind = SF_BOUND_HUGE;
        b->i = w < 0 ? -1 : 1;
    }
}

/* A float bound f on int64/uint64 data, which NumPy compares as (double)x with
 * f: an exact integer bound with the same answer. x -> (double)x is monotone,
 * so (double)x >= f holds from the least x whose double is f or above (t), and
 * (double)x <= f up to the greatest whose double is f or below (u): x >= t
 * (lower, closed), x > u (lower, open), x <= u (upper, closed), x < t (upper,
 * open). Below 2^53 every integer is a double and f compares exactly; beyond
 * 2^65 no value of the data reaches it; NaN and infinities stay as they are. */
static void rounded_data_bound(double f, int lower, int closed, sf_bound *b) {
    b->kind = SF_BOUND_FLOAT;
    b->f = f;
    if (!(fabs(f) >= 0x1p53 && fabs(f) <= 0x1p65))
        return;
    /* f is an integer; the integers between it and its neighbour double g round
     * to f above their midpoint m, to g below it, and at m to the one of even
     * mantissa, which (double)m says (integer-to-double conversions round to
     * nearest even, NumPy's as C's). */
    const int least = lower == closed; /* t, else u */
    const double g = nextafter(f, least ? -INFINITY : INFINITY);
    const __int128 w = (__int128)f, m = (w + (__int128)g) / 2;
    wide_bound((double)m == f ? m : least ? m + 1 : m - 1, b);
}

/* A 64-bit NumPy integer scalar (exact types and subclasses). */
static int is_numpy_int64(PyObject *obj) {
    if (!PyArray_IsScalar(obj, Integer))
        return 0;
    PyArray_Descr *d = PyArray_DescrFromScalar(obj);
    const int wide = d && PyDataType_ELSIZE(d) == 8;
    Py_XDECREF(d);
    return wide;
}

/* Whether the NumPy running takes a subclass of int or float for a weak scalar:
 * NumPy 2.0.x, whose C-API feature version (import_array's record of it) is
 * 2.0's; 2.1 raised it. NumPy 1.x: no, the rule is NumPy 2's newest. */
static int subclass_weak(void) {
    return PyArray_RUNTIME_VERSION == NPY_2_0_API_VERSION;
}

/* NumPy 2's rule for a strong number (a NumPy scalar, or an element of a
 * typed array, as np.isin's items are), read into *b: `int64` says it is a
 * 64-bit integer, `long_double` a long double (compared exactly). */
static void strong_rule(sf_type t, int int64, int long_double, int lower, int closed,
                        sf_bound *b) {
    if (b->kind == SF_BOUND_FLOAT) {
        if (rounds_data(t) && !long_double)
            rounded_data_bound(b->f, lower, closed, b);
        return;
    }
    if ((t == SF_T_F32 || t == SF_T_F64) && int64 &&
        (b->kind == SF_BOUND_INT || b->kind == SF_BOUND_UINT)) {
        const double d = b->kind == SF_BOUND_UINT ? (double)b->u : (double)b->i;
        b->kind = SF_BOUND_FLOAT;
        b->f = d;
    }
}

/* numpy_rule: `obj`, read into *b, as the number NumPy 2 compares data of type
 * `t` with (see above). `weak` says obj is one of NEP 50's weak scalars (a
 * Python float, int or bool; a subclass of int or float on NumPy 2.0.x, see
 * subclass_weak), `as_int` its int for an int (NULL otherwise). 0, or -1 with
 * an exception. */
static int numpy_rule(PyObject *obj, PyObject *as_int, int weak, sf_type t, int lower,
                      int *closed, sf_bound *b) {
    const int on_float = t == SF_T_F32 || t == SF_T_F64;
    if (b->kind == SF_BOUND_FLOAT) {
        double r;
        if (weak && t == SF_T_F32 && as_float32(b->f, &r))
            b->f = r;
        else if (rounds_data(t)) /* the only data strong_rule rounds a float for */
            strong_rule(t, 0, PyArray_IsScalar(obj, LongDouble) && LDBL_MANT_DIG >= 64, lower,
                        *closed, b);
        return 0;
    }
    if (!on_float || b->kind == SF_BOUND_NONE)
        return 0;
    if (weak) { /* a Python int (or bool) */
        double d = PyLong_AsDouble(as_int);
        if (d == -1.0 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                return -1;
            PyErr_Clear(); /* NumPy raises OverflowError: the number is kept */
            return 0;
        }
        if (t == SF_T_F32 && !as_float32(d, &d))
            return 0; /* NumPy warns of the overflow: the number is kept */
        b->kind = SF_BOUND_FLOAT;
        b->f = d;
        return 0;
    }
    /* A NumPy integer, or an int subclass NumPy reads as int64/uint64: a double. */
    const int wide = as_int && !PyArray_IsScalar(obj, Integer)
                         ? b->kind == SF_BOUND_INT || b->kind == SF_BOUND_UINT
                         : is_numpy_int64(obj);
    strong_rule(t, wide, 0, lower, *closed, b);
    return 0;
}

/* A number bound (numeric data of type t): 1 with *b filled, -1 with an
 * exception (a bound refused). */
static int read_number(sfpy_state *st, PyObject *obj, sf_type t, int lower, sf_bound *b,
                       int *closed) {
    const int is_float = t == SF_T_F32 || t == SF_T_F64;
    b->kind = SF_BOUND_NONE;
    if (obj == NULL || obj == Py_None)
        return 1;
    if (PyFloat_Check(obj)) { /* np.float64 too */
        b->kind = SF_BOUND_FLOAT;
        b->f = PyFloat_AS_DOUBLE(obj);
        const int weak =
            PyFloat_CheckExact(obj) || (!PyArray_IsScalar(obj, Double) && subclass_weak());
        return numpy_rule(obj, NULL, weak, t, lower, closed, b) < 0 ? -1 : 1;
    }
    PyObject *as_int = NULL;
    if (PyLong_Check(obj)) {
        as_int = obj;
        Py_INCREF(as_int);
    } else if (numpy_number(obj, b)) {
        return numpy_rule(obj, NULL, 0, t, lower, closed, b) < 0 ? -1 : 1;
    } else if (PyArray_IsScalar(obj, Bool)) {
        const int truth = PyObject_IsTrue(obj);
        b->kind = SF_BOUND_INT;
        b->i = truth;
        return truth < 0 ? -1 : 1;
    } else if (PyArray_IsScalar(obj, Integer) && !PyArray_IsScalar(obj, Timedelta)) {
        /* Subclasses of NumPy's ints; np.timedelta64 subclasses np.signedinteger
         * but is no number bound. */
        as_int = PyNumber_Index(obj);
        if (!as_int)
            return -1;
    } else if (PyArray_IsScalar(obj, Half) || PyArray_IsScalar(obj, Float)) {
        b->kind = SF_BOUND_FLOAT;
        b->f = PyFloat_AsDouble(obj);
        if (b->f == -1.0 && PyErr_Occurred())
            return -1;
        return numpy_rule(obj, NULL, 0, t, lower, closed, b) < 0 ? -1 : 1;
    } else {
        const int got = sfpy_exact_number(st, obj, t, lower, b, closed);
        if (got == 1 && b->kind == SF_BOUND_FLOAT && PyArray_IsScalar(obj, LongDouble))
            return numpy_rule(obj, NULL, 0, t, lower, closed, b) < 0 ? -1 : 1;
        return got;
    }
    sfpy_int_bound(as_int, b);
    const int weak =
        PyLong_CheckExact(obj) || PyBool_Check(obj) || (PyLong_Check(obj) && subclass_weak());
    int got = numpy_rule(obj, as_int, weak, t, lower, closed, b) < 0 ? -1 : 1;
    if (got == 1 && is_float && b->kind == SF_BOUND_HUGE)
        got = huge_on_float(as_int, lower, b, closed);
    Py_DECREF(as_int);
    return got;
}

/* Both bounds read: 1, or -1 with an exception (a bound refused). */
static int read_bounds(const column *c, PyObject *lo, PyObject *hi, sf_bound *a, int *lc,
                       sf_bound *b, int *hc, int *nat) {
    if (PyDataType_ISDATETIME(c->descr)) {
        const int ra = sfpy_time_bound(lo, c, 1, a, lc, nat);
        return ra == 1 ? sfpy_time_bound(hi, c, 0, b, hc, nat) : ra;
    }
    const int ra = read_number(c->st, lo, c->type, 1, a, lc);
    return ra == 1 ? read_number(c->st, hi, c->type, 0, b, hc) : ra;
}

/* A bound as NumPy compares with it: a 0-d array stands for its element (a
 * new reference either way; NULL with an exception). */
static PyObject *element(PyObject *obj) {
    if (obj && PyArray_Check(obj) && PyArray_NDIM((PyArrayObject *)obj) == 0) {
        PyObject *none = PyTuple_New(0);
        PyObject *v = none ? PyObject_GetItem(obj, none) : NULL;
        Py_XDECREF(none);
        return v;
    }
    Py_XINCREF(obj);
    return obj;
}

/* A bound the fast path takes as it is: none, or an exact int or float. */
static inline int plain(PyObject *obj) {
    return !obj || obj == Py_None || PyLong_CheckExact(obj) || PyFloat_CheckExact(obj);
}

/* Whether int64 data meet an np.timedelta64 bound: NumPy casts them to its
 * unit, where -2**63 becomes NaT and matches nothing. */
static int timedelta_on_int64(const column *c, PyObject *lo, PyObject *hi) {
    return c->type == SF_T_I64 && !PyDataType_ISDATETIME(c->descr) &&
           ((lo && PyArray_IsScalar(lo, Timedelta)) || (hi && PyArray_IsScalar(hi, Timedelta)));
}

static int resolve_read(const column *c, PyObject *lo, PyObject *hi, const inclusive_mode *m,
                        sf_range *r, int plain_bounds) {
    sf_bound a, b;
    int lc = m->lo_closed, hc = m->hi_closed, nat = 0;
    if (read_bounds(c, lo, hi, &a, &lc, &b, &hc, &nat) < 0)
        return -1;
    if (nat) /* a NaT bound: a range with no value in it */
        return 0;
    const int nat_min = !plain_bounds && timedelta_on_int64(c, lo, hi);
    if (nat_min && a.kind == SF_BOUND_NONE) {
        a.kind = SF_BOUND_INT;
        a.i = INT64_MIN + 1;
        lc = 1;
    }
    int res = sf_resolve_range(c->type, &a, lc, &b, hc, r);
    if (nat_min && res == SF_RANGE_OK && (int64_t)r->lo == INT64_MIN) {
        if ((int64_t)r->hi == INT64_MIN)
            res = SF_RANGE_EMPTY;
        r->lo = (uint64_t)(INT64_MIN + 1);
    }
    if (res == SF_RANGE_OK || res == SF_RANGE_EMPTY)
        return res;
    /* not reached: HUGE on float data is read as a double above */
    PyErr_SetString(PyExc_SystemError, "simdfilter: a bound the library could not resolve");
    return -1;
}

int sfpy_resolve_bounds(const column *c, PyObject *lo, PyObject *hi, const inclusive_mode *m,
                        sf_range *r) {
    if (plain(lo) && plain(hi))
        return resolve_read(c, lo, hi, m, r, 1);
    PyObject *l = element(lo), *h = l || !lo ? element(hi) : NULL;
    int got = -1;
    if ((l || !lo) && (h || !hi))
        got = resolve_read(c, l, h, m, r, 0);
    Py_XDECREF(l);
    Py_XDECREF(h);
    return got;
}

/* ---- isin's items -----------------------------------------------------------
 * np.isin(values, items) compares the values with np.asarray(items): a typed
 * array's elements as NumPy 2 compares two arrays (strong_rule: no weak
 * rounding, so 0.1 is float64's 0.1 on float32 data, as in np.isin), an
 * object array's one by one as Python objects, by value (exact_item; other
 * objects as bounds are read, times and ISO strings on time data). Each item is the
 * closed range [x, x], resolved exactly (sf_resolve_range); an item no value
 * can equal (2.5 on ints, 300 on uint8, NaN, NaT) resolves empty and is left
 * out. */

/* An element of a typed number array (native, aligned) as a bound: 1, or 0
 * for a dtype read otherwise (long double, complex, ...). */
static int typed_item(const char *p, char kind, int size, sf_bound *b) {
    b->kind = SF_BOUND_INT;
    if (kind == 'b' && size == 1) {
        b->i = *(const npy_bool *)p != 0;
    } else if (kind == 'i') {
        b->i = size == 1   ? *(const int8_t *)p
               : size == 2 ? *(const int16_t *)p
               : size == 4 ? *(const int32_t *)p
                           : *(const int64_t *)p;
    } else if (kind == 'u') {
        const uint64_t u = size == 1   ? *(const uint8_t *)p
                           : size == 2 ? *(const uint16_t *)p
                           : size == 4 ? *(const uint32_t *)p
                                       : *(const uint64_t *)p;
        b->kind = u > INT64_MAX ? SF_BOUND_UINT : SF_BOUND_INT;
        b->u = u;
        b->i = (int64_t)(u & INT64_MAX);
    } else if (kind == 'f' && (size == 2 || size == 4 || size == 8)) {
        b->kind = SF_BOUND_FLOAT;
        b->f = size == 2 ? half_to_double(*(const npy_half *)p)
               : size == 4 ? (double)*(const float *)p
                           : *(const double *)p;
    } else {
        return 0;
    }
    return (kind == 'i' || kind == 'u') ? size <= 8 : 1;
}

/* Typed number items on number data: 1 with r[0, *k) made, 0 for a dtype
 * the generic path reads. */
static int number_items(const column *c, PyArrayObject *a, sf_range *r, size_t *k) {
    PyArray_Descr *d = PyArray_DESCR(a);
    const char kind = d->kind;
    const int size = (int)PyDataType_ELSIZE(d);
    if (!PyArray_ISNOTSWAPPED(a) || !strchr("biuf", kind) || size > 8)
        return 0;
    const int int64 = (kind == 'i' || kind == 'u') && size == 8;
    const char *p = PyArray_BYTES(a);
    const npy_intp n = PyArray_SIZE(a);
    /* integers on integer data: no rounding rule applies, one pass */
    if ((kind == 'i' || kind == 'u') &&
        sf_resolve_int_items(c->type, p, (size_t)n, size, kind == 'i', r, k) == SF_RANGE_OK)
        return 1;
    for (npy_intp i = 0; i < n; i++, p += size) {
        sf_bound lo, hi;
        if (!typed_item(p, kind, size, &lo))
            return 0;
        hi = lo;
        strong_rule(c->type, int64, 0, 1, 1, &lo);
        strong_rule(c->type, int64, 0, 0, 1, &hi);
        *k += sf_resolve_range(c->type, &lo, 1, &hi, 1, &r[*k]) == SF_RANGE_OK;
    }
    return 1;
}

/* datetime64 items on naive datetime64 data (timedelta64 on timedelta64),
 * in ticks of any unit, exactly: 1 with r[0, *k) made, 0 for the generic
 * path (another kind, a generic or calendar unit the arithmetic leaves to
 * Python). */
static int time_items(const column *c, PyArrayObject *a, sf_range *r, size_t *k) {
    PyArray_Descr *d = PyArray_DESCR(a);
    if (c->tz || sfpy_time_of_day(c) || !PyArray_ISNOTSWAPPED(a) ||
        d->type_num != c->descr->type_num)
        return 0;
    const PyArray_DatetimeMetaData *items =
        &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(d))->meta;
    const PyArray_DatetimeMetaData *data =
        &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(c->descr))->meta;
    const int is_dt = c->descr->type_num == NPY_DATETIME;
    const int64_t *v = (const int64_t *)PyArray_DATA(a);
    const npy_intp n = PyArray_SIZE(a);
    size_t made = *k;
    for (npy_intp i = 0; i < n; i++) {
        if (v[i] == NPY_DATETIME_NAT) /* NaT equals nothing, NaT included */
            continue;
        sf_time t;
        sf_bound lo, hi;
        int lc = 1, hc = 1;
        if (!sf_time_from_ticks(v[i], (int)items->base, items->num, &t) ||
            !sf_time_bound(&t, is_dt, (int)data->base, data->num, 1, &lo, &lc) ||
            !sf_time_bound(&t, is_dt, (int)data->base, data->num, 0, &hi, &hc))
            return 0;
        made += sf_resolve_range(c->type, &lo, lc, &hi, hc, &r[made]) == SF_RANGE_OK;
    }
    *k = made;
    return 1;
}

/* A number item of an object array, read exactly: np.isin compares such items
 * one by one as Python objects (`values == item` over an object array), so
 * as Python compares them, by value (no NEP 50 rounding). 1 with *lo and *hi,
 * 0 for a kind read as a bound is (Fractions, Decimals, long doubles...), -1
 * with an exception. */
static int exact_item(PyObject *x, sf_type t, sf_bound *lo, int *lc, sf_bound *hi, int *hc) {
    if (PyFloat_Check(x)) {
        lo->kind = SF_BOUND_FLOAT;
        lo->f = PyFloat_AS_DOUBLE(x);
    } else if (PyLong_Check(x)) {
        sfpy_int_bound(x, lo);
    } else if (!numpy_number(x, lo)) {
        if (!PyArray_IsScalar(x, Bool))
            return 0;
        lo->kind = SF_BOUND_INT;
        lo->i = x == PyArrayScalar_True;
    }
    *hi = *lo;
    *lc = *hc = 1;
    if ((t == SF_T_F32 || t == SF_T_F64) && lo->kind == SF_BOUND_HUGE && PyLong_Check(x))
        return huge_on_float(x, 1, lo, lc) < 0 || huge_on_float(x, 0, hi, hc) < 0 ? -1 : 1;
    return 1;
}

/* Any other items one by one: numbers of an object array exactly (exact_item),
 * anything else as a bound is read (sfpy_resolve_bounds: Fractions, Decimals,
 * times, ISO strings on time data), the elements of other arrays as
 * NumPy scalars. 0, or -1 with an exception. */
static int each_item(const column *c, PyArrayObject *a, sf_range *r, size_t *k) {
    static const inclusive_mode both = {1, 1};
    const int is_object = PyArray_DESCR(a)->type_num == NPY_OBJECT;
    const int on_time = PyDataType_ISDATETIME(c->descr);
    const npy_intp n = PyArray_SIZE(a), size = PyArray_ITEMSIZE(a);
    const char *p = PyArray_BYTES(a);
    for (npy_intp i = 0; i < n; i++, p += size) {
        PyObject *x = is_object ? *(PyObject *const *)p : PyArray_Scalar((void *)p,
                                                                         PyArray_DESCR(a),
                                                                         (PyObject *)a);
        if (!x) {
            if (is_object) /* an array of NULLs, as np.empty(n, object) makes */
                PyErr_SetString(PyExc_TypeError, "isin: the items must be numbers, not None");
            return -1;
        }
        int got;
        if (x == Py_None || (!on_time && PyUnicode_Check(x)) || PyBytes_Check(x)) {
            PyErr_Format(PyExc_TypeError, "isin: the items must be numbers%s, not %.100s %R",
                         on_time ? " or times" : "", Py_TYPE(x)->tp_name, x);
            got = -1;
        } else {
            sf_bound lo, hi;
            int lc, hc;
            got = is_object && !on_time ? exact_item(x, c->type, &lo, &lc, &hi, &hc) : 0;
            if (got == 1) {
                const int res = sf_resolve_range(c->type, &lo, lc, &hi, hc, &r[*k]);
                got = res == SF_RANGE_OK;
            } else if (got == 0) {
                got = sfpy_resolve_bounds(c, x, x, &both, &r[*k]);
            }
        }
        if (!is_object)
            Py_DECREF(x);
        if (got < 0)
            return -1;
        *k += (size_t)got;
    }
    return 0;
}

int sfpy_resolve_items(sfpy_state *st, const column *c, PyObject *items, sf_range **ranges,
                       sf_chunk **scratch, size_t *bytes, size_t *k) {
    *k = 0;
    if (PyUnicode_Check(items) || PyBytes_Check(items) || items == Py_None) {
        PyErr_Format(PyExc_TypeError,
                     "isin: items must be a collection of numbers (a list, tuple, set or "
                     "array), not %.100s",
                     Py_TYPE(items)->tp_name);
        return -1;
    }
    /* np.asarray(items), but a set (or any iterable that is no sequence nor
     * array-like) by its elements, where np.asarray would make one object */
    PyObject *list = NULL;
    if (!PyArray_Check(items) && !PySequence_Check(items) &&
        !PyObject_HasAttrString(items, "__array__") && PyObject_HasAttrString(items, "__iter__")) {
        if (!(list = PySequence_List(items)))
            return -1;
        items = list;
    }
    PyArrayObject *a =
        (PyArrayObject *)PyArray_FromAny(items, NULL, 0, 0, NPY_ARRAY_CARRAY_RO, NULL);
    Py_XDECREF(list);
    if (!a)
        return -1;
    const npy_intp n = PyArray_SIZE(a);
    const char kind = PyArray_DESCR(a)->kind;
    int rc = 0;
    *bytes = (size_t)(n > 0 ? n : 1) * sizeof(sf_range);
    if (!(*ranges = (sf_range *)sfpy_scratch_take(st, *bytes, scratch))) {
        rc = -1;
    } else if (!PyDataType_ISDATETIME(c->descr) && (kind == 'U' || kind == 'S')) {
        PyErr_Format(PyExc_TypeError, "isin: the items must be numbers, not strings (%R)",
                     (PyObject *)PyArray_DESCR(a));
        rc = -1;
    } else if (PyDataType_ISDATETIME(c->descr) ? !time_items(c, a, *ranges, k)
                                               : !number_items(c, a, *ranges, k)) {
        *k = 0;
        rc = each_item(c, a, *ranges, k);
    }
    Py_DECREF(a);
    return rc;
}
