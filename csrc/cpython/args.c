/* The arguments of the filter functions (and of in_range): positions, keywords,
 * inclusive, threads. */
#include "binding.h"

#include <stddef.h>
#include <string.h>

enum {
    ARG_VALUES, ARG_LO, ARG_HI, ARG_INCLUSIVE, ARG_OUT, ARG_INDEX_DTYPE, ARG_THREADS, ARG_WITHIN,
    ARG_ASSUME_SORTED, ARG_INVERT, ARG_ISIN, ARG_ITEMS, ARG_COUNT
};

/* isin= (the filters') and items (isin's own second argument) are one slot. */
static const char *const KEYWORDS[ARG_COUNT] = {"values", "lo", "hi", "inclusive", "out",
                                                "index_dtype", "threads", "within",
                                                "assume_sorted", "invert", "isin", "items"};
static const size_t SLOTS[ARG_COUNT] = {
    offsetof(call_args, values), offsetof(call_args, lo),          offsetof(call_args, hi),
    offsetof(call_args, inclusive), offsetof(call_args, out),     offsetof(call_args, index_dtype),
    offsetof(call_args, threads), offsetof(call_args, within),
    offsetof(call_args, assume_sorted), offsetof(call_args, invert), offsetof(call_args, isin),
    offsetof(call_args, isin)};
_Static_assert(ARG_COUNT == SFPY_ARG_COUNT, "binding.h's SFPY_ARG_COUNT counts the keywords");

static PyObject **slot(call_args *a, int k) {
    return (PyObject **)(void *)((char *)a + SLOTS[k]);
}

const char *sfpy_function_name(sf_op op) {
    switch (op) {
    case SF_OP_INDEX32: case SF_OP_INDEX64: return "filter_indexes";
    case SF_OP_VALUES: return "filter_values";
    case SF_OP_MASK8: return "in_range";
    case SF_OP_BITS: return "in_range_arrow";
    default: return "count_in_range";
    }
}

/* The Python function's name, for errors (not looked up on the way that
 * raises none). */
static const char *fname(const call_args *a) {
    return a->isin_function ? "isin" : sfpy_function_name(a->op);
}

/* The keywords as interned str, in the module's state: a call's keyword names
 * are interned (the compiler interns identifiers), so most are found by
 * identity. */
int sfpy_args_init(sfpy_state *st) {
    for (int k = 0; k < ARG_COUNT; k++)
        if (!(st->arg_names[k] = PyUnicode_InternFromString(KEYWORDS[k])))
            return -1;
    return 0;
}

/* Whether the function of `op` (`isin`: the function isin) takes keyword
 * argument k. */
static int takes_keyword(sf_op op, int isin, int k) {
    if (isin) /* isin(values, items, *, out, threads, invert) */
        return k == ARG_VALUES || k == ARG_ITEMS || k == ARG_OUT || k == ARG_THREADS ||
               k == ARG_INVERT;
    if (k == ARG_ITEMS)
        return 0;
    if (k == ARG_ISIN) /* in_range's set is the function isin */
        return op != SF_OP_MASK8;
    if (k == ARG_OUT)
        return op != SF_OP_COUNT; /* SF_OP_BITS: _in_range_bits's */
    if (k == ARG_INDEX_DTYPE)
        return op == SF_OP_INDEX32 || op == SF_OP_INDEX64;
    if (k == ARG_WITHIN)
        return op != SF_OP_VALUES && !sf_op_is_mask(op);
    if (k == ARG_ASSUME_SORTED)
        return !sf_op_is_mask(op);
    return 1;
}

static int keyword_slot(const sfpy_state *st, sf_op op, int isin, PyObject *name) {
    int k = 0;
    while (k < ARG_COUNT && name != st->arg_names[k])
        k++;
    if (k == ARG_COUNT) /* a name made at run time: compared by value */
        for (k = 0; k < ARG_COUNT; k++)
            if (PyUnicode_CompareWithASCIIString(name, KEYWORDS[k]) == 0)
                break;
    return k < ARG_COUNT && takes_keyword(op, isin, k) ? k : -1;
}

static int keyword_args(const sfpy_state *st, sf_op op, PyObject *const *values,
                        PyObject *kwnames, call_args *a) {
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); j++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, j);
        const int k = keyword_slot(st, op, a->isin_function, name);
        if (k < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R",
                         fname(a), name);
            return -1;
        }
        if (*slot(a, k)) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                         fname(a), KEYWORDS[k]);
            return -1;
        }
        *slot(a, k) = values[j];
    }
    return 0;
}

/* The bounds: lo and hi, or isin= alone (the filters), or items (isin). 0 or -1. */
static int check_bounds(call_args *a) {
    if (a->isin_function) {
        if (!a->values || !a->isin) {
            PyErr_Format(PyExc_TypeError, "isin() missing required argument '%s'",
                         a->values ? "items" : "values");
            return -1;
        }
        return 0;
    }
    if (a->isin && a->isin != Py_None) {
        if (a->lo || a->hi || a->inclusive) {
            PyErr_Format(PyExc_TypeError,
                         "%s() takes either lo and hi (a range) or isin= (a set of numbers), "
                         "not both%s",
                         fname(a), a->inclusive ? " (inclusive= is for ranges)" : "");
            return -1;
        }
        return a->values ? 0 : (PyErr_Format(PyExc_TypeError,
                                             "%s() missing required argument 'values'",
                                             fname(a)), -1);
    }
    a->isin = NULL;
    for (int k = ARG_VALUES; k <= ARG_HI; k++) {
        if (!*slot(a, k)) {
            PyErr_Format(PyExc_TypeError,
                         k == ARG_VALUES || a->op == SF_OP_MASK8
                             ? "%s() missing required argument '%s'"
                             : "%s() missing required argument '%s' (or isin=, a set of "
                               "numbers, in place of lo and hi)",
                         fname(a), KEYWORDS[k]);
            return -1;
        }
    }
    return 0;
}

int sfpy_parse_args(const sfpy_state *st, sf_op op, int isin, PyObject *const *args,
                    Py_ssize_t nargs, PyObject *kwnames, call_args *a) {
    memset(a, 0, sizeof *a);
    a->isin_function = isin;
    a->op = op;
    if (nargs > (isin ? 2 : 3)) {
        PyErr_Format(PyExc_TypeError,
                     isin ? "%s() takes 2 positional arguments (values, items) but %zd were "
                            "given; the others are keyword-only"
                          : "%s() takes 3 positional arguments (values, lo, hi) but %zd were "
                            "given; the others are keyword-only",
                     fname(a), nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        *slot(a, isin && i == 1 ? ARG_ITEMS : (int)i) = args[i];
    if (kwnames && keyword_args(st, op, args + nargs, kwnames, a) < 0)
        return -1;
    if (check_bounds(a) < 0)
        return -1;
    /* None is "not given" for these; not for inclusive, which pandas refuses too. */
    for (int k = ARG_OUT; k <= ARG_ASSUME_SORTED; k++)
        if (*slot(a, k) == Py_None)
            *slot(a, k) = NULL;
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

int sfpy_parse_assume_sorted(const call_args *a) {
    if (!a->assume_sorted)
        return 0;
    if (!PyBool_Check(a->assume_sorted) && !PyArray_IsScalar(a->assume_sorted, Bool)) {
        PyErr_Format(PyExc_TypeError, "assume_sorted must be True or False, not %R",
                     a->assume_sorted);
        return -1;
    }
    const int sorted = PyObject_IsTrue(a->assume_sorted);
    if (sorted && a->within) {
        PyErr_SetString(PyExc_ValueError,
                        "assume_sorted=True and within= cannot be combined: within already "
                        "names the positions to read");
        return -1;
    }
    return sorted;
}

int sfpy_parse_invert(PyObject *obj) {
    if (!obj || obj == Py_False || obj == Py_None) /* None: not given, as for every keyword */
        return 0;
    if (obj == Py_True)
        return 1;
    if (PyArray_IsScalar(obj, Bool))
        return obj == PyArrayScalar_True ? 1 : 0;
    PyErr_Format(PyExc_TypeError, "invert must be True, False or None, not %R", obj);
    return -1;
}
