/*
 * What a call's values are: a NumPy array read in place (a plain ndarray, the
 * fast path), the buffers of a pandas column or numpy.ma array (found by
 * column_hosts.c: values and a mask of nulls, or a time zone), or
 * an Arrow column (pyarrow, Polars, pandas' Arrow dtypes) through the Arrow
 * PyCapsule interface. Anything else is viewed with np.asarray.
 */
#include "binding.h"

#include <string.h>


static int numpy_column(column *c, PyArrayObject *arr, PyObject *mask, PyObject *tz) {
    c->form = COLUMN_NUMPY;
    c->arr = arr; /* a new reference, now the column's */
    c->n = (size_t)(PyArray_NDIM(arr) == 1 ? PyArray_DIM(arr, 0) : PyArray_SIZE(arr));
    if (sfpy_classify_dtype(PyArray_DESCR(arr), &c->type) < 0)
        return -1;
    c->descr = PyArray_DESCR(arr);
    Py_INCREF(c->descr);
    /* Values come out in native order: a byte-swapped dtype needs its native
     * twin; any other already is one (no new dtype for every call). */
    if (PyArray_ISNBO(c->descr->byteorder)) {
        c->storage_descr = c->descr;
        Py_INCREF(c->storage_descr);
    } else if (!(c->storage_descr = PyArray_DescrNewByteorder(c->descr, NPY_NATIVE))) {
        return -1;
    }
    if (tz && tz != Py_None) {
        Py_INCREF(tz);
        c->tz = tz;
    }
    if (mask && mask != Py_None) {
        if (!PyArray_Check(mask) || PyArray_ITEMSIZE((PyArrayObject *)mask) != 1 ||
            !PyArray_SAMESHAPE((PyArrayObject *)mask, arr)) {
            PyErr_SetString(PyExc_SystemError,
                            "simdfilter: a mask must be a bool array shaped "
                            "as its values");
            return -1;
        }
        Py_INCREF(mask);
        c->mask = (PyArrayObject *)mask;
    }
    return 0;
}

/* At module init: the names looked up on every call that is not a plain
 * ndarray, interned. 0 or -1. */
int sfpy_column_init(sfpy_state *st) {
    st->name_c_array = PyUnicode_InternFromString("__arrow_c_array__");
    st->name_c_stream = PyUnicode_InternFromString("__arrow_c_stream__");
    st->name_module = PyUnicode_InternFromString("__module__");
    return st->name_c_array && st->name_c_stream && st->name_module ? 0 : -1;
}

/* Whether obj's type (or a base) defines `name`: the class is asked, through
 * the type's attribute cache, not the instance, so no __getattr__ runs
 * (Polars' costs 14 us for a missing name). */
static int type_defines(PyObject *obj, PyObject *name) {
    PyObject *v = _PyType_Lookup(Py_TYPE(obj), name); /* borrowed; sets no error */
    return v && v != Py_None; /* `__arrow_c_array__ = None` says "not this one" */
}

static int arrow_or_array(PyObject *values, column *c);
static int is_masked_array(sfpy_state *st, PyObject *values);

/* pandas columns and masked arrays: their buffers, as column_hosts.c finds
 * them (`masked`: numpy.ma's, else pandas'). */
static int unwrapped_column(PyObject *values, int masked, column *c) {
    sfpy_buffers b;
    int rc = masked ? sfpy_unwrap_masked(values, &b) : sfpy_unwrap_pandas(c->st, values, &b);
    if (rc == 0 && b.arrow) {
        rc = arrow_or_array(b.arrow, c); /* an Arrow-backed column's Arrow data */
    } else if (rc == 0 && PyArray_Check(b.data)) {
        Py_INCREF(b.data);
        rc = numpy_column(c, (PyArrayObject *)b.data, b.mask, b.tz);
    } else if (rc == 0) {
        rc = arrow_or_array(b.data, c);
    }
    sfpy_buffers_release(&b);
    return rc;
}

/* _column_buffers(values): (data, mask, tz), or an Arrow-backed pandas column's
 * pyarrow data, for a pandas column or a numpy.ma array: what the functions
 * read of it, for ZoneMap. */
static PyObject *py_column_buffers(PyObject *self, PyObject *values) {
    sfpy_state *st = sfpy_state_of(self);
    const int masked = PyArray_Check(values) ? is_masked_array(st, values) : 0;
    if (masked < 0)
        return NULL;
    sfpy_buffers b;
    PyObject *res = NULL;
    if ((masked ? sfpy_unwrap_masked(values, &b) : sfpy_unwrap_pandas(st, values, &b)) == 0) {
        if (b.arrow) {
            Py_INCREF(b.arrow);
            res = b.arrow;
        } else {
            res = PyTuple_Pack(3, b.data, b.mask ? b.mask : Py_None, b.tz ? b.tz : Py_None);
        }
    }
    sfpy_buffers_release(&b);
    return res;
}

PyMethodDef sfpy_column_methods[] = {
    {"_column_buffers", py_column_buffers, METH_O,
     "_column_buffers(values)\n--\n\nThe buffers the functions read of a pandas column or a "
     "numpy.ma array: (data, mask, tz), or an Arrow-backed column's pyarrow data."},
    {NULL, NULL, 0, NULL},
};

static int arrow_or_array(PyObject *values, column *c) {
    const int has_array = type_defines(values, c->st->name_c_array);
    const int has_stream = has_array ? 0 : type_defines(values, c->st->name_c_stream);
    if (has_array || has_stream)
        return sfpy_arrow_column(values, has_array, c);
    if (sfpy_from_package(c->st, values, "pyarrow") || sfpy_from_package(c->st, values, "polars")) {
        /* np.asarray would make floats of integers with nulls: refuse instead. */
        PyErr_Format(PyExc_TypeError,
                     "simdfilter reads Arrow data through the Arrow PyCapsule interface, which "
                     "this %.100s lacks (pyarrow >= 16 and Polars >= 1.33.1 have it)",
                     Py_TYPE(values)->tp_name);
        return -1;
    }
    /* Lists and other array-likes: their own dtype, no cast; NumPy-backed ones
     * come back as views, not copies. */
    PyArrayObject *arr = (PyArrayObject *)PyArray_FromAny(values, NULL, 0, 0, 0, NULL);
    return arr ? numpy_column(c, arr, NULL, NULL) : -1;
}

/* numpy.ma.MaskedArray, imported when first needed. */
static int is_masked_array(sfpy_state *st, PyObject *values) {
    if (!st->masked_array_type) {
        PyObject *ma = PyImport_ImportModule("numpy.ma");
        if (!ma)
            return -1;
        st->masked_array_type = PyObject_GetAttrString(ma, "MaskedArray");
        Py_DECREF(ma);
        if (!st->masked_array_type)
            return -1;
    }
    return PyObject_IsInstance(values, st->masked_array_type);
}

int sfpy_column_from(sfpy_state *st, PyObject *values, column *c) {
    memset(c, 0, offsetof(column, inline_chunks));
    c->st = st;
    if (PyArray_CheckExact(values)) {
        Py_INCREF(values);
        return numpy_column(c, (PyArrayObject *)values, NULL, NULL);
    }
    if (PyArray_Check(values)) {
        const int masked = is_masked_array(st, values);
        if (masked < 0)
            return -1;
        if (!masked) { /* np.memmap and other subclasses: the array as it is */
            Py_INCREF(values);
            return numpy_column(c, (PyArrayObject *)values, NULL, NULL);
        }
        return unwrapped_column(values, 1, c);
    }
    int lazy;
    const char *host = sfpy_frame_host(st, values, &lazy);
    if (host) {
        PyErr_Format(PyExc_TypeError,
                     "simdfilter's functions read one column, not a %s %.100s: give them one "
                     "of its columns, or use the frame's own df.sf.filter({...})",
                     host, Py_TYPE(values)->tp_name);
        return -1;
    }
    if (sfpy_from_package(st, values, "pandas"))
        return unwrapped_column(values, 0, c);
    return arrow_or_array(values, c);
}

void sfpy_column_release(column *c) {
    Py_CLEAR(c->arr);
    Py_CLEAR(c->mask);
    Py_CLEAR(c->descr);
    Py_CLEAR(c->storage_descr);
    Py_CLEAR(c->tz);
    if (c->form == COLUMN_ARROW)
        sfpy_arrow_release(c);
}

/* ---- Sources ---------------------------------------------------------------- */

/* The next run, its nulls where's bits from its position on. */
static int next_where(sf_source *self, sf_run *run) {
    column_source *s = (column_source *)(void *)((char *)self - offsetof(column_source, rows));
    if (!s->inner->next(s->inner, run))
        return 0;
    run->null_form = SF_NULLS_BITMAP;
    run->nulls = s->where;
    run->null_bit = run->base;
    return 1;
}

sf_source *sfpy_column_source(const column *c, column_source *s) {
    sf_source *src = c->form == COLUMN_ARROW
                         ? sf_arrow_source_init(&s->arrow, &c->arrow_type, c->chunks, c->nchunks)
                         : sfpy_numpy_source_init(&s->numpy, c->arr, c->mask, c->n);
    if (!c->where || !src)
        return src;
    s->inner = src;
    s->where = c->where;
    s->rows.next = next_where;
    return &s->rows;
}

void sfpy_column_source_free(const column *c, column_source *s) {
    if (c->form == COLUMN_NUMPY)
        sfpy_numpy_source_free(&s->numpy);
}

/* ---- Memory the values live in (for out=) --------------------------------------- */

/* Bytes [lo, hi) spanned by an array's elements. */
static void array_extent(PyArrayObject *a, const char **lo, const char **hi) {
    const char *p = PyArray_BYTES(a), *b = p, *e = p;
    if (PyArray_SIZE(a) == 0) {
        *lo = *hi = p;
        return;
    }
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        const npy_intp span = (PyArray_DIM(a, d) - 1) * PyArray_STRIDE(a, d);
        if (span < 0)
            b += span;
        else
            e += span;
    }
    *lo = b;
    *hi = e + PyArray_ITEMSIZE(a);
}

static int meets(const char *a0, const char *a1, const char *b0, const char *b1) {
    return a0 < b1 && b0 < a1;
}

/* The bytes holding bits [bit, bit + n) of a bitmap. */
static int bits_meet(const void *bitmap, uint64_t bit, size_t n, const char *lo, const char *hi) {
    const char *p = (const char *)bitmap;
    return n && p && meets(p + bit / 8, p + (bit + n + 7) / 8, lo, hi);
}

int sfpy_column_overlaps(const column *c, const char *lo, const char *hi) {
    const char *a0, *a1;
    if (c->form == COLUMN_NUMPY) {
        array_extent(c->arr, &a0, &a1);
        if (meets(a0, a1, lo, hi))
            return 1;
        if (c->mask) {
            array_extent(c->mask, &a0, &a1);
            return meets(a0, a1, lo, hi);
        }
        return 0;
    }
    const size_t size = sf_elem_size(sf_type_elem(c->type));
    for (size_t i = 0; i < c->nchunks; i++) {
        const struct ArrowArray *a = &c->chunks[i];
        const size_t n = (size_t)a->length, off = (size_t)a->offset;
        const char *v = (const char *)a->buffers[1];
        const int values_meet = c->arrow_type.kind == SF_ARROW_BOOL
                                    ? bits_meet(v, off, n, lo, hi)
                                    : n && meets(v + off * size, v + (off + n) * size, lo, hi);
        if (values_meet || bits_meet(a->buffers[0], off, n, lo, hi))
            return 1;
    }
    return 0;
}
