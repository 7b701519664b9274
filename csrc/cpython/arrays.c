/*
 * The arrays a result is made of: a new 1-d array, from the module's arena
 * when large (result_pool.c), and out[:k]. result.c, masks_py.c and rows.c make
 * their results here, so that none of them calls another for an array.
 */
#include "binding.h"

PyObject *sfpy_new_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k, int *fresh) {
    const size_t bytes = (size_t)k * (size_t)PyDataType_ELSIZE(descr);
    *fresh = 1;
    if (sfpy_poolable(bytes)) {
        sf_chunk *chunk;
        size_t warm;
        void *mem = sfpy_pool_take(st, bytes, &chunk, &warm);
        if (mem) {
            *fresh = warm < bytes;
            return sfpy_pool_array(st, descr, k, chunk, mem);
        }
    }
    return sfpy_new_1d(descr, k);
}

PyObject *sfpy_view_of_first(PyObject *out, Py_ssize_t k) {
    PyObject *stop = PyLong_FromSsize_t(k), *result = NULL;
    PyObject *slice = stop ? PySlice_New(NULL, stop, NULL) : NULL;
    Py_XDECREF(stop);
    if (slice) {
        result = PyObject_GetItem(out, slice);
        Py_DECREF(slice);
    }
    return result;
}

PyObject *sfpy_first(PyObject *out, Py_ssize_t k) {
    if (PyArray_SIZE((PyArrayObject *)out) == k) {
        Py_INCREF(out);
        return out;
    }
    return sfpy_view_of_first(out, k);
}
