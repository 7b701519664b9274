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
 * What it holds: at most SFPY_POOL_SLOTS idle buffers and SFPY_POOL_IDLE_MAX
 * idle bytes; the oldest idle buffer is freed first. Buffers of live results
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
    void *mem;
    size_t bytes;
} result_buffer;

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
static void *pool_remove(sfpy_pool *p, int i) {
    void *mem = p->mem[i];
    p->idle -= p->bytes[i];
    p->count--;
    for (; i < p->count; i++) {
        p->mem[i] = p->mem[i + 1];
        p->bytes[i] = p->bytes[i + 1];
    }
    return mem;
}

static void pool_release_oldest(sfpy_pool *p) {
    pool_free(pool_remove(p, 0));
}

void sfpy_pool_give(sfpy_state *st, void *mem, size_t bytes) {
    sfpy_pool *p = &st->pool;
    if (bytes > SFPY_POOL_IDLE_MAX) {
        pool_free(mem);
        return;
    }
    while (p->count == SFPY_POOL_SLOTS || p->idle + bytes > SFPY_POOL_IDLE_MAX)
        pool_release_oldest(p);
    p->mem[p->count] = mem;
    p->bytes[p->count] = bytes;
    p->count++;
    p->idle += bytes;
}

void *sfpy_pool_take(sfpy_state *st, size_t need, size_t most, size_t *bytes, int *fresh) {
    sfpy_pool *p = &st->pool;
    int best = -1;
    for (int i = 0; i < p->count; i++)
        if (p->bytes[i] >= need && p->bytes[i] <= most &&
            (best < 0 || p->bytes[i] < p->bytes[best]))
            best = i;
    if (best >= 0) {
        *bytes = p->bytes[best];
        *fresh = 0;
        return pool_remove(p, best);
    }
    const size_t rounded = (need + POOL_GRAIN - 1) / POOL_GRAIN * POOL_GRAIN;
    *bytes = rounded >= need && rounded <= most ? rounded : need;
    *fresh = 1;
    return pool_alloc(*bytes);
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
    if (b->mem) {
        if (st)
            sfpy_pool_give(st, b->mem, b->bytes);
        else
            pool_free(b->mem);
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

PyObject *sfpy_pool_array(sfpy_state *st, PyArray_Descr *descr, npy_intp k, void *mem,
                          size_t bytes) {
    PyTypeObject *type = (PyTypeObject *)st->result_buffer_type;
    result_buffer *owner = PyObject_New(result_buffer, type);
    if (!owner) {
        sfpy_pool_give(st, mem, bytes);
        return NULL;
    }
    owner->mem = mem;
    owner->bytes = bytes;
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, 1, &k, NULL, mem,
                                         NPY_ARRAY_CARRAY, NULL);
    if (!arr) {
        Py_DECREF(owner); /* gives mem back */
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
    return Py_BuildValue("{s:i,s:n,s:n,s:i}", "buffers", p->count, "idle_bytes",
                         (Py_ssize_t)p->idle, "idle_max", (Py_ssize_t)SFPY_POOL_IDLE_MAX,
                         "slots", SFPY_POOL_SLOTS);
}
