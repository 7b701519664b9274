/*
 * A second predicate through each vector family's skeleton, with no loop
 * touched: that the skeletons (kernels/x86_skeleton.h, avx512_skeleton.h,
 * neon_skeleton.h, sve_skeleton.h) really take the predicate as a parameter.
 *
 * The predicate is x == v, written with each ISA's compare-equal instructions
 * (its Q_arg is the range's sf_range, v being lo / flo, so that
 * SF_INSTANTIATE_ALL_AS stamps a whole kernel table from it in one line). It
 * is checked slot by slot against the same kernel's range [v, v], which
 * test_kernels.c checks against the scalar twin: every filter, count, mask
 * and within entry point, with and without nulls, on lengths that reach the
 * tails, the dense blocks and the sparse windows.
 *
 * Built by tests/test_c_harness.py once per vector kernel, as a program of
 * its own (it includes the kernel file: no library), with that kernel's
 * isa.def flags and -DTEST_<KERNEL>; it prints "predicate <kernel>: N checks"
 * and exits 0, or prints the first mismatch and exits 1.
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>

#include "test_common.h"

#if defined(TEST_SSE41) || defined(TEST_AVX2)

#ifdef TEST_SSE41
#include "kernels/sse41.c"
#define TEST_KERNEL "sse41"
#define TEST_RANGE sf_kernel_sse41
#define TEST_EQ sf_kernel_sse41_eq
#else
#include "kernels/avx2.c"
#define TEST_KERNEL "avx2"
#define TEST_RANGE sf_kernel_avx2
#define TEST_EQ sf_kernel_avx2_eq
#endif

typedef sf_range X86_FN(eqp_arg);
typedef struct X86_FN(eqp_state) {
    X86_VEC v;
} X86_FN(eqp_state);

SF_INLINE X86_FN(eqp_state) X86_FN(eqp_setup)(sf_elem elem, const sf_range *r) {
    X86_FN(eqp_state) s;
    X86_VEC span; /* hi - lo: 0 for [v, v], not compared with */
    SF_BROADCAST_RANGE(X86_ISA, elem, r, 0, s.v, span);
    (void)span;
    return s;
}

SF_INLINE X86_VEC X86_FN(eqp_hits)(sf_elem elem, const X86_FN(eqp_state) *s, X86_VEC x) {
    switch (elem) {
    case SF_U8: return X86_MM(cmpeq_epi8)(x, s->v);
    case SF_U16: return X86_MM(cmpeq_epi16)(x, s->v);
    case SF_U32: return X86_MM(cmpeq_epi32)(x, s->v);
    case SF_U64: return X86_MM(cmpeq_epi64)(x, s->v);
#if X86_BYTES == 16
    case SF_F32: return _mm_castps_si128(_mm_cmpeq_ps(_mm_castsi128_ps(x), _mm_castsi128_ps(s->v)));
    default: return _mm_castpd_si128(_mm_cmpeq_pd(_mm_castsi128_pd(x), _mm_castsi128_pd(s->v)));
#else
    case SF_F32:
        return _mm256_castps_si256(
            _mm256_cmp_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(s->v), _CMP_EQ_OQ));
    default:
        return _mm256_castpd_si256(
            _mm256_cmp_pd(_mm256_castsi256_pd(x), _mm256_castsi256_pd(s->v), _CMP_EQ_OQ));
#endif
    }
}

/* A hit is a kept lane; no shortcut for the sparse blocks (the skeleton ORs
 * each vector's hits). */
SF_INLINE int X86_FN(eqp_hits_outside)(sf_elem elem) { return (void)elem, 0; }
SF_INLINE int X86_FN(eqp_has_none_kept)(sf_elem elem) { return (void)elem, 0; }
SF_INLINE int X86_FN(eqp_none_kept)(sf_elem elem, const X86_FN(eqp_state) *s,
                                    const unsigned char *p, size_t nvec) {
    return (void)elem, (void)s, (void)p, (void)nvec, 0;
}

#ifdef TEST_SSE41
#define X86_SK sse41_eq
#define X86_PRED sse41_eqp
#include "kernels/x86_skeleton.h"
#define sse41_eq_mask_to_valid sse41_mask_to_valid
SF_INSTANTIATE_ALL_AS(sse41_eq, sse41_eq, u8, u16, u32, f32, f64)
#else
#define X86_SK avx2_eq
#define X86_PRED avx2_eqp
#include "kernels/x86_skeleton.h"
#define avx2_eq_mask_to_valid avx2_mask_to_valid
SF_INSTANTIATE_ALL_AS(avx2_eq, avx2_eq, u8, u16, u32, u64, f32, f64)
#endif

#elif defined(TEST_AVX512) || defined(TEST_AVX512_ZEN4)

#include "kernels/avx512.c"
#ifdef TEST_AVX512
#define TEST_KERNEL "avx512"
#define TEST_RANGE sf_kernel_avx512
#else
#define TEST_KERNEL "avx512_zen4"
#define TEST_RANGE sf_kernel_avx512_zen4
#endif
#define TEST_EQ sf_kernel_avx512_eq

typedef sf_range avx512_eqp_arg;
typedef struct avx512_eqp_state {
    __m512i v;
} avx512_eqp_state;

SF_INLINE avx512_eqp_state avx512_eqp_setup(sf_elem elem, const sf_range *r) {
    avx512_eqp_state s;
    __m512i span; /* hi - lo: 0 for [v, v], not compared with */
    SF_BROADCAST_RANGE(avx512, elem, r, 0, s.v, span);
    (void)span;
    return s;
}

SF_INLINE uint64_t avx512_eqp_hits(sf_elem elem, __m512i x, avx512_eqp_state s) {
    switch (elem) {
    case SF_U8: return _cvtmask64_u64(_mm512_cmpeq_epi8_mask(x, s.v));
    case SF_U16: return _cvtmask32_u32(_mm512_cmpeq_epi16_mask(x, s.v));
    case SF_U32: return _cvtmask16_u32(_mm512_cmpeq_epi32_mask(x, s.v));
    case SF_U64: return _cvtmask8_u32(_mm512_cmpeq_epi64_mask(x, s.v));
    case SF_F32:
        return _cvtmask16_u32(
            _mm512_cmp_ps_mask(_mm512_castsi512_ps(x), _mm512_castsi512_ps(s.v), _CMP_EQ_OQ));
    default:
        return _cvtmask8_u32(
            _mm512_cmp_pd_mask(_mm512_castsi512_pd(x), _mm512_castsi512_pd(s.v), _CMP_EQ_OQ));
    }
}

#define AVX512_SK avx512_eq
#define AVX512_PRED avx512_eqp
#include "kernels/avx512_skeleton.h"
#define avx512_eq_mask_to_valid avx512_mask_to_valid
SF_BITS_RANGES_BY_PASSES(avx512_eq)
SF_INSTANTIATE_ALL_AS(avx512_eq, avx512_eq, u8, u16, u32, u64, f32, f64)

#elif defined(TEST_NEON)

#include "kernels/neon.c"
#define TEST_KERNEL "neon"
#define TEST_RANGE sf_kernel_neon
#define TEST_EQ sf_kernel_neon_eq

typedef sf_range neon_eqp_arg;
typedef struct neon_eqp_state {
    uint8x16_t v;
} neon_eqp_state;

SF_INLINE neon_eqp_state neon_eqp_setup(sf_elem elem, const sf_range *r) {
    neon_eqp_state s;
    uint8x16_t span; /* hi - lo: 0 for [v, v], not compared with */
    SF_BROADCAST_RANGE(neon, elem, r, 0, s.v, span);
    (void)span;
    return s;
}

SF_INLINE uint8x16_t neon_eqp_hits(sf_elem elem, uint8x16_t x, const neon_eqp_state *s) {
    switch (elem) {
    case SF_U8: return vceqq_u8(x, s->v);
    case SF_U16:
        return vreinterpretq_u8_u16(vceqq_u16(vreinterpretq_u16_u8(x), vreinterpretq_u16_u8(s->v)));
    case SF_U32:
        return vreinterpretq_u8_u32(vceqq_u32(vreinterpretq_u32_u8(x), vreinterpretq_u32_u8(s->v)));
    case SF_U64:
        return vreinterpretq_u8_u64(vceqq_u64(vreinterpretq_u64_u8(x), vreinterpretq_u64_u8(s->v)));
    case SF_F32:
        return vreinterpretq_u8_u32(vceqq_f32(vreinterpretq_f32_u8(x), vreinterpretq_f32_u8(s->v)));
    default:
        return vreinterpretq_u8_u64(vceqq_f64(vreinterpretq_f64_u8(x), vreinterpretq_f64_u8(s->v)));
    }
}

#define NEON_SK neon_eq
#define NEON_PRED neon_eqp
#include "kernels/neon_skeleton.h"
#define neon_eq_mask_to_valid neon_mask_to_valid
SF_BITS_RANGES_BY_PASSES(neon_eq)
SF_INSTANTIATE_ALL_AS(neon_eq, neon_eq, u8, u16, u32, u64, f32, f64)

#elif defined(TEST_SVE)

#include "kernels/sve.c"
#define TEST_KERNEL "sve"
#define TEST_RANGE sf_kernel_sve
#define TEST_EQ sf_kernel_sve_eq

typedef sf_range sve_eqp_arg;
typedef struct sve_eqp_state {
    uint64_t v; /* the integer, at the element's width */
    double f;
} sve_eqp_state;

SF_INLINE sve_eqp_state sve_eqp_setup(sf_elem elem, const sf_range *r) {
    const size_t size = sf_elem_size(elem);
    const uint64_t mask = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
    sve_eqp_state s = {r->lo & mask, r->flo};
    return s;
}

SF_INLINE svbool_t sve_eqp_hits(sf_elem elem, svbool_t pg, svuint8_t x, const sve_eqp_state *s) {
    switch (elem) {
    case SF_U8: return svcmpeq_n_u8(pg, x, (uint8_t)s->v);
    case SF_U16: return svcmpeq_n_u16(pg, svreinterpret_u16_u8(x), (uint16_t)s->v);
    case SF_U32: return svcmpeq_n_u32(pg, svreinterpret_u32_u8(x), (uint32_t)s->v);
    case SF_U64: return svcmpeq_n_u64(pg, svreinterpret_u64_u8(x), s->v);
    case SF_F32: return svcmpeq_n_f32(pg, svreinterpret_f32_u8(x), (float)s->f);
    default: return svcmpeq_n_f64(pg, svreinterpret_f64_u8(x), s->f);
    }
}

/* Gathered elements, zero-extended into 32- or 64-bit lanes. */
SF_INLINE svbool_t sve_eqp_hits32(sf_elem elem, svbool_t pg, svuint32_t x,
                                  const sve_eqp_state *s) {
    if (elem == SF_F32)
        return svcmpeq_n_f32(pg, svreinterpret_f32_u32(x), (float)s->f);
    return svcmpeq_n_u32(pg, x, (uint32_t)s->v);
}

SF_INLINE svbool_t sve_eqp_hits64(sf_elem elem, svbool_t pg, svuint64_t x,
                                  const sve_eqp_state *s) {
    if (elem == SF_F64)
        return svcmpeq_n_f64(pg, svreinterpret_f64_u64(x), s->f);
    if (elem == SF_F32)
        return svcmpeq_n_f64(pg, svcvt_f64_f32_x(pg, svreinterpret_f32_u64(x)), s->f);
    return svcmpeq_n_u64(pg, x, s->v);
}

#define SVE_SK sve_eq
#define SVE_PRED sve_eqp
#include "kernels/sve_skeleton.h"
#define sve_eq_mask_to_valid sve_mask_to_valid
SF_BITS_RANGES_BY_PASSES(sve_eq)
SF_INSTANTIATE_ALL_AS(sve_eq, sve_eq, u8, u16, u32, u64, f32, f64)

#else
#error "define TEST_<KERNEL>: SSE41, AVX2, AVX512, AVX512_ZEN4, NEON or SVE"
#endif

/* ---- The check ------------------------------------------------------------------ */

static size_t checks;

static void fail(const char *what, int elem, size_t n, size_t at) {
    printf("predicate %s: %s differs from the range [v, v], elem %d, n %zu, at %zu\n",
           TEST_KERNEL, what, elem, n, at);
    exit(1);
}

static void same(const char *what, int elem, size_t n, const void *a, const void *b,
                 size_t bytes) {
    checks++;
    if (memcmp(a, b, bytes)) {
        size_t j = 0;
        while (((const unsigned char *)a)[j] == ((const unsigned char *)b)[j])
            j++;
        fail(what, elem, n, j);
    }
}

static void same_count(const char *what, int elem, size_t n, size_t a, size_t b) {
    checks++;
    if (a != b)
        fail(what, elem, n, a);
}

/* Element j of kind elem: from a small alphabet (`dense`: v is kept often) or
 * a wide one (the sparse windows); floats include NaN, infinities and both
 * zeros, so that v = 0.0 keeps -0.0 and nothing keeps NaN. */
static void fill(sf_elem elem, unsigned char *x, size_t n, int dense) {
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 2.5, NAN, INFINITY, -INFINITY};
    const size_t size = sf_elem_size(elem);
    for (size_t j = 0; j < n; j++) {
        const uint64_t r = rnd();
        const uint64_t u = dense ? r % 8 : r % 4096;
        if (elem == SF_F32) {
            const float f = dense ? (float)special[u] : (float)u;
            memcpy(x + 4 * j, &f, 4);
        } else if (elem == SF_F64) {
            const double d = dense ? special[u] : (double)u;
            memcpy(x + 8 * j, &d, 8);
        } else {
            memcpy(x + size * j, &u, size); /* little-endian: the low bytes */
        }
    }
}

/* The range [v, v] of element j of x (or 0 when n is 0). */
static sf_range range_of(sf_elem elem, const unsigned char *x, size_t n, size_t j) {
    sf_range r = {0, 0, 0.0, 0.0, 0};
    if (!n)
        return r;
    const size_t size = sf_elem_size(elem);
    if (elem == SF_F32) {
        float f;
        memcpy(&f, x + 4 * j, 4);
        r.flo = r.fhi = f;
    } else if (elem == SF_F64) {
        memcpy(&r.flo, x + 8 * j, 8);
        r.fhi = r.flo;
    } else {
        memcpy(&r.lo, x + size * j, size);
        r.hi = r.lo;
    }
    if (isnan(r.flo)) /* NaN is no range bound: 0.0 instead */
        r.flo = r.fhi = 0.0;
    return r;
}

static void check(const sf_kernel *a, const sf_kernel *b, sf_elem e, size_t n, int dense) {
    const size_t size = sf_elem_size(e), cap = n + 64;
    unsigned char *x = calloc(cap, 8), *va = calloc(cap, 8), *vb = calloc(cap, 8);
    uint8_t *valid = calloc(cap / 8 + 1, 1);
    uint64_t *pos = calloc(cap, 8);
    uint32_t *pos32 = calloc(cap, 4);
    fill(e, x, n, dense);
    for (size_t j = 0; j < cap / 8 + 1; j++)
        valid[j] = (uint8_t)rnd();
    const sf_range r = range_of(e, x, n, n ? (size_t)(rnd() % n) : 0);
    const uint32_t base = (uint32_t)(rnd() % 1000);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (rnd() % 3 == 0) {
            pos[m] = base + j;
            pos32[m++] = (uint32_t)(base + j);
        }
    size_t ka, kb;
    const int el = (int)e;

    ka = a->index32[e](x, n, &r, base, (uint32_t *)(void *)va);
    kb = b->index32[e](x, n, &r, base, (uint32_t *)(void *)vb);
    same_count("index32 count", el, n, ka, kb);
    same("index32", el, n, va, vb, 4 * ka);
    ka = a->index64[e](x, n, &r, base, (uint64_t *)(void *)va);
    kb = b->index64[e](x, n, &r, base, (uint64_t *)(void *)vb);
    same_count("index64 count", el, n, ka, kb);
    same("index64", el, n, va, vb, 8 * ka);
    ka = a->values[e](x, n, &r, va);
    kb = b->values[e](x, n, &r, vb);
    same_count("values count", el, n, ka, kb);
    same("values", el, n, va, vb, size * ka);
    same_count("count", el, n, a->count[e](x, n, &r), b->count[e](x, n, &r));

    ka = a->index32_valid[e](x, valid, n, &r, base, (uint32_t *)(void *)va);
    kb = b->index32_valid[e](x, valid, n, &r, base, (uint32_t *)(void *)vb);
    same_count("index32_valid count", el, n, ka, kb);
    same("index32_valid", el, n, va, vb, 4 * ka);
    ka = a->index64_valid[e](x, valid, n, &r, base, (uint64_t *)(void *)va);
    kb = b->index64_valid[e](x, valid, n, &r, base, (uint64_t *)(void *)vb);
    same_count("index64_valid count", el, n, ka, kb);
    same("index64_valid", el, n, va, vb, 8 * ka);
    ka = a->values_valid[e](x, valid, n, &r, va);
    kb = b->values_valid[e](x, valid, n, &r, vb);
    same_count("values_valid count", el, n, ka, kb);
    same("values_valid", el, n, va, vb, size * ka);
    same_count("count_valid", el, n, a->count_valid[e](x, valid, n, &r),
               b->count_valid[e](x, valid, n, &r));

    ka = a->within32[e](x, base, pos32, m, &r, (uint32_t *)(void *)va);
    kb = b->within32[e](x, base, pos32, m, &r, (uint32_t *)(void *)vb);
    same_count("within32 count", el, n, ka, kb);
    same("within32", el, n, va, vb, 4 * ka);
    ka = a->within64[e](x, base, pos, m, &r, (uint64_t *)(void *)va);
    kb = b->within64[e](x, base, pos, m, &r, (uint64_t *)(void *)vb);
    same_count("within64 count", el, n, ka, kb);
    same("within64", el, n, va, vb, 8 * ka);

    ka = a->mask8[e](x, n, &r, va);
    kb = b->mask8[e](x, n, &r, vb);
    same_count("mask8 count", el, n, ka, kb);
    same("mask8", el, n, va, vb, n);
    ka = a->bits[e](x, n, &r, va);
    kb = b->bits[e](x, n, &r, vb);
    same_count("bits count", el, n, ka, kb);
    same("bits", el, n, va, vb, (n + 7) / 8);
    ka = a->mask8_valid[e](x, valid, n, &r, va);
    kb = b->mask8_valid[e](x, valid, n, &r, vb);
    same_count("mask8_valid count", el, n, ka, kb);
    same("mask8_valid", el, n, va, vb, n);
    ka = a->bits_valid[e](x, valid, n, &r, va);
    kb = b->bits_valid[e](x, valid, n, &r, vb);
    same_count("bits_valid count", el, n, ka, kb);
    same("bits_valid", el, n, va, vb, (n + 7) / 8);

    sf_range rs[3] = {r, range_of(e, x, n, n ? n - 1 : 0), range_of(e, x, n, n / 2)};
    for (int every = 0; every < 2; every++) {
        ka = a->bits_ranges[e](x, n, rs, 3, every, va);
        kb = b->bits_ranges[e](x, n, rs, 3, every, vb);
        same_count("bits_ranges count", el, n, ka, kb);
        same("bits_ranges", el, n, va, vb, (n + 7) / 8);
    }
    free(x), free(va), free(vb), free(valid), free(pos), free(pos32);
}

int main(void) {
    static const size_t longer[] = {255, 256, 257, 1000, 2047, 2048, 2049, 4159, 6161, 20000};
    rng_seed(44);
    const sf_kernel *a = &TEST_RANGE, *b = &TEST_EQ;
    for (int e = 0; e < SF_ELEM_COUNT; e++) {
        if (!a->index32[e] || !b->index32[e])
            continue;
        for (int dense = 0; dense < 2; dense++) {
            for (size_t n = 0; n <= 130; n++)
                check(a, b, (sf_elem)e, n, dense);
            for (size_t j = 0; j < sizeof longer / sizeof longer[0]; j++)
                check(a, b, (sf_elem)e, longer[j], dense);
        }
    }
    printf("predicate %s: %zu checks\n", TEST_KERNEL, checks);
    return 0;
}
