/*
 * The packed column's kernels (contract: packed.h), written once over an
 * instruction set's rows. The kernel file defines, before including this:
 *
 *   PK_NAME   the kernel's name: the table is sf_packed_<PK_NAME>
 *   uint64_t pk_row32(const uint32_t *lo, const uint32_t *hi, unsigned s,
 *                     uint32_t wmask, uint32_t a, uint32_t span)
 *             the 32 lanes' values of one row (lane j: lo[j] >> s, with the
 *             bits of hi[j] above them, ANDed with wmask), bit j set when
 *             value - a <= span; hi is lo's next row, or lo itself on a lane's
 *             last word, and its bits above the value's width are masked off
 *             (shifts by the word's width give 0 in vector shifts; the scalar
 *             twin does not shift when s is 0)
 *   uint64_t pk_row64(const uint64_t *lo, const uint64_t *hi, unsigned s,
 *                     uint64_t wmask, uint64_t a, uint64_t span)
 *             the same for 16 lanes of 64-bit words
 *   void pk_decode32(lo, hi, s, wmask, uint32_t *out), pk_decode64(...)
 *             the row's values into out[0, 32) or out[0, 16)
 *
 * and, with PK_HAVE_EMIT defined, what a row's bits m (of `lanes`, 32 or 16)
 * become, each free to write up to SF_PACKED_SLACK results past its last:
 *   size_t pk_emit32(uint64_t m, unsigned lanes, uint32_t first, uint32_t *out)
 *   size_t pk_emit64(uint64_t m, unsigned lanes, uint64_t first, uint64_t *out)
 *             first + j for each bit j set, ascending; how many
 *   void pk_bytes(uint64_t m, unsigned lanes, uint8_t *out)
 *             out[j] = bit j of m for j in [0, lanes)
 *
 * What each row's bits then become (counts, positions, bytes) and the packing
 * are plain C here, built with the file's flags: the compiler vectorizes the
 * packing's 32-lane loops on its own.
 */
#include <string.h>

#include "bits.h"
#include "packed.h"

/* Row k's bits of the block, kept or not (invert), the padding past n cleared,
 * in m, then BODY: L lanes of BITS-bit words; k counts rows from `from`. */
#define PK_ROWS_FROM(q, from, L, BITS, WORD, ROW, m, k, BODY)                            \
    do {                                                                                 \
        const WORD *d_ = (const WORD *)(q)->data;                                        \
        const unsigned w_ = (q)->width;                                                  \
        const size_t words_ = (q)->block * w_ / SF_PACKED_BLOCK_UNIT;                    \
        const WORD wmask_ = w_ >= BITS ? (WORD)~(WORD)0 : (WORD)(((WORD)1 << w_) - 1);   \
        const size_t rows_ = ((q)->n + L - 1) / L;                                       \
        const uint64_t all_ = ((uint64_t)1 << L) - 1, flip_ = (q)->invert ? all_ : 0;    \
        const WORD a_ = (WORD)(q)->a, span_ = (WORD)(q)->span;                           \
        for (size_t k = (from); k < rows_; k++) {                                        \
            const size_t p_ = k * w_, r_ = p_ / BITS;                                    \
            const size_t rn_ = r_ + 1 < words_ ? r_ + 1 : r_;                            \
            uint64_t m = ROW(d_ + r_ * L, d_ + rn_ * L, (unsigned)(p_ % BITS), wmask_, a_, \
                             span_) ^                                                    \
                         flip_;                                                          \
            if ((k + 1) * L > (q)->n)                                                    \
                m &= ((uint64_t)1 << ((q)->n - k * L)) - 1;                              \
            BODY;                                                                        \
        }                                                                                \
    } while (0)
#define PK_ROWS(q, L, BITS, WORD, ROW, m, k, BODY)                                       \
    PK_ROWS_FROM(q, 0, L, BITS, WORD, ROW, m, k, BODY)

/* One loop for every width. FastLanes' way, a loop of its own per width with
 * every row's words and shifts constants, was tried on count (issue 45's first
 * cut): on AMD EPYC Zen 4 (2-core KVM, loaded, CPU time), count over 64 Mi
 * uint32 of 12-bit span went 13.1 -> 17.5 G values/s (AVX-512) and 9.4 -> 13.5
 * (AVX2), but it added ~10 s of gcc to each of the three x86 vector files
 * (the extension's build 41 -> 70 s of CPU), paid in every wheel and harness
 * build of CI: left for a build that compiles it once, not three times. */
#define PK_EACH_ROW(q, m, k, BODY)                                                       \
    do {                                                                                 \
        if ((q)->width <= 32)                                                            \
            PK_ROWS(q, SF_PACKED_LANES32, 32, uint32_t, pk_row32, m, k, BODY);           \
        else                                                                             \
            PK_ROWS(q, SF_PACKED_LANES64, 64, uint64_t, pk_row64, m, k, BODY);           \
    } while (0)

static size_t pk_count(const sf_packed_ask *q) {
    size_t c = 0;
    PK_EACH_ROW(q, m, k, c += sf_popcount64(m));
    return c;
}

#ifndef PK_HAVE_EMIT
/* A row's positions by its set bits, lowest first: one step per position. */
static inline size_t pk_emit32(uint64_t m, unsigned lanes, uint32_t first, uint32_t *out) {
    size_t c = 0;
    (void)lanes;
    for (; m; m &= m - 1)
        out[c++] = first + (uint32_t)__builtin_ctzll(m);
    return c;
}

static inline size_t pk_emit64(uint64_t m, unsigned lanes, uint64_t first, uint64_t *out) {
    size_t c = 0;
    (void)lanes;
    for (; m; m &= m - 1)
        out[c++] = first + (uint64_t)__builtin_ctzll(m);
    return c;
}

static inline void pk_bytes(uint64_t m, unsigned lanes, uint8_t *out) {
    for (unsigned j = 0; j < lanes; j++)
        out[j] = (uint8_t)((m >> j) & 1);
}
#endif

/* A vector kernel emits every row, empty or not: at 1 % selected a quarter of
 * the rows hold a position, a branch no predictor learns (perf on AMD Zen 4:
 * the mispredicted test cost 3x the row's compare); the scalar twin's loop
 * tests anyway. */
#define PK_POSITIONS(EMIT, T, L) (c += EMIT(m, L, (T)(base + k * (L)), out + c))

static size_t pk_index32(const sf_packed_ask *q, uint32_t base, uint32_t *out) {
    size_t c = 0;
    if (q->width <= 32)
        PK_ROWS(q, SF_PACKED_LANES32, 32, uint32_t, pk_row32, m, k,
                PK_POSITIONS(pk_emit32, uint32_t, SF_PACKED_LANES32));
    else
        PK_ROWS(q, SF_PACKED_LANES64, 64, uint64_t, pk_row64, m, k,
                PK_POSITIONS(pk_emit32, uint32_t, SF_PACKED_LANES64));
    return c;
}

static size_t pk_index64(const sf_packed_ask *q, uint64_t base, uint64_t *out) {
    size_t c = 0;
    if (q->width <= 32)
        PK_ROWS(q, SF_PACKED_LANES32, 32, uint32_t, pk_row32, m, k,
                PK_POSITIONS(pk_emit64, uint64_t, SF_PACKED_LANES32));
    else
        PK_ROWS(q, SF_PACKED_LANES64, 64, uint64_t, pk_row64, m, k,
                PK_POSITIONS(pk_emit64, uint64_t, SF_PACKED_LANES64));
    return c;
}

static size_t pk_mask8(const sf_packed_ask *q, uint8_t *out) {
    size_t c = 0;
    if (q->width <= 32)
        PK_ROWS(q, SF_PACKED_LANES32, 32, uint32_t, pk_row32, m, k,
                (pk_bytes(m, SF_PACKED_LANES32, out + k * SF_PACKED_LANES32),
                 c += sf_popcount64(m)));
    else
        PK_ROWS(q, SF_PACKED_LANES64, 64, uint64_t, pk_row64, m, k,
                (pk_bytes(m, SF_PACKED_LANES64, out + k * SF_PACKED_LANES64),
                 c += sf_popcount64(m)));
    return c;
}

#define PK_DECODE(L, BITS, WORD, DECODE)                                                 \
    do {                                                                                 \
        const WORD *d_ = (const WORD *)q->data;                                          \
        const unsigned w_ = q->width;                                                    \
        const size_t words_ = q->block * w_ / SF_PACKED_BLOCK_UNIT;                      \
        const WORD wmask_ = w_ >= BITS ? (WORD)~(WORD)0 : (WORD)(((WORD)1 << w_) - 1);   \
        WORD *o_ = (WORD *)out;                                                          \
        for (size_t k = 0; k < q->block / (L); k++) {                                    \
            const size_t p_ = k * w_, r_ = p_ / BITS;                                    \
            const size_t rn_ = r_ + 1 < words_ ? r_ + 1 : r_;                            \
            DECODE(d_ + r_ * (L), d_ + rn_ * (L), (unsigned)(p_ % BITS), wmask_, o_ + k * (L)); \
        }                                                                                \
    } while (0)

static void pk_decode(const sf_packed_ask *q, void *out) {
    if (q->width <= 32)
        PK_DECODE(SF_PACKED_LANES32, 32, uint32_t, pk_decode32);
    else
        PK_DECODE(SF_PACKED_LANES64, 64, uint64_t, pk_decode64);
}

/* Each lane's values one after the other into its words: row k's offsets are
 * ORed into the lanes' open words at bit s; a word full is stored and the
 * bits of the values that did not fit open the next. B / L * w is a multiple
 * of the word's bits (SF_PACKED_BLOCK_UNIT), so the last row closes the last
 * word. */
#define PK_PACK(L, BITS, WORD)                                                           \
    do {                                                                                 \
        const WORD *o_ = (const WORD *)offsets;                                          \
        WORD *d_ = (WORD *)data, acc_[L];                                                \
        unsigned s_ = 0;                                                                 \
        size_t r_ = 0;                                                                   \
        memset(acc_, 0, sizeof acc_);                                                    \
        for (size_t k = 0; k < block / (L); k++) {                                       \
            const WORD *row_ = o_ + k * (L);                                             \
            for (size_t j = 0; j < (L); j++)                                             \
                acc_[j] |= (WORD)(row_[j] << s_);                                        \
            if (s_ + width < BITS) {                                                     \
                s_ += width;                                                             \
                continue;                                                                \
            }                                                                            \
            memcpy(d_ + r_++ * (L), acc_, sizeof acc_);                                  \
            const unsigned used_ = BITS - s_;                                            \
            if (used_ < width)                                                           \
                for (size_t j = 0; j < (L); j++)                                         \
                    acc_[j] = (WORD)(row_[j] >> used_);                                  \
            else                                                                         \
                memset(acc_, 0, sizeof acc_);                                            \
            s_ = s_ + width - BITS;                                                      \
        }                                                                                \
    } while (0)

static void pk_pack(const void *offsets, unsigned width, size_t block, void *data) {
    if (width == 0)
        return;
    if (width <= 32)
        PK_PACK(SF_PACKED_LANES32, 32, uint32_t);
    else
        PK_PACK(SF_PACKED_LANES64, 64, uint64_t);
}

const sf_packed_kernel SF_CAT(sf_packed_, PK_NAME) = {
    SF_STR(PK_NAME), pk_count, pk_index32, pk_index64, pk_mask8, pk_decode, pk_pack,
};
