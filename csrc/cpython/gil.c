/*
 * The GIL and Ctrl-C: a long call runs without the GIL, and the driver's
 * cancel callback takes it back between blocks to let Python's signal
 * handlers run (KeyboardInterrupt stops the call).
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
