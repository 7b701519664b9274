/*
 * AVX2 kernel: compiled with -mavx2 -mbmi -mbmi2 -mpopcnt and nothing else.
 *
 * Every operation is one loop over blocks of a few vectors, written once for
 * all element kinds (the kind is a compile-time constant, see kernel_common.h):
 *
 *   1. compare a vector with the range, giving one mask lane per element;
 *   2. movemask that into one bit per element (bit i = element i is kept);
 *   3. compact: for each group of 8 (or 4) output lanes, look the group's bits
 *      up in a table of lane permutations (x86_tables.h), permute the position
 *      vector or the data vector, store the whole vector at out + k, and
 *      advance k by the popcount of the bits.
 *
 * Whole-vector stores in step 3 stay inside out[0, n): a group of G inputs
 * starts at some i with k <= i (we never keep more than we have read), its
 * store covers out[k, k + G) and k + G <= i + G <= n. The last partial block
 * runs the same step on a zero-padded copy of the input, into a scratch
 * buffer, so nothing is read past x[n-1] or written past out[n-1].
 */
#include <immintrin.h>

#include "kernel_common.h"
#include "x86_tables.h"

enum { AVX2_INDEX32, AVX2_INDEX64, AVX2_VALUES };

SF_INLINE size_t avx2_lanes(sf_elem kind) { return 32 / sf_kind_size(kind); }

/*
 * The range, broadcast. For integer kinds `a` is lo and `b` is hi - lo, both
 * with the sign bit flipped: x86 has only signed compares before AVX-512, and
 * (x - lo) <= span unsigned  <=>  ((x - lo) ^ sign) <= (span ^ sign) signed.
 * Flipping the sign bit is adding 2^(w-1) mod 2^w, so x - (lo ^ sign) already
 * is (x - lo) ^ sign: the flip costs nothing per element.
 */
typedef struct avx2_bounds {
    __m256i a, b;
} avx2_bounds;

SF_INLINE avx2_bounds avx2_setup(sf_elem kind, const sf_range *r) {
    const uint64_t lo = r->lo, span = sf_span(r);
    avx2_bounds c;
    switch (kind) {
    case SF_U8:
        c.a = _mm256_set1_epi8((char)(uint8_t)(lo ^ 0x80u));
        c.b = _mm256_set1_epi8((char)(uint8_t)(span ^ 0x80u));
        break;
    case SF_U16:
        c.a = _mm256_set1_epi16((short)(uint16_t)(lo ^ 0x8000u));
        c.b = _mm256_set1_epi16((short)(uint16_t)(span ^ 0x8000u));
        break;
    case SF_U32:
        c.a = _mm256_set1_epi32((int)(uint32_t)(lo ^ 0x80000000u));
        c.b = _mm256_set1_epi32((int)(uint32_t)(span ^ 0x80000000u));
        break;
    case SF_U64:
        c.a = _mm256_set1_epi64x((long long)(lo ^ 0x8000000000000000u));
        c.b = _mm256_set1_epi64x((long long)(span ^ 0x8000000000000000u));
        break;
    case SF_F32: /* exact: the contract says both bounds are floats */
        c.a = _mm256_castps_si256(_mm256_set1_ps((float)r->flo));
        c.b = _mm256_castps_si256(_mm256_set1_ps((float)r->fhi));
        break;
    default: /* SF_F64 */
        c.a = _mm256_castpd_si256(_mm256_set1_pd(r->flo));
        c.b = _mm256_castpd_si256(_mm256_set1_pd(r->fhi));
        break;
    }
    return c;
}

/* Integer kinds compare for "outside": the signed greater-than is one
 * instruction, while "inside" would need span + 1, which wraps for the full
 * range. Float kinds compare for "inside" with ordered compares (NaN fails). */
SF_INLINE int avx2_hits_outside(sf_elem kind) { return !sf_is_float(kind); }

SF_INLINE __m256i avx2_load(const unsigned char *p) {
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* All-ones lanes where x hits (see avx2_hits_outside). */
SF_INLINE __m256i avx2_hits(sf_elem kind, const avx2_bounds *c, __m256i x) {
    switch (kind) {
    case SF_U8: return _mm256_cmpgt_epi8(_mm256_sub_epi8(x, c->a), c->b);
    case SF_U16: return _mm256_cmpgt_epi16(_mm256_sub_epi16(x, c->a), c->b);
    case SF_U32: return _mm256_cmpgt_epi32(_mm256_sub_epi32(x, c->a), c->b);
    case SF_U64: return _mm256_cmpgt_epi64(_mm256_sub_epi64(x, c->a), c->b);
    case SF_F32: {
        const __m256 v = _mm256_castsi256_ps(x);
        return _mm256_castps_si256(
            _mm256_and_ps(_mm256_cmp_ps(v, _mm256_castsi256_ps(c->a), _CMP_GE_OQ),
                          _mm256_cmp_ps(v, _mm256_castsi256_ps(c->b), _CMP_LE_OQ)));
    }
    default: {
        const __m256d v = _mm256_castsi256_pd(x);
        return _mm256_castpd_si256(
            _mm256_and_pd(_mm256_cmp_pd(v, _mm256_castsi256_pd(c->a), _CMP_GE_OQ),
                          _mm256_cmp_pd(v, _mm256_castsi256_pd(c->b), _CMP_LE_OQ)));
    }
    }
}

/* One bit per element of a hit vector. */
SF_INLINE uint32_t avx2_bits(sf_elem kind, __m256i h) {
    switch (sf_kind_size(kind)) {
    case 1: return (uint32_t)_mm256_movemask_epi8(h);
    case 2: /* signed saturation keeps 0 and -1 as they are */
        return (uint32_t)_mm_movemask_epi8(
            _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
    case 4: return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(h));
    default: return (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(h));
    }
}

/* Kept-element bits of nvec consecutive vectors (at most 32 elements). */
SF_INLINE uint32_t avx2_keep(sf_elem kind, const avx2_bounds *c, const unsigned char *p,
                             size_t nvec) {
    const size_t lanes = avx2_lanes(kind), nbits = nvec * lanes;
    uint32_t m = 0;
    for (size_t v = 0; v < nvec; v++)
        m |= avx2_bits(kind, avx2_hits(kind, c, avx2_load(p + 32 * v))) << (v * lanes);
    if (avx2_hits_outside(kind))
        m ^= nbits >= 32 ? 0xffffffffu : (1u << nbits) - 1u;
    return m;
}

/* vpermd control that moves the lanes set in m (8 lanes of 32 bits) to the
 * front: 8 bytes from the 2 KiB byte table, zero-extended to 8 dwords by one
 * vpmovzxbd. Measured against Highway's 1 KiB nibble table expanded with
 * vpsrlvd and against an 8 KiB table of ready vectors: all three reach ~15 G/s
 * on u32 at 64 Ki elements (Zen 5) in the right code placement, but only this
 * one, unrolled by two, stayed there in every link order we tried; the others
 * fell to ~8 G/s in some (front-end effects of where the linker puts the loop). */
SF_INLINE __m256i avx2_perm8x32(unsigned m) {
    return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)sf_x86_idx8[m]));
}

/* The same for 4 lanes of 64 bits (pairs of 32-bit lanes): 16 entries, so the
 * 64-byte nibble table, expanded with one variable shift (vpermd reads only
 * the low 3 bits of each lane). */
SF_INLINE __m256i avx2_perm4x64(unsigned m) {
    return _mm256_srlv_epi32(_mm256_set1_epi32((int)sf_x86_nib4x64[m]),
                             _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28));
}

/* pshufb control that moves the lanes set in m (8 lanes of w bytes, w = 1 or 2)
 * to the front of a 128-bit vector. */
SF_INLINE __m128i avx2_shuf8(unsigned m, size_t w) {
    __m128i s = _mm_cvtsi64_si128((long long)sf_x86_idx8[m]);
    if (w == 2) {
        s = _mm_unpacklo_epi8(s, s);                                /* j, j      */
        s = _mm_add_epi8(_mm_add_epi8(s, s), _mm_set1_epi16(0x0100)); /* 2j, 2j+1 */
    }
    return s;
}

SF_INLINE void avx2_store(unsigned char *p, __m256i v) {
    _mm256_storeu_si256((__m256i *)(void *)p, v);
}

/* Elements per step: one vector, or two for 64-bit data with 32-bit positions
 * so that a step fills a whole 8-lane vector of positions. */
SF_INLINE size_t avx2_block(int op, sf_elem kind) {
    const size_t lanes = avx2_lanes(kind);
    return (op == AVX2_INDEX32 && lanes < 8) ? 8 : lanes;
}

SF_INLINE size_t avx2_out_size(int op, sf_elem kind) {
    return op == AVX2_INDEX32 ? 4 : op == AVX2_INDEX64 ? 8 : sf_kind_size(kind);
}

/*
 * One block of avx2_block(op, kind) elements at p: append what it keeps to
 * out (k results so far, each avx2_out_size bytes) and return the new k.
 * `ids` holds the positions of the next output group and moves on with it.
 * `valid` masks off the padding lanes of the last, partial block.
 */
SF_INLINE size_t avx2_step(int op, sf_elem kind, const avx2_bounds *c, const unsigned char *p,
                           __m256i *ids, unsigned char *out, size_t k, uint32_t valid) {
    const size_t size = sf_kind_size(kind), lanes = avx2_lanes(kind);
    if (op == AVX2_INDEX32) {
        const size_t nbits = avx2_block(op, kind);
        const uint32_t m = avx2_keep(kind, c, p, nbits / lanes) & valid;
        for (size_t g = 0; g < nbits / 8; g++) {
            const unsigned mg = (m >> (8 * g)) & 0xffu;
            avx2_store(out + 4 * k, _mm256_permutevar8x32_epi32(*ids, avx2_perm8x32(mg)));
            k += (size_t)_mm_popcnt_u32(mg);
            *ids = _mm256_add_epi32(*ids, _mm256_set1_epi32(8));
        }
        return k;
    }
    if (op == AVX2_INDEX64) {
        const uint32_t m = avx2_keep(kind, c, p, 1) & valid;
        for (size_t g = 0; g < lanes / 4; g++) {
            const unsigned mg = (m >> (4 * g)) & 0xfu;
            avx2_store(out + 8 * k, _mm256_permutevar8x32_epi32(*ids, avx2_perm4x64(mg)));
            k += (size_t)_mm_popcnt_u32(mg);
            *ids = _mm256_add_epi64(*ids, _mm256_set1_epi64x(4));
        }
        return k;
    }
    /* values: compact the data itself */
    const __m256i x = avx2_load(p);
    uint32_t m = avx2_bits(kind, avx2_hits(kind, c, x));
    if (avx2_hits_outside(kind))
        m = ~m;
    m &= valid;
    if (size >= 4) {
        /* vpermd moves 32-bit lanes across the whole vector */
        const unsigned mg = m & (size == 4 ? 0xffu : 0xfu);
        const __m256i perm = size == 4 ? avx2_perm8x32(mg) : avx2_perm4x64(mg);
        avx2_store(out + size * k, _mm256_permutevar8x32_epi32(x, perm));
        return k + (size_t)_mm_popcnt_u32(mg);
    }
    /* bytes and words: pshufb, which cannot cross 128-bit halves, on groups of
     * 8 elements (8 or 16 bytes) */
    for (size_t g = 0; g < lanes / 8; g++) {
        const unsigned mg = (m >> (8 * g)) & 0xffu;
        __m128i half = (g * 8 * size) < 16 ? _mm256_castsi256_si128(x)
                                             : _mm256_extracti128_si256(x, 1);
        if (size == 1 && (g & 1))
            half = _mm_unpackhi_epi64(half, half);
        const __m128i kept = _mm_shuffle_epi8(half, avx2_shuf8(mg, size));
        if (size == 1)
            _mm_storel_epi64((__m128i *)(void *)(out + k), kept);
        else
            _mm_storeu_si128((__m128i *)(void *)(out + 2 * k), kept);
        k += (size_t)_mm_popcnt_u32(mg);
    }
    return k;
}

/*
 * The compaction loop behind index32, index64 and values, unrolled by two:
 * see avx2_perm8x32 for what that bought.
 */
SF_INLINE size_t avx2_compact(int op, sf_elem kind, const void *x, size_t n, const sf_range *r,
                              uint64_t base, void *out_) {
    const avx2_bounds c = avx2_setup(kind, r);
    const size_t size = sf_kind_size(kind), osize = avx2_out_size(op, kind);
    const size_t block = avx2_block(op, kind);
    const uint32_t all = block >= 32 ? 0xffffffffu : (1u << block) - 1u;
    const unsigned char *p = (const unsigned char *)x;
    unsigned char *out = (unsigned char *)out_;
    __m256i ids = op == AVX2_INDEX32
                      ? _mm256_add_epi32(_mm256_set1_epi32((int)(uint32_t)base),
                                         _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
                      : _mm256_add_epi64(_mm256_set1_epi64x((long long)base),
                                         _mm256_setr_epi64x(0, 1, 2, 3));
    size_t i = 0, k = 0;
    for (; n - i >= 2 * block; i += 2 * block) {
        k = avx2_step(op, kind, &c, p + i * size, &ids, out, k, all);
        k = avx2_step(op, kind, &c, p + (i + block) * size, &ids, out, k, all);
    }
    if (n - i >= block) {
        k = avx2_step(op, kind, &c, p + i * size, &ids, out, k, all);
        i += block;
    }
    if (i < n) {
        /* Fewer than `block` elements left: the same step on a zero-padded
         * copy, into scratch, then copy out what was kept. */
        _Alignas(32) unsigned char in[64] = {0};   /* block * size <= 64 */
        _Alignas(32) unsigned char tmp[32 * 8];    /* block * osize <= 256 */
        const size_t rest = n - i;
        memcpy(in, p + i * size, rest * size);
        const size_t t = avx2_step(op, kind, &c, in, &ids, tmp, 0, (1u << rest) - 1u);
        memcpy(out + k * osize, tmp, t * osize);
        k += t;
    }
    return k;
}

SF_INLINE size_t avx2_index32(sf_elem kind, const void *x, size_t n, const sf_range *r,
                              uint32_t base, uint32_t *out) {
    return avx2_compact(AVX2_INDEX32, kind, x, n, r, base, out);
}

SF_INLINE size_t avx2_index64(sf_elem kind, const void *x, size_t n, const sf_range *r,
                              uint64_t base, uint64_t *out) {
    return avx2_compact(AVX2_INDEX64, kind, x, n, r, base, out);
}

SF_INLINE size_t avx2_values(sf_elem kind, const void *x, size_t n, const sf_range *r,
                             void *out) {
    return avx2_compact(AVX2_VALUES, kind, x, n, r, 0, out);
}

/* ---- count: no movemask, no popcount in the loop -------------------------- */

/* acc - hits: each lane counts its own hits (a hit lane is -1). */
SF_INLINE __m256i avx2_count_lanes(sf_elem kind, __m256i acc, __m256i h) {
    switch (sf_kind_size(kind)) {
    case 1: return _mm256_sub_epi8(acc, h);
    case 2: return _mm256_sub_epi16(acc, h);
    case 4: return _mm256_sub_epi32(acc, h);
    default: return _mm256_sub_epi64(acc, h);
    }
}

/* Sum of the lane counters, widened so that none can overflow. */
SF_INLINE uint64_t avx2_sum_lanes(sf_elem kind, __m256i acc) {
    const size_t size = sf_kind_size(kind);
    if (size == 1)
        acc = _mm256_sad_epu8(acc, _mm256_setzero_si256());
    if (size == 2)
        acc = _mm256_add_epi32(_mm256_and_si256(acc, _mm256_set1_epi32(0xffff)),
                               _mm256_srli_epi32(acc, 16));
    if (size == 2 || size == 4)
        acc = _mm256_add_epi64(_mm256_and_si256(acc, _mm256_set1_epi64x(0xffffffff)),
                               _mm256_srli_epi64(acc, 32));
    const __m128i s = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

SF_INLINE size_t avx2_count(sf_elem kind, const void *x, size_t n, const sf_range *r) {
    const avx2_bounds c = avx2_setup(kind, r);
    const size_t size = sf_kind_size(kind), lanes = avx2_lanes(kind);
    /* Vectors per round before a lane counter could wrap (two counters). */
    const size_t round = size == 1 ? 2 * 255 : size == 2 ? 2 * 65535 : (size_t)1 << 30;
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0;
    uint64_t hits = 0;
    while (n - i >= lanes) {
        size_t nvec = (n - i) / lanes;
        if (nvec > round)
            nvec = round;
        /* Two counters: one would make the loop wait on its 1-cycle add. */
        __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
        size_t v = 0;
        for (; v + 2 <= nvec; v += 2) {
            acc0 = avx2_count_lanes(kind, acc0, avx2_hits(kind, &c, avx2_load(p + 32 * v)));
            acc1 = avx2_count_lanes(kind, acc1, avx2_hits(kind, &c, avx2_load(p + 32 * v + 32)));
        }
        if (v < nvec)
            acc0 = avx2_count_lanes(kind, acc0, avx2_hits(kind, &c, avx2_load(p + 32 * v)));
        hits += avx2_sum_lanes(kind, acc0) + avx2_sum_lanes(kind, acc1);
        p += 32 * nvec;
        i += lanes * nvec;
    }
    size_t kept = avx2_hits_outside(kind) ? i - (size_t)hits : (size_t)hits;
    if (i < n) {
        _Alignas(32) unsigned char in[32] = {0};
        const size_t rest = n - i;
        memcpy(in, p, rest * size);
        kept += (size_t)_mm_popcnt_u32(avx2_keep(kind, &c, in, 1) & ((1u << rest) - 1u));
    }
    return kept;
}

SF_INSTANTIATE(avx2)
