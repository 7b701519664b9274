/*
 * The masks (mask8, bits) of the AVX-512 kernels, written with the 64-element
 * words of avx512_skeleton.h (count's unit), for its predicate: that file
 * includes this one at its end, once per predicate (no include guard), and
 * P_mask_any is what SF_INSTANTIATE_ALL instantiates.
 *
 * 64 elements per step: P_word, the compare masks of 1 to 8 vectors
 * packed into one 64-bit word, nulls cleared (count's unit), then
 *   bits:  the word is the output's 8 bytes (little-endian), stored as is;
 *   mask8: one zero-masked broadcast of 1 under the word (vpbroadcastb
 *          {k}{z}), one 64-byte store.
 * The last 1-63 elements are read with masked, fault-suppressing loads
 * (P_tail_mask) and written with a masked store (mask8) or exactly
 * ceil(c / 8) bytes (bits): nothing is read past x[n - 1], nothing written
 * past the output's end.
 */
#ifndef AVX512_FN
#error "avx512_skeleton.h includes this file, for one predicate at a time"
#endif

SF_INLINE size_t AVX512_FN(mask_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                     size_t n, const AVX512_Q(arg) *r, uint8_t *out) {
    const unsigned char *p = (const unsigned char *)x;
    const AVX512_Q(state) b = AVX512_Q(setup)(elem, r);
    size_t i = 0, k = 0;
    for (; n - i >= 64; i += 64) {
        const uint64_t w = AVX512_FN(word)(elem, p, i, valid, b);
        k += avx512_popcount(w);
        if (op == SF_OP_BITS)
            memcpy(out + i / 8, &w, 8);
        else
            _mm512_storeu_si512(out + i, _mm512_maskz_set1_epi8(_cvtu64_mask64(w), 1));
    }
    if (i < n) {
        const size_t c = n - i;
        const uint64_t w = AVX512_FN(tail_mask)(elem, p, i, c, 64, valid, b);
        k += avx512_popcount(w);
        if (op == SF_OP_BITS)
            memcpy(out + i / 8, &w, (c + 7) / 8);
        else
            _mm512_mask_storeu_epi8(out + i, _cvtu64_mask64(avx512_low_bits(c)),
                                    _mm512_maskz_set1_epi8(_cvtu64_mask64(w), 1));
    }
    return k;
}
