/*
 * lib/sorted.c on its own: over sorted data of every type (duplicates, NaN and
 * NaT last, -0.0 beside 0.0, runs of one value), sf_execute over the sorted
 * source gives exactly what it gives over the plain source, for every
 * operation, on contiguous, strided, reversed and byte-swapped runs and on
 * sources of several runs (some with nulls); sf_sorted_span is the stretch the
 * scan finds. Over unsorted data its results are a subset of the scan's and
 * nothing outside a run is read (ASan sees any such read).
 *
 *   test_sorted [--seed N] [--trials N]
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>

#include "test_common.h"
#include "test_check.h"

static const char *const type_names[SF_TYPE_COUNT] = {
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float32", "float64", "time64"};

static int is_signed_type(sf_type t) {
    return t == SF_T_I8 || t == SF_T_I16 || t == SF_T_I32 || t == SF_T_I64 || t == SF_T_TIME64;
}

/* ---- NumPy's sort order, written out naively ------------------------------------ */

static sf_type sort_type;

/* 1 for the values sorted last (NaN, NaT), else 0. */
static int sorts_last(sf_type t, uint64_t bits) {
    const sf_elem e = sf_type_elem(t);
    if (is_float(e))
        return fval(e, bits) != fval(e, bits);
    return t == SF_T_TIME64 && bits == (uint64_t)INT64_MIN;
}

static int compare_values(const void *pa, const void *pb) {
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    const sf_type t = sort_type;
    const sf_elem e = sf_type_elem(t);
    const int la = sorts_last(t, a), lb = sorts_last(t, b);
    if (la || lb)
        return la - lb;
    if (is_float(e)) {
        const double x = fval(e, a), y = fval(e, b);
        return (x > y) - (x < y);
    }
    if (is_signed_type(t)) {
        const int64_t x = as_signed(e, a), y = as_signed(e, b);
        return (x > y) - (x < y);
    }
    return (a > b) - (a < b);
}

/* ---- Values and ranges ----------------------------------------------------------- */

static uint64_t random_value(sf_type t, const uint64_t *pool, size_t pool_n) {
    const sf_elem e = sf_type_elem(t);
    if (pool_n && chance(60))
        return pool[below(pool_n)];
    if (t == SF_T_BOOL)
        return chance(90) ? below(2) : below(256);
    if (is_float(e)) {
        static const double edges[] = {0.0, -0.0, 1.0, -1.0, 1.5, 1e30, -1e30, 1e-40};
        if (chance(10))
            return fbits(e, chance(50) ? INFINITY : -INFINITY);
        if (chance(30))
            return fbits(e, edges[below(sizeof edges / sizeof edges[0])]);
        return fbits(e, ((double)(int64_t)below(2001) - 1000.0) / 8.0);
    }
    if (chance(20))
        return width_mask(e) & (chance(50) ? 0 : ~0ull);
    if (chance(50))
        return below(64) & width_mask(e);
    return rnd() & width_mask(e);
}

/* A bound near the data: one of its values, a step off, a half, or none. */
static sf_bound random_bound(sf_type t, const uint64_t *v, size_t n) {
    const sf_elem e = sf_type_elem(t);
    sf_bound b = {SF_BOUND_NONE, 0, 0, 0.0};
    if (chance(8))
        return b;
    const uint64_t x = n && chance(80) ? v[below(n)] : random_value(t, NULL, 0);
    if (is_float(e)) {
        b.kind = SF_BOUND_FLOAT;
        b.f = fval(e, x) + (chance(30) ? 0.5 * ((double)(int64_t)below(3) - 1.0) : 0.0);
    } else if (is_signed_type(t)) {
        b.kind = SF_BOUND_INT;
        const int64_t s = as_signed(e, x), step = chance(30) ? (int64_t)below(3) - 1 : 0;
        b.i = (step < 0 && s == INT64_MIN) || (step > 0 && s == INT64_MAX) ? s : s + step;
        if (t == SF_T_TIME64 && b.i == INT64_MIN)
            b.i = INT64_MIN + 1;
    } else if (chance(20)) {
        b.kind = SF_BOUND_FLOAT;
        b.f = (double)x + 0.5;
    } else {
        b.kind = SF_BOUND_UINT;
        b.u = x;
    }
    return b;
}

/* ---- Layouts and sources ------------------------------------------------------------ */

enum { CONTIGUOUS, STRIDED, REVERSED, SWAPPED, LAYOUTS };

static uint64_t swapped(size_t size, uint64_t bits) {
    switch (size) {
    case 1: return bits;
    case 2: return __builtin_bswap16((uint16_t)bits);
    case 4: return __builtin_bswap32((uint32_t)bits);
    default: return __builtin_bswap64(bits);
    }
}

/* v[0, n) laid out in buf (room for 3 * n elements) as a run of `layout`. */
static sf_run lay_out(sf_type t, const uint64_t *v, size_t n, int layout, unsigned char *buf) {
    const size_t size = sf_elem_size(sf_type_elem(t));
    sf_run run;
    memset(&run, 0, sizeof run);
    run.n = n;
    run.stride = (ptrdiff_t)size;
    run.data = buf;
    for (size_t i = 0; i < n; i++) {
        switch (layout) {
        case STRIDED: store_uint(size, buf, 3 * i, v[i]); break;
        case REVERSED: store_uint(size, buf, n - 1 - i, v[i]); break;
        case SWAPPED: store_uint(size, buf, i, swapped(size, v[i])); break;
        default: store_uint(size, buf, i, v[i]);
        }
    }
    if (layout == STRIDED)
        run.stride = 3 * (ptrdiff_t)size;
    if (layout == REVERSED && n) {
        run.data = buf + (n - 1) * size;
        run.stride = -(ptrdiff_t)size;
    }
    run.byteswap = layout == SWAPPED;
    return run;
}

#define MAX_RUNS 4
typedef struct runs_source {
    sf_source source;
    sf_run runs[MAX_RUNS];
    int count, next;
} runs_source;

static int runs_next(sf_source *self, sf_run *run) {
    runs_source *s = (runs_source *)self;
    if (s->next >= s->count)
        return 0;
    *run = s->runs[s->next++];
    return 1;
}

/* The run cut into `parts` runs, positions continuing; nulls (a validity
 * bitmap) on one of them when `with_nulls`. */
static sf_source *cut(runs_source *s, const sf_run *whole, int parts, const uint8_t *valid) {
    s->source.next = runs_next;
    s->count = parts;
    s->next = 0;
    size_t done = 0;
    for (int p = 0; p < parts; p++) {
        const size_t len = p == parts - 1 ? whole->n - done : below(whole->n - done + 1);
        s->runs[p] = *whole;
        s->runs[p].data = (const char *)whole->data + (ptrdiff_t)done * whole->stride;
        s->runs[p].n = len;
        s->runs[p].base = done;
        if (valid && p == parts - 1) {
            s->runs[p].null_form = SF_NULLS_BITMAP;
            s->runs[p].nulls = valid;
            s->runs[p].null_bit = done;
        }
        done += len;
    }
    return &s->source;
}

/* ---- The checks ----------------------------------------------------------------------- */

static const sf_op OPS[] = {SF_OP_INDEX32, SF_OP_INDEX64, SF_OP_VALUES, SF_OP_COUNT};

/* Query q over the runs (as cut) plainly and through the sorted source. */
static void compare_op(sf_type t, sf_query *q, const sf_run *whole, int parts, const uint8_t *valid,
                       int sorted, void *plain_out, void *sorted_out) {
    const size_t n = whole->n, rsize = sf_result_size(q->op, q->elem);
    const uint64_t cut_seed = rnd();
    runs_source a, b;
    sf_sorted_source ss;
    size_t found_plain = 0, found_sorted = 0;
    rng_seed(cut_seed);
    int rc = sf_execute(q, cut(&a, whole, parts, valid), plain_out, n, NULL, &found_plain);
    CHECK(rc == SF_OK, "plain rc %d", rc);
    rng_seed(cut_seed);
    sf_source *src = q->more_count
                         ? sf_sorted_source_ranges(&ss, cut(&b, whole, parts, valid), t,
                                                   &q->range, q->more, q->more_count, q->every)
                         : sf_sorted_source_init(&ss, cut(&b, whole, parts, valid), t, &q->range);
    rc = sf_execute(q, src, sorted_out, n, NULL, &found_sorted);
    CHECK(rc == SF_OK, "sorted rc %d", rc);
    rng_seed(cut_seed ^ rnd());
    if (sorted) {
        CHECK(found_plain == found_sorted && (q->op == SF_OP_COUNT ||
                                              !memcmp(plain_out, sorted_out, found_plain * rsize)),
              "%s %s n=%zu parts=%d nulls=%d: scan %zu, sorted %zu", type_names[t],
              op_names[q->op], n, parts, valid != NULL, found_plain, found_sorted);
        return;
    }
    /* Unsorted: positions are a subsequence of the scan's (ascending, none twice). */
    CHECK(found_sorted <= found_plain, "unsorted %s: %zu > %zu", type_names[t], found_sorted,
          found_plain);
    if (q->op != SF_OP_INDEX64)
        return;
    const uint64_t *x = (const uint64_t *)plain_out, *y = (const uint64_t *)sorted_out;
    size_t j = 0;
    for (size_t i = 0; i < found_sorted && i < n; i++) {
        while (j < found_plain && x[j] != y[i])
            j++;
        CHECK(j < found_plain, "unsorted %s: position %llu not in the scan's (or again, or "
              "going back)", type_names[t], (unsigned long long)y[i]);
        j++;
    }
}

/* The span of one whole run is the stretch of positions the scan gives. */
static void check_span(sf_type t, const sf_query *q, const sf_run *run, uint64_t *scan) {
    sf_query q64 = *q;
    q64.op = SF_OP_INDEX64;
    sf_run_source one;
    size_t found = 0, first = 0, len = 0;
    sf_execute(&q64, sf_run_source_init(&one, run), scan, run->n, NULL, &found);
    sf_sorted_span(t, &q->range, run, &first, &len);
    CHECK(len == found && (found == 0 || (scan[0] == first && scan[found - 1] == first + len - 1)),
          "span %s n=%zu: [%zu, +%zu), scan %zu", type_names[t], run->n, first, len, found);
}

static void trial(sf_type t, size_t n, int sorted, const sf_kernel *kernel) {
    const sf_elem e = sf_type_elem(t);
    const size_t size = sf_elem_size(e);
    uint64_t *v = malloc((n + 1) * 8), pool[4];
    unsigned char *buf = malloc(3 * n * size + 8);
    void *out_a = malloc(n * 8 + 8), *out_b = malloc(n * 8 + 8);
    uint8_t *valid = malloc(n / 8 + 1);
    const size_t pool_n = chance(30) ? 1 + below(4) : 0; /* few distinct values: duplicates */
    for (size_t i = 0; i < pool_n; i++)
        pool[i] = random_value(t, NULL, 0);
    for (size_t i = 0; i < n; i++)
        v[i] = random_value(t, pool, pool_n);
    /* NaN, NaT at the end as NumPy sorts them. */
    const size_t lasts = n && chance(40) ? below(n / 4 + 2) : 0;
    for (size_t i = 0; i < lasts && i < n; i++) {
        if (is_float(e))
            v[n - 1 - i] = fbits(e, NAN);
        else if (t == SF_T_TIME64)
            v[n - 1 - i] = (uint64_t)INT64_MIN;
    }
    if (sorted) {
        sort_type = t;
        qsort(v, n, 8, compare_values);
    }
    for (size_t i = 0; i < n / 8 + 1; i++)
        valid[i] = (uint8_t)rnd();
    for (int attempt = 0; attempt < 6; attempt++) {
        sf_bound lo = random_bound(t, v, n), hi = random_bound(t, v, n);
        sf_query q;
        memset(&q, 0, sizeof q);
        q.kernel = kernel;
        q.elem = e;
        if (sf_resolve_range(t, &lo, (int)below(2), &hi, (int)below(2), &q.range) != SF_RANGE_OK)
            continue;
        const int layout = (int)below(LAYOUTS);
        const sf_run run = lay_out(t, v, n, layout, buf);
        if (sorted)
            check_span(t, &q, &run, out_a);
        /* Several ranges, mostly merged as a query merges them (the source hands
         * out each one's span in turn), else as they come (overlapping, out of
         * order: the source must scan them). */
        sf_range ranges[4];
        size_t nr = 1;
        ranges[0] = q.range;
        if (chance(40)) {
            for (int extra = 1 + (int)below(3); extra > 0; extra--) {
                sf_bound a = random_bound(t, v, n), b = random_bound(t, v, n);
                nr += sf_resolve_range(t, &a, (int)below(2), &b, (int)below(2), &ranges[nr]) ==
                      SF_RANGE_OK;
            }
            if (!chance(30))
                nr = sf_merge_ranges(t, ranges, nr);
            q.range = ranges[0];
            q.more = ranges + 1;
            q.more_count = nr - 1;
        }
        /* Inverted (the values outside them): the sorted source passes its runs
         * whole, so the answer is still the scan's. */
        if (chance(25)) {
            int whole_width = sf_invert_range(e, SF_RANGE_OK, &q.range) != SF_RANGE_OK;
            for (size_t j = 1; j < nr; j++)
                whole_width |= sf_invert_range(e, SF_RANGE_OK, &ranges[j]) != SF_RANGE_OK;
            if (whole_width)
                continue;
            q.every = 1;
        } else if (nr > 1 && chance(20)) {
            q.every = 1; /* the values in every range: scanned */
        }
        for (size_t o = 0; o < sizeof OPS / sizeof OPS[0]; o++) {
            q.op = OPS[o];
            const int parts = 1 + (int)below(MAX_RUNS);
            compare_op(t, &q, &run, parts, chance(20) ? valid : NULL, sorted, out_a, out_b);
        }
    }
    free(v);
    free(buf);
    free(out_a);
    free(out_b);
    free(valid);
}

int main(int argc, char **argv) {
    uint64_t seed = 12345;
    long trials = 300;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--trials"))
            trials = strtol(argv[i + 1], NULL, 10);
    }
    seed_used = seed;
    rng_seed(seed);
    const sf_kernel *kernels[2] = {sf_kernel_find("scalar"), sf_active_kernel()};
    for (int k = 0; k < 2; k++) {
        for (int t = 0; t < SF_TYPE_COUNT; t++) {
            for (long i = 0; i < trials; i++) {
                const size_t n = chance(50) ? below(40) : below(3000);
                trial((sf_type)t, n, 1, kernels[k]);
                if (i % 4 == 0)
                    trial((sf_type)t, n, 0, kernels[k]);
            }
        }
    }
    /* A run of no elements, and a bit-packed one: empty spans, nothing read. */
    sf_run empty;
    memset(&empty, 0, sizeof empty);
    size_t first = 7, len = 7;
    sf_range r = {0, 10, 0.0, 0.0, 0};
    sf_sorted_span(SF_T_U32, &r, &empty, &first, &len);
    CHECK(first == 0 && len == 0, "empty run: %zu %zu", first, len);
    empty.n = 5;
    empty.bit_packed = 1;
    sf_sorted_span(SF_T_BOOL, &r, &empty, &first, &len);
    CHECK(len == 0, "bit-packed run: %zu", len);
    printf("TOTAL checks=%d failures=%d kernel=%s status=%s\n", checks, failures,
           sf_active_kernel()->name, failures ? "FAIL" : "OK");
    return failures != 0;
}
