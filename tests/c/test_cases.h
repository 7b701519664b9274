/*
 * Random cases for tests/c/test_kernels.c: ranges of every shape in the data's
 * own order, elements biased toward the bounds and their neighbours, float
 * specials (signed zeros, infinities, subnormals, NaNs), and data of a
 * selectivity drawn per case. Header-only, like test_common.h, whose random
 * numbers and element access it uses.
 */
#ifndef SIMDFILTER_TEST_CASES_H
#define SIMDFILTER_TEST_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "simdfilter.h"
#include "test_common.h"

/* ---- Float values worth having ------------------------------------------- */

static inline int fis_nan(sf_elem k, uint64_t b) {
    return k == SF_F32 ? (b & 0x7FFFFFFFu) > 0x7F800000u
                       : (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

/* The next float above (dir > 0) or below, by bits; infinities stay put. */
static inline uint64_t fstep(sf_elem k, uint64_t b, int dir) {
    const uint64_t sign = k == SF_F32 ? 0x80000000u : 0x8000000000000000ull;
    const uint64_t inf = k == SF_F32 ? 0x7F800000u : 0x7FF0000000000000ull;
    if ((b & ~sign) == inf)
        return b;
    if (dir < 0)
        return fstep(k, b ^ sign, 1) ^ sign; /* down(x) = -up(-x) */
    if (b == sign)
        return 1; /* up from -0.0 is the smallest positive subnormal */
    return (b & sign) ? b - 1 : b + 1;
}

/* Bits of a special value: signed zeros, infinities, subnormals, extremes. */
static inline uint64_t fspecial(sf_elem k, int include_nan) {
    static const uint32_t s32[] = {
        0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x00000001u, 0x80000001u,
        0x007FFFFFu, 0x807FFFFFu, 0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu,
        0x3F800000u, 0xBF800000u, 0x00400000u, 0x4F000000u /* 2^31 */, 0x4F800000u /* 2^32 */};
    static const uint64_t s64[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
        0xFFF0000000000000ull, 0x0000000000000001ull, 0x8000000000000001ull,
        0x000FFFFFFFFFFFFFull, 0x800FFFFFFFFFFFFFull, 0x0010000000000000ull,
        0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull,
        0x3FF0000000000000ull, 0xBFF0000000000000ull, 0x0008000000000000ull,
        0x41DFFFFFFFC00000ull /* 2^31 - 1 */, 0x41F0000000000000ull /* 2^32 */};
    static const uint32_t n32[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7FFFFFFFu, 0xFFFFFFFFu};
    static const uint64_t n64[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                   0x7FF0000000000001ull, 0x7FFFFFFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFFFFFull};
    if (include_nan && chance(25))
        return k == SF_F32 ? n32[below(5)] : n64[below(5)];
    return k == SF_F32 ? s32[below(sizeof s32 / sizeof s32[0])]
                       : s64[below(sizeof s64 / sizeof s64[0])];
}

/* Any float, NaN included: specials, small "human" numbers, or random bits
 * (which span every exponent). */
static inline uint64_t fany(sf_elem k) {
    switch (below(4)) {
    case 0: return fspecial(k, 1);
    case 1: return fbits(k, ((double)below(2001) - 1000.0) / 8.0);
    default: return rnd() & width_mask(k);
    }
}

/* ---- Test cases ----------------------------------------------------------- */

static inline uint64_t int_bound(sf_elem k) {
    const uint64_t m = width_mask(k), s = (m >> 1) + 1; /* s: the sign bit */
    const uint64_t pool[] = {0, 1, 2, m, m - 1, m - 2, s, s - 1, s + 1,
                             0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull, 0x100000000ull};
    switch (below(3)) {
    case 0: return pool[below(sizeof pool / sizeof pool[0])] & m;
    case 1: return below(300) & m;
    default: return rnd() & m;
    }
}

/* A non-empty range in the data's own order: unsigned data, or signed data
 * (whose bit patterns may have lo > hi as unsigned), or floats. The unused half
 * of sf_range holds junk: a kernel must not read it. */
static inline void make_range(sf_elem k, sf_range *r, const char **shape) {
    memset(r, 0, sizeof *r);
    if (!is_float(k)) {
        const uint64_t m = width_mask(k);
        uint64_t lo = int_bound(k), hi = chance(15) ? lo : int_bound(k);
        int sign_order = chance(40);
        if (chance(5)) {
            lo = sign_order ? (m >> 1) + 1 : 0; /* the whole domain */
            hi = sign_order ? m >> 1 : m;
        } else if (chance(15)) {
            hi = (lo + below(40)) & m; /* narrow: the typical case */
        }
        if (sign_order ? as_signed(k, lo) > as_signed(k, hi) : lo > hi) {
            uint64_t t = lo;
            lo = hi;
            hi = t;
        }
        r->lo = lo;
        r->hi = hi;
        r->flo = fval(SF_F64, rnd()); /* junk, maybe NaN */
        r->fhi = fval(SF_F64, rnd());
        *shape = lo == hi ? "lo == hi" : sign_order ? "signed order" : "unsigned order";
        return;
    }
    uint64_t a, b;
    switch (below(10)) {
    case 0: a = fspecial(k, 0), b = a; break;
    case 1: a = fbits(k, 0.0), b = fbits(k, -0.0); break; /* [+0, -0]: equal, not empty */
    case 2: a = fbits(k, -0.0), b = fbits(k, 0.0); break;
    case 3: a = fspecial(k, 0), b = fspecial(k, 0); break;
    case 4: a = fstep(k, fspecial(k, 0), chance(50) ? 1 : -1), b = fany(k); break;
    default: a = fany(k), b = chance(15) ? a : fany(k); break;
    }
    if (fis_nan(k, a))
        a = fspecial(k, 0);
    if (fis_nan(k, b))
        b = fspecial(k, 0);
    if (fval(k, a) > fval(k, b)) {
        uint64_t t = a;
        a = b;
        b = t;
    }
    r->flo = fval(k, a);
    r->fhi = fval(k, b);
    r->lo = rnd(); /* junk */
    r->hi = rnd();
    *shape = a == b ? "lo == hi" : "float";
    if (chance(3)) { /* NaN bounds: nothing inside (everything, inverted) */
        r->flo = r->fhi = fval(SF_F64, 0x7FF8000000000000ull);
        *shape = "NaN bounds";
    }
}

/* make_range's range, inverted one time in three (not an integer range that
 * covers its width: nothing is outside it, and the contract keeps it from the
 * kernels). */
static inline void make_range_any(sf_elem k, sf_range *r, const char **shape) {
    make_range(k, r, shape);
    r->invert = chance(33) && !spec_full(k, r);
}

/* One element that the range keeps (want_in) or rejects (by spec_keep: an
 * inverted range keeps what it rejects plain), biased toward the
 * bounds and their neighbours; falls back to the other sort of element only
 * when none exists (an integer range covering everything). */
static inline uint64_t make_elem(sf_elem k, const sf_range *r_, int want_in) {
    /* Inverted: an element the plain range rejects. */
    sf_range plain = *r_;
    const sf_range *r = &plain;
    want_in = r_->invert ? !want_in : want_in;
    plain.invert = 0;
    if (!is_float(k)) {
        const uint64_t m = width_mask(k), span = (r->hi - r->lo) & m;
        if (want_in || span == m) {
            if (chance(20))
                return chance(50) ? r->lo & m : r->hi & m;
            return (r->lo + (span == ~0ull ? rnd() : below(span + 1))) & m;
        }
        if (chance(20))
            return chance(50) ? (r->lo - 1) & m : (r->hi + 1) & m;
        return (r->hi + 1 + below(m - span)) & m; /* m - span = number of outsiders */
    }
    const uint64_t lo = fbits(k, r->flo), hi = fbits(k, r->fhi);
    for (int tries = 0; tries < 6; tries++) {
        uint64_t c;
        if (want_in) {
            switch (below(6)) {
            case 0: c = lo; break;
            case 1: c = hi; break;
            case 2: c = fstep(k, lo, 1); break;
            case 3: c = fstep(k, hi, -1); break;
            case 4: c = chance(50) ? fbits(k, 0.0) : fbits(k, -0.0); break;
            default: {
                double u = (double)below(1u << 20) / (double)(1u << 20);
                c = fbits(k, r->flo * (1.0 - u) + r->fhi * u);
                break;
            }
            }
        } else {
            switch (below(5)) {
            case 0: c = fspecial(k, 1); break;
            case 1: c = fstep(k, lo, -1); break;
            case 2: c = fstep(k, hi, 1); break;
            default: c = fany(k); break;
            }
        }
        if (spec_keep(k, c, r) == want_in)
            return c;
    }
    return want_in ? lo : (k == SF_F32 ? 0x7FC00000u : 0x7FF8000000000000ull);
}

/* Clustered data in regions of whole 32-element blocks counted from x[0] (the
 * blocks of the x86 kernels' sparse path and the windows built from them: a
 * 256-element probe, then 2048): each region keeps nothing, exactly one element at the first, the last
 * or a random lane of each of its blocks, 0.2%, 50% or everything, so that one
 * call runs empty, nearly empty and dense blocks and windows one after the
 * other (and a window's choice of loop changes within the call). */
static inline void fill_clustered(sf_elem k, void *x, size_t n, const sf_range *r, char *desc,
                                  size_t cap) {
    for (size_t i = 0; i < n;) {
        const size_t len = 32 * (1 + (size_t)below(chance(50) ? 8 : 160));
        const unsigned kind = (unsigned)below(7);
        for (size_t j = 0; j < len && i < n; j++, i++) {
            const size_t lane = i % 32;
            int in;
            switch (kind) {
            case 0: in = 0; break;
            case 1: in = lane == 0; break;
            case 2: in = lane == 31; break;
            case 3: in = lane == (size_t)((i / 32) * 7 % 32); break;
            case 4: in = below(500) == 0; break;
            case 5: in = chance(50); break;
            default: in = 1; break;
            }
            store_bits(k, x, i, make_elem(k, r, in));
        }
    }
    snprintf(desc, cap, "clustered in 32-element blocks");
}

/* Fill x[0, n) with a selectivity drawn per case, sometimes in long runs (which
 * exercise all-in / all-out whole-vector paths), sometimes sprinkled with
 * specials regardless of the range. */
static inline void fill_data(sf_elem k, void *x, size_t n, const sf_range *r, char *desc, size_t cap) {
    static const unsigned pct[] = {0, 1, 5, 25, 50, 75, 95, 99, 100};
    const unsigned p = pct[below(sizeof pct / sizeof pct[0])];
    const int runs = chance(20), sprinkle = is_float(k) ? chance(50) : chance(10);
    int in = chance(p);
    for (size_t i = 0; i < n; i++) {
        if (runs) {
            if (below(64) == 0)
                in = !in;
        } else {
            in = chance(p);
        }
        uint64_t v = make_elem(k, r, in);
        if (sprinkle && chance(5))
            v = is_float(k) ? fspecial(k, 1) : int_bound(k);
        store_bits(k, x, i, v);
    }
    snprintf(desc, cap, "%s%u%% in range%s", runs ? "runs, " : "", runs ? 50 : p,
             sprinkle ? ", specials sprinkled" : "");
}

#endif /* SIMDFILTER_TEST_CASES_H */
