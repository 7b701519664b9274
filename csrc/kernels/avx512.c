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
 * The store form depends on the CPU, so isa.def builds this file twice, as
 * two kernels:
 *   - avx512 (the default on Intel): the memory form, vpcompressd/q m512{k}
 *     (_mm512_mask_compressstoreu_*), which writes exactly the kept lanes. On
 *     the 2-core Intel Xeon (Sapphire Rapids class) KVM it measured up to
 *     1.78x faster than the register form at 50% selectivity in L2 (1.23x at
 *     1 Mi; equal at 1-10% and from DRAM). It also prefetches 2 KiB ahead
 *     for 32- and 64-bit elements (AVX512_PREFETCH_BYTES, avx512_core.h).
 *   - avx512_zen4 (isa.def's row builds it with -DAVX512_REGISTER_FORM=1; the
 *     default on AMD): compress into a register
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
 * them into a mask and compresses the position vector (avx512_within.h).
 *
 * The building blocks (settings, loads, compares, emitters, validity bits) are
 * in avx512_core.h, which avx512_within.h and avx512_masks.h (mask8, bits)
 * include as well.
 */
#include "avx512_core.h"
#include "avx512_masks.h"
#include "avx512_within.h"

/* The kernel this build is: its table is sf_kernel_<AVX512_KERNEL>. */
#if AVX512_REGISTER_FORM
#define AVX512_KERNEL avx512_zen4
#else
#define AVX512_KERNEL avx512
#endif

/* ---- The dense loops: whole blocks, compress and store per group ------------ */

/* Each takes whole blocks [i, end) (end - i a multiple of avx512_block(op,
 * elem)), appends what they keep at out[k] and returns the new k. Positions are
 * base + element index. */

SF_INLINE size_t avx512_index32_blocks(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                       size_t i, size_t end, avx512_bounds b, uint64_t base,
                                       uint32_t *out, size_t k) {
    const size_t L = avx512_lanes(elem), G = 16;
    const size_t V = avx512_block_vectors(L, G, avx512_unroll(SF_OP_INDEX32, elem)), B = V * L;
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
        const size_t G32 = 16;
        const size_t V32 = avx512_block_vectors(L, G32, avx512_unroll(SF_OP_INDEX64, elem));
        const size_t B32 = V32 * L;
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
    const size_t G = 8, V = avx512_block_vectors(L, G, avx512_unroll(SF_OP_INDEX64, elem));
    const size_t B = V * L;
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
    const size_t V = avx512_block_vectors(L, G, avx512_unroll(SF_OP_VALUES, elem)), B = V * L;
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
    return avx512_block_vectors(L, G, avx512_unroll(op, elem)) * L;
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
 * throughput. The words start at p (avx512_valid_bits needs a multiple of 8
 * elements from the bitmap's start, so the head, below, is count's alone). */
SF_INLINE size_t avx512_count_words(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                    size_t n, avx512_bounds b) {
    const size_t L = avx512_lanes(elem), B = AVX512_COUNT_WORDS * 64;
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

SF_INLINE size_t avx512_count_valid(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                    const sf_range *r) {
    return avx512_count_words(elem, (const unsigned char *)x, valid, n, avx512_setup(elem, r));
}

/* Without nulls the elements before the first 64-byte boundary go first, in one
 * masked load, so that every full vector is one aligned line: NumPy's arrays
 * start 16 or 32 bytes past a boundary (malloc's), where each unaligned 64-byte
 * load straddles two lines. AMD EPYC Zen 4 (family 25 model 17) 2-core KVM,
 * avx512_zen4, data 16 bytes past a boundary, in cache (64 Ki, 1 Mi): the
 * figures are in kernels/README.md; from DRAM (64 Mi) the same either way. */
SF_INLINE size_t avx512_count(sf_elem elem, const void *x, size_t n, const sf_range *r) {
    const unsigned char *p = (const unsigned char *)x;
    const size_t size = sf_elem_size(elem), misalign = (uintptr_t)p % 64;
    const avx512_bounds b = avx512_setup(elem, r);
    size_t head = 0, k = 0;
    if (misalign && misalign % size == 0) {
        head = avx512_min(n, (64 - misalign) / size);
        k = avx512_popcount(avx512_tail_mask(elem, p, 0, head, avx512_lanes(elem), NULL, b));
    }
    return k + avx512_count_words(elem, p + head * size, NULL, n - head, b);
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

SF_INSTANTIATE_ALL_AS(avx512, AVX512_KERNEL, u8, u16, u32, u64, f32, f64)

/* <kernel>_dense: the filter loop without the sparse windows, a variant for the
 * benchmark only (dispatch's SF_VARIANTS; not listed among the kernels). */
SF_INSTANTIATE_FILTERS_AS(avx512_dense, SF_CAT(AVX512_KERNEL, _dense), u8, u16, u32, u64, f32, f64)

/* The packed column's kernel (packed.h, packed_x86.h). */
#define PK_NAME AVX512_KERNEL
#include "packed_x86.h"
