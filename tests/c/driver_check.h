/*
 * How tests/c/test_driver.c runs and checks one call of the driver: the wrapped
 * pthread_create that counts (and sometimes refuses or delays) the threads the
 * driver starts, the run's options and the failure report, the inputs with
 * their naive reference (driver_inputs.h, included here), a source that cuts a
 * run into several, and check_call: one sf_execute compared with the reference,
 * its output ending at a PROT_NONE page behind a canary. Which calls are made is
 * test_driver.c's business.
 *
 * Included once, by test_driver.c, after the system headers, simdfilter.h,
 * lib/library.h and test_common.h.
 */
#ifndef SIMDFILTER_DRIVER_CHECK_H
#define SIMDFILTER_DRIVER_CHECK_H

#define CANARY 64
#define CANARY_BYTE 0xC5

/* ---- pthread_create, wrapped --------------------------------------------- */

/* Linked with -Wl,--wrap=pthread_create: threads.c's calls land here. The
 * double-underscore names are the linker's convention for --wrap, not ours.
 * Only the thread that called sf_execute creates threads, so plain ints do. */
int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

static int g_created;      /* threads started since the last reset */
static int g_refused;      /* creations we made fail */
static int g_fail_every;   /* 0: never fail; k: fail every k-th creation */
static int g_create_calls; /* creations asked for, failed or not */
static int g_delay_every;  /* 0: start at once; k: every k-th thread sleeps first */

/* A thread that starts late, as one the OS parks behind another process: the
 * caller then takes most blocks, and blocks wait for one held elsewhere. */
typedef struct late_start {
    void *(*fn)(void *);
    void *arg;
    long delay_ns;
} late_start;

static void *start_late(void *p) {
    late_start s = *(late_start *)p;
    free(p);
    const struct timespec t = {0, s.delay_ns};
    nanosleep(&t, NULL);
    return s.fn(s.arg);
}

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    g_create_calls++;
    if (g_fail_every && g_create_calls % g_fail_every == 0) {
        g_refused++;
        return EAGAIN; /* what glibc returns when it is out of threads */
    }
    late_start *late = NULL;
    if (g_delay_every && g_create_calls % g_delay_every == 0 &&
        (late = malloc(sizeof *late)) != NULL) {
        *late = (late_start){fn, arg, (long)below(2000000)}; /* up to 2 ms */
        fn = start_late;
        arg = late;
    }
    int rc = __real_pthread_create(t, a, fn, arg);
    if (rc == 0)
        g_created++;
    else
        free(late);
    return rc;
}

/* ---- Reporting ------------------------------------------------------------ */

static uint64_t g_seed;
static int g_quick, g_half_lengths, g_strict_threads, g_count_out_nonnull;
static const char *g_only_kernel;
static const char *g_argv0;

/* Everything that describes one call, for the report. */
typedef struct {
    const char *kernel, *layout, *fn;
    sf_elem kind;
    sf_op op;
    size_t n, capacity;
    ptrdiff_t stride;
    int swap, threads, misalign;
    uint64_t base;
    const sf_range *ranges;
    size_t nranges;
    int every;
    size_t pieces;
    const struct nulls_desc *nulls;
} call_desc;

/* Reports, with the call if there is one, and exits with status 1: below. */
static void fail(const call_desc *c, const char *fmt, ...);

static size_t page_size;

#include "driver_inputs.h"

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
    if (c->nranges > 1)
        printf("  ranges:  %zu, an element kept when in %s\n", c->nranges,
               c->every ? "every one" : "any");
    for (size_t j = 0; j < c->nranges; j++) {
        const sf_range *r = &c->ranges[j];
        if (is_float(c->kind))
            printf("  range:   flo=%a fhi=%a", r->flo, r->fhi);
        else
            printf("  range:   lo=0x%" PRIx64 " hi=0x%" PRIx64, r->lo, r->hi);
        printf("%s\n", r->invert ? ", inverted" : "");
    }
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
    printf("reproduce: %s --seed %" PRIu64 "%s%s%s%s%s%s\n", g_argv0, g_seed,
           g_quick ? " --quick" : "", g_half_lengths ? " --half-lengths" : "",
           g_strict_threads ? " --strict-threads" : "",
           g_count_out_nonnull ? " --count-out-nonnull" : "", g_only_kernel ? " --kernel " : "",
           g_only_kernel ? g_only_kernel : "");
    printf("TOTAL status=FAIL\n");
    fflush(stdout);
    exit(1);
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

/* The output of one call: room for `room` results, ending exactly at the guard
 * page; a canary in front. Count gets NULL, as the Python binding passes it,
 * unless --count-out-nonnull: then a pointer to the guard page, which count
 * must not touch either. */
static unsigned char *output_for(const call_desc *c, const input *in, size_t room,
                                 size_t rsize) {
    unsigned char *out = g_count_out_nonnull ? g_out.base + g_out.size : NULL;
    if (!rsize)
        return out;
    if (room * rsize + CANARY > g_out.size)
        fail(c, "test bug: output region too small");
    out = g_out.base + g_out.size - room * rsize;
    memset(out - CANARY, CANARY_BYTE, CANARY);
    /* Poison what will be checked, with a byte that changes from call to call:
     * a result the driver fails to write must not be found left over from an
     * earlier call on the same input. */
    size_t checked = in->exp.count < room ? in->exp.count : room;
    memset(out, (int)(below(255) + 1) ^ CANARY_BYTE, checked * rsize);
    return out;
}

/* The canary intact and the first `copied` results those of the reference
 * (positions from `base`). */
static void check_results(const call_desc *c, const input *in, sf_op op, uint64_t base,
                          const unsigned char *out, size_t rsize, size_t copied) {
    for (size_t i = 0; i < CANARY; i++)
        if ((out - CANARY)[i] != CANARY_BYTE)
            fail(c, "wrote %zu bytes before the start of the output", CANARY - i);
    for (size_t i = 0; i < copied; i++) {
        const unsigned char *p = out + i * rsize;
        uint64_t want, have;
        switch (op) {
        case SF_OP_INDEX32: {
            uint32_t v;
            memcpy(&v, p, 4);
            have = v;
            want = base + in->exp.pos[i];
            break;
        }
        case SF_OP_INDEX64:
            memcpy(&have, p, 8);
            want = base + in->exp.pos[i];
            break;
        default:
            have = load_elem(p, in->size, 0); /* values come out in native order */
            want = in->exp.bits[i];
        }
        if (have != want) {
            uint64_t pos = in->exp.pos[i];
            fail(c,
                 "result %zu of %zu differs: expected 0x%" PRIx64 ", got 0x%" PRIx64
                 " (the expected %zu-th match is element %" PRIu64 " = 0x%" PRIx64 ")",
                 i, in->exp.count, want, have, i, pos, in->exp.bits[i]);
        }
    }
}

/* The output of a mask op: `bytes`, ending exactly at the guard page, a canary
 * in front, poisoned with a byte that changes from call to call. */
static unsigned char *mask_output_for(const call_desc *c, size_t bytes) {
    if (bytes + CANARY > g_out.size)
        fail(c, "test bug: output region too small");
    unsigned char *out = g_out.base + g_out.size - bytes;
    memset(out - CANARY, CANARY_BYTE, CANARY);
    memset(out, (int)(below(255) + 1) ^ CANARY_BYTE, bytes);
    return out;
}

/* A mask op's output: result i of the first `written` elements is 1 exactly
 * at the reference's matches, the bits past them in the last byte are 0, and
 * the canary is intact. */
static void check_mask(const call_desc *c, const input *in, sf_op op, const unsigned char *out,
                       size_t written) {
    for (size_t i = 0; i < CANARY; i++)
        if ((out - CANARY)[i] != CANARY_BYTE)
            fail(c, "wrote %zu bytes before the start of the output", CANARY - i);
    size_t j = 0;
    const size_t end = op == SF_OP_BITS ? 8 * ((written + 7) / 8) : written;
    for (size_t i = 0; i < end; i++) {
        const unsigned want = i < written && j < in->exp.count && in->exp.pos[j] == i;
        j += want;
        if (mask_result(op, out, i) != want)
            fail(c, "result %zu of %zu (%s) is %u, expected %u", i, written,
                 i < written ? "an element" : "a bit past the last element",
                 mask_result(op, out, i), want);
    }
}

/* sf_validity over the call's source (cut into as many runs), room for
 * `room` elements: bit i is 1 exactly where element i is not null, the bits
 * past them 0, the nulls counted, nothing written before or after. */
static void check_validity(const call_desc *c, const input *in, const sf_run *run, size_t pieces,
                           size_t room) {
    const size_t written = in->n < room ? in->n : room, bytes = (room + 7) / 8;
    unsigned char *out = mask_output_for(c, bytes);
    const unsigned char poison = bytes ? out[0] : 0; /* mask_output_for's, all alike */
    sf_run_source one;
    pieces_source cut;
    sf_source *src = pieces > 1 ? pieces_init(&cut, run, pieces) : sf_run_source_init(&one, run);
    size_t nulls = 0, want_nulls = 0;
    const size_t elements = sf_validity(src, out, room, &nulls);
    for (size_t i = 0; i < CANARY; i++)
        if ((out - CANARY)[i] != CANARY_BYTE)
            fail(c, "sf_validity wrote %zu bytes before the start of its output", CANARY - i);
    for (size_t i = 0; i < 8 * ((written + 7) / 8); i++) {
        const unsigned want = i < written && !is_null(&in->nulls, i);
        want_nulls += i < written && !want;
        if (mask_result(SF_OP_BITS, out, i) != want)
            fail(c, "sf_validity: bit %zu of %zu is %u, expected %u", i, written,
                 mask_result(SF_OP_BITS, out, i), want);
    }
    for (size_t i = (written + 7) / 8; i < bytes; i++)
        if (out[i] != poison)
            fail(c, "sf_validity wrote byte %zu past its %zu elements", i, written);
    if (elements != in->n || nulls != want_nulls)
        fail(c, "sf_validity returned %zu elements, %zu nulls; expected %zu, %zu", elements, nulls,
             in->n, want_nulls);
}

/* Run one call through sf_execute and compare. bounded: an output with room
 * for only `capacity` results (else room for n). pieces: how many runs the
 * source cuts the input into (1: sf_run_source). */
static void check_call_in(const input *in, const sf_kernel *k, sf_op op, int threads,
                          int bounded, size_t capacity, size_t pieces) {
    const int mask = sf_op_is_mask(op);
    const size_t rsize = mask ? sf_result_size(op, in->kind) : result_size(op, in->size);
    sf_query q;
    memset(&q, 0, sizeof q);
    q.kernel = k;
    q.op = op;
    q.elem = in->kind;
    q.range = in->ranges[0];
    q.more = in->ranges + 1;
    q.more_count = in->nranges - 1;
    q.every = in->every;
    sf_run run = {.data = in->data, .n = in->n, .stride = in->stride, .byteswap = in->swap,
                  .base = pick_base(op, in->n), .null_form = in->nulls.form,
                  .nulls = in->nulls.nulls, .null_bit = in->nulls.bit,
                  .null_stride = in->nulls.stride};

    call_desc c = {k->name, in->layout, bounded ? "sf_execute, bounded" : "sf_execute", in->kind,
                   op, in->n, capacity, in->stride, in->swap, threads, in->misalign, run.base,
                   in->ranges, in->nranges, in->every, pieces, &in->nulls};
    if (sf_result_size(op, in->kind) != rsize)
        fail(&c, "sf_result_size is %zu, expected %zu", sf_result_size(op, in->kind), rsize);
    const size_t room = bounded ? capacity : in->n;
    unsigned char *out = mask ? mask_output_for(&c, sf_output_bytes(op, in->kind, room))
                              : output_for(&c, in, room, rsize);

    g_created = g_refused = 0;
    sf_run_source one;
    pieces_source cut;
    sf_source *src = pieces > 1 ? pieces_init(&cut, &run, pieces) : sf_run_source_init(&one, &run);
    /* The output as out= (0), fresh (1), or fresh past its first half (2): the
     * same answers, whichever way the team places and populates them. */
    const unsigned fresh = (unsigned)(g_runs % 3);
    const sf_exec opts = {threads, NULL, NULL, fresh != 0, fresh == 2 ? room * rsize / 2 : 0};
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
    if (!mask && rsize)
        check_results(&c, in, op, run.base, out, rsize, got < room ? got : room);
    if (mask)
        check_mask(&c, in, op, out, in->n < room ? in->n : room);
    if (op == SF_OP_BITS) /* its output checked: the region is sf_validity's now */
        check_validity(&c, in, &run, pieces, room);
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

#endif
