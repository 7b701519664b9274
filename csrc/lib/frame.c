/*
 * A frame query's rows taken in the same pass (sf_filter_rows): for each
 * block of rows, small enough that its stretch of every column stays in the
 * second-level cache, the ranges' bits ANDed (the last range's positions read
 * through them), then every output column's elements at those positions
 * copied while the block is still cached. Positions first and a take after
 * (sf_take_rows) read every column from memory twice where the rows kept are
 * not few: at 10 % of 10 M rows of three 8-byte columns, the take cost as
 * much as the three columns' streamed reads (AMD EPYC Zen 4).
 */
#include "library.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the columns' stretches one block spans (each range's column and
 * each output column counted, shared ones twice): half of a 1 MiB L2 (AMD
 * Zen 4), room left for the outputs and the other core's share. */
#define FRAME_BLOCK_BYTES ((size_t)512 << 10)
/* Rows per block, at least and at most: a power of two between them, so that
 * every block but the last starts on a byte of bits. */
#define FRAME_BLOCK_MIN ((size_t)1 << 12)
#define FRAME_BLOCK_MAX ((size_t)1 << 16)

static size_t block_rows(const sf_frame_range *where, size_t nwhere, const sf_take_column *cols,
                         size_t ncols) {
    size_t row_bytes = 0;
    for (size_t w = 0; w < nwhere; w++)
        row_bytes += sf_elem_size(where[w].query.elem);
    for (size_t c = 0; c < ncols; c++)
        row_bytes += cols[c].size;
    size_t rows = FRAME_BLOCK_MAX;
    while (rows > FRAME_BLOCK_MIN && rows * row_bytes > FRAME_BLOCK_BYTES)
        rows /= 2;
    return rows;
}

/* What a call holds, freed by release(). */
typedef struct frame {
    sf_plan *plans;
    sf_set *sets;
    int *has_set;
    uint8_t *bits, *more_bits;
    uint32_t *pos, *more_pos; /* a block's positions, and room to filter them into */
    sf_take_column *at;       /* the output columns from a block's first row */
} frame;

static void release(frame *f, size_t nwhere) {
    for (size_t w = 0; f->has_set && w < nwhere; w++)
        if (f->has_set[w])
            sf_set_free(&f->sets[w]);
    free(f->plans);
    free(f->sets);
    free(f->has_set);
    free(f->bits);
    free(f->more_bits);
    free(f->pos);
    free(f->more_pos);
    free(f->at);
}

/* A block's rows standing at most 1 in this many after some of the ranges: the
 * others are read only at those rows (the kernel's within32 on a column read
 * in place, a load per row), not whole. As the faces' conjunction decides
 * (_conjunction.BITS_FROM): on AMD EPYC Zen 4 the two ways measured alike at
 * 1/32 of a column's rows standing. */
#define SPARSE_FROM 32

/* The block's rows among pos[0, k) (from its first row) that range w keeps,
 * into f->pos (f->pos and f->more_pos swapped); how many. */
static size_t at_rows(frame *f, const sf_frame_range *where, size_t w, size_t start, size_t m,
                      size_t k) {
    const sf_plan *p = &f->plans[w];
    sf_run block = sf_run_slice(&where[w].run, start, m);
    block.base = 0;
    uint32_t *in = f->pos, *out = f->more_pos;
    f->pos = out;
    f->more_pos = in;
    if (!p->more_count && block.null_form == SF_NULLS_NONE && sf_run_is_direct(&block, p->elem))
        return p->kernel->within32[p->elem](block.data, 0, in, k, p->range, out);
    /* anything else: the range's bits over the block, read at the rows */
    sf_scan_serial(p, &block, f->more_bits);
    size_t kept = 0;
    for (size_t i = 0; i < k; i++) {
        out[kept] = in[i];
        kept += (f->more_bits[in[i] / 8] >> (in[i] % 8)) & 1u;
    }
    return kept;
}

/* The positions (from the block's first row) of the block's rows in every
 * range, into f->pos; how many. The ranges give bits ANDed in turn, while
 * many rows stand; the last one's kernel reads its column only through them
 * where it can (in place, no nulls of its own, one range), else its bits join
 * too. Once few rows stand, the ranges left are read at those rows only. */
static size_t block_positions(frame *f, const sf_frame_range *where, size_t nwhere, size_t start,
                              size_t m) {
    if (nwhere == 1) {
        sf_plan p = f->plans[0];
        p.op = SF_OP_INDEX32;
        p.rsize = 4;
        sf_run block = sf_run_slice(&where[0].run, start, m);
        block.base = 0;
        return sf_scan_serial(&p, &block, f->pos);
    }
    const size_t nbytes = (m + 7) / 8;
    for (size_t w = 0; w < nwhere; w++) {
        const sf_plan *p = &f->plans[w];
        sf_run block = sf_run_slice(&where[w].run, start, m);
        block.base = 0;
        if (w == nwhere - 1 && !p->more_count && block.null_form == SF_NULLS_NONE &&
            sf_run_is_direct(&block, p->elem))
            return p->kernel->index32_valid[p->elem](block.data, f->bits, m, p->range, 0, f->pos);
        sf_scan_serial(p, &block, w ? f->more_bits : f->bits);
        if (w)
            for (size_t i = 0; i < nbytes; i++)
                f->bits[i] &= f->more_bits[i];
        const size_t standing = sf_bits_positions(p->kernel, f->bits, m, SF_OP_INDEX32, NULL, 0);
        if (!standing)
            return 0;
        if (w + 1 < nwhere && standing <= m / SPARSE_FROM) {
            size_t k = sf_bits_positions(p->kernel, f->bits, m, SF_OP_INDEX32, f->pos, m);
            for (size_t v = w + 1; v < nwhere && k; v++)
                k = at_rows(f, where, v, start, m, k);
            return k;
        }
    }
    return sf_bits_positions(f->plans[0].kernel, f->bits, m, SF_OP_INDEX32, f->pos, m);
}

/* Positions from the block's first row `start` as the caller's rows. */
static void write_positions(const uint32_t *pos, size_t k, uint64_t start, void *out, int wide) {
    if (wide) {
        uint64_t *o = (uint64_t *)out;
        for (size_t i = 0; i < k; i++)
            o[i] = start + pos[i];
    } else {
        uint32_t *o = (uint32_t *)out;
        for (size_t i = 0; i < k; i++)
            o[i] = (uint32_t)(start + pos[i]);
    }
}

int sf_filter_rows(const sf_frame_range *where, size_t nwhere, size_t n,
                   const sf_take_column *cols, size_t ncols, void *positions, int wide,
                   size_t capacity, const sf_exec *opts, size_t *found) {
    static const sf_exec defaults = {0, NULL, NULL, 0, 0};
    const sf_exec *x = opts ? opts : &defaults;
    *found = 0;
    if (nwhere == 0 || (!wide && n > (size_t)UINT32_MAX + 1))
        return SF_EINVAL;
    for (size_t w = 0; w < nwhere; w++) {
        const sf_query *q = &where[w].query;
        if (q->within || (q->more_count && !q->more) || where[w].run.n < n ||
            where[w].run.bit_packed != 0 || sf_elem_size(q->elem) == 0)
            return SF_EINVAL;
        if (q->kernel && !sf_kernel_supported(q->kernel))
            return SF_EUNSUPPORTED;
    }
    for (size_t c = 0; c < ncols; c++)
        if (cols[c].size != 1 && cols[c].size != 2 && cols[c].size != 4 && cols[c].size != 8)
            return SF_EINVAL;
    const size_t rows = block_rows(where, nwhere, cols, ncols);
    frame f = {0};
    f.plans = (sf_plan *)calloc(nwhere, sizeof *f.plans);
    f.sets = (sf_set *)calloc(nwhere, sizeof *f.sets);
    f.has_set = (int *)calloc(nwhere, sizeof *f.has_set);
    f.bits = (uint8_t *)malloc(rows / 8);
    f.more_bits = (uint8_t *)malloc(rows / 8);
    f.pos = (uint32_t *)malloc(rows * sizeof *f.pos);
    f.more_pos = (uint32_t *)malloc(rows * sizeof *f.more_pos);
    f.at = (sf_take_column *)malloc((ncols ? ncols : 1) * sizeof *f.at);
    if (!f.plans || !f.sets || !f.has_set || !f.bits || !f.more_bits || !f.pos || !f.more_pos ||
        !f.at) {
        release(&f, nwhere);
        return SF_ENOMEM;
    }
    for (size_t w = 0; w < nwhere; w++) {
        const sf_query *q = &where[w].query;
        f.plans[w] = (sf_plan){q->kernel ? q->kernel : sf_active_kernel(),
                               SF_OP_BITS,
                               q->elem,
                               &q->range,
                               0,
                               q->more,
                               q->more_count,
                               q->every,
                               NULL};
        if (q->more_count >= SF_SET_MIN_RANGES - 1 &&
            (f.has_set[w] = sf_set_make(&f.plans[w], &f.sets[w])))
            f.plans[w].set = &f.sets[w];
    }
    size_t total = 0, since_cancel = 0;
    int rc = SF_OK;
    for (size_t start = 0; start < n; start += rows) {
        const size_t m = n - start < rows ? n - start : rows;
        size_t k = block_positions(&f, where, nwhere, start, m);
        const size_t room = total < capacity ? capacity - total : 0;
        const size_t put = k < room ? k : room;
        if (put) {
            for (size_t c = 0; c < ncols; c++)
                f.at[c] = (sf_take_column){
                    (const char *)cols[c].data + (ptrdiff_t)start * cols[c].stride,
                    cols[c].stride, cols[c].size, (char *)cols[c].dst + total * cols[c].size};
            sf_take_rows(f.at, ncols, m, f.pos, 0, put); /* every position < m */
            if (positions)
                write_positions(f.pos, put, start,
                                (char *)positions + total * (wide ? 8 : 4), wide);
        }
        total += k;
        if (sf_cancel_due(x, &since_cancel, m) && start + m < n) {
            rc = SF_ECANCELLED;
            total = total < capacity ? total : capacity;
            break;
        }
    }
    release(&f, nwhere);
    *found = total;
    return rc;
}
