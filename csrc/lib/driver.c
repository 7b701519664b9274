/*
 * The driver: a query over a source of runs, block by block.
 *
 * Contiguous, aligned, native-order blocks go straight to the kernel. Anything
 * else (strided views, unaligned buffers, byte-swapped data) is gathered in
 * small native blocks on the stack, each filtered with its base position: the
 * input is never copied whole and the kernels stay simple.
 *
 * A run on several threads (how many: lib/threads.c) is handed to a team
 * (lib/team.c), which cuts it into blocks its threads claim from a shared
 * counter. One spawn per run, not per cancel block. A block on one thread,
 * here or in a team, is lib/serial.c's: the driver calls the team and both
 * call serial.c, never the other way.
 */
#include "library.h"

#include <string.h>

/* A block into an output with room for `room` results: straight in when that
 * is enough for the block's worst case, else staged through a small buffer so
 * that nothing is written past the room. Returns the results found. */
static size_t run_block(const sf_plan *p, const sf_run *block, unsigned char *out, size_t room) {
    if (room >= block->n || p->op == SF_OP_COUNT)
        return sf_scan_serial(p, block, out);
    uint64_t stage[SF_GATHER_BLOCK];
    size_t total = 0;
    sf_run s;
    for (sf_blocks b = SF_BLOCKS(block, SF_GATHER_BLOCK); sf_blocks_next(&b, &s);) {
        size_t got = sf_scan_serial(p, &s, stage);
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

/*
 * The positions are the caller's memory, which another thread may write
 * while the call reads it (NumPy lets it). So each is read from there once:
 * a block at a time is copied onto the stack, checked there, and only the
 * copy is used afterwards (the bisection, the dense pass, the kernels, the
 * positions written out). A racing writer then gets a wrong answer or an
 * error, never a value read at a position that was not checked. A block
 * copied is used up before the next one is copied, over as many runs as it
 * spans: each position is copied once.
 */
typedef union within_copy {
    uint32_t narrow[WITHIN_BLOCK];
    uint64_t wide[WITHIN_BLOCK];
} within_copy;

typedef struct within_walk {
    const sf_query *q;
    size_t next;   /* the first position not yet taken */
    uint64_t last; /* the position taken before it */
    within_copy copy; /* positions [next, next + (have - from)) as copy[from, have) */
    size_t from, have;
    int rises; /* copy[from, have) rise strictly */
} within_walk;

static uint64_t position_at(const within_walk *w, size_t i) {
    return w->q->within_wide ? w->copy.wide[i] : w->copy.narrow[i];
}

/* Whether pos[0, m) rise strictly: no branch per position. */
#define SF_RISES(T)                                                                      \
    static int rises_##T(const T *pos, size_t m) {                                      \
        unsigned falls = 0;                                                             \
        for (size_t j = 1; j < m; j++)                                                  \
            falls |= pos[j] <= pos[j - 1];                                              \
        return !falls;                                                                  \
    }
SF_RISES(uint32_t)
SF_RISES(uint64_t)

/* The next block of the caller's positions onto the stack, once the copy is
 * used up: 0 when none is left. */
static size_t copy_positions(within_walk *w) {
    const sf_query *q = w->q;
    if (w->from < w->have)
        return w->have - w->from;
    const size_t left = q->within_count - w->next, m = left < WITHIN_BLOCK ? left : WITHIN_BLOCK;
    if (q->within_wide) {
        memcpy(w->copy.wide, (const uint64_t *)q->within + w->next, m * 8);
        w->rises = rises_uint64_t(w->copy.wide, m);
    } else {
        memcpy(w->copy.narrow, (const uint32_t *)q->within + w->next, m * 4);
        w->rises = rises_uint32_t(w->copy.narrow, m);
    }
    w->from = 0;
    w->have = m;
    return m;
}

/* take_positions one at a time: where the copy does not rise, this finds
 * whether the fault lies before the run's end (SF_EUNSORTED) or past it (a
 * later run's block reports it). */
static ptrdiff_t take_positions_one_by_one(within_walk *w, const sf_run *run) {
    const uint64_t end = run->base + run->n;
    size_t len = 0;
    for (size_t i = w->from; i < w->have; i++, len++) {
        const uint64_t p = position_at(w, i);
        if ((w->next + len > 0 && p <= w->last) || p < run->base)
            return SF_EUNSORTED;
        if (p >= end)
            break;
        w->last = p;
    }
    return (ptrdiff_t)len;
}

/* The next block of positions that lie in `run`, at copy[from, from + count):
 * their count, 0 when the run holds no more of them, or SF_EUNSORTED. Each
 * position is checked here, in the copy, before any value is read at it: the
 * block must rise strictly from the position taken before it, and rise from
 * the run's start; those before the run's end are then a prefix, found by
 * bisection. */
static ptrdiff_t take_positions(within_walk *w, const sf_run *run) {
    if (copy_positions(w) == 0)
        return 0;
    const uint64_t first = position_at(w, w->from), end = run->base + run->n;
    if ((w->next > 0 && first <= w->last) || first < run->base)
        return SF_EUNSORTED;
    if (!w->rises)
        return take_positions_one_by_one(w, run);
    size_t lo = w->from, hi = w->have; /* copy [from, lo) lie before end, [hi, have) do not */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (position_at(w, mid) < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > w->from)
        w->last = position_at(w, lo - 1);
    return (ptrdiff_t)(lo - w->from);
}

/* Positions this close together (at most WITHIN_DENSE_SPAN elements of the run
 * per position, on average over a block) are answered by a pass over the
 * stretch they cover: the kernel's byte mask of every element there, in
 * windows that stay in L1, then one mask byte read per position. Loading at
 * each position instead costs a cache miss per position that the prefetcher
 * does not hide, while the pass streams. 16 takes the pass only where it won
 * for every type measured (break-even was 1 in 21 for float64, 1 in 30 for
 * uint8), which leaves room for a CPU whose loads cost less; the avx2
 * kernel's hardware gathers did not beat scalar loads, so no per-CPU choice
 * of loads is made. The figures, with their CPU: lib/README.md. */
#define WITHIN_DENSE_SPAN 16
#define WITHIN_WINDOW ((size_t)4096)

/* Position i of a block of the copy (narrow or wide). */
static uint64_t block_position(const void *pos, int wide, size_t i) {
    return wide ? ((const uint64_t *)pos)[i] : ((const uint32_t *)pos)[i];
}

/* within_block's dense form: a direct run, without nulls, one range. */
static size_t within_dense(const sf_plan *p, const void *positions, int wide, const sf_run *run,
                           size_t m, unsigned char *out) {
    uint8_t in[WITHIN_WINDOW];
    const char *x = (const char *)run->data;
    const size_t size = sf_elem_size(p->elem);
    const uint64_t end = block_position(positions, wide, m - 1) + 1;
    size_t kept = 0, i = 0;
    while (i < m) {
        const uint64_t start = block_position(positions, wide, i);
        const size_t len = end - start < WITHIN_WINDOW ? (size_t)(end - start) : WITHIN_WINDOW;
        p->kernel->mask8[p->elem](x + (start - run->base) * size, len, p->range, in);
        /* each position written, then kept (the count advanced) when in range */
        if (wide) {
            const uint64_t *pos = (const uint64_t *)positions;
            uint64_t *o = (uint64_t *)(void *)out;
            for (; i < m && pos[i] - start < len; i++) {
                o[kept] = pos[i];
                kept += in[pos[i] - start];
            }
        } else {
            const uint32_t *pos = (const uint32_t *)positions;
            uint32_t *o = (uint32_t *)(void *)out;
            for (; i < m && pos[i] - start < len; i++) {
                o[kept] = pos[i];
                kept += in[pos[i] - start];
            }
        }
    }
    return kept;
}

/* One block of m positions (the walk's copy, checked: all in `run`, rising),
 * into out (room for m results). */
static size_t within_block(const sf_plan *p, const void *pos, int wide, const sf_run *run,
                           size_t m, unsigned char *out) {
    uint32_t stage[2 * WITHIN_BLOCK]; /* for count: m positions of either width */
    unsigned char *dst = p->op == SF_OP_COUNT ? (unsigned char *)stage : out;
    const sf_kernel *k = p->kernel;
    /* The within kernels compare with one range; several go the gathered way. */
    if (sf_run_is_direct(run, p->elem) && run->null_form == SF_NULLS_NONE && !p->more_count) {
        const uint64_t span = block_position(pos, wide, m - 1) - block_position(pos, wide, 0) + 1;
        if (span <= (uint64_t)WITHIN_DENSE_SPAN * m)
            return within_dense(p, pos, wide, run, m, dst);
        return wide ? k->within64[p->elem](run->data, run->base, (const uint64_t *)pos, m,
                                           p->range, (uint64_t *)dst)
                    : k->within32[p->elem](run->data, run->base, (const uint32_t *)pos, m,
                                           p->range, (uint32_t *)dst);
    }
    /* Anything else: the values at the positions gathered into a dense block
     * (with their validity), filtered there, the kept lanes mapped back. */
    uint64_t idx[WITHIN_BLOCK], buf[WITHIN_BLOCK];
    uint8_t bits[WITHIN_BLOCK / 8];
    for (size_t i = 0; i < m; i++)
        idx[i] = block_position(pos, wide, i) - run->base;
    sf_gather_at(run, p->elem, idx, m, buf);
    const uint8_t *valid = NULL;
    if (run->null_form != SF_NULLS_NONE) {
        sf_validity_bits_at(run, idx, m, bits);
        valid = bits;
    }
    sf_plan lanes = *p;
    lanes.op = SF_OP_INDEX32;
    lanes.rsize = 4;
    const size_t kept = sf_scan_kernel(&lanes, buf, valid, m, 0, stage);
    if (p->op == SF_OP_COUNT)
        return kept;
    for (size_t i = 0; i < kept; i++) {
        const uint64_t position = block_position(pos, wide, stage[i]);
        if (wide)
            memcpy(out + i * 8, &position, 8);
        else
            ((uint32_t *)(void *)out)[i] = (uint32_t)position;
    }
    return kept;
}

/* A stopped call found what it wrote (and, for count, what it counted). */
static int cancelled(const sf_plan *p, size_t total, size_t capacity, size_t *found) {
    *found = total < capacity || p->op == SF_OP_COUNT ? total : capacity;
    return SF_ECANCELLED;
}

/* Positions cost more than elements: each counts as this many elements
 * towards the next cancel poll (a poll every SF_CANCEL_BLOCK / 16 positions). */
#define POSITION_WEIGHT 16

static int execute_within(const sf_plan *p, const sf_query *q, sf_source *src, unsigned char *out,
                          size_t capacity, const sf_exec *x, size_t *found) {
    within_walk w;
    w.q = q;
    w.next = 0;
    w.last = 0;
    w.from = w.have = 0;
    w.rises = 0;
    size_t total = 0, since_cancel = 0;
    uint64_t stage[WITHIN_BLOCK];
    sf_run run;
    while (w.next < q->within_count && sf_next_run(src, &run)) {
        ptrdiff_t len;
        while ((len = take_positions(&w, &run)) > 0) {
            const size_t m = (size_t)len, written = total < capacity ? total : capacity;
            const size_t room = capacity - written;
            unsigned char *dst = out && room >= m ? out + written * p->rsize : (unsigned char *)stage;
            const void *pos = q->within_wide ? (const void *)(w.copy.wide + w.from)
                                             : (const void *)(w.copy.narrow + w.from);
            const size_t got = within_block(p, pos, q->within_wide, &run, m, out ? dst : NULL);
            if (out && dst == (unsigned char *)stage && room)
                memcpy(out + written * p->rsize, stage, (got < room ? got : room) * p->rsize);
            total += got;
            w.next += m;
            w.from += m;
            if (sf_cancel_due(x, &since_cancel, POSITION_WEIGHT * m))
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
static int is_one_call(const sf_plan *p, const sf_run *run, size_t room) {
    return run->n > 0 && run->n < SF_CANCEL_BLOCK && run->n < 2 * SF_MIN_ELEMENTS_PER_THREAD &&
           (room >= run->n || p->op == SF_OP_COUNT) && run->null_form == SF_NULLS_NONE &&
           sf_run_is_direct(run, p->elem);
}

/* A source that is one run, and that run one kernel call (a small NumPy array):
 * the call, without next(), blocks or parts. 1 when it applied. */
static int execute_one_call(const sf_plan *p, sf_source *src, unsigned char *out, size_t capacity,
                            size_t *found) {
    sf_run_source *one = sf_run_source_unread(src);
    if (!one || !is_one_call(p, &one->run, capacity))
        return 0;
    one->taken = 1;
    *found = sf_scan_kernel(p, one->run.data, NULL, one->run.n, one->run.base, out);
    return 1;
}

/* sf_execute of a checked plan. */
static int execute_plan(const sf_plan *p, const sf_query *q, sf_source *src,
                        unsigned char *dst, size_t capacity, const sf_exec *x, size_t *found) {
    size_t total = 0, since_cancel = 0;
    if (sf_op_is_mask(q->op))
        return q->within ? SF_EINVAL : sf_execute_mask(p, src, dst, capacity, x, found);
    if (q->within) {
        /* Positions come out at their own width: refused where that is not
         * the op's result size, before anything is written. */
        if (q->op == SF_OP_VALUES || (q->op == SF_OP_INDEX32 && q->within_wide) ||
            (q->op == SF_OP_INDEX64 && !q->within_wide))
            return SF_EINVAL;
        return execute_within(p, q, src, dst, capacity, x, found);
    }
    if (execute_one_call(p, src, dst, capacity, found))
        return SF_OK;
    sf_run run, block;
    while (sf_next_run(src, &run)) {
        /* Past the capacity nothing is written (room 0), only counted. */
        size_t written = total < capacity ? total : capacity;
        if (is_one_call(p, &run, capacity - written)) {
            total += sf_scan_kernel(p, run.data, NULL, run.n, run.base,
                                dst ? dst + written * p->rsize : NULL);
            if (sf_cancel_due(x, &since_cancel, run.n))
                return cancelled(p, total, capacity, found);
            continue;
        }
        const size_t nbytes = run.n * sf_elem_size(q->elem);
        const int threads = sf_team_size(
            run.n, x->threads > 0      ? x->threads
                   : x->fresh_out && dst ? sf_auto_threads_fresh(nbytes)
                                         : sf_auto_threads(nbytes));
        if (threads > 1) {
            size_t got = 0;
            const int rc = sf_scan_team(p, &run, dst ? dst + written * p->rsize : NULL,
                                       capacity - written, threads, x, &got);
            if (rc != 1) {
                total += got;
                if (rc == SF_ECANCELLED)
                    return cancelled(p, total, capacity, found);
                continue;
            }
        }
        for (sf_blocks b = SF_BLOCKS(&run, SF_CANCEL_BLOCK); sf_blocks_next(&b, &block);) {
            written = total < capacity ? total : capacity;
            total += run_block(p, &block, dst ? dst + written * p->rsize : NULL,
                               capacity - written);
            if (sf_cancel_due(x, &since_cancel, block.n))
                return cancelled(p, total, capacity, found);
        }
    }
    *found = total;
    return SF_OK;
}

int sf_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
               const sf_exec *opts, size_t *found) {
    static const sf_exec defaults = {0, NULL, NULL, 0, 0};
    sf_plan p = {q->kernel ? q->kernel : sf_active_kernel(), q->op, q->elem, &q->range,
                 sf_result_size(q->op, q->elem), q->more, q->more_count, q->every, NULL};
    *found = 0;
    /* The process default is always one this CPU runs (sf_use_kernel checks). */
    if (q->kernel && !sf_kernel_supported(p.kernel))
        return SF_EUNSUPPORTED;
    if (q->more_count && !q->more)
        return SF_EINVAL;
    /* Many ranges: looked up in a set, made once for the call's every thread. */
    sf_set set;
    if (q->more_count >= SF_SET_MIN_RANGES - 1 && sf_set_make(&p, &set))
        p.set = &set;
    const int rc = execute_plan(&p, q, src, (unsigned char *)out, capacity,
                                opts ? opts : &defaults, found);
    if (p.set)
        sf_set_free(&set);
    return rc;
}
