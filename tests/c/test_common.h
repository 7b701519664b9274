/*
 * What the C test programs share: tests/c/test_kernels.c, tests/c/test_driver.c
 * and tests/c/fuzz_kernels.c. Header-only (static inline), so each program stays a
 * single translation unit and the builds need nothing more than this file next
 * to them.
 *
 *   - the names of the operations (sf_op), as the output lines print them;
 *   - a seeded random number generator (xoshiro256**, seeded through splitmix64);
 *   - element access: loading and storing unsigned integers of a size, or
 *     elements of a kind; float bits <-> double;
 *   - spec_keep, the range rule of simdfilter.h that every kernel is tested against;
 *   - memory between PROT_NONE guard pages.
 *
 * Each program includes it once; anything it leaves unused costs nothing. Define
 * _DEFAULT_SOURCE before the first #include (mmap's MAP_ANONYMOUS).
 */
#ifndef SIMDFILTER_TEST_COMMON_H
#define SIMDFILTER_TEST_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "simdfilter.h"

/* The operations' names, indexed by sf_op. */
static const char *const op_names[SF_OP_COUNT_OF_OPS] = {
    [SF_OP_INDEX32] = "index32", [SF_OP_INDEX64] = "index64",
    [SF_OP_VALUES] = "values", [SF_OP_COUNT] = "count", [SF_OP_MASK8] = "mask8",
    [SF_OP_BITS] = "bits"};

/* ---- Random numbers: xoshiro256**, seeded through splitmix64 -------------- */

static uint64_t rng_s[4];

static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline void rng_seed(uint64_t seed) {
    for (int i = 0; i < 4; i++)
        rng_s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rnd(void) {
    const uint64_t result = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return result;
}

/* Uniform in [0, n); n == 0 means the whole 64-bit range. The modulo bias is
 * irrelevant for test-case generation. */
static inline uint64_t below(uint64_t n) { return n ? rnd() % n : rnd(); }
static inline int chance(unsigned percent) { return below(100) < percent; }

/* ---- Element access ---------------------------------------------------------- */

static inline int is_float(sf_elem e) { return e == SF_F32 || e == SF_F64; }

/* The bits an element of kind k has: all ones in its low 8 * size bits. */
static inline uint64_t width_mask(sf_elem k) {
    const size_t size = sf_elem_size(k);
    return size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
}

/* v (the low bits of an element of kind k) read as two's complement. */
static inline int64_t as_signed(sf_elem k, uint64_t v) {
    const unsigned sh = 64 - 8 * (unsigned)sf_elem_size(k);
    return (int64_t)(v << sh) >> sh; /* arithmetic shift: implementation-defined, GCC/Clang sign-extend */
}

/* x[i] of an array of `size`-byte unsigned integers (1, 2, 4, else 8), native
 * byte order, zero-extended. memcpy: any alignment. */
static inline uint64_t load_uint(size_t size, const void *x, size_t i) {
    const unsigned char *p = (const unsigned char *)x + i * size;
    switch (size) {
    case 1: return *p;
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

/* x[i] = bits, truncated to `size` bytes. */
static inline void store_uint(size_t size, void *x, size_t i, uint64_t bits) {
    unsigned char *p = (unsigned char *)x + i * size;
    switch (size) {
    case 1: *p = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
    default: memcpy(p, &bits, 8); break;
    }
}

/* The same by element kind: the bit pattern of x[i], zero-extended. */
static inline uint64_t load_bits(sf_elem k, const void *x, size_t i) {
    return load_uint(sf_elem_size(k), x, i);
}

static inline void store_bits(sf_elem k, void *x, size_t i, uint64_t bits) {
    store_uint(sf_elem_size(k), x, i, bits);
}

/* The value of float bits of kind k, widened exactly to double. */
static inline double fval(sf_elem k, uint64_t bits) {
    if (k == SF_F32) {
        uint32_t b = (uint32_t)bits;
        float f;
        memcpy(&f, &b, 4);
        return (double)f;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* The bits of v as a float of kind k (SF_F32: v rounded to float first). */
static inline uint64_t fbits(sf_elem k, double v) {
    if (k == SF_F32) {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

/* ---- The specification ----------------------------------------------------- */

/*
 * Whether a kernel keeps the element with bit pattern `bits` of kind k for the
 * range r. This is the specification the kernels are tested against: an
 * independent transcription of the wording of sf_range in simdfilter.h, kept
 * deliberately naive and sharing nothing with any kernel. Change it only if
 * that wording changes.
 *
 * Integers keep x when (x - lo) mod 2^w <= (hi - lo) mod 2^w (w = element width
 * in bits); floats when flo <= x && x <= fhi with IEEE ordered compares, so NaN
 * never matches and -0.0 == 0.0 (F32 bounds are exact floats, so comparing the
 * values widened to double is the same compare). With `invert`, a kernel keeps
 * exactly the elements those rules do not (NaN included).
 */
static inline int spec_in(sf_elem k, uint64_t bits, const sf_range *r) {
    if (is_float(k)) {
        const double v = fval(k, bits);
        return r->flo <= v && v <= r->fhi;
    }
    const uint64_t m = width_mask(k);
    return ((bits - r->lo) & m) <= ((r->hi - r->lo) & m);
}
static inline int spec_keep(sf_elem k, uint64_t bits, const sf_range *r) {
    return r->invert ? !spec_in(k, bits, r) : spec_in(k, bits, r);
}

/* Whether several ranges keep v: it is in any of them, or (every) in each
 * one, as sf_query's more/every and the kernels' bits_ranges say. */
static inline int spec_keep_ranges(sf_elem k, uint64_t v, const sf_range *r, size_t count,
                                   int every) {
    for (size_t j = 0; j < count; j++)
        if (spec_keep(k, v, &r[j]) != every)
            return !every;
    return every;
}

/* Whether an integer range covers every value of its width: inverted, it may
 * not go to a kernel (nothing is outside it). */
static inline int spec_full(sf_elem k, const sf_range *r) {
    return !is_float(k) && ((r->hi - r->lo) & width_mask(k)) == width_mask(k);
}

/* ---- The masks' outputs ------------------------------------------------------- */

/* Result i of a mask op's output (a byte, or bit i LSB first). */
static inline unsigned mask_result(sf_op op, const unsigned char *out, size_t i) {
    return op == SF_OP_BITS ? (out[i / 8] >> (i % 8)) & 1u : out[i];
}

/* The first place where a mask op's output of n results differs from the
 * expected 0/1 of want(i, ctx), a bit past n in the last byte of a bits output
 * counting as expected 0; (size_t)-1 if none. */
static inline size_t mask_mismatch(sf_op op, const unsigned char *out, size_t n,
                                   int (*want)(size_t i, const void *ctx), const void *ctx) {
    const size_t end = op == SF_OP_BITS ? 8 * ((n + 7) / 8) : n;
    for (size_t i = 0; i < end; i++)
        if (mask_result(op, out, i) != (unsigned)(i < n && want(i, ctx)))
            return i;
    return (size_t)-1;
}

/* ---- Guarded memory ------------------------------------------------------------ */

/* [PROT_NONE page][usable, a whole number of pages][PROT_NONE page]: a read or
 * write past either end of the usable bytes faults. */
typedef struct {
    unsigned char *base; /* first usable byte */
    size_t size;         /* usable bytes */
} guarded_mem;

/* Maps at least min_size usable bytes (one page at least), readable and
 * writable, between two guard pages of `page` bytes. Returns NULL, or what
 * failed ("mmap of N bytes", "mprotect") with errno saying why. */
static inline const char *guarded_new(guarded_mem *g, size_t min_size, size_t page) {
    static char what[64];
    g->size = (min_size + page - 1) / page * page;
    if (g->size == 0)
        g->size = page;
    const size_t total = g->size + 2 * page;
    unsigned char *m = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        g->base = NULL;
        snprintf(what, sizeof what, "mmap of %zu bytes", total);
        return what;
    }
    g->base = m + page;
    return mprotect(g->base, g->size, PROT_READ | PROT_WRITE) ? "mprotect" : NULL;
}

static inline void guarded_free(guarded_mem *g, size_t page) {
    munmap(g->base - page, g->size + 2 * page);
    g->base = NULL;
}

#endif /* SIMDFILTER_TEST_COMMON_H */
