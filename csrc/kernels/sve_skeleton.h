/*
 * The loops of the SVE kernel, written once for any predicate, as Highway's
 * CountIf takes its predicate: filter (index32, index64, values), count, the
 * masks (mask8, bits) and within, each with and without nulls, one vector of
 * any length a step under svwhilelt (the top of kernels/sve.c says how the
 * hits are compacted). They only ever ask the predicate for a vector's hits;
 * the rest is sve.c's. NEON has its own skeleton (neon_skeleton.h): fixed
 * 16-byte blocks against scalable vectors and predicates, nothing to share.
 *
 * The predicate contract. Before each #include of this file, define
 *   SVE_SK    the prefix P of what the inclusion defines: P_filter,
 *             P_filter_valid, P_count, P_count_valid, P_mask_any and P_within
 *             (what SF_INSTANTIATE_ALL of kernel_common.h stamps entry points
 *             from), and their helpers
 *   SVE_PRED  the predicate's prefix Q, whose definitions precede the include:
 *     Q_arg                      the type the entry points pass as `const Q_arg *r`
 *     Q_state                    what the loops compare with, made once per
 *                                call and passed by pointer; scalars only, as
 *                                sizeless SVE types cannot live in a struct
 *                                (the compares take them as immediates or dups)
 *     Q_setup(elem, r)           the Q_state of r for element kind elem
 *     Q_hits(elem, pg, v, s)     svbool_t: the lanes of pg (at elem's width)
 *                                whose element of v (raw bytes) is kept, no
 *                                others (inactive lanes were not loaded)
 *     Q_hits32(elem, pg, v, s)   the same for elements of 8-32 bits that
 *                                within's gathers zero-extended into the 32-bit
 *                                lanes v (svuint32_t)
 *     Q_hits64(elem, pg, v, s)   and into the 64-bit lanes v (svuint64_t), any kind
 * A hit is a kept lane: a predicate that compares for "outside" (an inverted
 * range) folds that into its hits (a predicate NOT for floats), so there is no
 * "hits mean outside" flag here (x86_skeleton.h has one). Every function is
 * SF_INLINE and takes op and elem as constants: each entry point is one loop
 * with the hits inlined, the code the loops written for one predicate
 * compiled to.
 *
 * The instance today: sve_range (kernels/sve.c, SVE_SK = sve). A second
 * predicate is its own Q_arg, Q_state, Q_setup and Q_hits*, one more #include
 * of this file with SVE_SK = sve_<its name>, and its entry points and table
 * slots (CONTRIBUTING.md, "Adding a predicate"). Q and the skeleton's prefix
 * must differ (the range: sve_range and sve); tests/c/test_predicate.c
 * instantiates x == v this way.
 *
 * No include guard: each inclusion #undefs SVE_SK and SVE_PRED at its end.
 */
#if !defined(SVE_SK) || !defined(SVE_PRED)
#error "define SVE_SK and SVE_PRED before including sve_skeleton.h"
#endif

#define SVE_FN(name) SF_CAT(SVE_SK, SF_CAT(_, name))
#define SVE_Q(name) SF_CAT(SVE_PRED, SF_CAT(_, name))

/* index32, index64 and values: one loop for every elem and output. */
SF_INLINE size_t SVE_FN(filter_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                    size_t n, const SVE_Q(arg) *r, uint64_t base, void *out) {
    const SVE_Q(state) b = SVE_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    const size_t w = sf_result_size(op, elem);
    size_t cw = size > w ? size : w; /* compaction width */
    if (cw < 4)
        cw = 4;
    const unsigned levels = cw / size == 8 ? 3 : cw / size == 4 ? 2 : cw / size == 2 ? 1 : 0;
    const unsigned pieces = 1u << levels;
    const uint64_t step = sve_lanes(elem);
    const uint64_t piece_lanes = step >> levels;
    const unsigned char *src = (const unsigned char *)x;
    unsigned char *dst = (unsigned char *)out;
    size_t k = 0;
    for (uint64_t i = 0; i < n; i += step) {
        const svbool_t pg = sve_whilelt(elem, i, n);
        const svuint8_t v = sve_load(elem, pg, src + i * size);
        svbool_t in = SVE_Q(hits)(elem, pg, v, &b);
        if (valid) /* a constant NULL in the plain entry points */
            in = svand_b_z(pg, in, sve_valid_pred(elem, valid, i, n));
        for (unsigned j = 0; j < pieces; j++) {
            const svbool_t pj = sve_pred_piece(in, levels, j);
            const uint64_t first = base + i + j * piece_lanes;
            uint64_t cnt;
            if (cw == 4) {
                svuint32_t s;
                if (op == SF_OP_VALUES)
                    s = sve_widen32(elem, v, j);
                else /* wraps only in lanes past n (base + n <= 2^32), never kept */
                    s = svindex_u32((uint32_t)first, 1);
                cnt = svcntp_b32(pj, pj);
                sve_store32(w, cnt, svcompact_u32(pj, s), dst + k * w);
            } else {
                svuint64_t s;
                if (op == SF_OP_VALUES)
                    s = svreinterpret_u64_u8(v);
                else
                    s = svindex_u64(first, 1);
                cnt = svcntp_b64(pj, pj);
                sve_store64(w, cnt, svcompact_u64(pj, s), dst + k * w);
            }
            k += (size_t)cnt;
        }
    }
    return k;
}

/* With nulls: the compare predicate ANDed with the validity predicate. */
SF_FILTER_FROM_ANY(SVE_SK, SVE_Q(arg))

/*
 * within: lanes as wide as the positions (64 bits for 64-bit elements), the
 * elements gathered into them with the zero-extending gathers (LD1B/LD1H/
 * LD1W/LD1D, so exactly each element's bytes are read), the predicate's test
 * of the element inside the lane (Q_hits32, Q_hits64), and the positions
 * themselves compacted.
 */
SF_INLINE size_t SVE_FN(within)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                const void *pos_, size_t m, const SVE_Q(arg) *r, void *out_) {
    const SVE_Q(state) b = SVE_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    const int wide = op == SF_OP_INDEX64 || size == 8; /* 64-bit lanes */
    unsigned char *out = (unsigned char *)out_;
    size_t k = 0;
    if (!wide) {
        const uint32_t *pos = (const uint32_t *)pos_;
        const uint8_t *x8 = (const uint8_t *)x;
        const uint16_t *x16 = (const uint16_t *)x;
        const uint32_t *x32 = (const uint32_t *)x;
        for (uint64_t i = 0; i < m; i += svcntw()) {
            const svbool_t pg = svwhilelt_b32_u64(i, m);
            const svuint32_t p = svld1_u32(pg, pos + i);
            const svuint32_t idx = svsub_n_u32_x(pg, p, (uint32_t)base);
            svuint32_t v;
            svbool_t in;
            if (size == 1)
                v = svld1ub_gather_u32offset_u32(pg, x8, idx);
            else if (size == 2)
                v = svld1uh_gather_u32index_u32(pg, x16, idx);
            else
                v = svld1_gather_u32index_u32(pg, x32, idx);
            in = SVE_Q(hits32)(elem, pg, v, &b);
            const uint64_t cnt = svcntp_b32(pg, in);
            svst1_u32(svwhilelt_b32_u64(0, cnt), (uint32_t *)(void *)(out + 4 * k),
                      svcompact_u32(in, p));
            k += (size_t)cnt;
        }
        return k;
    }
    const size_t w = sf_result_size(op, elem);
    for (uint64_t i = 0; i < m; i += svcntd()) {
        const svbool_t pg = svwhilelt_b64_u64(i, m);
        const svuint64_t p = op == SF_OP_INDEX32
                                 ? svld1uw_u64(pg, (const uint32_t *)pos_ + i)
                                 : svld1_u64(pg, (const uint64_t *)pos_ + i);
        const svuint64_t idx = svsub_n_u64_x(pg, p, base);
        svuint64_t v;
        svbool_t in;
        switch (size) {
        case 1: v = svld1ub_gather_u64offset_u64(pg, (const uint8_t *)x, idx); break;
        case 2: v = svld1uh_gather_u64index_u64(pg, (const uint16_t *)x, idx); break;
        case 4: v = svld1uw_gather_u64index_u64(pg, (const uint32_t *)x, idx); break;
        default: v = svld1_gather_u64index_u64(pg, (const uint64_t *)x, idx); break;
        }
        in = SVE_Q(hits64)(elem, pg, v, &b);
        const uint64_t cnt = svcntp_b64(pg, in);
        sve_store64(w, cnt, svcompact_u64(in, p), out + w * k);
        k += (size_t)cnt;
    }
    return k;
}

/* count, with nulls when valid is not NULL (a constant in each entry point). */
SF_INLINE size_t SVE_FN(count_any)(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                   const SVE_Q(arg) *r) {
    const SVE_Q(state) b = SVE_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem);
    const uint64_t step = sve_lanes(elem);
    const unsigned char *src = (const unsigned char *)x;
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i += step) {
        const svbool_t pg = sve_whilelt(elem, i, n);
        const svbool_t in = SVE_Q(hits)(elem, pg, sve_load(elem, pg, src + i * size), &b);
        total += sve_cntp(size, pg,
                          valid ? svand_b_z(pg, in, sve_valid_pred(elem, valid, i, n)) : in);
    }
    return (size_t)total;
}

SF_INLINE size_t SVE_FN(count)(sf_elem elem, const void *x, size_t n, const SVE_Q(arg) *r) {
    return SVE_FN(count_any)(elem, x, NULL, n, r);
}

SF_INLINE size_t SVE_FN(count_valid)(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                     const SVE_Q(arg) *r) {
    return SVE_FN(count_any)(elem, x, valid, n, r);
}

/*
 * The masks. mask8: each vector's hits (nulls cleared) as a
 * vector of 1s under it at the element width (DUP, zeroing), stored truncated
 * to bytes (ST1B) under the loop predicate, so every element of the vector
 * gets its byte. bits: a vector's element count need not be a multiple of 8
 * (a 384-bit vector holds 6 doubles), so the bytes of SVE_MASK_CHUNK elements
 * are made as for mask8 in a buffer on the stack, then packed eight to a byte
 * as sve_mask_to_valid does (the multiply of each 64-bit lane), ceil(c / 8)
 * bytes stored.
 */
#ifndef SVE_MASK_CHUNK /* this file is included once per predicate */
#define SVE_MASK_CHUNK 2048
#endif

/* The mask8 bytes of elements [from, to) at dst[0, to - from): the 1s. */
SF_INLINE uint64_t SVE_FN(mask8_span)(sf_elem elem, const unsigned char *src, const uint8_t *valid,
                                      uint64_t from, uint64_t to, uint64_t n, const SVE_Q(state) *b,
                                      uint8_t *dst) {
    const size_t size = sf_elem_size(elem);
    uint64_t total = 0;
    for (uint64_t i = from; i < to; i += sve_lanes(elem)) {
        const svbool_t pg = sve_whilelt(elem, i, to);
        svbool_t in = SVE_Q(hits)(elem, pg, sve_load(elem, pg, src + i * size), b);
        if (valid) /* a constant NULL in the plain entry points */
            in = svand_b_z(pg, in, sve_valid_pred(elem, valid, i, n));
        total += sve_cntp(size, pg, in);
        uint8_t *o = dst + (i - from);
        switch (size) {
        case 1: svst1_u8(pg, o, svdup_n_u8_z(in, 1)); break;
        case 2: svst1b_u16(pg, o, svdup_n_u16_z(in, 1)); break;
        case 4: svst1b_u32(pg, o, svdup_n_u32_z(in, 1)); break;
        default: svst1b_u64(pg, o, svdup_n_u64_z(in, 1)); break;
        }
    }
    return total;
}

SF_INLINE size_t SVE_FN(mask_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                  size_t n, const SVE_Q(arg) *r, uint8_t *out) {
    const SVE_Q(state) b = SVE_Q(setup)(elem, r);
    const unsigned char *src = (const unsigned char *)x;
    if (op == SF_OP_MASK8)
        return (size_t)SVE_FN(mask8_span)(elem, src, valid, 0, n, n, &b, out);
    uint8_t buf[SVE_MASK_CHUNK];
    const svbool_t all = svptrue_b64();
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i += SVE_MASK_CHUNK) {
        const uint64_t c = n - i < SVE_MASK_CHUNK ? n - i : SVE_MASK_CHUNK;
        total += SVE_FN(mask8_span)(elem, src, valid, i, i + c, n, &b, buf);
        for (uint64_t t = 0; t < c; t += svcntb()) {
            const svuint64_t bytes = svreinterpret_u64_u8(svld1_u8(svwhilelt_b8_u64(t, c), buf + t));
            const svuint64_t bits =
                svlsr_n_u64_x(all, svmul_n_u64_x(all, bytes, 0x0102040810204080u), 56);
            svst1b_u64(svwhilelt_b64_u64(0, (c - t + 7) / 8), out + (i + t) / 8, bits);
        }
    }
    return (size_t)total;
}

#undef SVE_FN
#undef SVE_Q
#undef SVE_SK
#undef SVE_PRED
