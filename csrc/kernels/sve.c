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
 *
 * The loops are sve_skeleton.h's, written once for any predicate (its top
 * gives the contract) and included below for the range predicate; this file
 * holds what they are built of (loads, predicates, widening, stores, the
 * validity predicate) and the range predicate itself.
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

/* ---- The range predicate (Q = sve_range of sve_skeleton.h) ---------------- */

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

/* Q_hits: the in-range lanes among pg. Integer kinds: one unsigned compare
 * (CMPLS) of x - lo against hi - lo at the element width. Floats: ordered
 * FCMGE then FCMLE governed by the first result (the AND is free), false for
 * NaN; inverted, sve_float_keep. */
SF_INLINE svbool_t sve_range_hits(sf_elem elem, svbool_t pg, svuint8_t v, const sve_bounds *b) {
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

typedef sf_range sve_range_arg;
typedef sve_bounds sve_range_state;

SF_INLINE sve_bounds sve_range_setup(sf_elem elem, const sf_range *r) {
    (void)elem; /* the bounds are scalars, made the same for every kind */
    return sve_setup(r);
}

/* Q_hits32: the in-range lanes among pg of 32-bit lanes v holding elements of
 * elem (8 to 32 bits) zero-extended, as within's gathers give them. Integers
 * compare x - lo at the element's width (the AND), floats as sve_range_hits. */
SF_INLINE svbool_t sve_range_hits32(sf_elem elem, svbool_t pg, svuint32_t v, const sve_bounds *b) {
    const size_t size = sf_elem_size(elem);
    const uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
    if (elem == SF_F32) {
        const svfloat32_t f = svreinterpret_f32_u32(v);
        return sve_float_keep(
            pg, svcmple_n_f32(svcmpge_n_f32(pg, f, (float)b->flo), f, (float)b->fhi), b);
    }
    const svuint32_t d =
        svand_n_u32_x(pg, svsub_n_u32_x(pg, v, (uint32_t)b->lo), (uint32_t)mask);
    return svcmple_n_u32(pg, d, (uint32_t)(b->span & mask));
}

/* Q_hits64: the same for 64-bit lanes holding elements of any kind. */
SF_INLINE svbool_t sve_range_hits64(sf_elem elem, svbool_t pg, svuint64_t v, const sve_bounds *b) {
    const size_t size = sf_elem_size(elem);
    const uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
    if (elem == SF_F64 || elem == SF_F32) {
        /* f32 in the low half of each lane: widened exactly to f64, where
         * the bounds (floats, by the contract) compare the same */
        const svfloat64_t f = elem == SF_F64 ? svreinterpret_f64_u64(v)
                                             : svcvt_f64_f32_x(pg, svreinterpret_f32_u64(v));
        return sve_float_keep(pg, svcmple_n_f64(svcmpge_n_f64(pg, f, b->flo), f, b->fhi), b);
    }
    const svuint64_t d = svand_n_u64_x(pg, svsub_n_u64_x(pg, v, b->lo), mask);
    return svcmple_n_u64(pg, d, b->span & mask);
}

/* ---- The loops, for the range: sve_filter, sve_count, ... ----------------- */

#define SVE_SK sve
#define SVE_PRED sve_range
#include "sve_skeleton.h"

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

/* Several ranges: a pass of bits per range over cached blocks (a loop testing
 * every range per predicate is not written yet). */
SF_BITS_RANGES_BY_PASSES(sve)

SF_INSTANTIATE_ALL(sve, u8, u16, u32, u64, f32, f64)
