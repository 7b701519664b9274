/*
 * The masks (mask8, bits) of kernels/sse41.c and kernels/avx2.c, for any
 * vector width and any predicate: x86_skeleton.h includes it at its end, once
 * per predicate (no include guard), and P_mask_any and P_bits_ranges (for
 * several arguments of the predicate: the range's several ranges) are what
 * SF_INSTANTIATE_ALL instantiates. It uses Q_setup, P_keep and P_lanes, and
 * x86_vec.h's P_mask_bytes.
 *
 * 32 elements per step (1 to 16 vectors): P_keep's compares and movemasks give
 * their 32 kept bits, the validity bits are ANDed in, and then
 *   bits:  the 32 bits are the output's 4 bytes, stored as they are (x86 is
 *          little-endian: bit j of the word is bit j % 8 of byte j / 8);
 *   mask8: the bits become 32 bytes, one vector per X86_BYTES of them: the
 *          word broadcast, each byte lane given the byte of the word that
 *          holds its bit (pshufb, within 128-bit halves: the word is in
 *          every 32-bit lane), ANDed with its bit's weight, then min(., 1).
 * The last 1-31 elements go through a zero-padded copy and sf_put_mask, so
 * nothing is read past x[n - 1] or written past the output's end.
 */
#ifndef X86_LOOP
#error "x86_skeleton.h includes this file, for one predicate at a time"
#endif

SF_INLINE size_t X86_LOOP(mask_any)(sf_op op, sf_elem elem, const void *x, const uint8_t *valid,
                                    size_t n, const X86_Q(arg) *r, uint8_t *out) {
    const X86_Q(state) c = X86_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), nvec = 32 / X86_FN(lanes)(elem);
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0, k = 0;
    for (; n - i >= 32; i += 32) {
        uint32_t m = X86_LOOP(keep)(elem, &c, p + i * size, nvec);
        if (valid) /* a constant NULL in the plain entry points */
            m &= sf_valid_bits(valid, i, 32, 32);
        k += X86_FN(popcount)(m & 0xffffu) + X86_FN(popcount)(m >> 16);
        if (op == SF_OP_BITS)
            memcpy(out + i / 8, &m, 4);
        else
            X86_FN(mask_bytes)(out + i, m);
    }
    if (i < n) {
        _Alignas(X86_BYTES) unsigned char in[32 * 8] = {0};
        const size_t rest = n - i;
        memcpy(in, p + i * size, rest * size);
        uint32_t m = X86_LOOP(keep)(elem, &c, in, nvec);
        if (valid)
            m &= sf_valid_bits(valid, i, rest, 32);
        k += sf_put_mask(op, out, i, m, rest);
    }
    return k;
}

/* The 32 bits of the 32 elements at p for the arguments c[0, k) (the ranges),
 * combined (OR when every = 0, else AND): P_keep per argument, the vectors
 * reloaded for each from the first-level cache. */
SF_INLINE uint32_t X86_LOOP(keep_ranges)(sf_elem elem, const X86_Q(state) *c, size_t k,
                                         int every, const unsigned char *p, size_t nvec) {
    uint32_t m = X86_LOOP(keep)(elem, &c[0], p, nvec);
    for (size_t j = 1; j < k; j++)
        m = (uint32_t)sf_combine_bits(m, X86_LOOP(keep)(elem, &c[j], p, nvec), every);
    return m;
}

/* Several ranges (the sf_bits_ranges_fn contract; for another predicate,
 * several of its arguments): each step's 32 elements tested against every one
 * (P_keep_ranges), stored as bits stores them. */
SF_INLINE size_t X86_LOOP(bits_ranges)(sf_elem elem, const void *x, size_t n, const X86_Q(arg) *r,
                                       size_t k, int every, uint8_t *out) {
    X86_Q(state) c[SF_RANGES_AT_ONCE];
    for (size_t j = 0; j < k; j++)
        c[j] = X86_Q(setup)(elem, &r[j]);
    const size_t size = sf_elem_size(elem), nvec = 32 / X86_FN(lanes)(elem);
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0, kept = 0;
    for (; n - i >= 32; i += 32) {
        const uint32_t m = X86_LOOP(keep_ranges)(elem, c, k, every, p + i * size, nvec);
        kept += X86_FN(popcount)(m & 0xffffu) + X86_FN(popcount)(m >> 16);
        memcpy(out + i / 8, &m, 4);
    }
    if (i < n) {
        _Alignas(X86_BYTES) unsigned char in[32 * 8] = {0};
        memcpy(in, p + i * size, (n - i) * size);
        const uint32_t m = X86_LOOP(keep_ranges)(elem, c, k, every, in, nvec);
        kept += sf_put_mask(SF_OP_BITS, out, i, m, n - i);
    }
    return kept;
}
