/*
 * Exact bounds: a caller's bounds, as numbers, turned into the inclusive range a
 * kernel tests (sf_range). Compared mathematically, never wrapped or rounded.
 * The arithmetic is done on 128-bit integers, wide enough for every 64-bit
 * domain and its +-1 steps.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "library.h"

#ifndef __SIZEOF_INT128__
#error "simdfilter's bound arithmetic needs a compiler with __int128 (GCC or Clang, 64-bit)"
#endif
typedef __int128 wide;

/* Beyond every 64-bit domain, with room for a +-1 step on either side. */
static const wide BEYOND = (wide)1 << 70;

typedef struct domain {
    int is_float;
    wide min, max; /* integer types: the values the type holds (NaT excluded) */
} domain;

static int type_domain(sf_type t, domain *d) {
    static const domain domains[SF_TYPE_COUNT] = {
        [SF_T_BOOL] = {0, 0, 1},
        [SF_T_U8] = {0, 0, UINT8_MAX},
        [SF_T_U16] = {0, 0, UINT16_MAX},
        [SF_T_U32] = {0, 0, UINT32_MAX},
        [SF_T_U64] = {0, 0, UINT64_MAX},
        [SF_T_I8] = {0, INT8_MIN, INT8_MAX},
        [SF_T_I16] = {0, INT16_MIN, INT16_MAX},
        [SF_T_I32] = {0, INT32_MIN, INT32_MAX},
        [SF_T_I64] = {0, INT64_MIN, INT64_MAX},
        [SF_T_TIME64] = {0, (wide)INT64_MIN + 1, INT64_MAX},
        [SF_T_F32] = {1, 0, 0},
        [SF_T_F64] = {1, 0, 0},
    };
    if ((unsigned)t >= SF_TYPE_COUNT)
        return -1;
    *d = domains[t];
    return 0;
}

/* An integer bound as a wide integer; 0 if it is no integer. */
static int exact_integer(const sf_bound *b, wide *out) {
    switch (b->kind) {
    case SF_BOUND_INT: *out = b->i; return 1;
    case SF_BOUND_UINT: *out = b->u; return 1;
    case SF_BOUND_HUGE: *out = b->i < 0 ? -BEYOND : BEYOND; return 1;
    default: return 0;
    }
}

/* The inclusive integer bound: `lower` for the low end, `closed` if the bound
 * itself is in the range. Returns 0 for a NaN bound (an empty range). */
static int integer_bound(const sf_bound *b, int lower, int closed, const domain *d,
                         wide *out) {
    wide w;
    if (b->kind == SF_BOUND_NONE) {
        *out = lower ? d->min : d->max;
        return 1;
    }
    if (!exact_integer(b, &w)) {
        double f = b->f;
        if (isnan(f))
            return 0;
        /* x >= f  <=>  x >= ceil(f) for integers x; x > f  <=>  x >= floor(f) + 1.
         * The +-1 is done on integers below: in doubles it vanishes beyond 2^53. */
        double g = (lower == closed) ? ceil(f) : floor(f);
        if (g >= 0x1p70)
            w = BEYOND;
        else if (g <= -0x1p70)
            w = -BEYOND;
        else
            w = (wide)g; /* integral and in range: exact */
    }
    *out = closed ? w : (lower ? w + 1 : w - 1);
    return 1;
}

/* The smallest float32 >= d (lower) or largest float32 <= d (upper), made strict
 * when the bound is open. Returns 0 when no float32 qualifies. */
static int f32_bound(double d, int lower, int closed, double *out) {
    float f;
    /* Out of float's finite range: the nearest candidates, chosen by hand
     * because (float)d is undefined there in ISO C. */
    if (d > FLT_MAX)
        f = lower || isinf(d) ? INFINITY : FLT_MAX;
    else if (d < -FLT_MAX)
        f = !lower || isinf(d) ? -INFINITY : -FLT_MAX;
    else
        f = (float)d;
    if (lower) {
        if ((double)f < d || (!closed && (double)f <= d))
            f = nextafterf(f, INFINITY);
        if ((double)f < d || (!closed && (double)f <= d))
            return 0; /* only at +inf */
    } else {
        if ((double)f > d || (!closed && (double)f >= d))
            f = nextafterf(f, -INFINITY);
        if ((double)f > d || (!closed && (double)f >= d))
            return 0;
    }
    *out = f;
    return 1;
}

static int f64_bound(double d, int lower, int closed, double *out) {
    double f = d;
    if (!closed)
        f = nextafter(d, lower ? INFINITY : -INFINITY);
    if (lower ? (f < d || (!closed && f <= d)) : (f > d || (!closed && f >= d)))
        return 0; /* open at +-inf: nothing beyond it */
    *out = f;
    return 1;
}

/* An integer beyond 2^53 on float data, as the double that stands for it: the
 * integer itself when a double holds it; otherwise it lies strictly between
 * two neighbouring doubles, and "x >= w" means "x >= the upper neighbour" for
 * every float (float32 values are doubles too), "x <= w" the lower one, closed
 * either way. (double)w is within one step of w; the steps are checked
 * exactly on integers (every such double is an integer below 2^65). */
static double integer_as_double(wide w, int lower, int *closed) {
    double d = (double)w;
    const wide back = (wide)d;
    if (back == w)
        return d;
    *closed = 1;
    if (lower && back < w)
        d = nextafter(d, INFINITY);
    else if (!lower && back > w)
        d = nextafter(d, -INFINITY);
    return d;
}

/* A float-data bound as a double, exactly (*closed may become 1, see
 * integer_as_double). Returns SF_RANGE_OK, SF_RANGE_EMPTY (NaN) or
 * SF_RANGE_INEXACT (an integer beyond the 64-bit ranges: its value is not
 * here). */
static int float_bound(const sf_bound *b, int lower, int *closed, double *out) {
    wide w;
    if (b->kind == SF_BOUND_NONE) {
        *out = lower ? -INFINITY : INFINITY;
        *closed = 1; /* an unbounded end is closed at infinity, whatever the caller said */
        return SF_RANGE_OK;
    }
    if (b->kind == SF_BOUND_HUGE)
        return SF_RANGE_INEXACT;
    if (exact_integer(b, &w)) {
        *out = w > ((wide)1 << 53) || w < -((wide)1 << 53) ? integer_as_double(w, lower, closed)
                                                           : (double)w;
        return SF_RANGE_OK;
    }
    *out = b->f;
    return isnan(b->f) ? SF_RANGE_EMPTY : SF_RANGE_OK;
}

static int valid_bound(const sf_bound *b) {
    return b && (unsigned)b->kind <= SF_BOUND_HUGE;
}

int sf_resolve_range(sf_type t, const sf_bound *lo, int lo_closed, const sf_bound *hi,
                     int hi_closed, sf_range *out) {
    domain d;
    if (type_domain(t, &d) < 0 || !valid_bound(lo) || !valid_bound(hi) || !out)
        return SF_RANGE_EINVAL;
    memset(out, 0, sizeof *out);
    if (!d.is_float) {
        wide a, b;
        if (!integer_bound(lo, 1, lo_closed, &d, &a) || !integer_bound(hi, 0, hi_closed, &d, &b))
            return SF_RANGE_EMPTY;
        if (a < d.min)
            a = d.min;
        if (b > d.max)
            b = d.max;
        if (a > b)
            return SF_RANGE_EMPTY;
        /* NumPy reads any nonzero byte of a bool array as True (views of uint8
         * data hold such bytes): True is the byte range [1, 255]. */
        if (t == SF_T_BOOL && b == 1)
            b = 0xFF;
        out->lo = (uint64_t)a; /* two's complement bit patterns for signed types */
        out->hi = (uint64_t)b;
        return SF_RANGE_OK;
    }
    double a, b;
    int lc = lo_closed, hc = hi_closed;
    int got = float_bound(lo, 1, &lc, &a);
    if (got == SF_RANGE_OK)
        got = float_bound(hi, 0, &hc, &b);
    if (got != SF_RANGE_OK)
        return got;
    int (*const bound)(double, int, int, double *) = t == SF_T_F32 ? f32_bound : f64_bound;
    if (!bound(a, 1, lc, &out->flo) || !bound(b, 0, hc, &out->fhi) || !(out->flo <= out->fhi))
        return SF_RANGE_EMPTY;
    return SF_RANGE_OK;
}

int sf_resolve_int_items(sf_type t, const void *items, size_t n, int size, int is_signed,
                         sf_range *out, size_t *kept) {
    domain d;
    *kept = 0;
    if (type_domain(t, &d) < 0 || d.is_float || t == SF_T_BOOL ||
        (size != 1 && size != 2 && size != 4 && size != 8))
        return SF_RANGE_EINVAL;
    size_t k = 0;
    /* each item's range as sf_resolve_range makes [v, v] closed: the item, or
     * none when the type holds no such value */
#define SF_INT_ITEMS(T)                                                                  \
    for (size_t i = 0; i < n; i++) {                                                     \
        const wide v = ((const T *)items)[i];                                            \
        if (v >= d.min && v <= d.max) {                                                  \
            out[k] = (sf_range){(uint64_t)v, (uint64_t)v, 0.0, 0.0, 0};                  \
            k++;                                                                         \
        }                                                                                \
    }
    switch (size * 2 + !!is_signed) {
    case 2: SF_INT_ITEMS(uint8_t); break;
    case 3: SF_INT_ITEMS(int8_t); break;
    case 4: SF_INT_ITEMS(uint16_t); break;
    case 5: SF_INT_ITEMS(int16_t); break;
    case 8: SF_INT_ITEMS(uint32_t); break;
    case 9: SF_INT_ITEMS(int32_t); break;
    case 16: SF_INT_ITEMS(uint64_t); break;
    default: SF_INT_ITEMS(int64_t); break;
    }
#undef SF_INT_ITEMS
    *kept = k;
    return SF_RANGE_OK;
}

int sf_invert_range(sf_elem e, int verdict, sf_range *r) {
    const size_t size = sf_elem_size(e);
    if (!size || !r || (verdict != SF_RANGE_OK && verdict != SF_RANGE_EMPTY))
        return SF_RANGE_EINVAL;
    const int is_float = e == SF_F32 || e == SF_F64;
    const uint64_t width = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
    if (verdict == SF_RANGE_EMPTY) {
        /* Outside an empty range is everything: every value of an integer
         * width, plain; for floats, outside a range no value is in (NaN
         * bounds), so NaN too. */
        memset(r, 0, sizeof *r);
        if (is_float) {
            r->flo = r->fhi = NAN;
            r->invert = 1;
        } else {
            r->hi = width;
        }
        return SF_RANGE_OK;
    }
    if (!is_float && ((r->hi - r->lo) & width) == width)
        return SF_RANGE_EMPTY; /* the whole width: nothing is outside */
    r->invert = !r->invert;
    return SF_RANGE_OK;
}

/* ---- Merging ranges ---------------------------------------------------------- */

/* A range's low end as a key in the type's order (signed types: their two's
 * complement patterns read as int64 ticks; floats by value). */
static int by_low_signed(const void *a, const void *b) {
    const int64_t x = (int64_t)((const sf_range *)a)->lo, y = (int64_t)((const sf_range *)b)->lo;
    return (x > y) - (x < y);
}
static int by_low_unsigned(const void *a, const void *b) {
    const uint64_t x = ((const sf_range *)a)->lo, y = ((const sf_range *)b)->lo;
    return (x > y) - (x < y);
}
static int by_low_float(const void *a, const void *b) {
    const double x = ((const sf_range *)a)->flo, y = ((const sf_range *)b)->flo;
    return (x > y) - (x < y);
}

size_t sf_merge_ranges(sf_type t, sf_range *r, size_t k) {
    if (k < 2)
        return k;
    const int is_float = t == SF_T_F32 || t == SF_T_F64, is_signed = sf_type_is_signed(t);
    qsort(r, k, sizeof *r, is_float ? by_low_float : is_signed ? by_low_signed : by_low_unsigned);
    size_t out = 0;
    for (size_t i = 1; i < k; i++) {
        sf_range *last = &r[out];
        int joins;
        if (is_float) {
            joins = r[i].flo <= last->fhi;
            if (joins && r[i].fhi > last->fhi)
                last->fhi = r[i].fhi;
        } else if (is_signed) {
            const int64_t end = (int64_t)last->hi;
            /* starts at or before end + 1 (end + 1 computed only below INT64_MAX) */
            joins = end == INT64_MAX || (int64_t)r[i].lo <= end + 1;
            if (joins && (int64_t)r[i].hi > end)
                last->hi = r[i].hi;
        } else {
            joins = last->hi == UINT64_MAX || r[i].lo <= last->hi + 1;
            if (joins && r[i].hi > last->hi)
                last->hi = r[i].hi;
        }
        if (!joins)
            r[++out] = r[i];
    }
    return out + 1;
}

int sf_range_below(sf_type t, const sf_range *a, const sf_range *b) {
    if (t == SF_T_F32 || t == SF_T_F64)
        return a->fhi < b->flo;
    return sf_type_is_signed(t) ? (int64_t)a->hi < (int64_t)b->lo : a->hi < b->lo;
}

