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
#include "simdfilter_arrow.h"
#include "arena.h"

typedef struct column column; /* column.c, below */

/* ---- module.c: the module's state ---- */

/* The number of keyword arguments args.c reads (its ARG_COUNT). */
#define SFPY_ARG_COUNT 12

/* result_pool.c: fresh results' memory, from the module's arena (arena.h). */
/* The most bytes of written, free memory the arena keeps for the next call. */
#define SFPY_POOL_IDLE_MAX ((size_t)64 << 20)
/* Worst cases of fewer bytes are filled on the stack and copied out (for a few
 * elements a copy costs less than a chunk); from there on, the arena. */
#define SFPY_POOL_MIN ((size_t)1 << 10)

/* Everything the module keeps between calls (multi-phase init, PEP 489): each
 * module object has its own, reached from the function's module (`self`) and
 * carried by a call's column. No Python object lives in a C static. */
typedef struct sfpy_state {
    PyObject *kernel_context;             /* contextvars.ContextVar: a kernel table index */
    PyObject *arg_names[SFPY_ARG_COUNT];  /* args.c's keywords, interned */
    PyObject *name_c_array, *name_c_stream, *name_module; /* column.c's lookups */
    PyObject *masked_array_type;          /* numpy.ma.MaskedArray, once first needed */
    PyObject *pandas_types[3];            /* Timestamp, Timedelta, NaTType, once seen */
    PyObject *pandas_kinds[4];            /* column_hosts.c: pandas.arrays' classes by kind */
    PyObject *pandas_kind_of;             /* column_hosts.c: {array type: kind}, once seen */
    PyObject *str_value, *str_creso, *str_utcoffset, *str_value_1x, *str_reso_1x;
    PyObject *result_buffer_type; /* result_pool.c's _ResultBuffer */
    sf_arena *arena;              /* not objects: freed by the module's m_free */
} sfpy_state;

/* The state of simdfilter._core's module object `module`. */
static inline sfpy_state *sfpy_state_of(PyObject *module) {
    return (sfpy_state *)PyModule_GetState(module);
}

/* ---- args.c: the arguments of filter_indexes, filter_values, count_in_range ---- */

typedef struct call_args {
    PyObject *values, *lo, *hi, *inclusive, *out, *index_dtype, *threads, *within, *assume_sorted,
        *invert;
    PyObject *isin;       /* isin= (or isin's items): a set of numbers in place of lo, hi */
    int isin_function;    /* the call is isin(values, items, ...) */
    sf_op op;             /* the function's operation (before index_dtype widens it) */
} call_args;

/* The Python function an operation belongs to ("filter_indexes" for both index ops). */
const char *sfpy_function_name(sf_op op);
/* `isin`: the function isin(values, items, *, out, threads, invert). */
int sfpy_parse_args(const sfpy_state *st, sf_op op, int isin, PyObject *const *args,
                    Py_ssize_t nargs, PyObject *kwnames, call_args *a);
/* At module init: the keyword names, interned. 0 or -1. */
int sfpy_args_init(sfpy_state *st);

typedef struct inclusive_mode {
    int lo_closed, hi_closed;
} inclusive_mode;
/* NULL (not given) is "both"; anything but the four names is a ValueError. */
int sfpy_parse_inclusive(PyObject *obj, inclusive_mode *m);
/* NULL (not given) or None: 0, automatic. Else 1..SF_MAX_THREADS; -1 on error. */
int sfpy_parse_threads(PyObject *obj);
/* assume_sorted: 0 (not given, None, False) or 1 (True); -1 with a TypeError
 * for anything but a bool, a ValueError beside within=. */
int sfpy_parse_assume_sorted(const call_args *a);
/* NULL (not given), False or numpy.False_: 0; True or numpy.True_: 1; else a
 * TypeError and -1. */
int sfpy_parse_invert(PyObject *obj);

/* ---- bounds_py.c: Python bounds to an sf_range ---- */

/* 1: the range is in *r; 0: it is empty; -1: an exception is set. */
int sfpy_resolve_bounds(const column *c, PyObject *lo, PyObject *hi, const inclusive_mode *m,
                        sf_range *r);
/* isin's items on the column: one closed range [x, x] per item that some
 * value of the column can equal (as np.isin compares them: see bounds_py.c),
 * into *ranges (sfpy_scratch_take's memory, *bytes of it: sfpy_scratch_give
 * it with *scratch), *k of them, unmerged. 0, or -1 with an exception (a TypeError for
 * an item that is not a number, or not a time on time data). */
int sfpy_resolve_items(sfpy_state *st, const column *c, PyObject *items, sf_range **ranges,
                       sf_chunk **scratch, size_t *bytes, size_t *k);
/* _resolve_bounds, the test-only view of which path resolved a call's bounds. */
extern PyMethodDef sfpy_bounds_methods[];

/* ---- bound_objects.c: what a bound object is, below every bound reader ---- */

/* The datetime C API of bound_objects.c; 0 or -1. */
int sfpy_bound_objects_init(void);
typedef enum sfpy_pandas_kind_t { PD_NONE, PD_TIMESTAMP, PD_TIMEDELTA, PD_NAT } sfpy_pandas_kind_t;
/* Which of pandas' Timestamp, Timedelta and NaT obj is (by its class, kept in
 * st once seen; subclasses of theirs are none of them), or PD_NONE. */
sfpy_pandas_kind_t sfpy_pandas_kind(sfpy_state *st, PyObject *obj);
/* pandas' NaT; a datetime.date, datetime or timedelta (subclasses too). */
int sfpy_is_pandas_nat(sfpy_state *st, PyObject *obj);
int sfpy_is_date_or_delta(PyObject *obj);
/* A bound's type's __name__ for a message (tp_name holds the module too): new. */
PyObject *sfpy_type_name(PyObject *obj);
/* Whether obj is an instance of module.name, the module imported already
 * (nothing of it can exist before): 1, 0, or -1 with an exception. */
int sfpy_instance_of(PyObject *obj, const char *module, const char *name);
/* For the slow readers of time bounds: the standard library's module.name
 * (new), re.match(pattern, text) (a match, Py_None, or NULL), a match's group
 * (new; Py_None for one that took no part), and a timedelta in microseconds. */
PyObject *sfpy_stdlib(const char *module, const char *name);
PyObject *sfpy_re_match(const char *pattern, PyObject *text);
PyObject *sfpy_re_group(PyObject *m, const char *name);
int64_t sfpy_delta_us(PyObject *d);
/* Py_NewRef, which CPython 3.9 has not. */
static inline PyObject *sfpy_new_ref(PyObject *o) {
    Py_INCREF(o);
    return o;
}
/* A Python int as a bound: INT, UINT, or HUGE with its sign. Inline: the
 * NumPy fast path reads every int bound with it (a call cost 14 instructions
 * a bound, callgrind, CPython 3.11). */
static inline void sfpy_int_bound(PyObject *as_int, sf_bound *b) {
    int overflow = 0;
    b->kind = SF_BOUND_INT;
    b->i = PyLong_AsLongLongAndOverflow(as_int, &overflow);
    if (overflow < 0) {
        b->kind = SF_BOUND_HUGE;
        b->i = -1;
    } else if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(as_int);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            b->kind = SF_BOUND_HUGE;
            b->i = 1;
        } else {
            b->kind = SF_BOUND_UINT;
            b->u = u;
        }
    }
}

/* ---- bounds_time.c: bounds on datetime64/timedelta64 data, read in C ---- */

/* The datetime C API and the names the readers look up; 0 or -1. */
int sfpy_bounds_time_init(sfpy_state *st);
/* One end (`lower`: the low one) of a range on the time column `c`: 1 with *b
 * filled (*closed may become 1: a bound between two ticks; *nat becomes 1 for
 * a NaT bound), or -1 with the exception of a bound refused. The common kinds
 * are read here, the rest by bounds_time_rest.c. */
int sfpy_time_bound(PyObject *obj, const column *c, int lower, sf_bound *b, int *closed,
                    int *nat);

/* ---- bounds_exact.c: number bounds no machine type holds ---- */

/* The double d standing for a number q that is d (cmp 0), just above it (cmp
 * 1) or just below it (cmp -1), as a FLOAT bound with the same answer on float
 * data: closed, and stepped inward past d when q is not d. */
void sfpy_float_near(double d, int cmp, int lower, sf_bound *b, int *closed);
/* One end of a range on numeric data of type t, for a bound bounds_py.c does
 * not read (a Fraction, Decimal, long double, other numbers.Integral, an
 * np.timedelta64 on integer data), exactly: 1 with *b; every other bound is
 * refused, -1 with the exception. */
int sfpy_exact_number(sfpy_state *st, PyObject *obj, sf_type t, int lower, sf_bound *b,
                      int *closed);

/* ---- bounds_time_rest.c: the time bounds bounds_time.c's readers leave ---- */

/* As sfpy_time_bound, for a bound its readers did not take: 1 (*nat 1 for
 * NaT), or -1 with the exception of a bound refused. */
int sfpy_time_bound_rest(PyObject *obj, const column *c, int lower, sf_bound *b, int *closed,
                         int *nat);
struct sf_time; /* include/simdfilter_time.h */
/* A time `v` that sf_time_bound could not place in the data's unit: the
 * error (generic data, a calendar length on fixed data or the reverse, or
 * arithmetic beyond reach). -1. */
int sfpy_time_unit_refused(const struct sf_time *v, const column *c);

/* ---- bounds_zones.c: wall times in a named zone ---- */

/* The UTC offset (microseconds) of the wall time `wall` (text: the bound, for
 * a message) in the zone named tz: 0, or -1 with a ValueError for an unknown
 * zone, a wall time a clock change skips or repeats, or one outside years
 * 1-9999. */
int sfpy_wall_offset(const struct sf_time *wall, PyObject *tz, PyObject *text, int64_t *offset_us);

/* ---- column.c: what a call's values are, and where ---- */

typedef enum column_form { COLUMN_NUMPY, COLUMN_ARROW } column_form;

#define COLUMN_INLINE_CHUNKS 8

/* A call's values: a NumPy array (with a mask of nulls, perhaps), or the
 * chunks of an Arrow column. Everything here is owned: sfpy_column_release. */
struct column {
    column_form form;
    sf_type type;                /* the stored values' domain */
    PyArray_Descr *descr;         /* what the values mean (bounds, filter_values' dtype) */
    PyArray_Descr *storage_descr; /* what the kernels write for filter_values */
    PyObject *tz;                 /* tz-aware data: the zone (str); else NULL */
    sfpy_state *st;               /* the module's state, for what reads the column */
    size_t n;
    /* The caller's promise (assume_sorted=True) that the values ascend in
     * NumPy's sort order: queries read them through sf_sorted_source. */
    int sorted;
    /* Only the elements whose bit (bit j for position j, LSB first) is 1 are
     * read, every run's nulls replaced by it: the rows a frame query left
     * (_filter_indexes_where), with the column's own nulls ANDed in. NULL:
     * every element. Not owned. */
    const uint8_t *where;
    /* COLUMN_NUMPY */
    PyArrayObject *arr;
    PyArrayObject *mask; /* nonzero bytes are nulls; NULL: none */
    /* COLUMN_ARROW */
    sf_arrow_type arrow_type;
    struct ArrowArray *chunks; /* inline_chunks, or a PyMem block beyond them */
    size_t nchunks, chunk_room;
    /* Room for the chunks of most streams without an allocation (a PyMem_Realloc
     * per doubling cost a 16-element, 8-chunk call ~0.07 us). Last, and not
     * zeroed by sfpy_column_from: only chunks[0, nchunks) are ever read. */
    struct ArrowArray inline_chunks[COLUMN_INLINE_CHUNKS];
};

/* ---- column_hosts.c: the buffers behind pandas columns and numpy.ma arrays ---- */

/* Whether values' type comes from `package` (its module is package or
 * package.*), read from the type: no Python call. */
int sfpy_from_package(const sfpy_state *st, PyObject *values, const char *package);
/* The host ("pandas", "polars", "dask") of a frame (a DataFrame, a Polars
 * LazyFrame, or a subclass of one), *lazy set for a LazyFrame; or NULL. */
const char *sfpy_frame_host(const sfpy_state *st, PyObject *values, int *lazy);
/* A NumPy array of the values (`data`), a bool array of the same shape True at
 * nulls (`mask`, or None) and the zone of tz-aware instants (`tz`, a str, or
 * None); or, for an Arrow-backed pandas column, its pyarrow data (`arrow`,
 * the rest NULL). All owned: sfpy_buffers_release. */
typedef struct sfpy_buffers {
    PyObject *data, *mask, *tz, *arrow;
} sfpy_buffers;
/* 0, or -1 with an exception (what is left filled is for sfpy_buffers_release). */
int sfpy_unwrap_masked(PyObject *values, sfpy_buffers *b);
int sfpy_unwrap_pandas(sfpy_state *st, PyObject *values, sfpy_buffers *b);
void sfpy_buffers_release(sfpy_buffers *b);
/* filter_values' result on tz-aware data (`utc`, stolen: the kernels wrote
 * naive UTC datetime64, NumPy having no zone) in the kind of the column the
 * user gave (`source`), with its zone `tz`: a pandas extension array for a
 * pandas column (a DatetimeArray, or Arrow-backed for an Arrow dtype), a Polars
 * Series for a Polars one, a pyarrow array for any other Arrow producer (the
 * UTC datetime64 itself without pyarrow). NULL with an exception. */
PyObject *sfpy_zoned_values(const sfpy_state *st, PyObject *utc, PyObject *source, PyObject *tz);
/* _core._column_buffers(values): the buffers as ZoneMap reads them. */
extern PyMethodDef sfpy_column_methods[];

/* 0, or -1 with an exception (a TypeError naming what is supported; a frame,
 * pandas, Polars or Dask, is refused before anything is read). */
int sfpy_column_from(sfpy_state *st, PyObject *values, column *c);
/* At module init: the names column.c looks up, interned. 0 or -1. */
int sfpy_column_init(sfpy_state *st);
/* Whether the column holds times of day (Arrow time32/time64, Polars Time):
 * ticks since midnight, whose bounds are datetime.time. */
static inline int sfpy_time_of_day(const column *c) {
    return c->form == COLUMN_ARROW && c->arrow_type.kind == SF_ARROW_TIME;
}
void sfpy_column_release(column *c);
/* Whether [lo, hi) overlaps any memory the column's values or nulls live in. */
int sfpy_column_overlaps(const column *c, const char *lo, const char *hi);

/* ---- source_numpy.c: an ndarray (and its mask) as a source of runs ---- */

/* The library type of a supported dtype; -1 with a TypeError otherwise. */
int sfpy_classify_dtype(PyArray_Descr *d, sf_type *type);

typedef struct numpy_source {
    sf_source source;
    sf_run_source one; /* the array as one run, when one run covers it */
    /* The walk over rows, for any other layout. The axes are filled [0, nd). */
    const char *ptr, *mask_ptr;
    int nd;
    npy_intp shape[NPY_MAXDIMS], strides[NPY_MAXDIMS], mask_strides[NPY_MAXDIMS];
    npy_intp idx[NPY_MAXDIMS];
    size_t itemsize, size, row, rows, rows_done, per_batch;
    int byteswap;
    char *batch; /* rows copied together, when they are short (mask bytes after) */
} numpy_source;

/* The array (`size` elements) and its mask (may be NULL) as a source: one run
 * when one run covers the array, else a walk over its rows. A batch that
 * cannot be allocated means a run per row. Pair with sfpy_numpy_source_free. */
sf_source *sfpy_numpy_source_init(numpy_source *s, PyArrayObject *arr, PyArrayObject *mask,
                                  size_t size);
void sfpy_numpy_source_free(numpy_source *s);

/* ---- source_arrow.c: Arrow columns through the PyCapsule interface ---- */

/* Take the column out of __arrow_c_array__ (has_array) or __arrow_c_stream__. */
int sfpy_arrow_column(PyObject *values, int has_array, column *c);
void sfpy_arrow_release(column *c);
int sfpy_arrow_descrs(const sf_arrow_type *t, PyArray_Descr **meaning, PyArray_Descr **storage);

/* A source over either form of column; with the column's `where`, its runs
 * go through `rows`, which points their nulls at it. */
typedef struct column_source {
    union {
        numpy_source numpy;
        sf_arrow_source arrow;
    };
    sf_source rows;
    sf_source *inner;
    const uint8_t *where;
} column_source;
sf_source *sfpy_column_source(const column *c, column_source *s);
void sfpy_column_source_free(const column *c, column_source *s);
/* After a run over s (source_arrow.c): -1 with a ValueError if an Arrow chunk
 * was refused (its producer changed it after it was checked), so that nothing
 * the run did not write is taken as an answer; else 0. */
int sfpy_column_source_refused(const column *c, const column_source *s);

/* ---- refusals.c: a refused column in the user's terms ---- */

/* After sfpy_column_from failed with a TypeError: the error in the user's terms
 * (a frame, a column of strings) for the function `who`; any other error, or a
 * column with nothing to add, stays as it was. Always -1. */
int sfpy_column_refused(const sfpy_state *st, PyObject *values, const char *who);
/* _core._refused_column(values, function, strings=True), for ZoneMap and Dask. */
extern PyMethodDef sfpy_refusal_methods[];

/* ---- gil.c: running a query with the GIL released and Ctrl-C honoured ---- */

/* sf_execute for a call over `n` elements (fresh_out: out is a new array, as
 * sf_exec.fresh_out says; out_resident: its first bytes written before, as
 * sf_exec.out_resident says). Returns the number found, or -1 with an exception
 * (KeyboardInterrupt from Ctrl-C, or another a signal handler raised). */
Py_ssize_t sfpy_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
                        int threads, int fresh_out, size_t out_resident, size_t n);
/* The source a query `q` reads: the column's, narrowed by binary search
 * (`sorted`, with its room) when the column is marked sorted. */
sf_source *sfpy_query_source(const column *c, const sf_query *q, column_source *s,
                             sf_sorted_source *sorted);
/* The query over the column into out (room for `capacity` results), the GIL
 * released: the number found, or -1 with an exception. */
Py_ssize_t sfpy_run_column(const sf_query *q, const column *col, void *out, size_t capacity,
                           int threads, int fresh_out, size_t out_resident);

/* sf_filter_rows over n rows into outputs with room for `capacity` rows, one
 * thread, the GIL released (from as many rows as sfpy_execute releases it)
 * and Ctrl-C honoured: 0 with *found (rows past the capacity counted), or -1
 * with an exception. */
int sfpy_filter_rows(const sf_frame_range *where, size_t nwhere, size_t n,
                     const sf_take_column *cols, size_t ncols, void *positions, int wide,
                     size_t capacity, size_t *found);

/* ---- kernels_py.c: the kernel a call runs ---- */

/* The kernel of this context (a `with use_kernel(...)` block), or NULL for the
 * process default; (const sf_kernel *)-1 with an exception set. */
const sf_kernel *sfpy_context_kernel(const sfpy_state *st);
#define SFPY_KERNEL_ERROR ((const sf_kernel *)-1)
int sfpy_add_kernel_functions(PyObject *module);
extern PyMethodDef sfpy_kernel_methods[];

/* ---- packed_py.c: simdfilter.Packed's build, decoding and queries ---- */
extern PyMethodDef sfpy_packed_methods[];

/* ---- result_pool.c: fresh results' memory ---- */

/* Whether a result of `bytes` takes its memory from the arena. */
static inline int sfpy_poolable(size_t bytes) {
    return bytes >= SFPY_POOL_MIN;
}
/* The arena and the _ResultBuffer type, into st. 0 or -1 with an exception. */
int sfpy_pool_init(PyObject *module, sfpy_state *st);
/* Frees the arena (the module's end). */
void sfpy_pool_free(sfpy_state *st);
/* A chunk of the arena of at least `bytes`; *warm: how many of its first bytes
 * hold pages already (sf_arena_take's). NULL (no exception set) when no memory
 * can be had. */
void *sfpy_pool_take(sfpy_state *st, size_t bytes, sf_chunk **chunk, size_t *warm);
/* A chunk back to the arena, unused. */
void sfpy_pool_give(sfpy_state *st, sf_chunk *chunk);
/* Memory a call needs for itself (isin's ranges, 40 bytes an item): from the
 * arena from 1 MiB on (*chunk set), else PyMem_Malloc (*chunk NULL). NULL
 * with MemoryError. sfpy_scratch_give hands it back, `bytes` as taken. */
void *sfpy_scratch_take(sfpy_state *st, size_t bytes, sf_chunk **chunk);
void sfpy_scratch_give(sfpy_state *st, void *mem, sf_chunk *chunk, size_t bytes);
/* A 1-d array of k elements of descr over mem, the start of chunk, which it
 * owns from now on (back to the arena when the array and its views die);
 * NULL with an exception, the chunk given back. */
PyObject *sfpy_pool_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k, sf_chunk *chunk,
                          void *mem);
/* _core._result_pool(): what the arena holds, for tests and benchmarks. */
PyObject *sfpy_pool_stats(PyObject *module, PyObject *unused);
/* _core._release_result_pool(): gives every free page back to the OS; how
 * many slabs were unmapped. */
PyObject *sfpy_pool_release(PyObject *module, PyObject *unused);
/* _core.set_result_pool_limit(nbytes): the arena's idle limit; the previous. */
PyObject *sfpy_pool_set_limit(PyObject *module, PyObject *nbytes);

/* ---- arrays.c: the arrays results are made of ---- */

/* A new 1-d array of n elements of descr, from NumPy's allocator. */
static inline PyObject *sfpy_new_1d(PyArray_Descr *descr, npy_intp n) {
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    return PyArray_NewFromDescr(&PyArray_Type, descr, 1, &n, NULL, NULL, 0, NULL);
}
/* A new 1-d array of k elements of descr: over a pool buffer when large
 * (sfpy_poolable; *fresh 0 when its pages are mapped already), else NumPy's. */
PyObject *sfpy_new_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k, int *fresh);
/* out[:k], a view (new even when k is out's length). */
PyObject *sfpy_view_of_first(PyObject *out, Py_ssize_t k);
/* out (a 1-d array) itself when it has k elements, else out[:k]. */
PyObject *sfpy_first(PyObject *out, Py_ssize_t k);

/* ---- rows.c: the rows of a frame's columns at positions ---- */

/* _core._take_rows(columns, positions): a list of new arrays, column c's
 * elements at the positions (IndexError past the end). */
PyObject *sfpy_take_rows(PyObject *module, PyObject *args);
/* _core._filter_rows(queries, inclusive, columns, n, index_dtype, most=1.0): a
 * frame query's rows in one pass (sf_filter_rows): (positions, [taken
 * columns]), or None where a sample of its rows keeps more than `most` of them. */
PyObject *sfpy_filter_rows_py(PyObject *module, PyObject *args);

/* ---- within.c: the positions of within= ---- */

/* within as a contiguous uint32 array (when it is uint32) or an 8-byte one
 * (anything else), checked so far as it can be before the call (first >= 0,
 * last < n); NULL with IndexError/TypeError/ValueError otherwise. The query
 * points into it: keep it alive while the query runs. */
PyArrayObject *sfpy_within(PyObject *within, size_t n, sf_query *q);

/* ---- result.c: result arrays ---- */

/* The dtype of the results of `*op` (INDEX32 widened to INDEX64 as index_dtype,
 * out or within asks), NULL for count; checks `out` whole. 0 or -1 on error. */
int sfpy_result_type(sf_op *op, const call_args *a, const column *c, const sf_query *q,
                     PyArray_Descr **descr);
/* Run the query into out[:n] (a checked array), into a fresh exact-size array
 * (its memory from st's pool where result_pool.c says), or (count) into
 * nothing; `nonempty` 0 answers without running. */
PyObject *sfpy_result(sfpy_state *st, const sf_query *q, int nonempty, const column *c,
                      PyObject *out, PyArray_Descr *descr, int threads);
/* At most how many results the query can give: the column's length, or
 * within's. */
size_t sfpy_most_results(const sf_query *q, const column *c);
/* _core._FRESH_POOLED_MIN, _POOL_IDLE_MAX: the smallest and largest worst
 * cases (bytes) a fresh result takes a pool buffer for (result.c), for the
 * tests of those edges. */
int sfpy_add_result_constants(PyObject *m);

/* ---- masks_py.c: in_range's results ---- */

/* Arrow structs the binding hands to an importer (in_range's boolean arrays,
 * the Polars plugin's batches to Python). */
/* A buffer for `bytes` bytes, 64-byte aligned and padded to 64 (Arrow's
 * recommendation), the padding zeroed, for free(); NULL when out of memory. */
uint8_t *sfpy_bitmap_new(size_t bytes);
/* The release of an array whose buffers (any of them NULL) and buffer list
 * are its own, from malloc: frees them all. */
void sfpy_release_owned_array(struct ArrowArray *a);
/* The release of a schema that owns nothing: its strings are static, or live
 * as long as whatever lent them (a Polars export's field, a result's name). */
void sfpy_schema_release_nothing(struct ArrowSchema *s);
/* (arrow_schema, arrow_array) PyCapsules, as __arrow_c_array__ returns them,
 * over two malloc'd structs, which they own from now on: their destructors
 * release what the consumer did not move out and free() the structs. NULL
 * with an exception, both structs released and freed. */
PyObject *sfpy_capsule_pair(struct ArrowSchema *schema, struct ArrowArray *array);


/* SF_OP_MASK8: a bool array of the column's length, into out[:n] (a checked
 * array) or a fresh one; all False when `nonempty` is 0. */
PyObject *sfpy_mask8_result(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                            PyObject *out, PyArray_Descr *descr, int threads);
/* The column's validity into a new bitmap (free()), or NULL (and *nulls 0)
 * when no element is null; -1 with an exception (out of memory, or an Arrow
 * chunk refused: sfpy_column_source_refused). */
int sfpy_validity_of(const column *col, uint8_t **valid, int64_t *nulls);
/* SF_OP_BITS: an Arrow boolean array (values: in range and not null; validity:
 * the column's, when it has nulls) as the pair of PyCapsules
 * (arrow_schema, arrow_array) that __arrow_c_array__ returns. */
PyObject *sfpy_bits_result(const sf_query *q, int nonempty, const column *col, int threads);
/* SF_OP_BITS as _in_range_bits gives it: the values bitmap alone, a uint8
 * array of ceil(n / 8) bytes, into out[:ceil(n / 8)] (a checked array) or a
 * fresh one. */
PyObject *sfpy_bits_array(sfpy_state *st, const sf_query *q, int nonempty, const column *col,
                          PyObject *out, int threads);
/* _positions_of_bits: sf_bits_positions of bits[0, n) into a new array of
 * index_dtype. */
PyObject *sfpy_positions_of_bits(sfpy_state *st, PyObject *bits, Py_ssize_t n, PyObject *dtype);

#endif
