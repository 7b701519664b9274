/*
 * Results: their dtype, the checks of a caller's `out`, and how a fresh result
 * is made: filled into a worst-case array and shrunk in place to what the
 * query found, with no copy: a chunk of the module's arena (result_pool.c,
 * arena.h), shrunk by handing its tail back. Below SFPY_POOL_MIN bytes of
 * worst case, filled on the stack and copied; where the arena has no memory,
 * NumPy's array shrunk by realloc; counted first, then filled exactly, on
 * sorted data and where even the worst case cannot be addressed.
 * csrc/cpython/README.md has the figures that chose this.
 */
#include "binding.h"

#include <string.h>

static const char INDEX_TYPES[] = "uint32, int64, uint64 (or intp)";

/* uint32, or any 64-bit integer type (int64 and longlong are distinct type
 * numbers for the same dtype on LP64). */
static int is_index_type(PyArray_Descr *d, int *wide64) {
    const int t = d->type_num;
    if (!PyTypeNum_ISINTEGER(t) || !PyArray_ISNBO(d->byteorder))
        return 0;
    if (PyDataType_ELSIZE(d) == 4 && PyTypeNum_ISUNSIGNED(t)) {
        *wide64 = 0;
        return 1;
    }
    if (PyDataType_ELSIZE(d) == 8) {
        *wide64 = 1;
        return 1;
    }
    return 0;
}

size_t sfpy_most_results(const sf_query *q, const column *c) {
    return q->within ? q->within_count : c->n;
}

/* index_dtype's descr (a new reference). The three index types are looked up
 * directly: NumPy's converter took ~740 instructions a call for a type object
 * such as np.uint32 (callgrind, CPython 3.11, NumPy 2.4), a third of a 4 Ki
 * call's kernel. */
static PyArray_Descr *index_descr_of(PyObject *obj) {
    PyArray_Descr *d = NULL;
    if (PyArray_DescrCheck(obj)) {
        Py_INCREF(obj);
        return (PyArray_Descr *)obj;
    }
    if (obj == (PyObject *)&PyUInt32ArrType_Type)
        return PyArray_DescrFromType(NPY_UINT32);
    if (obj == (PyObject *)&PyInt64ArrType_Type)
        return PyArray_DescrFromType(NPY_INT64);
    if (obj == (PyObject *)&PyUInt64ArrType_Type)
        return PyArray_DescrFromType(NPY_UINT64);
    return PyArray_DescrConverter(obj, &d) ? d : NULL;
}

/* The dtype of the positions filter_indexes writes; *op becomes INDEX32 or INDEX64.
 * With within=, the positions are within's: uint32 or 8-byte. */
static PyArray_Descr *index_type(sf_op *op, const call_args *a, size_t n, const sf_query *q) {
    PyArray_Descr *d = NULL;
    int w64 = 0;
    if (a->index_dtype) {
        if (!(d = index_descr_of(a->index_dtype)))
            return NULL;
    } else if (a->out && PyArray_Check(a->out)) {
        d = PyArray_DESCR((PyArrayObject *)a->out);
        Py_INCREF(d);
    } else if (q->within) {
        d = PyArray_DescrFromType(q->within_wide ? NPY_INT64 : NPY_UINT32);
    } else {
        d = PyArray_DescrFromType(n > (size_t)UINT32_MAX ? NPY_INT64 : NPY_UINT32);
    }
    if (!is_index_type(d, &w64)) {
        if (a->index_dtype)
            PyErr_Format(PyExc_TypeError, "index_dtype must be one of %s, not %R", INDEX_TYPES,
                         (PyObject *)d);
        else
            PyErr_Format(PyExc_TypeError,
                         "out has dtype %R; filter_indexes writes positions as one of %s",
                         (PyObject *)d, INDEX_TYPES);
        Py_DECREF(d);
        return NULL;
    }
    if (!w64 && n > (size_t)UINT32_MAX) {
        /* Every position of 2**32 elements fits uint32, but a count of 2**32
         * matches would not: uint32 results are for fewer elements. */
        PyErr_Format(PyExc_ValueError,
                     "values has %zu elements; uint32 positions need fewer than 2**32 "
                     "elements (as many matches would not fit a uint32 count): "
                     "use index_dtype=np.int64",
                     n);
        Py_DECREF(d);
        return NULL;
    }
    if (q->within && w64 != q->within_wide) {
        PyErr_Format(PyExc_TypeError,
                     "with within=, the positions come out as within holds them (%s): "
                     "index_dtype or out of dtype %R does not fit",
                     q->within_wide ? "8-byte integers" : "uint32", (PyObject *)d);
        Py_DECREF(d);
        return NULL;
    }
    *op = w64 ? SF_OP_INDEX64 : SF_OP_INDEX32;
    return d;
}

/* `out` is checked whole before anything is written. */
static int check_out(PyObject *obj, PyArray_Descr *descr, const column *c, const sf_query *q,
                     sf_op op) {
    const size_t n = op == SF_OP_BITS ? sf_output_bytes(op, SF_U8, c->n) : sfpy_most_results(q, c);
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "out must be a numpy.ndarray, not %.200s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    PyArrayObject *out = (PyArrayObject *)obj;
    if (!PyArray_EquivTypes(PyArray_DESCR(out), descr) ||
        !PyArray_ISNBO(PyArray_DESCR(out)->byteorder)) {
        PyErr_Format(PyExc_TypeError, "out has dtype %R; %s needs %R here",
                     (PyObject *)PyArray_DESCR(out), sfpy_function_name(op), (PyObject *)descr);
        return -1;
    }
    if (PyArray_NDIM(out) != 1 || !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISALIGNED(out)) {
        PyErr_SetString(PyExc_ValueError, "out must be a contiguous, aligned 1-d array");
        return -1;
    }
    if (!PyArray_ISWRITEABLE(out)) {
        PyErr_SetString(PyExc_ValueError, "out is read-only");
        return -1;
    }
    if ((size_t)PyArray_SIZE(out) < n) {
        PyErr_Format(PyExc_ValueError, "out has %zd elements; it needs at least %s = %zu",
                     PyArray_SIZE(out),
                     op == SF_OP_BITS ? "ceil(values.size / 8)"
                     : q->within      ? "len(within)"
                                      : "values.size",
                     n);
        return -1;
    }
    const char *lo = PyArray_BYTES(out), *hi = lo + PyArray_NBYTES(out);
    if (sfpy_column_overlaps(c, lo, hi)) {
        PyErr_SetString(PyExc_ValueError, "out must not share memory with values");
        return -1;
    }
    return 0;
}

int sfpy_result_type(sf_op *op, const call_args *a, const column *c, const sf_query *q,
                     PyArray_Descr **descr) {
    *descr = NULL;
    if (*op == SF_OP_COUNT || (*op == SF_OP_BITS && !a->out)) /* a number; a new array */
        return 0;
    if (*op == SF_OP_BITS) {
        *descr = PyArray_DescrFromType(NPY_UINT8);
    } else if (*op == SF_OP_MASK8) {
        *descr = PyArray_DescrFromType(NPY_BOOL);
    } else if (*op == SF_OP_VALUES) {
        if (a->out && c->storage_descr->type_num != c->descr->type_num) {
            PyErr_Format(PyExc_TypeError, "filter_values on this Arrow column gives %R values, "
                         "widened from its 32-bit storage: out= cannot take them", c->descr);
            return -1;
        }
        *descr = c->storage_descr;
        Py_INCREF(*descr);
    } else {
        *descr = index_type(op, a, c->n, q);
    }
    if (!*descr)
        return -1;
    if (a->out && check_out(a->out, *descr, c, q, *op) < 0) {
        Py_CLEAR(*descr);
        return -1;
    }
    return 0;
}

/* ---- Running into a result ------------------------------------------------ */

typedef struct call_run {
    sfpy_state *st; /* the module's: its result pool */
    const sf_query *q;
    const column *column;
    int threads;
    int fresh_out;       /* out is an array allocated for this call */
    size_t out_resident; /* its first bytes written before (a recycled chunk's) */
} call_run;

static Py_ssize_t run_into(const call_run *c, void *out, size_t capacity) {
    return sfpy_run_column(c->q, c->column, out, capacity, c->threads, c->fresh_out,
                           c->out_resident);
}

/* Whether n elements of descr can be addressed at all: NumPy refuses more
 * bytes than an npy_intp counts with "array is too big", an error about an
 * array the caller never made. */
static int addressable(PyArray_Descr *descr, size_t n) {
    return n <= (size_t)NPY_MAX_INTP / (size_t)PyDataType_ELSIZE(descr);
}

/* res cut to its first k elements in place (realloc: no copy); NULL with
 * res released on failure. */
static PyObject *shrunk(PyArrayObject *res, Py_ssize_t k) {
    npy_intp newdim = k;
    PyArray_Dims shape = {&newdim, 1};
    PyObject *none = PyArray_Resize(res, &shape, 0, NPY_CORDER);
    if (!none) {
        Py_DECREF(res);
        return NULL;
    }
    Py_DECREF(none);
    return (PyObject *)res;
}

/* Count, then fill an exact-size result: two passes over the input. For
 * sorted columns (fresh_result), and where even the worst case
 * cannot be had (huge n, tight limits). */
static PyObject *count_then_fill(const call_run *c, PyArray_Descr *descr) {
    sf_query count = *c->q;
    count.op = SF_OP_COUNT;
    const call_run counting = {c->st, &count, c->column, c->threads, 0, 0};
    const Py_ssize_t need = run_into(&counting, NULL, 0);
    if (need < 0)
        return NULL;
    if (!addressable(descr, (size_t)need)) {
        PyErr_Format(PyExc_MemoryError,
                     "%s would return %zd elements of %zd bytes each: more than this "
                     "process can address (count_in_range counts them)",
                     sfpy_function_name(c->q->op), need, (Py_ssize_t)PyDataType_ELSIZE(descr));
        return NULL;
    }
    PyObject *res = sfpy_new_1d(descr, need);
    const call_run filling = {c->st, c->q, c->column, c->threads, 1, 0};
    const Py_ssize_t k =
        res && need ? run_into(&filling, PyArray_BYTES((PyArrayObject *)res), (size_t)need) : 0;
    if (k < 0)
        Py_CLEAR(res);
    else if (k < need) /* the data changed between the passes (another thread's race) */
        return shrunk((PyArrayObject *)res, k);
    return res;
}

PyObject *sfpy_positions_of_bits(sfpy_state *st, PyObject *bits, Py_ssize_t n, PyObject *dtype) {
    PyArray_Descr *descr = NULL;
    int w64 = 0;
    if (!PyArray_Check(bits) || PyArray_TYPE((PyArrayObject *)bits) != NPY_UINT8 ||
        PyArray_NDIM((PyArrayObject *)bits) != 1 ||
        !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)bits)) {
        PyErr_SetString(PyExc_TypeError, "_positions_of_bits: bits must be a contiguous 1-d "
                                         "uint8 array");
        return NULL;
    }
    if (n < 0 || (size_t)n > 8 * (size_t)PyArray_SIZE((PyArrayObject *)bits)) {
        PyErr_Format(PyExc_ValueError, "_positions_of_bits: %zd bits asked of %zd bytes", n,
                     PyArray_SIZE((PyArrayObject *)bits));
        return NULL;
    }
    if (!PyArray_DescrConverter(dtype, &descr))
        return NULL;
    if (!is_index_type(descr, &w64) || (!w64 && (size_t)n > (size_t)UINT32_MAX)) {
        PyErr_Format(PyExc_TypeError, "_positions_of_bits: index_dtype must be one of %s "
                     "(not uint32 from 2**32 bits), not %R", INDEX_TYPES, (PyObject *)descr);
        Py_DECREF(descr);
        return NULL;
    }
    const sf_kernel *kernel = sfpy_context_kernel(st); /* a use_kernel block's, or NULL */
    if (kernel == SFPY_KERNEL_ERROR) {
        Py_DECREF(descr);
        return NULL;
    }
    const uint8_t *b = (const uint8_t *)PyArray_BYTES((PyArrayObject *)bits);
    const sf_op op = w64 ? SF_OP_INDEX64 : SF_OP_INDEX32;
    size_t k;
    Py_BEGIN_ALLOW_THREADS k = sf_bits_positions(NULL, b, (size_t)n, op, NULL, 0);
    Py_END_ALLOW_THREADS
    int fresh;
    PyObject *res = sfpy_new_array(st, descr, (npy_intp)k, &fresh);
    Py_DECREF(descr);
    size_t again = k;
    if (res && k) {
        void *dst = PyArray_BYTES((PyArrayObject *)res);
        Py_BEGIN_ALLOW_THREADS again = sf_bits_positions(kernel, b, (size_t)n, op, dst, k);
        Py_END_ALLOW_THREADS
    }
    if (res && again != k) { /* another thread wrote bits between the passes */
        Py_DECREF(res);
        PyErr_SetString(PyExc_RuntimeError,
                        "_positions_of_bits: the bits changed while they were read");
        return NULL;
    }
    return res;
}

/* How far past its results a call may have written into a fresh output: the
 * kernels store whole vectors, and threads populate a fresh output a 2 MiB
 * stretch ahead of their results (team.c's fault_ahead). For the arena's count
 * of pages that may be mapped. */
#define ONE_THREAD_SLACK ((size_t)256)
#define THREADS_SLACK (((size_t)2 << 20) + 4096)

/* A small answer of a larger worst case is copied into an exact-size array and
 * its chunk goes back at once: left in place it would pin its pages alone (the
 * arena packs only worst cases up to 64 KiB side by side); 2,000 live answers
 * of 64 Ki uint32 at 1 % held 1.59x their bytes of RSS, 1.01x copied (AMD EPYC
 * Zen 3, family 25 model 1). Up to 1/32 of the worst case, the copy is a
 * small part of the call: 1.00-1.03x `out=`'s instructions at 16-300 K
 * elements, 1-3 % (fresh_guard.py); at 1/16, 64 Ki at 6 % took 1.13x. */
#define SMALL_COPY_WORST ((size_t)64 << 10)
#define SMALL_COPY_MOST ((size_t)16 << 10)

/* Worst cases from SFPY_POOL_MIN bytes on: the query into an arena chunk of the
 * worst case, which is then shrunk to the answer (its tail back to the arena)
 * and becomes the result. No copy and, once earlier results have died, no page
 * fault: the arena hands out memory calls wrote before. NULL without an
 * exception when no chunk can be had (the caller then takes another path). */
static PyObject *pooled_result(const call_run *c, PyArray_Descr *descr, size_t n, int *tried) {
    sfpy_state *st = c->st;
    const size_t size = (size_t)PyDataType_ELSIZE(descr), worst = n * size;
    sf_chunk *chunk;
    size_t warm;
    void *mem = sfpy_pool_take(st, worst, &chunk, &warm);
    *tried = mem != NULL;
    if (!mem)
        return NULL;
    const int fresh = warm < worst;
    const call_run filling = {st, c->q, c->column, c->threads, fresh, fresh ? warm : 0};
    const Py_ssize_t k = run_into(&filling, mem, n);
    if (k < 0) {
        sf_arena_shrink(st->arena, chunk, worst, worst); /* its pages may be mapped */
        sfpy_pool_give(st, chunk);
        return NULL;
    }
    const size_t used = (size_t)k * size;
    const size_t slack = fresh && c->threads != 1 ? THREADS_SLACK : ONE_THREAD_SLACK;
    sf_arena_shrink(st->arena, chunk, used, worst - used < slack ? worst : used + slack);
    if (worst > SMALL_COPY_WORST && used < SMALL_COPY_MOST && used <= worst / 32) {
        PyObject *res = sfpy_new_1d(descr, k);
        if (res)
            memcpy(PyArray_BYTES((PyArrayObject *)res), mem, used);
        sfpy_pool_give(st, chunk);
        return res;
    }
    return sfpy_pool_array(st, descr, k, chunk, mem);
}

/* Worst cases below SFPY_POOL_MIN bytes are filled on the stack and copied
 * into an exact-size array: for a few elements the copy costs less than a
 * chunk or a realloc (callgrind, 16 uint32 elements: about 2,400 instructions
 * a call against 3,100 with a realloc shrink). */
static PyObject *staged_result(const call_run *c, PyArray_Descr *descr, size_t n) {
    _Alignas(64) unsigned char stage[SFPY_POOL_MIN];
    const call_run filling = {c->st, c->q, c->column, c->threads, 0, 0};
    const Py_ssize_t k = run_into(&filling, stage, n);
    if (k < 0)
        return NULL;
    PyObject *res = sfpy_new_1d(descr, k);
    if (res && k)
        memcpy(PyArray_BYTES((PyArrayObject *)res), stage,
               (size_t)k * (size_t)PyDataType_ELSIZE(descr));
    return res;
}

/* A fresh result: a worst case filled in one pass and shrunk in place to its
 * exact size, from the arena (pooled_result) or, when small or when the arena
 * has no memory, from NumPy's allocator: the pages past what the kernel wrote
 * were never touched, so they never cost physical memory, and realloc gives
 * them back without copying. */
static PyObject *fresh_result(const call_run *c, PyArray_Descr *descr) {
    const size_t n = sfpy_most_results(c->q, c->column);
    /* Sorted: the count reads O(log n + k) elements, and the result is made at
     * its size rather than as a worst case of n. */
    if (!addressable(descr, n) || c->column->sorted)
        return count_then_fill(c, descr);
    const size_t size = (size_t)PyDataType_ELSIZE(descr);
    if (n * size < SFPY_POOL_MIN)
        return staged_result(c, descr, n);
    if (sfpy_poolable(n * size)) {
        int tried = 0;
        PyObject *res = pooled_result(c, descr, n, &tried);
        if (res || tried)
            return res;
    }
    PyArrayObject *res = (PyArrayObject *)sfpy_new_1d(descr, (npy_intp)n);
    if (!res) {
        if (!PyErr_ExceptionMatches(PyExc_MemoryError))
            return NULL;
        PyErr_Clear();
        return count_then_fill(c, descr);
    }
    const call_run filling = {c->st, c->q, c->column, c->threads, 1, 0};
    const Py_ssize_t k = run_into(&filling, PyArray_BYTES(res), n);
    if (k < 0) {
        Py_DECREF(res);
        return NULL;
    }
    return (size_t)k < n ? shrunk(res, k) : (PyObject *)res;
}

int sfpy_add_result_constants(PyObject *m) {
    return PyModule_AddIntConstant(m, "_FRESH_POOLED_MIN", (long)SFPY_POOL_MIN) < 0
               ? -1
               : PyModule_AddIntConstant(m, "_POOL_IDLE_MAX", (long)SFPY_POOL_IDLE_MAX);
}

/* out[:k] after filling it; nothing is allocated. */
static PyObject *into_out(const call_run *c, int nonempty, PyObject *out) {
    const size_t n = sfpy_most_results(c->q, c->column);
    const Py_ssize_t k = nonempty ? run_into(c, PyArray_BYTES((PyArrayObject *)out), n) : 0;
    return k < 0 ? NULL : sfpy_view_of_first(out, k);
}

/* The values of a 32-bit Arrow date or time as the NumPy unit they mean. */
static PyObject *widened(PyObject *values, const column *c) {
    if (!values || c->storage_descr->type_num == c->descr->type_num)
        return values;
    Py_INCREF(c->descr);
    PyObject *wide = PyArray_CastToType((PyArrayObject *)values, c->descr, 0);
    Py_DECREF(values);
    return wide;
}

PyObject *sfpy_result(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                      PyObject *out, PyArray_Descr *descr, int threads) {
    if (q->op == SF_OP_MASK8)
        return sfpy_mask8_result(st, q, nonempty, col, out, descr, threads);
    if (q->op == SF_OP_BITS)
        return sfpy_bits_result(q, nonempty, col, threads);
    const call_run c = {st, q, col, threads, 0, 0};
    if (q->op == SF_OP_COUNT) {
        const Py_ssize_t k = nonempty ? run_into(&c, NULL, 0) : 0;
        return k < 0 ? NULL : PyLong_FromSsize_t(k);
    }
    if (out)
        return into_out(&c, nonempty, out);
    PyObject *res = !nonempty || sfpy_most_results(q, col) == 0 ? sfpy_new_1d(descr, 0)
                                                                 : fresh_result(&c, descr);
    return q->op == SF_OP_VALUES ? widened(res, col) : res;
}
