/*
 * The driver: a query over a source of runs, block by block.
 *
 * Contiguous, aligned, native-order blocks go straight to the kernel. Anything
 * else (strided views, unaligned buffers, byte-swapped data) is gathered in
 * small native blocks on the stack, each filtered with its base position: the
 * input is never copied whole and the kernels stay simple.
 *
 * A run on several threads is cut into blocks of SF_THREAD_BLOCK elements that
 * the threads claim in order from a shared counter, so that a thread on a busy
 * core simply takes fewer. Each block is filtered into a buffer of its
 * thread's (in cache), its count published, and its results copied once,
 * straight to their final place, as soon as every block before it is counted:
 * positions stay global and ascending, the same for every thread count and
 * schedule; the pages of a fresh result are faulted in by the threads that
 * fill them, a 2 MiB stretch ahead of the results (fault_ahead). One spawn per
 * run, not per cancel block.
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

typedef struct plan {
    const sf_kernel *kernel;
    sf_op op;
    sf_elem elem;
    const sf_range *range;
    size_t rsize; /* bytes of one result */
} plan;

static size_t run_kernel(const plan *p, const void *x, const uint8_t *valid, size_t n,
                         uint64_t base, void *out) {
    const sf_kernel *k = p->kernel;
    if (valid) {
        switch (p->op) {
        case SF_OP_INDEX32:
            return k->index32_valid[p->elem](x, valid, n, p->range, (uint32_t)base,
                                             (uint32_t *)out);
        case SF_OP_INDEX64:
            return k->index64_valid[p->elem](x, valid, n, p->range, base, (uint64_t *)out);
        case SF_OP_VALUES:
            return k->values_valid[p->elem](x, valid, n, p->range, out);
        default:
            return k->count_valid[p->elem](x, valid, n, p->range);
        }
    }
    switch (p->op) {
    case SF_OP_INDEX32:
        return k->index32[p->elem](x, n, p->range, (uint32_t)base, (uint32_t *)out);
    case SF_OP_INDEX64:
        return k->index64[p->elem](x, n, p->range, base, (uint64_t *)out);
    case SF_OP_VALUES:
        return k->values[p->elem](x, n, p->range, out);
    default:
        return k->count[p->elem](x, n, p->range);
    }
}

/* One thread's share of a block, with room for block->n results in out. Data
 * a kernel can read in place is read in place; anything else, and a validity
 * that is not a byte-aligned bitmap, is made in small native blocks. */
static size_t run_serial(const plan *p, const sf_run *block, void *out) {
    const int direct = sf_run_is_direct(block, p->elem);
    const uint8_t *valid = sf_run_validity_in_place(block);
    if (direct && (valid || block->null_form == SF_NULLS_NONE))
        return run_kernel(p, block->data, valid, block->n, block->base, out);
    uint64_t buf[SF_GATHER_BLOCK]; /* 64-bit words: aligned for every kind */
    uint8_t bits[SF_VALIDITY_BLOCK / 8];
    unsigned char *cursor = (unsigned char *)out;
    size_t total = 0;
    sf_run g;
    for (sf_blocks b = SF_BLOCKS(block, direct ? SF_VALIDITY_BLOCK : SF_GATHER_BLOCK);
         sf_blocks_next(&b, &g);) {
        const void *x = g.data;
        if (!direct) {
            sf_gather(&g, p->elem, buf);
            x = buf;
        }
        const uint8_t *v = sf_run_validity_in_place(&g);
        if (!v && g.null_form != SF_NULLS_NONE) {
            sf_validity_bits(&g, p->kernel->mask_to_valid, bits);
            v = bits;
        }
        size_t got = run_kernel(p, x, v, g.n, g.base, cursor);
        if (cursor) /* count passes no output: no arithmetic on NULL */
            cursor += got * p->rsize;
        total += got;
    }
    return total;
}

/* ---- Threads: blocks from a shared counter, results straight into place ----------- */

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
    const plan *p;
    const sf_run *run;
    unsigned char *out;  /* where result 0 of the run goes; NULL for count */
    size_t room;         /* results that fit in out: the rest are counted only */
    size_t nblocks;
    block_state *blocks; /* NULL for count, which places nothing */
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
            from = from < lo ? lo : from;
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
 * Not into a fresh output: there the fault-ahead has just zeroed the lines
 * through the cache, and streaming over them measured 0.77-0.97x. Only from
 * STREAM_MIN_BYTES of output room, more than the last-level caches the
 * results could otherwise stay in for their reader, and for copies of 4 KiB
 * or more. Not measured on AMD.
 */
#define STREAM_MIN_BYTES ((size_t)64 << 20)

static void place_copy(const team *t, unsigned char *dst, const unsigned char *src, size_t bytes) {
#if defined(__x86_64__) || defined(_M_X64)
    const size_t head = (size_t)(-(uintptr_t)dst & 15);
    if (t->stream && bytes >= 4096) {
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
        const size_t c = run_serial(t->p, &block, buf);
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

/* A whole run on `threads` threads (at least 2), one spawn for all of it. Its
 * results go to out (room for `room`; the rest are counted only). Returns 0 and
 * *found, or SF_ECANCELLED with *found = the results of the blocks done,
 * which are a prefix of the run; or 1 when it could not start (no memory):
 * the caller then runs the run itself. */
static int run_team(const plan *p, const sf_run *run, unsigned char *out, size_t room,
                    int threads, const sf_exec *x, size_t *found) {
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
#ifdef __linux__
    if (x->fresh_out && out) {
        const long page = sysconf(_SC_PAGESIZE);
        t.page = page > 0 ? (size_t)page : 0;
    }
#endif
    atomic_init(&t.faulted, 0);
    t.stream = out && !x->fresh_out && t.room * p->rsize >= STREAM_MIN_BYTES;
    t.workers = (worker *)malloc((size_t)threads * sizeof *t.workers);
    if (!t.workers)
        return 1;
    if (p->op != SF_OP_COUNT) {
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

/* How many threads a run of n elements gets when `threads` are asked for:
 * never more than one per SF_MIN_ELEMENTS_PER_THREAD elements. */
static int team_size(size_t n, int threads) {
    size_t want = threads > 1 ? (size_t)threads : 1;
    if (want > SF_MAX_THREADS)
        want = SF_MAX_THREADS;
    if (want > n / SF_MIN_ELEMENTS_PER_THREAD)
        want = n / SF_MIN_ELEMENTS_PER_THREAD;
    return want > 1 ? (int)want : 1;
}

/* A block into an output with room for `room` results: straight in when that
 * is enough for the block's worst case, else staged through a small buffer so
 * that nothing is written past the room. Returns the results found. */
static size_t run_block(const plan *p, const sf_run *block, unsigned char *out, size_t room) {
    if (room >= block->n || p->op == SF_OP_COUNT)
        return run_serial(p, block, out);
    uint64_t stage[SF_GATHER_BLOCK];
    size_t total = 0;
    sf_run s;
    for (sf_blocks b = SF_BLOCKS(block, SF_GATHER_BLOCK); sf_blocks_next(&b, &s);) {
        size_t got = run_serial(p, &s, stage);
        size_t left = total < room ? room - total : 0;
        size_t copy = got < left ? got : left;
        if (copy)
            memcpy(out + total * p->rsize, stage, copy * p->rsize);
        total += got;
    }
    return total;
}

/* ---- within=: the values at given positions ------------------------------------------- */

/* Positions a block of `within` holds at most: its relative indices, values and
 * kept-lane numbers stay on the stack (8 + 8 + 4 KiB). */
#define WITHIN_BLOCK ((size_t)1024)

typedef struct within_walk {
    const sf_query *q;
    size_t next;   /* the first position not yet taken */
    uint64_t last; /* the position taken before it */
} within_walk;

static uint64_t position_at(const sf_query *q, size_t i) {
    return q->within_wide ? ((const uint64_t *)q->within)[i] : ((const uint32_t *)q->within)[i];
}

/* The next block of positions that lie in `run`: their count, 0 when the run
 * holds no more of them, or SF_EUNSORTED. Each position is checked here,
 * before any value is read at it. */
static ptrdiff_t take_positions(within_walk *w, const sf_run *run) {
    const uint64_t end = run->base + run->n;
    size_t len = 0;
    while (len < WITHIN_BLOCK && w->next + len < w->q->within_count) {
        const uint64_t p = position_at(w->q, w->next + len);
        if ((w->next + len > 0 && p <= w->last) || p < run->base)
            return SF_EUNSORTED;
        if (p >= end)
            break;
        w->last = p;
        len++;
    }
    return (ptrdiff_t)len;
}

/* One block of positions, all in `run`, into out (room for m results). */
static size_t within_block(const plan *p, const sf_query *q, const sf_run *run, size_t first,
                           size_t m, unsigned char *out) {
    const int wide = q->within_wide;
    const void *pos = (const char *)q->within + first * (wide ? 8 : 4);
    uint32_t stage[2 * WITHIN_BLOCK]; /* for count: m positions of either width */
    unsigned char *dst = p->op == SF_OP_COUNT ? (unsigned char *)stage : out;
    const sf_kernel *k = p->kernel;
    if (sf_run_is_direct(run, p->elem) && run->null_form == SF_NULLS_NONE)
        return wide ? k->within64[p->elem](run->data, run->base, (const uint64_t *)pos, m,
                                           p->range, (uint64_t *)dst)
                    : k->within32[p->elem](run->data, run->base, (const uint32_t *)pos, m,
                                           p->range, (uint32_t *)dst);
    /* Anything else: the values at the positions gathered into a dense block
     * (with their validity), filtered there, the kept lanes mapped back. */
    uint64_t idx[WITHIN_BLOCK], buf[WITHIN_BLOCK];
    uint8_t bits[WITHIN_BLOCK / 8];
    for (size_t i = 0; i < m; i++)
        idx[i] = position_at(q, first + i) - run->base;
    sf_gather_at(run, p->elem, idx, m, buf);
    const uint8_t *valid = NULL;
    if (run->null_form != SF_NULLS_NONE) {
        sf_validity_bits_at(run, idx, m, bits);
        valid = bits;
    }
    const plan lanes = {p->kernel, SF_OP_INDEX32, p->elem, p->range, 4};
    const size_t kept = run_kernel(&lanes, buf, valid, m, 0, stage);
    if (p->op == SF_OP_COUNT)
        return kept;
    for (size_t i = 0; i < kept; i++) {
        const uint64_t position = position_at(q, first + stage[i]);
        if (wide)
            memcpy(out + i * 8, &position, 8);
        else
            ((uint32_t *)(void *)out)[i] = (uint32_t)position;
    }
    return kept;
}

/* The source's next run, into a zeroed *run as sf_source's contract says
 * (fields it leaves alone: no nulls, not bit-packed); 0 when none is left. */
static int next_run(sf_source *src, sf_run *run) {
    memset(run, 0, sizeof *run);
    return src->next(src, run);
}

/* n more elements done: past SF_CANCEL_BLOCK since the last poll, whether the
 * caller wants the call stopped. */
static int cancel_due(const sf_exec *x, size_t *since_cancel, size_t n) {
    *since_cancel += n;
    if (*since_cancel < SF_CANCEL_BLOCK)
        return 0;
    *since_cancel = 0;
    return x->cancel && x->cancel(x->cancel_ctx);
}

/* A stopped call found what it wrote (and, for count, what it counted). */
static int cancelled(const plan *p, size_t total, size_t capacity, size_t *found) {
    *found = total < capacity || p->op == SF_OP_COUNT ? total : capacity;
    return SF_ECANCELLED;
}

/* Positions cost more than elements: each counts as this many elements
 * towards the next cancel poll (a poll every SF_CANCEL_BLOCK / 16 positions). */
#define POSITION_WEIGHT 16

static int execute_within(const plan *p, const sf_query *q, sf_source *src, unsigned char *out,
                          size_t capacity, const sf_exec *x, size_t *found) {
    within_walk w = {q, 0, 0};
    size_t total = 0, since_cancel = 0;
    uint64_t stage[WITHIN_BLOCK];
    sf_run run;
    while (w.next < q->within_count && next_run(src, &run)) {
        ptrdiff_t len;
        while ((len = take_positions(&w, &run)) > 0) {
            const size_t m = (size_t)len, written = total < capacity ? total : capacity;
            const size_t room = capacity - written;
            unsigned char *dst = out && room >= m ? out + written * p->rsize : (unsigned char *)stage;
            const size_t got = within_block(p, q, &run, w.next, m, out ? dst : NULL);
            if (out && dst == (unsigned char *)stage && room)
                memcpy(out + written * p->rsize, stage, (got < room ? got : room) * p->rsize);
            total += got;
            w.next += m;
            if (cancel_due(x, &since_cancel, POSITION_WEIGHT * m))
                return cancelled(p, total, capacity, found);
        }
        if (len < 0) {
            *found = 0;
            return (int)len;
        }
    }
    *found = total;
    return w.next < q->within_count ? SF_EOUTOFBOUNDS : SF_OK;
}

/* Whether a run is one kernel call: read in place, without nulls, too short for
 * a second thread or a cancel poll inside it, with room for its worst case. A
 * call on a small array is one such run, and skips cutting blocks and parts. */
static int is_one_call(const plan *p, const sf_run *run, size_t room) {
    return run->n > 0 && run->n < SF_CANCEL_BLOCK && run->n < 2 * SF_MIN_ELEMENTS_PER_THREAD &&
           (room >= run->n || p->op == SF_OP_COUNT) && run->null_form == SF_NULLS_NONE &&
           sf_run_is_direct(run, p->elem);
}

/* A source that is one run, and that run one kernel call (a small NumPy array):
 * the call, without next(), blocks or parts. 1 when it applied. */
static int execute_one_call(const plan *p, sf_source *src, unsigned char *out, size_t capacity,
                            size_t *found) {
    sf_run_source *one = sf_run_source_unread(src);
    if (!one || !is_one_call(p, &one->run, capacity))
        return 0;
    one->taken = 1;
    *found = run_kernel(p, one->run.data, NULL, one->run.n, one->run.base, out);
    return 1;
}

int sf_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
               const sf_exec *opts, size_t *found) {
    static const sf_exec defaults = {0, NULL, NULL, 0};
    const sf_exec *x = opts ? opts : &defaults;
    plan p = {q->kernel ? q->kernel : sf_active_kernel(), q->op, q->elem, &q->range,
              sf_result_size(q->op, q->elem)};
    size_t total = 0, since_cancel = 0;
    *found = 0;
    /* The process default is always one this CPU runs (sf_use_kernel checks). */
    if (q->kernel && !sf_kernel_supported(p.kernel))
        return SF_EUNSUPPORTED;
    unsigned char *dst = (unsigned char *)out;
    if (q->within)
        return execute_within(&p, q, src, dst, capacity, x, found);
    if (execute_one_call(&p, src, dst, capacity, found))
        return SF_OK;
    sf_run run, block;
    while (next_run(src, &run)) {
        /* Past the capacity nothing is written (room 0), only counted. */
        size_t written = total < capacity ? total : capacity;
        if (is_one_call(&p, &run, capacity - written)) {
            total += run_kernel(&p, run.data, NULL, run.n, run.base,
                                dst ? dst + written * p.rsize : NULL);
            if (cancel_due(x, &since_cancel, run.n))
                return cancelled(&p, total, capacity, found);
            continue;
        }
        const size_t nbytes = run.n * sf_elem_size(q->elem);
        const int threads = team_size(
            run.n, x->threads > 0      ? x->threads
                   : x->fresh_out && dst ? sf_auto_threads_fresh(nbytes)
                                         : sf_auto_threads(nbytes));
        if (threads > 1) {
            size_t got = 0;
            const int rc = run_team(&p, &run, dst ? dst + written * p.rsize : NULL,
                                    capacity - written, threads, x, &got);
            if (rc != 1) {
                total += got;
                if (rc == SF_ECANCELLED)
                    return cancelled(&p, total, capacity, found);
                continue;
            }
        }
        for (sf_blocks b = SF_BLOCKS(&run, SF_CANCEL_BLOCK); sf_blocks_next(&b, &block);) {
            written = total < capacity ? total : capacity;
            total += run_block(&p, &block, dst ? dst + written * p.rsize : NULL,
                               capacity - written);
            if (cancel_due(x, &since_cancel, block.n))
                return cancelled(&p, total, capacity, found);
        }
    }
    *found = total;
    return SF_OK;
}
