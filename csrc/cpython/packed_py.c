/*
 * simdfilter.Packed's C half (python/simdfilter/_packed.py holds the class):
 * the build, the decoding and the queries of a packed column
 * (include/simdfilter_packed.h), on the NumPy arrays the class keeps. Its
 * parts come back in from pickles, so every query checks that they describe a
 * column the library can read without going out of their buffers.
 */
#include "binding.h"
#include "simdfilter_packed.h"

/* The parts' order in the tuple the class keeps. */
enum { PART_REF, PART_MAXOFF, PART_WIDTH, PART_START, PART_DATA, PART_COUNT };

/* An integer dtype the packed column stores: its size and sign, or -1 with a TypeError. */
static int storage_of(PyArray_Descr *d, unsigned *bytes, int *is_signed) {
    if ((d->kind != 'i' && d->kind != 'u') || !PyArray_ISNBO(d->byteorder) ||
        (PyDataType_ELSIZE(d) != 1 && PyDataType_ELSIZE(d) != 2 && PyDataType_ELSIZE(d) != 4 && PyDataType_ELSIZE(d) != 8)) {
        PyErr_Format(PyExc_TypeError, "_packed: a native integer dtype, not %R", (PyObject *)d);
        return -1;
    }
    *bytes = (unsigned)PyDataType_ELSIZE(d);
    *is_signed = d->kind == 'i';
    return 0;
}

static int block_ok(Py_ssize_t block) {
    if (block < (Py_ssize_t)SF_PACKED_BLOCK || block > (Py_ssize_t)SF_PACKED_BLOCK_MAX ||
        block % (Py_ssize_t)SF_PACKED_BLOCK) {
        PyErr_Format(PyExc_ValueError,
                     "block must be a multiple of %zu from %zu to %zu, not %zd", SF_PACKED_BLOCK,
                     SF_PACKED_BLOCK, SF_PACKED_BLOCK_MAX, block);
        return 0;
    }
    return 1;
}

static PyObject *py_packed_build(PyObject *self, PyObject *args) {
    PyArrayObject *values;
    Py_ssize_t block;
    if (!PyArg_ParseTuple(args, "O!n", &PyArray_Type, &values, &block) || !block_ok(block))
        return NULL;
    sf_packed_column c;
    memset(&c, 0, sizeof c);
    if (storage_of(PyArray_DESCR(values), &c.bytes, &c.is_signed) < 0)
        return NULL;
    if (PyArray_NDIM(values) != 1 || !PyArray_IS_C_CONTIGUOUS(values) ||
        !PyArray_ISALIGNED(values)) {
        PyErr_SetString(PyExc_ValueError, "_packed_build: a 1-d contiguous aligned array");
        return NULL;
    }
    const sfpy_state *st = sfpy_state_of(self);
    const sf_kernel *k = st ? sfpy_context_kernel(st) : NULL;
    if (k == SFPY_KERNEL_ERROR)
        return NULL;
    c.n = (size_t)PyArray_DIM(values, 0);
    c.block = (size_t)block;
    const npy_intp nb = (npy_intp)sf_packed_block_count(c.n, c.block), nb1 = nb + 1;
    PyObject *ref = PyArray_SimpleNew(1, &nb, NPY_UINT64);
    PyObject *maxoff = PyArray_SimpleNew(1, &nb, NPY_UINT64);
    PyObject *width = PyArray_SimpleNew(1, &nb, NPY_UINT8);
    PyObject *start = PyArray_SimpleNew(1, &nb1, NPY_UINT64);
    PyObject *data = NULL, *res = NULL;
    if (!ref || !maxoff || !width || !start)
        goto done;
    c.ref = (uint64_t *)PyArray_DATA((PyArrayObject *)ref);
    c.maxoff = (uint64_t *)PyArray_DATA((PyArrayObject *)maxoff);
    c.width = (uint8_t *)PyArray_DATA((PyArrayObject *)width);
    c.start = (uint64_t *)PyArray_DATA((PyArrayObject *)start);
    const void *x = PyArray_DATA(values);
    uint64_t total;
    Py_BEGIN_ALLOW_THREADS
    total = sf_packed_measure(&c, x);
    Py_END_ALLOW_THREADS
    /* uint64 words: every block's bytes are a multiple of 128 (packed.h). */
    const npy_intp words = (npy_intp)(total / 8);
    if (!(data = PyArray_SimpleNew(1, &words, NPY_UINT64)))
        goto done;
    c.data = (unsigned char *)PyArray_DATA((PyArrayObject *)data);
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = sf_packed_fill(k, &c, x);
    Py_END_ALLOW_THREADS
    if (rc != SF_OK) {
        PyErr_NoMemory();
        goto done;
    }
    res = PyTuple_Pack(PART_COUNT, ref, maxoff, width, start, data);
done:
    Py_XDECREF(ref);
    Py_XDECREF(maxoff);
    Py_XDECREF(width);
    Py_XDECREF(start);
    Py_XDECREF(data);
    return res;
}

/* One part: a 1-d contiguous aligned native array of `typenum` and `len` elements. */
static void *part(PyObject *parts, int i, int typenum, npy_intp len) {
    PyObject *a = PyTuple_GET_ITEM(parts, i);
    if (!PyArray_Check(a) || PyArray_TYPE((PyArrayObject *)a) != typenum ||
        PyArray_NDIM((PyArrayObject *)a) != 1 ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a) ||
        !PyArray_ISALIGNED((PyArrayObject *)a) ||
        !PyArray_ISNBO(PyArray_DESCR((PyArrayObject *)a)->byteorder) ||
        (len >= 0 && PyArray_DIM((PyArrayObject *)a, 0) != len))
        return NULL;
    return PyArray_DATA((PyArrayObject *)a);
}

/* The column the parts describe, checked: every block's width fits the type,
 * its maximum offset fits its width and its reference plus that offset the
 * type, and its words lie where start says, inside data. 0, or -1 with a
 * ValueError. */
static int column_of(PyObject *parts, PyArray_Descr *dtype, Py_ssize_t n, Py_ssize_t block,
                     sf_packed_column *c) {
    memset(c, 0, sizeof *c);
    if (storage_of(dtype, &c->bytes, &c->is_signed) < 0 || !block_ok(block))
        return -1;
    if (n < 0 || !PyTuple_Check(parts) || PyTuple_GET_SIZE(parts) != PART_COUNT)
        goto bad;
    c->n = (size_t)n;
    c->block = (size_t)block;
    const npy_intp nb = (npy_intp)sf_packed_block_count(c->n, c->block);
    c->ref = (uint64_t *)part(parts, PART_REF, NPY_UINT64, nb);
    c->maxoff = (uint64_t *)part(parts, PART_MAXOFF, NPY_UINT64, nb);
    c->width = (uint8_t *)part(parts, PART_WIDTH, NPY_UINT8, nb);
    c->start = (uint64_t *)part(parts, PART_START, NPY_UINT64, nb + 1);
    c->data = (unsigned char *)part(parts, PART_DATA, NPY_UINT64, -1);
    if (!c->ref || !c->maxoff || !c->width || !c->start || !c->data)
        goto bad;
    const uint64_t bits = 8 * c->bytes;
    const uint64_t top = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    uint64_t at = 0;
    for (npy_intp b = 0; b < nb; b++) {
        const uint64_t w = c->width[b], m = c->maxoff[b];
        if (w > bits || (w < 64 && m >> w) || (w && !(m >> (w - 1))) || c->ref[b] > top ||
            m > top - c->ref[b] || c->start[b] != at)
            goto bad;
        at += (uint64_t)c->block * w / 8;
    }
    if (c->start[nb] != at ||
        at != (uint64_t)PyArray_NBYTES((PyArrayObject *)PyTuple_GET_ITEM(parts, PART_DATA)))
        goto bad;
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "Packed: inconsistent parts (a damaged pickle?)");
    return -1;
}

static PyObject *py_packed_decode(PyObject *self, PyObject *args) {
    PyObject *parts;
    PyArray_Descr *dtype;
    Py_ssize_t n, block;
    sf_packed_column c;
    if (!PyArg_ParseTuple(args, "OO!nn", &parts, &PyArrayDescr_Type, &dtype, &n, &block) ||
        column_of(parts, dtype, n, block, &c) < 0)
        return NULL;
    const sf_kernel *k = sfpy_context_kernel(sfpy_state_of(self));
    if (k == SFPY_KERNEL_ERROR)
        return NULL;
    Py_INCREF(dtype);
    const npy_intp len = (npy_intp)n;
    PyArrayObject *out =
        (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, dtype, 1, &len, NULL, NULL, 0, NULL);
    if (!out)
        return NULL;
    int rc;
    void *dst = PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    rc = sf_packed_decode(k, &c, dst);
    Py_END_ALLOW_THREADS
    if (rc != SF_OK) {
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    return (PyObject *)out;
}

static PyObject *query_error(int rc) {
    if (rc == SF_ENOMEM_PACKED)
        return PyErr_NoMemory();
    PyErr_Format(PyExc_SystemError, "_packed_query: the library answered %d", rc);
    return NULL;
}

/* _packed_query(parts, dtype, n, block, op, lo, hi, invert): op 0 count, 1
 * positions, 2 values, 3 a bool mask; lo and hi the range's images (None,
 * None: an empty range). */
static PyObject *py_packed_query(PyObject *self, PyObject *args) {
    PyObject *parts, *lo_obj, *hi_obj;
    PyArray_Descr *dtype;
    Py_ssize_t n, block;
    int which, invert;
    sf_packed_column c;
    if (!PyArg_ParseTuple(args, "OO!nniOOp", &parts, &PyArrayDescr_Type, &dtype, &n, &block,
                          &which, &lo_obj, &hi_obj, &invert) ||
        column_of(parts, dtype, n, block, &c) < 0)
        return NULL;
    const int empty = lo_obj == Py_None || hi_obj == Py_None;
    uint64_t lo = 0, hi = 0;
    if (!empty) {
        lo = PyLong_AsUnsignedLongLong(lo_obj);
        if (lo == (uint64_t)-1 && PyErr_Occurred())
            return NULL;
        hi = PyLong_AsUnsignedLongLong(hi_obj);
        if (hi == (uint64_t)-1 && PyErr_Occurred())
            return NULL;
    }
    const sf_kernel *k = sfpy_context_kernel(sfpy_state_of(self));
    if (k == SFPY_KERNEL_ERROR)
        return NULL;
    const int wide = c.n > (size_t)UINT32_MAX;
    sf_op op;
    int typenum;
    size_t size;
    switch (which) {
    case 0: op = SF_OP_COUNT, typenum = 0, size = 0; break;
    case 1:
        op = wide ? SF_OP_INDEX64 : SF_OP_INDEX32;
        typenum = wide ? NPY_INT64 : NPY_UINT32;
        size = wide ? 8 : 4;
        break;
    case 2: op = SF_OP_VALUES, typenum = dtype->type_num, size = c.bytes; break;
    case 3: op = SF_OP_MASK8, typenum = NPY_BOOL, size = 1; break;
    default: PyErr_SetString(PyExc_ValueError, "_packed_query: op is 0..3"); return NULL;
    }
    sfpy_state *st = sfpy_state_of(self);
    size_t found = 0;
    int rc;
    if (!size) {
        Py_BEGIN_ALLOW_THREADS
        rc = sf_packed_query(k, &c, op, lo, hi, empty, invert, NULL, &found);
        Py_END_ALLOW_THREADS
        return rc == SF_OK ? PyLong_FromSize_t(found) : query_error(rc);
    }
    /* Room for every value, in a chunk of the module's arena (pages earlier
     * results wrote, no page faults once they have died), cut to the answer. */
    const size_t worst = (c.n + SF_PACKED_OUT_SLACK) * size;
    sf_chunk *chunk;
    size_t warm;
    void *mem = sfpy_pool_take(st, worst, &chunk, &warm);
    if (!mem)
        return PyErr_NoMemory();
    Py_BEGIN_ALLOW_THREADS
    rc = sf_packed_query(k, &c, op, lo, hi, empty, invert, mem, &found);
    Py_END_ALLOW_THREADS
    if (rc != SF_OK) {
        sf_arena_shrink(st->arena, chunk, worst, worst);
        sfpy_pool_give(st, chunk);
        return query_error(rc);
    }
    const size_t kept = op == SF_OP_MASK8 ? c.n : found;
    const size_t used = kept * size, written = used + SF_PACKED_OUT_SLACK * size;
    sf_arena_shrink(st->arena, chunk, used, written < worst ? written : worst);
    PyArray_Descr *descr = PyArray_DescrFromType(typenum);
    if (!descr) {
        sfpy_pool_give(st, chunk);
        return NULL;
    }
    PyObject *res = sfpy_pool_array(st, descr, (npy_intp)kept, chunk, mem);
    Py_DECREF(descr);
    return res;
}

static PyObject *py_packed_kernel(PyObject *self, PyObject *Py_UNUSED(ignored)) {
    const sf_kernel *k = sfpy_context_kernel(sfpy_state_of(self));
    if (k == SFPY_KERNEL_ERROR)
        return NULL;
    return PyUnicode_FromString(sf_packed_kernel_name(k));
}

PyMethodDef sfpy_packed_methods[] = {
    {"_packed_build", py_packed_build, METH_VARARGS,
     "_packed_build(values, block)\n--\n\nA packed column's parts (ref, maxoff, width, start, "
     "data) from a 1-d native integer array."},
    {"_packed_decode", py_packed_decode, METH_VARARGS,
     "_packed_decode(parts, dtype, n, block)\n--\n\nThe column's values, as dtype."},
    {"_packed_query", py_packed_query, METH_VARARGS,
     "_packed_query(parts, dtype, n, block, op, lo, hi, invert)\n--\n\nop 0: count, 1: "
     "positions, 2: values, 3: a bool mask, of the values whose images lie in [lo, hi] "
     "(None: none) or, inverted, outside."},
    {"_packed_kernel", py_packed_kernel, METH_NOARGS,
     "_packed_kernel()\n--\n\nThe packed kernel the calls of this context run."},
    {NULL, NULL, 0, NULL},
};
