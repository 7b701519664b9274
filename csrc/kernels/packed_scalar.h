/*
 * The packed column's scalar twin (packed_body.h's rows, one lane at a time),
 * included by scalar.c: the kernel every other packed kernel is tested
 * against, and the one NEON, SVE and SSE4.1 run in this first cut
 * (lib/packed.c's choice).
 */
#include <stdint.h>

#include "packed.h"

#define PK_NAME scalar

/* Lane j's value of a row, s bits into word lo[j]: no shift by the word's
 * width (undefined in C) when the value starts the word. */
#define PK_LANE(lo, hi, s, wmask, BITS, j)                                               \
    (((lo)[j] >> (s) | ((s) ? (hi)[j] << ((BITS) - (s)) : 0)) & (wmask))

static inline uint64_t pk_row32(const uint32_t *lo, const uint32_t *hi, unsigned s,
                                uint32_t wmask, uint32_t a, uint32_t span) {
    uint64_t m = 0;
    for (unsigned j = 0; j < SF_PACKED_LANES32; j++)
        m |= (uint64_t)((uint32_t)(PK_LANE(lo, hi, s, wmask, 32, j) - a) <= span) << j;
    return m;
}

static inline uint64_t pk_row64(const uint64_t *lo, const uint64_t *hi, unsigned s,
                                uint64_t wmask, uint64_t a, uint64_t span) {
    uint64_t m = 0;
    for (unsigned j = 0; j < SF_PACKED_LANES64; j++)
        m |= (uint64_t)((uint64_t)(PK_LANE(lo, hi, s, wmask, 64, j) - a) <= span) << j;
    return m;
}

static inline void pk_decode32(const uint32_t *lo, const uint32_t *hi, unsigned s, uint32_t wmask,
                               uint32_t *out) {
    for (unsigned j = 0; j < SF_PACKED_LANES32; j++)
        out[j] = PK_LANE(lo, hi, s, wmask, 32, j);
}

static inline void pk_decode64(const uint64_t *lo, const uint64_t *hi, unsigned s, uint64_t wmask,
                               uint64_t *out) {
    for (unsigned j = 0; j < SF_PACKED_LANES64; j++)
        out[j] = PK_LANE(lo, hi, s, wmask, 64, j);
}

#include "packed_body.h"
