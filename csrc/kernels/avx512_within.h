/*
 * within (given positions) of the AVX-512 kernels: the gathers, the predicate's
 * hits of what they gathered and the compress of the positions, written with
 * the building blocks of avx512_core.h. avx512_skeleton.h includes it at its
 * end, once per predicate (no include guard), into both builds of
 * kernels/avx512.c (avx512, avx512_zen4), whose store form the emitters follow.
 */
#ifndef AVX512_FN
#error "avx512_skeleton.h includes this file, for one predicate at a time"
#endif

/* ---- within: the elements at given positions -------------------------------- */

/*
 * Groups of g positions, one vector of them (16 uint32 or 8 uint64): the
 * elements x[pos[j] - base] are gathered, compared into a g-bit mask, and the
 * position vector itself is compressed by the emitters, so out[] gets the kept
 * pos[j]. A full group's whole-register store stays in out[0, m) as in the
 * filter loops (k <= j, j + g <= m). The last, partial group loads its
 * positions with a masked load and gathers with the same mask (masked-off
 * lanes are neither read nor faulted on), so nothing past pos[m - 1] is read.
 *
 * 32- and 64-bit kinds: hardware gathers (vpgatherdd, vpgatherqd, vpgatherqq).
 * vpgatherdd's indexes are signed, so a group with an offset of 2^31 or more
 * (a vptestmd of the sign bits; the positions need not be sorted) takes two
 * 64-bit-index gathers instead; 64-bit kinds always widen their indexes.
 * 8- and 16-bit kinds: scalar loads into a buffer, compared as one vector, as
 * avx2 does: a 32-bit gather around them could read up to 3 bytes past the
 * last element.
 */

/* The hits of the elements at the positions of the vector pv (the
 * lanes set in `live`; w-byte positions, `pos` the same in memory). */
SF_INLINE uint64_t AVX512_FN(within_mask)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                          __m512i pv, const unsigned char *pos, uint64_t live,
                                          AVX512_Q(state) b) {
    const size_t size = sf_elem_size(elem), w = op == SF_OP_INDEX32 ? 4 : 8;
    if (size < 4) {
        _Alignas(64) unsigned char buf[64] = {0}; /* g * size <= 32 */
        const unsigned char *src = (const unsigned char *)x;
        const size_t cnt = avx512_popcount(live); /* live is the low cnt lanes */
        for (size_t j = 0; j < cnt; j++)
            memcpy(buf + j * size, src + (size_t)(sf_pos_at(pos, w, j) - base) * size, size);
        return AVX512_Q(hits)(elem, _mm512_load_si512(buf), b) & live;
    }
    if (op == SF_OP_INDEX64) {
        const __m512i idx = _mm512_sub_epi64(pv, _mm512_set1_epi64((long long)base));
        const __mmask8 k8 = _cvtu32_mask8((uint32_t)live);
        if (size == 4) {
            const __m256i v =
                _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), k8, idx, x, 4);
            return AVX512_Q(hits)(elem, _mm512_zextsi256_si512(v), b) & live;
        }
        const __m512i v = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), k8, idx, x, 8);
        return AVX512_Q(hits)(elem, v, b) & live;
    }
    /* 16 uint32 positions */
    const __m512i idx = _mm512_sub_epi32(pv, _mm512_set1_epi32((int)(uint32_t)base));
    const __mmask16 k16 = _cvtu32_mask16((uint32_t)live);
    if (size == 4 &&
        !_cvtmask16_u32(_mm512_mask_test_epi32_mask(k16, idx, _mm512_set1_epi32(INT32_MIN))))
        return AVX512_Q(hits)(
                   elem, _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), k16, idx, x, 4), b) &
               live;
    const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(idx));
    const __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(idx, 1));
    const __mmask8 klo = _cvtu32_mask8((uint32_t)live & 0xff);
    const __mmask8 khi = _cvtu32_mask8((uint32_t)(live >> 8) & 0xff);
    if (size == 4) {
        const __m256i vlo = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), klo, lo, x, 4);
        const __m256i vhi = _mm512_mask_i64gather_epi32(_mm256_setzero_si256(), khi, hi, x, 4);
        return AVX512_Q(hits)(elem, _mm512_inserti64x4(_mm512_castsi256_si512(vlo), vhi, 1), b) &
               live;
    }
    const __m512i vlo = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), klo, lo, x, 8);
    const __m512i vhi = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), khi, hi, x, 8);
    return (AVX512_Q(hits)(elem, vlo, b) | AVX512_Q(hits)(elem, vhi, b) << 8) & live;
}

SF_INLINE size_t AVX512_FN(within)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                   const void *pos_, size_t m, const AVX512_Q(arg) *r, void *out) {
    const size_t w = op == SF_OP_INDEX32 ? 4 : 8, g = 64 / w;
    const unsigned char *pos = (const unsigned char *)pos_;
    const AVX512_Q(state) b = AVX512_Q(setup)(elem, r);
    size_t i = 0, k = 0;
    for (; m - i >= g; i += g) {
        const __m512i pv = _mm512_loadu_si512(pos + i * w);
        const uint64_t gm = AVX512_FN(within_mask)(op, elem, x, base, pv, pos + i * w,
                                               avx512_low_bits(g), b);
        k += op == SF_OP_INDEX32 ? avx512_emit32((uint32_t *)out + k, pv, gm, 0)
                                 : avx512_emit64((uint64_t *)out + k, pv, gm, 0);
    }
    if (i < m) {
        const uint64_t live = avx512_low_bits(m - i);
        const __m512i pv = op == SF_OP_INDEX32
                               ? _mm512_maskz_loadu_epi32(_cvtu32_mask16((uint32_t)live), pos + i * w)
                               : _mm512_maskz_loadu_epi64(_cvtu32_mask8((uint32_t)live), pos + i * w);
        const uint64_t gm = AVX512_FN(within_mask)(op, elem, x, base, pv, pos + i * w, live, b);
        k += op == SF_OP_INDEX32 ? avx512_emit32((uint32_t *)out + k, pv, gm, 1)
                                 : avx512_emit64((uint64_t *)out + k, pv, gm, 1);
    }
    return k;
}
