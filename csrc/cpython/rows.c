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

#include <math.h>

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

/* ---- _filter_rows: the query and the take in one pass --------------------------- */

/* Ranges one call takes at most: a longer query goes the other way. */
#define MOST_RANGES 64

/* An output of _filter_rows: room for the rows a sample says the query keeps
 * at most (frame_room), from the arena, cut to the rows kept afterwards. Room
 * for every row (address space; pages only where rows are written) landed
 * each call in memory no call had written, whose pages the OS then cleared:
 * at 50 % of 10 M rows of three 8-byte columns, clearing them took longer
 * than the query (perf, AMD EPYC Zen 4), where results of their own size
 * reuse the pages of the results that died before them. */
typedef struct output {
    PyArray_Descr *descr; /* borrowed */
    sf_chunk *chunk;
    void *mem;
    size_t size;
} output;

static int take_output(sfpy_state *st, output *o, PyArray_Descr *descr, size_t n) {
    size_t warm;
    o->descr = descr;
    o->size = (size_t)PyDataType_ELSIZE(descr);
    o->mem = sfpy_pool_take(st, n * o->size, &o->chunk, &warm);
    if (!o->mem) {
        o->chunk = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* The output as an array of its first k elements (owning its chunk), or with
 * k < 0 its chunk given back; NULL for those and on error. */
static PyObject *finish_output(sfpy_state *st, output *o, Py_ssize_t k) {
    if (!o->chunk)
        return NULL;
    sf_chunk *chunk = o->chunk;
    o->chunk = NULL;
    if (k < 0) {
        sf_arena_shrink(st->arena, chunk, 0, 0);
        sfpy_pool_give(st, chunk);
        return NULL;
    }
    const size_t used = (size_t)k * o->size;
    sf_arena_shrink(st->arena, chunk, used, used);
    return sfpy_pool_array(st, o->descr, k, chunk, o->mem);
}

/* A query's column as sf_filter_rows reads it: a NumPy array of n elements
 * (a pandas column's values, its mask as byte nulls). 0, or -1 with a
 * TypeError or ValueError (the caller then takes the other way). */
static int frame_run(const column *c, size_t n, sf_run *run) {
    if (c->form != COLUMN_NUMPY || PyArray_NDIM(c->arr) != 1 || c->n != n ||
        (c->mask && PyArray_NDIM(c->mask) != 1)) {
        PyErr_SetString(PyExc_TypeError, "_filter_rows: a column that is not one NumPy run");
        return -1;
    }
    memset(run, 0, sizeof *run);
    run->data = PyArray_DATA(c->arr);
    run->n = n;
    run->stride = PyArray_STRIDE(c->arr, 0);
    run->byteswap = PyArray_ISBYTESWAPPED(c->arr) && PyArray_ITEMSIZE(c->arr) > 1;
    if (c->mask) {
        run->null_form = SF_NULLS_BYTES;
        run->nulls = (const uint8_t *)PyArray_DATA(c->mask);
        run->null_stride = PyArray_STRIDE(c->mask, 0);
    }
    return 0;
}

/* The queries' columns and ranges, into where[0, k): 1, 0 when some range is
 * empty (no row is kept), -1 with an exception. Every range is resolved,
 * empty or not, so that each bound is checked as the kernels check it. */
static int frame_ranges(sfpy_state *st, PyObject *queries, PyObject *inclusive, size_t n,
                        column *cols, sf_frame_range *where, Py_ssize_t *opened) {
    inclusive_mode mode;
    if (sfpy_parse_inclusive(inclusive, &mode) < 0)
        return -1;
    const sf_kernel *kernel = sfpy_context_kernel(st);
    if (kernel == SFPY_KERNEL_ERROR)
        return -1;
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(queries);
    PyObject **items = PySequence_Fast_ITEMS(queries);
    int nonempty = 1;
    for (Py_ssize_t w = 0; w < k; w++) {
        PyObject *values, *lo, *hi;
        if (!PyTuple_Check(items[w]) ||
            !PyArg_ParseTuple(items[w], "OOO:_filter_rows", &values, &lo, &hi)) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "_filter_rows: a query is (values, lo, hi)");
            return -1;
        }
        *opened = w + 1; /* released by the caller, as module.c releases a refused one */
        if (sfpy_column_from(st, values, &cols[w]) < 0)
            return -1;
        memset(&where[w], 0, sizeof where[w]);
        if (frame_run(&cols[w], n, &where[w].run) < 0)
            return -1;
        where[w].query.kernel = kernel;
        where[w].query.op = SF_OP_BITS;
        where[w].query.elem = sf_type_elem(cols[w].type);
        const int got = sfpy_resolve_bounds(&cols[w], lo, hi, &mode, &where[w].query.range);
        if (got < 0)
            return -1;
        nonempty &= got;
    }
    return nonempty;
}

/* Rows sampled to size the outputs, at most: evenly spaced, as strided runs. */
#define ROOM_SAMPLE ((size_t)1024)

/* Room for the rows the query keeps: what a sample of ROOM_SAMPLE rows kept,
 * scaled, plus four standard deviations and a little; every row for a frame
 * too small to sample. A query that keeps more runs again (frame_outputs'
 * caller), never wrongly. */
static size_t frame_room(const sf_frame_range *where, size_t nq, size_t n, double *kept) {
    *kept = -1.0; /* not sampled */
    if (n < 64 * ROOM_SAMPLE)
        return n;
    const size_t step = n / ROOM_SAMPLE;
    sf_frame_range sample[MOST_RANGES];
    for (size_t w = 0; w < nq; w++) {
        sample[w] = where[w];
        sample[w].run.n = ROOM_SAMPLE;
        sample[w].run.stride *= (ptrdiff_t)step;
        sample[w].run.null_stride *= (ptrdiff_t)step; /* byte nulls (frame_run's) */
    }
    size_t hits = 0;
    if (sf_filter_rows(sample, nq, ROOM_SAMPLE, NULL, 0, NULL, 1, 0, NULL, &hits) != SF_OK)
        return n;
    const double p = *kept = (double)hits / (double)ROOM_SAMPLE;
    const double room =
        (p + 4.0 * sqrt(p * (1.0 - p) / (double)ROOM_SAMPLE) + 8.0 / (double)ROOM_SAMPLE) *
        (double)n;
    return room < (double)n ? (size_t)room : n;
}

/* The taken columns' outputs and the positions' one (the last), from the
 * arena with room for `room` rows; sf_take_column c's dst set. 0 or -1 with
 * an exception. */
static int frame_outputs(sfpy_state *st, PyObject *seq, PyArray_Descr *index, size_t n,
                         size_t room, sf_take_column *take, output *outs) {
    const Py_ssize_t ncols = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t c = 0; c < ncols; c++) {
        if (!takeable(items[c]) || (size_t)PyArray_SIZE((PyArrayObject *)items[c]) != n) {
            PyErr_Format(PyExc_TypeError,
                         "_filter_rows: column %zd is not a 1-d array of %zu rows of 1, 2, 4 or "
                         "8-byte elements without objects",
                         c, n);
            return -1;
        }
        PyArrayObject *a = (PyArrayObject *)items[c];
        if (take_output(st, &outs[c], PyArray_DESCR(a), room) < 0)
            return -1;
        take[c] = (sf_take_column){PyArray_DATA(a), PyArray_STRIDE(a, 0),
                                   (size_t)PyArray_ITEMSIZE(a), outs[c].mem};
    }
    return take_output(st, &outs[ncols], index, room);
}

/* The positions' dtype: uint32 (needs n <= 2^32), int64 or uint64. */
static PyArray_Descr *frame_index(PyObject *obj, size_t n) {
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(obj, &d))
        return NULL;
    const int t = d->type_num;
    const int wide = t == NPY_INT64 || t == NPY_UINT64 || t == NPY_LONGLONG || t == NPY_ULONGLONG;
    if (!PyArray_ISNBO(d->byteorder) || !(wide || (t == NPY_UINT32 && n <= (size_t)UINT32_MAX + 1))) {
        PyErr_SetString(PyExc_TypeError, "_filter_rows: index_dtype must be uint32 (below 2**32 "
                                         "rows), int64 or uint64, native");
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *filter_rows(sfpy_state *st, PyObject *queries, PyObject *inclusive,
                             PyObject *seq, PyArray_Descr *index, size_t n, double most) {
    const Py_ssize_t nq = PySequence_Fast_GET_SIZE(queries), ncols = PySequence_Fast_GET_SIZE(seq);
    if (nq < 1 || nq > MOST_RANGES || ncols > MOST_COLUMNS) {
        PyErr_Format(PyExc_ValueError,
                     "_filter_rows: 1 to %d queries and at most %d columns, not %zd and %zd",
                     MOST_RANGES, MOST_COLUMNS, nq, ncols);
        return NULL;
    }
    column cols[MOST_RANGES];
    sf_frame_range where[MOST_RANGES];
    sf_take_column take[MOST_COLUMNS];
    output outs[MOST_COLUMNS + 1];
    memset(outs, 0, sizeof outs);
    Py_ssize_t opened = 0;
    PyObject *result = NULL;
    Py_ssize_t k = -1;
    const int nonempty = frame_ranges(st, queries, inclusive, n, cols, where, &opened);
    double kept = -1.0;
    size_t room = nonempty > 0 ? frame_room(where, (size_t)nq, n, &kept) : 0;
    if (nonempty >= 0 && kept > most) { /* the caller's other way */
        for (Py_ssize_t w = 0; w < opened; w++)
            sfpy_column_release(&cols[w]);
        Py_RETURN_NONE;
    }
    if (nonempty >= 0 && frame_outputs(st, seq, index, n, room, take, outs) == 0) {
        size_t found = 0;
        const int wide = PyDataType_ELSIZE(index) == 8;
        if (!nonempty || n == 0)
            k = 0;
        else if (sfpy_filter_rows(where, (size_t)nq, n, take, (size_t)ncols, outs[ncols].mem,
                                  wide, room, &found) == 0)
            k = (Py_ssize_t)found;
        if (k >= 0 && found > room) { /* more than the sample said: again, with room for them */
            for (Py_ssize_t c = 0; c <= ncols; c++)
                finish_output(st, &outs[c], -1);
            room = found;
            k = -1;
            if (frame_outputs(st, seq, index, n, room, take, outs) == 0 &&
                sfpy_filter_rows(where, (size_t)nq, n, take, (size_t)ncols, outs[ncols].mem,
                                 wide, room, &found) == 0)
                k = (Py_ssize_t)(found < room ? found : room);
        }
    }
    PyObject *taken = k >= 0 ? PyList_New(ncols) : NULL;
    PyObject *positions = NULL;
    if (k >= 0 && !taken)
        k = -1;
    for (Py_ssize_t c = 0; c <= ncols; c++) {
        PyObject *arr = finish_output(st, &outs[c], k);
        if (!arr && k >= 0) { /* the rest are given back */
            k = -1;
            Py_CLEAR(taken);
        } else if (arr && c < ncols) {
            PyList_SET_ITEM(taken, c, arr);
        } else if (arr) {
            positions = arr;
        }
    }
    if (k >= 0 && positions)
        result = PyTuple_Pack(2, positions, taken);
    Py_XDECREF(positions);
    Py_XDECREF(taken);
    for (Py_ssize_t w = 0; w < opened; w++)
        sfpy_column_release(&cols[w]);
    return result;
}

PyObject *sfpy_filter_rows_py(PyObject *module, PyObject *args) {
    PyObject *queries, *inclusive, *columns, *index_dtype;
    Py_ssize_t n;
    double most = 1.0;
    if (!PyArg_ParseTuple(args, "OOOnO|d:_filter_rows", &queries, &inclusive, &columns, &n,
                          &index_dtype, &most))
        return NULL;
    if (n < 0) {
        PyErr_SetString(PyExc_ValueError, "_filter_rows: n must be >= 0");
        return NULL;
    }
    PyArray_Descr *index = frame_index(index_dtype, (size_t)n);
    if (!index)
        return NULL;
    PyObject *q = PySequence_Fast(queries, "_filter_rows: queries must be a sequence");
    PyObject *seq = q ? PySequence_Fast(columns, "_filter_rows: columns must be a sequence of "
                                                 "arrays")
                      : NULL;
    PyObject *res =
        seq ? filter_rows(sfpy_state_of(module), q, inclusive, seq, index, (size_t)n, most) : NULL;
    Py_XDECREF(seq);
    Py_XDECREF(q);
    Py_DECREF(index);
    return res;
}
