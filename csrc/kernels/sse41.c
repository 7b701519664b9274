/*
 * SSE4.1 kernel: compiled with -msse4.1 and nothing else, so no popcnt
 * instruction and no SSE4.2 (no pcmpgtq).
 *
 * The same shape as avx2.c, on 128-bit vectors: compare a vector with the
 * range, movemask it into one bit per element, then for each group of output
 * lanes look the group's bits up in a pshufb table (x86_tables.h), shuffle the
 * position or data vector, store the whole vector at out + k and advance k by
 * the popcount of the bits. Popcounts of at most 8 bits come from SF_POP4, a
 * 16-entry table packed in one 64-bit constant.
 *
 * u64 is the exception: it runs the branchless scalar loop (see sse41_u64).
 *
 * Whole-vector stores stay inside out[0, n): a group of G inputs starts at
 * some i with k <= i, its store covers out[k, k + G) and k + G <= i + G <= n.
 * The last partial block runs the same step on a zero-padded copy of the
 * input, into a scratch buffer: nothing is read past x[n-1] or written past
 * out[n-1].
 */
#include <smmintrin.h>

#include "kernel_common.h"
#include "x86_tables.h"

enum { SSE41_INDEX32, SSE41_INDEX64, SSE41_VALUES, SSE41_COUNT };

SF_INLINE size_t sse41_lanes(sf_elem kind) { return 16 / sf_kind_size(kind); }

/*
 * The range, broadcast. Integer kinds: `a` = lo and `b` = hi - lo, both with
 * the sign bit flipped, so that a signed compare does the unsigned one;
 * flipping is adding 2^(w-1), so x - a already is (x - lo) ^ sign.
 * Floats: the bounds.
 */
typedef struct sse41_bounds {
    __m128i a, b;
} sse41_bounds;

SF_INLINE sse41_bounds sse41_setup(sf_elem kind, const sf_range *r) {
    const uint64_t lo = r->lo, span = sf_span(r);
    sse41_bounds c;
    switch (kind) {
    case SF_U8:
        c.a = _mm_set1_epi8((char)(uint8_t)(lo ^ 0x80u));
        c.b = _mm_set1_epi8((char)(uint8_t)(span ^ 0x80u));
        break;
    case SF_U16:
        c.a = _mm_set1_epi16((short)(uint16_t)(lo ^ 0x8000u));
        c.b = _mm_set1_epi16((short)(uint16_t)(span ^ 0x8000u));
        break;
    case SF_U32:
        c.a = _mm_set1_epi32((int)(uint32_t)(lo ^ 0x80000000u));
        c.b = _mm_set1_epi32((int)(uint32_t)(span ^ 0x80000000u));
        break;
    case SF_F32: /* exact: the contract says both bounds are floats */
        c.a = _mm_castps_si128(_mm_set1_ps((float)r->flo));
        c.b = _mm_castps_si128(_mm_set1_ps((float)r->fhi));
        break;
    default: /* SF_F64 */
        c.a = _mm_castpd_si128(_mm_set1_pd(r->flo));
        c.b = _mm_castpd_si128(_mm_set1_pd(r->fhi));
        break;
    }
    return c;
}

/* Integer kinds compare for "outside" (one signed greater-than; "inside" would
 * need span + 1, which wraps for the full range). Floats compare for "inside"
 * with ordered compares, so NaN never matches. */
SF_INLINE int sse41_hits_outside(sf_elem kind) { return !sf_is_float(kind); }

SF_INLINE __m128i sse41_load(const unsigned char *p) {
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* All-ones lanes where x hits (see sse41_hits_outside); never called for u64. */
SF_INLINE __m128i sse41_hits(sf_elem kind, const sse41_bounds *c, __m128i x) {
    switch (kind) {
    case SF_U8: return _mm_cmpgt_epi8(_mm_sub_epi8(x, c->a), c->b);
    case SF_U16: return _mm_cmpgt_epi16(_mm_sub_epi16(x, c->a), c->b);
    case SF_U32: return _mm_cmpgt_epi32(_mm_sub_epi32(x, c->a), c->b);
    case SF_F32: {
        const __m128 v = _mm_castsi128_ps(x);
        return _mm_castps_si128(_mm_and_ps(_mm_cmpge_ps(v, _mm_castsi128_ps(c->a)),
                                           _mm_cmple_ps(v, _mm_castsi128_ps(c->b))));
    }
    default: {
        const __m128d v = _mm_castsi128_pd(x);
        return _mm_castpd_si128(_mm_and_pd(_mm_cmpge_pd(v, _mm_castsi128_pd(c->a)),
                                           _mm_cmple_pd(v, _mm_castsi128_pd(c->b))));
    }
    }
}

/* One bit per element of a hit vector. */
SF_INLINE uint32_t sse41_bits(sf_elem kind, __m128i h) {
    switch (sf_kind_size(kind)) {
    case 1: return (uint32_t)_mm_movemask_epi8(h);
    case 2: /* signed saturation keeps 0 and -1 as they are */
        return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(h, _mm_setzero_si128()));
    case 4: return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(h));
    default: return (uint32_t)_mm_movemask_pd(_mm_castsi128_pd(h));
    }
}

/* Kept-element bits of nvec consecutive vectors (at most 16 elements). */
SF_INLINE uint32_t sse41_keep(sf_elem kind, const sse41_bounds *c, const unsigned char *p,
                              size_t nvec) {
    const size_t lanes = sse41_lanes(kind);
    uint32_t m = 0;
    for (size_t v = 0; v < nvec; v++)
        m |= sse41_bits(kind, sse41_hits(kind, c, sse41_load(p + 16 * v))) << (v * lanes);
    if (sse41_hits_outside(kind))
        m ^= (1u << (nvec * lanes)) - 1u;
    return m;
}

/* popcount of up to 16 bits without the popcnt instruction. */
SF_INLINE size_t sse41_popcount(uint32_t m) {
    return SF_POP8(m & 0xffu) + SF_POP8((m >> 8) & 0xffu);
}

/* Output lanes per group when compacting lanes of w bytes: one pshufb of a
 * 16-byte vector, except bytes, whose 256-entry table covers 8 lanes. */
SF_INLINE size_t sse41_group(size_t w) { return w == 1 ? 8 : 16 / w; }

/* pshufb control that moves the lanes set in m (lanes of w bytes) to the front. */
SF_INLINE __m128i sse41_shuf(unsigned m, size_t w) {
    if (w == 4)
        return _mm_loadu_si128((const __m128i *)(const void *)sf_x86_shuf4x32[m]);
    if (w == 8)
        return _mm_loadu_si128((const __m128i *)(const void *)sf_x86_shuf2x64[m]);
    __m128i s = _mm_cvtsi64_si128((long long)sf_x86_idx8[m]);
    if (w == 2) {
        s = _mm_unpacklo_epi8(s, s);                                  /* j, j      */
        s = _mm_add_epi8(_mm_add_epi8(s, s), _mm_set1_epi16(0x0100)); /* 2j, 2j+1 */
    }
    return s;
}

/* Append the lanes of v (lanes of w bytes) set in m to out, k results so far. */
SF_INLINE size_t sse41_emit(unsigned char *out, size_t k, __m128i v, unsigned m, size_t w) {
    const __m128i kept = _mm_shuffle_epi8(v, sse41_shuf(m, w));
    if (w == 1)
        _mm_storel_epi64((__m128i *)(void *)(out + k), kept);
    else
        _mm_storeu_si128((__m128i *)(void *)(out + w * k), kept);
    return k + sse41_popcount(m);
}

/* Elements per step: one vector, or two for f64 with 32-bit positions so
 * that a step fills a whole 4-lane vector of positions. */
SF_INLINE size_t sse41_block(int op, sf_elem kind) {
    const size_t lanes = sse41_lanes(kind);
    return (op == SSE41_INDEX32 && lanes < 4) ? 4 : lanes;
}

SF_INLINE size_t sse41_out_size(int op, sf_elem kind) {
    return op == SSE41_INDEX32 ? 4 : op == SSE41_INDEX64 ? 8 : sf_kind_size(kind);
}

/*
 * One block of sse41_block(op, kind) elements at p: append what it keeps to
 * out and return the new k. `ids` holds the positions of the next output
 * group and moves on with it; `valid` masks off the padding of a last block.
 */
SF_INLINE size_t sse41_step(int op, sf_elem kind, const sse41_bounds *c, const unsigned char *p,
                            __m128i *ids, unsigned char *out, size_t k, uint32_t valid) {
    const size_t lanes = sse41_lanes(kind), block = sse41_block(op, kind);
    if (op == SSE41_VALUES) {
        const size_t w = sf_kind_size(kind), g = sse41_group(w);
        const __m128i x = sse41_load(p);
        uint32_t m = sse41_bits(kind, sse41_hits(kind, c, x));
        if (sse41_hits_outside(kind))
            m = ~m;
        m &= valid;
        k = sse41_emit(out, k, x, m & ((1u << g) - 1u), w);
        if (lanes > g) /* the upper 8 bytes */
            k = sse41_emit(out, k, _mm_unpackhi_epi64(x, x), m >> g, w);
        return k;
    }
    const size_t w = op == SSE41_INDEX32 ? 4 : 8, g = sse41_group(w);
    const uint32_t m = sse41_keep(kind, c, p, block / lanes) & valid;
    for (size_t j = 0; j < block / g; j++) {
        k = sse41_emit(out, k, *ids, (m >> (g * j)) & ((1u << g) - 1u), w);
        *ids = w == 4 ? _mm_add_epi32(*ids, _mm_set1_epi32(4))
                      : _mm_add_epi64(*ids, _mm_set1_epi64x(2));
    }
    return k;
}

/*
 * u64 has no 64-bit compare before SSE4.2 (pcmpgtq). We emulated it: d = x - lo
 * is outside when span - d borrows, and the borrow out of a - b is the top bit
 * of (~a & b) | ((~a | b) & (a - b)), six plain 64-bit ops per 2 elements, then
 * movemask_pd and the 2-lane tables. It was correct but measured 0.7x to 1.3x
 * the branchless scalar loop depending on the operation (64 Ki elements, 50%
 * kept, Zen 5): two lanes per vector do not pay for the emulation and the
 * compaction. So u64 runs the scalar loop, written here so that this file
 * stands alone.
 */
SF_INLINE size_t sse41_u64(int op, const void *x, size_t n, const sf_range *r, uint64_t base,
                           void *out) {
    const uint64_t *v = (const uint64_t *)x, lo = r->lo, span = sf_span(r);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        /* written before the test, kept or not: k <= i < n */
        if (op == SSE41_INDEX32)
            ((uint32_t *)out)[k] = (uint32_t)base + (uint32_t)i;
        else if (op == SSE41_INDEX64)
            ((uint64_t *)out)[k] = base + i;
        else if (op == SSE41_VALUES)
            ((uint64_t *)out)[k] = v[i];
        k += (size_t)(v[i] - lo <= span);
    }
    return k;
}

/* The compaction loop behind index32, index64 and values, unrolled by two
 * (measured: ~1.5x on u32 index32, no loss elsewhere). */
SF_INLINE size_t sse41_compact(int op, sf_elem kind, const void *x, size_t n, const sf_range *r,
                               uint64_t base, void *out_) {
    if (kind == SF_U64)
        return sse41_u64(op, x, n, r, base, out_);
    const sse41_bounds c = sse41_setup(kind, r);
    const size_t size = sf_kind_size(kind), osize = sse41_out_size(op, kind);
    const size_t block = sse41_block(op, kind);
    const uint32_t all = (1u << block) - 1u;
    const unsigned char *p = (const unsigned char *)x;
    unsigned char *out = (unsigned char *)out_;
    __m128i ids = op == SSE41_INDEX32
                      ? _mm_add_epi32(_mm_set1_epi32((int)(uint32_t)base), _mm_setr_epi32(0, 1, 2, 3))
                      : _mm_add_epi64(_mm_set1_epi64x((long long)base), _mm_set_epi64x(1, 0));
    size_t i = 0, k = 0;
    for (; n - i >= 2 * block; i += 2 * block) {
        k = sse41_step(op, kind, &c, p + i * size, &ids, out, k, all);
        k = sse41_step(op, kind, &c, p + (i + block) * size, &ids, out, k, all);
    }
    if (n - i >= block) {
        k = sse41_step(op, kind, &c, p + i * size, &ids, out, k, all);
        i += block;
    }
    if (i < n) {
        /* Fewer than `block` elements left: the same step on a zero-padded
         * copy, into scratch, then copy out what was kept. */
        _Alignas(16) unsigned char in[32] = {0};   /* block * size <= 32 */
        _Alignas(16) unsigned char tmp[16 * 8];    /* block * osize <= 128 */
        const size_t rest = n - i;
        memcpy(in, p + i * size, rest * size);
        const size_t t = sse41_step(op, kind, &c, in, &ids, tmp, 0, (1u << rest) - 1u);
        memcpy(out + k * osize, tmp, t * osize);
        k += t;
    }
    return k;
}

SF_INLINE size_t sse41_index32(sf_elem kind, const void *x, size_t n, const sf_range *r,
                               uint32_t base, uint32_t *out) {
    return sse41_compact(SSE41_INDEX32, kind, x, n, r, base, out);
}

SF_INLINE size_t sse41_index64(sf_elem kind, const void *x, size_t n, const sf_range *r,
                               uint64_t base, uint64_t *out) {
    return sse41_compact(SSE41_INDEX64, kind, x, n, r, base, out);
}

SF_INLINE size_t sse41_values(sf_elem kind, const void *x, size_t n, const sf_range *r,
                              void *out) {
    return sse41_compact(SSE41_VALUES, kind, x, n, r, 0, out);
}

/* ---- count: no movemask, no popcount in the loop -------------------------- */

/* acc - hits: each lane counts its own hits (a hit lane is -1). */
SF_INLINE __m128i sse41_count_lanes(sf_elem kind, __m128i acc, __m128i h) {
    switch (sf_kind_size(kind)) {
    case 1: return _mm_sub_epi8(acc, h);
    case 2: return _mm_sub_epi16(acc, h);
    case 4: return _mm_sub_epi32(acc, h);
    default: return _mm_sub_epi64(acc, h);
    }
}

/* Sum of the lane counters, widened so that none can overflow. */
SF_INLINE uint64_t sse41_sum_lanes(sf_elem kind, __m128i acc) {
    const size_t size = sf_kind_size(kind);
    if (size == 1)
        acc = _mm_sad_epu8(acc, _mm_setzero_si128());
    if (size == 2)
        acc = _mm_add_epi32(_mm_and_si128(acc, _mm_set1_epi32(0xffff)), _mm_srli_epi32(acc, 16));
    if (size == 2 || size == 4)
        acc = _mm_add_epi64(_mm_and_si128(acc, _mm_set1_epi64x(0xffffffff)),
                            _mm_srli_epi64(acc, 32));
    return (uint64_t)_mm_cvtsi128_si64(acc) + (uint64_t)_mm_extract_epi64(acc, 1);
}

SF_INLINE size_t sse41_count(sf_elem kind, const void *x, size_t n, const sf_range *r) {
    if (kind == SF_U64)
        return sse41_u64(SSE41_COUNT, x, n, r, 0, NULL);
    const sse41_bounds c = sse41_setup(kind, r);
    const size_t size = sf_kind_size(kind), lanes = sse41_lanes(kind);
    /* Vectors per round before a lane counter could wrap (two counters). */
    const size_t round = size == 1 ? 2 * 255 : size == 2 ? 2 * 65535 : (size_t)1 << 30;
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0;
    uint64_t hits = 0;
    while (n - i >= lanes) {
        size_t nvec = (n - i) / lanes;
        if (nvec > round)
            nvec = round;
        /* Two counters: one would make the loop wait on its 1-cycle add. */
        __m128i acc0 = _mm_setzero_si128(), acc1 = _mm_setzero_si128();
        size_t v = 0;
        for (; v + 2 <= nvec; v += 2) {
            acc0 = sse41_count_lanes(kind, acc0, sse41_hits(kind, &c, sse41_load(p + 16 * v)));
            acc1 = sse41_count_lanes(kind, acc1, sse41_hits(kind, &c, sse41_load(p + 16 * v + 16)));
        }
        if (v < nvec)
            acc0 = sse41_count_lanes(kind, acc0, sse41_hits(kind, &c, sse41_load(p + 16 * v)));
        hits += sse41_sum_lanes(kind, acc0) + sse41_sum_lanes(kind, acc1);
        p += 16 * nvec;
        i += lanes * nvec;
    }
    size_t kept = sse41_hits_outside(kind) ? i - (size_t)hits : (size_t)hits;
    if (i < n) {
        _Alignas(16) unsigned char in[16] = {0};
        const size_t rest = n - i;
        memcpy(in, p, rest * size);
        kept += sse41_popcount(sse41_keep(kind, &c, in, 1) & ((1u << rest) - 1u));
    }
    return kept;
}

SF_INSTANTIATE(sse41)
