/*
 * A run on several threads: a team. The run is cut into blocks of
 * SF_THREAD_BLOCK elements that the threads claim in order from a shared
 * counter, so that a thread on a busy core simply takes fewer. Each block is
 * filtered into a buffer of its thread's (in cache), its count published, and
 * its results copied once, straight to their final place, as soon as every
 * block before it is counted: positions stay global and ascending, the same
 * for every thread count and schedule; the pages of a fresh result are faulted
 * in by the threads that fill them, a 2 MiB stretch ahead of the results
 * (fault_ahead). The threads start once per run (lib/threads.c) and poll the
 * cancel callback from the calling thread only.
 */
#define _DEFAULT_SOURCE /* nanosleep, madvise */
#include "library.h"

#include <time.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h> /* SSE2, the x86-64 baseline: streaming stores */
#endif
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's value; headers before glibc 2.35 lack it */
#endif
#endif

/* Elements of one block a thread claims at a time. Small enough that a thread
 * on a busy core takes fewer of them and the last one ends soon after the
 * others (32 Ki uint32 elements: ~15 us of work from DRAM on one Zen 3 core),
 * and that a block's input and its results (at most 256 KiB each, for 8-byte
 * elements or positions) stay in L2 (512 KiB per core on Zen 3, 1-2 MiB on
 * newer CPUs) between the kernel and the copy to their final place; large
 * enough that claiming one (an atomic add, a look back at the block before)
 * stays under 1% of its work. Blocks of 256 Ki would make the claims 8x
 * rarer, but put 1-2 MiB of results through the cache per block. A multiple
 * of 64, so that every block's vector loops and byte-aligned bitmaps stay
 * whole. Overridable at compile time for measurements only. */
#ifndef SF_THREAD_BLOCK
#define SF_THREAD_BLOCK ((size_t)1 << 15)
#endif

/* Bytes of results a thread may hold filtered but not yet placed (a buffer per
 * block) before it waits for the blocks ahead of them: when another thread is
 * parked by the OS in the middle of a block, the others go on for up to this
 * much (64 MiB: 512 blocks of uint32 positions, 8 Mi elements ahead) instead
 * of waiting for it. Memory only a stalled call uses. */
#define HELD_BYTES ((size_t)64 << 20)

/* What every thread knows about block j, each field written once. */
typedef struct block_state {
    atomic_size_t count; /* 1 + its results once filtered; 0 before */
    atomic_size_t end;   /* 1 + the offset just past its results once placed; 0 before */
} block_state;

typedef struct pending {
    size_t block, count;
    unsigned char *buf;
} pending;

/* A thread's blocks filtered but not yet placed (waiting for a block ahead),
 * and its buffers. What is still held when the thread ends, the calling thread
 * places after the join. */
typedef struct worker {
    pending *held; /* ascending; room for `cap` */
    size_t nheld, cap;
    unsigned char **spare; /* allocated buffers not in use; room for cap + 1 */
    size_t nspare;
} worker;

typedef struct team {
    const sf_plan *p;
    const sf_run *run;
    unsigned char *out;  /* where result 0 of the run goes; NULL for count */
    size_t room;         /* results that fit in out: the rest are counted only */
    size_t nblocks;
    block_state *blocks; /* NULL for count and the masks (written in place) */
    unsigned char *scratch0; /* the calling thread's block buffer, allocated up front */
    size_t scratch_bytes;
    const sf_exec *x;
    atomic_size_t next;    /* the next block to claim */
    atomic_int stop;       /* the cancel callback said stop: claim no more */
    atomic_size_t counted; /* count: results of the blocks done */
    int cancelled;         /* set by the calling thread only */
    worker *workers;       /* one per thread, for what it holds at its end */
    size_t page;           /* fault-ahead: the OS page size, 0 for none (see fault_ahead) */
    int stream;            /* place results with streaming stores (see place_copy) */
    size_t resident;       /* bytes at out's start written before: all of it but for a
                              fresh output (sf_exec.out_resident) */
    atomic_size_t faulted; /* fault-ahead: 1 + the last stretch populated, 0 before */
} team;

/*
 * A fresh output's pages are faulted in, and zeroed by the OS, at their first
 * write: a 2 MiB huge page at once where NumPy asked for them. Threads placing
 * consecutive blocks write into the same page, so while one takes the fault
 * the other waits for it, and the zeroing is as serial as on one thread: on
 * the 2-core Intel Xeon (Sapphire Rapids class) KVM, uint32, 64 Mi, 50% kept,
 * a fresh result cost 10.6 ms more than out= on one thread and 11.4 ms more
 * on two, where filling 128 MiB of fresh pages from two threads, each its own
 * half, took 13.3 ms against 23.4 on one. So the block that first reaches
 * into a 2 MiB stretch of a fresh output has its thread populate the next
 * stretch (MADV_POPULATE_WRITE: the pages are faulted in and what they hold is
 * kept, so a block another thread is copying there is not touched), and that
 * fault is taken while the other thread goes on: 11.4 -> 5.3 ms more than out=
 * on two threads. At most one stretch past the results is populated; before
 * Linux 5.14 the madvise fails and nothing is (lib/threads.c then keeps fresh
 * outputs on one thread longer).
 */
#define FAULT_AHEAD_BYTES ((size_t)2 << 20)
/* Only a block that kept at least 1/16 of its elements populates ahead: below
 * that the results reach a new stretch seldom (every 2 MiB of uint32
 * positions is 8 Mi elements at 6%), their faults cost little, and a stretch
 * populated past the last result is memory for nothing (on a 1e8-element int64
 * column, 0.9% kept, 2.8 MiB more peak RSS next to a 3.4 MiB result). */
#define FAULT_AHEAD_MIN_KEPT (SF_THREAD_BLOCK / 16)

static void fault_ahead(team *t, size_t end) {
#ifdef __linux__
    const uintptr_t lo = (uintptr_t)t->out, hi = lo + t->room * t->p->rsize;
    const size_t next = (lo + end * t->p->rsize) / FAULT_AHEAD_BYTES + 1;
    size_t faulted = atomic_load_explicit(&t->faulted, memory_order_relaxed);
    while (faulted < next + 1)
        if (atomic_compare_exchange_weak_explicit(&t->faulted, &faulted, next + 1,
                                                  memory_order_relaxed, memory_order_relaxed)) {
            uintptr_t from = next * FAULT_AHEAD_BYTES, to = from + FAULT_AHEAD_BYTES;
            from = from < lo + t->resident ? lo + t->resident : from; /* fresh pages only */
            to = to > hi ? hi : to;
            from = (from + t->page - 1) / t->page * t->page; /* whole pages of the output */
            to = to / t->page * t->page;
            if (from < to)
                (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE); /* a hint */
            return;
        }
#else
    (void)t, (void)end;
#endif
}

/* Where block j's first result goes, once every block before it has been
 * filtered: look back over the blocks whose counts are known to the nearest
 * one already placed. 0 if some block before j is still being filtered. */
static int offset_of(team *t, size_t j, size_t *at) {
    size_t sum = 0;
    for (size_t i = j; i-- > 0;) {
        const size_t end = atomic_load_explicit(&t->blocks[i].end, memory_order_acquire);
        if (end) {
            *at = end - 1 + sum;
            return 1;
        }
        const size_t count = atomic_load_explicit(&t->blocks[i].count, memory_order_acquire);
        if (!count)
            return 0;
        sum += count - 1;
    }
    *at = sum;
    return 1;
}

/*
 * A block's results to their final place. Into a large out= (not a fresh
 * output) with streaming stores on x86-64 (SSE2, the baseline): a plain copy
 * reads every destination line before writing it, a third of the memory
 * traffic of a filter at 50% kept. On the 2-core Intel Xeon (Sapphire Rapids
 * class) KVM, uint32, two threads, out=, memcpy time over streaming time:
 * 64 Mi 1.07 / 1.23 / 1.37 at 10 / 50 / 90% kept, 16 Mi 0.98 / 1.23 / 1.44.
 * Not into a fresh output's fresh pages: there the fault-ahead has just zeroed
 * the lines through the cache, and streaming over them measured 0.77-0.97x.
 * A recycled output's pages written before (sf_exec.out_resident) are an out=
 * output's: on the 2-core AMD EPYC Zen 4 (family 25 model 17) KVM, 64 Mi
 * uint32 and int64 positions, two threads, a fresh result from the pool with
 * its limit raised cost 1.24-1.39x out= at 50-99% kept while it was not
 * streamed (benchmarks/run.py's fresh_ratio, quiet). Only from
 * STREAM_MIN_BYTES of output room, more than the last-level caches the
 * results could otherwise stay in for their reader, and for copies of 4 KiB
 * or more.
 */
#define STREAM_MIN_BYTES ((size_t)64 << 20)

static void place_copy(const team *t, unsigned char *dst, const unsigned char *src, size_t bytes) {
#if defined(__x86_64__) || defined(_M_X64)
    const size_t head = (size_t)(-(uintptr_t)dst & 15);
    if (t->stream && bytes >= 4096 && (size_t)(dst - t->out) + bytes <= t->resident) {
        memcpy(dst, src, head);
        dst += head, src += head, bytes -= head;
        for (; bytes >= 64; dst += 64, src += 64, bytes -= 64) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)src);
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(src + 16));
            const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(src + 32));
            const __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(src + 48));
            _mm_stream_si128((__m128i *)(void *)dst, a);
            _mm_stream_si128((__m128i *)(void *)(dst + 16), b);
            _mm_stream_si128((__m128i *)(void *)(dst + 32), c);
            _mm_stream_si128((__m128i *)(void *)(dst + 48), d);
        }
        memcpy(dst, src, bytes);
        _mm_sfence(); /* streaming stores are weakly ordered: done before the block is */
        return;
    }
#else
    (void)t;
#endif
    memcpy(dst, src, bytes);
}

/* Copy block j's c results from buf to their final place, if it is known yet.
 * Destinations of different blocks are disjoint, and nothing past the room is
 * written. */
static int place(team *t, size_t j, const unsigned char *buf, size_t c) {
    size_t at;
    if (!offset_of(t, j, &at))
        return 0;
    atomic_store_explicit(&t->blocks[j].end, at + c + 1, memory_order_release);
    if (at < t->room && c) {
        const size_t m = c < t->room - at ? c : t->room - at;
        place_copy(t, t->out + at * t->p->rsize, buf, m * t->p->rsize);
        if (t->page && c >= FAULT_AHEAD_MIN_KEPT)
            fault_ahead(t, at + m);
    }
    return 1;
}

/* Place the held blocks whose offsets are known now, oldest first. The first
 * that cannot be placed has a block still being filtered before it, and so has
 * every later one: stop there (a stalled thread must not make the others walk
 * all they hold after every block). */
static void settle(team *t, worker *w) {
    size_t done = 0;
    while (done < w->nheld && place(t, w->held[done].block, w->held[done].buf, w->held[done].count))
        w->spare[w->nspare++] = w->held[done++].buf;
    if (done)
        memmove(w->held, w->held + done, (w->nheld - done) * sizeof *w->held);
    w->nheld -= done;
}

static int held_in(const worker *w, const unsigned char *buf) {
    for (size_t i = 0; i < w->nheld; i++)
        if (w->held[i].buf == buf)
            return 1;
    return 0;
}

/* Wait a little for the blocks ahead: asleep, not spinning, so that a thread
 * of ours that the OS parked behind another process can be moved here. */
static void nap(void) {
    const struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
}

/* One thread's loop: claim a block, filter it into a buffer of this thread's,
 * publish its count, copy it to its place if the blocks ahead are done, else
 * hold it and go on. A thread waits only after it has published every count
 * it owes, and only for blocks already claimed, so waiting always ends; at the
 * end, it leaves what it holds to the calling thread instead of waiting. */
static void team_work(void *ctx, size_t self) {
    team *t = (team *)ctx;
    const size_t n = t->run->n;
    const size_t polls_every = SF_CANCEL_BLOCK / SF_THREAD_BLOCK; /* blocks between polls */
    size_t polled_at = 0, counted = 0;
    worker *wp = &t->workers[self], w = {NULL, 0, 0, NULL, 0};
    *wp = w;
    unsigned char *own = self == 0 ? t->scratch0 : NULL;
    if (t->blocks && !own && !(own = malloc(t->scratch_bytes)))
        return; /* this thread takes no block; the caller's always can */
    if (t->blocks) {
        size_t cap = HELD_BYTES / t->scratch_bytes;
        cap = cap < t->nblocks ? cap : t->nblocks;
        w.held = (pending *)malloc(cap * sizeof *w.held);
        w.spare = (unsigned char **)malloc((cap + 1) * sizeof *w.spare);
        w.cap = w.held && w.spare ? cap : 0; /* 0: never hold, wait instead */
    }
    unsigned char *buf = own;
    while (!atomic_load_explicit(&t->stop, memory_order_relaxed)) {
        const size_t j = atomic_fetch_add_explicit(&t->next, 1, memory_order_relaxed);
        if (j >= t->nblocks)
            break;
        const size_t first = j * SF_THREAD_BLOCK;
        const size_t len = n - first < SF_THREAD_BLOCK ? n - first : SF_THREAD_BLOCK;
        const sf_run block = sf_run_slice(t->run, first, len);
        /* A mask's results go straight to their place (first: a multiple of 8). */
        unsigned char *dst =
            sf_op_is_mask(t->p->op) ? t->out + sf_output_bytes(t->p->op, t->p->elem, first) : buf;
        const size_t c = sf_scan_serial(t->p, &block, dst);
        if (!t->blocks) {
            counted += c;
        } else {
            atomic_store_explicit(&t->blocks[j].count, c + 1, memory_order_release);
            if (!place(t, j, buf, c)) {
                unsigned char *fresh = w.nspare ? w.spare[--w.nspare]
                                       : w.nheld < w.cap ? malloc(t->scratch_bytes)
                                                               : NULL;
                if (fresh) {
                    w.held[w.nheld++] = (pending){j, c, buf};
                    buf = fresh;
                } else {
                    while (!place(t, j, buf, c)) /* no buffer to go on with: wait */
                        nap();
                }
            }
            settle(t, &w);
        }
        /* Only the calling thread may call the cancel callback (it takes the GIL). */
        if (self == 0 && t->x->cancel && j - polled_at >= polls_every) {
            polled_at = j;
            if (t->x->cancel(t->x->cancel_ctx)) {
                t->cancelled = 1;
                atomic_store_explicit(&t->stop, 1, memory_order_relaxed);
            }
        }
    }
    settle(t, &w);
    *wp = w; /* the held blocks and their buffers, for the calling thread */
    wp->spare = NULL;
    wp->nspare = 0;
    for (size_t i = 0; i < w.nspare; i++)
        if (w.spare[i] != own)
            free(w.spare[i]);
    free(w.spare);
    if (buf != own)
        free(buf);
    if (own != t->scratch0 && !held_in(&w, own))
        free(own);
    if (!t->blocks)
        atomic_fetch_add_explicit(&t->counted, counted, memory_order_relaxed);
}

/* sf_scan_team (library.h): the team's state made, its threads run, what they
 * still hold placed, and the results totalled. */
int sf_scan_team(const sf_plan *p, const sf_run *run, unsigned char *out, size_t room, int threads,
                const sf_exec *x, size_t *found) {
    team t;
    t.p = p;
    t.run = run;
    t.out = out;
    t.room = out ? room : 0;
    t.nblocks = (run->n + SF_THREAD_BLOCK - 1) / SF_THREAD_BLOCK;
    t.blocks = NULL;
    t.scratch0 = NULL;
    t.scratch_bytes = SF_THREAD_BLOCK * p->rsize;
    t.x = x;
    atomic_init(&t.next, 0);
    atomic_init(&t.stop, 0);
    atomic_init(&t.counted, 0);
    t.cancelled = 0;
    t.page = 0;
    t.resident = x->fresh_out ? x->out_resident : t.room * p->rsize;
#ifdef __linux__
    if (x->fresh_out && out && t.resident < t.room * p->rsize) {
        const long page = sysconf(_SC_PAGESIZE);
        t.page = page > 0 ? (size_t)page : 0;
    }
#endif
    atomic_init(&t.faulted, 0);
    t.stream = out && t.resident && t.room * p->rsize >= STREAM_MIN_BYTES;
    t.workers = (worker *)malloc((size_t)threads * sizeof *t.workers);
    if (!t.workers)
        return 1;
    if (p->op != SF_OP_COUNT && !sf_op_is_mask(p->op)) { /* the masks place nothing either */
        t.blocks = (block_state *)malloc(t.nblocks * sizeof *t.blocks);
        t.scratch0 = (unsigned char *)malloc(t.scratch_bytes);
        if (!t.blocks || !t.scratch0) {
            free(t.blocks);
            free(t.scratch0);
            free(t.workers);
            return 1;
        }
        for (size_t j = 0; j < t.nblocks; j++) {
            atomic_init(&t.blocks[j].count, 0);
            atomic_init(&t.blocks[j].end, 0);
        }
    }
    sf_parallel_for((size_t)threads, team_work, &t);
    /* Every block is counted now: what the threads still held goes in place.
     * (A thread that could not start left nothing.) */
    for (size_t i = 0; t.blocks && i < (size_t)threads; i++) {
        worker *w = &t.workers[i];
        for (size_t h = 0; h < w->nheld; h++) {
            const int placed = place(&t, w->held[h].block, w->held[h].buf, w->held[h].count);
            (void)placed; /* always: every block before it is counted */
            if (w->held[h].buf != t.scratch0)
                free(w->held[h].buf);
        }
        free(w->held);
    }
    free(t.workers);
    size_t total = atomic_load_explicit(&t.counted, memory_order_relaxed);
    if (t.blocks) {
        /* Every claimed block is done and placed; the claimed ones are a prefix. */
        total = 0;
        for (size_t j = 0; j < t.nblocks; j++) {
            const size_t end = atomic_load_explicit(&t.blocks[j].end, memory_order_relaxed);
            if (!end)
                break;
            total = end - 1;
        }
        free(t.blocks);
        free(t.scratch0);
    }
    *found = total;
    return t.cancelled ? SF_ECANCELLED : 0;
}
