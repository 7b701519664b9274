/*
 * The GIL and Ctrl-C: a long call runs without the GIL, and the driver's
 * cancel callback takes it back between blocks to let Python's signal
 * handlers run (KeyboardInterrupt stops the call). A column's query is run
 * here too (sfpy_run_column), for result.c and masks_py.c alike.
 */
#include "binding.h"

/* Below this many elements the GIL is kept: releasing it costs more than the work. */
#define RELEASE_GIL_MIN ((size_t)1 << 13)

typedef struct gil_state {
    PyThreadState *released; /* non-NULL while this thread runs without the GIL */
} gil_state;

static int check_signals(void *ctx) {
    gil_state *g = (gil_state *)ctx;
    if (g->released)
        PyEval_RestoreThread(g->released);
    const int stop = PyErr_CheckSignals() < 0;
    g->released = stop || !g->released ? NULL : PyEval_SaveThread();
    return stop;
}

Py_ssize_t sfpy_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
                        int threads, int fresh_out, size_t out_resident, size_t n) {
    gil_state g = {NULL};
    const sf_exec opts = {threads, check_signals, &g, fresh_out, out_resident};
    size_t found = 0;
    if (n >= RELEASE_GIL_MIN)
        g.released = PyEval_SaveThread();
    const int rc = sf_execute(q, src, out, capacity, &opts, &found);
    if (g.released)
        PyEval_RestoreThread(g.released);
    switch (rc) {
    case SF_OK:
        return (Py_ssize_t)found;
    case SF_ECANCELLED: /* a signal handler's exception is already set */
        break;
    case SF_EUNSORTED:
        PyErr_SetString(PyExc_ValueError,
                        "within must be strictly ascending: sorted, without duplicates");
        break;
    case SF_EOUTOFBOUNDS:
        PyErr_Format(PyExc_IndexError, "within holds positions out of bounds for %zu elements",
                     n);
        break;
    default:
        PyErr_Format(PyExc_RuntimeError, "the %s kernel cannot run on this CPU",
                     q->kernel ? q->kernel->name : "active");
    }
    return -1;
}

/* ---- A column's query, run ---- */

sf_source *sfpy_query_source(const column *c, const sf_query *q, column_source *s,
                             sf_sorted_source *sorted) {
    sf_source *src = sfpy_column_source(c, s);
    /* A mask has a result for every element: never narrowed. */
    return c->sorted && src && !sf_op_is_mask(q->op)
               ? sf_sorted_source_ranges(sorted, src, c->type, &q->range, q->more, q->more_count,
                                         q->every)
               : src;
}

Py_ssize_t sfpy_run_column(const sf_query *q, const column *col, void *out, size_t capacity,
                           int threads, int fresh_out, size_t out_resident) {
    column_source storage;
    sf_sorted_source sorted;
    sf_source *src = sfpy_query_source(col, q, &storage, &sorted);
    const Py_ssize_t k = sfpy_execute(q, src, out, capacity, threads, fresh_out, out_resident, col->n);
    sfpy_column_source_free(col, &storage);
    /* A refused chunk ended the source: its elements were never written, and
     * a fresh result's memory (the arena's, reused unzeroed) would keep what
     * it held there. */
    return k >= 0 && sfpy_column_source_refused(col, &storage) < 0 ? -1 : k;
}

/* ---- A frame query's rows, taken (rows.c) ---- */

int sfpy_filter_rows(const sf_frame_range *where, size_t nwhere, size_t n,
                     const sf_take_column *cols, size_t ncols, void *positions, int wide,
                     size_t capacity, size_t *found) {
    gil_state g = {NULL};
    const sf_exec opts = {1, check_signals, &g, 0, 0};
    if (n >= RELEASE_GIL_MIN)
        g.released = PyEval_SaveThread();
    const int rc =
        sf_filter_rows(where, nwhere, n, cols, ncols, positions, wide, capacity, &opts, found);
    if (g.released)
        PyEval_RestoreThread(g.released);
    switch (rc) {
    case SF_OK:
        return 0;
    case SF_ECANCELLED: /* a signal handler's exception is already set */
        break;
    case SF_ENOMEM:
        PyErr_NoMemory();
        break;
    case SF_EUNSUPPORTED:
        PyErr_SetString(PyExc_RuntimeError, "the kernel asked for cannot run on this CPU");
        break;
    default:
        PyErr_SetString(PyExc_ValueError, "_filter_rows: the library refused the query");
    }
    return -1;
}
