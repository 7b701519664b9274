/*
 * The AVX-512 kernel (F + VL + BW + DQ, with BMI1/2 and POPCNT).
 *
 * One compare turns a 64-byte vector into a mask register: 64 lanes of u8, 32 of
 * u16, 16 of u32/f32, 8 of u64/f64 (the 8- and 16-bit compares need BW). The
 * outputs are produced in *groups*: 16 positions for index32 (one epi32
 * compress), 8 for index64 (one epi64 compress), 16 or 8 elements for values.
 * A group is a slice of one mask when a vector has more lanes than a group (u8,
 * u16), or two masks glued together when it has fewer (u64/f64 into 16 uint32
 * positions), so every element kind runs through the same loops below.
 *
 * The store form depends on the CPU, so this file builds two kernels:
 *   - avx512 (the default on Intel): the memory form, vpcompressd/q m512{k}
 *     (_mm512_mask_compressstoreu_*), which writes exactly the kept lanes. On
 *     the 2-core Intel Xeon (Sapphire Rapids class) KVM it measured up to
 *     1.78x faster than the register form at 50% selectivity in L2 (1.23x at
 *     1 Mi; equal at 1-10% and from DRAM). It also prefetches 2 KiB ahead
 *     for 32- and 64-bit elements (AVX512_PREFETCH_BYTES, below).
 *   - avx512_zen4 (kernels/avx512_zen4.c, which includes this file with
 *     AVX512_REGISTER_FORM 1; the default on AMD): compress into a register
 *     with merge masking, then store the whole register. The memory form is
 *     microcoded on AMD Zen 4/5 (~142 cycles latency in AMD's Zen 4 guide;
 *     12.8 G/s against 19-23 G/s for the register form, u32 on the 2-core AMD EPYC
 *     Zen 5 KVM), and the zero-masking register form carries a false
 *     dependency on its destination there (LLVM issue 206849).
 * Dispatch picks between them from CPUID (isa.def's SF_NOT_DEFAULT_ON, the
 * SLOW_COMPRESS_STORE trait of lib/cpu_features.c); either runs on any AVX-512
 * CPU, and both are tested on every machine. The register form's full store is
 * in bounds because in the main loop the output cursor k never passes the
 * input cursor i, and a group of G inputs is only taken whole when i + G <= n:
 * out[k, k + G) lies inside out[0, n). The tail (fewer than a block) loads
 * with masked, fault-suppressing loads and stores exactly the kept lanes (in
 * both forms), so nothing is read past x[n - 1] or written past out[n - 1].
 *
 * Nulls run the same loops: each vector's compare mask is ANDed with the
 * validity bits of its elements (avx512_valid_bits: the bitmap bytes of that
 * vector, one load) before the group compress; the plain entry points pass a
 * constant NULL bitmap, which folds that away. At low selectivity the filter
 * switches to sparse windows (see "The sparse path" below). `within` (given
 * positions) gathers the elements at 16 uint32 or 8 uint64 positions, compares
 * them into a mask and compresses the position vector (avx512_within, below).
 */
#include <immintrin.h>

#include "kernel_common.h"

/* 1: compress into a register and store it whole (avx512_zen4); 0: the memory
 * form (avx512). See the top of the file. */
#ifndef AVX512_REGISTER_FORM
#define AVX512_REGISTER_FORM 0
#endif
/* Software prefetch AVX512_PREFETCH_BYTES ahead of every full-vector load of
 * 32- and 64-bit elements (0: none, the avx512_zen4 build). On the Intel Xeon
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
#define AVX512_PREFETCH_BYTES 2048
#endif
/* The kernel this file builds: its table is sf_kernel_<AVX512_KERNEL>. */
#ifndef AVX512_KERNEL
#define AVX512_KERNEL avx512
#endif

/* Vectors per main-loop block; a group that spans two vectors (u64/f64 into 16
 * positions) raises it for that element kind. AMD EPYC Zen 5, u32 index32, 64 Ki elements in L2
 * (G elements/s, gcc 12 / clang 14): 1 vector 25 / 29, 2 vectors 28 / 29,
 * 4 vectors 29 / 31. Two get most of it while keeping the u8 block (and so the
 * slower masked tail) at 128 elements. */
#ifndef AVX512_UNROLL
#define AVX512_UNROLL 2
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

/* Lane i of the result is set when lane i of v is in range. Integers: one
 * unsigned compare of x - lo against hi - lo, wrapping at the lane width, so
 * the whole value range works with no sign flip. Floats: ordered quiet
 * compares, so NaN is never kept and raises nothing; the second compare is
 * masked by the first instead of and-ing two masks. */
SF_INLINE uint64_t avx512_in_range(sf_elem elem, __m512i v, avx512_bounds b) {
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
            _mm512_mask_cmp_ps_mask(ge, f, _mm512_castsi512_ps(b.b), _CMP_LE_OQ));
    }
    default: {
        const __m512d d = _mm512_castsi512_pd(v);
        const __mmask8 ge = _mm512_cmp_pd_mask(d, _mm512_castsi512_pd(b.a), _CMP_GE_OQ);
        return _cvtmask8_u32(
            _mm512_mask_cmp_pd_mask(ge, d, _mm512_castsi512_pd(b.b), _CMP_LE_OQ));
    }
    }
}

/* In-range mask of the c <= G (<= 64) elements at p, read with masked loads:
 * the tail's building block. The constant G bounds the loop so that it folds
 * to the one or two loads it can need. */
SF_INLINE uint64_t avx512_mask_partial(sf_elem elem, const unsigned char *p, size_t c, size_t G,
                                   avx512_bounds b) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem);
    uint64_t m = 0;
    for (size_t v = 0; v * L < G && v * L < c; v++) {
        const size_t cv = avx512_min(L, c - v * L);
        /* Masked-off lanes were loaded as zero, which may well be in range. */
        const uint64_t mv = avx512_in_range(elem, avx512_load(elem, p + v * L * size, 1, cv), b) &
                            avx512_low_bits(cv);
        m |= mv << (v * L);
    }
    return m;
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

/* Vectors per main-loop block: enough to fill at least one group. */
SF_INLINE size_t avx512_block_vectors(size_t L, size_t G, size_t unroll) {
    return avx512_max(unroll, G / L);
}

/* ---- Group emitters: compress one group into a register, store, count ----- */

/* The memory form writes exactly the kept lanes. In the register form, full
 * groups store the whole register (in bounds: see the top of the file) and
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

/* ---- Validity bits and whole masks ----------------------------------------- */

/* Bits [at, at + cnt) of an LSB-first validity bitmap as bits [0, cnt), for
 * cnt <= 64 and `at` a multiple of 8 (every block, group and word of this file
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

/* The in-range mask of the whole vector at element i, nulls cleared when
 * `valid` (a constant NULL in the plain entry points: the AND folds away). */
SF_INLINE uint64_t avx512_vector_mask(sf_elem elem, const unsigned char *p, size_t i,
                                      const uint8_t *valid, avx512_bounds b) {
    const size_t L = avx512_lanes(elem);
    const uint64_t m = avx512_in_range(elem, avx512_load(elem, p + i * sf_elem_size(elem), 0, 0), b);
    return valid ? m & avx512_valid_bits(valid, i, L) : m;
}

/* The 64-bit mask of the 64 elements at element i (1 to 8 vectors): count's
 * unit and the sparse loop's. */
SF_INLINE uint64_t avx512_word(sf_elem elem, const unsigned char *p, size_t i,
                               const uint8_t *valid, avx512_bounds b) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem);
    uint64_t word = 0;
    for (size_t v = 0; v < 64 / L; v++)
        word |= avx512_in_range(elem, avx512_load(elem, p + (i + v * L) * size, 0, 0), b)
                << (v * L);
    return valid ? word & avx512_valid_bits(valid, i, 64) : word;
}

/* The tail's mask: the c < G elements at element i, nulls cleared. */
SF_INLINE uint64_t avx512_tail_mask(sf_elem elem, const unsigned char *p, size_t i, size_t c,
                                    size_t G, const uint8_t *valid, avx512_bounds b) {
    const uint64_t m = avx512_mask_partial(elem, p + i * sf_elem_size(elem), c, G, b);
    return valid ? m & avx512_valid_bits(valid, i, c) : m;
}

/* ---- The dense loops: whole blocks, compress and store per group ------------ */

/* Each takes whole blocks [i, end) (end - i a multiple of avx512_block(op,
 * elem)), appends what they keep at out[k] and returns the new k. Positions are
 * base + element index. */

SF_INLINE size_t avx512_index32_blocks(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                       size_t i, size_t end, avx512_bounds b, uint64_t base,
                                       uint32_t *out, size_t k) {
    const size_t L = avx512_lanes(elem), G = 16;
    const size_t V = avx512_block_vectors(L, G, AVX512_UNROLL), B = V * L;
    /* Positions wrap modulo 2^32 in the vector, never in C: base + n <= 2^32. */
    __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)(base + i)),
                                   _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                     12, 13, 14, 15));
    for (; i < end; i += B) {
        uint64_t m[AVX512_MAX_VECTORS];
        for (size_t v = 0; v < V; v++)
            m[v] = avx512_vector_mask(elem, p, i + v * L, valid, b);
        for (size_t g = 0; g < B / G; g++) {
            const __m512i id = _mm512_add_epi32(ids, _mm512_set1_epi32((int)(g * G)));
            k += avx512_emit32(out + k, id, avx512_group_mask(m, L, G, g), 0);
        }
        ids = _mm512_add_epi32(ids, _mm512_set1_epi32((int)B));
    }
    return k;
}

/* 8/16-bit data take one 16-lane compress of 32-bit offsets per 16 inputs,
 * widened to two vectors of positions, instead of two 8-lane epi64
 * compresses. AMD EPYC Zen 5, 64 Ki elements, register form: u8 13-14 -> 17-19
 * G/s, u16 12-15 -> 13-18; for 32- and 64-bit data it measured slower (u32
 * 18.6 -> 16.6, u64 12.9 -> 8.0), so they take the 8-lane loop. The two full
 * stores cover out[k, k + 16), in bounds as k <= i and i + 16 <= n, in both
 * store forms. */
SF_INLINE int avx512_index64_narrow(sf_elem elem) { return sf_elem_size(elem) <= 2; }

SF_INLINE size_t avx512_index64_blocks(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                       size_t i, size_t end, avx512_bounds b, uint64_t base,
                                       uint64_t *out, size_t k) {
    const size_t L = avx512_lanes(elem);
    if (avx512_index64_narrow(elem)) {
        const size_t G32 = 16, V32 = avx512_block_vectors(L, G32, AVX512_UNROLL), B32 = V32 * L;
        const __m512i iota =
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for (; i < end; i += B32) {
            uint64_t m[AVX512_MAX_VECTORS];
            for (size_t v = 0; v < V32; v++)
                m[v] = avx512_vector_mask(elem, p, i + v * L, valid, b);
            for (size_t g = 0; g < B32 / G32; g++) {
                const uint64_t gm = avx512_group_mask(m, L, G32, g);
                const __m512i c = _mm512_mask_compress_epi32(iota, _cvtu32_mask16((uint32_t)gm), iota);
                const __m512i at = _mm512_set1_epi64((long long)(base + i + g * G32));
                const __m256i lo = _mm512_castsi512_si256(c), hi = _mm512_extracti64x4_epi64(c, 1);
                _mm512_storeu_si512(out + k, _mm512_add_epi64(at, _mm512_cvtepu32_epi64(lo)));
                _mm512_storeu_si512(out + k + 8, _mm512_add_epi64(at, _mm512_cvtepu32_epi64(hi)));
                k += avx512_popcount(gm);
            }
        }
        return k;
    }
    const size_t G = 8, V = avx512_block_vectors(L, G, AVX512_UNROLL), B = V * L;
    __m512i ids = _mm512_add_epi64(_mm512_set1_epi64((long long)(base + i)),
                                   _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    for (; i < end; i += B) {
        uint64_t m[AVX512_MAX_VECTORS];
        for (size_t v = 0; v < V; v++)
            m[v] = avx512_vector_mask(elem, p, i + v * L, valid, b);
        for (size_t g = 0; g < B / G; g++) {
            const __m512i id = _mm512_add_epi64(ids, _mm512_set1_epi64((long long)(g * G)));
            k += avx512_emit64(out + k, id, avx512_group_mask(m, L, G, g), 0);
        }
        ids = _mm512_add_epi64(ids, _mm512_set1_epi64((long long)B));
    }
    return k;
}

SF_INLINE size_t avx512_values_blocks(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                      size_t i, size_t end, avx512_bounds b, unsigned char *dst,
                                      size_t k) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem), G = avx512_values_group(elem);
    const size_t V = avx512_block_vectors(L, G, AVX512_UNROLL), B = V * L;
    for (; i < end; i += B) {
        uint64_t m[AVX512_MAX_VECTORS];
        __m512i vec[AVX512_MAX_VECTORS];
        for (size_t v = 0; v < V; v++) {
            vec[v] = avx512_load(elem, p + (i + v * L) * size, 0, 0);
            m[v] = avx512_in_range(elem, vec[v], b);
            if (valid)
                m[v] &= avx512_valid_bits(valid, i + v * L, L);
        }
        for (size_t g = 0; g < B / G; g++)
            k += avx512_emit_values(elem, dst + k * size, p + (i + g * G) * size,
                                    vec[g * G / L], avx512_group_mask(m, L, G, g), 0, G);
    }
    return k;
}

/* Elements per block of the dense loop of op on elem: 2048 (the sparse window)
 * is a multiple of each. */
SF_INLINE size_t avx512_block(sf_op op, sf_elem elem) {
    const size_t L = avx512_lanes(elem);
    const size_t G = op == SF_OP_INDEX32                               ? 16
                     : op == SF_OP_VALUES                              ? avx512_values_group(elem)
                     : avx512_index64_narrow(elem)                     ? 16
                                                                       : 8;
    return avx512_block_vectors(L, G, AVX512_UNROLL) * L;
}

SF_INLINE size_t avx512_blocks(sf_op op, sf_elem elem, const unsigned char *p, const uint8_t *valid,
                               size_t i, size_t end, avx512_bounds b, uint64_t base, void *out,
                               size_t k) {
    switch (op) {
    case SF_OP_INDEX32:
        return avx512_index32_blocks(elem, p, valid, i, end, b, base, (uint32_t *)out, k);
    case SF_OP_INDEX64:
        return avx512_index64_blocks(elem, p, valid, i, end, b, base, (uint64_t *)out, k);
    default: return avx512_values_blocks(elem, p, valid, i, end, b, (unsigned char *)out, k);
    }
}

/* The last n - i (< one block) elements, in groups read with masked loads;
 * each stores exactly its kept lanes. */
SF_INLINE size_t avx512_tail(sf_op op, sf_elem elem, const unsigned char *p, const uint8_t *valid,
                             size_t i, size_t n, avx512_bounds b, uint64_t base, void *out,
                             size_t k) {
    const size_t size = sf_elem_size(elem);
    if (op == SF_OP_INDEX32) {
        __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)(base + i)),
                                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                         12, 13, 14, 15));
        for (; i < n; i += 16) {
            const size_t c = avx512_min(16, n - i);
            k += avx512_emit32((uint32_t *)out + k, ids,
                               avx512_tail_mask(elem, p, i, c, 16, valid, b), 1);
            ids = _mm512_add_epi32(ids, _mm512_set1_epi32(16));
        }
    } else if (op == SF_OP_INDEX64) {
        __m512i ids = _mm512_add_epi64(_mm512_set1_epi64((long long)(base + i)),
                                       _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        for (; i < n; i += 8) {
            const size_t c = avx512_min(8, n - i);
            k += avx512_emit64((uint64_t *)out + k, ids,
                               avx512_tail_mask(elem, p, i, c, 8, valid, b), 1);
            ids = _mm512_add_epi64(ids, _mm512_set1_epi64(8));
        }
    } else {
        const size_t G = avx512_values_group(elem);
        unsigned char *dst = (unsigned char *)out;
        for (; i < n; i += G) {
            const size_t c = avx512_min(G, n - i);
            const unsigned char *src = p + i * size;
            /* The group is at most one vector, so its data is one masked load. */
            const __m512i data = avx512_load(elem, src, 1, c);
            uint64_t gm = avx512_in_range(elem, data, b) & avx512_low_bits(c);
            if (valid)
                gm &= avx512_valid_bits(valid, i, c);
            k += avx512_emit_values(elem, dst + k * size, src, data, gm, 1, c);
        }
    }
    return k;
}

/* ---- The sparse path: windows that keep next to nothing --------------------- */

/*
 * At low selectivity nearly every group keeps nothing, yet the dense loop pays
 * each one's compress and store. As in x86_skeleton.h (whose comment gives the
 * reasoning and the Zen 3 instruction counts), the filter works in windows of
 * AVX512_WINDOW elements and picks each window's loop from what the previous
 * one kept: after a window that kept at most AVX512_SPARSE_MAX, the next runs
 * sparse, 64 elements per step: their one 64-bit mask (count's unit), and
 * when it is not zero its positions one by one, lowest bit first (tzcnt,
 * blsr). A step that keeps nothing costs what count_in_range pays for it. The
 * same constants as the AVX2 loop: 8 of 2048 keeps uniform data at 1% and
 * above on the dense loop and puts 0.1% on the sparse one.
 */
#define AVX512_WINDOW 2048
#define AVX512_SPARSE_MAX 8u

SF_INLINE size_t avx512_sparse(sf_op op, sf_elem elem, const unsigned char *p, const uint8_t *valid,
                               size_t i, size_t end, avx512_bounds b, uint64_t base,
                               unsigned char *out, size_t k) {
    const size_t size = sf_elem_size(elem);
    for (; i < end; i += 64)
        for (uint64_t w = avx512_word(elem, p, i, valid, b); w; w &= w - 1, k++) {
            const size_t j = i + (size_t)_tzcnt_u64(w);
            sf_put_result(op, out, k, p + j * size, size, base + j);
        }
    return k;
}

/* ---- The operations ------------------------------------------------------------ */

/* index32, index64 and values, with nulls when `valid`; `sparse` (a constant)
 * adds the sparse windows, 0 being the loop without them (the *_dense
 * variants, for the benchmark). */
SF_INLINE size_t avx512_filter_loop(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                    size_t n, const sf_range *r, uint64_t base, void *out,
                                    int sparse) {
    const unsigned char *p = (const unsigned char *)x;
    const avx512_bounds b = avx512_setup(elem, r);
    const size_t B = avx512_block(op, elem);
    size_t i = 0, k = 0;
    if (sparse) {
        int dense = 1; /* the first window runs dense: short inputs run the plain loop */
        for (; n - i >= AVX512_WINDOW; i += AVX512_WINDOW) {
            const size_t k0 = k;
            k = dense ? avx512_blocks(op, elem, p, valid, i, i + AVX512_WINDOW, b, base, out, k)
                      : avx512_sparse(op, elem, p, valid, i, i + AVX512_WINDOW, b, base,
                                      (unsigned char *)out, k);
            dense = k - k0 > AVX512_SPARSE_MAX;
        }
    }
    const size_t full = i + (n - i) / B * B;
    k = avx512_blocks(op, elem, p, valid, i, full, b, base, out, k);
    return avx512_tail(op, elem, p, valid, full, n, b, base, out, k);
}

SF_INLINE size_t avx512_filter_any(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                   size_t n, const sf_range *r, uint64_t base, void *out) {
    return avx512_filter_loop(op, elem, x, valid, n, r, base, out, 1);
}
SF_FILTER_FROM_ANY(avx512)

SF_INLINE size_t avx512_dense_filter(sf_op op, sf_elem elem, const void *x, size_t n,
                                     const sf_range *r, uint64_t base, void *out) {
    return avx512_filter_loop(op, elem, x, NULL, n, r, base, out, 0);
}

/* The masks are packed into 64-lane words before the popcount: one popcnt per
 * 64 elements whatever the elem, and no row of independent popcounts, which
 * clang 14's SLP vectorizer turns into a pshufb table popcount that halves f64
 * throughput. */
SF_INLINE size_t avx512_count_valid(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                    const sf_range *r) {
    const size_t L = avx512_lanes(elem), B = AVX512_COUNT_WORDS * 64;
    const unsigned char *p = (const unsigned char *)x;
    const avx512_bounds b = avx512_setup(elem, r);
    size_t i = 0, k = 0;
    for (; n - i >= B; i += B)
        for (size_t w = 0; w < AVX512_COUNT_WORDS; w++)
            k += avx512_popcount(avx512_word(elem, p, i + w * 64, valid, b));
    for (; i < n; i += L) {
        const size_t c = avx512_min(L, n - i);
        k += avx512_popcount(avx512_tail_mask(elem, p, i, c, L, valid, b));
    }
    return k;
}

SF_INLINE size_t avx512_count(sf_elem elem, const void *x, size_t n, const sf_range *r) {
    return avx512_count_valid(elem, x, NULL, n, r);
}

/* 64 mask bytes into 64 validity bits with one vptestnmb; the tail is one
 * masked (fault-suppressing) load that reads nothing past mask[n - 1]. */
static void avx512_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i v = _mm512_loadu_si512((const void *)(mask + i));
        const uint64_t bits = _mm512_testn_epi8_mask(v, v);
        memcpy(valid + i / 8, &bits, 8);
    }
    if (i < n) {
        const __mmask64 live = _bzhi_u64(~0ull, (unsigned)(n - i));
        const __m512i v = _mm512_maskz_loadu_epi8(live, (const void *)(mask + i));
        const uint64_t bits = _mm512_mask_testn_epi8_mask(live, v, v);
        memcpy(valid + i / 8, &bits, (n - i + 7) / 8);
    }
}

#include "avx512_within.h" /* within: gathers, compare, the emitters */
#include "avx512_masks.h"  /* mask8 and bits */

SF_INSTANTIATE_ALL_AS(avx512, AVX512_KERNEL, u8, u16, u32, u64, f32, f64)

/* <kernel>_dense: the filter loop without the sparse windows, a variant for the
 * benchmark only (dispatch's SF_VARIANTS; not listed among the kernels). */
SF_INSTANTIATE_FILTERS_AS(avx512_dense, SF_CAT(AVX512_KERNEL, _dense), u8, u16, u32, u64, f32, f64)
