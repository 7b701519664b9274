/*
 * NEON (Advanced SIMD) kernel: the aarch64 baseline, compiled with no extra flag.
 *
 * The filter loops work on blocks of 16 elements whatever the elem (1, 2, 4 or 8
 * vectors of 16 bytes), so every elem produces the same thing per block: a 16-bit
 * mask, one bit per element. The compare masks are narrowed to bytes with UZP1
 * (one instruction per pair of vectors) and turned into bits with one AND, three
 * pairwise adds and one move to a general register: for four u32 vectors that
 * is 8 instructions where AND + ADDV + FMOV per vector would be 12, and it is
 * the same code for every element width.
 *
 * Output is emitted in groups of 4 elements: the group's 4-bit mask selects a
 * row of a 16-entry byte table that TBL uses to left-pack the 4 lanes (indexes
 * or the data itself), the whole 4-lane group is stored at out + k, and k
 * advances by the popcount of the mask. Storing all 4 lanes is safe in the main
 * loop because k never exceeds the number of elements already consumed, so the
 * store ends at or before the end of the current block, which is <= n. The last
 * partial block goes through a zero-padded copy of the input and a local output
 * buffer, so nothing outside x[0, n) is read and nothing outside out[0, k) is
 * written by it.
 *
 * count does not build masks: it subtracts the all-ones compare result from
 * lane counters and folds them into a scalar before a lane could wrap.
 *
 * The loops are neon_skeleton.h's, written once for any predicate (its top
 * gives the contract) and included below for the range predicate; this file
 * holds what they are built of (tables, lane arithmetic, the group store) and
 * the range predicate itself.
 */
#include <arm_neon.h>

#include "kernel_common.h"

#if defined(__AARCH64EB__)
/* The byte tables and the UZP1 narrowing assume little-endian lane order. */
#error "kernels/neon.c supports little-endian aarch64 only"
#endif

/* ---- Left-packing tables ------------------------------------------------- */

#define NEON_BIT(m, b) (((m) >> (b)) & 1)
/* Lane of the j-th kept element of the 4-bit mask m (0 for lanes past the last:
 * their contents are unspecified by the contract). */
#define NEON_NTH(m, j)                                                                   \
    (NEON_BIT(m, 0) && (j) == 0                                              ? 0         \
     : NEON_BIT(m, 1) && NEON_BIT(m, 0) == (j)                               ? 1         \
     : NEON_BIT(m, 2) && NEON_BIT(m, 0) + NEON_BIT(m, 1) == (j)              ? 2         \
     : NEON_BIT(m, 3) && NEON_BIT(m, 0) + NEON_BIT(m, 1) + NEON_BIT(m, 2) == (j) ? 3     \
                                                                             : 0)

/* The bytes of output lane j, for lanes of 1, 2, 4 and 8 bytes. */
#define NEON_L1(m, j) NEON_NTH(m, j)
#define NEON_L2(m, j) 2 * NEON_NTH(m, j), 2 * NEON_NTH(m, j) + 1
#define NEON_L4(m, j)                                                                    \
    4 * NEON_NTH(m, j), 4 * NEON_NTH(m, j) + 1, 4 * NEON_NTH(m, j) + 2,                  \
        4 * NEON_NTH(m, j) + 3
#define NEON_L8(m, j)                                                                    \
    8 * NEON_NTH(m, j), 8 * NEON_NTH(m, j) + 1, 8 * NEON_NTH(m, j) + 2,                  \
        8 * NEON_NTH(m, j) + 3, 8 * NEON_NTH(m, j) + 4, 8 * NEON_NTH(m, j) + 5,          \
        8 * NEON_NTH(m, j) + 6, 8 * NEON_NTH(m, j) + 7

#define NEON_ROW(L, m) {L(m, 0), L(m, 1), L(m, 2), L(m, 3)}
#define NEON_TABLE(L)                                                                    \
    {NEON_ROW(L, 0),  NEON_ROW(L, 1),  NEON_ROW(L, 2),  NEON_ROW(L, 3),                  \
     NEON_ROW(L, 4),  NEON_ROW(L, 5),  NEON_ROW(L, 6),  NEON_ROW(L, 7),                  \
     NEON_ROW(L, 8),  NEON_ROW(L, 9),  NEON_ROW(L, 10), NEON_ROW(L, 11),                 \
     NEON_ROW(L, 12), NEON_ROW(L, 13), NEON_ROW(L, 14), NEON_ROW(L, 15)}

/* Row m packs the lanes whose bit is set in m to the front. Rows of 1- and 2-byte
 * lanes are padded to 8 bytes so each row is one D-register load. */
static const uint8_t neon_pack1[16][8] = NEON_TABLE(NEON_L1);
static const uint8_t neon_pack2[16][8] = NEON_TABLE(NEON_L2);
static const uint8_t neon_pack4[16][16] = NEON_TABLE(NEON_L4);
static const uint8_t neon_pack8[16][32] = NEON_TABLE(NEON_L8);

/* Popcount of a 4-bit mask from a nibble-indexed constant: no memory, no CNT. */
SF_INLINE size_t neon_pop4(unsigned m) {
    return (size_t)((UINT64_C(0x4332322132212110) >> (4 * m)) & 15);
}

/* ---- The range predicate (Q = neon_range of neon_skeleton.h) --------------- */

/* The broadcasts SF_BROADCAST_RANGE builds the bounds with; every vector is
 * kept as bytes and reinterpreted at the element width where used. */
SF_INLINE uint8x16_t neon_dup8(uint8_t v) { return vdupq_n_u8(v); }
SF_INLINE uint8x16_t neon_dup16(uint16_t v) { return vreinterpretq_u8_u16(vdupq_n_u16(v)); }
SF_INLINE uint8x16_t neon_dup32(uint32_t v) { return vreinterpretq_u8_u32(vdupq_n_u32(v)); }
SF_INLINE uint8x16_t neon_dup64(uint64_t v) { return vreinterpretq_u8_u64(vdupq_n_u64(v)); }
SF_INLINE uint8x16_t neon_dupf32(float v) { return vreinterpretq_u8_f32(vdupq_n_f32(v)); }
SF_INLINE uint8x16_t neon_dupf64(double v) { return vreinterpretq_u8_f64(vdupq_n_f64(v)); }

/* Bounds broadcast once per call, neon_bounds and neon_setup: lo and hi - lo
 * for integers (unsigned compares: no sign flip), flo and fhi for floats. */
SF_DEFINE_BOUNDS(neon, uint8x16_t, 0)

/* Q_hits: all-ones lanes where the element is in range, at the element width.
 * Integer kinds use one unsigned compare (CMHS) of x - lo against hi - lo; float
 * kinds use ordered compares (FCMGE), which are false for NaN and treat -0.0 as 0.0,
 * XORed with the bounds' flip (all ones for an inverted range: outside, NaN
 * included). An inverted integer range is its complement already (sf_lo). */
SF_INLINE uint8x16_t neon_range_hits(sf_elem elem, uint8x16_t v, const neon_bounds *b) {
    switch (elem) {
    case SF_U8:
        return vcleq_u8(vsubq_u8(v, b->a), b->b);
    case SF_U16:
        return vreinterpretq_u8_u16(
            vcleq_u16(vsubq_u16(vreinterpretq_u16_u8(v), vreinterpretq_u16_u8(b->a)),
                      vreinterpretq_u16_u8(b->b)));
    case SF_U32:
        return vreinterpretq_u8_u32(
            vcleq_u32(vsubq_u32(vreinterpretq_u32_u8(v), vreinterpretq_u32_u8(b->a)),
                      vreinterpretq_u32_u8(b->b)));
    case SF_U64:
        return vreinterpretq_u8_u64(
            vcleq_u64(vsubq_u64(vreinterpretq_u64_u8(v), vreinterpretq_u64_u8(b->a)),
                      vreinterpretq_u64_u8(b->b)));
    case SF_F32: {
        float32x4_t f = vreinterpretq_f32_u8(v);
        return veorq_u8(b->flip, vreinterpretq_u8_u32(
                                     vandq_u32(vcgeq_f32(f, vreinterpretq_f32_u8(b->a)),
                                               vcleq_f32(f, vreinterpretq_f32_u8(b->b)))));
    }
    case SF_F64: {
        float64x2_t f = vreinterpretq_f64_u8(v);
        return veorq_u8(b->flip, vreinterpretq_u8_u64(
                                     vandq_u64(vcgeq_f64(f, vreinterpretq_f64_u8(b->a)),
                                               vcleq_f64(f, vreinterpretq_f64_u8(b->b)))));
    }
    default:
        return vdupq_n_u8(0);
    }
}

typedef sf_range neon_range_arg;
typedef neon_bounds neon_range_state;

SF_INLINE neon_bounds neon_range_setup(sf_elem elem, const sf_range *r) {
    return neon_setup(elem, r);
}

/* ---- Per-elem primitives ------------------------------------------------- */

/* Lane arithmetic at the element width, for the count's lane counters. */
#define NEON_LANEWISE(OP, w, a, b)                                                       \
    ((w) == 1   ? OP##_u8(a, b)                                                          \
     : (w) == 2 ? vreinterpretq_u8_u16(OP##_u16(vreinterpretq_u16_u8(a),                 \
                                                vreinterpretq_u16_u8(b)))                \
     : (w) == 4 ? vreinterpretq_u8_u32(OP##_u32(vreinterpretq_u32_u8(a),                 \
                                                vreinterpretq_u32_u8(b)))                \
                : vreinterpretq_u8_u64(OP##_u64(vreinterpretq_u64_u8(a),                 \
                                                vreinterpretq_u64_u8(b))))

SF_INLINE uint8x16_t neon_add_w(size_t w, uint8x16_t a, uint8x16_t b) {
    return NEON_LANEWISE(vaddq, w, a, b);
}

SF_INLINE uint8x16_t neon_sub_w(size_t w, uint8x16_t a, uint8x16_t b) {
    return NEON_LANEWISE(vsubq, w, a, b);
}

/* Sum of the lanes of width `w`, widened so it cannot wrap. */
SF_INLINE uint64_t neon_hsum_w(size_t w, uint8x16_t a) {
    switch (w) {
    case 1: return vaddlvq_u8(a);
    case 2: return vaddlvq_u16(vreinterpretq_u16_u8(a));
    case 4: return vaddlvq_u32(vreinterpretq_u32_u8(a));
    default: return vaddvq_u64(vreinterpretq_u64_u8(a));
    }
}

/* UZP1 keeps the low half of every w-byte lane of a:b. Compare masks are all-ones
 * or zero per lane, so this halves the lane width without losing an element. */
SF_INLINE uint8x16_t neon_narrow_w(size_t w, uint8x16_t a, uint8x16_t b) {
    switch (w) {
    case 2: return vuzp1q_u8(a, b);
    case 4:
        return vreinterpretq_u8_u16(
            vuzp1q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
    default:
        return vreinterpretq_u8_u32(
            vuzp1q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
    }
}

/* ---- Blocks of 16 elements ----------------------------------------------- */

#define NEON_BLOCK 16

/* A block is sf_elem_size(elem) vectors of 16 bytes. */
SF_INLINE void neon_load_block(sf_elem elem, const unsigned char *p, uint8x16_t *d) {
    for (size_t v = 0; v < sf_elem_size(elem); v++)
        d[v] = vld1q_u8(p + 16 * v);
}

/* Left-packs the lanes selected by the 4-bit mask m out of a group of four lanes
 * of `w` bytes, and stores the four lanes (4 * w bytes) at dst. The group is
 * src0 (and src1 for 8-byte lanes), starting `off` bytes into src0. */
SF_INLINE void neon_pack_store(size_t w, uint8x16_t src0, uint8x16_t src1, unsigned off,
                               unsigned m, unsigned char *dst) {
    switch (w) {
    case 1: {
        uint8x8_t idx = vadd_u8(vld1_u8(neon_pack1[m]), vdup_n_u8((uint8_t)off));
        uint32_t lanes = vget_lane_u32(vreinterpret_u32_u8(vqtbl1_u8(src0, idx)), 0);
        memcpy(dst, &lanes, 4);
        break;
    }
    case 2: {
        uint8x8_t idx = vadd_u8(vld1_u8(neon_pack2[m]), vdup_n_u8((uint8_t)off));
        vst1_u8(dst, vqtbl1_u8(src0, idx));
        break;
    }
    case 4:
        vst1q_u8(dst, vqtbl1q_u8(src0, vld1q_u8(neon_pack4[m])));
        break;
    default: {
        uint8x16x2_t pair = {{src0, src1}};
        vst1q_u8(dst, vqtbl2q_u8(pair, vld1q_u8(neon_pack8[m])));
        vst1q_u8(dst + 16, vqtbl2q_u8(pair, vld1q_u8(neon_pack8[m] + 16)));
        break;
    }
    }
}

/* Writes the kept elements of one block (positions pos, pos + 1, ... for the
 * index ops) at dst and returns how many were kept. Each group store writes 4
 * output lanes starting at the current count, so dst needs room for the count
 * before the group plus 4. */
SF_INLINE size_t neon_emit_block(sf_op op, sf_elem elem, const uint8x16_t *d, unsigned bits,
                                 uint64_t pos, unsigned char *dst) {
    /* Lane offsets of the four groups: one broadcast of pos per block, then one
     * add of a loop-invariant constant per group. */
    static const uint32_t ramp32[NEON_BLOCK] = {0, 1, 2, 3, 4, 5, 6, 7,
                                                8, 9, 10, 11, 12, 13, 14, 15};
    static const uint64_t ramp64[NEON_BLOCK] = {0, 1, 2, 3, 4, 5, 6, 7,
                                                8, 9, 10, 11, 12, 13, 14, 15};
    const size_t size = sf_elem_size(elem), w = sf_result_size(op, elem);
    /* Wraps only in lanes past n (base + n <= 2^32), which are never kept. */
    const uint32x4_t pos32 = vdupq_n_u32((uint32_t)pos);
    const uint64x2_t pos64 = vdupq_n_u64(pos);
    size_t k = 0;
    for (unsigned g = 0; g < NEON_BLOCK / 4; g++) {
        const unsigned m = (bits >> (4 * g)) & 15;
        uint8x16_t src0, src1 = vdupq_n_u8(0);
        unsigned off = 0;
        if (op == SF_OP_INDEX32) {
            src0 = vreinterpretq_u8_u32(vaddq_u32(pos32, vld1q_u32(ramp32 + 4 * g)));
        } else if (op == SF_OP_INDEX64) {
            src0 = vreinterpretq_u8_u64(vaddq_u64(pos64, vld1q_u64(ramp64 + 4 * g)));
            src1 = vreinterpretq_u8_u64(vaddq_u64(pos64, vld1q_u64(ramp64 + 4 * g + 2)));
        } else if (size == 8) {
            src0 = d[2 * g];
            src1 = d[2 * g + 1];
        } else {
            /* Group g starts 4 * size * g bytes into the block. */
            src0 = d[(4 * size * g) / 16];
            off = (unsigned)((4 * size * g) % 16);
        }
        neon_pack_store(w, src0, src1, off, m, dst + k * w);
        k += neon_pop4(m);
    }
    return k;
}

/* ---- The loops, for the range: neon_filter, neon_count, ... --------------- */

#define NEON_SK neon
#define NEON_PRED neon_range
#include "neon_skeleton.h"

/* 64 mask bytes into 64 validity bits: each byte compared with zero and ANDed
 * with its bit's weight (1, 2, ..., 128 within each 8), then three rounds of
 * pairwise adds sum every 8 weights into one byte (no movemask on NEON). */
static void neon_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    const uint8x16_t w = vld1q_u8(weights);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint8x16_t a = vandq_u8(vceqzq_u8(vld1q_u8(mask + i)), w);
        const uint8x16_t b = vandq_u8(vceqzq_u8(vld1q_u8(mask + i + 16)), w);
        const uint8x16_t c = vandq_u8(vceqzq_u8(vld1q_u8(mask + i + 32)), w);
        const uint8x16_t d = vandq_u8(vceqzq_u8(vld1q_u8(mask + i + 48)), w);
        const uint8x16_t abcd = vpaddq_u8(vpaddq_u8(a, b), vpaddq_u8(c, d));
        vst1_u8(valid + i / 8, vget_low_u8(vpaddq_u8(abcd, abcd)));
    }
    sf_mask_to_valid_tail(mask + i, n - i, valid + i / 8);
}

/* The 16 bits of the loaded block d for the ranges b[0, k), combined (OR when
 * every = 0, else AND). */
SF_INLINE unsigned neon_block_bits_ranges(sf_elem elem, const uint8x16_t *d, const neon_bounds *b,
                                          size_t k, int every) {
    unsigned bits = neon_block_bits(elem, d, &b[0]);
    for (size_t j = 1; j < k; j++)
        bits = (unsigned)sf_combine_bits(bits, neon_block_bits(elem, d, &b[j]), every);
    return bits;
}

/* Several ranges (the sf_bits_ranges_fn contract): each block loaded once and
 * compared with every range (neon_block_bits_ranges, with neon_block_bits of
 * the range's inclusion above), stored as bits stores them. */
SF_INLINE size_t neon_bits_ranges(sf_elem elem, const void *x, size_t n, const sf_range *r,
                                  size_t k, int every, uint8_t *out) {
    neon_bounds b[SF_RANGES_AT_ONCE];
    for (size_t j = 0; j < k; j++)
        b[j] = neon_setup(elem, &r[j]);
    const size_t size = sf_elem_size(elem);
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0, kept = 0;
    uint8x16_t d[8];
    for (; n - i >= NEON_BLOCK; i += NEON_BLOCK, p += NEON_BLOCK * size) {
        neon_load_block(elem, p, d);
        const unsigned bits = neon_block_bits_ranges(elem, d, b, k, every);
        kept += (size_t)vaddv_u8(vcnt_u8(vcreate_u8((uint64_t)bits)));
        out[i / 8] = (uint8_t)bits;
        out[i / 8 + 1] = (uint8_t)(bits >> 8);
    }
    if (i < n) {
        unsigned char in[NEON_BLOCK * 8] = {0};
        memcpy(in, p, (n - i) * size);
        neon_load_block(elem, in, d);
        const unsigned bits = neon_block_bits_ranges(elem, d, b, k, every);
        kept += sf_put_mask(SF_OP_BITS, out, i, bits, n - i);
    }
    return kept;
}

SF_INSTANTIATE_ALL(neon, u8, u16, u32, u64, f32, f64)
