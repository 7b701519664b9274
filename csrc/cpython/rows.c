/*
 * _core._take_rows(columns, positions): the rows of a frame's columns at the
 * positions a query found, as `df.iloc[positions]` takes them (the faces'
 * `df.sf.filter`), through sf_take_rows: one pass per block of rows over every
 * column, the GIL released, results in the module's arena (no page faults
 * once earlier results died). pandas' take converted uint32 positions to
 * intp, checked them in a pass of their own and took each block of columns
 * apart; figures in csrc/cpython/README.md ("Rows").
 */
#include "binding.h"

/* Columns one call takes at most: a frame wider than this goes to the host. */
#define MOST_COLUMNS 256

/* A column this takes: a 1-d array of 1, 2, 4 or 8-byte elements holding no
 * Python objects (its bytes are copied as they are, byte order included). */
static int takeable(PyObject *obj) {
    if (!PyArray_Check(obj))
        return 0;
    PyArrayObject *a = (PyArrayObject *)obj;
    const npy_intp size = PyArray_ITEMSIZE(a);
    return PyArray_NDIM(a) == 1 && !PyDataType_REFCHK(PyArray_DESCR(a)) &&
           (size == 1 || size == 2 || size == 4 || size == 8);
}

static PyObject *take_rows(sfpy_state *st, PyObject *seq, PyArrayObject *pos) {
    const Py_ssize_t ncols = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    if (ncols > MOST_COLUMNS) {
        PyErr_Format(PyExc_ValueError, "_take_rows: at most %d columns, not %zd", MOST_COLUMNS,
                     ncols);
        return NULL;
    }
    const npy_intp k = PyArray_SIZE(pos);
    const int wide = PyArray_ITEMSIZE(pos) == 8;
    sf_take_column cols[MOST_COLUMNS];
    PyObject *out = PyList_New(ncols);
    npy_intp n = -1;
    for (Py_ssize_t c = 0; out && c < ncols; c++) {
        if (!takeable(items[c])) {
            PyErr_Format(PyExc_TypeError,
                         "_take_rows: column %zd is not a 1-d array of 1, 2, 4 or 8-byte "
                         "elements without objects",
                         c);
            Py_CLEAR(out);
            break;
        }
        PyArrayObject *a = (PyArrayObject *)items[c];
        if (n >= 0 && PyArray_SIZE(a) != n) {
            PyErr_Format(PyExc_ValueError, "_take_rows: column %zd has %zd rows, column 0 %zd",
                         c, (Py_ssize_t)PyArray_SIZE(a), (Py_ssize_t)n);
            Py_CLEAR(out);
            break;
        }
        n = PyArray_SIZE(a);
        int fresh;
        PyArray_Descr *descr = PyArray_DESCR(a);
        PyObject *dst = sfpy_new_array(st, descr, k, &fresh);
        if (!dst) {
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, c, dst);
        cols[c] = (sf_take_column){PyArray_DATA(a), PyArray_STRIDE(a, 0),
                                   (size_t)PyArray_ITEMSIZE(a), PyArray_DATA((PyArrayObject *)dst)};
    }
    if (!out)
        return NULL;
    size_t done;
    if (k >= 8192) {
        Py_BEGIN_ALLOW_THREADS
        done = sf_take_rows(cols, (size_t)ncols, (size_t)(n < 0 ? 0 : n), PyArray_DATA(pos), wide,
                            (size_t)k);
        Py_END_ALLOW_THREADS
    } else {
        done = sf_take_rows(cols, (size_t)ncols, (size_t)(n < 0 ? 0 : n), PyArray_DATA(pos), wide,
                            (size_t)k);
    }
    if (done != (size_t)k) {
        const uint64_t at = wide ? ((const uint64_t *)PyArray_DATA(pos))[done]
                                 : ((const uint32_t *)PyArray_DATA(pos))[done];
        PyErr_Format(PyExc_IndexError,
                     "_take_rows: positions[%zd] = %llu is out of bounds for %zd rows",
                     (Py_ssize_t)done, (unsigned long long)at, (Py_ssize_t)(n < 0 ? 0 : n));
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

PyObject *sfpy_take_rows(PyObject *module, PyObject *args) {
    PyObject *columns, *positions;
    if (!PyArg_ParseTuple(args, "OO:_take_rows", &columns, &positions))
        return NULL;
    if (!PyArray_Check(positions) || PyArray_NDIM((PyArrayObject *)positions) != 1 ||
        !PyArray_ISCARRAY_RO((PyArrayObject *)positions) ||
        !PyArray_ISNBO(PyArray_DESCR((PyArrayObject *)positions)->byteorder) ||
        !(PyArray_TYPE((PyArrayObject *)positions) == NPY_UINT32 ||
          PyArray_TYPE((PyArrayObject *)positions) == NPY_UINT64 ||
          PyArray_TYPE((PyArrayObject *)positions) == NPY_INT64 ||
          PyArray_TYPE((PyArrayObject *)positions) == NPY_LONGLONG ||
          PyArray_TYPE((PyArrayObject *)positions) == NPY_ULONGLONG)) {
        PyErr_SetString(PyExc_TypeError, "_take_rows: positions must be a contiguous 1-d array "
                                         "of uint32, int64 or uint64");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(columns, "_take_rows: columns must be a sequence of arrays");
    if (!seq)
        return NULL;
    PyObject *res = take_rows(sfpy_state_of(module), seq, (PyArrayObject *)positions);
    Py_DECREF(seq);
    return res;
}
