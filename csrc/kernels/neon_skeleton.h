/*
 * The loops of the NEON kernel, written once for any predicate, as Highway's
 * CountIf takes its predicate: filter (index32, index64, values), count, the
 * masks (mask8, bits) and within, each with and without nulls, in blocks of
 * 16 elements (the top of kernels/neon.c says how a block becomes 16 bits and
 * how they are left-packed). They only ever ask the predicate for a vector's
 * hits; the rest is neon.c's.
 *
 * The predicate contract. Before each #include of this file, define
 *   NEON_SK    the prefix P of what the inclusion defines: P_filter,
 *              P_filter_valid, P_count, P_count_valid, P_mask_any and P_within
 *              (what SF_INSTANTIATE_ALL of kernel_common.h stamps entry points
 *              from), and their helpers P_block_bits, ...
 *   NEON_PRED  the predicate's prefix Q, whose definitions precede the include:
 *     Q_arg                 the type the entry points pass as `const Q_arg *r`
 *     Q_state               what the loops compare with, made once per call
 *                           (broadcast vectors, say), passed by pointer
 *     Q_setup(elem, r)      the Q_state of the argument r for element kind elem
 *     Q_hits(elem, v, s)    uint8x16_t: all ones in each lane (of elem's width)
 *                           of the vector v that is kept, zero elsewhere. The
 *                           padding lanes of a partial block are zeros and may
 *                           hit (the loops AND them away); count subtracts the
 *                           lanes from its counters, so they must be all ones
 *                           or zero.
 * A hit is a kept lane: a predicate that compares for "outside" (an inverted
 * range) folds that into Q_hits (an XOR for floats), so there is no "hits mean
 * outside" flag here (x86_skeleton.h has one). Every function is SF_INLINE and
 * takes op and elem as constants: each entry point is one straight loop with
 * Q_hits inlined, the code the loops written for one predicate compiled to.
 *
 * The instance today: neon_range (kernels/neon.c, NEON_SK = neon). A second
 * predicate is its own Q_arg, Q_state, Q_setup and Q_hits, one more #include
 * of this file with NEON_SK = neon_<its name>, and its entry points and table
 * slots (CONTRIBUTING.md, "Adding a predicate"). Q and the skeleton's prefix
 * must differ (the range: neon_range and neon); tests/c/test_predicate.c
 * instantiates x == v this way.
 *
 * No include guard: each inclusion #undefs NEON_SK and NEON_PRED at its end.
 */
#if !defined(NEON_SK) || !defined(NEON_PRED)
#error "define NEON_SK and NEON_PRED before including neon_skeleton.h"
#endif

#define NEON_FN(name) SF_CAT(NEON_SK, SF_CAT(_, name))
#define NEON_Q(name) SF_CAT(NEON_PRED, SF_CAT(_, name))

/* Bit e of the result is set when element e of the block hits. */
SF_INLINE unsigned NEON_FN(block_bits)(sf_elem elem, const uint8x16_t *d, const NEON_Q(state) *b) {
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                        1, 2, 4, 8, 16, 32, 64, 128};
    const size_t size = sf_elem_size(elem);
    uint8x16_t m[8];
    for (size_t v = 0; v < size; v++)
        m[v] = NEON_Q(hits)(elem, d[v], b);
    /* `w` vectors of w-byte lanes become w/2 vectors of w/2-byte lanes. */
    for (size_t w = size; w > 1; w /= 2)
        for (size_t v = 0; v < w / 2; v++)
            m[v] = neon_narrow_w(w, m[2 * v], m[2 * v + 1]);
    uint8x16_t t = vandq_u8(m[0], vld1q_u8(weights));
    t = vpaddq_u8(t, t);
    t = vpaddq_u8(t, t);
    t = vpaddq_u8(t, t);
    return vgetq_lane_u16(vreinterpretq_u16_u8(t), 0);
}

/* index32, index64 and values: one loop for every elem and output. */
SF_INLINE size_t NEON_FN(filter_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                     size_t n, const NEON_Q(arg) *r, uint64_t base, void *out) {
    const NEON_Q(state) b = NEON_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), w = sf_result_size(op, elem);
    const unsigned char *p = (const unsigned char *)x;
    unsigned char *dst = (unsigned char *)out;
    size_t i = 0, k = 0;
    for (; n - i >= NEON_BLOCK; i += NEON_BLOCK, p += NEON_BLOCK * size) {
        uint8x16_t d[8];
        neon_load_block(elem, p, d);
        unsigned bits = NEON_FN(block_bits)(elem, d, &b);
        if (valid) /* a constant NULL in the plain entry points */
            bits &= sf_valid_bits(valid, i, NEON_BLOCK, NEON_BLOCK);
        k += neon_emit_block(op, elem, d, bits, base + i, dst + k * w);
    }
    if (i < n) {
        /* The last 1..15 elements: padded copy in, exact copy out. */
        const size_t rem = n - i;
        unsigned char in[NEON_BLOCK * 8] = {0}, res[NEON_BLOCK * 8];
        uint8x16_t d[8];
        memcpy(in, p, rem * size);
        neon_load_block(elem, in, d);
        unsigned bits = NEON_FN(block_bits)(elem, d, &b) & ((1u << rem) - 1);
        if (valid)
            bits &= sf_valid_bits(valid, i, rem, NEON_BLOCK);
        const size_t kept = neon_emit_block(op, elem, d, bits, base + i, res);
        memcpy(dst + k * w, res, kept * w);
        k += kept;
    }
    return k;
}

/* With nulls: each block's 16-bit lane mask ANDed with its 16 validity bits. */
SF_FILTER_FROM_ANY(NEON_SK, NEON_Q(arg))

/* count with nulls: the lane counters cannot see the bitmap, so the block's
 * bits, ANDed with its validity bits, and their popcount. */
SF_INLINE size_t NEON_FN(count_valid)(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                      const NEON_Q(arg) *r) {
    const NEON_Q(state) b = NEON_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    const unsigned char *p = (const unsigned char *)x;
    size_t total = 0;
    uint8x16_t d[8];
    for (size_t i = 0; i < n; i += NEON_BLOCK, p += NEON_BLOCK * size) {
        const size_t rem = n - i < NEON_BLOCK ? n - i : NEON_BLOCK;
        unsigned bits;
        if (rem == NEON_BLOCK) {
            neon_load_block(elem, p, d);
            bits = NEON_FN(block_bits)(elem, d, &b);
        } else {
            unsigned char in[NEON_BLOCK * 8] = {0};
            memcpy(in, p, rem * size);
            neon_load_block(elem, in, d);
            bits = NEON_FN(block_bits)(elem, d, &b) & ((1u << rem) - 1);
        }
        bits &= sf_valid_bits(valid, i, rem, NEON_BLOCK);
        total += (size_t)vaddv_u8(vcnt_u8(vcreate_u8((uint64_t)bits)));
    }
    return total;
}

/*
 * within: blocks of 16 positions; their elements loaded one by one (NEON has
 * no gather) into a block buffer, the block's bits from the same vector
 * compare as the filter's, and the positions themselves left-packed in groups
 * of 4 by the same tables. The last partial block goes through padded copies.
 */
SF_INLINE size_t NEON_FN(within_block)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                       const unsigned char *pos, size_t cnt, const NEON_Q(state) *b,
                                       unsigned char *dst) {
    const size_t size = sf_elem_size(elem), w = sf_result_size(op, elem);
    const unsigned char *src = (const unsigned char *)x;
    unsigned char in[NEON_BLOCK * 8] = {0};
    for (size_t j = 0; j < cnt; j++)
        memcpy(in + j * size, src + (size_t)(sf_pos_at(pos, w, j) - base) * size, size);
    uint8x16_t d[8];
    neon_load_block(elem, in, d);
    const unsigned bits = NEON_FN(block_bits)(elem, d, b) & (cnt >= 16 ? 0xffffu : (1u << cnt) - 1);
    size_t k = 0;
    for (unsigned g = 0; g < NEON_BLOCK / 4; g++) {
        const unsigned m = (bits >> (4 * g)) & 15;
        const unsigned char *pg = pos + 4 * g * w;
        const uint8x16_t src0 = vld1q_u8(pg);
        const uint8x16_t src1 = w == 8 ? vld1q_u8(pg + 16) : vdupq_n_u8(0);
        neon_pack_store(w, src0, src1, 0, m, dst + k * w);
        k += neon_pop4(m);
    }
    return k;
}

SF_INLINE size_t NEON_FN(within)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                 const void *pos_, size_t m, const NEON_Q(arg) *r, void *out) {
    const NEON_Q(state) b = NEON_Q(setup)(elem, r);
    const size_t w = sf_result_size(op, elem);
    const unsigned char *pos = (const unsigned char *)pos_;
    unsigned char *dst = (unsigned char *)out;
    size_t i = 0, k = 0;
    for (; m - i >= NEON_BLOCK; i += NEON_BLOCK)
        k += NEON_FN(within_block)(op, elem, x, base, pos + i * w, NEON_BLOCK, &b, dst + k * w);
    if (i < m) {
        unsigned char ids[NEON_BLOCK * 8] = {0}, res[NEON_BLOCK * 8];
        memcpy(ids, pos + i * w, (m - i) * w);
        const size_t kept = NEON_FN(within_block)(op, elem, x, base, ids, m - i, &b, res);
        memcpy(dst + k * w, res, kept * w);
        k += kept;
    }
    return k;
}

/* Per-lane sum of a block's compare masks: each lane holds minus the number of
 * kept elements it saw (at most sf_elem_size(elem), one per vector). */
SF_INLINE uint8x16_t NEON_FN(block_minus_count)(sf_elem elem, const unsigned char *p,
                                                const NEON_Q(state) *b) {
    const size_t size = sf_elem_size(elem);
    uint8x16_t m[8];
    for (size_t v = 0; v < size; v++)
        m[v] = NEON_Q(hits)(elem, vld1q_u8(p + 16 * v), b);
    /* A tree, so the adds of the 8 vectors of a 64-bit block are not one chain. */
    for (size_t c = size; c > 1; c /= 2)
        for (size_t v = 0; v < c / 2; v++)
            m[v] = neon_add_w(size, m[2 * v], m[2 * v + 1]);
    return m[0];
}

SF_INLINE size_t NEON_FN(count)(sf_elem elem, const void *x, size_t n, const NEON_Q(arg) *r) {
    const NEON_Q(state) b = NEON_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    /* Blocks one lane counter can absorb before it could wrap: a block adds at
     * most `size` to each lane. */
    const uint64_t lane_max = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    const uint64_t chunk = lane_max / size;
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0;
    uint64_t total = 0;
    /* Two counters so consecutive blocks do not wait on each other's subtract. */
    while (n - i >= 2 * NEON_BLOCK) {
        uint64_t pairs = (n - i) / (2 * NEON_BLOCK);
        if (pairs > chunk)
            pairs = chunk;
        uint8x16_t acc0 = vdupq_n_u8(0), acc1 = vdupq_n_u8(0);
        for (uint64_t j = 0; j < pairs; j++, p += 2 * NEON_BLOCK * size) {
            acc0 = neon_sub_w(size, acc0, NEON_FN(block_minus_count)(elem, p, &b));
            acc1 = neon_sub_w(size, acc1,
                              NEON_FN(block_minus_count)(elem, p + NEON_BLOCK * size, &b));
        }
        total += neon_hsum_w(size, acc0) + neon_hsum_w(size, acc1);
        i += (size_t)pairs * 2 * NEON_BLOCK;
    }
    if (i < n) {
        /* At most one full block and a partial one: go through the bit masks. */
        uint8x16_t d[8];
        unsigned char in[NEON_BLOCK * 8];
        while (i < n) {
            const size_t rem = n - i < NEON_BLOCK ? n - i : NEON_BLOCK;
            memset(in, 0, sizeof in);
            memcpy(in, p, rem * size);
            neon_load_block(elem, in, d);
            const unsigned bits = NEON_FN(block_bits)(elem, d, &b) & ((1u << rem) - 1);
            for (unsigned g = 0; g < NEON_BLOCK / 4; g++)
                total += neon_pop4((bits >> (4 * g)) & 15);
            i += rem;
            p += rem * size;
        }
    }
    return (size_t)total;
}

/*
 * The masks: each block's 16 bits (P_block_bits, nulls cleared) are the
 * output's 2 bytes (bits), or become 16 bytes (mask8): the two bytes of the
 * bits duplicated over the halves of a vector, CMTST against each lane's bit
 * weight (0xff where the bit is set), AND 1. The last 1-15 elements go
 * through a zero-padded copy and sf_put_mask.
 */
SF_INLINE size_t NEON_FN(mask_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                   size_t n, const NEON_Q(arg) *r, uint8_t *out) {
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128,
                                        1, 2, 4, 8, 16, 32, 64, 128};
    const NEON_Q(state) b = NEON_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    const unsigned char *p = (const unsigned char *)x;
    const uint8x16_t weight = vld1q_u8(weights), one = vdupq_n_u8(1);
    size_t i = 0, k = 0;
    uint8x16_t d[8];
    for (; n - i >= NEON_BLOCK; i += NEON_BLOCK, p += NEON_BLOCK * size) {
        neon_load_block(elem, p, d);
        unsigned bits = NEON_FN(block_bits)(elem, d, &b);
        if (valid) /* a constant NULL in the plain entry points */
            bits &= sf_valid_bits(valid, i, NEON_BLOCK, NEON_BLOCK);
        k += (size_t)vaddv_u8(vcnt_u8(vcreate_u8((uint64_t)bits)));
        if (op == SF_OP_BITS) {
            out[i / 8] = (uint8_t)bits;
            out[i / 8 + 1] = (uint8_t)(bits >> 8);
        } else {
            const uint8x16_t v =
                vcombine_u8(vdup_n_u8((uint8_t)bits), vdup_n_u8((uint8_t)(bits >> 8)));
            vst1q_u8(out + i, vandq_u8(vtstq_u8(v, weight), one));
        }
    }
    if (i < n) {
        const size_t rem = n - i;
        unsigned char in[NEON_BLOCK * 8] = {0};
        memcpy(in, p, rem * size);
        neon_load_block(elem, in, d);
        unsigned bits = NEON_FN(block_bits)(elem, d, &b);
        if (valid)
            bits &= sf_valid_bits(valid, i, rem, NEON_BLOCK);
        k += sf_put_mask(op, out, i, bits, rem);
    }
    return k;
}

#undef NEON_FN
#undef NEON_Q
#undef NEON_SK
#undef NEON_PRED
