/*
 * Shared by every kernels/<isa>.c: nothing here may need instruction-set flags.
 *
 * Each ISA file writes its loops once, as static always-inline functions that
 * take the element kind as a compile-time constant, and stamps out one small
 * function per (operation, kind) with SF_INSTANTIATE. The constant kind lets the
 * compiler fold every `switch (kind)` away, so each instance is a straight loop.
 */
#ifndef SIMDFILTER_KERNEL_COMMON_H
#define SIMDFILTER_KERNEL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "simdfilter.h"

#if defined(__GNUC__) || defined(__clang__)
#define SF_INLINE static inline __attribute__((always_inline))
#else
#define SF_INLINE static inline
#endif

/*
 * Given an ISA prefix P whose file defines the four generic functions
 *     P_index32(kind, x, n, r, base, out)   P_index64(kind, x, n, r, base, out)
 *     P_values(kind, x, n, r, out)          P_count(kind, x, n, r)
 * define one entry point per (operation, kind) and the public table sf_kernel_P.
 */
#define SF_DEFINE_ONE_KIND(P, K, TAG)                                                      \
    static size_t P##_index32_##TAG(const void *x, size_t n, const sf_range *r,          \
                                    uint32_t base, uint32_t *out) {                      \
        return P##_index32(K, x, n, r, base, out);                                       \
    }                                                                                    \
    static size_t P##_index64_##TAG(const void *x, size_t n, const sf_range *r,          \
                                    uint64_t base, uint64_t *out) {                      \
        return P##_index64(K, x, n, r, base, out);                                       \
    }                                                                                    \
    static size_t P##_values_##TAG(const void *x, size_t n, const sf_range *r,           \
                                   void *out) {                                          \
        return P##_values(K, x, n, r, out);                                              \
    }                                                                                    \
    static size_t P##_count_##TAG(const void *x, size_t n, const sf_range *r) {          \
        return P##_count(K, x, n, r);                                                    \
    }

#define SF_TABLE_ROW(P, OP)                                                              \
    { P##_##OP##_u8, P##_##OP##_u16, P##_##OP##_u32, P##_##OP##_u64,                     \
      P##_##OP##_f32, P##_##OP##_f64 }

#define SF_INSTANTIATE(P)                                                                \
    SF_DEFINE_ONE_KIND(P, SF_U8, u8)                                                     \
    SF_DEFINE_ONE_KIND(P, SF_U16, u16)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_U32, u32)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_U64, u64)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_F32, f32)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_F64, f64)                                                   \
    const sf_kernel sf_kernel_##P = {                                                    \
        .name = #P,                                                                      \
        .index32 = SF_TABLE_ROW(P, index32),                                             \
        .index64 = SF_TABLE_ROW(P, index64),                                             \
        .values = SF_TABLE_ROW(P, values),                                               \
        .count = SF_TABLE_ROW(P, count),                                                 \
    }; /* the slots left out (validity) are NULL: dispatch fills them from below */

/* The same for a file that also defines P_index32_valid(kind, x, valid, n, r,
 * base, out) and the other three with validity, and P_within32/P_within64. */
#define SF_DEFINE_ONE_KIND_VALID(P, K, TAG)                                                \
    static size_t P##_index32_valid_##TAG(const void *x, const uint8_t *v, size_t n,       \
                                          const sf_range *r, uint32_t base, uint32_t *out) { \
        return P##_index32_valid(K, x, v, n, r, base, out);                              \
    }                                                                                    \
    static size_t P##_index64_valid_##TAG(const void *x, const uint8_t *v, size_t n,       \
                                          const sf_range *r, uint64_t base, uint64_t *out) { \
        return P##_index64_valid(K, x, v, n, r, base, out);                              \
    }                                                                                    \
    static size_t P##_values_valid_##TAG(const void *x, const uint8_t *v, size_t n,        \
                                         const sf_range *r, void *out) {                 \
        return P##_values_valid(K, x, v, n, r, out);                                     \
    }                                                                                    \
    static size_t P##_count_valid_##TAG(const void *x, const uint8_t *v, size_t n,         \
                                        const sf_range *r) {                             \
        return P##_count_valid(K, x, v, n, r);                                           \
    }                                                                                    \
    static size_t P##_within32_##TAG(const void *x, uint64_t base, const uint32_t *pos,    \
                                     size_t m, const sf_range *r, uint32_t *out) {       \
        return P##_within32(K, x, base, pos, m, r, out);                                 \
    }                                                                                    \
    static size_t P##_within64_##TAG(const void *x, uint64_t base, const uint64_t *pos,    \
                                     size_t m, const sf_range *r, uint64_t *out) {       \
        return P##_within64(K, x, base, pos, m, r, out);                                 \
    }

#define SF_INSTANTIATE_WITH_VALIDITY(P)                                                  \
    SF_DEFINE_ONE_KIND(P, SF_U8, u8)                                                     \
    SF_DEFINE_ONE_KIND(P, SF_U16, u16)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_U32, u32)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_U64, u64)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_F32, f32)                                                   \
    SF_DEFINE_ONE_KIND(P, SF_F64, f64)                                                   \
    SF_DEFINE_ONE_KIND_VALID(P, SF_U8, u8)                                               \
    SF_DEFINE_ONE_KIND_VALID(P, SF_U16, u16)                                             \
    SF_DEFINE_ONE_KIND_VALID(P, SF_U32, u32)                                             \
    SF_DEFINE_ONE_KIND_VALID(P, SF_U64, u64)                                             \
    SF_DEFINE_ONE_KIND_VALID(P, SF_F32, f32)                                             \
    SF_DEFINE_ONE_KIND_VALID(P, SF_F64, f64)                                             \
    const sf_kernel sf_kernel_##P = {                                                    \
        .name = #P,                                                                      \
        .index32 = SF_TABLE_ROW(P, index32),                                             \
        .index64 = SF_TABLE_ROW(P, index64),                                             \
        .values = SF_TABLE_ROW(P, values),                                               \
        .count = SF_TABLE_ROW(P, count),                                                 \
        .index32_valid = SF_TABLE_ROW(P, index32_valid),                                 \
        .index64_valid = SF_TABLE_ROW(P, index64_valid),                                 \
        .values_valid = SF_TABLE_ROW(P, values_valid),                                   \
        .count_valid = SF_TABLE_ROW(P, count_valid),                                     \
        .within32 = SF_TABLE_ROW(P, within32),                                           \
        .within64 = SF_TABLE_ROW(P, within64),                                           \
    };

/* Unsigned bounds of an integer range, truncated to the element width:
 * x is kept when (x - lo) <= span, both computed modulo 2^width. */
SF_INLINE uint64_t sf_span(const sf_range *r) { return r->hi - r->lo; }

SF_INLINE int sf_is_float(sf_elem kind) { return kind == SF_F32 || kind == SF_F64; }

/* Element size in bytes; folds to a constant for a constant kind. */
SF_INLINE size_t sf_kind_size(sf_elem kind) {
    switch (kind) {
    case SF_U8: return 1;
    case SF_U16: return 2;
    case SF_U32: case SF_F32: return 4;
    case SF_U64: case SF_F64: return 8;
    default: return 0;
    }
}

#endif
