/*
 * Contiguous, aligned, native-order input goes straight to the kernel. Anything
 * else (strided views, unaligned buffers, byte-swapped dtypes) is gathered in
 * small native chunks on the stack and each chunk is filtered with its base
 * position: the input is never copied whole and the kernels stay simple.
 *
 * Threads split the input into contiguous parts. Part p writes its results at
 * out + start(p), which is in bounds because a part never yields more results
 * than it has elements; the parts are then moved down into place, so stitching
 * costs a pass over the results, not over the input.
 */
#include "driver.h"

#include <pthread.h>
#include <string.h>

/* Elements per gathered chunk: 8 KiB for 64-bit data, L1-resident. */
#define GATHER_CHUNK 1024

size_t sf_job_result_size(const sf_job *job) {
    switch (job->op) {
    case SF_OP_INDEX32:
        return 4;
    case SF_OP_INDEX64:
        return 8;
    case SF_OP_VALUES:
        return sf_elem_size(job->kind);
    default:
        return 0;
    }
}

static size_t run_kernel(const sf_job *job, const void *x, size_t n, uint64_t base, void *out) {
    const sf_kernel *k = job->kernel;
    switch (job->op) {
    case SF_OP_INDEX32:
        return k->index32[job->kind](x, n, &job->range, (uint32_t)base, (uint32_t *)out);
    case SF_OP_INDEX64:
        return k->index64[job->kind](x, n, &job->range, base, (uint64_t *)out);
    case SF_OP_VALUES:
        return k->values[job->kind](x, n, &job->range, out);
    default:
        return k->count[job->kind](x, n, &job->range);
    }
}

static void gather(const char *src, ptrdiff_t stride, size_t n, size_t size, int swap,
                   unsigned char *dst) {
    /* Constant sizes let memcpy become single loads and stores; the byte order
     * and the dense case (a byte-swapped or unaligned contiguous array) are
     * decided outside the loops, so the compiler can vectorize those. */
#define GATHER_LOOP(T, STEP, FIX)                                                         \
    for (size_t i = 0; i < n; i++) {                                                     \
        T v;                                                                             \
        memcpy(&v, src + (ptrdiff_t)i * (STEP), sizeof v);                               \
        v = FIX(v);                                                                      \
        memcpy(dst + i * sizeof v, &v, sizeof v);                                        \
    }
#define GATHER_AS(T, SWAP)                                                               \
    if (stride == (ptrdiff_t)sizeof(T) && !swap)                                        \
        memcpy(dst, src, n * sizeof(T));                                                 \
    else if (stride == (ptrdiff_t)sizeof(T))                                            \
        GATHER_LOOP(T, (ptrdiff_t)sizeof(T), SWAP)                                      \
    else if (swap)                                                                       \
        GATHER_LOOP(T, stride, SWAP)                                                     \
    else                                                                                 \
        GATHER_LOOP(T, stride, KEEP)
#define KEEP(v) (v)
    switch (size) {
    case 1:
        GATHER_AS(uint8_t, KEEP)
        break;
    case 2:
        GATHER_AS(uint16_t, __builtin_bswap16)
        break;
    case 4:
        GATHER_AS(uint32_t, __builtin_bswap32)
        break;
    default:
        GATHER_AS(uint64_t, __builtin_bswap64)
        break;
    }
#undef KEEP
#undef GATHER_AS
#undef GATHER_LOOP
}

static int is_direct(const sf_job *job) {
    size_t size = sf_elem_size(job->kind);
    return !job->byteswap && job->stride == (ptrdiff_t)size &&
           ((uintptr_t)job->data % size) == 0;
}

/* One thread's share: the whole job, or one part of it. */
static size_t run_serial(const sf_job *job, void *out) {
    if (is_direct(job))
        return run_kernel(job, job->data, job->n, job->base, out);

    const size_t size = sf_elem_size(job->kind), rsize = sf_job_result_size(job);
    uint64_t buf[GATHER_CHUNK]; /* 64-bit words: aligned for every kind */
    unsigned char *cursor = (unsigned char *)out;
    size_t total = 0;
    for (size_t done = 0; done < job->n; done += GATHER_CHUNK) {
        size_t m = job->n - done < GATHER_CHUNK ? job->n - done : GATHER_CHUNK;
        gather(job->data + (ptrdiff_t)done * job->stride, job->stride, m, size, job->byteswap,
               (unsigned char *)buf);
        size_t got = run_kernel(job, buf, m, job->base + done, cursor);
        if (cursor) /* count passes no output: no arithmetic on NULL */
            cursor += got * rsize;
        total += got;
    }
    return total;
}

typedef struct part {
    sf_job job;
    void *out;
    size_t found;
} part;

static void *run_part(void *arg) {
    part *p = (part *)arg;
    p->found = run_serial(&p->job, p->out);
    return NULL;
}

#define MAX_THREADS 256

size_t sf_job_run(const sf_job *job, void *out, int threads) {
    size_t want = threads > 1 ? (size_t)threads : 1;
    if (want > MAX_THREADS)
        want = MAX_THREADS;
    if (want > job->n / SF_MIN_ELEMENTS_PER_THREAD)
        want = job->n / SF_MIN_ELEMENTS_PER_THREAD;
    if (want <= 1)
        return run_serial(job, out);

    part parts[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS];
    const size_t rsize = sf_job_result_size(job);
    /* Part boundaries on multiples of 64 elements keep every vector loop whole
     * but the last. Rounding ceil(n / want) up keeps the parts at most `want`. */
    size_t per = ((job->n + want - 1) / want + 63) & ~(size_t)63;
    size_t nparts = 0;
    for (size_t start = 0; start < job->n; start += per, nparts++) {
        part *p = &parts[nparts];
        p->job = *job;
        p->job.data = job->data + (ptrdiff_t)start * job->stride;
        p->job.n = job->n - start < per ? job->n - start : per;
        p->job.base = job->base + start;
        p->out = out ? (unsigned char *)out + start * rsize : NULL;
        p->found = 0;
    }
    /* The calling thread takes part 0 itself. */
    for (size_t i = 1; i < nparts; i++)
        started[i] = pthread_create(&tids[i], NULL, run_part, &parts[i]) == 0;
    run_part(&parts[0]);
    for (size_t i = 1; i < nparts; i++) {
        if (started[i])
            pthread_join(tids[i], NULL);
        else
            run_part(&parts[i]); /* no thread to be had: do it here */
    }

    size_t total = parts[0].found;
    for (size_t i = 1; i < nparts; i++) {
        if (rsize && parts[i].found)
            memmove((unsigned char *)out + total * rsize, parts[i].out, parts[i].found * rsize);
        total += parts[i].found;
    }
    return total;
}

size_t sf_job_run_bounded(const sf_job *job, void *out, size_t capacity, int threads) {
    if (capacity >= job->n || job->op == SF_OP_COUNT)
        return sf_job_run(job, out, threads);
    const size_t rsize = sf_job_result_size(job);
    uint64_t stage[GATHER_CHUNK];
    unsigned char *cursor = (unsigned char *)out;
    size_t total = 0;
    for (size_t done = 0; done < job->n; done += GATHER_CHUNK) {
        sf_job part = *job;
        part.data = job->data + (ptrdiff_t)done * job->stride;
        part.n = job->n - done < GATHER_CHUNK ? job->n - done : GATHER_CHUNK;
        part.base = job->base + done;
        size_t got = run_serial(&part, stage);
        size_t room = total < capacity ? capacity - total : 0;
        size_t copy = got < room ? got : room;
        memcpy(cursor, stage, copy * rsize);
        cursor += copy * rsize;
        total += got;
    }
    return total;
}
