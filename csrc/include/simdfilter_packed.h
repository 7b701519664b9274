/*
 * A bit-packed column (frame of reference per block), and range queries on it
 * that read its packed words: lib/packed.c. The Python class is
 * simdfilter.Packed (python/simdfilter/_packed.py, csrc/cpython/packed_py.c).
 *
 * Values are integers of 1, 2, 4 or 8 bytes, signed or not (bools as bytes,
 * datetime64/timedelta64 as int64 ticks). Each is compared as its image
 * v - min(type), an unsigned number in the type's order. Per block of
 * `block` values (a multiple of SF_PACKED_BLOCK, at most SF_PACKED_BLOCK_MAX)
 * the column keeps the least image (ref), the greatest offset above it
 * (maxoff) and its bit width (width, 0..64), and the offsets in
 * block * width / 8 bytes at data + start[b] (start has one more entry, the
 * total); the last block's padding offsets are 0. The layout of a block's
 * words is the kernels' (kernels/packed.h).
 */
#ifndef SIMDFILTER_PACKED_H
#define SIMDFILTER_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "simdfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SF_PACKED_BLOCK ((size_t)1024)
#define SF_PACKED_BLOCK_MAX ((size_t)1 << 16)
/* Results a query may write past its last one (whole vectors): the room its
 * out needs beyond them. */
#define SF_PACKED_OUT_SLACK ((size_t)32)

typedef struct sf_packed_column {
    size_t n, block;
    unsigned bytes; /* 1, 2, 4 or 8 */
    int is_signed;
    uint64_t *ref, *maxoff, *start;
    uint8_t *width;
    unsigned char *data;
} sf_packed_column;

/* The blocks of a column of n values: ceil(n / block). */
static inline size_t sf_packed_block_count(size_t n, size_t block) {
    return block ? (n + block - 1) / block : 0;
}

/* The packed kernel that runs for kernel k (NULL: the process default):
 * its name ("scalar", "avx2", "avx512", "avx512_zen4"). */
const char *sf_packed_kernel_name(const sf_kernel *k);

/* The build's first pass over values[0, n): ref, maxoff, width and start of
 * every block (c's arrays sized by sf_packed_block_count, start one more).
 * Returns the bytes data needs. */
uint64_t sf_packed_measure(sf_packed_column *c, const void *values);
/* The second: the offsets into c->data. SF_OK, or SF_ENOMEM_PACKED. */
int sf_packed_fill(const sf_kernel *k, sf_packed_column *c, const void *values);
/* Every value back into out[0, n) (c->bytes each). SF_OK or SF_ENOMEM_PACKED. */
int sf_packed_decode(const sf_kernel *k, const sf_packed_column *c, void *out);

#define SF_ENOMEM_PACKED (-20) /* no memory for a block's scratch */

/* A range query on the column: the images in [lo, hi] (empty = 1: none),
 * or with invert those outside. op is SF_OP_COUNT, SF_OP_INDEX32 or
 * SF_OP_INDEX64 (positions into out), SF_OP_VALUES (the values, c->bytes
 * each) or SF_OP_MASK8 (n bytes, 1 where kept), out having room for n +
 * SF_PACKED_OUT_SLACK results. The matches
 * counted into *found. SF_OK, SF_EINVAL (another op) or SF_ENOMEM_PACKED. */
int sf_packed_query(const sf_kernel *k, const sf_packed_column *c, sf_op op, uint64_t lo,
                    uint64_t hi, int empty, int invert, void *out, size_t *found);

#ifdef __cplusplus
}
#endif

#endif
