/*
 * The AVX-512 kernels' building blocks (F + VL + BW + DQ, with BMI1/2 and
 * POPCNT), none of which knows the predicate: the build's settings, the loads,
 * the group emitters (compress and store) and the validity bits. The loops of
 * avx512_skeleton.h and the range predicate of avx512_range.h are written with
 * them; this header needs the AVX-512 flags of isa.def's avx512 rows. See the
 * top of kernels/avx512.c for the groups, the two store forms and why the
 * full-register stores stay in bounds.
 */
#ifndef SIMDFILTER_AVX512_CORE_H
#define SIMDFILTER_AVX512_CORE_H

#include <immintrin.h>

#include "kernel_common.h"

/* The store form: 1 compresses into a register and stores it whole (the
 * avx512_zen4 row of isa.def builds kernels/avx512.c with
 * -DAVX512_REGISTER_FORM=1), 0 is the memory form (the avx512 row). */
#ifndef AVX512_REGISTER_FORM
#define AVX512_REGISTER_FORM 0
#endif
/* Software prefetch AVX512_PREFETCH_BYTES ahead of every full-vector load of
 * 32- and 64-bit elements (0: none, the register-form build). On the Intel Xeon
 * (Sapphire Rapids class) 2-core KVM, one thread, out=, 0.1/1/50/90%
 * kept, with over without, best of 3 processes each: int64 16 Mi from DRAM
 * count 1.37-1.68x, filter 1.23-1.96x; uint32 64 Mi count 1.07-1.12x, filter
 * 1.00-1.39x; in L2, uint32 64 Ki count 1.14-1.23x, filter 1.00-1.24x, uint64
 * 1.05-1.24x, float64 0.97-1.10x; float32 1 Mi 0.97-1.08x. 1024 to 4096 bytes
 * gave the same from DRAM. 8- and 16-bit elements go without it: there u8
 * count in L2 lost 6-14% (one more uop per vector of a loop at 80 G/s) and u16
 * filter from DRAM 8%. Not measured on AMD Zen, so the AMD default
 * (avx512_zen4) keeps the loop it was measured with. */
#ifndef AVX512_PREFETCH_BYTES
#define AVX512_PREFETCH_BYTES (AVX512_REGISTER_FORM ? 0 : 2048)
#endif

/* Vectors per main-loop block; a group that spans two vectors (u64/f64 into 16
 * positions) raises it for that element kind. AMD EPYC Zen 5, u32 index32, 64 Ki elements in L2
 * (G elements/s, gcc 12 / clang 14): 1 vector 25 / 29, 2 vectors 28 / 29,
 * 4 vectors 29 / 31. Two get most of it while keeping the u8 block (and so the
 * slower masked tail) at 128 elements. */
#ifndef AVX512_UNROLL
#define AVX512_UNROLL 2
#endif
/* Vectors per block of the register form (avx512_zen4) for 4- and 8-byte
 * elements, except 8-byte elements into 32-bit positions, where two vectors
 * make one group; their blocks are then no longer than the u8 block of two.
 * Zen 4 compresses 16 lanes in about two cycles (it runs 512-bit operations as
 * two 256-bit halves) and the register-form loop is bound by that compress and
 * the full 64-byte store about equally; four independent groups a block keep
 * more of them in flight. AMD EPYC Zen 4 (family 25 model 17) 2-core KVM,
 * loaded, time with four vectors over time with two, one process
 * (benchmarks/kernel_vs_hand.py --old --kinds; 64 Ki and 1 Mi, 10/50/90%):
 * u32/f32 index32 0.93-1.00, index64 0.94-1.00, values 0.95-0.99; u64/f64
 * index64 0.94-1.02, values 0.93-1.00. Four vectors for u64/f64 index32 too
 * measured 0.90-1.27 there, mostly above 1, so that pair keeps two. uint32
 * index32 over the best hand-written loop (benchmarks/kernel_vs_hand.c), same
 * process, in speed: 0.96-1.08 (0.92-1.02 with two). Zen 5 in its time measured
 * 29 / 31 G/s for four vectors against 28 / 29 for two (u32
 * index32, above). The memory form (Intel's default) keeps two: not measured
 * there. */
#ifndef AVX512_UNROLL_WIDE
#define AVX512_UNROLL_WIDE (AVX512_REGISTER_FORM ? 4 : AVX512_UNROLL)
#endif
/* 64-lane mask words per count block (see avx512_count). */
#ifndef AVX512_COUNT_WORDS
#define AVX512_COUNT_WORDS 2
#endif
/* Upper bound of vectors per block, to size the (scalarized) mask arrays. */
#define AVX512_MAX_VECTORS 8

SF_INLINE size_t avx512_lanes(sf_elem elem) { return 64 / sf_elem_size(elem); }
SF_INLINE size_t avx512_max(size_t a, size_t b) { return a > b ? a : b; }
SF_INLINE size_t avx512_min(size_t a, size_t b) { return a < b ? a : b; }
/* The low `c` bits set; bzhi yields all 64 for c >= 64, with no oversized shift. */
SF_INLINE uint64_t avx512_low_bits(size_t c) { return _bzhi_u64(~0ull, (unsigned)c); }
SF_INLINE size_t avx512_popcount(uint64_t m) { return (size_t)_mm_popcnt_u64(m); }

/* One vector of `elem` at p. When `partial`, only the first c (< lanes)
 * elements are read and the rest are zero: the masked load suppresses faults
 * on the lanes it skips, so a vector that would cross into an unmapped page
 * is safe. */
SF_INLINE __m512i avx512_load(sf_elem elem, const unsigned char *p, int partial, size_t c) {
    if (!partial) {
        if (AVX512_PREFETCH_BYTES && sf_elem_size(elem) >= 4)
            _mm_prefetch((const char *)((uintptr_t)p + AVX512_PREFETCH_BYTES), _MM_HINT_T0);
        return _mm512_loadu_si512(p);
    }
    const uint64_t m = avx512_low_bits(c);
    switch (elem) {
    case SF_U8: return _mm512_maskz_loadu_epi8(_cvtu64_mask64(m), p);
    case SF_U16: return _mm512_maskz_loadu_epi16(_cvtu32_mask32((uint32_t)m), p);
    case SF_U32: case SF_F32: return _mm512_maskz_loadu_epi32(_cvtu32_mask16((uint32_t)m), p);
    default: return _mm512_maskz_loadu_epi64(_cvtu32_mask8((uint32_t)m), p);
    }
}


/* The G-bit mask of group g of a block whose vector masks are m[]: a slice of
 * one mask when vectors are wider than groups, else G / L masks side by side. */
SF_INLINE uint64_t avx512_group_mask(const uint64_t *m, size_t L, size_t G, size_t g) {
    if (L >= G)
        return (m[g * G / L] >> (g * G % L)) & avx512_low_bits(G);
    uint64_t gm = 0;
    for (size_t j = 0; j < G / L; j++)
        gm |= m[g * G / L + j] << (j * L);
    return gm;
}

/* Vectors per main-loop block of op on elem, before the group size is taken
 * into account (AVX512_UNROLL_WIDE, above). */
SF_INLINE size_t avx512_unroll(sf_op op, sf_elem elem) {
    const size_t size = sf_elem_size(elem);
    return size >= 4 && !(size == 8 && op == SF_OP_INDEX32) ? AVX512_UNROLL_WIDE : AVX512_UNROLL;
}

/* Vectors per main-loop block: enough to fill at least one group. */
SF_INLINE size_t avx512_block_vectors(size_t L, size_t G, size_t unroll) {
    return avx512_max(unroll, G / L);
}

/* ---- Group emitters: compress one group into a register, store, count ----- */

/* The memory form writes exactly the kept lanes. In the register form, full
 * groups store the whole register (in bounds: see the top of avx512.c) and
 * partial ones (the tail) store exactly the kept lanes. */
SF_INLINE size_t avx512_emit32(uint32_t *dst, __m512i ids, uint64_t gm, int partial) {
    const size_t kept = avx512_popcount(gm);
    if (!AVX512_REGISTER_FORM) {
        _mm512_mask_compressstoreu_epi32(dst, _cvtu32_mask16((uint32_t)gm), ids);
        return kept;
    }
    const __m512i c = _mm512_mask_compress_epi32(ids, _cvtu32_mask16((uint32_t)gm), ids);
    if (!partial)
        _mm512_storeu_si512(dst, c);
    else
        _mm512_mask_storeu_epi32(dst, _cvtu32_mask16((uint32_t)avx512_low_bits(kept)), c);
    return kept;
}

SF_INLINE size_t avx512_emit64(uint64_t *dst, __m512i ids, uint64_t gm, int partial) {
    const size_t kept = avx512_popcount(gm);
    if (!AVX512_REGISTER_FORM) {
        _mm512_mask_compressstoreu_epi64(dst, _cvtu32_mask8((uint32_t)gm), ids);
        return kept;
    }
    const __m512i c = _mm512_mask_compress_epi64(ids, _cvtu32_mask8((uint32_t)gm), ids);
    if (!partial)
        _mm512_storeu_si512(dst, c);
    else
        _mm512_mask_storeu_epi64(dst, _cvtu32_mask8((uint32_t)avx512_low_bits(kept)), c);
    return kept;
}

/* Group size of values: a whole vector for 4- and 8-byte kinds; 16 elements
 * for u8/u16, which are widened to epi32 because compressing bytes and words
 * (VBMI2) is not part of this kernel's instruction set. Those two compress in
 * a register and narrow in both store forms (there is no narrowing compress
 * store); 4- and 8-byte kinds follow AVX512_REGISTER_FORM. */
SF_INLINE size_t avx512_values_group(sf_elem elem) { return avx512_min(avx512_lanes(elem), 16); }

/* Compress the kept elements of one values group to dst. `data` is the group's
 * vector for 4- and 8-byte kinds; u8/u16 re-read their 16 elements from src
 * (an L1 hit) with a widening load. `c` is the group's element count when
 * `partial`. */
SF_INLINE size_t avx512_emit_values(sf_elem elem, unsigned char *dst, const unsigned char *src,
                                __m512i data, uint64_t gm, int partial, size_t c) {
    const size_t kept = avx512_popcount(gm);
    const uint64_t keep = avx512_low_bits(kept);
    switch (elem) {
    case SF_U8: {
        const __m128i in = partial
                               ? _mm_maskz_loadu_epi8(_cvtu32_mask16((uint32_t)avx512_low_bits(c)), src)
                               : _mm_loadu_si128((const __m128i *)(const void *)src);
        __m512i w = _mm512_cvtepu8_epi32(in);
        w = _mm512_mask_compress_epi32(w, _cvtu32_mask16((uint32_t)gm), w);
        const __m128i o = _mm512_cvtepi32_epi8(w);
        if (!partial)
            _mm_storeu_si128((__m128i *)(void *)dst, o);
        else
            _mm_mask_storeu_epi8(dst, _cvtu32_mask16((uint32_t)keep), o);
        break;
    }
    case SF_U16: {
        const __m256i in =
            partial ? _mm256_maskz_loadu_epi16(_cvtu32_mask16((uint32_t)avx512_low_bits(c)), src)
                    : _mm256_loadu_si256((const __m256i *)(const void *)src);
        __m512i w = _mm512_cvtepu16_epi32(in);
        w = _mm512_mask_compress_epi32(w, _cvtu32_mask16((uint32_t)gm), w);
        const __m256i o = _mm512_cvtepi32_epi16(w);
        if (!partial)
            _mm256_storeu_si256((__m256i *)(void *)dst, o);
        else
            _mm256_mask_storeu_epi16(dst, _cvtu32_mask16((uint32_t)keep), o);
        break;
    }
    case SF_U32: case SF_F32: {
        /* Moved as integers: the bits go out exactly as they came in. */
        if (!AVX512_REGISTER_FORM) {
            _mm512_mask_compressstoreu_epi32(dst, _cvtu32_mask16((uint32_t)gm), data);
            break;
        }
        const __m512i o = _mm512_mask_compress_epi32(data, _cvtu32_mask16((uint32_t)gm), data);
        if (!partial)
            _mm512_storeu_si512(dst, o);
        else
            _mm512_mask_storeu_epi32(dst, _cvtu32_mask16((uint32_t)keep), o);
        break;
    }
    default: {
        if (!AVX512_REGISTER_FORM) {
            _mm512_mask_compressstoreu_epi64(dst, _cvtu32_mask8((uint32_t)gm), data);
            break;
        }
        const __m512i o = _mm512_mask_compress_epi64(data, _cvtu32_mask8((uint32_t)gm), data);
        if (!partial)
            _mm512_storeu_si512(dst, o);
        else
            _mm512_mask_storeu_epi64(dst, _cvtu32_mask8((uint32_t)keep), o);
        break;
    }
    }
    return kept;
}

/* ---- Validity bits ---------------------------------------------------------- */

/* Bits [at, at + cnt) of an LSB-first validity bitmap as bits [0, cnt), for
 * cnt <= 64 and `at` a multiple of 8 (every block, group and word of these loops
 * starts at a multiple of 8 elements), reading only the bytes those bits are
 * in: one load when cnt is a constant multiple of 8. */
SF_INLINE uint64_t avx512_valid_bits(const uint8_t *valid, size_t at, size_t cnt) {
    const uint8_t *b = valid + at / 8;
    uint64_t v = 0;
    if (cnt % 8 == 0) {
        memcpy(&v, b, cnt / 8); /* little-endian: byte j holds bits 8j.. */
        return v;
    }
    for (size_t j = 0; j < (cnt + 7) / 8; j++)
        v |= (uint64_t)b[j] << (8 * j);
    return v & avx512_low_bits(cnt);
}

#endif
