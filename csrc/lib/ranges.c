/*
 * A query of several ranges (sf_query's more, more_count and every): the
 * elements in any of them, or in every one, in one pass over the data.
 *
 * The data goes by in blocks of SF_RANGES_STEP elements (kernels/bits.h),
 * small enough to stay in the first-level cache. The kernel's bits_ranges
 * compares the block with up to SF_RANGES_AT_ONCE ranges (each vector against
 * every range) and combines their bits (OR for a union, AND for an
 * intersection); more ranges take more passes over the cached block,
 * combined the same way; the validity bits are then ANDed in (bits_ranges
 * does not read nulls). The block's results come from its bits: counted,
 * spread to bytes for a byte mask, or for positions and values read one by
 * one when few are set, else spread to bytes that the kernel's own uint8
 * filter reads. Every step on the data is a kernel op with its scalar twin.
 *
 * bits_ranges beat one pass per range (the figures, with their CPU:
 * lib/README.md). From SF_SET_MIN_RANGES ranges on, a union (or its
 * outside) is a set instead (sf_set_make): each element looked up once, in a
 * bitmap over the ranges' span, or (from SF_SET_SEARCH_MIN_RANGES) in a hash
 * table of single values or by binary search over sorted intervals, whatever
 * the number of ranges; the rest of the way (validity, positions, values,
 * masks) is the same.
 */
#include "library.h"

#include <stdlib.h>
#include <string.h>

#include "../kernels/bits.h" /* SF_RANGES_STEP, sf_combine_bytes, sf_popcount_bytes */

/* The uint8 range of a mask's kept bytes: nonzero. */
static const sf_range NONZERO = {1, 255, 0.0, 0.0, 0};

/* ---- Many ranges as a set ------------------------------------------------------- */

static const sf_range *range_at(const sf_plan *p, size_t j) {
    return j ? &p->more[j - 1] : p->range;
}

/* Intervals ascending by their low end (integers: unsigned order). */
static int by_low_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
static int by_low_f64(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The ranges of an integer plan in a bitmap, if their span from `base` (0:
 * unsigned order, the top bit: signed order) is small enough: 1, 0 when it
 * is not (or no memory). A range is a stretch mod 2^w, and taking `base` off
 * keeps it one, which must not wrap. */
static int bitmap_from(const sf_plan *p, size_t count, uint64_t base, sf_set *s) {
    const uint64_t w = s->width;
    uint64_t lo = w, hi = 0;
    for (size_t j = 0; j < count; j++) {
        const sf_range *r = range_at(p, j);
        const uint64_t a = (r->lo - base) & w, b = (r->hi - base) & w;
        if (a > b)
            return 0;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    const uint64_t most = 64 * (uint64_t)count > SF_SET_BITMAP_MIN ? 64 * (uint64_t)count
                                                                    : SF_SET_BITMAP_MIN;
    if (hi - lo >= most)
        return 0;
    s->base = (base + lo) & w;
    s->bits = hi - lo + 1;
    if (!(s->bitmap = (uint64_t *)calloc((size_t)(s->bits + 63) / 64, 8)))
        return 0;
    for (size_t j = 0; j < count; j++) {
        const sf_range *r = range_at(p, j);
        const uint64_t a = (r->lo - s->base) & w, b = (r->hi - s->base) & w;
        for (uint64_t d = a; d <= b;) {
            if (d % 64 == 0 && b - d >= 63) { /* a whole word */
                s->bitmap[d / 64] = UINT64_MAX;
                d += 64;
            } else {
                s->bitmap[d / 64] |= (uint64_t)1 << (d % 64);
                d++;
            }
        }
    }
    return 1;
}

/* The integer ranges as sorted disjoint intervals (a range that wraps past
 * the width's top split in two). 1, or 0 for no memory. */
static int int_intervals(const sf_plan *p, size_t count, sf_set *s) {
    const uint64_t w = s->width;
    uint64_t *e = (uint64_t *)malloc(4 * count * sizeof *e);
    if (!e)
        return 0;
    size_t k = 0;
    int sorted = 1;
    for (size_t j = 0; j < count; j++) {
        /* a signed type's bounds may carry its sign past the width */
        const uint64_t lo = range_at(p, j)->lo & w, hi = range_at(p, j)->hi & w;
        if (lo <= hi) {
            e[2 * k] = lo;
            e[2 * k + 1] = hi;
            k++;
        } else {
            e[2 * k] = 0;
            e[2 * k + 1] = hi;
            e[2 * k + 2] = lo;
            e[2 * k + 3] = w;
            k += 2;
        }
    }
    for (size_t i = 1; i < k; i++)
        sorted &= e[2 * (i - 1)] <= e[2 * i];
    if (!sorted)
        qsort(e, k, 2 * sizeof *e, by_low_u64);
    size_t out = 0;
    for (size_t i = 1; i < k; i++) {
        uint64_t *last = e + 2 * out;
        if (last[1] == w || e[2 * i] <= last[1] + 1) { /* overlaps or touches */
            if (e[2 * i + 1] > last[1])
                last[1] = e[2 * i + 1];
        } else {
            out++;
            e[2 * out] = e[2 * i];
            e[2 * out + 1] = e[2 * i + 1];
        }
    }
    s->ends = e;
    s->k = k ? out + 1 : 0;
    return 1;
}

/* The float ranges as sorted disjoint intervals; a range of NaN bounds holds
 * nothing and is left out. 1, or 0 for no memory. */
static int float_intervals(const sf_plan *p, size_t count, sf_set *s) {
    double *e = (double *)malloc(2 * count * sizeof *e);
    if (!e)
        return 0;
    size_t k = 0;
    int sorted = 1;
    for (size_t j = 0; j < count; j++) {
        const sf_range *r = range_at(p, j);
        if (!(r->flo <= r->fhi))
            continue;
        e[2 * k] = r->flo;
        e[2 * k + 1] = r->fhi;
        k++;
        sorted &= k < 2 || e[2 * (k - 2)] <= e[2 * (k - 1)];
    }
    if (!sorted)
        qsort(e, k, 2 * sizeof *e, by_low_f64);
    size_t out = 0;
    for (size_t i = 1; i < k; i++) {
        double *last = e + 2 * out;
        if (e[2 * i] <= last[1]) {
            if (e[2 * i + 1] > last[1])
                last[1] = e[2 * i + 1];
        } else {
            out++;
            e[2 * out] = e[2 * i];
            e[2 * out + 1] = e[2 * i + 1];
        }
    }
    s->fends = e;
    s->k = k ? out + 1 : 0;
    return 1;
}

/* A value's key in the hash table: integers as they are; floats as the bits of
 * the double, -0.0 as 0.0 (equal to it). */
static inline uint64_t float_key(double v) {
    uint64_t key;
    v = v == 0 ? 0.0 : v;
    memcpy(&key, &v, 8);
    return key;
}

static inline size_t slot_of(const sf_set *s, uint64_t key) {
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> s->shift); /* Fibonacci hashing */
}

/* A table in cache is read without a branch on the keys: each key lies within
 * SF_SET_WINDOW slots of its own, so a lookup compares that many slots, all
 * of them (the table has SF_SET_WINDOW - 1 slots past its last, and probing
 * never wraps). Probing until an empty slot mispredicts a branch or two a
 * lookup: 10^7 int64 against 100 items over [0, 2^62) took 90 ms that way,
 * 37 with windows of 8 slots and 29.5 with 4 (10^4 items: 72 and 40; AMD EPYC
 * Zen 3, family 25 model 1). A table that keeps a key farther than that
 * doubles, up to 2^SF_SET_WINDOW_MAX_LG slots (512 KiB, below where lookups
 * prefetch); past it lookups probe as usual. */
#define SF_SET_WINDOW 4
#define SF_SET_WINDOW_MAX_LG 16

/* The keys into a table of 2^lg slots (s->shift set, the slots marked empty):
 * 1, or 0 when `window` and a key would lie SF_SET_WINDOW or more slots past
 * its own. */
static int fill_table(const sf_plan *p, size_t count, int is_float, int window, sf_set *s) {
    const size_t slots = ((size_t)1 << (64 - s->shift)), last = slots - 1;
    for (size_t j = 0; j < count; j++) {
        const sf_range *r = range_at(p, j);
        if (is_float && r->flo != r->flo)
            continue;
        const uint64_t key = is_float ? float_key(r->flo) : r->lo & s->width;
        if (key == s->empty) {
            s->had_empty = 1;
            continue;
        }
        const size_t own = slot_of(s, key);
        size_t i = own;
        while (s->table[i] != s->empty && s->table[i] != key) {
            i = window ? i + 1 : (i + 1) & last;
            if (window && i - own >= SF_SET_WINDOW)
                return 0;
        }
        s->table[i] = key;
    }
    return 1;
}

/* Ranges that are each one value (isin's items, unmerged) in a hash table:
 * 1, or 0 when a range holds more than one value (or no memory). A float
 * range of NaN bounds holds nothing and is left out. */
static int hash_from(const sf_plan *p, size_t count, int is_float, sf_set *s) {
    for (size_t j = 0; j < count; j++) {
        const sf_range *r = range_at(p, j);
        if (is_float ? r->flo != r->fhi && !(r->flo != r->flo) : ((r->lo ^ r->hi) & s->width))
            return 0;
    }
    int lg = 4;
    while (((size_t)1 << lg) < 2 * count) /* at most half full */
        lg++;
    s->empty = 0x7FF4DEADBEEF1234u; /* a NaN's bits: never a float key */
    for (;; lg++) {
        s->window = lg <= SF_SET_WINDOW_MAX_LG;
        const size_t slots = ((size_t)1 << lg) + (s->window ? SF_SET_WINDOW - 1 : 0);
        free(s->table);
        if (!(s->table = (uint64_t *)malloc(slots * sizeof *s->table)))
            return 0;
        s->shift = 64 - lg;
        s->had_empty = 0;
        for (size_t i = 0; i < slots; i++)
            s->table[i] = s->empty;
        if (fill_table(p, count, is_float, s->window, s))
            return 1;
    }
}

/* Whether key is in a window table: its SF_SET_WINDOW slots compared, no
 * branch (the empty mark matches free slots: had_empty answers for it). */
static inline unsigned in_window(const sf_set *s, uint64_t key) {
    const uint64_t *t = s->table + slot_of(s, key);
    unsigned hit = 0;
    for (int j = 0; j < SF_SET_WINDOW; j++)
        hit |= t[j] == key;
    return key == s->empty ? (unsigned)s->had_empty : hit;
}

/* Whether key is in the hash table. */
static inline unsigned in_table(const sf_set *s, uint64_t key) {
    const size_t last = ((size_t)1 << (64 - s->shift)) - 1;
    for (size_t i = slot_of(s, key);; i = (i + 1) & last) {
        const uint64_t t = s->table[i];
        if (t == key)
            return key != s->empty || (unsigned)s->had_empty;
        if (t == s->empty)
            return 0;
    }
}

int sf_set_make(const sf_plan *p, sf_set *s) {
    const size_t count = 1 + p->more_count;
    if (count < SF_SET_MIN_RANGES || !p->more) /* the common case, and no cost to it */
        return 0;
    memset(s, 0, sizeof *s);
    const int every = p->every != 0;
    for (size_t j = 0; j < count; j++)
        if ((range_at(p, j)->invert != 0) != every)
            return 0;
    s->negate = every;
    const int is_float = p->elem == SF_F32 || p->elem == SF_F64;
    if (!is_float) {
        const size_t size = sf_elem_size(p->elem);
        s->width = size == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * size)) - 1u;
        const uint64_t top = (s->width >> 1) + 1; /* signed order: the top bit's value off */
        if (bitmap_from(p, count, 0, s) || bitmap_from(p, count, top, s))
            return 1;
    }
    if (count < SF_SET_SEARCH_MIN_RANGES)
        return 0;
    if (hash_from(p, count, is_float, s))
        return 1;
    return is_float ? float_intervals(p, count, s) : int_intervals(p, count, s);
}

void sf_set_free(sf_set *s) {
    free(s->bitmap);
    free(s->table);
    free(s->ends);
    free(s->fends);
    memset(s, 0, sizeof *s);
}

/* Whether x is in the intervals e[0, 2k) (the last one whose low end is at or
 * below x, found without a branch per step, holds it). NaN is in none: every
 * compare with it is false. */
#define SF_SET_SEARCH(name, T)                                                           \
    static inline int name(const T *e, size_t k, T x) {                                  \
        size_t at = 0, n = k;                                                            \
        while (n > 1) {                                                                  \
            const size_t half = n / 2;                                                   \
            at = e[2 * (at + half)] <= x ? at + half : at;                               \
            n -= half;                                                                   \
        }                                                                                \
        return k && e[2 * at] <= x && x <= e[2 * at + 1];                                \
    }
SF_SET_SEARCH(in_ints, uint64_t)
SF_SET_SEARCH(in_floats, double)

/* A hash table past L2: each lookup waits on memory, one at a time when
 * asked in order. So the slot of the element SF_SET_AHEAD further on is asked
 * for first (a prefetch, which never faults), and that many misses are in
 * flight at once. On AMD EPYC Zen 4 (family 25 model 17, 2 cores, 1e7
 * elements, default threads) a table of 10^6 float64 items (2^21 slots) took
 * 129-146 ms against 165-172 without; at 2^15 slots (10^4 items, in L2) the
 * prefetch cost 5% (float64 40 -> 42.6 ms), so it starts at 2^17 slots
 * (1 MiB, Zen 4's L2). A bitmap of 10^7 bits (1.25 MiB) gained nothing from
 * it (int64 49 ms either way): bitmaps do without. */
#define SF_SET_AHEAD 16
#define SF_SET_PREFETCH_MIN_LG 17
static inline void prefetch_slot(const sf_set *s, uint64_t key) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&s->table[slot_of(s, key)]);
#else
    (void)s, (void)key;
#endif
}

/* Bit i of out[0, ceil(n / 8)) = TEST on the element v = x[i] of type T; the
 * bits past n 0. AHEAD (a constant, 0 or 1) prefetches for the element
 * SF_SET_AHEAD on (PREFETCH(s, that element); see above). */
#define SF_SET_BITS(T, AHEAD, PREFETCH, TEST)                                            \
    do {                                                                                 \
        const T *xs = (const T *)x;                                                      \
        for (size_t i = 0; i < n; i += 8) {                                              \
            const size_t m = n - i < 8 ? n - i : 8;                                      \
            unsigned byte = 0;                                                           \
            for (size_t j = 0; j < m; j++) {                                             \
                if (AHEAD && i + j + SF_SET_AHEAD < n)                                   \
                    PREFETCH(s, xs[i + j + SF_SET_AHEAD]);                               \
                const T v = xs[i + j];                                                   \
                byte |= (unsigned)(TEST) << j;                                           \
            }                                                                            \
            out[i / 8] = (uint8_t)byte;                                                  \
        }                                                                                \
    } while (0)
#define NO_PREFETCH(s, v) ((void)0)
#define SF_F32_KEY(v) float_key((double)(v))
#define SF_F64_KEY(v) float_key(v)
#define PREFETCH_INT(s, v) prefetch_slot(s, (uint64_t)(v))
#define PREFETCH_F32(s, v) prefetch_slot(s, SF_F32_KEY(v))
#define PREFETCH_F64(s, v) prefetch_slot(s, SF_F64_KEY(v))

/* A bitmap lookup: no branch on whether x lies in the span (an index past it
 * reads word 0 and is masked off). */
static inline unsigned in_bitmap(const sf_set *s, uint64_t x) {
    const uint64_t d = (x - s->base) & s->width;
    const int inside = d < s->bits;
    const uint64_t at = inside ? d : 0;
    return (unsigned)(inside & (int)((s->bitmap[at / 64] >> (at % 64)) & 1u));
}

/* The set's bits of n elements of kind e at x (aligned, native), as
 * bits_ranges writes them. */
static void set_bits(const sf_set *s, sf_elem e, const void *x, size_t n, uint8_t *out) {
    const uint64_t *ends = s->ends;
    const size_t k = s->k;
    const int far = s->table && 64 - s->shift >= SF_SET_PREFETCH_MIN_LG;
    /* The far and near forms of one lookup: two expansions, each loop free of
     * a test of `far`. */
#define SF_SET_TABLE(T, PREFETCH, TEST)                                                  \
    do {                                                                                 \
        if (far)                                                                         \
            SF_SET_BITS(T, 1, PREFETCH, TEST);                                           \
        else                                                                             \
            SF_SET_BITS(T, 0, NO_PREFETCH, TEST);                                        \
    } while (0)
#define SF_SET_INTS(T)                                                                   \
    do {                                                                                 \
        if (s->bitmap)                                                                   \
            SF_SET_BITS(T, 0, NO_PREFETCH, in_bitmap(s, v));                             \
        else if (s->window)                                                              \
            SF_SET_BITS(T, 0, NO_PREFETCH, in_window(s, v));                             \
        else if (s->table)                                                               \
            SF_SET_TABLE(T, PREFETCH_INT, in_table(s, v));                               \
        else                                                                             \
            SF_SET_BITS(T, 0, NO_PREFETCH, in_ints(ends, k, v));                         \
    } while (0)
    switch (e) {
    case SF_F32:
        if (s->window) SF_SET_BITS(float, 0, NO_PREFETCH, v == v && in_window(s, SF_F32_KEY(v)));
        else if (s->table) SF_SET_TABLE(float, PREFETCH_F32, v == v && in_table(s, SF_F32_KEY(v)));
        else SF_SET_BITS(float, 0, NO_PREFETCH, in_floats(s->fends, k, (double)v));
        break;
    case SF_F64:
        if (s->window) SF_SET_BITS(double, 0, NO_PREFETCH, v == v && in_window(s, SF_F64_KEY(v)));
        else if (s->table) SF_SET_TABLE(double, PREFETCH_F64, v == v && in_table(s, SF_F64_KEY(v)));
        else SF_SET_BITS(double, 0, NO_PREFETCH, in_floats(s->fends, k, v));
        break;
    case SF_U8: SF_SET_INTS(uint8_t); break;
    case SF_U16: SF_SET_INTS(uint16_t); break;
    case SF_U32: SF_SET_INTS(uint32_t); break;
    default: SF_SET_INTS(uint64_t);
    }
#undef SF_SET_INTS
#undef SF_SET_TABLE
    if (s->negate) {
        const size_t bytes = (n + 7) / 8;
        for (size_t i = 0; i < bytes; i++)
            out[i] = (uint8_t)~out[i];
        if (n % 8) /* the bits past n stay 0 */
            out[bytes - 1] &= (uint8_t)((1u << (n % 8)) - 1u);
    }
}

/* The bits of the block for the ranges first[0, nfirst) and rest[0, nrest):
 * the kernel's bits_ranges, SF_RANGES_AT_ONCE ranges a pass, the passes
 * combined; then the nulls cleared. */
static void bits_of(const sf_plan *p, const sf_range *first, size_t nfirst, const sf_range *rest,
                    size_t nrest, const void *x, const uint8_t *valid, size_t n, uint8_t *m,
                    uint8_t *part) {
    const sf_bits_ranges_fn ranges = p->kernel->bits_ranges[p->elem];
    const size_t bytes = (n + 7) / 8;
    if (p->set) {
        set_bits(p->set, p->elem, x, n, m);
        if (valid)
            sf_combine_bytes(m, valid, bytes, 1);
        return;
    }
    ranges(x, n, first, nfirst, p->every, m);
    for (size_t done = 0; done < nrest; done += SF_RANGES_AT_ONCE) {
        const size_t k = nrest - done < SF_RANGES_AT_ONCE ? nrest - done : SF_RANGES_AT_ONCE;
        ranges(x, n, rest + done, k, p->every, part);
        sf_combine_bytes(m, part, bytes, p->every);
    }
    if (valid)
        sf_combine_bytes(m, valid, bytes, 1);
}

/* Bits [0, n) of `bits` as the bytes 0 and 1 of mask[0, n). */
static void bits_to_bytes(const uint8_t *bits, size_t n, uint8_t *mask) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* The byte copied to all eight lanes, lane j keeping bit j, then each
         * lane's nonzero turned into 1 (adding 0x7f sets its top bit exactly
         * when it is nonzero, with no carry into the next lane). */
        uint64_t w = (uint64_t)bits[i / 8] * 0x0101010101010101u & 0x8040201008040201u;
        w = ((w + 0x7f7f7f7f7f7f7f7fu) & 0x8080808080808080u) >> 7;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w); /* lane j is byte j in memory */
#endif
        memcpy(mask + i, &w, 8);
    }
    for (; i < n; i++)
        mask[i] = (uint8_t)((bits[i / 8] >> (i % 8)) & 1u);
}

/* Room offsets_of_bits needs past a block's last offset. */
#define OFFSETS_SLACK 4

/* The offsets of the set bits of bits[0, bytes) (at most SF_RANGES_STEP / 8
 * bytes), ascending, into at[], which has room for OFFSETS_SLACK more than
 * the bits set: a word's first four offsets are written whatever it holds.
 * There is then no branch on whether a word has any bit set, which at 1 % of
 * bits set is a coin toss per word (perf on AMD EPYC Zen 4: that branch was
 * most of _positions_of_bits' time). Returns how many. */
static size_t offsets_of_bits(const uint8_t *bits, size_t bytes, uint16_t *at) {
    size_t k = 0;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t w = 0; /* byte j of the 8 at bits + i as bits 8j..8j+7, any byte order */
        if (i + 8 <= bytes) {
            memcpy(&w, bits + i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            w = __builtin_bswap64(w);
#endif
        } else {
            for (size_t j = 0; i + j < bytes; j++)
                w |= (uint64_t)bits[i + j] << (8 * j);
        }
        const size_t set = sf_popcount64(w), base = 8 * i;
        /* ctz of 0 is undefined: w | 2^63 gives 63 instead, an offset that is
         * written past this word's last and overwritten (or never read) */
        for (size_t j = 0; j < OFFSETS_SLACK; j++, w &= w - 1u)
            at[k + j] = (uint16_t)(base + (size_t)__builtin_ctzll(w | (1ull << 63)));
        for (size_t j = OFFSETS_SLACK; j < set; j++, w &= w - 1u)
            at[k + j] = (uint16_t)(base + (size_t)__builtin_ctzll(w));
        k += set;
    }
    return k;
}

/* The positions (from `base`) of the set bits of bits[0, bytes), bit by bit:
 * for a block that keeps few elements. Returns how many. */
static size_t positions_of_bits(const uint8_t *bits, size_t bytes, uint64_t base, sf_op op,
                                unsigned char *out) {
    uint16_t at[SF_RANGES_STEP + OFFSETS_SLACK];
    const size_t k = offsets_of_bits(bits, bytes, at);
    if (op == SF_OP_INDEX32)
        for (size_t j = 0; j < k; j++) {
            const uint32_t q = (uint32_t)(base + at[j]);
            memcpy(out + 4 * j, &q, 4);
        }
    else
        for (size_t j = 0; j < k; j++) {
            const uint64_t q = base + at[j];
            memcpy(out + 8 * j, &q, 8);
        }
    return k;
}

/* The elements of x (of `size` bytes) at the positions pos[0, m), side by side. */
static void take_values(const unsigned char *x, size_t size, const uint32_t *pos, size_t m,
                        unsigned char *out) {
    switch (size) { /* a constant size per loop: each memcpy is one move */
    case 1: for (size_t j = 0; j < m; j++) out[j] = x[pos[j]]; break;
    case 2: for (size_t j = 0; j < m; j++) memcpy(out + 2 * j, x + 2 * (size_t)pos[j], 2); break;
    case 4: for (size_t j = 0; j < m; j++) memcpy(out + 4 * j, x + 4 * (size_t)pos[j], 4); break;
    default: for (size_t j = 0; j < m; j++) memcpy(out + 8 * j, x + 8 * (size_t)pos[j], 8); break;
    }
}

size_t sf_bits_positions(const sf_kernel *kernel, const uint8_t *bits, size_t n, sf_op op,
                         void *out, size_t capacity) {
    if (op != SF_OP_INDEX32 && op != SF_OP_INDEX64)
        return 0;
    /* the bits past n are not the caller's: its last partial byte masked */
    const uint8_t last = n % 8 ? (uint8_t)(bits[n / 8] & ((1u << (n % 8)) - 1u)) : 0;
    if (!out)
        return sf_popcount_bytes(bits, n / 8) + sf_popcount64(last);
    const sf_kernel *k = kernel ? kernel : sf_active_kernel();
    const size_t rsize = op == SF_OP_INDEX32 ? 4 : 8;
    unsigned char *dst = (unsigned char *)out;
    uint8_t block[SF_RANGES_STEP / 8], bytes[SF_RANGES_STEP];
    uint64_t pos[SF_RANGES_STEP]; /* the kernel writes anywhere in its n results */
    size_t total = 0;
    for (size_t i = 0; i < n; i += SF_RANGES_STEP) {
        const size_t m = n - i < SF_RANGES_STEP ? n - i : SF_RANGES_STEP, nbytes = (m + 7) / 8;
        /* Another thread may write the bits while they are read (the caller's
         * memory): a block is read once, into this copy, whose count then
         * bounds what is written from it. */
        memcpy(block, bits + i / 8, m % 8 ? nbytes - 1 : nbytes);
        if (m % 8) /* the last block */
            block[nbytes - 1] = last;
        const size_t kept = sf_popcount_bytes(block, nbytes);
        const size_t room = total < capacity ? capacity - total : 0;
        /* As sf_scan_ranges reads a block's bits: one by one when few are set,
         * else spread to bytes for the kernel's uint8 filter. A block that
         * would pass the capacity (the bits changed since they were counted)
         * is made aside and cut. */
        if (kept <= m / 32 && kept <= room) {
            positions_of_bits(block, nbytes, i, op, dst + rsize * total);
        } else if (room) {
            size_t made;
            if (kept <= m / 32) {
                made = positions_of_bits(block, nbytes, i, op, (unsigned char *)pos);
            } else {
                bits_to_bytes(block, m, bytes);
                made = op == SF_OP_INDEX32 ? k->index32[SF_U8](bytes, m, &NONZERO, (uint32_t)i,
                                                               (uint32_t *)(void *)pos)
                                           : k->index64[SF_U8](bytes, m, &NONZERO, i, pos);
            }
            memcpy(dst + rsize * total, pos, rsize * (made < room ? made : room));
        }
        total += kept;
    }
    return total;
}

size_t sf_scan_ranges(const sf_plan *p, const void *x, const uint8_t *valid, size_t n,
                     uint64_t base, void *out) {
    const sf_kernel *k = p->kernel;
    const size_t size = sf_elem_size(p->elem);
    uint8_t bits[SF_RANGES_STEP / 8], part[SF_RANGES_STEP / 8], bytes[SF_RANGES_STEP];
    /* The first pass's ranges side by side (the plan's range, then the first
     * of `more`); the other passes read `more` in place. */
    sf_range first[SF_RANGES_AT_ONCE];
    const size_t count = 1 + p->more_count;
    const size_t nfirst = count < SF_RANGES_AT_ONCE ? count : SF_RANGES_AT_ONCE;
    first[0] = *p->range;
    for (size_t j = 1; j < nfirst; j++)
        first[j] = p->more[j - 1];
    uint32_t pos[SF_RANGES_STEP];
    unsigned char *dst = (unsigned char *)out;
    size_t total = 0;
    for (size_t i = 0; i < n; i += SF_RANGES_STEP) {
        const size_t m = n - i < SF_RANGES_STEP ? n - i : SF_RANGES_STEP, nbytes = (m + 7) / 8;
        const unsigned char *xs = (const unsigned char *)x + i * size;
        const uint8_t *vs = valid ? valid + i / 8 : NULL;
        /* A bits result is made in place in the output. */
        uint8_t *acc = p->op == SF_OP_BITS ? dst + i / 8 : bits;
        bits_of(p, first, nfirst, p->more + (nfirst - 1), count - nfirst, xs, vs, m, acc, part);
        const size_t kept = sf_popcount_bytes(acc, nbytes);
        switch (p->op) {
        case SF_OP_BITS:
        case SF_OP_COUNT:
            break;
        case SF_OP_MASK8:
            bits_to_bytes(acc, m, dst + i);
            break;
        case SF_OP_INDEX32:
        case SF_OP_INDEX64:
            /* Few kept: their bits one by one; else the kernel's uint8 filter
             * over the bits spread to bytes. */
            if (kept <= m / 32) {
                positions_of_bits(acc, nbytes, base + i, p->op, dst + p->rsize * total);
            } else {
                bits_to_bytes(acc, m, bytes);
                if (p->op == SF_OP_INDEX32)
                    k->index32[SF_U8](bytes, m, &NONZERO, (uint32_t)(base + i),
                                      (uint32_t *)(void *)(dst + 4 * total));
                else
                    k->index64[SF_U8](bytes, m, &NONZERO, base + i,
                                      (uint64_t *)(void *)(dst + 8 * total));
            }
            break;
        default: /* SF_OP_VALUES: `kept` positions, as the bits past m are 0 */
            bits_to_bytes(acc, m, bytes);
            k->index32[SF_U8](bytes, m, &NONZERO, 0, pos);
            take_values(xs, size, pos, kept, dst + size * total);
        }
        total += kept;
    }
    return total;
}
