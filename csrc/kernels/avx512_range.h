/*
 * The range predicate of the AVX-512 kernels, an instance of the predicate
 * contract of avx512_skeleton.h (Q = avx512_range): the arguments are an
 * sf_range, the state its broadcast bounds, the hits one compare (two for
 * floats) per vector. Also its own loop for several ranges at once
 * (avx512_bits_ranges, the sf_bits_ranges_fn slot), which no other predicate
 * has.
 */
#ifndef SIMDFILTER_AVX512_RANGE_H
#define SIMDFILTER_AVX512_RANGE_H

#include "avx512_core.h"

/* The broadcasts SF_BROADCAST_RANGE builds the bounds with. */
SF_INLINE __m512i avx512_dup8(uint8_t v) { return _mm512_set1_epi8((char)v); }
SF_INLINE __m512i avx512_dup16(uint16_t v) { return _mm512_set1_epi16((short)v); }
SF_INLINE __m512i avx512_dup32(uint32_t v) { return _mm512_set1_epi32((int)v); }
SF_INLINE __m512i avx512_dup64(uint64_t v) { return _mm512_set1_epi64((long long)v); }
SF_INLINE __m512i avx512_dupf32(float v) { return _mm512_castps_si512(_mm512_set1_ps(v)); }
SF_INLINE __m512i avx512_dupf64(double v) { return _mm512_castpd_si512(_mm512_set1_pd(v)); }

/* The broadcast bounds, avx512_bounds and avx512_setup: lo and hi - lo for
 * integers (unsigned compares: no sign flip), flo and fhi for floats. */
SF_DEFINE_BOUNDS(avx512, __m512i, 0)

typedef sf_range avx512_range_arg;
typedef avx512_bounds avx512_range_state;

SF_INLINE avx512_bounds avx512_range_setup(sf_elem elem, const sf_range *r) {
    return avx512_setup(elem, r);
}

/* Q_hits: lane i of the result is set when lane i of v is in range. Integers: one
 * unsigned compare of x - lo against hi - lo, wrapping at the lane width, so
 * the whole value range works with no sign flip. Floats: ordered quiet
 * compares, so NaN is never kept and raises nothing; the second compare is
 * masked by the first instead of and-ing two masks. An inverted float range
 * XORs the lanes' bits (and only theirs) with all ones: outside, NaN included.
 * Callers AND the result with their live lanes, as zeroed lanes may hit. */
SF_INLINE uint64_t avx512_range_hits(sf_elem elem, __m512i v, avx512_bounds b) {
    switch (elem) {
    case SF_U8:
        return _cvtmask64_u64(_mm512_cmple_epu8_mask(_mm512_sub_epi8(v, b.a), b.b));
    case SF_U16:
        return _cvtmask32_u32(_mm512_cmple_epu16_mask(_mm512_sub_epi16(v, b.a), b.b));
    case SF_U32:
        return _cvtmask16_u32(_mm512_cmple_epu32_mask(_mm512_sub_epi32(v, b.a), b.b));
    case SF_U64:
        return _cvtmask8_u32(_mm512_cmple_epu64_mask(_mm512_sub_epi64(v, b.a), b.b));
    case SF_F32: {
        const __m512 f = _mm512_castsi512_ps(v);
        const __mmask16 ge = _mm512_cmp_ps_mask(f, _mm512_castsi512_ps(b.a), _CMP_GE_OQ);
        return _cvtmask16_u32(
                   _mm512_mask_cmp_ps_mask(ge, f, _mm512_castsi512_ps(b.b), _CMP_LE_OQ)) ^
               (b.fmask & 0xffffu);
    }
    default: {
        const __m512d d = _mm512_castsi512_pd(v);
        const __mmask8 ge = _mm512_cmp_pd_mask(d, _mm512_castsi512_pd(b.a), _CMP_GE_OQ);
        return _cvtmask8_u32(
                   _mm512_mask_cmp_pd_mask(ge, d, _mm512_castsi512_pd(b.b), _CMP_LE_OQ)) ^
               (b.fmask & 0xffu);
    }
    }
}

/* The in-range lanes of the loaded vector d for the ranges b[0, k), combined
 * (OR when every = 0, else AND). Zeroed lanes may hit, as for
 * avx512_range_hits. */
SF_INLINE uint64_t avx512_in_ranges(sf_elem elem, __m512i d, const avx512_bounds *b, size_t k,
                                    int every) {
    uint64_t m = avx512_range_hits(elem, d, b[0]);
    for (size_t j = 1; j < k; j++)
        m = sf_combine_bits(m, avx512_range_hits(elem, d, b[j]), every);
    return m;
}

/* Several ranges (the sf_bits_ranges_fn contract): each vector loaded once
 * and compared with every range (avx512_in_ranges), 64 elements a word; the
 * last 1-63 with masked loads, as the skeleton's P_mask_partial reads them. */
SF_INLINE size_t avx512_bits_ranges(sf_elem elem, const void *x, size_t n, const sf_range *r,
                                    size_t k, int every, uint8_t *out) {
    const unsigned char *p = (const unsigned char *)x;
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem);
    avx512_bounds b[SF_RANGES_AT_ONCE];
    for (size_t j = 0; j < k; j++)
        b[j] = avx512_setup(elem, &r[j]);
    size_t i = 0, kept = 0;
    for (; n - i >= 64; i += 64) {
        uint64_t w = 0;
        for (size_t v = 0; v < 64 / L; v++) {
            const __m512i d = avx512_load(elem, p + (i + v * L) * size, 0, 0);
            w |= avx512_in_ranges(elem, d, b, k, every) << (v * L);
        }
        kept += avx512_popcount(w);
        memcpy(out + i / 8, &w, 8);
    }
    if (i < n) {
        const size_t c = n - i;
        uint64_t w = 0;
        for (size_t v = 0; v * L < 64 && v * L < c; v++) {
            const size_t cv = avx512_min(L, c - v * L);
            const __m512i d = avx512_load(elem, p + (i + v * L) * size, 1, cv);
            /* Masked-off lanes were loaded as zero: their combined bit cleared. */
            w |= (avx512_in_ranges(elem, d, b, k, every) & avx512_low_bits(cv)) << (v * L);
        }
        kept += avx512_popcount(w);
        memcpy(out + i / 8, &w, (c + 7) / 8);
    }
    return kept;
}

#endif
