/*
 * The portable kernel, and the reference every SIMD kernel is tested against.
 *
 * Branchless: the position is written unconditionally and the output cursor
 * advances by the 0/1 outcome of the range test. A branch on that outcome is
 * mispredicted about half the time on random data and runs ~10x slower (see
 * DESIGN.md). Writing out[k] before knowing whether to keep it is safe because
 * k <= i < n.
 */
#include "kernel_common.h"

/* The range test for element i, for one kind (a compile-time constant). */
SF_INLINE int scalar_keep(sf_elem kind, const void *x, size_t i, uint64_t lo, uint64_t span,
                          double flo, double fhi) {
    switch (kind) {
    case SF_U8:
        return (uint8_t)(((const uint8_t *)x)[i] - (uint8_t)lo) <= (uint8_t)span;
    case SF_U16:
        return (uint16_t)(((const uint16_t *)x)[i] - (uint16_t)lo) <= (uint16_t)span;
    case SF_U32:
        return (uint32_t)(((const uint32_t *)x)[i] - (uint32_t)lo) <= (uint32_t)span;
    case SF_U64:
        return (uint64_t)(((const uint64_t *)x)[i] - lo) <= span;
    case SF_F32: {
        float v = ((const float *)x)[i];
        return (v >= (float)flo) & (v <= (float)fhi);
    }
    case SF_F64: {
        double v = ((const double *)x)[i];
        return (v >= flo) & (v <= fhi);
    }
    default:
        return 0;
    }
}

#define SCALAR_SETUP                                                                     \
    const uint64_t lo = r->lo, span = sf_span(r);                                        \
    const double flo = r->flo, fhi = r->fhi

SF_INLINE size_t scalar_index32(sf_elem kind, const void *x, size_t n, const sf_range *r,
                                uint32_t base, uint32_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        out[k] = base + (uint32_t)i;
        k += (size_t)scalar_keep(kind, x, i, lo, span, flo, fhi);
    }
    return k;
}

SF_INLINE size_t scalar_index64(sf_elem kind, const void *x, size_t n, const sf_range *r,
                                uint64_t base, uint64_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        out[k] = base + (uint64_t)i;
        k += (size_t)scalar_keep(kind, x, i, lo, span, flo, fhi);
    }
    return k;
}

SF_INLINE size_t scalar_values(sf_elem kind, const void *x, size_t n, const sf_range *r,
                               void *out) {
    SCALAR_SETUP;
    const size_t size = sf_kind_size(kind);
    const unsigned char *src = (const unsigned char *)x;
    unsigned char *dst = (unsigned char *)out;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(dst + k * size, src + i * size, size);
        k += (size_t)scalar_keep(kind, x, i, lo, span, flo, fhi);
    }
    return k;
}

SF_INLINE size_t scalar_count(sf_elem kind, const void *x, size_t n, const sf_range *r) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)scalar_keep(kind, x, i, lo, span, flo, fhi);
    return k;
}

/* The same loops with nulls: a null element's test is ANDed to 0. */

SF_INLINE int scalar_valid(const uint8_t *valid, size_t i) { return (valid[i / 8] >> (i % 8)) & 1; }

SF_INLINE size_t scalar_index32_valid(sf_elem kind, const void *x, const uint8_t *valid,
                                      size_t n, const sf_range *r, uint32_t base,
                                      uint32_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        out[k] = base + (uint32_t)i;
        k += (size_t)(scalar_keep(kind, x, i, lo, span, flo, fhi) & scalar_valid(valid, i));
    }
    return k;
}

SF_INLINE size_t scalar_index64_valid(sf_elem kind, const void *x, const uint8_t *valid,
                                      size_t n, const sf_range *r, uint64_t base,
                                      uint64_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        out[k] = base + (uint64_t)i;
        k += (size_t)(scalar_keep(kind, x, i, lo, span, flo, fhi) & scalar_valid(valid, i));
    }
    return k;
}

SF_INLINE size_t scalar_values_valid(sf_elem kind, const void *x, const uint8_t *valid,
                                     size_t n, const sf_range *r, void *out) {
    SCALAR_SETUP;
    const size_t size = sf_kind_size(kind);
    const unsigned char *src = (const unsigned char *)x;
    unsigned char *dst = (unsigned char *)out;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(dst + k * size, src + i * size, size);
        k += (size_t)(scalar_keep(kind, x, i, lo, span, flo, fhi) & scalar_valid(valid, i));
    }
    return k;
}

SF_INLINE size_t scalar_count_valid(sf_elem kind, const void *x, const uint8_t *valid,
                                    size_t n, const sf_range *r) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)(scalar_keep(kind, x, i, lo, span, flo, fhi) & scalar_valid(valid, i));
    return k;
}

/* Positions given: the value at each, tested; the position kept or not. */

SF_INLINE size_t scalar_within32(sf_elem kind, const void *x, uint64_t base, const uint32_t *pos,
                                 size_t m, const sf_range *r, uint32_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        out[k] = pos[i];
        k += (size_t)scalar_keep(kind, x, (size_t)(pos[i] - base), lo, span, flo, fhi);
    }
    return k;
}

SF_INLINE size_t scalar_within64(sf_elem kind, const void *x, uint64_t base, const uint64_t *pos,
                                 size_t m, const sf_range *r, uint64_t *out) {
    SCALAR_SETUP;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        out[k] = pos[i];
        k += (size_t)scalar_keep(kind, x, (size_t)(pos[i] - base), lo, span, flo, fhi);
    }
    return k;
}

SF_INSTANTIATE_WITH_VALIDITY(scalar)
