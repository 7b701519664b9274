/*
 * Shared by every kernels/<isa>.c: nothing here may need instruction-set flags.
 *
 * Each ISA file writes its loops once, as static always-inline functions that
 * take the operation and the element kind as compile-time constants, and stamps
 * out one small function per (operation, element kind) with SF_INSTANTIATE. The
 * constants let the compiler fold every `switch (elem)` away, so each instance is
 * a straight loop.
 */
#ifndef SIMDFILTER_KERNEL_COMMON_H
#define SIMDFILTER_KERNEL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "simdfilter.h"
#include "bits.h"

#if defined(__GNUC__) || defined(__clang__)
#define SF_INLINE static inline __attribute__((always_inline))
#else
#define SF_INLINE static inline
#endif

#define SF_CAT(a, b) SF_CAT_(a, b)
#define SF_CAT_(a, b) a##b
#define SF_STR(a) SF_STR_(a)
#define SF_STR_(a) #a

/* ---- Instantiation ----------------------------------------------------------- */

/* The element kind of a tag of SF_INSTANTIATE's list. */
#define SF_ELEM_OF_u8 SF_U8
#define SF_ELEM_OF_u16 SF_U16
#define SF_ELEM_OF_u32 SF_U32
#define SF_ELEM_OF_u64 SF_U64
#define SF_ELEM_OF_f32 SF_F32
#define SF_ELEM_OF_f64 SF_F64

/* One entry point per operation for element kind TAG, and their table slots:
 * the filters' (SF_ENTRY_POINTS_FILTERS, below) and count's. */
#define SF_ENTRY_POINTS(P, TAG)                                                          \
    SF_ENTRY_POINTS_FILTERS(P, TAG)                                                      \
    static size_t P##_count_##TAG(const void *x, size_t n, const sf_range *r) {          \
        return P##_count(SF_ELEM_OF_##TAG, x, n, r);                                     \
    }

/* M(P, tag) for each of up to six tags. */
#define SF_EACH_1(M, P, a) M(P, a)
#define SF_EACH_2(M, P, a, ...) M(P, a) SF_EACH_1(M, P, __VA_ARGS__)
#define SF_EACH_3(M, P, a, ...) M(P, a) SF_EACH_2(M, P, __VA_ARGS__)
#define SF_EACH_4(M, P, a, ...) M(P, a) SF_EACH_3(M, P, __VA_ARGS__)
#define SF_EACH_5(M, P, a, ...) M(P, a) SF_EACH_4(M, P, __VA_ARGS__)
#define SF_EACH_6(M, P, a, ...) M(P, a) SF_EACH_5(M, P, __VA_ARGS__)
#define SF_NARGS(...) SF_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define SF_NARGS_(a, b, c, d, e, f, N, ...) N
#define SF_EACH(M, P, ...) SF_CAT(SF_EACH_, SF_NARGS(__VA_ARGS__))(M, P, __VA_ARGS__)

/* The table slots of element kind TAG that one group of entry points fills
 * (the group column of SF_KERNEL_SLOTS, include/simdfilter.h): for each slot
 * of the group, .slot[SF_ELEM_OF_TAG] = P_slot_TAG. */
#define SF_SLOT_INIT_(slot, P, TAG) .slot[SF_ELEM_OF_##TAG] = P##_##slot##_##TAG,
#define SF_SLOT_SKIP_(slot, P, TAG)
#define SF_SLOT_ONE_SKIP_(slot, type, P, TAG)
#define SF_SLOT_filters_filters SF_SLOT_INIT_
#define SF_SLOT_filters_count SF_SLOT_SKIP_
#define SF_SLOT_filters_nulls SF_SLOT_SKIP_
#define SF_SLOT_filters_masks SF_SLOT_SKIP_
#define SF_SLOT_count_filters SF_SLOT_SKIP_
#define SF_SLOT_count_count SF_SLOT_INIT_
#define SF_SLOT_count_nulls SF_SLOT_SKIP_
#define SF_SLOT_count_masks SF_SLOT_SKIP_
#define SF_SLOT_nulls_filters SF_SLOT_SKIP_
#define SF_SLOT_nulls_count SF_SLOT_SKIP_
#define SF_SLOT_nulls_nulls SF_SLOT_INIT_
#define SF_SLOT_nulls_masks SF_SLOT_SKIP_
#define SF_SLOT_masks_filters SF_SLOT_SKIP_
#define SF_SLOT_masks_count SF_SLOT_SKIP_
#define SF_SLOT_masks_nulls SF_SLOT_SKIP_
#define SF_SLOT_masks_masks SF_SLOT_INIT_
#define SF_SLOT_OF_filters(slot, type, group, P, TAG) SF_SLOT_filters_##group(slot, P, TAG)
#define SF_SLOT_OF_count(slot, type, group, P, TAG) SF_SLOT_count_##group(slot, P, TAG)
#define SF_SLOT_OF_nulls(slot, type, group, P, TAG) SF_SLOT_nulls_##group(slot, P, TAG)
#define SF_SLOT_OF_masks(slot, type, group, P, TAG) SF_SLOT_masks_##group(slot, P, TAG)
#define SF_TABLE_SLOTS_FILTERS(P, TAG) SF_KERNEL_SLOTS(SF_SLOT_OF_filters, SF_SLOT_ONE_SKIP_, P, TAG)
#define SF_TABLE_SLOTS(P, TAG)                                                           \
    SF_TABLE_SLOTS_FILTERS(P, TAG) SF_KERNEL_SLOTS(SF_SLOT_OF_count, SF_SLOT_ONE_SKIP_, P, TAG)
#define SF_TABLE_SLOTS_NULLS(P, TAG) SF_KERNEL_SLOTS(SF_SLOT_OF_nulls, SF_SLOT_ONE_SKIP_, P, TAG)
#define SF_TABLE_SLOTS_MASKS(P, TAG) SF_KERNEL_SLOTS(SF_SLOT_OF_masks, SF_SLOT_ONE_SKIP_, P, TAG)
/* The single slots (mask_to_valid): P_slot. */
#define SF_SLOT_ONE_INIT_(slot, type, P, TAG) .slot = P##_##slot,
#define SF_SLOT_EACH_SKIP_(slot, type, group, P, TAG)
#define SF_TABLE_SLOTS_ONE(P) SF_KERNEL_SLOTS(SF_SLOT_EACH_SKIP_, SF_SLOT_ONE_INIT_, P, ~)

/*
 * SF_INSTANTIATE(P, u8, u16, ...): given an ISA prefix P whose file defines
 *     P_filter(op, elem, x, n, r, base, out)   index32, index64 and values
 *     P_count(elem, x, n, r)
 * define one entry point per operation for each element kind listed, and the
 * public table sf_kernel_P. The slots of kinds not listed stay NULL: dispatch
 * gives them a lower kernel's entry (a kind this ISA gains nothing on).
 */
#define SF_INSTANTIATE(P, ...) SF_INSTANTIATE_AS(P, P, __VA_ARGS__)

/* The same with the table named sf_kernel_NAME (NAME may be a macro): for a file
 * built twice as two kernels (two isa.def lines name kernels/avx512.c). The
 * entry points are static, so each build's P_* names stay its own. */
#define SF_INSTANTIATE_AS(P, NAME, ...)                                                  \
    SF_EACH(SF_ENTRY_POINTS, P, __VA_ARGS__)                                             \
    const sf_kernel SF_CAT(sf_kernel_, NAME) = {.name = SF_STR(NAME),                    \
                                                SF_EACH(SF_TABLE_SLOTS, P, __VA_ARGS__)};

/* With nulls and positions (every slot of the table): an ISA whose file also
 * defines
 *     P_filter_valid(op, elem, x, valid, n, r, base, out)
 *     P_count_valid(elem, x, valid, n, r)
 *     P_within(op, elem, x, base, pos, m, r, out)   op: SF_OP_INDEX32 (pos and
 *                                                  out uint32) or SF_OP_INDEX64
 *     P_mask_to_valid(mask, n, valid)              an sf_mask_to_valid_fn
 * uses SF_INSTANTIATE_ALL(P, u8, ...) instead of SF_INSTANTIATE. */
#define SF_ENTRY_POINTS_NULLS(P, TAG)                                                    \
    static size_t P##_index32_valid_##TAG(const void *x, const uint8_t *v, size_t n,     \
                                          const sf_range *r, uint32_t base,              \
                                          uint32_t *out) {                               \
        return P##_filter_valid(SF_OP_INDEX32, SF_ELEM_OF_##TAG, x, v, n, r, base, out); \
    }                                                                                    \
    static size_t P##_index64_valid_##TAG(const void *x, const uint8_t *v, size_t n,     \
                                          const sf_range *r, uint64_t base,              \
                                          uint64_t *out) {                               \
        return P##_filter_valid(SF_OP_INDEX64, SF_ELEM_OF_##TAG, x, v, n, r, base, out); \
    }                                                                                    \
    static size_t P##_values_valid_##TAG(const void *x, const uint8_t *v, size_t n,      \
                                         const sf_range *r, void *out) {                 \
        return P##_filter_valid(SF_OP_VALUES, SF_ELEM_OF_##TAG, x, v, n, r, 0, out);     \
    }                                                                                    \
    static size_t P##_count_valid_##TAG(const void *x, const uint8_t *v, size_t n,       \
                                        const sf_range *r) {                             \
        return P##_count_valid(SF_ELEM_OF_##TAG, x, v, n, r);                            \
    }                                                                                    \
    static size_t P##_within32_##TAG(const void *x, uint64_t base, const uint32_t *pos,  \
                                     size_t m, const sf_range *r, uint32_t *out) {       \
        return P##_within(SF_OP_INDEX32, SF_ELEM_OF_##TAG, x, base, pos, m, r, out);     \
    }                                                                                    \
    static size_t P##_within64_##TAG(const void *x, uint64_t base, const uint64_t *pos,  \
                                     size_t m, const sf_range *r, uint64_t *out) {       \
        return P##_within(SF_OP_INDEX64, SF_ELEM_OF_##TAG, x, base, pos, m, r, out);     \
    }

/* The masks (mask8, bits, with and without nulls, and bits of several
 * ranges), from
 *     P_mask_any(op, elem, x, valid, n, r, out)   op: SF_OP_MASK8 or SF_OP_BITS,
 *                                                valid: NULL (a constant) for none
 *     P_bits_ranges(elem, x, n, r, k, every, out) the sf_bits_ranges_fn contract
 * which every file instantiated with SF_INSTANTIATE_ALL defines. */
#define SF_ENTRY_POINTS_MASKS(P, TAG)                                                    \
    static size_t P##_mask8_##TAG(const void *x, size_t n, const sf_range *r,            \
                                  uint8_t *out) {                                        \
        return P##_mask_any(SF_OP_MASK8, SF_ELEM_OF_##TAG, x, NULL, n, r, out);          \
    }                                                                                    \
    static size_t P##_bits_##TAG(const void *x, size_t n, const sf_range *r,             \
                                 uint8_t *out) {                                         \
        return P##_mask_any(SF_OP_BITS, SF_ELEM_OF_##TAG, x, NULL, n, r, out);           \
    }                                                                                    \
    static size_t P##_mask8_valid_##TAG(const void *x, const uint8_t *v, size_t n,       \
                                        const sf_range *r, uint8_t *out) {               \
        return P##_mask_any(SF_OP_MASK8, SF_ELEM_OF_##TAG, x, v, n, r, out);             \
    }                                                                                    \
    static size_t P##_bits_valid_##TAG(const void *x, const uint8_t *v, size_t n,        \
                                       const sf_range *r, uint8_t *out) {                \
        return P##_mask_any(SF_OP_BITS, SF_ELEM_OF_##TAG, x, v, n, r, out);              \
    }                                                                                    \
    static size_t P##_bits_ranges_##TAG(const void *x, size_t n, const sf_range *r,      \
                                        size_t k, int every, uint8_t *out) {             \
        return P##_bits_ranges(SF_ELEM_OF_##TAG, x, n, r, k, every, out);                \
    }

#define SF_INSTANTIATE_ALL(P, ...) SF_INSTANTIATE_ALL_AS(P, P, __VA_ARGS__)
#define SF_INSTANTIATE_ALL_AS(P, NAME, ...)                                              \
    SF_EACH(SF_ENTRY_POINTS, P, __VA_ARGS__)                                             \
    SF_EACH(SF_ENTRY_POINTS_NULLS, P, __VA_ARGS__)                                       \
    SF_EACH(SF_ENTRY_POINTS_MASKS, P, __VA_ARGS__)                                       \
    const sf_kernel SF_CAT(sf_kernel_, NAME) = {.name = SF_STR(NAME),                    \
                                                SF_EACH(SF_TABLE_SLOTS, P, __VA_ARGS__)  \
                                                SF_EACH(SF_TABLE_SLOTS_NULLS, P, __VA_ARGS__) \
                                                SF_EACH(SF_TABLE_SLOTS_MASKS, P, __VA_ARGS__) \
                                                SF_TABLE_SLOTS_ONE(P)};

/* A second table, sf_kernel_P, holding only the plain filter slots (index32,
 * index64, values; no nulls) of P_filter: a variant of another kernel's loop
 * that dispatch lays over that kernel's table (see SF_VARIANTS in
 * lib/dispatch.c). The slots with nulls stay the base kernel's: a variant is
 * for benchmarks, which time the plain entry points, and each instantiation
 * costs build time. */
#define SF_ENTRY_POINTS_FILTERS(P, TAG)                                                  \
    static size_t P##_index32_##TAG(const void *x, size_t n, const sf_range *r,          \
                                    uint32_t base, uint32_t *out) {                      \
        return P##_filter(SF_OP_INDEX32, SF_ELEM_OF_##TAG, x, n, r, base, out);          \
    }                                                                                    \
    static size_t P##_index64_##TAG(const void *x, size_t n, const sf_range *r,          \
                                    uint64_t base, uint64_t *out) {                      \
        return P##_filter(SF_OP_INDEX64, SF_ELEM_OF_##TAG, x, n, r, base, out);          \
    }                                                                                    \
    static size_t P##_values_##TAG(const void *x, size_t n, const sf_range *r,           \
                                   void *out) {                                          \
        return P##_filter(SF_OP_VALUES, SF_ELEM_OF_##TAG, x, n, r, 0, out);              \
    }
#define SF_INSTANTIATE_FILTERS(P, ...) SF_INSTANTIATE_FILTERS_AS(P, P, __VA_ARGS__)
#define SF_INSTANTIATE_FILTERS_AS(P, NAME, ...)                                          \
    SF_EACH(SF_ENTRY_POINTS_FILTERS, P, __VA_ARGS__)                                     \
    const sf_kernel SF_CAT(sf_kernel_, NAME) = {                                         \
        .name = SF_STR(NAME), SF_EACH(SF_TABLE_SLOTS_FILTERS, P, __VA_ARGS__)};

/* The index of the lowest set bit of m (m != 0): tzcnt or bsf. */
#if defined(__GNUC__) || defined(__clang__)
#define SF_CTZ32(m) ((unsigned)__builtin_ctz(m))
#else
SF_INLINE unsigned SF_CTZ32(uint32_t m) {
    unsigned j = 0;
    while (!(m & 1u))
        m >>= 1, j++;
    return j;
}
#endif

/* P_filter and P_filter_valid from P_filter_any(op, elem, x, valid, n, r, base,
 * out), the one loop with an optional bitmap: the plain entry points pass a
 * constant NULL, which folds the bitmap's work away. ARG is the type of what r
 * points at: the predicate's argument (sf_range for the range) in a skeleton. */
#define SF_FILTER_FROM_ANY(P, ARG)                                                       \
    SF_INLINE size_t SF_CAT(P, _filter)(sf_op op, sf_elem elem, const void *x, size_t n, \
                                        const ARG *r, uint64_t base, void *out) {        \
        return SF_CAT(P, _filter_any)(op, elem, x, NULL, n, r, base, out);               \
    }                                                                                    \
    SF_INLINE size_t SF_CAT(P, _filter_valid)(sf_op op, sf_elem elem, const void *x,     \
                                              const uint8_t *valid, size_t n,            \
                                              const ARG *r, uint64_t base, void *out) {  \
        return SF_CAT(P, _filter_any)(op, elem, x, valid, n, r, base, out);              \
    }

/* ---- The range, as kernels compare with it ------------------------------------ */

/* Unsigned bounds of the integer range a kernel tests, truncated to the
 * element width by the kernel: x is kept when (x - lo) <= span, both computed
 * modulo 2^width. Inverted, that range is the complement [hi + 1, lo - 1]: lo
 * becomes hi + 1 and span (lo - 1) - (hi + 1), which is exact modulo 2^width
 * for every width, as both ends are (the contract excludes the full range,
 * whose complement is empty). Integer kernels read the range only through
 * these two and so honour `invert` with no work per element. */
SF_INLINE uint64_t sf_lo(const sf_range *r) { return r->invert ? r->hi + 1u : r->lo; }
SF_INLINE uint64_t sf_span(const sf_range *r) {
    return r->invert ? r->lo - r->hi - 2u : r->hi - r->lo;
}

SF_INLINE int sf_is_float(sf_elem elem) { return elem == SF_F32 || elem == SF_F64; }

/* Float kernels keep what their ordered compares call inside, XORed with this
 * (all ones when inverted: NaN, outside every ordered compare, is then kept). */
SF_INLINE uint64_t sf_float_flip(const sf_range *r) { return r->invert ? ~(uint64_t)0 : 0u; }

/*
 * The one switch on the element kind that turns a range into the two vectors a
 * kernel compares with, for every ISA: A and B are assigned
 *   integer kinds: lo and hi - lo, at the element width (x is kept when
 *     x - lo <= hi - lo, unsigned, wrapping at the width); when FLIP, both with
 *     the sign bit flipped, for ISAs whose integer compares are only signed:
 *     (x - lo) <= span unsigned  <=>  ((x - lo) ^ sign) <= (span ^ sign) signed,
 *     and flipping is adding 2^(w-1), so x - (lo ^ sign) already is (x - lo) ^ sign;
 *   float kinds: flo and fhi (exact for f32: the contract makes both floats).
 * P names the ISA, whose P_dup8, P_dup16, P_dup32, P_dup64, P_dupf32 and
 * P_dupf64 broadcast one lane value.
 */
#define SF_BROADCAST_RANGE(P, elem, r, FLIP, A, B)                                       \
    do {                                                                                 \
        const uint64_t sf_flip_ =                                                        \
            (FLIP) ? (uint64_t)1 << (8 * sf_elem_size(elem) - 1) : 0u;                   \
        const uint64_t sf_lo_ = sf_lo(r) ^ sf_flip_, sf_span_ = sf_span(r) ^ sf_flip_;  \
        switch (elem) {                                                                  \
        case SF_U8:                                                                      \
            (A) = SF_CAT(P, _dup8)((uint8_t)sf_lo_);                                     \
            (B) = SF_CAT(P, _dup8)((uint8_t)sf_span_);                                   \
            break;                                                                       \
        case SF_U16:                                                                     \
            (A) = SF_CAT(P, _dup16)((uint16_t)sf_lo_);                                   \
            (B) = SF_CAT(P, _dup16)((uint16_t)sf_span_);                                 \
            break;                                                                       \
        case SF_U32:                                                                     \
            (A) = SF_CAT(P, _dup32)((uint32_t)sf_lo_);                                   \
            (B) = SF_CAT(P, _dup32)((uint32_t)sf_span_);                                 \
            break;                                                                       \
        case SF_U64:                                                                     \
            (A) = SF_CAT(P, _dup64)(sf_lo_);                                             \
            (B) = SF_CAT(P, _dup64)(sf_span_);                                           \
            break;                                                                       \
        case SF_F32:                                                                     \
            (A) = SF_CAT(P, _dupf32)((float)(r)->flo);                                   \
            (B) = SF_CAT(P, _dupf32)((float)(r)->fhi);                                   \
            break;                                                                       \
        default: /* SF_F64 */                                                            \
            (A) = SF_CAT(P, _dupf64)((r)->flo);                                          \
            (B) = SF_CAT(P, _dupf64)((r)->fhi);                                          \
            break;                                                                       \
        }                                                                                \
    } while (0)

/* The type P_bounds (the two vectors a and b above, of type VEC; `flip`, all
 * ones in every lane for an inverted float range, else 0, which the float
 * compare XORs with; `fmask`, the same as a scalar, for ISAs whose compares
 * give bit masks) and P_setup(elem, r), which builds them. */
#define SF_DEFINE_BOUNDS(P, VEC, FLIP)                                                   \
    typedef struct SF_CAT(P, _bounds) {                                                  \
        VEC a, b, flip;                                                                  \
        uint64_t fmask;                                                                  \
    } SF_CAT(P, _bounds);                                                                \
    SF_INLINE SF_CAT(P, _bounds) SF_CAT(P, _setup)(sf_elem elem, const sf_range *r) {    \
        SF_CAT(P, _bounds) c;                                                            \
        SF_BROADCAST_RANGE(P, elem, r, FLIP, c.a, c.b);                                  \
        c.fmask = sf_is_float(elem) ? sf_float_flip(r) : 0u;                             \
        c.flip = SF_CAT(P, _dup64)(c.fmask);                                             \
        return c;                                                                        \
    }

/* Position j of a within set of w-byte (4 or 8) positions, from any alignment. */
SF_INLINE uint64_t sf_pos_at(const unsigned char *pos, size_t w, size_t j) {
    if (w == 4) {
        uint32_t q;
        memcpy(&q, pos + 4 * j, 4);
        return q;
    }
    uint64_t q;
    memcpy(&q, pos + 8 * j, 8);
    return q;
}

/* Result k of op for the element at p (of `size` bytes), position pos: the
 * element itself, or its position as uint32 or uint64. The sparse loops write
 * their few hits one at a time with it. */
SF_INLINE void sf_put_result(sf_op op, unsigned char *out, size_t k, const unsigned char *p,
                             size_t size, uint64_t pos) {
    if (op == SF_OP_VALUES) {
        memcpy(out + k * size, p, size);
    } else if (op == SF_OP_INDEX32) {
        const uint32_t q = (uint32_t)pos;
        memcpy(out + 4 * k, &q, 4);
    } else {
        memcpy(out + 8 * k, &pos, 8);
    }
}

/* ---- Validity bitmaps ----------------------------------------------------------- */

/* Bits [i, i + cnt) of an LSB-first validity bitmap as bits [0, cnt) (cnt <= 32),
 * reading only the bytes those bits are in. `block` is the kernel's step: i is
 * a multiple of it, so for a block of 8 or more i is byte-aligned and the
 * bytes are one unaligned load, and a smaller block (a power of two) never
 * straddles a byte. */
SF_INLINE uint32_t sf_valid_bits(const uint8_t *valid, size_t i, size_t cnt, size_t block) {
    const uint32_t mask = cnt >= 32 ? 0xffffffffu : (1u << cnt) - 1u;
    if (block >= 8) {
        const uint8_t *b = valid + i / 8;
        uint32_t v = 0;
        for (size_t j = 0; j < (cnt + 7) / 8; j++) /* one load when cnt is a constant */
            v |= (uint32_t)b[j] << (8 * j);
        return v & mask;
    }
    return ((uint32_t)valid[i / 8] >> (i % 8)) & mask;
}

/* The sf_mask_to_valid_fn contract for mask[0, n) into valid[0, ceil(n / 8)),
 * without vectors: the scalar kernel's, and each vector kernel's tail past its
 * last whole vector (called with mask and valid advanced by a multiple of 8). */
SF_INLINE void sf_mask_to_valid_tail(const uint8_t *mask, size_t n, uint8_t *valid) {
    size_t i = 0;
    /* Eight mask bytes at a time: each byte folded to its lowest bit (1 for
     * nonzero), then the eight bits gathered into one byte by a multiply. */
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, mask + i, 8);
        w |= w >> 4;
        w |= w >> 2;
        w |= w >> 1;
        w &= 0x0101010101010101u;
        /* little-endian byte j -> bit j; on big-endian the bytes come reversed */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w);
#endif
        valid[i / 8] = (uint8_t)~((w * 0x0102040810204080u) >> 56);
    }
    if (i < n) {
        uint8_t last = 0;
        for (size_t j = 0; i + j < n; j++)
            last |= (uint8_t)((mask[i + j] == 0) << j);
        valid[i / 8] = last;
    }
}

/* ---- Masks ---------------------------------------------------------------------- */

/* The results of `cnt` (<= 32) elements whose in-range bits (nulls already
 * cleared) are m, the first being element i (a multiple of 8 for SF_OP_BITS):
 * bytes out[i, i + cnt) for SF_OP_MASK8, bits [i, i + cnt) of out (whole bytes,
 * the bits past cnt 0) for SF_OP_BITS. The portable store the vector kernels'
 * tails share; returns the 1s. */
SF_INLINE size_t sf_put_mask(sf_op op, uint8_t *out, size_t i, uint32_t m, size_t cnt) {
    if (cnt < 32)
        m &= (1u << cnt) - 1u;
    if (op == SF_OP_BITS) {
        for (size_t j = 0; j < (cnt + 7) / 8; j++)
            out[i / 8 + j] = (uint8_t)(m >> (8 * j));
    } else {
        for (size_t j = 0; j < cnt; j++)
            out[i + j] = (uint8_t)((m >> j) & 1u);
    }
    size_t ones = 0;
    for (; m; m &= m - 1u)
        ones++;
    return ones;
}

/* ---- Several ranges ------------------------------------------------------------ */

/* SF_RANGES_STEP, sf_combine_bits and sf_combine_bytes: kernels/bits.h. */

/* P_bits_ranges by passes, for an ISA without a loop of its own: P_mask_any's
 * bits of each range over SF_RANGES_STEP elements at a time (in cache for the
 * next range), combined in place in out. The steps bound the scratch for any
 * n; lib/ranges.c passes at most one step, so there it is one iteration. */
#define SF_BITS_RANGES_BY_PASSES(P)                                                      \
    SF_INLINE size_t P##_bits_ranges(sf_elem elem, const void *x, size_t n,             \
                                     const sf_range *r, size_t k, int every,            \
                                     uint8_t *out) {                                     \
        const size_t size = sf_elem_size(elem);                                          \
        size_t kept = 0;                                                                 \
        for (size_t i = 0; i < n; i += SF_RANGES_STEP) {                                 \
            const size_t m = n - i < SF_RANGES_STEP ? n - i : SF_RANGES_STEP;            \
            const unsigned char *p = (const unsigned char *)x + i * size;                \
            uint8_t *o = out + i / 8, part[SF_RANGES_STEP / 8];                          \
            P##_mask_any(SF_OP_BITS, elem, p, NULL, m, &r[0], o);                        \
            for (size_t j = 1; j < k; j++) {                                             \
                P##_mask_any(SF_OP_BITS, elem, p, NULL, m, &r[j], part);                 \
                sf_combine_bytes(o, part, (m + 7) / 8, every);                           \
            }                                                                            \
            for (size_t b = 0; b < (m + 7) / 8; b++)                                     \
                for (unsigned v = o[b]; v; v &= v - 1u)                                  \
                    kept++;                                                              \
        }                                                                                \
        return kept;                                                                     \
    }

#endif
