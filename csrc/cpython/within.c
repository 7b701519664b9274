/*
 * within=: the positions a query looks at, as the library takes them. The
 * cheap checks are made here, before the call: the first position is not
 * negative and the last is inside the data; the library checks, block by
 * block and before reading a value at any of them, that they ascend strictly
 * (which, with those two ends, keeps every one inside the data).
 */
#include "binding.h"

static int first_and_last(PyArrayObject *w, size_t n) {
    const npy_intp m = PyArray_SIZE(w);
    if (m == 0)
        return 0;
    PyArray_Descr *d = PyArray_DESCR(w);
    const char *p = PyArray_BYTES(w);
    const int wide = PyArray_ITEMSIZE(w) == 8;
    uint64_t last;
    if (wide) {
        memcpy(&last, p + (m - 1) * 8, 8);
    } else {
        uint32_t v;
        memcpy(&v, p + (m - 1) * 4, 4);
        last = v;
    }
    if (PyTypeNum_ISSIGNED(d->type_num)) {
        int64_t first, end;
        memcpy(&first, p, 8);
        memcpy(&end, p + (m - 1) * 8, 8);
        if (first < 0 || end < 0) {
            PyErr_Format(PyExc_IndexError, "within holds the negative position %lld; "
                         "positions count from 0", (long long)(first < 0 ? first : end));
            return -1;
        }
    }
    if (last >= n) {
        PyErr_Format(PyExc_IndexError,
                     "within holds the position %llu, out of bounds for %zu elements",
                     (unsigned long long)last, n);
        return -1;
    }
    return 0;
}

PyArrayObject *sfpy_within(PyObject *within, size_t n, sf_query *q) {
    PyArrayObject *w = (PyArrayObject *)PyArray_FromAny(within, NULL, 0, 0, 0, NULL);
    if (!w)
        return NULL;
    const int t = PyArray_DESCR(w)->type_num;
    if (!PyTypeNum_ISINTEGER(t) || PyArray_NDIM(w) != 1) {
        PyErr_Format(PyExc_TypeError, "within must be a 1-d array of integer positions, not %R "
                     "of %d dimension(s)", (PyObject *)PyArray_DESCR(w), PyArray_NDIM(w));
        Py_DECREF(w);
        return NULL;
    }
    /* uint32 positions as they are; every other integer type as 8-byte ones
     * (a copy of the positions only, never of the values). */
    const int keep32 = PyArray_ITEMSIZE(w) == 4 && PyTypeNum_ISUNSIGNED(t);
    const int keep64 = PyArray_ITEMSIZE(w) == 8;
    const int type = keep32 ? NPY_UINT32 : keep64 ? t : NPY_INT64;
    PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
        w, PyArray_DescrFromType(type), NPY_ARRAY_IN_ARRAY | NPY_ARRAY_NOTSWAPPED);
    Py_DECREF(w);
    if (!c)
        return NULL;
    if (first_and_last(c, n) < 0) {
        Py_DECREF(c);
        return NULL;
    }
    q->within = PyArray_DATA(c);
    q->within_count = (size_t)PyArray_SIZE(c);
    q->within_wide = PyArray_ITEMSIZE(c) == 8;
    return c;
}
