/*
 * The result pool: memory of fresh results that died, kept for the next call.
 *
 * Why: a fresh result is new memory, and new memory is page faults: the OS
 * maps and zeroes each 4 KiB page on its first write, which cost a fresh result
 * 3-10x the same call into `out=` (issue 31). malloc does not help past its
 * mmap threshold, where a freed block goes back to the OS and the next one is
 * faulted again. So a result of the pool's sizes is an array over a pool
 * buffer, owned by a small `_ResultBuffer` object (the array's base). When the
 * last array or view over it dies, the buffer goes back to the module's pool,
 * its pages still mapped, and the next call writes into them without a fault.
 *
 * Measured on the 2-core AMD EPYC Zen 4 KVM (family 25 model 17, avx2 kernel),
 * benchmarks/fresh_process.py, the first 60 calls of a fresh process, uint32
 * positions, minor faults per call before the pool -> with it: THP never, 1 Mi
 * 90% 76.5 -> 30.8, 16 Mi 90% 14748 -> 492, 16 Mi 10% 1642 -> 82; THP
 * madvise, 1 Mi 90% 76.5 -> 0.1, 16 Mi 90% 372 -> 1.1. CPU time against
 * out= at 16 Mi 50-99%: 4.3-7.4x -> 1.23-1.29x (never), 2.4-2.7x ->
 * 1.06-1.91x (madvise). What is left is the first calls' faults: a loop
 * `r = f(...)` keeps the last result alive while the next call runs, so two
 * buffers are faulted once each (1.6-1.8 us per 4 KiB page here).
 *
 * What it holds: at most SFPY_POOL_SLOTS idle buffers, which may have written
 * (hence mapped) SFPY_POOL_IDLE_MAX bytes in all; the oldest idle buffer is
 * freed first. Buffers of live results
 * are the caller's, not counted. Everything is touched with the GIL held (the kernels
 * never see the pool), and each module object has its own pool (module state).
 */
#include "binding.h"

#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* Sizes are rounded up to this, so that calls of nearby sizes share buffers. */
#define POOL_GRAIN ((size_t)64 << 10)

typedef struct result_buffer {
    PyObject_HEAD
    sfpy_buffer buf;
} result_buffer;

/* How far past its results a call may write into a buffer: the kernels store
 * whole vectors, and threads fault a fresh output ahead of their copies
 * (team.c's 2 MiB stretch). Only for the pool's count of written bytes. */
#define SFPY_POOL_WRITE_SLACK (((size_t)2 << 20) + 4096)

/* Huge pages: buffers of HUGE_MIN bytes and more are aligned to 2 MiB and
 * advised MADV_HUGEPAGE (as NumPy's allocator advises arrays of 4 MiB and
 * more), so that where THP is `madvise` each 2 MiB is faulted at once. On the
 * 2-core AMD EPYC Zen 4 KVM (family 25 model 17), first touch of 4 MiB took
 * 1.6-1.8 ms in 4 KiB pages and 0.14-0.40 ms in huge pages (after the first,
 * which paid 15 ms for compaction). Advice only: where it fails, or THP is
 * `never`, nothing changes. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN ((size_t)2 << 20)

static void *pool_alloc(size_t bytes) {
    if (bytes == 0)
        bytes = 1;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_MIN) {
        void *mem = NULL;
        if (posix_memalign(&mem, HUGE_PAGE, bytes) != 0)
            return NULL;
        (void)madvise(mem, bytes, MADV_HUGEPAGE);
        return mem;
    }
#endif
    return malloc(bytes);
}

static void pool_free(void *mem) {
    free(mem);
}

/* Idle buffer i out of the pool (its memory is the caller's now). */
static sfpy_buffer pool_remove(sfpy_pool *p, int i) {
    const sfpy_buffer b = p->idle[i];
    p->touched -= b.touched;
    p->count--;
    for (; i < p->count; i++)
        p->idle[i] = p->idle[i + 1];
    return b;
}

static void pool_release_oldest(sfpy_pool *p) {
    pool_free(pool_remove(p, 0).mem);
}

void sfpy_buffer_wrote(sfpy_buffer *b, size_t used) {
    const size_t reach = b->bytes < SFPY_POOL_WRITE_SLACK || used > b->bytes - SFPY_POOL_WRITE_SLACK
                             ? b->bytes
                             : used + SFPY_POOL_WRITE_SLACK;
    if (reach > b->touched)
        b->touched = reach;
}

/* The idle limit counts written bytes, not sizes: a worst-case buffer a call
 * wrote 10 % of holds 10 % of its size in memory, the rest never mapped. */
void sfpy_pool_give(sfpy_state *st, const sfpy_buffer *b) {
    sfpy_pool *p = &st->pool;
    if (b->touched > SFPY_POOL_IDLE_MAX || b->bytes > SFPY_POOL_IDLE_MAX) {
        pool_free(b->mem);
        return;
    }
    while (p->count == SFPY_POOL_SLOTS || p->touched + b->touched > SFPY_POOL_IDLE_MAX)
        pool_release_oldest(p);
    p->idle[p->count++] = *b;
    p->touched += b->touched;
}

int sfpy_pool_take(sfpy_state *st, size_t need, size_t most, sfpy_buffer *b) {
    sfpy_pool *p = &st->pool;
    int best = -1;
    for (int i = 0; i < p->count; i++)
        if (p->idle[i].bytes >= need && p->idle[i].bytes <= most &&
            (best < 0 || p->idle[i].bytes < p->idle[best].bytes))
            best = i;
    if (best >= 0) {
        *b = pool_remove(p, best);
        b->fresh = 0;
        return 0;
    }
    const size_t rounded = (need + POOL_GRAIN - 1) / POOL_GRAIN * POOL_GRAIN;
    b->bytes = rounded >= need && rounded <= most ? rounded : need;
    b->touched = 0;
    b->fresh = 1;
    b->mem = pool_alloc(b->bytes);
    return b->mem ? 0 : -1;
}

void sfpy_pool_free(sfpy_state *st) {
    while (st->pool.count)
        pool_release_oldest(&st->pool);
}

static void result_buffer_dealloc(PyObject *self) {
    result_buffer *b = (result_buffer *)self;
    PyTypeObject *type = Py_TYPE(self);
    /* The type holds its module, so the state outlives every buffer. */
    sfpy_state *st = (sfpy_state *)PyType_GetModuleState(type);
    if (b->buf.mem) {
        if (st)
            sfpy_pool_give(st, &b->buf);
        else
            pool_free(b->buf.mem);
    }
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

static PyType_Spec result_buffer_spec = {
    "simdfilter._core._ResultBuffer",
    sizeof(result_buffer),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    result_buffer_slots,
};

int sfpy_pool_init(PyObject *module, sfpy_state *st) {
    st->result_buffer_type = PyType_FromModuleAndSpec(module, &result_buffer_spec, NULL);
    return st->result_buffer_type &&
                   PyModule_AddObjectRef(module, "_ResultBuffer", st->result_buffer_type) == 0
               ? 0
               : -1;
}

PyObject *sfpy_pool_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k,
                          const sfpy_buffer *b) {
    PyTypeObject *type = (PyTypeObject *)st->result_buffer_type;
    result_buffer *owner = PyObject_New(result_buffer, type);
    if (!owner) {
        sfpy_pool_give(st, b);
        return NULL;
    }
    owner->buf = *b;
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, 1, &k, NULL, b->mem,
                                         NPY_ARRAY_CARRAY, NULL);
    if (!arr) {
        Py_DECREF(owner); /* gives the buffer back */
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
    const sfpy_pool *p = &sfpy_state_of(module)->pool;
    size_t bytes = 0;
    PyObject *idle = PyList_New(p->count);
    if (!idle)
        return NULL;
    for (int i = 0; i < p->count; i++) {
        bytes += p->idle[i].bytes;
        PyObject *pair = Py_BuildValue("(nn)", (Py_ssize_t)p->idle[i].bytes,
                                       (Py_ssize_t)p->idle[i].touched);
        if (!pair) {
            Py_DECREF(idle);
            return NULL;
        }
        PyList_SET_ITEM(idle, i, pair);
    }
    return Py_BuildValue("{s:i,s:n,s:n,s:n,s:i,s:N}", "buffers", p->count, "idle_bytes",
                         (Py_ssize_t)bytes, "idle_written", (Py_ssize_t)p->touched, "idle_max",
                         (Py_ssize_t)SFPY_POOL_IDLE_MAX, "slots", SFPY_POOL_SLOTS, "idle", idle);
}

PyObject *sfpy_pool_release(PyObject *module, PyObject *unused) {
    (void)unused;
    sfpy_state *st = sfpy_state_of(module);
    const int count = st->pool.count;
    sfpy_pool_free(st);
    return PyLong_FromLong(count);
}
