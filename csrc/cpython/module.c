/*
 * The CPython module simdfilter._core: its functions and its init. A call is a
 * few steps, each in its own file: arguments (args.c), the array and its type
 * (source_numpy.c), the result type and `out` (result.c), the bounds
 * (bounds_py.c), the kernel of this context (kernels_py.c), then the query run
 * by the library with the GIL released (gil.c, result.c).
 */
#define SFPY_IMPORT_ARRAY
#include "binding.h"
#include "docstrings.h"

#include <string.h>

/* Everything a filter call holds, released by release_call. */
typedef struct call {
    sfpy_state *st; /* the module's */
    call_args args;
    inclusive_mode inclusive;
    int threads;
    int invert;
    column column;
    PyArray_Descr *descr; /* of the results; NULL for count */
    PyArrayObject *within; /* the positions q.within points into, or NULL */
    sf_range *ranges;      /* several ranges: what q.range and q.more hold, or NULL */
    sf_chunk *ranges_chunk; /* isin's: their arena chunk (sfpy_scratch_take), or NULL */
    size_t ranges_bytes;
    uint8_t *where_nulls;  /* where ANDed with the column's validity (free()), or NULL */
    sf_query query;
} call;

static void release_call(call *c) {
    free(c->where_nulls);
    if (c->ranges)
        sfpy_scratch_give(c->st, c->ranges, c->ranges_chunk, c->ranges_bytes);
    Py_XDECREF(c->descr);
    Py_XDECREF(c->within);
    sfpy_column_release(&c->column);
}

/* The arguments, inclusive and threads: nothing is owned yet. 0 or -1. */
static int parse_call(call *c, sf_op op, int isin, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames) {
    if (sfpy_parse_args(c->st, op, isin, args, nargs, kwnames, &c->args) < 0 ||
        sfpy_parse_inclusive(c->args.inclusive, &c->inclusive) < 0 ||
        (c->threads = sfpy_parse_threads(c->args.threads)) < 0 ||
        (c->invert = sfpy_parse_invert(c->args.invert)) < 0)
        return -1;
    return 0;
}

/* Values, types and kernel: everything but the bounds. 0, or -1 with what is
 * owned so far left for release_call. */
static int prepare_call(call *c, sf_op op) {
    c->descr = NULL;
    c->within = NULL;
    c->ranges = NULL;
    c->ranges_chunk = NULL;
    c->ranges_bytes = 0;
    c->where_nulls = NULL;
    memset(&c->query, 0, sizeof c->query);
    if (sfpy_column_from(c->st, c->args.values, &c->column) < 0)
        return sfpy_column_refused(c->st, c->args.values, sfpy_function_name(op));
    if ((c->column.sorted = sfpy_parse_assume_sorted(&c->args)) < 0)
        return -1;
    if (c->invert) /* the outside of a sorted stretch is two stretches: scanned, for now */
        c->column.sorted = 0;
    if (c->args.within &&
        !(c->within = sfpy_within(c->args.within, c->column.n, &c->query)))
        return -1;
    if (sfpy_result_type(&op, &c->args, &c->column, &c->query, &c->descr) < 0)
        return -1;
    c->query.kernel = sfpy_context_kernel(c->st);
    if (c->query.kernel == SFPY_KERNEL_ERROR)
        return -1;
    c->query.op = op;
    c->query.elem = sf_type_elem(c->column.type);
    return 0;
}

/* The query's one range: 1, 0 when nothing can be kept, -1 with an exception.
 * Inverted after every shortcut of the bounds: an empty range keeps
 * everything, a whole integer width nothing (sf_invert_range). */
static int resolve_range(const call *c, PyObject *lo, PyObject *hi, sf_range *r) {
    int nonempty = sfpy_resolve_bounds(&c->column, lo, hi, &c->inclusive, r);
    if (nonempty >= 0 && c->invert)
        nonempty = sf_invert_range(c->query.elem, nonempty ? SF_RANGE_OK : SF_RANGE_EMPTY, r) ==
                   SF_RANGE_OK;
    return nonempty;
}

/* Whether a bound argument is a sequence of bounds, one per range: a list, a
 * tuple or a 1-d NumPy array. */
static int is_bound_list(PyObject *o) {
    return o && (PyList_Check(o) || PyTuple_Check(o) ||
                 (PyArray_Check(o) && PyArray_NDIM((PyArrayObject *)o) == 1));
}

static int use_ranges(call *c, size_t kept);

/* lo and hi as k >= 1 ranges (lo[i], hi[i]), each resolved as one range is:
 * the query keeps what any of them holds, or inverted what none holds. The
 * ranges that can hold something are merged (sf_merge_ranges: each one left
 * costs a compare per element); inverted, each merged range is, and the query
 * keeps what every inverted one keeps. 1, 0 when nothing can be kept, -1 with
 * an exception. */
static int resolve_ranges(call *c, PyObject *lo, PyObject *hi) {
    if (!is_bound_list(lo) || !is_bound_list(hi)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: lo and hi must both be single bounds, or both sequences of bounds of "
                     "the same length (one range per pair: a list, tuple or 1-d array), not %s "
                     "and %s",
                     sfpy_function_name(c->query.op), Py_TYPE(lo)->tp_name,
                     Py_TYPE(hi)->tp_name);
        return -1;
    }
    const Py_ssize_t k = PySequence_Size(lo), khi = PySequence_Size(hi);
    if (k < 0 || khi < 0)
        return -1;
    if (k != khi || k == 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: lo and hi hold one bound per range and must have the same length, "
                     "at least 1; got %zd and %zd",
                     sfpy_function_name(c->query.op), k, khi);
        return -1;
    }
    c->ranges_bytes = (size_t)k * sizeof(sf_range);
    if (!(c->ranges = (sf_range *)sfpy_scratch_take(c->st, c->ranges_bytes, &c->ranges_chunk)))
        return -1;
    size_t kept = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *a = PySequence_GetItem(lo, i), *b = a ? PySequence_GetItem(hi, i) : NULL;
        const int got =
            b ? sfpy_resolve_bounds(&c->column, a, b, &c->inclusive, &c->ranges[kept]) : -1;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (got < 0)
            return -1;
        kept += (size_t)got;
    }
    return use_ranges(c, sf_merge_ranges(c->column.type, c->ranges, kept));
}

/* isin's items (isin=) as ranges [x, x], one per item some value can equal:
 * merged when few (those left, up to SF_RANGES_AT_ONCE, are compared in
 * registers), else handed over as they are (the library looks each element
 * up in a set of them, lib/ranges.c). No item: nothing is in the set. */
static int resolve_items(call *c) {
    size_t kept = 0;
    if (sfpy_resolve_items(c->st, &c->column, c->args.isin, &c->ranges, &c->ranges_chunk,
                           &c->ranges_bytes, &kept) < 0)
        return -1;
    if (kept <= 64 * SF_RANGES_AT_ONCE)
        kept = sf_merge_ranges(c->column.type, c->ranges, kept);
    return use_ranges(c, kept);
}

/* The query over the resolved ranges c->ranges[0, kept): inverted if asked.
 * 1, 0 when nothing can be kept. */
static int use_ranges(call *c, size_t kept) {
    if (c->invert) {
        if (kept == 0) /* outside nothing: everything */
            kept = sf_invert_range(c->query.elem, SF_RANGE_EMPTY, &c->ranges[0]) == SF_RANGE_OK;
        else
            for (size_t j = 0; j < kept; j++)
                if (sf_invert_range(c->query.elem, SF_RANGE_OK, &c->ranges[j]) != SF_RANGE_OK)
                    return 0; /* a range over a whole integer width: nothing is outside */
    }
    if (kept == 0)
        return 0;
    c->query.range = c->ranges[0];
    c->query.more = c->ranges + 1;
    c->query.more_count = kept - 1;
    c->query.every = c->invert;
    return 1;
}

/* _filter_indexes_where's rows: the column reads only the elements whose bit
 * of `where` is 1 (column.where), its own nulls ANDed in. 0 or -1. */
static int set_where(call *c, PyObject *where) {
    const size_t n = c->column.n, bytes = (n + 7) / 8;
    PyArrayObject *w = (PyArrayObject *)where;
    if (!PyArray_Check(where) || PyArray_TYPE(w) != NPY_UINT8 || PyArray_NDIM(w) != 1 ||
        !PyArray_IS_C_CONTIGUOUS(w)) {
        PyErr_SetString(PyExc_TypeError,
                        "_filter_indexes_where: where must be a contiguous 1-d uint8 array");
        return -1;
    }
    if ((size_t)PyArray_SIZE(w) < bytes) {
        PyErr_Format(PyExc_ValueError, "_filter_indexes_where: where has %zd bytes; it needs at "
                     "least ceil(values.size / 8) = %zu", PyArray_SIZE(w), bytes);
        return -1;
    }
    if (c->args.out) { /* checked as an array by then */
        const char *o = PyArray_BYTES((PyArrayObject *)c->args.out);
        const char *wb = PyArray_BYTES(w);
        if (o < wb + bytes && wb < o + PyArray_NBYTES((PyArrayObject *)c->args.out)) {
            PyErr_SetString(PyExc_ValueError, "out must not share memory with where");
            return -1;
        }
    }
    if (c->within || c->column.sorted) {
        PyErr_SetString(PyExc_TypeError,
                        "_filter_indexes_where takes no within= nor assume_sorted=True");
        return -1;
    }
    const uint8_t *rows = (const uint8_t *)PyArray_BYTES(w);
    int64_t nulls;
    if (sfpy_validity_of(&c->column, &c->where_nulls, &nulls) < 0)
        return -1;
    if (c->where_nulls)
        for (size_t i = 0; i < bytes; i++)
            c->where_nulls[i] &= rows[i];
    c->column.where = c->where_nulls ? c->where_nulls : rows;
    return 0;
}

/* A function's call; `bits_array` (SF_OP_BITS): the values bitmap as a NumPy
 * array, not an Arrow array; `where` (or NULL): _filter_indexes_where's;
 * `isin`: the function isin (values, items). */
static PyObject *filter_call(PyObject *module, sf_op op, int bits_array, PyObject *where, int isin,
                             PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    call c;
    c.st = sfpy_state_of(module);
    if (parse_call(&c, op, isin, args, nargs, kwnames) < 0)
        return NULL;
    PyObject *result = NULL;
    if (prepare_call(&c, op) == 0 && (!where || set_where(&c, where) == 0)) {
        const int several = is_bound_list(c.args.lo) || is_bound_list(c.args.hi);
        const int nonempty = c.args.isin ? resolve_items(&c)
                             : several   ? resolve_ranges(&c, c.args.lo, c.args.hi)
                                         : resolve_range(&c, c.args.lo, c.args.hi, &c.query.range);
        if (nonempty >= 0 && bits_array)
            result = sfpy_bits_array(c.st, &c.query, nonempty, &c.column, c.args.out, c.threads);
        else if (nonempty >= 0 && op == SF_OP_BITS && c.args.out)
            PyErr_SetString(PyExc_TypeError, "_in_range_arrow takes no out=");
        else if (nonempty >= 0)
            result = sfpy_result(c.st, &c.query, nonempty, &c.column, c.args.out, c.descr,
                                 c.threads);
        if (result && op == SF_OP_VALUES && c.column.tz && !c.args.out)
            result = sfpy_zoned_values(c.st, result, c.args.values, c.column.tz);
    }
    release_call(&c);
    return result;
}

static PyObject *py_filter_indexes(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    return filter_call(self, SF_OP_INDEX32, 0, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_filter_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    return filter_call(self, SF_OP_VALUES, 0, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_count_in_range(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    return filter_call(self, SF_OP_COUNT, 0, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_in_range(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    return filter_call(self, SF_OP_MASK8, 0, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_in_range_arrow(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    return filter_call(self, SF_OP_BITS, 0, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_in_range_bits(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    return filter_call(self, SF_OP_BITS, 1, NULL, 0, args, nargs, kwnames);
}

static PyObject *py_isin(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    return filter_call(self, SF_OP_MASK8, 0, NULL, 1, args, nargs, kwnames);
}

/* _filter_indexes_where(where, values, lo, hi, **keywords): where first, so
 * that the rest are filter_indexes' arguments as they came. */
static PyObject *py_filter_indexes_where(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                         PyObject *kwnames) {
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "_filter_indexes_where needs where, values, lo, hi");
        return NULL;
    }
    return filter_call(self, SF_OP_INDEX32, 0, args[0], 0, args + 1, nargs - 1, kwnames);
}

/* _positions_of_bits(bits, n, index_dtype): sf_bits_positions into an
 * exact-size array. */
static PyObject *py_positions_of_bits(PyObject *self, PyObject *args) {
    PyObject *bits, *dtype;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OnO:_positions_of_bits", &bits, &n, &dtype))
        return NULL;
    return sfpy_positions_of_bits(sfpy_state_of(self), bits, n, dtype);
}

/* What threads=None decides, for whoever measures it (the benchmark's thread
 * table) without a copy of the rule: the same call the driver makes. */
static PyObject *py_auto_threads(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *keywords[] = {"nbytes", "fresh", NULL};
    Py_ssize_t nbytes;
    int fresh = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "n|p:_auto_threads", keywords, &nbytes, &fresh))
        return NULL;
    if (nbytes < 0) {
        PyErr_SetString(PyExc_ValueError, "_auto_threads: nbytes must be >= 0");
        return NULL;
    }
    const int threads = fresh ? sf_auto_threads_fresh((size_t)nbytes) : sf_auto_threads((size_t)nbytes);
    return PyLong_FromLong(threads < SF_MAX_THREADS ? threads : SF_MAX_THREADS);
}

static PyMethodDef filter_methods[] = {
    {"filter_indexes", (PyCFunction)(void (*)(void))py_filter_indexes,
     METH_FASTCALL | METH_KEYWORDS, filter_indexes_doc},
    {"filter_values", (PyCFunction)(void (*)(void))py_filter_values,
     METH_FASTCALL | METH_KEYWORDS, filter_values_doc},
    {"count_in_range", (PyCFunction)(void (*)(void))py_count_in_range,
     METH_FASTCALL | METH_KEYWORDS, count_in_range_doc},
    {"in_range", (PyCFunction)(void (*)(void))py_in_range, METH_FASTCALL | METH_KEYWORDS,
     in_range_doc},
    {"isin", (PyCFunction)(void (*)(void))py_isin, METH_FASTCALL | METH_KEYWORDS, isin_doc},
    {"_in_range_arrow", (PyCFunction)(void (*)(void))py_in_range_arrow,
     METH_FASTCALL | METH_KEYWORDS, in_range_arrow_doc},
    {"_in_range_bits", (PyCFunction)(void (*)(void))py_in_range_bits,
     METH_FASTCALL | METH_KEYWORDS, in_range_bits_doc},
    {"_positions_of_bits", py_positions_of_bits, METH_VARARGS, positions_of_bits_doc},
    {"_take_rows", sfpy_take_rows, METH_VARARGS,
     "_take_rows(columns, positions)\n--\n\nThe rows at `positions` (a contiguous uint32, "
     "int64 or uint64 array) of each\ncolumn (1-d arrays of 1, 2, 4 or 8-byte elements "
     "without objects, all of one\nlength): a list of new arrays, as [c.take(positions) for c "
     "in columns]. IndexError\nfor a position past the end."},
    {"_filter_rows", sfpy_filter_rows_py, METH_VARARGS,
     "_filter_rows(queries, inclusive, columns, n, index_dtype, most=1.0)\n--\n\nA frame "
     "query's rows in one pass: `queries` a sequence of (values, lo,\nhi), each a NumPy array "
     "or pandas column of n rows, their ranges ANDed;\n`columns` as _take_rows takes them. "
     "Returns (positions, [c.take(positions)\nfor c in columns]), positions of index_dtype; "
     "None where a sample of the rows\n(from 65,536 rows on) keeps more than `most` of them. "
     "TypeError or ValueError where\nthe query is not one it takes (Arrow data, a 2-d "
     "column, ...) or a bound is refused."},
    {"_filter_indexes_where", (PyCFunction)(void (*)(void))py_filter_indexes_where,
     METH_FASTCALL | METH_KEYWORDS, filter_indexes_where_doc},
    {"_auto_threads", (PyCFunction)(void (*)(void))py_auto_threads, METH_VARARGS | METH_KEYWORDS,
     "_auto_threads(nbytes, fresh=False)\n--\n\nThe threads threads=None gives a call over "
     "`nbytes` bytes of input here and now\n(`fresh`: into a fresh result, not out=): the "
     "library's rule, the CPUs this\nprocess may use and, on Linux, those idle at this "
     "instant, at most 256. The call itself also keeps\nat least 256 Ki elements per thread."},
    {"_result_pool", sfpy_pool_stats, METH_NOARGS,
     "_result_pool()\n--\n\nWhat the pool of dead results' memory holds now: its idle "
     "buffers (`idle`: bytes\nand bytes written of each), their sums and its limits "
     "(result_pool.c)."},
    {"_release_result_pool", sfpy_pool_release, METH_NOARGS,
     "_release_result_pool()\n--\n\nFrees the pool's idle buffers (their memory goes back "
     "to the system) and\nreturns how many there were. Results alive keep theirs."},
    {"set_result_pool_limit", sfpy_pool_set_limit, METH_O, set_result_pool_limit_doc},
    {NULL, NULL, 0, NULL},
};

/* ---- The module: multi-phase init (PEP 489), its state in sfpy_state --------------- */

static int exec_module(PyObject *m) {
    sfpy_state *st = sfpy_state_of(m);
    if (sfpy_args_init(st) < 0 || sfpy_column_init(st) < 0 || sfpy_bound_objects_init() < 0 ||
        sfpy_bounds_time_init(st) < 0 ||
        PyModule_AddStringConstant(m, "__version__", SIMDFILTER_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "cpu_count", sf_available_cpus()) < 0 ||
        sfpy_add_kernel_functions(m) < 0 || PyModule_AddFunctions(m, sfpy_bounds_methods) < 0 ||
        PyModule_AddFunctions(m, sfpy_column_methods) < 0 ||
        PyModule_AddFunctions(m, sfpy_refusal_methods) < 0 ||
        PyModule_AddFunctions(m, sfpy_packed_methods) < 0 ||
        sfpy_add_result_constants(m) < 0 || sfpy_pool_init(m, st) < 0)
        return -1;
    return 0;
}

/* Every object the state holds, for the cycle collector and for the module's end. */
#define SFPY_STATE_OBJECTS(X, st)                                                          \
    do {                                                                                  \
        for (int i_ = 0; i_ < SFPY_ARG_COUNT; i_++)                                       \
            X((st)->arg_names[i_]);                                                       \
        for (int i_ = 0; i_ < 3; i_++)                                                    \
            X((st)->pandas_types[i_]);                                                    \
        for (int i_ = 0; i_ < 4; i_++)                                                    \
            X((st)->pandas_kinds[i_]);                                                    \
        X((st)->pandas_kind_of);                                                          \
        X((st)->kernel_context);                                                          \
        X((st)->name_c_array);                                                            \
        X((st)->name_c_stream);                                                           \
        X((st)->name_module);                                                             \
        X((st)->masked_array_type);                                                       \
        X((st)->str_value);                                                               \
        X((st)->str_creso);                                                               \
        X((st)->str_utcoffset);                                                           \
        X((st)->str_value_1x);                                                            \
        X((st)->str_reso_1x);                                                             \
        X((st)->result_buffer_type);                                                      \
    } while (0)

static int traverse_module(PyObject *m, visitproc visit, void *arg) {
    sfpy_state *st = sfpy_state_of(m);
    if (st)
        SFPY_STATE_OBJECTS(Py_VISIT, st);
    return 0;
}

static int clear_module(PyObject *m) {
    sfpy_state *st = sfpy_state_of(m);
    if (st)
        SFPY_STATE_OBJECTS(Py_CLEAR, st);
    return 0;
}

static void free_module(void *m) {
    clear_module((PyObject *)m);
    sfpy_state *st = sfpy_state_of((PyObject *)m);
    if (st)
        sfpy_pool_free(st);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, (void *)exec_module},
    {0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    "simdfilter._core",
    "C core of simdfilter: the NumPy binding of the simdfilter C library.",
    sizeof(sfpy_state),
    filter_methods,
    module_slots,
    traverse_module,
    clear_module,
    free_module,
};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    return PyModuleDef_Init(&moduledef);
}
