/*
 * Bounds as Python objects, turned into numbers the library resolves exactly
 * (sf_resolve_range). Plain and NumPy ints, bools and floats are read here, so
 * a call on a small array costs well under a microsecond; everything else
 * (datetimes, strings, Fractions, Decimals, huge ints on float data...) goes to
 * simdfilter._bounds.resolve, written in Python with exact rational
 * arithmetic. Tests check that both paths agree.
 */
#include "binding.h"

static int read_float(PyObject *obj, sf_bound *b) {
    b->kind = SF_BOUND_FLOAT;
    b->f = PyFloat_AsDouble(obj);
    return (b->f == -1.0 && PyErr_Occurred()) ? -1 : 1;
}

/* A bound the C path reads: 1 with *b filled, 0 for a kind only Python knows,
 * -1 with an exception. */
static int read_bound(PyObject *obj, sf_bound *b) {
    b->kind = SF_BOUND_NONE;
    if (obj == NULL || obj == Py_None)
        return 1;
    if (PyFloat_CheckExact(obj))
        return read_float(obj, b);
    /* Python ints (and bools) and floats first, the common bounds: told by
     * their type alone, where the NumPy scalar checks walk the type's bases. */
    PyObject *as_int = NULL;
    if (PyLong_Check(obj)) {
        as_int = obj;
        Py_INCREF(as_int);
    } else if (PyArray_IsScalar(obj, Bool)) {
        /* np.bool_ has no __index__ (NumPy 2), but it is 0 or 1. */
        const int truth = PyObject_IsTrue(obj);
        b->kind = SF_BOUND_INT;
        b->i = truth;
        return truth < 0 ? -1 : 1;
    } else if (PyArray_IsScalar(obj, Integer) && !PyArray_IsScalar(obj, Timedelta)) {
        /* np.timedelta64 subclasses np.signedinteger; it is no number bound. */
        as_int = PyNumber_Index(obj);
        if (!as_int)
            return -1;
    }
    if (as_int) {
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
        b->kind = SF_BOUND_INT;
        b->i = v;
        if (overflow < 0) {
            b->kind = SF_BOUND_HUGE;
            b->i = -1;
        } else if (overflow > 0) {
            const unsigned long long u = PyLong_AsUnsignedLongLong(as_int);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                b->kind = SF_BOUND_HUGE;
                b->i = 1;
            } else {
                b->kind = SF_BOUND_UINT;
                b->u = u;
            }
        }
        Py_DECREF(as_int);
        return 1;
    }
    if (PyFloat_Check(obj) || PyArray_IsScalar(obj, Half) || PyArray_IsScalar(obj, Float))
        return read_float(obj, b);
    return 0;
}

/* A value Python's resolve returned: an int of the data's domain, or a float. */
static int domain_value(PyObject *v, sf_bound *b) {
    if (PyFloat_Check(v)) {
        b->kind = SF_BOUND_FLOAT;
        b->f = PyFloat_AsDouble(v);
        return PyErr_Occurred() ? -1 : 0;
    }
    const int got = read_bound(v, b);
    if (got == 1 && (b->kind == SF_BOUND_INT || b->kind == SF_BOUND_UINT))
        return 0;
    if (got >= 0)
        PyErr_SetString(PyExc_SystemError, "simdfilter._bounds.resolve returned a bad value");
    return -1;
}

static PyObject *bounds_module; /* simdfilter._bounds, imported when first needed */

/* Python's exact verdict: an inclusive pair of domain values, or None (empty). */
static int resolve_in_python(const column *c, PyObject *lo, PyObject *hi,
                             const inclusive_mode *m, sf_range *r) {
    static const char *const names[] = {"neither", "right", "left", "both"};
    if (!bounds_module) {
        bounds_module = PyImport_ImportModule("simdfilter._bounds");
        if (!bounds_module)
            return -1;
    }
    PyObject *res = PyObject_CallMethod(bounds_module, "resolve", "OOOsO", (PyObject *)c->descr,
                                        lo ? lo : Py_None, hi ? hi : Py_None,
                                        names[m->lo_closed * 2 + m->hi_closed],
                                        c->tz ? c->tz : Py_None);
    if (!res)
        return -1;
    int got = 0;
    if (res != Py_None) {
        sf_bound a, b;
        if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
            PyErr_SetString(PyExc_SystemError, "simdfilter._bounds.resolve returned a bad value");
            got = -1;
        } else if (domain_value(PyTuple_GET_ITEM(res, 0), &a) < 0 ||
                   domain_value(PyTuple_GET_ITEM(res, 1), &b) < 0) {
            got = -1;
        } else {
            /* An unbounded end stays unbounded: Python's end of a time domain
             * leaves NaT out, which an Arrow column has no such value for. */
            if (!lo || lo == Py_None)
                a.kind = SF_BOUND_NONE;
            if (!hi || hi == Py_None)
                b.kind = SF_BOUND_NONE;
            got = sf_resolve_range(c->type, &a, 1, &b, 1, r);
            if (got != SF_RANGE_OK && got != SF_RANGE_EMPTY) {
                PyErr_SetString(PyExc_SystemError, "simdfilter._bounds.resolve returned a bad value");
                got = -1;
            }
        }
    }
    Py_DECREF(res);
    return got;
}

int sfpy_resolve_bounds(const column *c, PyObject *lo, PyObject *hi, const inclusive_mode *m,
                        sf_range *r) {
    sf_bound a, b;
    int ra = read_bound(lo, &a), rb = ra < 0 ? 0 : read_bound(hi, &b);
    if (ra < 0 || rb < 0)
        return -1;
    /* Time bounds (datetimes, strings, units, zones) are Python's; an
     * unbounded side is the domain's end, which the library knows. */
    const int unbounded = a.kind == SF_BOUND_NONE && b.kind == SF_BOUND_NONE;
    const int is_time = PyDataType_ISDATETIME(c->descr);
    if (ra && rb && (!is_time || unbounded)) {
        const int got = sf_resolve_range(c->type, &a, m->lo_closed, &b, m->hi_closed, r);
        if (got == SF_RANGE_OK || got == SF_RANGE_EMPTY)
            return got;
        /* SF_RANGE_INEXACT: an int beyond 2^53 on float data; Python decides. */
    }
    return resolve_in_python(c, lo, hi, m, r);
}
