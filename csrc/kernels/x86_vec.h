/*
 * What the x86 loops (x86_skeleton.h) and the x86 predicates (x86_range.h) are
 * written with, for any vector width and no predicate: broadcasts, loads, the
 * blocks and position vectors of the filter loop, count's lane counters,
 * within's loads and the mask8 bytes. kernels/sse41.c and kernels/avx2.c each
 * include it once, after their primitives (the list at the top of
 * x86_skeleton.h) and before x86_range.h and x86_skeleton.h.
 */
#ifndef X86_ISA
#error "define X86_ISA and the primitives before including x86_vec.h"
#endif

#define X86_FN(name) SF_CAT(X86_ISA, SF_CAT(_, name))

/* The broadcasts SF_BROADCAST_RANGE builds the bounds with. */
SF_INLINE X86_VEC X86_FN(dup8)(uint8_t v) { return X86_MM(set1_epi8)((char)v); }
SF_INLINE X86_VEC X86_FN(dup16)(uint16_t v) { return X86_MM(set1_epi16)((short)v); }
SF_INLINE X86_VEC X86_FN(dup32)(uint32_t v) { return X86_MM(set1_epi32)((int)v); }
SF_INLINE X86_VEC X86_FN(dup64)(uint64_t v) { return X86_MM(set1_epi64x)((long long)v); }
SF_INLINE X86_VEC X86_FN(dupf32)(float v) { return X86_SI(castps)(X86_MM(set1_ps)(v)); }
SF_INLINE X86_VEC X86_FN(dupf64)(double v) { return X86_SI(castpd)(X86_MM(set1_pd)(v)); }

SF_INLINE size_t X86_FN(lanes)(sf_elem elem) { return X86_BYTES / sf_elem_size(elem); }

SF_INLINE X86_VEC X86_FN(load)(const unsigned char *p) {
    return X86_SI(loadu)((const X86_VEC *)(const void *)p);
}

/* Elements per step: one vector, or two for 64-bit data with 32-bit positions
 * so that a step fills a whole vector of positions. */
SF_INLINE size_t X86_FN(block)(sf_op op, sf_elem elem) {
    const size_t lanes = X86_FN(lanes)(elem), ids = X86_BYTES / 4;
    return (op == SF_OP_INDEX32 && lanes < ids) ? ids : lanes;
}

/* 0, 1, 2, ... as the first vector of positions. */
static const uint32_t X86_FN(iota32)[8] = {0, 1, 2, 3, 4, 5, 6, 7};
static const uint64_t X86_FN(iota64)[4] = {0, 1, 2, 3};

/* The position vector of the group that starts at position pos. */
SF_INLINE X86_VEC X86_FN(ids_at)(sf_op op, uint64_t pos) {
    return op == SF_OP_INDEX32
               ? X86_MM(add_epi32)(X86_MM(set1_epi32)((int)(uint32_t)pos),
                                   X86_FN(load)((const unsigned char *)X86_FN(iota32)))
               : X86_MM(add_epi64)(X86_MM(set1_epi64x)((long long)pos),
                                   X86_FN(load)((const unsigned char *)X86_FN(iota64)));
}

/* acc - hits: each lane counts its own hits (a hit lane is -1). */
SF_INLINE X86_VEC X86_FN(count_lanes)(sf_elem elem, X86_VEC acc, X86_VEC h) {
    switch (sf_elem_size(elem)) {
    case 1: return X86_MM(sub_epi8)(acc, h);
    case 2: return X86_MM(sub_epi16)(acc, h);
    case 4: return X86_MM(sub_epi32)(acc, h);
    default: return X86_MM(sub_epi64)(acc, h);
    }
}

/* Sum of the lane counters, widened so that none can overflow. */
SF_INLINE uint64_t X86_FN(sum_lanes)(sf_elem elem, X86_VEC acc) {
    const size_t size = sf_elem_size(elem);
    if (size == 1)
        acc = X86_MM(sad_epu8)(acc, X86_SI(setzero)());
    if (size == 2)
        acc = X86_MM(add_epi32)(X86_SI(and)(acc, X86_MM(set1_epi32)(0xffff)),
                                X86_MM(srli_epi32)(acc, 16));
    if (size == 2 || size == 4)
        acc = X86_MM(add_epi64)(X86_SI(and)(acc, X86_MM(set1_epi64x)(0xffffffff)),
                                X86_MM(srli_epi64)(acc, 32));
    const __m128i s = X86_FN(fold128)(acc);
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}

/* ---- within's loads ------------------------------------------------------------- */

/* Scalar loads of cnt elements at the positions pos[0, cnt) (w bytes each),
 * side by side at buf: the gather of ISAs without one, and of element kinds a
 * hardware gather would have to over-read for. */
SF_INLINE void X86_FN(gather_scalar)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                     const unsigned char *pos, size_t cnt, unsigned char *buf) {
    const size_t size = sf_elem_size(elem);
    const unsigned char *src = (const unsigned char *)x;
    const size_t w = op == SF_OP_INDEX32 ? 4 : 8;
    for (size_t j = 0; j < cnt; j++)
        memcpy(buf + j * size, src + (size_t)(sf_pos_at(pos, w, j) - base) * size, size);
}

/* P_gather_hw (the ISA file's) when it takes the group, else scalar loads. */
SF_INLINE void X86_FN(gather)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                              const unsigned char *pos, size_t cnt, unsigned char *buf) {
    if (!X86_FN(gather_hw)(op, elem, x, base, pos, cnt, buf))
        X86_FN(gather_scalar)(op, elem, x, base, pos, cnt, buf);
}

/* ---- mask8's bytes ---------------------------------------------------------------- */

/* Per byte lane: the byte of the 32-bit word its bit is in, and its weight. */
static const uint8_t X86_FN(mask_byte)[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                              2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3};
static const uint8_t X86_FN(mask_weight)[32] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16,
                                                32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128,
                                                1, 2, 4, 8, 16, 32, 64, 128};

/* The 32 bytes of mask m at out: byte j is bit j of m. */
SF_INLINE void X86_FN(mask_bytes)(uint8_t *out, uint32_t m) {
    const X86_VEC byte = X86_FN(load)(X86_FN(mask_byte));
    const X86_VEC weight = X86_FN(load)(X86_FN(mask_weight));
    const X86_VEC one = X86_MM(set1_epi8)(1);
    for (size_t v = 0; v < 32 / X86_BYTES; v++) {
        /* SSE4.1: bytes 0-1 of the word, then 2-3 (shifted down); AVX2: the
         * upper half's pshufb indexes 2-3 pick bytes 2-3 of its own copy. */
        const X86_VEC w = X86_MM(set1_epi32)((int)(m >> (16 * v)));
        const X86_VEC b = X86_SI(and)(X86_MM(shuffle_epi8)(w, byte), weight);
        X86_SI(storeu)((X86_VEC *)(void *)(out + X86_BYTES * v), X86_MM(min_epu8)(b, one));
    }
}

