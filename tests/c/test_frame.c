/*
 * lib/frame.c on its own: sf_filter_rows against a naive reference (each row
 * kept when every range keeps its element, spec_keep_ranges, nulls never;
 * then every output column's element at each row kept). Random frames of 1 to
 * 4 ranges of every element kind, on contiguous, strided, reversed, unaligned
 * and byte-swapped runs with byte-mask or bitmap nulls, inverted ranges and
 * several ranges per column; outputs of 1, 2, 4 and 8-byte elements, strided;
 * positions narrow, wide or none; a capacity below the rows kept, the outputs
 * and positions ending against a PROT_NONE page (nothing written past the
 * capacity); frames from 0 rows to several blocks; the scalar kernel and this
 * CPU's default; a cancel between blocks, and the calls refused.
 *
 *   test_frame [--seed N] [--trials N]
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_common.h"
#include "test_check.h"

#define MAX_WHERE 4
#define MAX_COLS 4
#define MAX_MORE 3

static size_t page;

/* A column's bytes: n elements `stride` apart from `data`, inside `mem`. */
typedef struct col {
    unsigned char *mem;
    const unsigned char *data;
    ptrdiff_t stride;
    size_t size;
} col;

/* n random elements of `size` bytes from few values (so ranges keep some):
 * element i's native bits in vals[i], stored byte-swapped when `swap`. The
 * layout: contiguous, strided, reversed, or one byte off alignment. */
static void make_col(col *c, size_t n, size_t size, sf_elem e, int swap, uint64_t *vals) {
    const int layout = (int)below(4);
    const size_t step = layout == 1 ? size * (1 + below(3)) : size;
    const size_t off = layout == 3 ? 1 : 0;
    c->size = size;
    c->mem = malloc(n * step + off + 8);
    unsigned char *first = c->mem + off;
    c->stride = (ptrdiff_t)step;
    if (layout == 2 && n) { /* reversed: element 0 last in memory */
        first = c->mem + (n - 1) * step;
        c->stride = -(ptrdiff_t)step;
    }
    c->data = first;
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        if (is_float(e))
            v = chance(5) ? fbits(e, NAN) : fbits(e, (double)below(16) - 4.0);
        else
            v = below(16) | (chance(3) ? width_mask(e) & ~0xFull : 0);
        vals[i] = v & width_mask(e);
        uint64_t stored = vals[i];
        if (swap) {
            unsigned char b[8], r[8];
            memcpy(b, &stored, 8);
            for (size_t j = 0; j < size; j++)
                r[j] = b[size - 1 - j];
            stored = 0;
            memcpy(&stored, r, size);
        }
        unsigned char tmp[8];
        memcpy(tmp, &stored, 8);
        memcpy((unsigned char *)c->data + (ptrdiff_t)i * c->stride, tmp, size);
    }
}

static sf_range random_range(sf_elem e) {
    sf_range r;
    memset(&r, 0, sizeof r);
    if (is_float(e)) {
        r.flo = (double)below(16) - 5.0;
        r.fhi = r.flo + (double)below(10);
    } else {
        r.lo = below(16);
        r.hi = r.lo + below(chance(20) ? 2 : 14);
    }
    if (chance(20))
        r.invert = 1;
    return r;
}

typedef struct where_data {
    col c;
    uint64_t *vals;
    unsigned char *nulls; /* bytes (stride 1 or 2) or a bitmap */
    sf_range ranges[1 + MAX_MORE];
} where_data;

static int row_kept(const sf_frame_range *w, const where_data *d, size_t i) {
    const sf_run *r = &w->run;
    if (r->null_form == SF_NULLS_BYTES && r->nulls[(ptrdiff_t)i * r->null_stride])
        return 0;
    if (r->null_form == SF_NULLS_BITMAP) {
        const uint64_t b = r->null_bit + i;
        if (!((r->nulls[b / 8] >> (b % 8)) & 1))
            return 0;
    }
    return spec_keep_ranges(w->query.elem, d->vals[i], d->ranges, 1 + w->query.more_count,
                            w->query.every);
}

/* Room for exactly `rows` elements of `size` bytes ending at a guard page. */
static unsigned char *guarded_end(guarded_mem *g, size_t rows, size_t size) {
    if (guarded_new(g, rows * size, page))
        return NULL;
    return g->base + g->size - rows * size;
}

static void trial(size_t n, const sf_kernel *kernel) {
    const size_t nwhere = 1 + below(MAX_WHERE), ncols = below(MAX_COLS + 1);
    sf_frame_range where[MAX_WHERE];
    where_data wd[MAX_WHERE];
    memset(where, 0, sizeof where);
    for (size_t w = 0; w < nwhere; w++) {
        const sf_elem e = (sf_elem)below(SF_ELEM_COUNT);
        const size_t size = sf_elem_size(e);
        const int swap = size > 1 && chance(20);
        wd[w].vals = malloc((n + 1) * sizeof *wd[w].vals);
        make_col(&wd[w].c, n, size, e, swap, wd[w].vals);
        sf_run *r = &where[w].run;
        r->data = wd[w].c.data;
        r->n = n;
        r->stride = wd[w].c.stride;
        r->byteswap = swap;
        r->base = below(1000);
        wd[w].nulls = NULL;
        const int nulls = (int)below(5);
        if (nulls == 1) { /* bytes, stride 1 or 2 */
            const ptrdiff_t ns = 1 + (ptrdiff_t)below(2);
            wd[w].nulls = malloc(n * (size_t)ns + 1);
            for (size_t i = 0; i < n * (size_t)ns + 1; i++)
                wd[w].nulls[i] = chance(15) ? (unsigned char)(1 + below(255)) : 0;
            r->null_form = SF_NULLS_BYTES;
            r->nulls = wd[w].nulls;
            r->null_stride = ns;
        } else if (nulls == 2) { /* a bitmap from any bit */
            const uint64_t bit = below(8);
            wd[w].nulls = malloc((n + bit) / 8 + 1);
            for (size_t i = 0; i < (n + bit) / 8 + 1; i++)
                wd[w].nulls[i] = (unsigned char)(rnd() | rnd());
            r->null_form = SF_NULLS_BITMAP;
            r->nulls = wd[w].nulls;
            r->null_bit = bit;
        }
        sf_query *q = &where[w].query;
        q->kernel = chance(50) ? kernel : NULL;
        q->op = (sf_op)below(SF_OP_COUNT_OF_OPS); /* not read */
        q->elem = e;
        const size_t more = chance(20) ? 1 + below(MAX_MORE) : 0;
        for (size_t j = 0; j <= more; j++) {
            wd[w].ranges[j] = random_range(e);
            if (more)
                wd[w].ranges[j].invert = 0;
        }
        q->every = more && chance(50);
        if (more && chance(30)) { /* the outside of a union: the inverted ranges, every one */
            int full = 0;
            for (size_t j = 0; j <= more; j++)
                full |= spec_full(e, &wd[w].ranges[j]);
            if (!full) {
                for (size_t j = 0; j <= more; j++)
                    sf_invert_range(e, SF_RANGE_OK, &wd[w].ranges[j]);
                q->every = 1;
            }
        }
        if (wd[w].ranges[0].invert && spec_full(e, &wd[w].ranges[0]))
            wd[w].ranges[0].invert = 0; /* nothing would be outside: not a kernel's range */
        q->range = wd[w].ranges[0];
        q->more = more ? wd[w].ranges + 1 : NULL;
        q->more_count = more;
    }
    /* The reference. */
    size_t *kept = malloc((n + 1) * sizeof *kept), want = 0;
    for (size_t i = 0; i < n; i++) {
        int all = 1;
        for (size_t w = 0; w < nwhere && all; w++)
            all = row_kept(&where[w], &wd[w], i);
        if (all)
            kept[want++] = i;
    }
    const size_t capacity = chance(20) ? below(want + 1) : chance(50) ? want : n;
    col cols[MAX_COLS];
    uint64_t *cvals[MAX_COLS];
    sf_take_column take[MAX_COLS];
    guarded_mem gd[MAX_COLS], gp;
    int ok = 1;
    for (size_t c = 0; c < ncols; c++) {
        const size_t size = (size_t)1 << below(4);
        const sf_elem e = size == 1 ? SF_U8 : size == 2 ? SF_U16 : size == 4 ? SF_U32 : SF_U64;
        cvals[c] = malloc((n + 1) * sizeof *cvals[c]);
        make_col(&cols[c], n, size, e, 0, cvals[c]);
        unsigned char *dst = guarded_end(&gd[c], capacity, size);
        ok &= dst != NULL;
        take[c] = (sf_take_column){cols[c].data, cols[c].stride, size, dst};
    }
    const int wide = n > 4 ? chance(50) : 1, none = chance(15);
    unsigned char *pos = guarded_end(&gp, capacity, wide ? 8 : 4);
    ok &= pos != NULL;
    CHECK(ok, "guarded memory");
    size_t found = 12345;
    const int rc = sf_filter_rows(where, nwhere, n, take, ncols, none ? NULL : pos, wide,
                                  capacity, NULL, &found);
    CHECK(rc == SF_OK && found == want, "rc %d, found %zu rows, want %zu (n %zu, %zu ranges)",
          rc, found, want, n, nwhere);
    const size_t put = want < capacity ? want : capacity;
    for (size_t i = 0; i < put && rc == SF_OK; i++) {
        if (!none) {
            const uint64_t p = wide ? load_uint(8, pos, i) : load_uint(4, pos, i);
            if (p != kept[i]) {
                CHECK(p == kept[i], "position %zu: %llu, want %zu (n %zu)", i,
                      (unsigned long long)p, kept[i], n);
                break;
            }
        }
        for (size_t c = 0; c < ncols; c++) {
            const uint64_t v = load_uint(cols[c].size, take[c].dst, i);
            if (v != cvals[c][kept[i]]) {
                CHECK(v == cvals[c][kept[i]], "column %zu row %zu: %llx, want %llx", c, i,
                      (unsigned long long)v, (unsigned long long)cvals[c][kept[i]]);
                break;
            }
        }
    }
    for (size_t c = 0; c < ncols; c++) {
        guarded_free(&gd[c], page);
        free(cols[c].mem);
        free(cvals[c]);
    }
    guarded_free(&gp, page);
    for (size_t w = 0; w < nwhere; w++) {
        free(wd[w].c.mem);
        free(wd[w].vals);
        free(wd[w].nulls);
    }
    free(kept);
}

static int polls;
static int stop(void *ctx) {
    (void)ctx;
    polls++;
    return 1;
}

/* A cancel between blocks: the rows of the blocks done, written; and the calls
 * refused, before anything is written. */
static void edges(void) {
    const size_t n = SF_CANCEL_BLOCK + 4096, room = n / 7 + 1;
    uint8_t *x = malloc(n), *dst = malloc(room);
    uint32_t *pos = malloc(room * sizeof *pos);
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(i % 7);
    sf_frame_range w;
    memset(&w, 0, sizeof w);
    w.query.elem = SF_U8;
    w.query.range.lo = 3;
    w.query.range.hi = 3;
    w.run.data = x;
    w.run.n = n;
    w.run.stride = 1;
    sf_take_column t = {x, 1, 1, dst};
    const sf_exec cancel = {1, stop, NULL, 0, 0};
    size_t found = 0;
    int rc = sf_filter_rows(&w, 1, n, &t, 1, pos, 0, room, &cancel, &found);
    size_t want = 0; /* the blocks' rows up to the first poll, SF_CANCEL_BLOCK of them */
    for (size_t i = 0; i < SF_CANCEL_BLOCK; i++)
        want += x[i] == 3;
    CHECK(rc == SF_ECANCELLED && found == want && polls == 1,
          "cancel: rc %d found %zu want %zu, %d polls", rc, found, want, polls);
    CHECK(found && dst[found - 1] == 3 && pos[found - 1] % 7 == 3, "cancel: the rows written");
    rc = sf_filter_rows(&w, 1, n, &t, 1, pos, 0, room, NULL, &found);
    CHECK(rc == SF_OK && found == n / 7 + (n % 7 > 3), "uncancelled: %d %zu", rc, found);
    /* refused */
    found = 9;
    CHECK(sf_filter_rows(&w, 0, n, &t, 1, pos, 0, room, NULL, &found) == SF_EINVAL && found == 0,
          "no range");
    CHECK(sf_filter_rows(&w, 1, n + 1, &t, 1, pos, 0, room, NULL, &found) == SF_EINVAL,
          "a run shorter than the frame");
    sf_take_column odd = {x, 3, 3, dst};
    CHECK(sf_filter_rows(&w, 1, n, &odd, 1, pos, 0, room, NULL, &found) == SF_EINVAL,
          "a 3-byte column");
    uint32_t within = 0;
    w.query.within = &within;
    w.query.within_count = 1;
    CHECK(sf_filter_rows(&w, 1, n, &t, 1, pos, 0, room, NULL, &found) == SF_EINVAL, "within");
    w.query.within = NULL;
    w.run.bit_packed = 1;
    CHECK(sf_filter_rows(&w, 1, n, &t, 1, pos, 0, room, NULL, &found) == SF_EINVAL, "bit-packed");
    w.run.bit_packed = 0;
    if (sizeof(size_t) > 4) {
        const size_t huge = (size_t)UINT32_MAX + 2;
        CHECK(sf_filter_rows(&w, 1, huge, &t, 1, pos, 0, room, NULL, &found) == SF_EINVAL,
              "uint32 positions past 2^32 rows");
    }
    free(x);
    free(dst);
    free(pos);
}

int main(int argc, char **argv) {
    uint64_t seed = 12345;
    long trials = 400;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--trials"))
            trials = strtol(argv[i + 1], NULL, 10);
    }
    seed_used = seed;
    rng_seed(seed);
    page = (size_t)sysconf(_SC_PAGESIZE);
    const sf_kernel *kernels[2] = {sf_kernel_find("scalar"), sf_active_kernel()};
    for (int k = 0; k < 2; k++) {
        for (long i = 0; i < trials; i++) {
            const size_t n = chance(40) ? below(40) : chance(80) ? below(5000) : below(140000);
            trial(n, kernels[k]);
        }
    }
    edges();
    printf("TOTAL checks=%d failures=%d kernel=%s status=%s\n", checks, failures,
           sf_active_kernel()->name, failures ? "FAIL" : "OK");
    return failures != 0;
}
