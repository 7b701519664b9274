/*
 * NumPy arrays as sources of runs: the dtype as a library type, and the
 * array's memory (and its mask of nulls, if any) as runs in flat C order,
 * exactly as np.flatnonzero counts positions. No copy of the data but a
 * bounded batch of short rows.
 */
#include "binding.h"

#include <string.h>

static const char SUPPORTED[] =
    "bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, "
    "datetime64 and timedelta64";

int sfpy_classify_dtype(PyArray_Descr *d, sf_type *type) {
    static const sf_type signed_types[] = {SF_T_I8, SF_T_I16, SF_T_I32, SF_T_I64};
    static const sf_type unsigned_types[] = {SF_T_U8, SF_T_U16, SF_T_U32, SF_T_U64};
    static const signed char log2_of_size[9] = {-1, 0, 1, -1, 2, -1, -1, -1, 3};
    const int t = d->type_num;
    switch (t) {
    case NPY_BOOL: *type = SF_T_BOOL; return 0;
    case NPY_DATETIME: case NPY_TIMEDELTA: *type = SF_T_TIME64; return 0;
    case NPY_FLOAT: *type = SF_T_F32; return 0;
    case NPY_DOUBLE: *type = SF_T_F64; return 0;
    default: break;
    }
    /* Integers by their size: the C names (long, longlong...) differ by platform. */
    const size_t size = PyTypeNum_ISINTEGER(t) ? (size_t)PyDataType_ELSIZE(d) : 0;
    const int log2 = size <= 8 ? log2_of_size[size] : -1;
    if (log2 >= 0) {
        *type = PyTypeNum_ISSIGNED(t) ? signed_types[log2] : unsigned_types[log2];
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "simdfilter supports %s arrays (also with nulls: pandas nullable, numpy.ma "
                 "and Arrow columns, tz-aware timestamps included), not %R%s",
                 SUPPORTED, (PyObject *)d,
                 t == NPY_OBJECT ? " (Python objects: strings, mixed types, or a list holding "
                                   "None; pass a typed column, e.g. pd.array(values, "
                                   "dtype='Int64') for integers with nulls)"
                                 : "");
    return -1;
}

/* Rows shorter than this are batched, BATCH_ELEMENTS at a time: one kernel
 * call per row of a transposed or Fortran-ordered array with few columns
 * would cost more than the filtering. */
#define SHORT_ROW ((size_t)1024)
#define BATCH_ELEMENTS ((size_t)16384)

/* Step to the next row in C order: an odometer over every axis but the last. */
static void next_row(numpy_source *s) {
    for (int d = s->nd - 2; d >= 0; d--) {
        if (++s->idx[d] < s->shape[d]) {
            s->ptr += s->strides[d];
            s->mask_ptr += s->mask_strides[d]; /* 0 without a mask */
            return;
        }
        s->ptr -= s->strides[d] * (s->shape[d] - 1);
        s->mask_ptr -= s->mask_strides[d] * (s->shape[d] - 1);
        s->idx[d] = 0;
    }
}

/* The mask bytes of a run, nonzero for a null element. */
static void set_mask(sf_run *run, const char *mask, ptrdiff_t stride) {
    if (!mask)
        return;
    run->null_form = SF_NULLS_BYTES;
    run->nulls = (const uint8_t *)mask;
    run->null_stride = stride;
}

static int numpy_source_next(sf_source *self, sf_run *run) {
    numpy_source *s = (numpy_source *)self;
    if (s->rows_done >= s->rows)
        return 0;
    const int last = s->nd - 1;
    run->byteswap = s->byteswap;
    run->base = (uint64_t)(s->rows_done * s->row);
    if (!s->batch) {
        run->data = s->ptr;
        run->n = s->row;
        run->stride = s->strides[last];
        set_mask(run, s->mask_ptr, s->mask_strides[last]);
        next_row(s);
        s->rows_done++;
        return 1;
    }
    /* Raw copies, byte order kept: the driver swaps as for any run. The rows'
     * mask bytes follow their values in the batch. */
    const size_t left = s->rows - s->rows_done, m = left < s->per_batch ? left : s->per_batch;
    char *dst = s->batch, *mask_dst = s->batch + s->per_batch * s->row * s->itemsize;
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < s->row; j++, dst += s->itemsize)
            memcpy(dst, s->ptr + (ptrdiff_t)j * s->strides[last], s->itemsize);
        if (s->mask_ptr)
            for (size_t j = 0; j < s->row; j++)
                *mask_dst++ = s->mask_ptr[(ptrdiff_t)j * s->mask_strides[last]];
        next_row(s);
    }
    run->data = s->batch;
    run->n = m * s->row;
    run->stride = (ptrdiff_t)s->itemsize;
    set_mask(run, s->mask_ptr ? s->batch + s->per_batch * s->row * s->itemsize : NULL, 1);
    s->rows_done += m;
    return 1;
}

/* An array one run covers (1-d, or C-contiguous with its mask): that run, as
 * the library's one-run source, which the driver reads without a walk. */
static sf_source *whole_source(numpy_source *s, PyArrayObject *arr, PyArrayObject *mask) {
    const int nd = PyArray_NDIM(arr);
    sf_run run;
    memset(&run, 0, sizeof run);
    run.data = PyArray_BYTES(arr);
    run.n = s->size;
    run.stride = nd == 1 ? PyArray_STRIDE(arr, 0) : PyArray_ITEMSIZE(arr);
    run.byteswap = s->byteswap;
    if (mask)
        set_mask(&run, PyArray_BYTES(mask), nd == 1 ? PyArray_STRIDE(mask, 0) : 1);
    return sf_run_source_init(&s->one, &run);
}

sf_source *sfpy_numpy_source_init(numpy_source *s, PyArrayObject *arr, PyArrayObject *mask,
                                  size_t size) {
    const int nd = PyArray_NDIM(arr);
    s->batch = NULL;
    s->size = size;
    s->itemsize = (size_t)PyArray_ITEMSIZE(arr);
    s->byteswap = PyArray_ISBYTESWAPPED(arr) && s->itemsize > 1;
    if (size && (nd <= 1 || (PyArray_IS_C_CONTIGUOUS(arr) && (!mask || PyArray_IS_C_CONTIGUOUS(mask)))))
        return whole_source(s, arr, mask);
    /* A walk over the rows: the axes are copied so that next() needs neither
     * Python nor the GIL (only [0, nd): they are NPY_MAXDIMS long). */
    s->source.next = numpy_source_next;
    s->ptr = PyArray_BYTES(arr);
    s->mask_ptr = mask ? PyArray_BYTES(mask) : NULL;
    s->nd = nd;
    s->row = s->rows = s->rows_done = s->per_batch = 0;
    if (size == 0)
        return &s->source; /* no runs at all */
    for (int d = 0; d < nd; d++) {
        s->shape[d] = PyArray_DIM(arr, d);
        s->strides[d] = PyArray_STRIDE(arr, d);
        s->mask_strides[d] = mask ? PyArray_STRIDE(mask, d) : 0;
        s->idx[d] = 0;
    }
    s->row = (size_t)s->shape[nd - 1];
    s->rows = size / s->row;
    s->per_batch = s->row < SHORT_ROW ? BATCH_ELEMENTS / s->row : 1;
    if (s->per_batch > 1) {
        s->batch = PyMem_RawMalloc(s->per_batch * s->row * (s->itemsize + (mask ? 1 : 0)));
        if (!s->batch)
            s->per_batch = 1; /* no room for a batch: a run per row is slower, not wrong */
    }
    return &s->source;
}

void sfpy_numpy_source_free(numpy_source *s) {
    if (!s->batch)
        return;
    PyMem_RawFree(s->batch);
    s->batch = NULL;
}
