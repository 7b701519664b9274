/*
 * Internal to the Python-free library (csrc/lib): what its files share and no
 * binding needs. The public API is include/simdfilter.h.
 */
#ifndef SIMDFILTER_LIBRARY_H
#define SIMDFILTER_LIBRARY_H

#include <stddef.h>
#include <stdint.h>

#include "simdfilter.h"

/* Elements a block that is gathered (or staged) holds: 8 KiB of 64-bit data,
 * L1-resident. */
#define SF_GATHER_BLOCK ((size_t)1024)
/* Elements of a block read in place whose validity has to be made (a byte
 * mask, an unaligned bitmap): 1 KiB of bits, and few kernel calls. */
#define SF_VALIDITY_BLOCK ((size_t)8192)

/* Below this many elements per thread, starting a thread costs more than it saves. */
#define SF_MIN_ELEMENTS_PER_THREAD ((size_t)1 << 18)

/* ---- runs.c: the one way a run is cut into blocks ---- */

/* Elements [start, start + n) of `run`, positions continuing. */
sf_run sf_run_slice(const sf_run *run, size_t start, size_t n);

/* Consecutive blocks of at most `len` elements of a run:
 *     for (sf_blocks b = SF_BLOCKS(run, len); sf_blocks_next(&b, &block);) ... */
typedef struct sf_blocks {
    sf_run run;
    size_t len, done;
} sf_blocks;
#define SF_BLOCKS(run, len) ((sf_blocks){*(run), (len), 0})
int sf_blocks_next(sf_blocks *b, sf_run *block);

/* src as a one-run source (sf_run_source_init) whose run is not read yet, or
 * NULL: the driver may take that run without calling next(). */
sf_run_source *sf_run_source_unread(sf_source *src);

/* ---- gather.c ---- */

/* Whether a kernel can read the run in place (contiguous, aligned, native). */
int sf_run_is_direct(const sf_run *run, sf_elem elem);
/* Copy the run's elements, in native byte order, to dst (room for run->n);
 * bit-packed bools come out as bytes 0 and 1. */
void sf_gather(const sf_run *run, sf_elem elem, void *dst);
/* The run's validity as a kernel reads it in place (a bitmap starting on a
 * byte), or NULL when it has to be made (sf_validity_bits) or there are no nulls. */
const uint8_t *sf_run_validity_in_place(const sf_run *run);
/* The run's validity (bitmap or mask bytes) as bits [0, n) of dst
 * (room for ceil(n / 8) bytes); a contiguous byte mask goes through the
 * kernel's mask_to_valid. */
void sf_validity_bits(const sf_run *run, sf_mask_to_valid_fn mask_to_valid, uint8_t *dst);

/* The same at elements idx[0, m) of the run (indices from its start), into
 * dst[0, m) and bits [0, m). */
void sf_gather_at(const sf_run *run, sf_elem elem, const uint64_t *idx, size_t m, void *dst);
void sf_validity_bits_at(const sf_run *run, const uint64_t *idx, size_t m, uint8_t *dst);

/* ---- driver.c -> team.c -> serial.c: a query as the kernels see it ---- */

typedef struct sf_plan {
    const sf_kernel *kernel;
    sf_op op;
    sf_elem elem;
    const sf_range *range;
    size_t rsize; /* bytes of one result */
    /* Further ranges and how they combine with `range` (sf_query's more,
     * more_count and every): more_count 0 is `range` alone. */
    const sf_range *more;
    size_t more_count;
    int every;
    /* Many ranges as a set (sf_set_make), or NULL: then `more` is compared
     * range by range. */
    const struct sf_set *set;
} sf_plan;

/* Whether values of type t are signed (time64 ticks included). */
static inline int sf_type_is_signed(sf_type t) {
    return t == SF_T_I8 || t == SF_T_I16 || t == SF_T_I32 || t == SF_T_I64 || t == SF_T_TIME64;
}

/* Whether every value of range a lies below every value of range b, both as
 * sf_resolve_range made them (not inverted), in type t's order (bounds.c). */
int sf_range_below(sf_type t, const sf_range *a, const sf_range *b);

/* ---- ranges.c: many ranges as a set ---- */

/* From this many ranges on (the plan's range and its `more`) a query looks
 * each element up in a set instead of comparing it with every range: past
 * SF_RANGES_AT_ONCE, bits_ranges takes another pass over each block per 8
 * ranges, while a lookup costs the same whatever their number (isin's sets
 * of up to 10^6 items). */
#define SF_SET_MIN_RANGES (SF_RANGES_AT_ONCE + 1)
/* A binary search costs a scalar step per halving where bits_ranges compares
 * a vector with 8 ranges a pass: the sorted intervals only from this many
 * ranges on (a bitmap from SF_SET_MIN_RANGES). */
#define SF_SET_SEARCH_MIN_RANGES 64

/* The union of a query's ranges, for lookups: integers in a bitmap when their
 * span is small (at most SF_SET_BITMAP_MIN bits, or 64 per range); else, when
 * every range is one value (isin's items), those values in a hash table;
 * else sorted disjoint intervals binary-searched. A bitmap of 2^20 bits (128
 * KiB) stays in the second-level cache of every CPU measured (Zen 3's is 512
 * KiB) and answers without a branch: 10^7 int64 against 100 items over [0,
 * 10^6) took 15 ms (a bitmap) against 38-54 from the hash table (AMD EPYC
 * Zen 3, family 25 model 1, loaded); calloc's cost, a few microseconds, is
 * paid once a call. */
#define SF_SET_BITMAP_MIN ((uint64_t)1 << 20)
typedef struct sf_set {
    int negate;           /* keep what the union does not hold (every = 1, inverted ranges) */
    uint64_t width;       /* integers: the element width's all-ones */
    uint64_t base, bits;  /* bitmap: x is in when d = (x - base) & width < bits, bit d set */
    uint64_t *bitmap;     /* NULL: no bitmap */
    uint64_t *table;      /* hash: open addressing, `empty` in a free slot; NULL: no table */
    uint64_t empty;       /* the free slots' mark (a value in the set is had_empty) */
    int had_empty, shift; /* shift: 64 - log2 of the slots */
    int window;           /* table: every key within SF_SET_WINDOW slots of its own (no wrap) */
    size_t k;             /* intervals: how many */
    uint64_t *ends;       /* integers: lo, hi of each, ascending in unsigned order */
    double *fends;        /* floats: flo, fhi of each, ascending */
} sf_set;

/* The plan's ranges as a set, when there are at least SF_SET_MIN_RANGES (a
 * bitmap) or SF_SET_SEARCH_MIN_RANGES (intervals) and they are a union
 * (every = 0, none inverted) or the outside of one (every = 1, all
 * inverted): 1 with *s made (sf_set_free it), else 0 (other plans, or no
 * memory: the ranges are then compared pass after pass). */
int sf_set_make(const sf_plan *p, sf_set *s);
void sf_set_free(sf_set *s);

/* sf_scan_kernel of a plan with further ranges (lib/ranges.c). */
size_t sf_scan_ranges(const sf_plan *p, const void *x, const uint8_t *valid, size_t n,
                     uint64_t base, void *out);

/* The plan's kernel function on n elements at x read in place (valid: their
 * validity bitmap, or NULL), positions from `base`. Inline: the driver's
 * one-call paths and serial.c's blocks both make this call, per call. */
static inline size_t sf_scan_kernel(const sf_plan *p, const void *x, const uint8_t *valid, size_t n,
                                    uint64_t base, void *out) {
    const sf_kernel *k = p->kernel;
    if (p->more_count)
        return sf_scan_ranges(p, x, valid, n, base, out);
    if (valid) {
        switch (p->op) {
        case SF_OP_INDEX32:
            return k->index32_valid[p->elem](x, valid, n, p->range, (uint32_t)base,
                                             (uint32_t *)out);
        case SF_OP_INDEX64:
            return k->index64_valid[p->elem](x, valid, n, p->range, base, (uint64_t *)out);
        case SF_OP_VALUES:
            return k->values_valid[p->elem](x, valid, n, p->range, out);
        case SF_OP_MASK8:
            return k->mask8_valid[p->elem](x, valid, n, p->range, (uint8_t *)out);
        case SF_OP_BITS:
            return k->bits_valid[p->elem](x, valid, n, p->range, (uint8_t *)out);
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
    case SF_OP_MASK8:
        return k->mask8[p->elem](x, n, p->range, (uint8_t *)out);
    case SF_OP_BITS:
        return k->bits[p->elem](x, n, p->range, (uint8_t *)out);
    default:
        return k->count[p->elem](x, n, p->range);
    }
}

/* ---- serial.c: one block on the calling thread (the driver's and a team's) ---- */

/* A block on the calling thread, with room for block->n results in out (NULL
 * for a count): read in place where a kernel can, else in small native
 * blocks. Returns the results found. */
size_t sf_scan_serial(const sf_plan *p, const sf_run *block, void *out);

/* The source's next run, into a zeroed *run as sf_source's contract says
 * (fields it leaves alone: no nulls, not bit-packed); 0 when none is left. */
int sf_next_run(sf_source *src, sf_run *run);

/* n more elements done: past SF_CANCEL_BLOCK since the last poll (*since_cancel
 * counts), whether the caller wants the call stopped. */
int sf_cancel_due(const sf_exec *x, size_t *since_cancel, size_t n);

/* How many threads a run of n elements gets when `threads` are asked for
 * (the automatic count already made): never more than one per
 * SF_MIN_ELEMENTS_PER_THREAD elements, nor SF_MAX_THREADS. */
int sf_team_size(size_t n, int threads);

/* ---- masks.c: sf_execute of the masks (SF_OP_MASK8, SF_OP_BITS) ---- */

/* sf_execute's mask path (its contract is the header's), `within` refused by
 * the caller. */
int sf_execute_mask(const sf_plan *p, sf_source *src, unsigned char *out, size_t capacity,
                    const sf_exec *x, size_t *found);

/* ---- team.c: a run on several threads ---- */

/* The run on `threads` threads (at least 2), one spawn for all of it; results
 * to out (room for `room`, the rest counted only; a mask's results go in
 * place, out + sf_output_bytes of the elements before them, and need room for
 * every element and out byte-aligned to the run's first element). 0 and *found, or
 * SF_ECANCELLED with *found = the results of the blocks done (a prefix of the
 * run), or 1 when it could not start (no memory): the caller runs it itself. */
int sf_scan_team(const sf_plan *p, const sf_run *run, unsigned char *out, size_t room, int threads,
                const sf_exec *x, size_t *found);

/* ---- threads.c ---- */

/* Run task(ctx, i) for every i in [0, n): i = 0 on the calling thread, the
 * others on threads of their own (or here, if no thread can be had). */
void sf_parallel_for(size_t n, void (*task)(void *ctx, size_t i), void *ctx);

#endif
