/*
 * The masks (mask8, bits) of the AVX-512 kernels, written with the 64-element
 * words of avx512_core.h (count's unit). kernels/avx512.c includes it into both
 * of its builds; P_mask_any is what SF_INSTANTIATE_ALL instantiates.
 *
 * 64 elements per step: avx512_word, the compare masks of 1 to 8 vectors
 * packed into one 64-bit word, nulls cleared (count's unit), then
 *   bits:  the word is the output's 8 bytes (little-endian), stored as is;
 *   mask8: one zero-masked broadcast of 1 under the word (vpbroadcastb
 *          {k}{z}), one 64-byte store.
 * The last 1-63 elements are read with masked, fault-suppressing loads
 * (avx512_tail_mask) and written with a masked store (mask8) or exactly
 * ceil(c / 8) bytes (bits): nothing is read past x[n - 1], nothing written
 * past the output's end.
 */
#ifndef SIMDFILTER_AVX512_MASKS_H
#define SIMDFILTER_AVX512_MASKS_H

#include "avx512_core.h"

SF_INLINE size_t avx512_mask_any(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                 size_t n, const sf_range *r, uint8_t *out) {
    const unsigned char *p = (const unsigned char *)x;
    const avx512_bounds b = avx512_setup(elem, r);
    size_t i = 0, k = 0;
    for (; n - i >= 64; i += 64) {
        const uint64_t w = avx512_word(elem, p, i, valid, b);
        k += avx512_popcount(w);
        if (op == SF_OP_BITS)
            memcpy(out + i / 8, &w, 8);
        else
            _mm512_storeu_si512(out + i, _mm512_maskz_set1_epi8(_cvtu64_mask64(w), 1));
    }
    if (i < n) {
        const size_t c = n - i;
        const uint64_t w = avx512_tail_mask(elem, p, i, c, 64, valid, b);
        k += avx512_popcount(w);
        if (op == SF_OP_BITS)
            memcpy(out + i / 8, &w, (c + 7) / 8);
        else
            _mm512_mask_storeu_epi8(out + i, _cvtu64_mask64(avx512_low_bits(c)),
                                    _mm512_maskz_set1_epi8(_cvtu64_mask64(w), 1));
    }
    return k;
}

/* The in-range lanes of the loaded vector d for the ranges b[0, k), combined
 * (OR when every = 0, else AND). Zeroed lanes may hit, as for
 * avx512_in_range. */
SF_INLINE uint64_t avx512_in_ranges(sf_elem elem, __m512i d, const avx512_bounds *b, size_t k,
                                    int every) {
    uint64_t m = avx512_in_range(elem, d, b[0]);
    for (size_t j = 1; j < k; j++)
        m = sf_combine_bits(m, avx512_in_range(elem, d, b[j]), every);
    return m;
}

/* Several ranges (the sf_bits_ranges_fn contract): each vector loaded once
 * and compared with every range (avx512_in_ranges), 64 elements a word; the
 * last 1-63 with masked loads, as avx512_mask_partial reads them. */
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
