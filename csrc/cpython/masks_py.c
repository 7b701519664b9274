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
 * GIL, so nothing Python is held. Those helpers (the bitmap, the releases, the
 * capsule pair) serve the Polars plugin's exports too (binding.h).
 */
#include "binding.h"

#include <stdlib.h>
#include <string.h>

/* A mask of `count` elements of descr (n bools, or ceil(n / 8) bytes of bits)
 * over the column, into out[:count] or a fresh array (a pool buffer when large:
 * no page faults from the second call on, result_pool.c). */
static PyObject *mask_into(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                           PyObject *out, PyArray_Descr *descr, size_t count, int threads) {
    int fresh = 0;
    PyArrayObject *res = (PyArrayObject *)out;
    if (out)
        Py_INCREF(out);
    else if (!(res = (PyArrayObject *)sfpy_new_array(st, descr, (npy_intp)count, &fresh)))
        return NULL;
    if (!nonempty || col->n == 0)
        memset(PyArray_BYTES(res), 0, count);
    else if (sfpy_run_column(q, col, PyArray_BYTES(res), col->n, threads, fresh, 0) < 0) {
        Py_DECREF(res);
        return NULL;
    }
    PyObject *result = sfpy_first((PyObject *)res, (Py_ssize_t)count);
    Py_DECREF(res);
    return result;
}

PyObject *sfpy_mask8_result(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                            PyObject *out, PyArray_Descr *descr, int threads) {
    return mask_into(st, q, nonempty, col, out, descr, col->n, threads);
}

PyObject *sfpy_bits_array(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                          PyObject *out, int threads) {
    PyArray_Descr *bytes = PyArray_DescrFromType(NPY_UINT8);
    PyObject *res = mask_into(st, q, nonempty, col, out, bytes,
                              sf_output_bytes(SF_OP_BITS, SF_U8, col->n), threads);
    Py_DECREF(bytes);
    return res;
}

/* ---- Arrow structs handed out (here and by the Polars plugin) -------------- */

uint8_t *sfpy_bitmap_new(size_t bytes) {
    const size_t padded = (bytes + 63) / 64 * 64 + (bytes == 0) * 64;
    uint8_t *b = (uint8_t *)aligned_alloc(64, padded);
    if (b)
        memset(b + bytes, 0, padded - bytes);
    return b;
}

void sfpy_release_owned_array(struct ArrowArray *a) {
    const void **buffers = a->buffers;
    for (int64_t i = 0; i < a->n_buffers; i++)
        free((void *)buffers[i]);
    free((void *)buffers);
    a->release = NULL;
}

void sfpy_schema_release_nothing(struct ArrowSchema *s) { s->release = NULL; }

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

PyObject *sfpy_capsule_pair(struct ArrowSchema *schema, struct ArrowArray *array) {
    PyObject *s = PyCapsule_New(schema, "arrow_schema", drop_schema);
    if (!s) {
        if (schema->release)
            schema->release(schema);
        free(schema);
        array->release(array);
        free(array);
        return NULL;
    }
    PyObject *a = PyCapsule_New(array, "arrow_array", drop_array);
    if (!a) {
        array->release(array);
        free(array);
        Py_DECREF(s);
        return NULL;
    }
    PyObject *pair = PyTuple_Pack(2, s, a);
    Py_DECREF(s);
    Py_DECREF(a);
    return pair;
}

/* ---- The Arrow boolean array ------------------------------------------------ */

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

int sfpy_validity_of(const column *col, uint8_t **valid, int64_t *nulls) {
    *valid = NULL;
    *nulls = 0;
    if (!may_have_nulls(col))
        return 0;
    uint8_t *bits = sfpy_bitmap_new((col->n + 7) / 8);
    if (!bits) {
        PyErr_NoMemory();
        return -1;
    }
    column_source storage;
    size_t count = 0;
    sf_source *src = sfpy_column_source(col, &storage);
    sf_validity(src, bits, col->n, &count);
    sfpy_column_source_free(col, &storage);
    if (sfpy_column_source_refused(col, &storage) < 0) { /* bits past it unwritten */
        free(bits);
        return -1;
    }
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
    uint8_t *values = sfpy_bitmap_new(bytes), *valid = NULL;
    int64_t nulls = 0;
    const void **buffers = (const void **)malloc(2 * sizeof *buffers);
    struct ArrowSchema *schema = (struct ArrowSchema *)calloc(1, sizeof *schema);
    struct ArrowArray *array = (struct ArrowArray *)calloc(1, sizeof *array);
    if (!values || !buffers || !schema || !array) {
        free(values), free(buffers), free(schema), free(array);
        return PyErr_NoMemory();
    }
    if (sfpy_validity_of(col, &valid, &nulls) < 0) {
        free(values), free(buffers), free(schema), free(array);
        return NULL;
    }
    if (!nonempty || n == 0)
        memset(values, 0, bytes);
    else if (sfpy_run_column(q, col, values, n, threads, 1, 0) < 0) {
        free(values), free(valid), free(buffers), free(schema), free(array);
        return NULL;
    }
    buffers[0] = valid;
    buffers[1] = values;
    *schema = (struct ArrowSchema){.format = "b", .name = "", .flags = ARROW_FLAG_NULLABLE,
                                   .release = sfpy_schema_release_nothing};
    *array = (struct ArrowArray){.length = (int64_t)n, .null_count = nulls, .n_buffers = 2,
                                 .buffers = buffers, .release = sfpy_release_owned_array};
    return sfpy_capsule_pair(schema, array);
}
