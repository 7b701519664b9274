/*
 * The packed column's rows on x86 (packed_body.h), included by avx2.c and
 * avx512.c with PK_NAME defined: 256-bit vectors where the file is built
 * without AVX-512, else 512-bit ones. A row is one or two loads of the lanes'
 * words per vector, two shifts by the row's bit offset (vector shifts by the
 * word's width or more give 0, so a value that starts its word takes nothing
 * of the next), an AND with the width's mask, and the range test
 * value - a <= span, unsigned: AVX2 by min_epu32 (32-bit words) or a signed
 * compare of sign-flipped lanes (64-bit words), AVX-512 by its unsigned
 * compares into mask registers.
 */
#include <immintrin.h>
#include <stdint.h>

#include "packed.h"

#if defined(__AVX512F__)

#define PK_LOAD(p) _mm512_loadu_si512((const void *)(p))
#define PK_VALUES(lo, hi, W, g, n)                                             \
    _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi##W(PK_LOAD((lo) + (g) * (n)), sl),    \
                                     _mm512_slli_epi##W(PK_LOAD((hi) + (g) * (n)), sh)),   \
                     wm)

static inline uint64_t pk_row32(const uint32_t *lo, const uint32_t *hi, unsigned s,
                                uint32_t wmask, uint32_t a, uint32_t span) {
    const unsigned sl = s, sh = 32 - s;
    const __m512i wm = _mm512_set1_epi32((int)wmask), av = _mm512_set1_epi32((int)a),
                  sv = _mm512_set1_epi32((int)span);
    const __m512i v0 = PK_VALUES(lo, hi, 32, 0, 16);
    const __m512i v1 = PK_VALUES(lo, hi, 32, 1, 16);
    const uint64_t m0 = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v0, av), sv);
    const uint64_t m1 = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v1, av), sv);
    return m0 | m1 << 16;
}

static inline uint64_t pk_row64(const uint64_t *lo, const uint64_t *hi, unsigned s,
                                uint64_t wmask, uint64_t a, uint64_t span) {
    const unsigned sl = s, sh = 64 - s;
    const __m512i wm = _mm512_set1_epi64((long long)wmask), av = _mm512_set1_epi64((long long)a),
                  sv = _mm512_set1_epi64((long long)span);
    const __m512i v0 = PK_VALUES(lo, hi, 64, 0, 8);
    const __m512i v1 = PK_VALUES(lo, hi, 64, 1, 8);
    const uint64_t m0 = _mm512_cmple_epu64_mask(_mm512_sub_epi64(v0, av), sv);
    const uint64_t m1 = _mm512_cmple_epu64_mask(_mm512_sub_epi64(v1, av), sv);
    return m0 | m1 << 8;
}

static inline void pk_decode32(const uint32_t *lo, const uint32_t *hi, unsigned s, uint32_t wmask,
                               uint32_t *out) {
    const unsigned sl = s, sh = 32 - s;
    const __m512i wm = _mm512_set1_epi32((int)wmask);
    _mm512_storeu_si512((void *)out, PK_VALUES(lo, hi, 32, 0, 16));
    _mm512_storeu_si512((void *)(out + 16), PK_VALUES(lo, hi, 32, 1, 16));
}

static inline void pk_decode64(const uint64_t *lo, const uint64_t *hi, unsigned s, uint64_t wmask,
                               uint64_t *out) {
    const unsigned sl = s, sh = 64 - s;
    const __m512i wm = _mm512_set1_epi64((long long)wmask);
    _mm512_storeu_si512((void *)out, PK_VALUES(lo, hi, 64, 0, 8));
    _mm512_storeu_si512((void *)(out + 8), PK_VALUES(lo, hi, 64, 1, 8));
}

/* Positions by compressing a vector of them: into a register and stored whole
 * where the memory form of the compress is microcoded (AVX512_REGISTER_FORM,
 * avx512_core.h), else stored compressed. */
#define PK_HAVE_EMIT 1
#if AVX512_REGISTER_FORM
#define PK_COMPRESS(W, out, k, v) _mm512_storeu_si512((void *)(out), _mm512_maskz_compress_epi##W(k, v))
#else
#define PK_COMPRESS(W, out, k, v) _mm512_mask_compressstoreu_epi##W((void *)(out), k, v)
#endif

static inline size_t pk_emit32(uint64_t m, unsigned lanes, uint32_t first, uint32_t *out) {
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    size_t c = 0;
    for (unsigned g = 0; g < lanes; g += 16) {
        const __mmask16 k = (__mmask16)(m >> g);
        PK_COMPRESS(32, out + c, k, _mm512_add_epi32(_mm512_set1_epi32((int)(first + g)), iota));
        c += (size_t)__builtin_popcount(k);
    }
    return c;
}

static inline size_t pk_emit64(uint64_t m, unsigned lanes, uint64_t first, uint64_t *out) {
    const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    size_t c = 0;
    for (unsigned g = 0; g < lanes; g += 8) {
        const __mmask8 k = (__mmask8)(m >> g);
        PK_COMPRESS(64, out + c, k,
                    _mm512_add_epi64(_mm512_set1_epi64((long long)(first + g)), iota));
        c += (size_t)__builtin_popcount(k);
    }
    return c;
}

/* A row's 32 bytes whatever its lanes: past 16 lanes they are 0, and the next
 * row (or the slack) takes them. */
static inline void pk_bytes(uint64_t m, unsigned lanes, uint8_t *out) {
    (void)lanes;
    _mm256_storeu_si256((__m256i *)(void *)out,
                        _mm256_maskz_mov_epi8((__mmask32)m, _mm256_set1_epi8(1)));
}

#else /* AVX2 */

#define PK_LOAD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define PK_VALUES(lo, hi, W, g, n)                                                       \
    _mm256_and_si256(_mm256_or_si256(_mm256_srli_epi##W(PK_LOAD((lo) + (g) * (n)), sl),    \
                                     _mm256_slli_epi##W(PK_LOAD((hi) + (g) * (n)), sh)),   \
                     wm)

static inline uint64_t pk_row32(const uint32_t *lo, const uint32_t *hi, unsigned s,
                                uint32_t wmask, uint32_t a, uint32_t span) {
    const unsigned sl = s, sh = 32 - s;
    const __m256i wm = _mm256_set1_epi32((int)wmask), av = _mm256_set1_epi32((int)a),
                  sv = _mm256_set1_epi32((int)span);
    uint64_t m = 0;
    for (unsigned g = 0; g < 4; g++) {
        const __m256i x = _mm256_sub_epi32(PK_VALUES(lo, hi, 32, g, 8), av);
        const __m256i in = _mm256_cmpeq_epi32(_mm256_min_epu32(x, sv), x);
        m |= (uint64_t)(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(in)) << (8 * g);
    }
    return m;
}

static inline uint64_t pk_row64(const uint64_t *lo, const uint64_t *hi, unsigned s,
                                uint64_t wmask, uint64_t a, uint64_t span) {
    const unsigned sl = s, sh = 64 - s;
    const __m256i sign = _mm256_set1_epi64x((long long)0x8000000000000000u);
    const __m256i wm = _mm256_set1_epi64x((long long)wmask), av = _mm256_set1_epi64x((long long)a),
                  sv = _mm256_xor_si256(_mm256_set1_epi64x((long long)span), sign);
    uint64_t out = 0;
    for (unsigned g = 0; g < 4; g++) {
        const __m256i x = _mm256_xor_si256(_mm256_sub_epi64(PK_VALUES(lo, hi, 64, g, 4), av), sign);
        const __m256i above = _mm256_cmpgt_epi64(x, sv);
        out |= (uint64_t)(~(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(above)) & 15u) << (4 * g);
    }
    return out;
}

static inline void pk_decode32(const uint32_t *lo, const uint32_t *hi, unsigned s, uint32_t wmask,
                               uint32_t *out) {
    const unsigned sl = s, sh = 32 - s;
    const __m256i wm = _mm256_set1_epi32((int)wmask);
    for (unsigned g = 0; g < 4; g++)
        _mm256_storeu_si256((__m256i *)(void *)(out + 8 * g), PK_VALUES(lo, hi, 32, g, 8));
}

static inline void pk_decode64(const uint64_t *lo, const uint64_t *hi, unsigned s, uint64_t wmask,
                               uint64_t *out) {
    const unsigned sl = s, sh = 64 - s;
    const __m256i wm = _mm256_set1_epi64x((long long)wmask);
    for (unsigned g = 0; g < 4; g++)
        _mm256_storeu_si256((__m256i *)(void *)(out + 4 * g), PK_VALUES(lo, hi, 64, g, 4));
}


/* Positions from x86_tables.h's lists of set lanes, 8 (or 4) lanes a store. */
#define PK_HAVE_EMIT 1
#include "x86_tables.h"

static inline size_t pk_emit32(uint64_t m, unsigned lanes, uint32_t first, uint32_t *out) {
    size_t c = 0;
    for (unsigned g = 0; g < lanes; g += 8) {
        const unsigned byte = (unsigned)(m >> g) & 255u;
        const __m256i lane = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)&sf_x86_idx8[byte]));
        _mm256_storeu_si256((__m256i *)(void *)(out + c),
                            _mm256_add_epi32(_mm256_set1_epi32((int)(first + g)), lane));
        c += (size_t)__builtin_popcount(byte);
    }
    return c;
}

static inline size_t pk_emit64(uint64_t m, unsigned lanes, uint64_t first, uint64_t *out) {
    size_t c = 0;
    for (unsigned g = 0; g < lanes; g += 4) {
        const unsigned nib = (unsigned)(m >> g) & 15u;
        const __m256i lane = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128((int)(uint32_t)sf_x86_idx8[nib]));
        _mm256_storeu_si256((__m256i *)(void *)(out + c),
                            _mm256_add_epi64(_mm256_set1_epi64x((long long)(first + g)), lane));
        c += (size_t)__builtin_popcount(nib);
    }
    return c;
}

/* A row's 32 bytes whatever its lanes (past 16 they are 0, and the next row
 * or the slack takes them): byte j gets bit j of m by a byte shuffle of m's
 * bytes and a test of its bit. */
static inline void pk_bytes(uint64_t m, unsigned lanes, uint8_t *out) {
    (void)lanes;
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2,
                                          2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x((long long)0x8040201008040201u);
    const __m256i v = _mm256_and_si256(_mm256_shuffle_epi8(_mm256_set1_epi32((int)(uint32_t)m), pick), bit);
    _mm256_storeu_si256((__m256i *)(void *)out,
                        _mm256_and_si256(_mm256_cmpeq_epi8(v, bit), _mm256_set1_epi8(1)));
}

#endif

#include "packed_body.h"
