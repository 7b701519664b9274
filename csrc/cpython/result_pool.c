/*
 * The result pool: fresh results' memory from the module's arena (arena.h),
 * each array owning its chunk through a small `_ResultBuffer` (the array's
 * base). When the last array or view over it dies, the chunk goes back to the
 * arena with its pages still mapped, and the next call, of any size, writes
 * into them without a fault. Everything here runs with the GIL held; each
 * module object has its own arena (module state).
 */
#include "binding.h"

typedef struct result_buffer {
    PyObject_HEAD
    sf_chunk *chunk;
} result_buffer;

int sfpy_pool_init(PyObject *module, sfpy_state *st);

static void result_buffer_dealloc(PyObject *self) {
    result_buffer *b = (result_buffer *)self;
    PyTypeObject *type = Py_TYPE(self);
    /* The type holds its module, so the state (and its arena) outlives every
     * buffer. */
    sfpy_state *st = (sfpy_state *)PyType_GetModuleState(type);
    if (b->chunk && st && st->arena)
        sf_arena_give(st->arena, b->chunk);
    type->tp_free(self);
    Py_DECREF(type);
}

static PyType_Slot result_buffer_slots[] = {
    {Py_tp_dealloc, (void *)result_buffer_dealloc},
    {Py_tp_doc, (void *)"The memory of a fresh simdfilter result (the array's base): when the "
                        "last array over it dies, it goes back to the module's pool for the "
                        "next call."},
    {0, NULL},
};

/* CPython 3.9 has no Py_TPFLAGS_DISALLOW_INSTANTIATION (3.10): there the
 * type's tp_new is cleared once it is made, which is what the flag does. */
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
#define SFPY_DISALLOW_INSTANTIATION Py_TPFLAGS_DISALLOW_INSTANTIATION
#else
#define SFPY_DISALLOW_INSTANTIATION 0
#endif

static PyType_Spec result_buffer_spec = {
    "simdfilter._core._ResultBuffer",
    sizeof(result_buffer),
    0,
    Py_TPFLAGS_DEFAULT | SFPY_DISALLOW_INSTANTIATION,
    result_buffer_slots,
};

int sfpy_pool_init(PyObject *module, sfpy_state *st) {
    st->arena = sf_arena_new(SFPY_POOL_IDLE_MAX);
    if (!st->arena) {
        PyErr_NoMemory();
        return -1;
    }
    st->result_buffer_type = PyType_FromModuleAndSpec(module, &result_buffer_spec, NULL);
    if (!st->result_buffer_type)
        return -1;
#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
    ((PyTypeObject *)st->result_buffer_type)->tp_new = NULL;
#endif
    /* PyModule_AddObjectRef is 3.10's: its 3.9 spelling. */
    Py_INCREF(st->result_buffer_type);
    if (PyModule_AddObject(module, "_ResultBuffer", st->result_buffer_type) < 0) {
        Py_DECREF(st->result_buffer_type);
        return -1;
    }
    return 0;
}

void sfpy_pool_free(sfpy_state *st) {
    sf_arena_free(st->arena);
    st->arena = NULL;
}

void *sfpy_pool_take(sfpy_state *st, size_t bytes, sf_chunk **chunk, size_t *warm) {
    *warm = 0;
    return st->arena ? sf_arena_take(st->arena, bytes, chunk, warm) : NULL;
}

void sfpy_pool_give(sfpy_state *st, sf_chunk *chunk) {
    sf_arena_give(st->arena, chunk);
}

/* From here on a call's own memory comes from the arena: its slabs of 4 MiB
 * and more are advised huge pages, and a dead call's pages serve the next.
 * isin with 10^6 int64 items (40 MB of ranges) took 31.6 ms to resolve its
 * items from malloc's fresh 4 KiB pages, 16.4 with huge pages (AMD EPYC Zen 3,
 * family 25 model 1). */
#define SCRATCH_ARENA_MIN ((size_t)1 << 20)

void *sfpy_scratch_take(sfpy_state *st, size_t bytes, sf_chunk **chunk) {
    size_t warm;
    *chunk = NULL;
    void *mem = bytes >= SCRATCH_ARENA_MIN ? sfpy_pool_take(st, bytes, chunk, &warm) : NULL;
    if (!mem && !(mem = PyMem_Malloc(bytes ? bytes : 1)))
        PyErr_NoMemory();
    return mem;
}

void sfpy_scratch_give(sfpy_state *st, void *mem, sf_chunk *chunk, size_t bytes) {
    if (!chunk) {
        PyMem_Free(mem);
        return;
    }
    sf_arena_shrink(st->arena, chunk, bytes, bytes); /* its pages are written */
    sf_arena_give(st->arena, chunk);
}

PyObject *sfpy_pool_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k, sf_chunk *chunk,
                          void *mem) {
    PyTypeObject *type = (PyTypeObject *)st->result_buffer_type;
    result_buffer *owner = PyObject_New(result_buffer, type);
    if (!owner) {
        sf_arena_give(st->arena, chunk);
        return NULL;
    }
    owner->chunk = chunk;
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    PyObject *arr =
        PyArray_NewFromDescr(&PyArray_Type, descr, 1, &k, NULL, mem, NPY_ARRAY_CARRAY, NULL);
    if (!arr) {
        Py_DECREF(owner); /* gives the chunk back */
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)owner) < 0) {
        Py_DECREF(arr); /* owner was taken and released by the failure */
        return NULL;
    }
    return arr;
}

PyObject *sfpy_pool_stats(PyObject *module, PyObject *unused) {
    (void)unused;
    const sf_arena_stats s = sf_arena_stats_of(sfpy_state_of(module)->arena);
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "slabs", (Py_ssize_t)s.slabs,
                         "mapped", (Py_ssize_t)s.mapped, "live", (Py_ssize_t)s.live, "free",
                         (Py_ssize_t)s.free, "idle_resident", (Py_ssize_t)s.idle_resident,
                         "idle_max", (Py_ssize_t)s.idle_max, "largest_free",
                         (Py_ssize_t)s.largest_free, "free_bytes", (Py_ssize_t)s.free_bytes);
}

PyObject *sfpy_pool_release(PyObject *module, PyObject *unused) {
    (void)unused;
    return PyLong_FromSize_t(sf_arena_release(sfpy_state_of(module)->arena));
}

PyObject *sfpy_pool_set_limit(PyObject *module, PyObject *nbytes) {
    /* operator.index: ints and NumPy integers; a float such as 1e9 is refused,
     * as range() refuses it. */
    PyObject *count = PyNumber_Index(nbytes);
    if (!count) {
        PyErr_Format(PyExc_TypeError,
                     "set_result_pool_limit takes an integer number of bytes, not %.200s",
                     Py_TYPE(nbytes)->tp_name);
        return NULL;
    }
    const Py_ssize_t limit = PyLong_AsSsize_t(count);
    Py_DECREF(count);
    if (limit < 0) {
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError,
                         "set_result_pool_limit takes a number of bytes from 0 to %zd, not %R",
                         PY_SSIZE_T_MAX, nbytes);
        }
        return NULL;
    }
    sf_arena *arena = sfpy_state_of(module)->arena;
    const size_t previous = sf_arena_stats_of(arena).idle_max;
    sf_arena_set_idle_max(arena, (size_t)limit);
    return PyLong_FromSize_t(previous);
}
