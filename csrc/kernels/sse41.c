/*
 * SSE4.1 kernel: compiled with -msse4.1 and nothing else, so no popcnt
 * instruction and no SSE4.2 (no pcmpgtq).
 *
 * The loops are x86_skeleton.h's, shared with avx2.c, on 128-bit vectors: a
 * 4-bit (or 8- or 16-bit) movemask per block, then for each group of output
 * lanes a pshufb table (x86_tables.h) that moves the kept lanes to the front.
 * Popcounts of at most 8 bits come from SF_POP4, a 16-entry table packed in one
 * 64-bit constant.
 *
 * u64 has no kernel here: its slots are left empty and dispatch fills them from
 * the scalar kernel. u64 has no 64-bit compare before SSE4.2 (pcmpgtq). We
 * emulated it: d = x - lo is outside when span - d borrows, and the borrow out
 * of a - b is the top bit of (~a & b) | ((~a | b) & (a - b)), six plain 64-bit
 * ops per 2 elements, then movemask_pd and the 2-lane tables. It was correct but
 * measured 0.7x to 1.3x the branchless scalar loop depending on the operation
 * (64 Ki elements, 50% kept, AMD EPYC Zen 5): two lanes per vector do not pay
 * for the emulation and the compaction.
 */
#include <smmintrin.h>

#include "kernel_common.h"
#include "x86_tables.h"

#define X86_ISA sse41
#define X86_BYTES 16
#define X86_VEC __m128i
#define X86_MM(f) _mm_##f
#define X86_SI(f) _mm_##f##_si128

/* The range's compare (x86_range.h): all-ones lanes where x hits (see
 * sse41_range_hits_outside), for the bounds a and b of sse41_setup; float
 * lanes XORed with flip (all ones: an inverted range); no u64 (see the top). */
SF_INLINE __m128i sse41_range_cmp(sf_elem elem, __m128i a, __m128i b, __m128i flip,
                                  __m128i x) {
    switch (elem) {
    case SF_U8: return _mm_cmpgt_epi8(_mm_sub_epi8(x, a), b);
    case SF_U16: return _mm_cmpgt_epi16(_mm_sub_epi16(x, a), b);
    case SF_U32: return _mm_cmpgt_epi32(_mm_sub_epi32(x, a), b);
    case SF_F32: {
        const __m128 v = _mm_castsi128_ps(x);
        return _mm_xor_si128(flip,
                             _mm_castps_si128(_mm_and_ps(_mm_cmpge_ps(v, _mm_castsi128_ps(a)),
                                                         _mm_cmple_ps(v, _mm_castsi128_ps(b)))));
    }
    default: {
        const __m128d v = _mm_castsi128_pd(x);
        return _mm_xor_si128(flip,
                             _mm_castpd_si128(_mm_and_pd(_mm_cmpge_pd(v, _mm_castsi128_pd(a)),
                                                         _mm_cmple_pd(v, _mm_castsi128_pd(b)))));
    }
    }
}

/* One bit per element of a hit vector. */
SF_INLINE uint32_t sse41_bits(sf_elem elem, __m128i h) {
    switch (sf_elem_size(elem)) {
    case 1: return (uint32_t)_mm_movemask_epi8(h);
    case 2: /* signed saturation keeps 0 and -1 as they are */
        return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(h, _mm_setzero_si128()));
    case 4: return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(h));
    default: return (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(h));
    }
}

/* popcount of up to 16 bits without the popcnt instruction. */
SF_INLINE size_t sse41_popcount(uint32_t m) {
    return SF_POP8(m & 0xffu) + SF_POP8((m >> 8) & 0xffu);
}

SF_INLINE __m128i sse41_fold128(__m128i v) { return v; }

/* Output lanes per group when compacting lanes of w bytes: one pshufb of a
 * 16-byte vector, except bytes, whose 256-entry table covers 8 lanes. */
SF_INLINE size_t sse41_group(size_t w) { return w == 1 ? 8 : 16 / w; }

/* pshufb control that moves the lanes set in m (lanes of w bytes) to the front. */
SF_INLINE __m128i sse41_shuf(unsigned m, size_t w) {
    if (w == 4)
        return _mm_loadu_si128((const __m128i *)(const void *)sf_x86_shuf4x32[m]);
    if (w == 8)
        return _mm_loadu_si128((const __m128i *)(const void *)sf_x86_shuf2x64[m]);
    __m128i s = _mm_cvtsi64_si128((long long)sf_x86_idx8[m]);
    if (w == 2) {
        s = _mm_unpacklo_epi8(s, s);                                  /* j, j      */
        s = _mm_add_epi8(_mm_add_epi8(s, s), _mm_set1_epi16(0x0100)); /* 2j, 2j+1 */
    }
    return s;
}

/* Append the lanes of v (lanes of w bytes) set in m to out, k results so far. */
SF_INLINE size_t sse41_emit(unsigned char *out, size_t k, __m128i v, unsigned m, size_t w) {
    const __m128i kept = _mm_shuffle_epi8(v, sse41_shuf(m, w));
    if (w == 1)
        _mm_storel_epi64((__m128i *)(void *)(out + k), kept);
    else
        _mm_storeu_si128((__m128i *)(void *)(out + w * k), kept);
    return k + sse41_popcount(m);
}

SF_INLINE size_t sse41_emit_ids(size_t w, unsigned char *out, size_t k, __m128i ids,
                                unsigned m) {
    return sse41_emit(out, k, ids, m, w);
}

/* Values: one or two groups (the upper 8 bytes) per vector. */
SF_INLINE size_t sse41_emit_values(sf_elem elem, unsigned char *out, size_t k, __m128i x,
                                   uint32_t m) {
    const size_t w = sf_elem_size(elem), g = sse41_group(w);
    k = sse41_emit(out, k, x, m & ((1u << g) - 1u), w);
    if (16 / w > g)
        k = sse41_emit(out, k, _mm_unpackhi_epi64(x, x), m >> g, w);
    return k;
}

/* No gather instruction before AVX2: within loads the elements one by one
 * into a vector, then compares and compacts as the filter loop does. */
SF_INLINE int sse41_gather_hw(sf_op op, sf_elem elem, const void *x, uint64_t base,
                              const unsigned char *pos, size_t cnt, unsigned char *buf) {
    (void)op, (void)elem, (void)x, (void)base, (void)pos, (void)cnt, (void)buf;
    return 0;
}

/* 16 mask bytes into 16 validity bits: compare with zero, then pmovmskb. */
static void sse41_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(mask + i));
        const uint16_t bits = (uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));
        memcpy(valid + i / 8, &bits, 2);
    }
    sf_mask_to_valid_tail(mask + i, n - i, valid + i / 8);
}

/* Unrolled by two: measured ~1.5x on u32 index32, no loss elsewhere. */
#include "x86_vec.h"
#include "x86_range.h"
/* The loops for the range: sse41_filter, sse41_count, ... (mask8 and bits too) */
#define X86_SK sse41
#define X86_PRED sse41_range
#include "x86_skeleton.h"

SF_INSTANTIATE_ALL(sse41, u8, u16, u32, f32, f64)

/* sse41_dense: the plain filter loop without the sparse windows
 * (x86_skeleton.h), a variant for the benchmark only (dispatch's SF_VARIANTS;
 * not listed among the kernels; nulls, within and count are the kernel's). */
SF_INSTANTIATE_FILTERS(sse41_dense, u8, u16, u32, f32, f64)
