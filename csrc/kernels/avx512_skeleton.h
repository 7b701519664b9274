/*
 * The loops of the AVX-512 kernels, written once for any predicate, as
 * Highway's CountIf takes its predicate: filter (index32, index64, values;
 * dense blocks, the tail and the sparse windows), count, the masks (mask8,
 * bits: avx512_masks.h) and within (avx512_within.h), each with and without
 * nulls. They only ever ask the predicate for a vector's hits; loads, groups,
 * compresses, stores and validity bits are avx512_core.h's.
 *
 * The predicate contract. Before each #include of this file, define
 *   AVX512_SK    the prefix P of what the inclusion defines: P_filter,
 *                P_filter_valid, P_dense_filter, P_count, P_count_valid,
 *                P_mask_any and P_within (the functions SF_INSTANTIATE_ALL and
 *                SF_INSTANTIATE_FILTERS of kernel_common.h stamp entry points
 *                from), and their helpers P_word, P_tail_mask, ...
 *   AVX512_PRED  the predicate's prefix Q, whose header defines
 *     Q_arg                  the type the entry points pass as `const Q_arg *r`
 *     Q_state                what the loops compare with, made once per call
 *                            and passed by value (broadcast vectors, say)
 *     Q_setup(elem, r)       the Q_state of the argument r for element kind elem
 *     Q_hits(elem, v, s)     uint64_t: bit i set when lane i of the 64-byte
 *                            vector v (lanes of elem) is kept. Lanes past the
 *                            data that a masked load zeroed may be set (the
 *                            loops AND them away); within also passes
 *                            gathered vectors, zeroed where not live.
 * A hit is a kept lane: a predicate that compares for "outside" (an inverted
 * range) folds that into Q_hits, where the compare gives a bit mask anyway,
 * so there is no "hits mean outside" flag here (x86_skeleton.h has one).
 * Every function is SF_INLINE and takes op and elem as constants, so each
 * entry point is one straight loop with Q_hits inlined in it: the code is what
 * the loops written for one predicate compiled to.
 *
 * The instance today: avx512_range.h (Q = avx512_range, AVX512_SK = avx512,
 * in kernels/avx512.c). A second predicate is its own Q_arg, Q_state, Q_setup
 * and Q_hits, one more #include of this file with AVX512_SK = avx512_<its
 * name>, and its entry points and table slots (CONTRIBUTING.md, "Adding a
 * predicate"). Q and the skeleton's prefix must differ (the range: avx512_range
 * and avx512); tests/c/test_predicate.c instantiates x == v this way.
 *
 * No include guard: each inclusion #undefs AVX512_SK and AVX512_PRED at its end.
 */
#if !defined(AVX512_SK) || !defined(AVX512_PRED)
#error "define AVX512_SK and AVX512_PRED before including avx512_skeleton.h"
#endif

#include "avx512_core.h"

#define AVX512_FN(name) SF_CAT(AVX512_SK, SF_CAT(_, name))
#define AVX512_Q(name) SF_CAT(AVX512_PRED, SF_CAT(_, name))

/* ---- The masks of vectors and words ----------------------------------------- */

/* The hits of the c <= G (<= 64) elements at p, read with masked loads:
 * the tail's building block. The constant G bounds the loop so that it folds
 * to the one or two loads it can need. */
SF_INLINE uint64_t AVX512_FN(mask_partial)(sf_elem elem, const unsigned char *p, size_t c, size_t G,
                                           AVX512_Q(state) b) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem);
    uint64_t m = 0;
    for (size_t v = 0; v * L < G && v * L < c; v++) {
        const size_t cv = avx512_min(L, c - v * L);
        /* Masked-off lanes were loaded as zero, which may well hit. */
        const uint64_t mv = AVX512_Q(hits)(elem, avx512_load(elem, p + v * L * size, 1, cv), b) &
                            avx512_low_bits(cv);
        m |= mv << (v * L);
    }
    return m;
}

/* The hits of the whole vector at element i, nulls cleared when
 * `valid` (a constant NULL in the plain entry points: the AND folds away). */
SF_INLINE uint64_t AVX512_FN(vector_mask)(sf_elem elem, const unsigned char *p, size_t i,
                                          const uint8_t *valid, AVX512_Q(state) b) {
    const size_t L = avx512_lanes(elem);
    const uint64_t m = AVX512_Q(hits)(elem, avx512_load(elem, p + i * sf_elem_size(elem), 0, 0), b);
    return valid ? m & avx512_valid_bits(valid, i, L) : m;
}

/* The 64-bit mask of the 64 elements at element i (1 to 8 vectors): count's
 * unit and the sparse loop's. */
SF_INLINE uint64_t AVX512_FN(word)(sf_elem elem, const unsigned char *p, size_t i,
                                   const uint8_t *valid, AVX512_Q(state) b) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem);
    uint64_t word = 0;
    for (size_t v = 0; v < 64 / L; v++)
        word |= AVX512_Q(hits)(elem, avx512_load(elem, p + (i + v * L) * size, 0, 0), b)
                << (v * L);
    return valid ? word & avx512_valid_bits(valid, i, 64) : word;
}

/* The tail's mask: the c < G elements at element i, nulls cleared. */
SF_INLINE uint64_t AVX512_FN(tail_mask)(sf_elem elem, const unsigned char *p, size_t i, size_t c,
                                        size_t G, const uint8_t *valid, AVX512_Q(state) b) {
    const uint64_t m = AVX512_FN(mask_partial)(elem, p + i * sf_elem_size(elem), c, G, b);
    return valid ? m & avx512_valid_bits(valid, i, c) : m;
}

/* ---- The dense loops: whole blocks, compress and store per group ------------ */

/* Each takes whole blocks [i, end) (end - i a multiple of P_block(op,
 * elem)), appends what they keep at out[k] and returns the new k. Positions are
 * base + element index. */

SF_INLINE size_t AVX512_FN(index32_blocks)(sf_elem elem, const unsigned char *p,
                                           const uint8_t *valid, size_t i, size_t end,
                                           AVX512_Q(state) b, uint64_t base, uint32_t *out,
                                           size_t k) {
    const size_t L = avx512_lanes(elem), G = 16;
    const size_t V = avx512_block_vectors(L, G, avx512_unroll(SF_OP_INDEX32, elem)), B = V * L;
    /* Positions wrap modulo 2^32 in the vector, never in C: base + n <= 2^32. */
    __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)(base + i)),
                                   _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                     12, 13, 14, 15));
    for (; i < end; i += B) {
        uint64_t m[AVX512_MAX_VECTORS];
        for (size_t v = 0; v < V; v++)
            m[v] = AVX512_FN(vector_mask)(elem, p, i + v * L, valid, b);
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
SF_INLINE int AVX512_FN(index64_narrow)(sf_elem elem) { return sf_elem_size(elem) <= 2; }

SF_INLINE size_t AVX512_FN(index64_blocks)(sf_elem elem, const unsigned char *p,
                                           const uint8_t *valid, size_t i, size_t end,
                                           AVX512_Q(state) b, uint64_t base, uint64_t *out,
                                           size_t k) {
    const size_t L = avx512_lanes(elem);
    if (AVX512_FN(index64_narrow)(elem)) {
        const size_t G32 = 16;
        const size_t V32 = avx512_block_vectors(L, G32, avx512_unroll(SF_OP_INDEX64, elem));
        const size_t B32 = V32 * L;
        const __m512i iota =
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        for (; i < end; i += B32) {
            uint64_t m[AVX512_MAX_VECTORS];
            for (size_t v = 0; v < V32; v++)
                m[v] = AVX512_FN(vector_mask)(elem, p, i + v * L, valid, b);
            for (size_t g = 0; g < B32 / G32; g++) {
                const uint64_t gm = avx512_group_mask(m, L, G32, g);
                const __m512i c = _mm512_mask_compress_epi32(iota, _cvtu32_mask16((uint32_t)gm),
                                                             iota);
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
            m[v] = AVX512_FN(vector_mask)(elem, p, i + v * L, valid, b);
        for (size_t g = 0; g < B / G; g++) {
            const __m512i id = _mm512_add_epi64(ids, _mm512_set1_epi64((long long)(g * G)));
            k += avx512_emit64(out + k, id, avx512_group_mask(m, L, G, g), 0);
        }
        ids = _mm512_add_epi64(ids, _mm512_set1_epi64((long long)B));
    }
    return k;
}

SF_INLINE size_t AVX512_FN(values_blocks)(sf_elem elem, const unsigned char *p,
                                          const uint8_t *valid, size_t i, size_t end,
                                          AVX512_Q(state) b, unsigned char *dst, size_t k) {
    const size_t L = avx512_lanes(elem), size = sf_elem_size(elem), G = avx512_values_group(elem);
    const size_t V = avx512_block_vectors(L, G, avx512_unroll(SF_OP_VALUES, elem)), B = V * L;
    for (; i < end; i += B) {
        uint64_t m[AVX512_MAX_VECTORS];
        __m512i vec[AVX512_MAX_VECTORS];
        for (size_t v = 0; v < V; v++) {
            vec[v] = avx512_load(elem, p + (i + v * L) * size, 0, 0);
            m[v] = AVX512_Q(hits)(elem, vec[v], b);
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
SF_INLINE size_t AVX512_FN(block)(sf_op op, sf_elem elem) {
    const size_t L = avx512_lanes(elem);
    const size_t G = op == SF_OP_INDEX32                               ? 16
                     : op == SF_OP_VALUES                              ? avx512_values_group(elem)
                     : AVX512_FN(index64_narrow)(elem)                     ? 16
                                                                       : 8;
    return avx512_block_vectors(L, G, avx512_unroll(op, elem)) * L;
}

SF_INLINE size_t AVX512_FN(blocks)(sf_op op, sf_elem elem, const unsigned char *p,
                                   const uint8_t *valid, size_t i, size_t end, AVX512_Q(state) b,
                                   uint64_t base, void *out, size_t k) {
    switch (op) {
    case SF_OP_INDEX32:
        return AVX512_FN(index32_blocks)(elem, p, valid, i, end, b, base, (uint32_t *)out, k);
    case SF_OP_INDEX64:
        return AVX512_FN(index64_blocks)(elem, p, valid, i, end, b, base, (uint64_t *)out, k);
    default: return AVX512_FN(values_blocks)(elem, p, valid, i, end, b, (unsigned char *)out, k);
    }
}

/* The last n - i (< one block) elements, in groups read with masked loads;
 * each stores exactly its kept lanes. */
SF_INLINE size_t AVX512_FN(tail)(sf_op op, sf_elem elem, const unsigned char *p,
                                 const uint8_t *valid, size_t i, size_t n, AVX512_Q(state) b,
                                 uint64_t base, void *out, size_t k) {
    const size_t size = sf_elem_size(elem);
    if (op == SF_OP_INDEX32) {
        __m512i ids = _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)(base + i)),
                                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                         12, 13, 14, 15));
        for (; i < n; i += 16) {
            const size_t c = avx512_min(16, n - i);
            k += avx512_emit32((uint32_t *)out + k, ids,
                               AVX512_FN(tail_mask)(elem, p, i, c, 16, valid, b), 1);
            ids = _mm512_add_epi32(ids, _mm512_set1_epi32(16));
        }
    } else if (op == SF_OP_INDEX64) {
        __m512i ids = _mm512_add_epi64(_mm512_set1_epi64((long long)(base + i)),
                                       _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        for (; i < n; i += 8) {
            const size_t c = avx512_min(8, n - i);
            k += avx512_emit64((uint64_t *)out + k, ids,
                               AVX512_FN(tail_mask)(elem, p, i, c, 8, valid, b), 1);
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
            uint64_t gm = AVX512_Q(hits)(elem, data, b) & avx512_low_bits(c);
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
#ifndef AVX512_WINDOW /* this file is included once per predicate */
#define AVX512_WINDOW 2048
#define AVX512_SPARSE_MAX 8u
#endif

SF_INLINE size_t AVX512_FN(sparse)(sf_op op, sf_elem elem, const unsigned char *p,
                                   const uint8_t *valid, size_t i, size_t end, AVX512_Q(state) b,
                                   uint64_t base, unsigned char *out, size_t k) {
    const size_t size = sf_elem_size(elem);
    for (; i < end; i += 64)
        for (uint64_t w = AVX512_FN(word)(elem, p, i, valid, b); w; w &= w - 1, k++) {
            const size_t j = i + (size_t)_tzcnt_u64(w);
            sf_put_result(op, out, k, p + j * size, size, base + j);
        }
    return k;
}

/* ---- The operations ------------------------------------------------------------ */

/* index32, index64 and values, with nulls when `valid`; `sparse` (a constant)
 * adds the sparse windows, 0 being the loop without them (the *_dense
 * variants, for the benchmark). */
SF_INLINE size_t AVX512_FN(filter_loop)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                        size_t n, const AVX512_Q(arg) *r, uint64_t base, void *out,
                                        int sparse) {
    const unsigned char *p = (const unsigned char *)x;
    const AVX512_Q(state) b = AVX512_Q(setup)(elem, r);
    const size_t B = AVX512_FN(block)(op, elem);
    size_t i = 0, k = 0;
    if (sparse) {
        int dense = 1; /* the first window runs dense: short inputs run the plain loop */
        for (; n - i >= AVX512_WINDOW; i += AVX512_WINDOW) {
            const size_t k0 = k;
            k = dense ? AVX512_FN(blocks)(op, elem, p, valid, i, i + AVX512_WINDOW, b, base, out, k)
                      : AVX512_FN(sparse)(op, elem, p, valid, i, i + AVX512_WINDOW, b, base,
                                      (unsigned char *)out, k);
            dense = k - k0 > AVX512_SPARSE_MAX;
        }
    }
    const size_t full = i + (n - i) / B * B;
    k = AVX512_FN(blocks)(op, elem, p, valid, i, full, b, base, out, k);
    return AVX512_FN(tail)(op, elem, p, valid, full, n, b, base, out, k);
}

SF_INLINE size_t AVX512_FN(filter_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                       size_t n, const AVX512_Q(arg) *r, uint64_t base, void *out) {
    return AVX512_FN(filter_loop)(op, elem, x, valid, n, r, base, out, 1);
}
SF_FILTER_FROM_ANY(AVX512_SK, AVX512_Q(arg))

SF_INLINE size_t AVX512_FN(dense_filter)(sf_op op, sf_elem elem, const void *x, size_t n,
                                         const AVX512_Q(arg) *r, uint64_t base, void *out) {
    return AVX512_FN(filter_loop)(op, elem, x, NULL, n, r, base, out, 0);
}

/* The masks are packed into 64-lane words before the popcount: one popcnt per
 * 64 elements whatever the elem, and no row of independent popcounts, which
 * clang 14's SLP vectorizer turns into a pshufb table popcount that halves f64
 * throughput. The words start at p (avx512_valid_bits needs a multiple of 8
 * elements from the bitmap's start, so the head, below, is count's alone). */
SF_INLINE size_t AVX512_FN(count_words)(sf_elem elem, const unsigned char *p, const uint8_t *valid,
                                        size_t n, AVX512_Q(state) b) {
    const size_t L = avx512_lanes(elem), B = AVX512_COUNT_WORDS * 64;
    size_t i = 0, k = 0;
    for (; n - i >= B; i += B)
        for (size_t w = 0; w < AVX512_COUNT_WORDS; w++)
            k += avx512_popcount(AVX512_FN(word)(elem, p, i + w * 64, valid, b));
    for (; i < n; i += L) {
        const size_t c = avx512_min(L, n - i);
        k += avx512_popcount(AVX512_FN(tail_mask)(elem, p, i, c, L, valid, b));
    }
    return k;
}

SF_INLINE size_t AVX512_FN(count_valid)(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                        const AVX512_Q(arg) *r) {
    return AVX512_FN(count_words)(elem, (const unsigned char *)x, valid, n,
                                  AVX512_Q(setup)(elem, r));
}

/* Without nulls the elements before the first 64-byte boundary go first, in one
 * masked load, so that every full vector is one aligned line: NumPy's arrays
 * start 16 or 32 bytes past a boundary (malloc's), where each unaligned 64-byte
 * load straddles two lines. AMD EPYC Zen 4 (family 25 model 17) 2-core KVM,
 * avx512_zen4, data 16 bytes past a boundary, in cache (64 Ki, 1 Mi): the
 * figures are in kernels/README.md; from DRAM (64 Mi) the same either way. */
SF_INLINE size_t AVX512_FN(count)(sf_elem elem, const void *x, size_t n, const AVX512_Q(arg) *r) {
    const unsigned char *p = (const unsigned char *)x;
    const size_t size = sf_elem_size(elem), misalign = (uintptr_t)p % 64;
    const AVX512_Q(state) b = AVX512_Q(setup)(elem, r);
    size_t head = 0, k = 0;
    if (misalign && misalign % size == 0) {
        head = avx512_min(n, (64 - misalign) / size);
        k = avx512_popcount(AVX512_FN(tail_mask)(elem, p, 0, head, avx512_lanes(elem), NULL, b));
    }
    return k + AVX512_FN(count_words)(elem, p + head * size, NULL, n - head, b);
}


#include "avx512_masks.h"
#include "avx512_within.h"

#undef AVX512_FN
#undef AVX512_Q
#undef AVX512_SK
#undef AVX512_PRED
