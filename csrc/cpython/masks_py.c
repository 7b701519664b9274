/*
 * in_range's results: a NumPy bool array (SF_OP_MASK8), or an Arrow boolean
 * array (SF_OP_BITS) handed over through the Arrow PyCapsule interface, which
 * Polars and pyarrow import without a copy.
 *
 * The Arrow array owns two malloc'd buffers: the values bitmap the kernels
 * wrote (in range and not null: a null's bit is 0, which the spec allows, so
 * the values bitmap alone is the answer with nulls taken as False) and, when
 * the column has nulls, its validity bitmap (sf_validity: the column's own,
 * from bit 0, whatever its chunks' offsets). Its release callback frees them
 * with free(): an importer may release the array on any thread, without the
 * GIL, so nothing Python is held.
 */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

PyObject *sfpy_mask8_result(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                            PyObject *out, PyArray_Descr *descr, int threads) {
    const size_t n = col->n;
    PyArrayObject *res = (PyArrayObject *)out;
    int fresh = out == NULL;
    sfpy_buffer pooled;
    if (out) {
        Py_INCREF(out);
    } else if (nonempty && sfpy_poolable(n) && sfpy_pool_take(st, n, 2 * n, &pooled) == 0) {
        /* the mask is every byte of a pool buffer: no page faults from the
         * second call on (result_pool.c) */
        fresh = pooled.fresh;
        sfpy_buffer_wrote(&pooled, n);
        res = (PyArrayObject *)sfpy_pool_array(st, descr, (npy_intp)n, &pooled);
        if (!res)
            return NULL;
    } else {
        npy_intp dim = (npy_intp)n;
        Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
        res = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, descr, 1, &dim, NULL, NULL, 0,
                                                    NULL);
        if (!res)
            return NULL;
    }
    if (!nonempty || n == 0)
        memset(PyArray_BYTES(res), 0, n);
    else if (sfpy_run_column(q, col, PyArray_BYTES(res), n, threads, fresh) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    if (!out || (size_t)PyArray_SIZE(res) == n)
        return (PyObject *)res;
    /* out[:n], as the filters return out[:k] */
    PyObject *stop = PyLong_FromSize_t(n), *result = NULL;
    PyObject *slice = stop ? PySlice_New(NULL, stop, NULL) : NULL;
    Py_XDECREF(stop);
    if (slice) {
        result = PyObject_GetItem(out, slice);
        Py_DECREF(slice);
    }
    Py_DECREF(res);
    return result;
}

/* ---- The Arrow boolean array ------------------------------------------------ */

/* A buffer for `bytes` bytes, 64-byte aligned and padded to 64 (Arrow's
 * recommendation), the padding zeroed; NULL when out of memory. */
static uint8_t *bitmap_new(size_t bytes) {
    const size_t padded = (bytes + 63) / 64 * 64 + (bytes == 0) * 64;
    uint8_t *b = (uint8_t *)aligned_alloc(64, padded);
    if (b)
        memset(b + bytes, 0, padded - bytes);
    return b;
}

static void release_array(struct ArrowArray *a) {
    const void **buffers = a->buffers;
    free((void *)buffers[0]);
    free((void *)buffers[1]);
    free((void *)buffers);
    a->release = NULL;
}

/* The schema's strings are static: nothing to free. */
static void release_schema(struct ArrowSchema *s) { s->release = NULL; }

/* The PyCapsule interface's destructors: release what the consumer did not
 * move out, then free the struct. */
static void drop_schema(PyObject *capsule) {
    struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(capsule, "arrow_schema");
    if (s && s->release)
        s->release(s);
    free(s);
}

static void drop_array(PyObject *capsule) {
    struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(capsule, "arrow_array");
    if (a && a->release)
        a->release(a);
    free(a);
}

/* Whether any element of the column can be null (a mask, or a chunk with a
 * validity bitmap and nulls). */
static int may_have_nulls(const column *col) {
    if (col->form == COLUMN_NUMPY)
        return col->mask != NULL;
    for (size_t i = 0; i < col->nchunks; i++) {
        const struct ArrowArray *ch = &col->chunks[i];
        if (ch->null_count != 0 && ch->n_buffers > 0 && ch->buffers[0])
            return 1;
    }
    return 0;
}

/* The column's validity into a new bitmap, or NULL (and *nulls 0) when no
 * element is null; -1 out of memory. */
static int validity_of(const column *col, uint8_t **valid, int64_t *nulls) {
    *valid = NULL;
    *nulls = 0;
    if (!may_have_nulls(col))
        return 0;
    uint8_t *bits = bitmap_new((col->n + 7) / 8);
    if (!bits)
        return -1;
    column_source storage;
    size_t count = 0;
    sf_source *src = sfpy_column_source(col, &storage);
    sf_validity(src, bits, col->n, &count);
    sfpy_column_source_free(col, &storage);
    if (!count) {
        free(bits);
        return 0;
    }
    *valid = bits;
    *nulls = (int64_t)count;
    return 0;
}

PyObject *sfpy_bits_result(const sf_query *q, int nonempty, const column *col, int threads) {
    const size_t n = col->n, bytes = (n + 7) / 8;
    uint8_t *values = bitmap_new(bytes), *valid = NULL;
    int64_t nulls = 0;
    const void **buffers = (const void **)malloc(2 * sizeof *buffers);
    struct ArrowSchema *schema = (struct ArrowSchema *)calloc(1, sizeof *schema);
    struct ArrowArray *array = (struct ArrowArray *)calloc(1, sizeof *array);
    if (!values || !buffers || !schema || !array || validity_of(col, &valid, &nulls) < 0) {
        free(values), free(buffers), free(schema), free(array);
        return PyErr_NoMemory();
    }
    if (!nonempty || n == 0)
        memset(values, 0, bytes);
    else if (sfpy_run_column(q, col, values, n, threads, 1) < 0) {
        free(values), free(valid), free(buffers), free(schema), free(array);
        return NULL;
    }
    buffers[0] = valid;
    buffers[1] = values;
    *schema = (struct ArrowSchema){.format = "b", .name = "", .flags = ARROW_FLAG_NULLABLE,
                                   .release = release_schema};
    *array = (struct ArrowArray){.length = (int64_t)n, .null_count = nulls, .n_buffers = 2,
                                 .buffers = buffers, .release = release_array};
    PyObject *s = PyCapsule_New(schema, "arrow_schema", drop_schema);
    if (!s) {
        release_array(array);
        free(schema), free(array);
        return NULL;
    }
    PyObject *a = PyCapsule_New(array, "arrow_array", drop_array);
    if (!a) {
        release_array(array);
        free(array);
        Py_DECREF(s);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, s, a);
    Py_DECREF(s);
    Py_DECREF(a);
    return pair;
}
