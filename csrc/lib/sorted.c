/*
 * Sorted data: the stretch of a run whose values lie in a range, by two binary
 * searches, and a source of such stretches, so that sf_execute over it reads
 * O(log n + k) elements instead of n.
 *
 * The order is the one NumPy's sort gives a type: unsigned or signed by the
 * type, NaN last on float data (NaN sorts after +inf), NaT last on SF_T_TIME64
 * (its bit pattern, INT64_MIN, sorts after every date there). The two tests
 * below are the kernels' range test split in halves: in that order, a value is
 * in [lo, hi] exactly when it is neither before lo nor after hi, so on sorted
 * data the values in range are one contiguous stretch.
 */
#include "library.h"

#include <string.h>

/* Element i of the run, in native byte order, its bits in the low bytes. */
static uint64_t element_bits(const sf_run *run, size_t size, size_t i) {
    const unsigned char *p = (const unsigned char *)run->data + (ptrdiff_t)i * run->stride;
    switch (size) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return run->byteswap ? __builtin_bswap16(v) : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return run->byteswap ? __builtin_bswap32(v) : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return run->byteswap ? __builtin_bswap64(v) : v;
    }
    }
}

/* The w-bit pattern `bits` read as a signed integer. */
static int64_t as_signed(uint64_t bits, size_t size) {
    switch (size) {
    case 1: return (int8_t)(uint8_t)bits;
    case 2: return (int16_t)(uint16_t)bits;
    case 4: return (int32_t)(uint32_t)bits;
    default: return (int64_t)bits;
    }
}

/* Whether element i sorts after every value of the range (`upper`), or before
 * every one (not `upper`). */
static int outside(sf_type t, const sf_range *r, const sf_run *run, size_t i, int upper) {
    const size_t size = sf_elem_size(sf_type_elem(t));
    const uint64_t bits = element_bits(run, size, i);
    if (t == SF_T_F32 || t == SF_T_F64) {
        double x;
        if (t == SF_T_F32) {
            float f;
            const uint32_t b32 = (uint32_t)bits;
            memcpy(&f, &b32, 4);
            x = f;
        } else {
            memcpy(&x, &bits, 8);
        }
        /* NaN is after everything: `x <= fhi` is false for it, `x < flo` too. */
        return upper ? !(x <= r->fhi) : x < r->flo;
    }
    if (t == SF_T_TIME64 && bits == (uint64_t)INT64_MIN) /* NaT: last */
        return upper;
    if (sf_type_is_signed(t)) {
        const int64_t x = as_signed(bits, size);
        return upper ? x > as_signed(r->hi, size) : x < as_signed(r->lo, size);
    }
    return upper ? bits > r->hi : bits < r->lo;
}

/* The partition point of the run: on sorted data, elements [0, i) are before
 * lo (upper 0) or not after hi (upper 1), and the rest are not. On unsorted
 * data, some i in [0, n]; only elements [0, n) are ever read. */
static size_t partition(sf_type t, const sf_range *r, const sf_run *run, int upper) {
    size_t lo = 0, hi = run->n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (upper ? !outside(t, r, run, mid, 1) : outside(t, r, run, mid, 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sf_sorted_span(sf_type t, const sf_range *r, const sf_run *run, size_t *first, size_t *len) {
    *first = *len = 0;
    if ((unsigned)t >= SF_TYPE_COUNT || run->n == 0 || run->bit_packed)
        return;
    const size_t begin = partition(t, r, run, 0), end = partition(t, r, run, 1);
    *first = begin;
    *len = end > begin ? end - begin : 0;
}

static int sorted_next(sf_source *self, sf_run *run) {
    sf_sorted_source *s = (sf_sorted_source *)self;
    for (;;) {
        if (!s->in_run) {
            if (s->done || !sf_next_run(s->inner, &s->run))
                return 0;
            /* Nulls may sit anywhere (first or last, as the sort that made
             * the column put them), under any value: such a run is scanned
             * whole; so are the values outside a range (two stretches). */
            if (s->run.null_form != SF_NULLS_NONE || s->run.bit_packed || s->scan) {
                *run = s->run;
                return 1;
            }
            s->in_run = 1;
            s->next = 0;
            s->from = 0;
        }
        if (s->next > s->more_count) {
            s->in_run = 0;
            continue;
        }
        const sf_range *r = s->next == 0 ? &s->range : &s->more[s->next - 1];
        const int last = s->next == s->more_count;
        s->next++;
        size_t first, len;
        sf_sorted_span(s->type, r, &s->run, &first, &len);
        if (last && first + len < s->run.n) /* a value after the last range: so are the later runs' */
            s->done = 1;
        size_t end = first + len;
        if (first < s->from) /* unsorted data: never a position twice, nor one going back */
            first = s->from;
        if (end <= first)
            continue;
        s->from = end;
        *run = sf_run_slice(&s->run, first, end - first);
        return 1;
    }
}

sf_source *sf_sorted_source_ranges(sf_sorted_source *s, sf_source *inner, sf_type t,
                                   const sf_range *r, const sf_range *more, size_t more_count,
                                   int every) {
    s->source.next = sorted_next;
    s->inner = inner;
    s->type = t;
    s->range = *r;
    s->done = 0;
    s->more = more;
    s->more_count = more_count;
    s->in_run = 0;
    /* Spans answer a union of plain ranges that ascend apart (as
     * sf_merge_ranges leaves them); anything else is scanned. */
    s->scan = r->invert || (more_count && every);
    for (size_t j = 0; j < more_count && !s->scan; j++)
        s->scan = more[j].invert || !sf_range_below(t, j ? &more[j - 1] : r, &more[j]);
    return &s->source;
}

sf_source *sf_sorted_source_init(sf_sorted_source *s, sf_source *inner, sf_type t,
                                 const sf_range *r) {
    return sf_sorted_source_ranges(s, inner, t, r, NULL, 0, 0);
}
