/*
 * The range predicate of kernels/sse41.c and kernels/avx2.c, for any vector
 * width: an instance (Q = P_range, P the ISA's prefix) of the predicate
 * contract of x86_skeleton.h, which each of those files includes for it. The
 * compare itself is the ISA file's P_range_cmp (the instructions differ); the
 * bounds, the direction of its hits and the sparse path's shortcut are here.
 * Included once per ISA file, after x86_vec.h.
 */
#ifndef X86_ISA
#error "define X86_ISA and the primitives, and include x86_vec.h, before x86_range.h"
#endif

/* The range, broadcast: `a` = lo and `b` = hi - lo with the sign bit flipped
 * (x86 has only signed integer compares before AVX-512), or the float bounds:
 * P_bounds and P_setup. */
SF_DEFINE_BOUNDS(X86_ISA, X86_VEC, 1)

typedef sf_range X86_FN(range_arg);
typedef X86_FN(bounds) X86_FN(range_state);

SF_INLINE X86_FN(bounds) X86_FN(range_setup)(sf_elem elem, const sf_range *r) {
    return X86_FN(setup)(elem, r);
}

/* Q_hits: all-ones lanes where x hits, by P_range_cmp with the bounds. */
SF_INLINE X86_VEC X86_FN(range_hits)(sf_elem elem, const X86_FN(bounds) *c, X86_VEC x) {
    return X86_FN(range_cmp)(elem, c->a, c->b, c->flip, x);
}

/* Q_hits_outside. Integer kinds compare for "outside": the signed greater-than
 * is one instruction, while "inside" would need span + 1, which wraps for the
 * full range. Float kinds compare for "inside" with ordered compares (NaN fails),
 * XORed with P_bounds' flip: for an inverted range a float hit is a lane
 * outside it (NaN included), and the loops keep the hits as they are. */
SF_INLINE int X86_FN(range_hits_outside)(sf_elem elem) { return !sf_is_float(elem); }

/* The smallest offset x - lo of the nvec vectors at p, per lane, as
 * P_range_cmp compares it (sign-flipped, so the signed minimum is the
 * unsigned one). */
SF_INLINE X86_VEC X86_FN(range_min_offset)(sf_elem elem, const X86_FN(bounds) *c,
                                           const unsigned char *p, size_t nvec) {
    X86_VEC m = X86_SI(setzero)();
    for (size_t v = 0; v < nvec; v++) {
        const X86_VEC x = X86_FN(load)(p + X86_BYTES * v);
        switch (elem) {
        case SF_U8: {
            const X86_VEC d = X86_MM(sub_epi8)(x, c->a);
            m = v ? X86_MM(min_epi8)(m, d) : d;
            break;
        }
        case SF_U16: {
            const X86_VEC d = X86_MM(sub_epi16)(x, c->a);
            m = v ? X86_MM(min_epi16)(m, d) : d;
            break;
        }
        default: {
            const X86_VEC d = X86_MM(sub_epi32)(x, c->a);
            m = v ? X86_MM(min_epi32)(m, d) : d;
            break;
        }
        }
    }
    return m;
}

/* Q_has_none_kept and Q_none_kept: the sparse path's test of a block, 1 if
 * none of the nvec vectors at p is inside the range (nulls aside). Integers of
 * 8-32 bits: the block keeps nothing iff even its smallest offset from lo is
 * past the span, one compare for the block (P_range_cmp: x is outside iff
 * x - lo > hi - lo, unsigned). Per 4 vectors of u32 on AVX2 that is 4 subs,
 * 3 mins and a compare where a compare per vector and 3 ANDs were 11 vector
 * operations; count_in_range's loop takes 12. 64-bit integers (no signed
 * 64-bit min before AVX-512) and floats have no shortcut: the skeleton combines
 * each vector's hits. */
SF_INLINE int X86_FN(range_has_none_kept)(sf_elem elem) {
    return elem == SF_U8 || elem == SF_U16 || elem == SF_U32;
}

SF_INLINE int X86_FN(range_none_kept)(sf_elem elem, const X86_FN(bounds) *c,
                                      const unsigned char *p, size_t nvec) {
    const X86_VEC m = X86_FN(range_min_offset)(elem, c, p, nvec);
    const X86_VEC outside = elem == SF_U8    ? X86_MM(cmpgt_epi8)(m, c->b)
                            : elem == SF_U16 ? X86_MM(cmpgt_epi16)(m, c->b)
                                             : X86_MM(cmpgt_epi32)(m, c->b);
    return X86_SI(testc)(outside, X86_MM(set1_epi32)(-1)); /* every lane outside */
}
