/*
 * Test of the driver (csrc/lib/driver.c: sf_execute over sources of runs) against
 * a reference written here, for every kernel this CPU supports. No Python.
 *
 *   driver_test [--seed N] [--quick] [--kernel NAME] [--strict-threads]
 *               [--count-out-nonnull] [--max-threads-case]
 *
 * The reference is deliberately naive: element i is read with memcpy from
 * data + i * stride, byte-swapped if the job says so, and tested with the range
 * rule of simdfilter.h (spec_keep, in test_common.h). Nothing of the driver
 * (gathering, chunking, threads, stitching) is shared with it, so the two
 * cannot be wrong the same way.
 *
 * Covered, for every kind, every op (index32 with a base, index64 with a base,
 * values, count) and every supported kernel:
 *   - layouts: contiguous aligned, unaligned start, strides of 2, 3 and 7
 *     elements, a stride that is not a multiple of the size (3 * size + 1), an
 *     overlapping stride of 1 byte, the negatives of those, stride 0; each native
 *     and byte-swapped;
 *   - lengths around the 1024-element gather chunk: 0 1 1023 1024 1025 2047 3000;
 *   - lengths around the thread split (SF_MIN_ELEMENTS_PER_THREAD = 2^18) from
 *     2^18 - 1 to 2^20 + 77 with threads = 1, 2, 3, 8; pthread_create is wrapped
 *     (-Wl,--wrap=pthread_create) to prove the driver really split, and to make
 *     some creations fail so its do-it-on-this-thread fallback runs too;
 *   - nulls, on half the inputs: a validity bitmap at a bit offset of 0..15 or
 *     mask bytes at a stride of 1 or 3, at densities 0, 1%, 50% and 100%;
 *   - sources of one run and (one thread) of 2 to 4 runs cut at random places,
 *     positions continuing; sf_execute's cancel callback stopping a long call;
 *   - outputs with room for n, exactly the count, and below it
 *     (count - 1, count / 2, 0): the output ends at a PROT_NONE page, so one
 *     byte written past capacity crashes; a canary guards the bytes before it.
 *
 * Inputs live between PROT_NONE pages (placed against the upper or the lower
 * one, alternately) and are read-only while the driver runs; the bytes between
 * strided elements are random, so reading the wrong bytes shows.
 *
 * --quick trims the thread cases (for slow sanitizers). --strict-threads also
 * fails when a call runs on more threads than it was given (caller included).
 * --count-out-nonnull gives count a non-NULL output pointer (the binding passes
 * NULL; the driver once computed NULL + 0 from it, which clang's UBSan reports).
 * --max-threads-case runs only threads = 256 on 2^26 + 1 elements, where the
 * split once yielded 257 parts for an array of 256.
 *
 * The first difference stops the run with a report and exit status 1.
 * Output lines the pytest driver parses:
 *   kernel NAME: supported|unsupported
 *   checked KIND OP: runs=R
 *   split threads=T n=N created=C
 *   TOTAL runs=N kernels=a,b time=S status=OK
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, clock_gettime */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib/library.h"
#include "simdfilter.h"
#include "test_common.h"

#define MAX_KERNELS 16
#define CANARY 64
#define CANARY_BYTE 0xC5

/* ---- pthread_create, wrapped --------------------------------------------- */

/* Linked with -Wl,--wrap=pthread_create: driver.c's calls land here. The
 * double-underscore names are the linker's convention for --wrap, not ours.
 * Only the thread that called sf_execute creates threads, so plain ints do. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int g_created;      /* threads started since the last reset */
static int g_refused;      /* creations we made fail */
static int g_fail_every;   /* 0: never fail; k: fail every k-th creation */
static int g_create_calls; /* creations asked for, failed or not */

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    g_create_calls++;
    if (g_fail_every && g_create_calls % g_fail_every == 0) {
        g_refused++;
        return EAGAIN; /* what glibc returns when it is out of threads */
    }
    int rc = __real_pthread_create(t, a, fn, arg);
    if (rc == 0)
        g_created++;
    return rc;
}

/* ---- Reporting ------------------------------------------------------------ */

static uint64_t g_seed;
static int g_quick, g_strict_threads, g_count_out_nonnull;
static const char *g_only_kernel;
static const char *g_argv0;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Nulls of an input: a validity bitmap at a bit offset, or mask bytes with a stride. */
typedef struct nulls_desc {
    sf_nulls form;
    guarded_mem mem;
    const uint8_t *nulls;
    uint64_t bit;
    ptrdiff_t stride;
} nulls_desc;

static int is_null(const nulls_desc *z, size_t i) {
    if (z->form == SF_NULLS_BITMAP)
        return !((z->nulls[(z->bit + i) / 8] >> ((z->bit + i) % 8)) & 1);
    if (z->form == SF_NULLS_BYTES)
        return z->nulls[(ptrdiff_t)i * z->stride] != 0;
    return 0;
}

static unsigned g_place; /* alternates placement against the upper / lower guard */

/* Everything that describes one call, for the report. */
typedef struct {
    const char *kernel, *layout, *fn;
    sf_elem kind;
    sf_op op;
    size_t n, capacity;
    ptrdiff_t stride;
    int swap, threads, misalign;
    uint64_t base;
    sf_range range;
    size_t pieces;
    const struct nulls_desc *nulls;
} call_desc;

static void describe(const call_desc *c) {
    printf("  call:    %s(kernel=%s, op=%s, kind=%s, n=%zu, threads=%d", c->fn, c->kernel,
           op_names[c->op], sf_elem_name(c->kind), c->n, c->threads);
    if (strcmp(c->fn, "sf_execute, bounded") == 0)
        printf(", capacity=%zu", c->capacity);
    printf(", runs=%zu", c->pieces);
    if (c->nulls && c->nulls->form == SF_NULLS_BITMAP)
        printf(", validity bitmap from bit %" PRIu64, c->nulls->bit);
    else if (c->nulls && c->nulls->form == SF_NULLS_BYTES)
        printf(", null mask bytes, stride %td", c->nulls->stride);
    printf(")\n  layout:  %s, stride=%td bytes, byteswap=%d, data %% size = %d, base=%" PRIu64 "\n",
           c->layout, c->stride, c->swap, c->misalign, c->base);
    if (is_float(c->kind))
        printf("  range:   flo=%a fhi=%a\n", c->range.flo, c->range.fhi);
    else
        printf("  range:   lo=0x%" PRIx64 " hi=0x%" PRIx64 "\n", c->range.lo, c->range.hi);
}

static void fail(const call_desc *c, const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    printf("FAIL: ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (c)
        describe(c);
    printf("reproduce: %s --seed %" PRIu64 "%s%s%s%s%s\n", g_argv0, g_seed,
           g_quick ? " --quick" : "", g_strict_threads ? " --strict-threads" : "",
           g_count_out_nonnull ? " --count-out-nonnull" : "", g_only_kernel ? " --kernel " : "",
           g_only_kernel ? g_only_kernel : "");
    printf("TOTAL status=FAIL\n");
    fflush(stdout);
    exit(1);
}

/* ---- Guarded memory --------------------------------------------------------- */

static size_t page_size;

/* [PROT_NONE page][base: size bytes, whole pages][PROT_NONE page]: test_common.h */
typedef guarded_mem region;

static region region_new(size_t min_size) {
    region r;
    const char *failed = guarded_new(&r, min_size, page_size);
    if (failed)
        fail(NULL, "%s: %s", failed, strerror(errno));
    return r;
}

static void region_protect(const region *r, int prot) {
    if (mprotect(r->base, r->size, prot))
        fail(NULL, "mprotect: %s", strerror(errno));
}

/* ---- The reference ------------------------------------------------------------ */

/* Element i as its native bit pattern, zero-extended. memcpy: any alignment;
 * the bytes are reversed first when the element is stored byte-swapped. */
static uint64_t load_elem(const unsigned char *p, size_t size, int swap) {
    unsigned char b[8];
    for (size_t k = 0; k < size; k++)
        b[k] = p[swap ? size - 1 - k : k];
    return load_uint(size, b, 0);
}

static void store_elem(unsigned char *p, size_t size, int swap, uint64_t v) {
    unsigned char native[8];
    store_uint(size, native, 0, v); /* the value's native bytes, whatever the byte order */
    for (size_t k = 0; k < size; k++)
        p[k] = native[swap ? size - 1 - k : k];
}

/* Positions (relative to data[0]) and values of the matching elements. */
typedef struct {
    size_t count;
    uint64_t *pos;  /* count positions */
    uint64_t *bits; /* their values, native bits */
} expected;

static void reference(const unsigned char *data, size_t n, ptrdiff_t stride, size_t size, int swap,
                      sf_elem kind, const sf_range *r, const nulls_desc *z, expected *e) {
    e->count = 0;
    e->pos = malloc((n ? n : 1) * sizeof *e->pos);
    e->bits = malloc((n ? n : 1) * sizeof *e->bits);
    if (!e->pos || !e->bits)
        fail(NULL, "out of memory for %zu expected results", n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = load_elem(data + (ptrdiff_t)i * stride, size, swap);
        if (spec_keep(kind, v, r) && !is_null(z, i)) {
            e->pos[e->count] = i;
            e->bits[e->count] = v;
            e->count++;
        }
    }
}

static void expected_free(expected *e) {
    free(e->pos);
    free(e->bits);
}

/* ---- Data and ranges -------------------------------------------------------- */

/* A quarter-step in [-8, 8]: exact in both float widths, so bounds get hit. */
static double quarter(void) { return ((double)below(65) - 32.0) / 4.0; }

static sf_range pick_range(sf_elem kind) {
    sf_range r;
    memset(&r, 0, sizeof r);
    if (is_float(kind)) {
        switch (below(6)) {
        case 0: r.flo = -1.5; r.fhi = 2.25; break;
        case 1: r.flo = -0.0; r.fhi = 0.0; break; /* -0.0 == 0.0: both zeros match */
        case 2: r.flo = -INFINITY; r.fhi = INFINITY; break;
        case 3: r.flo = r.fhi = quarter(); break;
        case 4: r.flo = -INFINITY; r.fhi = quarter(); break;
        default: {
            double a = quarter(), b = quarter();
            r.flo = a < b ? a : b;
            r.fhi = a < b ? b : a;
        }
        }
        return r;
    }
    uint64_t m = width_mask(kind);
    switch (below(5)) {
    case 0: r.lo = 0; r.hi = m; break;                 /* everything */
    case 1: r.lo = r.hi = below(0) & m; break;         /* one value */
    case 2: {                                          /* signed [-k, k]: wraps */
        uint64_t k = below(m / 4 + 1);
        r.lo = (0 - k) & m;
        r.hi = k & m;
        break;
    }
    default: {                                         /* about half of the domain */
        r.lo = below(0) & m;
        r.hi = (r.lo + (m >> 1) + below((m >> 2) + 1)) & m;
    }
    }
    return r;
}

/* A value likely to sit on or next to the bounds, or to be special. */
static uint64_t pick_value(sf_elem kind, const sf_range *r) {
    unsigned roll = (unsigned)below(100);
    if (kind == SF_F32) {
        float lo = (float)r->flo, hi = (float)r->fhi; /* exact: bounds are float values */
        static const uint32_t specials[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7F800000u,
                                            0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u,
                                            0x7F7FFFFFu, 0xFF7FFFFFu};
        if (roll < 10)
            return specials[below(sizeof specials / sizeof *specials)];
        if (roll < 35) {
            float b = below(2) ? lo : hi;
            switch (below(3)) {
            case 0: return fbits(SF_F32, b);
            case 1: return fbits(SF_F32, nextafterf(b, INFINITY));
            default: return fbits(SF_F32, nextafterf(b, -INFINITY));
            }
        }
        if (roll < 40)
            return (uint32_t)below(0);
        return fbits(SF_F32, quarter());
    }
    if (kind == SF_F64) {
        static const uint64_t specials[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                            0x7FF0000000000001ull, 0x7FF0000000000000ull,
                                            0xFFF0000000000000ull, 0x8000000000000000ull,
                                            0, 1, 0x7FEFFFFFFFFFFFFFull};
        if (roll < 10)
            return specials[below(sizeof specials / sizeof *specials)];
        if (roll < 35) {
            double b = below(2) ? r->flo : r->fhi;
            switch (below(3)) {
            case 0: return fbits(SF_F64, b);
            case 1: return fbits(SF_F64, nextafter(b, INFINITY));
            default: return fbits(SF_F64, nextafter(b, -INFINITY));
            }
        }
        if (roll < 40)
            return below(0);
        return fbits(SF_F64, quarter());
    }
    uint64_t m = width_mask(kind);
    if (roll < 30) {
        static const int64_t delta[] = {-1, 0, 1};
        uint64_t b = below(2) ? r->lo : r->hi;
        return (b + (uint64_t)delta[below(3)]) & m;
    }
    if (roll < 40) {
        static const uint64_t special[] = {0, 1, ~(uint64_t)0, ~(uint64_t)0 >> 1,
                                           (~(uint64_t)0 >> 1) + 1};
        return special[below(5)] & m;
    }
    return below(0) & m;
}

/* ---- Layouts ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    int elems;     /* stride in elements (sign included) */
    int bytes;     /* plus this many bytes, same sign */
    int misalign;  /* data % size, when size > 1 */
} layout;

static const layout LAYOUTS[] = {
    {"contiguous", 1, 0, 0},
    {"unaligned", 1, 0, 1},
    {"stride 2", 2, 0, 0},
    {"stride 3", 3, 0, 0},
    {"stride 7", 7, 0, 0},
    {"stride 3*size+1", 3, 1, 0},
    {"unaligned stride 3", 3, 0, 1},
    {"overlapping stride 1 byte", 0, 1, 0},
    {"stride 0", 0, 0, 0},
    {"negative contiguous", -1, 0, 0},
    {"negative unaligned", -1, 0, 1},
    {"negative stride 2", -2, 0, 0},
    {"negative stride 3", -3, 0, 0},
    {"negative stride 7", -7, 0, 0},
    {"negative stride 3*size+1", -3, -1, 0},
};
#define N_LAYOUTS (sizeof LAYOUTS / sizeof *LAYOUTS)

/* Thread cases: fewer layouts (each costs a pass over up to 8 MiB per call). */
static const int THREAD_LAYOUTS[] = {0, 1, 3, 5, 9, 12};

static ptrdiff_t stride_of(const layout *l, size_t size) {
    return (ptrdiff_t)l->elems * (ptrdiff_t)size + l->bytes;
}

/* One input: n elements at data + i * stride inside a guarded, read-only region. */
typedef struct {
    region mem;
    const unsigned char *data;
    size_t n, size;
    ptrdiff_t stride;
    int swap, misalign;
    sf_elem kind;
    sf_range range;
    const char *layout;
    nulls_desc nulls;
    expected exp;
} input;

/* Nulls for n elements, half the time: a bitmap at a random bit offset or mask
 * bytes (stride 1 or 3, other bytes nonzero junk), at a random density, in a
 * read-only guarded region of their own. */
static void nulls_make(nulls_desc *z, size_t n, int allow) {
    memset(z, 0, sizeof *z);
    if (!allow || n == 0 || below(2))
        return;
    static const unsigned per_mille[] = {0, 10, 500, 1000};
    const unsigned density = per_mille[below(4)];
    if (below(2)) {
        z->form = SF_NULLS_BITMAP;
        z->bit = below(16);
        z->mem = region_new((z->bit + n + 7) / 8);
        uint8_t *b = g_place % 2 ? z->mem.base : z->mem.base + z->mem.size - (z->bit + n + 7) / 8;
        for (size_t i = 0; i < (z->bit + n + 7) / 8; i++)
            b[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n; i++) {
            const uint64_t k = z->bit + i;
            b[k / 8] = (uint8_t)((b[k / 8] & ~(1u << (k % 8))) | ((below(1000) >= density) << (k % 8)));
        }
        z->nulls = b;
    } else {
        z->form = SF_NULLS_BYTES;
        z->stride = below(2) ? 1 : 3;
        const size_t span = (n - 1) * (size_t)z->stride + 1;
        z->mem = region_new(span);
        uint8_t *b = g_place % 2 ? z->mem.base : z->mem.base + z->mem.size - span;
        for (size_t i = 0; i < span; i++)
            b[i] = (uint8_t)(rnd() | 1); /* junk between the mask bytes: nonzero */
        for (size_t i = 0; i < n; i++)
            b[i * (size_t)z->stride] = below(1000) < density ? (uint8_t)(1 + below(255)) : 0;
        z->nulls = b;
    }
    region_protect(&z->mem, PROT_READ);
}


static void input_make_nulls(input *in, sf_elem kind, const layout *l, size_t n, int swap,
                             int with_nulls) {
    size_t size = sf_elem_size(kind);
    ptrdiff_t stride = stride_of(l, size);
    size_t astride = (size_t)(stride < 0 ? -stride : stride);
    size_t span = n ? (n - 1) * astride + size : 0; /* bytes from lowest to highest element */
    int mis = size > 1 ? l->misalign : 0;
    in->mem = region_new(span + 2 * size);
    unsigned char *body = in->mem.base, *end = body + in->mem.size;
    for (size_t i = 0; i + 8 <= in->mem.size; i += 8) { /* junk between the elements */
        uint64_t v = rnd();
        memcpy(body + i, &v, 8);
    }
    unsigned char *low;
    if (g_place++ % 2 == 0) { /* against the upper guard: the last byte before it is used */
        uintptr_t a = (uintptr_t)(end - span - (size_t)mis);
        low = (unsigned char *)(a - a % size) + mis;
    } else { /* against the lower guard */
        low = body + mis;
    }
    unsigned char *data = stride < 0 && n ? low + (n - 1) * astride : low;
    in->range = pick_range(kind);
    for (size_t i = 0; i < n; i++)
        store_elem(data + (ptrdiff_t)i * stride, size, swap, pick_value(kind, &in->range));
    region_protect(&in->mem, PROT_READ); /* the driver must never write its input */
    in->data = data;
    in->n = n;
    in->size = size;
    in->stride = stride;
    in->swap = swap;
    in->misalign = mis;
    in->kind = kind;
    in->layout = l->name;
    nulls_make(&in->nulls, n, with_nulls);
    /* Read back from memory: overlapping and zero strides mean later stores win. */
    reference(data, n, stride, size, swap, kind, &in->range, &in->nulls, &in->exp);
}

static void input_make(input *in, sf_elem kind, const layout *l, size_t n, int swap) {
    input_make_nulls(in, kind, l, n, swap, 1);
}

static void input_free(input *in) {
    guarded_free(&in->mem, page_size);
    if (in->nulls.form != SF_NULLS_NONE)
        guarded_free(&in->nulls.mem, page_size);
    expected_free(&in->exp);
}

/* ---- Running and checking one call ---------------------------------------------- */

static region g_out; /* outputs end exactly at its upper guard */
static long g_runs;
static long g_checked[SF_ELEM_COUNT][SF_OP_COUNT_OF_OPS];

static size_t result_size(sf_op op, size_t size) {
    return op == SF_OP_INDEX32 ? 4 : op == SF_OP_INDEX64 ? 8 : op == SF_OP_VALUES ? size : 0;
}

static uint64_t pick_base(sf_op op, size_t n) {
    if (op == SF_OP_INDEX32) { /* base + n <= 2^32 */
        uint64_t top = ((uint64_t)1 << 32) - (n ? n : 1);
        switch (below(3)) {
        case 0: return 0;
        case 1: return top; /* the last position is exactly 2^32 - 1 */
        default: return below(top + 1);
        }
    }
    if (op == SF_OP_INDEX64) {
        switch (below(3)) {
        case 0: return 0;
        case 1: return ~(uint64_t)0 - n; /* positions up to 2^64 - 1 */
        default: return below((uint64_t)1 << 40) << 20;
        }
    }
    return below(0); /* ignored by values and count: any value must do */
}

/* A source that hands out a run in `pieces` consecutive runs, cut at random
 * places, positions continuing: what a chunked column looks like. */
typedef struct pieces_source {
    sf_source source;
    sf_run whole;
    size_t cuts[5], next; /* cuts[0] = 0 < ... < cuts[pieces] = n */
    size_t pieces;
} pieces_source;

static int pieces_next(sf_source *self, sf_run *run) {
    pieces_source *s = (pieces_source *)self;
    if (s->next >= s->pieces)
        return 0;
    const size_t a = s->cuts[s->next], b = s->cuts[s->next + 1];
    *run = s->whole;
    run->data = (const char *)s->whole.data + (ptrdiff_t)a * s->whole.stride;
    run->n = b - a;
    run->base = s->whole.base + a;
    if (run->null_form == SF_NULLS_BITMAP)
        run->null_bit = s->whole.null_bit + a;
    else if (run->null_form == SF_NULLS_BYTES)
        run->nulls = s->whole.nulls + (ptrdiff_t)a * s->whole.null_stride;
    s->next++;
    return 1;
}

static sf_source *pieces_init(pieces_source *s, const sf_run *whole, size_t pieces) {
    s->source.next = pieces_next;
    s->whole = *whole;
    s->pieces = pieces;
    s->next = 0;
    s->cuts[0] = 0;
    s->cuts[pieces] = whole->n;
    for (size_t i = 1; i < pieces; i++) /* ascending, possibly empty pieces */
        s->cuts[i] = s->cuts[i - 1] + below(whole->n - s->cuts[i - 1] + 1);
    return &s->source;
}

/* Run one call through sf_execute and compare. bounded: an output with room
 * for only `capacity` results (else room for n). pieces: how many runs the
 * source cuts the input into (1: sf_run_source). */
static void check_call_in(const input *in, const sf_kernel *k, sf_op op, int threads,
                          int bounded, size_t capacity, size_t pieces) {
    const size_t rsize = result_size(op, in->size);
    sf_query q;
    memset(&q, 0, sizeof q);
    q.kernel = k;
    q.op = op;
    q.elem = in->kind;
    q.range = in->range;
    sf_run run = {.data = in->data, .n = in->n, .stride = in->stride, .byteswap = in->swap,
                  .base = pick_base(op, in->n), .null_form = in->nulls.form,
                  .nulls = in->nulls.nulls, .null_bit = in->nulls.bit,
                  .null_stride = in->nulls.stride};

    call_desc c = {k->name, in->layout, bounded ? "sf_execute, bounded" : "sf_execute", in->kind,
                   op, in->n, capacity, in->stride, in->swap, threads, in->misalign, run.base,
                   in->range, pieces, &in->nulls};
    if (sf_result_size(op, in->kind) != rsize)
        fail(&c, "sf_result_size is %zu, expected %zu", sf_result_size(op, in->kind), rsize);

    /* Room for `room` results, ending exactly at the guard page; a canary in front.
     * Count gets NULL, as the Python binding passes it, unless --count-out-nonnull:
     * then a pointer to the guard page, which count must not touch either. */
    size_t room = bounded ? capacity : in->n;
    unsigned char *out = g_count_out_nonnull ? g_out.base + g_out.size : NULL;
    if (rsize) {
        if (room * rsize + CANARY > g_out.size)
            fail(&c, "test bug: output region too small");
        out = g_out.base + g_out.size - room * rsize;
        memset(out - CANARY, CANARY_BYTE, CANARY);
        /* Poison what will be checked, with a byte that changes from call to call:
         * a result the driver fails to write must not be found left over from an
         * earlier call on the same input. */
        size_t checked = in->exp.count < room ? in->exp.count : room;
        memset(out, (int)(below(255) + 1) ^ CANARY_BYTE, checked * rsize);
    }

    g_created = g_refused = 0;
    sf_run_source one;
    pieces_source cut;
    sf_source *src = pieces > 1 ? pieces_init(&cut, &run, pieces) : sf_run_source_init(&one, &run);
    const sf_exec opts = {threads, NULL, NULL};
    size_t got = 0;
    const int rc = sf_execute(&q, src, out, room, &opts, &got);
    if (rc != SF_OK)
        fail(&c, "sf_execute returned %d", rc);
    g_runs++;
    g_checked[in->kind][op]++;

    if (got != in->exp.count)
        fail(&c, "returned %zu, expected %zu matching elements", got, in->exp.count);
    if (g_strict_threads && g_created + 1 > (threads > 1 ? threads : 1))
        fail(&c, "asked for up to %d threads, ran on %d (the caller and %d created)", threads,
             g_created + 1, g_created);
    if (!rsize)
        return;
    for (size_t i = 0; i < CANARY; i++)
        if ((out - CANARY)[i] != CANARY_BYTE)
            fail(&c, "wrote %zu bytes before the start of the output", CANARY - i);
    size_t copied = got < room ? got : room;
    for (size_t i = 0; i < copied; i++) {
        const unsigned char *p = out + i * rsize;
        uint64_t want, have;
        switch (op) {
        case SF_OP_INDEX32: {
            uint32_t v;
            memcpy(&v, p, 4);
            have = v;
            want = run.base + in->exp.pos[i];
            break;
        }
        case SF_OP_INDEX64:
            memcpy(&have, p, 8);
            want = run.base + in->exp.pos[i];
            break;
        default:
            have = load_elem(p, in->size, 0); /* values come out in native order */
            want = in->exp.bits[i];
        }
        if (have != want) {
            uint64_t pos = in->exp.pos[i];
            fail(&c,
                 "result %zu of %zu differs: expected 0x%" PRIx64 ", got 0x%" PRIx64
                 " (the expected %zu-th match is element %" PRIu64 " = 0x%" PRIx64 ")",
                 i, in->exp.count, want, have, i, pos, in->exp.bits[i]);
        }
    }
}

/* One call, through a one-run source or (every other call with one thread) a
 * source of 2 to 4 runs. */
static void check_call(const input *in, const sf_kernel *k, sf_op op, int threads, int bounded,
                       size_t capacity) {
    const size_t pieces = threads <= 1 && below(2) ? 2 + below(3) : 1;
    check_call_in(in, k, op, threads, bounded, capacity, pieces);
}

/* Every op of one input: room for n results, then bounded at and below the count. */
static void check_all_ops(const input *in, const sf_kernel *k, int threads, int with_bounded) {
    for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
        check_call(in, k, (sf_op)op, threads, 0, 0);
        if (!with_bounded)
            continue;
        size_t cnt = in->exp.count;
        check_call(in, k, (sf_op)op, threads, 1, in->n); /* capacity >= n: room for every element */
        if (cnt < in->n)
            check_call(in, k, (sf_op)op, threads, 1, cnt); /* exactly the count */
        if (cnt > 0) {
            check_call(in, k, (sf_op)op, threads, 1, cnt - 1);
            check_call(in, k, (sf_op)op, threads, 1, cnt / 2);
            check_call(in, k, (sf_op)op, threads, 1, 0);
        }
    }
}

/* ---- Main ------------------------------------------------------------------ */

static const size_t CHUNK_LENGTHS[] = {0, 1, 1023, 1024, 1025, 2047, 3000};
#define M18 ((size_t)1 << 18)
static const size_t THREAD_LENGTHS[] = {
    M18 - 1,          /* one thread whatever is asked */
    2 * M18 - 1,      /* still one: below two threads' worth */
    2 * M18,          /* two parts of 2^18 */
    2 * M18 + 1,      /* 2^18 per part, a multiple of 64: a third part of 1 element */
    3 * M18 + 65,     /* parts not a multiple of 64 elements: rounded up */
    4 * M18,          /* 2^20 */
    4 * M18 + 77,     /* 2^20 + 77 */
};
static const size_t THREAD_LENGTHS_QUICK[] = {2 * M18 - 1, 2 * M18 + 1, 3 * M18 + 65, 4 * M18 + 77};
static const int THREADS[] = {1, 2, 3, 8};

/* Whether the driver may split n elements for `threads` (library.h's rule). */
static int may_split(size_t n, int threads) {
    size_t want = (size_t)threads;
    if (want > n / SF_MIN_ELEMENTS_PER_THREAD)
        want = n / SF_MIN_ELEMENTS_PER_THREAD;
    return want > 1;
}

static int cancel_calls;
static int cancel_at_once(void *ctx) {
    (void)ctx;
    return ++cancel_calls > 0;
}

/* sf_execute polls the cancel callback after every SF_CANCEL_BLOCK elements
 * and stops when it says so, reporting what it found up to there. */
static void cancel_case(const sf_kernel *k) {
    const size_t n = 2 * SF_CANCEL_BLOCK + 5;
    unsigned char *zeros = calloc(n, 1);
    uint32_t *out = malloc(n * sizeof *out);
    if (!zeros || !out)
        fail(NULL, "cancel case: out of memory");
    sf_query q = {.kernel = k, .op = SF_OP_INDEX32, .elem = SF_U8};
    sf_run run = {.data = zeros, .n = n, .stride = 1};
    const sf_exec opts = {1, cancel_at_once, NULL};
    for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
        sf_run_source one;
        size_t found = 0;
        q.op = (sf_op)op;
        cancel_calls = 0;
        const int rc = sf_execute(&q, sf_run_source_init(&one, &run),
                                  op == SF_OP_COUNT ? NULL : (void *)out, n, &opts, &found);
        if (rc != SF_ECANCELLED || cancel_calls != 1 || found != SF_CANCEL_BLOCK)
            fail(NULL, "cancel case (%s): rc=%d after %d polls, found %zu, expected "
                 "SF_ECANCELLED after 1 poll with %zu found", op_names[op], rc, cancel_calls,
                 found, (size_t)SF_CANCEL_BLOCK);
        if (op == SF_OP_INDEX32 && (out[0] != 0 || out[found - 1] != found - 1))
            fail(NULL, "cancel case: positions before the stop are wrong");
    }
    printf("cancel case: stopped after one block with every op\n");
    free(zeros);
    free(out);
}

static void max_threads_case(const sf_kernel *k) {
    /* threads = SF_MAX_THREADS (256, what the binding clamps to) on 2^26 + 1
     * elements: n / 256 = 2^18 is a multiple of 64, so per = 2^18 and the split
     * once made 257 parts, writing parts[256] past an array of SF_MAX_THREADS. */
    const layout *l = &LAYOUTS[0];
    input in;
    input_make(&in, SF_U8, l, ((size_t)1 << 26) + 1, 0);
    printf("max-threads case: n=%zu threads=256 kernel=%s\n", in.n, k->name);
    fflush(stdout);
    check_call(&in, k, SF_OP_COUNT, 256, 0, 0);
    printf("max-threads case: created=%d threads\n", g_created);
    input_free(&in);
}

int main(int argc, char **argv) {
    int max_threads_only = 0;
    g_argv0 = argv[0];
    g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick"))
            g_quick = 1;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
            g_only_kernel = argv[++i];
        else if (!strcmp(argv[i], "--strict-threads"))
            g_strict_threads = 1;
        else if (!strcmp(argv[i], "--count-out-nonnull"))
            g_count_out_nonnull = 1;
        else if (!strcmp(argv[i], "--max-threads-case"))
            max_threads_only = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--quick] [--kernel NAME] [--strict-threads] "
                            "[--count-out-nonnull] [--max-threads-case]\n", argv[0]);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    rng_seed(g_seed);
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    printf("seed %" PRIu64 "\n", g_seed);

    const sf_kernel *kernels[MAX_KERNELS];
    int nk = 0;
    for (int i = 0; i < sf_kernel_count() && nk < MAX_KERNELS; i++) {
        const sf_kernel *k = sf_kernel_at(i);
        int ok = sf_kernel_supported(k);
        printf("kernel %s: %s\n", k->name, ok ? "supported" : "unsupported");
        if (ok && (!g_only_kernel || !strcmp(g_only_kernel, k->name)))
            kernels[nk++] = k;
    }
    if (nk == 0)
        fail(NULL, "no kernel to test%s%s", g_only_kernel ? " named " : "",
             g_only_kernel ? g_only_kernel : "");

    /* Big enough for 2^20 + 77 results of 8 bytes plus the canary (and 2^26 + 1
     * nothing: the max-threads case counts). */
    g_out = region_new((4 * M18 + 77) * 8 + CANARY + 64);
    double t0 = now();

    if (max_threads_only) {
        max_threads_case(kernels[nk - 1]);
        printf("TOTAL runs=%ld kernels=%s time=%.2f status=OK\n", g_runs, kernels[nk - 1]->name,
               now() - t0);
        return 0;
    }

    /* 1. Lengths around the gather chunk, every layout, every kernel, one thread
     *    (and two: below 2^19 elements the driver must not split, and must not care). */
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (size_t li = 0; li < N_LAYOUTS; li++)
            for (int swap = 0; swap < 2; swap++)
                for (size_t ni = 0; ni < sizeof CHUNK_LENGTHS / sizeof *CHUNK_LENGTHS; ni++) {
                    input in;
                    input_make(&in, (sf_elem)kind, &LAYOUTS[li], CHUNK_LENGTHS[ni], swap);
                    for (int ki = 0; ki < nk; ki++)
                        check_all_ops(&in, kernels[ki], 1 + (int)(ni % 2), 1);
                    input_free(&in);
                }
    double t1 = now();
    printf("chunk cases: %ld runs in %.2f s\n", g_runs, t1 - t0);

    /* 2. Lengths around the thread split. The kernel rotates so that each one
     *    meets every kind across the cases; each input gets every op and threads. */
    const size_t *lens = g_quick ? THREAD_LENGTHS_QUICK : THREAD_LENGTHS;
    size_t nlens = g_quick ? sizeof THREAD_LENGTHS_QUICK / sizeof *THREAD_LENGTHS_QUICK
                           : sizeof THREAD_LENGTHS / sizeof *THREAD_LENGTHS;
    const size_t nlayouts = sizeof THREAD_LAYOUTS / sizeof *THREAD_LAYOUTS;
    const long runs_before = g_runs;
    unsigned rotate = 0;
    int splits_seen = 0, fallbacks_seen = 0;
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (size_t ni = 0; ni < nlens; ni++) {
            /* Each length once per kind; the layout and byte order rotate with
             * it so that every kind meets every thread layout, both ways. */
            size_t li = (ni + (size_t)kind) % nlayouts;
            int swap = (int)((ni / 2 + (size_t)kind) % 2);
            input in;
            input_make(&in, (sf_elem)kind, &LAYOUTS[THREAD_LAYOUTS[li]], lens[ni], swap);
            const sf_kernel *k = kernels[rotate++ % (unsigned)nk];
            for (size_t ti = 0; ti < sizeof THREADS / sizeof *THREADS; ti++) {
                int threads = THREADS[ti];
                /* Every third input: every other pthread_create fails, so the
                 * driver's run-it-here fallback is exercised. */
                g_fail_every = rotate % 3 == 0 ? 2 : 0;
                g_create_calls = 0;
                for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
                    check_call(&in, k, (sf_op)op, threads, 0, 0);
                    call_desc c = {k->name, in.layout, "sf_execute", in.kind, (sf_op)op,
                                   in.n, 0, in.stride, in.swap, threads, in.misalign, 0,
                                   in.range, 1, &in.nulls};
                    int split = may_split(in.n, threads);
                    if (split && g_created + g_refused == 0)
                        fail(&c, "did not split %zu elements across %d threads", in.n, threads);
                    if (!split && g_created + g_refused)
                        fail(&c, "started %d threads for %zu elements (< 2 * 2^18)",
                             g_created + g_refused, in.n);
                    if (op == 0 && split && kind == 0)
                        printf("split threads=%d n=%zu created=%d refused=%d\n", threads,
                               in.n, g_created, g_refused);
                    splits_seen += split && g_created > 0;
                    fallbacks_seen += g_refused > 0;
                }
                g_fail_every = 0;
            }
            /* Bounded on big inputs: exact count (the staged serial path) and
             * less; room for n takes the threaded path. */
            for (int op = 0; op < SF_OP_COUNT; op++) {
                check_call(&in, k, (sf_op)op, 3, 1, in.n);
                check_call(&in, k, (sf_op)op, 3, 1, in.exp.count);
                if (in.exp.count)
                    check_call(&in, k, (sf_op)op, 3, 1, in.exp.count - 1);
            }
            input_free(&in);
        }
    if (!splits_seen || !fallbacks_seen)
        fail(NULL, "the thread cases never split (%d) or never fell back (%d)", splits_seen,
             fallbacks_seen);
    printf("thread cases: %ld runs in %.2f s (%d split calls, %d with a refused thread)\n",
           g_runs - runs_before, now() - t1, splits_seen, fallbacks_seen);

    cancel_case(kernels[nk - 1]);

    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++)
            printf("checked %s %s: runs=%ld\n", sf_elem_name((sf_elem)kind), op_names[op],
                   g_checked[kind][op]);
    printf("TOTAL runs=%ld kernels=", g_runs);
    for (int i = 0; i < nk; i++)
        printf("%s%s", i ? "," : "", kernels[i]->name);
    printf(" time=%.2f status=OK\n", now() - t0);
    guarded_free(&g_out, page_size);
    return 0;
}
