/*
 * The portable kernel, and the reference every SIMD kernel is tested against.
 *
 * Branchless: the position is written unconditionally and the output cursor
 * advances by the 0/1 outcome of the range test. A branch on that outcome is
 * mispredicted about half the time on random data and runs ~10x slower: on
 * a 2-core AMD EPYC Zen 5 KVM, uint32 at 50% kept, 0.22-0.24 G/s branchy
 * against 2.4-2.7 G/s branchless, from 64 Ki to 16 Mi elements. Writing out[k] before knowing whether to keep it is safe because
 * k <= i < n.
 */
#include "kernel_common.h"

/* The range test for element i, for one element kind (a compile-time constant):
 * lo and span from sf_lo and sf_span (an inverted integer range is already its
 * complement), finv 1 for an inverted float range. */
SF_INLINE int scalar_keep(sf_elem elem, const void *x, size_t i, uint64_t lo, uint64_t span,
                          double flo, double fhi, int finv) {
    switch (elem) {
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
        return ((v >= (float)flo) & (v <= (float)fhi)) ^ finv;
    }
    case SF_F64: {
        double v = ((const double *)x)[i];
        return ((v >= flo) & (v <= fhi)) ^ finv;
    }
    default:
        return 0;
    }
}

/* A null's test is ANDed to 0 before the cursor moves; valid == NULL (a
 * compile-time constant in the plain entry points) means no nulls. */
SF_INLINE size_t scalar_valid(const uint8_t *valid, size_t i) {
    return valid ? (size_t)((valid[i / 8] >> (i % 8)) & 1) : 1;
}

/* index32, index64 and values, with or without nulls: one loop, the output
 * chosen by `op`. For values the test comes before out[k] is written: the
 * compiler cannot know that x and out do not overlap, and would read x[i] again
 * after the store (one instruction per element more for u64). */
SF_INLINE size_t scalar_filter_valid(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                     size_t n, const sf_range *r, uint64_t base, void *out) {
    const uint64_t lo = sf_lo(r), span = sf_span(r);
    const double flo = r->flo, fhi = r->fhi;
    const int finv = r->invert != 0;
    const size_t size = sf_elem_size(elem);
    const unsigned char *src = (const unsigned char *)x;
    unsigned char *dst = (unsigned char *)out;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (op == SF_OP_VALUES) {
            const size_t keep = (size_t)scalar_keep(elem, x, i, lo, span, flo, fhi, finv) &
                                scalar_valid(valid, i);
            memcpy(dst + k * size, src + i * size, size);
            k += keep;
            continue;
        }
        /* Positions: stored first, then tested (9 instructions per u32 element
         * against 11 the other way round, callgrind). */
        if (op == SF_OP_INDEX32)
            ((uint32_t *)out)[k] = (uint32_t)base + (uint32_t)i;
        else
            ((uint64_t *)out)[k] = base + (uint64_t)i;
        k += (size_t)scalar_keep(elem, x, i, lo, span, flo, fhi, finv) & scalar_valid(valid, i);
    }
    return k;
}

SF_INLINE size_t scalar_count_valid(sf_elem elem, const void *x, const uint8_t *valid, size_t n,
                                    const sf_range *r) {
    const uint64_t lo = sf_lo(r), span = sf_span(r);
    const double flo = r->flo, fhi = r->fhi;
    const int finv = r->invert != 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)scalar_keep(elem, x, i, lo, span, flo, fhi, finv) & scalar_valid(valid, i);
    return k;
}

SF_INLINE size_t scalar_filter(sf_op op, sf_elem elem, const void *x, size_t n,
                               const sf_range *r, uint64_t base, void *out) {
    return scalar_filter_valid(op, elem, x, NULL, n, r, base, out);
}

SF_INLINE size_t scalar_count(sf_elem elem, const void *x, size_t n, const sf_range *r) {
    return scalar_count_valid(elem, x, NULL, n, r);
}

/* Positions given: the value at each, tested; the position kept or not. */
SF_INLINE size_t scalar_within(sf_op op, sf_elem elem, const void *x, uint64_t base,
                               const void *pos, size_t m, const sf_range *r, void *out) {
    const uint64_t lo = sf_lo(r), span = sf_span(r);
    const double flo = r->flo, fhi = r->fhi;
    const int finv = r->invert != 0;
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        const uint64_t p = op == SF_OP_INDEX32 ? ((const uint32_t *)pos)[i]
                                               : ((const uint64_t *)pos)[i];
        if (op == SF_OP_INDEX32)
            ((uint32_t *)out)[k] = (uint32_t)p;
        else
            ((uint64_t *)out)[k] = p;
        k += (size_t)scalar_keep(elem, x, (size_t)(p - base), lo, span, flo, fhi, finv);
    }
    return k;
}

static void scalar_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    sf_mask_to_valid_tail(mask, n, valid);
}

/* The masks: every element's test written, as a byte or as bit i % 8 of the
 * byte being built, which is stored once whole (its bits past n 0). */
SF_INLINE size_t scalar_mask_any(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                 size_t n, const sf_range *r, uint8_t *out) {
    const uint64_t lo = sf_lo(r), span = sf_span(r);
    const double flo = r->flo, fhi = r->fhi;
    const int finv = r->invert != 0;
    size_t k = 0;
    unsigned byte = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned keep = (unsigned)scalar_keep(elem, x, i, lo, span, flo, fhi, finv) &
                              (unsigned)scalar_valid(valid, i);
        k += keep;
        if (op == SF_OP_MASK8) {
            out[i] = (uint8_t)keep;
            continue;
        }
        byte |= keep << (i % 8);
        if (i % 8 == 7) {
            out[i / 8] = (uint8_t)byte;
            byte = 0;
        }
    }
    if (op == SF_OP_BITS && n % 8)
        out[n / 8] = (uint8_t)byte;
    return k;
}

/* Several ranges: each element tested against every range (the scalar twin of
 * the vector kernels' bits_ranges). */
SF_INLINE size_t scalar_bits_ranges(sf_elem elem, const void *x, size_t n, const sf_range *r,
                                    size_t k, int every, uint8_t *out) {
    size_t kept = 0;
    unsigned byte = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned keep = (unsigned)every;
        for (size_t j = 0; j < k; j++) {
            const unsigned in = (unsigned)scalar_keep(elem, x, i, sf_lo(&r[j]), sf_span(&r[j]),
                                                      r[j].flo, r[j].fhi, r[j].invert != 0);
            keep = every ? keep & in : keep | in;
        }
        kept += keep;
        byte |= keep << (i % 8);
        if (i % 8 == 7) {
            out[i / 8] = (uint8_t)byte;
            byte = 0;
        }
    }
    if (n % 8)
        out[n / 8] = (uint8_t)byte;
    return kept;
}

SF_INSTANTIATE_ALL(scalar, u8, u16, u32, u64, f32, f64)

/* The packed column's scalar twin (packed.h, packed_scalar.h). */
#include "packed_scalar.h"
