/*
 * SVE kernel, compiled with -march=armv8-a+sve only. Vector-length agnostic: it
 * never assumes a width (128 to 2048 bits), every step is svcnt*() elements.
 *
 * Each iteration loads one vector of the element elem under a svwhilelt
 * predicate, so the last, partial vector needs no scalar tail: inactive lanes
 * are neither loaded (no fault past x[n-1]) nor kept.
 *
 * COMPACT exists only for 32- and 64-bit elements, so the filter ops compact at
 * a "compaction width" of max(4, element size, output size) bytes: the compare
 * predicate is split into that many pieces with PUNPKLO/PUNPKHI (in element
 * order), each piece's indexes (INDEX) or widened data (UUNPKLO/HI) are
 * compacted, and exactly CNTP lanes are stored under svwhilelt(0, cnt), with a
 * truncating store (ST1B/ST1H/ST1W) when the output is narrower than the
 * compaction width. Nothing is written past out[k + cnt).
 */
#include <arm_sve.h>

#include "kernel_common.h"

/* ---- Per-elem primitives ------------------------------------------------- */

/* Elements of the elem in one vector. */
SF_INLINE uint64_t sve_lanes(sf_elem elem) {
    switch (sf_elem_size(elem)) {
    case 1: return svcntb();
    case 2: return svcnth();
    case 4: return svcntw();
    default: return svcntd();
    }
}

/* Lanes [i, n) of the vector starting at element i, at the elem's width. */
SF_INLINE svbool_t sve_whilelt(sf_elem elem, uint64_t i, uint64_t n) {
    switch (sf_elem_size(elem)) {
    case 1: return svwhilelt_b8_u64(i, n);
    case 2: return svwhilelt_b16_u64(i, n);
    case 4: return svwhilelt_b32_u64(i, n);
    default: return svwhilelt_b64_u64(i, n);
    }
}

/* Active elements of pred, counted at the elem's width. */
SF_INLINE uint64_t sve_cntp(size_t width, svbool_t pg, svbool_t pred) {
    switch (width) {
    case 1: return svcntp_b8(pg, pred);
    case 2: return svcntp_b16(pg, pred);
    case 4: return svcntp_b32(pg, pred);
    default: return svcntp_b64(pg, pred);
    }
}

/* One vector of the elem, loaded under pg; kept as raw bytes so one variable
 * type serves every elem (reinterpretation costs nothing). */
SF_INLINE svuint8_t sve_load(sf_elem elem, svbool_t pg, const unsigned char *p) {
    switch (sf_elem_size(elem)) {
    case 1: return svld1_u8(pg, p);
    case 2: return svreinterpret_u8_u16(svld1_u16(pg, (const uint16_t *)(const void *)p));
    case 4: return svreinterpret_u8_u32(svld1_u32(pg, (const uint32_t *)(const void *)p));
    default: return svreinterpret_u8_u64(svld1_u64(pg, (const uint64_t *)(const void *)p));
    }
}

/* Bounds as scalars: sizeless vector types cannot live in a struct. */
typedef struct sve_bounds {
    uint64_t lo, span;
    double flo, fhi;
    int finv; /* an inverted float range (an integer one is its complement: sf_lo) */
} sve_bounds;

SF_INLINE sve_bounds sve_setup(const sf_range *r) {
    sve_bounds b = {sf_lo(r), sf_span(r), r->flo, r->fhi, r->invert != 0};
    return b;
}

/* The float compare's lanes among pg, or (inverted) the other lanes of pg:
 * outside the range, NaN included. */
SF_INLINE svbool_t sve_float_keep(svbool_t pg, svbool_t inside, const sve_bounds *b) {
    return b->finv ? svnot_b_z(pg, inside) : inside;
}

/* The in-range lanes among pg. Integer kinds: one unsigned compare (CMPLS) of
 * x - lo against hi - lo at the element width. Floats: ordered FCMGE then FCMLE
 * governed by the first result (the AND is free), false for NaN; inverted,
 * sve_float_keep. */
SF_INLINE svbool_t sve_inside(sf_elem elem, svbool_t pg, svuint8_t v, const sve_bounds *b) {
    switch (elem) {
    case SF_U8:
        return svcmple_n_u8(pg, svsub_n_u8_x(pg, v, (uint8_t)b->lo), (uint8_t)b->span);
    case SF_U16: {
        svuint16_t e = svreinterpret_u16_u8(v);
        return svcmple_n_u16(pg, svsub_n_u16_x(pg, e, (uint16_t)b->lo), (uint16_t)b->span);
    }
    case SF_U32: {
        svuint32_t e = svreinterpret_u32_u8(v);
        return svcmple_n_u32(pg, svsub_n_u32_x(pg, e, (uint32_t)b->lo), (uint32_t)b->span);
    }
    case SF_U64: {
        svuint64_t e = svreinterpret_u64_u8(v);
        return svcmple_n_u64(pg, svsub_n_u64_x(pg, e, b->lo), b->span);
    }
    case SF_F32: {
        svfloat32_t f = svreinterpret_f32_u8(v);
        return sve_float_keep(
            pg, svcmple_n_f32(svcmpge_n_f32(pg, f, (float)b->flo), f, (float)b->fhi), b);
    }
    case SF_F64: {
        svfloat64_t f = svreinterpret_f64_u8(v);
        return sve_float_keep(pg, svcmple_n_f64(svcmpge_n_f64(pg, f, b->flo), f, b->fhi), b);
    }
    default:
        return svpfalse_b();
    }
}

/* Piece j (of 2^levels, in element order) of a predicate, each unpack doubling
 * the element width. */
SF_INLINE svbool_t sve_pred_piece(svbool_t p, unsigned levels, unsigned j) {
    for (unsigned l = levels; l > 0; l--)
        p = ((j >> (l - 1)) & 1) ? svunpkhi_b(p) : svunpklo_b(p);
    return p;
}

/* Piece j of the data, zero-extended to 32-bit lanes (8- and 16-bit kinds). */
SF_INLINE svuint32_t sve_widen32(sf_elem elem, svuint8_t v, unsigned j) {
    switch (sf_elem_size(elem)) {
    case 1: {
        svuint16_t h = (j & 2) ? svunpkhi_u16(v) : svunpklo_u16(v);
        return (j & 1) ? svunpkhi_u32(h) : svunpklo_u32(h);
    }
    case 2: {
        svuint16_t h = svreinterpret_u16_u8(v);
        return j ? svunpkhi_u32(h) : svunpklo_u32(h);
    }
    default:
        return svreinterpret_u32_u8(v);
    }
}

/* Stores the first `cnt` lanes of 32-bit lanes c, truncated to `w` bytes each. */
SF_INLINE void sve_store32(size_t w, uint64_t cnt, svuint32_t c, unsigned char *dst) {
    const svbool_t pg = svwhilelt_b32_u64(0, cnt);
    switch (w) {
    case 1: svst1b_u32(pg, dst, c); break;
    case 2: svst1h_u32(pg, (uint16_t *)(void *)dst, c); break;
    default: svst1_u32(pg, (uint32_t *)(void *)dst, c); break;
    }
}

/* Same for 64-bit lanes, truncated to `w` (4 or 8) bytes each. */
SF_INLINE void sve_store64(size_t w, uint64_t cnt, svuint64_t c, unsigned char *dst) {
    const svbool_t pg = svwhilelt_b64_u64(0, cnt);
    if (w == 4)
        svst1w_u64(pg, (uint32_t *)(void *)dst, c);
    else
        svst1_u64(pg, (uint64_t *)(void *)dst, c);
}

/*
 * The validity bits of lanes [i, i + lanes) as a predicate at the elem's width
 * (bit i of valid[], LSB first, is element i). Built in byte lanes: byte t
 * belongs to element e = t / size, whose bit is bit (i % 8 + e) % 8 of byte
 * i / 8 + (i % 8 + e) / 8; one contiguous load of the bytes those bits are in
 * (never past valid[ceil(n / 8) - 1]), a TBL that hands each lane its byte,
 * and a bit test. Every byte of a valid element is set: the AND with the
 * caller's predicate at the elem's width clears the bits that width ignores,
 * so PUNPKLO/HI and CNTP see a well-formed predicate.
 */
SF_INLINE svbool_t sve_valid_pred(sf_elem elem, const uint8_t *valid, uint64_t i, uint64_t n) {
    const size_t size = sf_elem_size(elem);
    const unsigned shift = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    const svbool_t all = svptrue_b8();
    const uint64_t first = i / 8, have = (n + 7) / 8 - first;
    const uint64_t need = (i % 8 + sve_lanes(elem) + 7) / 8;
    const svuint8_t bytes = svld1_u8(svwhilelt_b8_u64(0, need < have ? need : have), valid + first);
    const svuint8_t bit = svadd_n_u8_x(all, svlsr_n_u8_x(all, svindex_u8(0, 1), shift),
                                       (uint8_t)(i % 8));
    const svuint8_t mine = svtbl_u8(bytes, svlsr_n_u8_x(all, bit, 3));
    const svuint8_t one = svlsl_u8_x(all, svdup_n_u8(1), svand_n_u8_x(all, bit, 7));
    return svcmpne_n_u8(all, svand_u8_x(all, mine, one), 0);
}

/* ---- The loops ----------------------------------------------------------- */

/* index32, index64 and values: one loop for every elem and output. */
SF_INLINE size_t sve_filter_any(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                size_t n, const sf_range *r, uint64_t base, void *out) {
    const sve_bounds b = sve_setup(r);
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
        svbool_t in = sve_inside(elem, pg, v, &b);
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
SF_FILTER_FROM_ANY(sve)


/*
 * within: lanes as wide as the positions (64 bits for 64-bit elements), the
 * elements gathered into them with the zero-extending gathers (LD1B/LD1H/
 * LD1W/LD1D, so exactly each element's bytes are read), the range test at the
 * element's width inside the lane, and the positions themselves compacted.
 */
SF_INLINE size_t sve_within(sf_op op, sf_elem elem, const void *x, uint64_t base,
                            const void *pos_, size_t m, const sf_range *r, void *out_) {
    const sve_bounds b = sve_setup(r);
    const size_t size = sf_elem_size(elem);
    const int wide = op == SF_OP_INDEX64 || size == 8; /* 64-bit lanes */
    const uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
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
            if (elem == SF_F32) {
                const svfloat32_t f = svreinterpret_f32_u32(v);
                in = sve_float_keep(
                    pg, svcmple_n_f32(svcmpge_n_f32(pg, f, (float)b.flo), f, (float)b.fhi), &b);
            } else {
                const svuint32_t d = svand_n_u32_x(pg, svsub_n_u32_x(pg, v, (uint32_t)b.lo),
                                                   (uint32_t)mask);
                in = svcmple_n_u32(pg, d, (uint32_t)(b.span & mask));
            }
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
        if (elem == SF_F64 || elem == SF_F32) {
            /* f32 in the low half of each lane: widened exactly to f64, where
             * the bounds (floats, by the contract) compare the same */
            const svfloat64_t f = elem == SF_F64
                                      ? svreinterpret_f64_u64(v)
                                      : svcvt_f64_f32_x(pg, svreinterpret_f32_u64(v));
            in = sve_float_keep(pg, svcmple_n_f64(svcmpge_n_f64(pg, f, b.flo), f, b.fhi), &b);
        } else {
            const svuint64_t d = svand_n_u64_x(pg, svsub_n_u64_x(pg, v, b.lo), mask);
            in = svcmple_n_u64(pg, d, b.span & mask);
        }
        const uint64_t cnt = svcntp_b64(pg, in);
        sve_store64(w, cnt, svcompact_u64(in, p), out + w * k);
        k += (size_t)cnt;
    }
    return k;
}

/* count, with nulls when valid is not NULL (a constant in each entry point). */
SF_INLINE size_t sve_count_any(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                               const sf_range *r) {
    const sve_bounds b = sve_setup(r);
    const size_t size = sf_elem_size(elem);
    const uint64_t step = sve_lanes(elem);
    const unsigned char *src = (const unsigned char *)x;
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i += step) {
        const svbool_t pg = sve_whilelt(elem, i, n);
        const svbool_t in = sve_inside(elem, pg, sve_load(elem, pg, src + i * size), &b);
        total += sve_cntp(size, pg,
                          valid ? svand_b_z(pg, in, sve_valid_pred(elem, valid, i, n)) : in);
    }
    return (size_t)total;
}

SF_INLINE size_t sve_count(sf_elem elem, const void *x, size_t n, const sf_range *r) {
    return sve_count_any(elem, x, NULL, n, r);
}

SF_INLINE size_t sve_count_valid(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                 const sf_range *r) {
    return sve_count_any(elem, x, valid, n, r);
}

/* One vector of mask bytes at a time (any length, the last one under
 * svwhilelt): a 0x01 byte for each valid element, 0x00 elsewhere (inactive
 * lanes included), then each 64-bit lane's eight bytes gathered into its top
 * byte by a multiply (as in sf_mask_to_valid_tail) and stored truncated: one
 * validity byte per lane, exactly ceil(n / 8) of them in all. */
static void sve_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    const svbool_t all = svptrue_b64();
    for (uint64_t i = 0; i < n; i += svcntb()) {
        const svbool_t live = svwhilelt_b8_u64(i, n);
        const svbool_t ok = svcmpeq_n_u8(live, svld1_u8(live, mask + i), 0);
        const svuint64_t ones = svreinterpret_u64_u8(svdup_n_u8_z(ok, 1));
        const svuint64_t bits =
            svlsr_n_u64_x(all, svmul_n_u64_x(all, ones, 0x0102040810204080u), 56);
        svst1b_u64(svwhilelt_b64_u64(0, (n - i + 7) / 8), valid + i / 8, bits);
    }
}

/*
 * The masks. mask8: each vector's in-range predicate (nulls cleared) as a
 * vector of 1s under it at the element width (DUP, zeroing), stored truncated
 * to bytes (ST1B) under the loop predicate, so every element of the vector
 * gets its byte. bits: a vector's element count need not be a multiple of 8
 * (a 384-bit vector holds 6 doubles), so the bytes of SVE_MASK_CHUNK elements
 * are made as for mask8 in a buffer on the stack, then packed eight to a byte
 * as sve_mask_to_valid does (the multiply of each 64-bit lane), ceil(c / 8)
 * bytes stored.
 */
#define SVE_MASK_CHUNK 2048

/* The mask8 bytes of elements [from, to) at dst[0, to - from): the 1s. */
SF_INLINE uint64_t sve_mask8_span(sf_elem elem, const unsigned char *src, const uint8_t *valid,
                                  uint64_t from, uint64_t to, uint64_t n, const sve_bounds *b,
                                  uint8_t *dst) {
    const size_t size = sf_elem_size(elem);
    uint64_t total = 0;
    for (uint64_t i = from; i < to; i += sve_lanes(elem)) {
        const svbool_t pg = sve_whilelt(elem, i, to);
        svbool_t in = sve_inside(elem, pg, sve_load(elem, pg, src + i * size), b);
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

SF_INLINE size_t sve_mask_any(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                              size_t n, const sf_range *r, uint8_t *out) {
    const sve_bounds b = sve_setup(r);
    const unsigned char *src = (const unsigned char *)x;
    if (op == SF_OP_MASK8)
        return (size_t)sve_mask8_span(elem, src, valid, 0, n, n, &b, out);
    uint8_t buf[SVE_MASK_CHUNK];
    const svbool_t all = svptrue_b64();
    uint64_t total = 0;
    for (uint64_t i = 0; i < n; i += SVE_MASK_CHUNK) {
        const uint64_t c = n - i < SVE_MASK_CHUNK ? n - i : SVE_MASK_CHUNK;
        total += sve_mask8_span(elem, src, valid, i, i + c, n, &b, buf);
        for (uint64_t t = 0; t < c; t += svcntb()) {
            const svuint64_t bytes = svreinterpret_u64_u8(svld1_u8(svwhilelt_b8_u64(t, c), buf + t));
            const svuint64_t bits =
                svlsr_n_u64_x(all, svmul_n_u64_x(all, bytes, 0x0102040810204080u), 56);
            svst1b_u64(svwhilelt_b64_u64(0, (c - t + 7) / 8), out + (i + t) / 8, bits);
        }
    }
    return (size_t)total;
}

/* Several ranges: a pass of bits per range over cached blocks (a loop testing
 * every range per predicate is not written yet). */
SF_BITS_RANGES_BY_PASSES(sve)

SF_INSTANTIATE_ALL(sve, u8, u16, u32, u64, f32, f64)
