/*
 * _resolve_bounds, for tests: the range the binding's bound rule finds for a
 * call's bounds (bounds_py.c and the readers below it), or the range an oracle
 * the test gives finds on the same column (the Python rule the C rule
 * replaced, frozen in tests/bounds_before_44.py), so that tests hold the one
 * to the other without a call of the library.
 */
#include "binding.h"

/* A value an oracle returned: an int of the data's domain, or a float. */
static int domain_value(PyObject *v, sf_bound *b) {
    if (PyFloat_Check(v)) {
        b->kind = SF_BOUND_FLOAT;
        b->f = PyFloat_AsDouble(v);
        return PyErr_Occurred() ? -1 : 0;
    }
    if (PyLong_Check(v)) {
        sfpy_int_bound(v, b);
        if (b->kind == SF_BOUND_INT || b->kind == SF_BOUND_UINT)
            return 0;
    }
    PyErr_SetString(PyExc_ValueError, "_resolve_bounds: the oracle returned a bad value");
    return -1;
}

/* The range a test's oracle gives, called as the Python rule was before issue
 * 44: oracle(dtype, lo, hi, inclusive, tz, time_of_day) -> None or (lo, hi),
 * inclusive, in the data's domain. 1, 0 (empty) or -1. */
static int resolve_by_oracle(PyObject *oracle, const column *c, PyObject *lo, PyObject *hi,
                             const inclusive_mode *m, sf_range *r) {
    static const char *const names[] = {"neither", "right", "left", "both"};
    PyObject *res = PyObject_CallFunction(oracle, "OOOsOO", (PyObject *)c->descr,
                                          lo ? lo : Py_None, hi ? hi : Py_None,
                                          names[m->lo_closed * 2 + m->hi_closed],
                                          c->tz ? c->tz : Py_None,
                                          sfpy_time_of_day(c) ? Py_True : Py_False);
    if (!res)
        return -1;
    int got = 0;
    if (res != Py_None) {
        sf_bound a, b;
        if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
            PyErr_SetString(PyExc_ValueError, "_resolve_bounds: the oracle returned a bad value");
            got = -1;
        } else if (domain_value(PyTuple_GET_ITEM(res, 0), &a) < 0 ||
                   domain_value(PyTuple_GET_ITEM(res, 1), &b) < 0) {
            got = -1;
        } else {
            /* An unbounded end of time data stays unbounded: the oracle's end
             * of a time domain leaves NaT out, which an Arrow column has no
             * such value for. */
            const int is_time = PyDataType_ISDATETIME(c->descr);
            if (is_time && (!lo || lo == Py_None))
                a.kind = SF_BOUND_NONE;
            if (is_time && (!hi || hi == Py_None))
                b.kind = SF_BOUND_NONE;
            got = sf_resolve_range(c->type, &a, 1, &b, 1, r);
            if (got != SF_RANGE_OK && got != SF_RANGE_EMPTY) {
                PyErr_SetString(PyExc_ValueError,
                                "_resolve_bounds: the oracle returned a bad value");
                got = -1;
            }
        }
    }
    Py_DECREF(res);
    return got;
}

/* One end of a range as the Python number it stands for in the data's type. */
static PyObject *range_end(sf_type t, uint64_t bits, double f) {
    switch (t) {
    case SF_T_F32: case SF_T_F64: return PyFloat_FromDouble(f);
    case SF_T_BOOL: return PyLong_FromLong(bits != 0);
    case SF_T_U8: case SF_T_U16: case SF_T_U32: case SF_T_U64:
        return PyLong_FromUnsignedLongLong(bits);
    case SF_T_I8: return PyLong_FromLong((int8_t)bits);
    case SF_T_I16: return PyLong_FromLong((int16_t)bits);
    case SF_T_I32: return PyLong_FromLong((int32_t)bits);
    default: return PyLong_FromLongLong((int64_t)bits);
    }
}

/* _resolve_bounds(values, lo, hi, inclusive="both", python=None), for tests:
 * ("c", None or (lo, hi)), the inclusive range the binding finds for the
 * bounds of a call on `values`; with python=an oracle, ("python", ...): the
 * range the oracle gives (called as resolve_by_oracle says), for the tests
 * that hold the binding to the Python rule it replaced. */
static PyObject *py_resolve_bounds(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"values", "lo", "hi", "inclusive", "python", NULL};
    PyObject *values, *lo, *hi, *inclusive = NULL, *oracle = Py_None, *res = NULL;
    inclusive_mode m;
    column c;
    sf_range r;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|OO:_resolve_bounds", keywords, &values,
                                     &lo, &hi, &inclusive, &oracle) ||
        sfpy_parse_inclusive(inclusive, &m) < 0)
        return NULL;
    if (oracle != Py_None && !PyCallable_Check(oracle))
        return PyErr_Format(PyExc_TypeError, "_resolve_bounds: python must be callable");
    if (sfpy_column_from(sfpy_state_of(self), values, &c) == 0) {
        const char *path = oracle == Py_None ? "c" : "python";
        const int got = oracle == Py_None ? sfpy_resolve_bounds(&c, lo, hi, &m, &r)
                                          : resolve_by_oracle(oracle, &c, lo, hi, &m, &r);
        if (got == 0)
            res = Py_BuildValue("(sO)", path, Py_None);
        else if (got > 0)
            res = Py_BuildValue("(s(NN))", path, range_end(c.type, r.lo, r.flo),
                                range_end(c.type, r.hi, r.fhi));
    }
    sfpy_column_release(&c);
    return res;
}

PyMethodDef sfpy_bounds_methods[] = {
    {"_resolve_bounds", (PyCFunction)(void (*)(void))py_resolve_bounds,
     METH_VARARGS | METH_KEYWORDS,
     "_resolve_bounds(values, lo, hi, inclusive='both', python=None)\n--\n\n"
     "For tests: the inclusive range the binding finds for bounds of a call on `values`, "
     "('c', None or (lo, hi)); python=an oracle (dtype, lo, hi, inclusive, tz, time_of_day) "
     "-> None or (lo, hi) gives ('python', its range) on the same column."},
    {NULL, NULL, 0, NULL},
};
