/*
 * AVX2 kernel: compiled with -mavx2 -mbmi -mbmi2 -mpopcnt and nothing else.
 *
 * The loops are x86_skeleton.h's, shared with sse41.c, on 256-bit vectors: an
 * 8-bit movemask per group of 8 (or 4) output lanes selects a vpermd control
 * (x86_tables.h), and popcnt advances the output.
 */
#include <immintrin.h>

#include "kernel_common.h"
#include "x86_tables.h"

#define X86_ISA avx2
#define X86_BYTES 32
#define X86_VEC __m256i
#define X86_MM(f) _mm256_##f
#define X86_SI(f) _mm256_##f##_si256

/* The range's compare (x86_range.h): all-ones lanes where x hits (see
 * avx2_range_hits_outside), for the bounds a and b of avx2_setup; float lanes
 * XORed with flip (all ones: an inverted range). */
SF_INLINE __m256i avx2_range_cmp(sf_elem elem, __m256i a, __m256i b, __m256i flip,
                                 __m256i x) {
    switch (elem) {
    case SF_U8: return _mm256_cmpgt_epi8(_mm256_sub_epi8(x, a), b);
    case SF_U16: return _mm256_cmpgt_epi16(_mm256_sub_epi16(x, a), b);
    case SF_U32: return _mm256_cmpgt_epi32(_mm256_sub_epi32(x, a), b);
    case SF_U64: return _mm256_cmpgt_epi64(_mm256_sub_epi64(x, a), b);
    case SF_F32: {
        const __m256 v = _mm256_castsi256_ps(x);
        return _mm256_xor_si256(
            flip, _mm256_castps_si256(
                      _mm256_and_ps(_mm256_cmp_ps(v, _mm256_castsi256_ps(a), _CMP_GE_OQ),
                                    _mm256_cmp_ps(v, _mm256_castsi256_ps(b), _CMP_LE_OQ))));
    }
    default: {
        const __m256d v = _mm256_castsi256_pd(x);
        return _mm256_xor_si256(
            flip, _mm256_castpd_si256(
                      _mm256_and_pd(_mm256_cmp_pd(v, _mm256_castsi256_pd(a), _CMP_GE_OQ),
                                    _mm256_cmp_pd(v, _mm256_castsi256_pd(b), _CMP_LE_OQ))));
    }
    }
}

/* One bit per element of a hit vector. */
SF_INLINE uint32_t avx2_bits(sf_elem elem, __m256i h) {
    switch (sf_elem_size(elem)) {
    case 1: return (uint32_t)_mm256_movemask_epi8(h);
    case 2: /* signed saturation keeps 0 and -1 as they are */
        return (uint32_t)_mm_movemask_epi8(
            _mm_packs_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)));
    case 4: return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(h));
    default: return (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(h));
    }
}

SF_INLINE size_t avx2_popcount(uint32_t m) { return (size_t)_mm_popcnt_u32(m); }

SF_INLINE __m128i avx2_fold128(__m256i v) {
    return _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

/* vpermd control that moves the lanes set in m (8 lanes of 32 bits) to the
 * front: 8 bytes from the 2 KiB byte table, zero-extended to 8 dwords by one
 * vpmovzxbd. Measured against Highway's 1 KiB nibble table expanded with
 * vpsrlvd and against an 8 KiB table of ready vectors: all three reach ~15 G/s
 * on u32 at 64 Ki elements (AMD EPYC Zen 5) in the right code placement, but
 * only this one, unrolled by two (x86_skeleton.h's filter loop), stayed there
 * in every link order we tried; the others fell to ~8 G/s in some (front-end
 * effects of where the linker puts the loop). */
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

/* Positions of w = 4 or 8 bytes: one vpermd of the whole position vector. */
SF_INLINE size_t avx2_emit_ids(size_t w, unsigned char *out, size_t k, __m256i ids,
                               unsigned m) {
    avx2_store(out + w * k,
               _mm256_permutevar8x32_epi32(ids, w == 4 ? avx2_perm8x32(m) : avx2_perm4x64(m)));
    return k + (size_t)_mm_popcnt_u32(m);
}

/* Values: compact the data itself. */
SF_INLINE size_t avx2_emit_values(sf_elem elem, unsigned char *out, size_t k, __m256i x,
                                  uint32_t m) {
    const size_t size = sf_elem_size(elem), lanes = 32 / size;
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
 * within's loads, for a whole group of positions (8 uint32 or 4 uint64): one
 * vpgatherdd / vpgatherqd / vpgatherqq per vector of 32- or 64-bit elements.
 * 8- and 16-bit kinds take scalar loads: a gather of 32-bit words around them
 * could read up to 3 bytes past the last element. vpgatherdd's indexes are
 * signed, so a group with an offset of 2^31 or more (any lane: the positions
 * need not be sorted) takes the 64-bit-index form (64-bit elements always do:
 * their indexes are widened).
 */
SF_INLINE int avx2_gather_hw(sf_op op, sf_elem elem, const void *x, uint64_t base,
                             const unsigned char *pos, size_t cnt, unsigned char *buf) {
    const size_t size = sf_elem_size(elem);
    if (size < 4 || cnt != (op == SF_OP_INDEX32 ? 8u : 4u))
        return 0;
    const __m256i p = _mm256_loadu_si256((const __m256i *)(const void *)pos);
    __m256i *dst = (__m256i *)(void *)buf;
    if (op == SF_OP_INDEX64) {
        const __m256i idx = _mm256_sub_epi64(p, _mm256_set1_epi64x((long long)base));
        if (size == 4)
            _mm_storeu_si128((__m128i *)(void *)buf,
                             _mm256_i64gather_epi32((const int *)x, idx, 4));
        else
            _mm256_storeu_si256(dst, _mm256_i64gather_epi64((const long long *)x, idx, 8));
        return 1;
    }
    const __m256i idx = _mm256_sub_epi32(p, _mm256_set1_epi32((int)(uint32_t)base));
    /* The offsets' sign bits, all 8 (vmovmskps): the positions need not be sorted. */
    if (size == 4 && !_mm256_movemask_ps(_mm256_castsi256_ps(idx))) {
        _mm256_storeu_si256(dst, _mm256_i32gather_epi32((const int *)x, idx, 4));
        return 1;
    }
    const __m256i lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(idx));
    const __m256i hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(idx, 1));
    if (size == 4) {
        _mm_storeu_si128((__m128i *)(void *)buf, _mm256_i64gather_epi32((const int *)x, lo, 4));
        _mm_storeu_si128((__m128i *)(void *)(buf + 16),
                         _mm256_i64gather_epi32((const int *)x, hi, 4));
    } else {
        _mm256_storeu_si256(dst, _mm256_i64gather_epi64((const long long *)x, lo, 8));
        _mm256_storeu_si256(dst + 1, _mm256_i64gather_epi64((const long long *)x, hi, 8));
    }
    return 1;
}

/* 32 mask bytes into 32 validity bits: compare with zero, then vpmovmskb. */
static void avx2_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(mask + i));
        const uint32_t bits =
            (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()));
        memcpy(valid + i / 8, &bits, 4);
    }
    sf_mask_to_valid_tail(mask + i, n - i, valid + i / 8);
}

#include "x86_vec.h"
#include "x86_range.h"
/* The loops for the range: avx2_filter, avx2_count, ... (mask8 and bits too) */
#define X86_SK avx2
#define X86_PRED avx2_range
#include "x86_skeleton.h"

SF_INSTANTIATE_ALL(avx2, u8, u16, u32, u64, f32, f64)

/* avx2_dense: the plain filter loop without the sparse windows
 * (x86_skeleton.h), a variant for the benchmark only (dispatch's SF_VARIANTS;
 * not listed among the kernels; nulls, within and count are the kernel's). */
SF_INSTANTIATE_FILTERS(avx2_dense, u8, u16, u32, u64, f32, f64)

/* The packed column's kernel (packed.h, packed_x86.h). */
#define PK_NAME avx2
#include "packed_x86.h"
