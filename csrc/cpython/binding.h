/*
 * Internal to the CPython binding (csrc/cpython): what its files share. Every
 * file here turns Python and NumPy objects into the library's terms (types,
 * bounds, queries, sources) or results back into objects; the work itself is
 * the library's (include/simdfilter.h).
 */
#ifndef SIMDFILTER_BINDING_H
#define SIMDFILTER_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* module.c imports NumPy's C API; the other files use it through this symbol. */
#define PY_ARRAY_UNIQUE_SYMBOL simdfilter_ARRAY_API
#ifndef SFPY_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include "simdfilter.h"

/* ---- args.c: the arguments of filter_indexes, filter_values, count_in_range ---- */

typedef struct call_args {
    PyObject *values, *lo, *hi, *inclusive, *out, *index_dtype, *threads;
} call_args;

/* The Python function an operation belongs to ("filter_indexes" for both index ops). */
const char *sfpy_function_name(sf_op op);
int sfpy_parse_args(sf_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    call_args *a);

typedef struct inclusive_mode {
    int lo_closed, hi_closed;
} inclusive_mode;
/* NULL (not given) is "both"; anything but the four names is a ValueError. */
int sfpy_parse_inclusive(PyObject *obj, inclusive_mode *m);
/* NULL (not given) or None: 0, automatic. Else 1..SF_MAX_THREADS; -1 on error. */
int sfpy_parse_threads(PyObject *obj);

/* ---- bounds_py.c: Python bounds to an sf_range ---- */

/* 1: the range is in *r; 0: it is empty; -1: an exception is set. */
int sfpy_resolve_bounds(PyArrayObject *arr, sf_type type, PyObject *lo, PyObject *hi,
                        const inclusive_mode *m, sf_range *r);

/* ---- source_numpy.c: an ndarray as a source of runs ---- */

/* The array itself, or an ndarray view of an array-like (never a cast); NULL
 * with an exception for masked arrays and what NumPy cannot view. */
PyArrayObject *sfpy_as_array(PyObject *values);
/* The library type of a supported dtype; -1 with a TypeError otherwise. */
int sfpy_classify_dtype(PyArray_Descr *d, sf_type *type);

typedef struct numpy_source {
    sf_source source;
    /* The array's layout, copied so that next() needs neither Python nor the GIL. */
    const char *ptr;
    int nd;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], idx[NPY_MAXDIMS];
    size_t itemsize, size, row, rows, rows_done, per_batch;
    int byteswap, whole; /* whole: one run covers the array */
    char *batch;         /* rows copied together, when they are short */
} numpy_source;

/* Always 0: a batch that cannot be allocated means a run per row. Pair with
 * sfpy_numpy_source_free. */
int sfpy_numpy_source_init(numpy_source *s, PyArrayObject *arr);
void sfpy_numpy_source_free(numpy_source *s);

/* ---- gil.c: running a query with the GIL released and Ctrl-C honoured ---- */

/* sf_execute for a call over `n` elements. Returns the number found, or -1 with
 * an exception (KeyboardInterrupt from Ctrl-C, or another a signal handler raised). */
Py_ssize_t sfpy_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
                        int threads, size_t n);

/* ---- kernels_py.c: the kernel a call runs ---- */

/* The kernel of this context (a `with use_kernel(...)` block), or NULL for the
 * process default; (const sf_kernel *)-1 with an exception set. */
const sf_kernel *sfpy_context_kernel(void);
#define SFPY_KERNEL_ERROR ((const sf_kernel *)-1)
int sfpy_add_kernel_functions(PyObject *module);
extern PyMethodDef sfpy_kernel_methods[];

/* ---- result.c: result arrays ---- */

/* The dtype of the results of `*op` (INDEX32 widened to INDEX64 as index_dtype
 * or out asks), NULL for count; checks `out` whole. 0 or -1 on error. */
int sfpy_result_type(sf_op *op, const call_args *a, PyArrayObject *arr,
                     PyArray_Descr **descr);
/* Run the query into out[:n] (a checked array), into a fresh exact-size array,
 * or (count) into nothing; `nonempty` 0 answers without running. */
PyObject *sfpy_result(const sf_query *q, int nonempty, PyArrayObject *arr, PyObject *out,
                      PyArray_Descr *descr, int threads);

#endif
