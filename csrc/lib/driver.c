/*
 * The driver: a query over a source of runs, block by block.
 *
 * Contiguous, aligned, native-order blocks go straight to the kernel. Anything
 * else (strided views, unaligned buffers, byte-swapped data) is gathered in
 * small native blocks on the stack, each filtered with its base position: the
 * input is never copied whole and the kernels stay simple.
 *
 * Threads split a block into contiguous parts. Part p writes its results at
 * out + start(p), which is in bounds because a part never yields more results
 * than it has elements; the parts are then moved down into place, so stitching
 * costs a pass over the results, not over the input.
 */
#include "library.h"

#include <string.h>

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
    /* INTERIM: until dispatch fills NULL slots from lower kernels. */
    extern const sf_kernel sf_kernel_scalar;
    if (valid && !k->count_valid[p->elem])
        k = &sf_kernel_scalar;
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
    uint8_t bits[SF_GATHER_BLOCK / 8];
    unsigned char *cursor = (unsigned char *)out;
    size_t total = 0;
    sf_run g;
    for (sf_blocks b = SF_BLOCKS(block, SF_GATHER_BLOCK); sf_blocks_next(&b, &g);) {
        const void *x = g.data;
        if (!direct) {
            sf_gather(&g, p->elem, buf);
            x = buf;
        }
        const uint8_t *v = sf_run_validity_in_place(&g);
        if (!v && g.null_form != SF_NULLS_NONE) {
            sf_validity_bits(&g, bits);
            v = bits;
        }
        size_t got = run_kernel(p, x, v, g.n, g.base, cursor);
        if (cursor) /* count passes no output: no arithmetic on NULL */
            cursor += got * p->rsize;
        total += got;
    }
    return total;
}

typedef struct part {
    sf_run block;
    void *out;
    size_t found;
} part;

typedef struct parts {
    const plan *plan;
    part list[SF_MAX_THREADS];
} parts;

static void run_part(void *ctx, size_t i) {
    parts *ps = (parts *)ctx;
    part *p = &ps->list[i];
    p->found = run_serial(ps->plan, &p->block, p->out);
}

/* A block on up to `threads` threads, with room for block->n results in out. */
static size_t run_parallel(const plan *p, const sf_run *block, void *out, int threads) {
    size_t want = threads > 1 ? (size_t)threads : 1;
    if (want > SF_MAX_THREADS)
        want = SF_MAX_THREADS;
    if (want > block->n / SF_MIN_ELEMENTS_PER_THREAD)
        want = block->n / SF_MIN_ELEMENTS_PER_THREAD;
    if (want <= 1)
        return run_serial(p, block, out);

    parts ps;
    ps.plan = p;
    /* Part boundaries on multiples of 64 elements keep every vector loop whole
     * but the last. Rounding ceil(n / want) up keeps the parts at most `want`. */
    const size_t per = ((block->n + want - 1) / want + 63) & ~(size_t)63;
    size_t nparts = 0;
    sf_run piece;
    for (sf_blocks b = SF_BLOCKS(block, per); sf_blocks_next(&b, &piece); nparts++) {
        part *q = &ps.list[nparts];
        q->block = piece;
        q->out = out ? (unsigned char *)out + (piece.base - block->base) * p->rsize : NULL;
        q->found = 0;
    }
    sf_parallel_for(nparts, run_part, &ps);

    size_t total = ps.list[0].found;
    for (size_t i = 1; i < nparts; i++) {
        if (p->rsize && ps.list[i].found)
            memmove((unsigned char *)out + total * p->rsize, ps.list[i].out,
                    ps.list[i].found * p->rsize);
        total += ps.list[i].found;
    }
    return total;
}

/* A block into an output with room for `room` results: straight in when that
 * is enough for the block's worst case, else staged through a small buffer so
 * that nothing is written past the room. Returns the results found. */
static size_t run_block(const plan *p, const sf_run *block, unsigned char *out, size_t room,
                        int threads) {
    if (room >= block->n || p->op == SF_OP_COUNT)
        return run_parallel(p, block, out, threads);
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

int sf_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
               const sf_exec *opts, size_t *found) {
    static const sf_exec defaults = {0, NULL, NULL};
    const sf_exec *x = opts ? opts : &defaults;
    plan p = {q->kernel ? q->kernel : sf_active_kernel(), q->op, q->elem, &q->range,
              sf_result_size(q->op, q->elem)};
    size_t total = 0, since_cancel = 0;
    *found = 0;
    if (!sf_kernel_supported(p.kernel))
        return SF_EUNSUPPORTED;
    unsigned char *dst = (unsigned char *)out;
    sf_run run, block;
    while ((memset(&run, 0, sizeof run), src->next(src, &run))) {
        const int threads =
            x->threads > 0 ? x->threads : sf_auto_threads(run.n * sf_elem_size(q->elem));
        for (sf_blocks b = SF_BLOCKS(&run, SF_CANCEL_BLOCK); sf_blocks_next(&b, &block);) {
            /* Past the capacity nothing is written (room 0), only counted. */
            const size_t written = total < capacity ? total : capacity;
            total += run_block(&p, &block, dst ? dst + written * p.rsize : NULL,
                               capacity - written, threads);
            since_cancel += block.n;
            if (since_cancel >= SF_CANCEL_BLOCK) {
                since_cancel = 0;
                if (x->cancel && x->cancel(x->cancel_ctx)) {
                    *found = total < capacity || p.op == SF_OP_COUNT ? total : capacity;
                    return SF_ECANCELLED;
                }
            }
        }
    }
    *found = total;
    return SF_OK;
}
