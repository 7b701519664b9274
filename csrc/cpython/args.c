/* The arguments of the three filter functions: positions, keywords, inclusive, threads. */
#include "binding.h"

#include <string.h>

enum {
    ARG_VALUES, ARG_LO, ARG_HI, ARG_INCLUSIVE, ARG_OUT, ARG_INDEX_DTYPE, ARG_THREADS, ARG_WITHIN,
    ARG_COUNT
};

static const char *const KEYWORDS[ARG_COUNT] = {"values", "lo", "hi", "inclusive", "out",
                                                "index_dtype", "threads", "within"};

const char *sfpy_function_name(sf_op op) {
    switch (op) {
    case SF_OP_INDEX32: case SF_OP_INDEX64: return "filter_indexes";
    case SF_OP_VALUES: return "filter_values";
    default: return "count_in_range";
    }
}

/* Whether the function of `op` takes keyword argument k. */
static int takes_keyword(sf_op op, int k) {
    if (k == ARG_OUT)
        return op != SF_OP_COUNT;
    if (k == ARG_INDEX_DTYPE)
        return op == SF_OP_INDEX32 || op == SF_OP_INDEX64;
    if (k == ARG_WITHIN)
        return op != SF_OP_VALUES;
    return 1;
}

static int keyword_slot(sf_op op, PyObject *name) {
    for (int k = 0; k < ARG_COUNT; k++)
        if (takes_keyword(op, k) && PyUnicode_CompareWithASCIIString(name, KEYWORDS[k]) == 0)
            return k;
    return -1;
}

int sfpy_parse_args(sf_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    call_args *a) {
    PyObject **slots[ARG_COUNT] = {&a->values, &a->lo,          &a->hi,      &a->inclusive,
                                   &a->out,    &a->index_dtype, &a->threads, &a->within};
    const char *fname = sfpy_function_name(op);
    memset(a, 0, sizeof *a);
    if (nargs > 3) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes 3 positional arguments (values, lo, hi) but %zd were given; "
                     "the others are keyword-only",
                     fname, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        *slots[i] = args[i];
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, j);
        const int k = keyword_slot(op, name);
        if (k < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname,
                         name);
            return -1;
        }
        if (*slots[k]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         KEYWORDS[k]);
            return -1;
        }
        *slots[k] = args[nargs + j];
    }
    for (int k = ARG_VALUES; k <= ARG_HI; k++) {
        if (!*slots[k]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                         KEYWORDS[k]);
            return -1;
        }
    }
    /* None is "not given" for these; not for inclusive, which pandas refuses too. */
    PyObject **optional[] = {&a->out, &a->index_dtype, &a->threads, &a->within};
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (*optional[i] == Py_None)
            *optional[i] = NULL;
    return 0;
}

int sfpy_parse_inclusive(PyObject *obj, inclusive_mode *m) {
    static const char *const names[] = {"both", "left", "right", "neither"};
    if (obj == NULL) {
        m->lo_closed = m->hi_closed = 1;
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        for (int i = 0; i < 4; i++) {
            if (PyUnicode_CompareWithASCIIString(obj, names[i]) == 0) {
                m->lo_closed = (i == 0 || i == 1);
                m->hi_closed = (i == 0 || i == 2);
                return 0;
            }
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "inclusive must be one of 'both', 'left', 'right', 'neither'; got %R", obj);
    return -1;
}

int sfpy_parse_threads(PyObject *obj) {
    if (!obj)
        return 0;
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "threads must be None or a positive int, not %R", obj);
        return -1;
    }
    PyObject *as_int = PyNumber_Index(obj);
    if (!as_int)
        return -1;
    int overflow = 0;
    long t = PyLong_AsLongAndOverflow(as_int, &overflow);
    Py_DECREF(as_int);
    if (overflow)
        t = overflow > 0 ? SF_MAX_THREADS : -1; /* more than any machine has: all of them */
    else if (t == -1 && PyErr_Occurred())
        return -1;
    if (t < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be None or >= 1, got %R", obj);
        return -1;
    }
    return t > SF_MAX_THREADS ? SF_MAX_THREADS : (int)t;
}
