/*
 * Caller memory written by another thread while a call reads it (issue 41,
 * item 1). Whatever the library checks in memory the caller owns, it reads
 * once: copied, checked, the copy used. A racing writer may get a wrong
 * answer or an error, never a read or write outside what was checked, which
 * ASan reports (this program is built under ASan+UBSan by
 * tests/test_c_harness.py).
 *
 * Each case races a writer pthread against calls for a bounded time,
 * cycling through every kernel this CPU runs:
 *
 *   within     within= positions, uint32 and uint64, sparse (the within
 *              kernels) and dense (the pass over the stretch), on a direct
 *              run, a strided one (gathered) and a source of two runs (one
 *              copied block spanning both); positions set far out of bounds
 *              and back
 *   out        the output written by the calls (positions, values, masks,
 *              bits; one thread and two) scribbled over
 *   arrow      an Arrow column's buffer list (the producer's even after the
 *              struct is moved: values and validity pointers set to NULL and
 *              back), its validity bitmap and its values
 *   bits       sf_bits_positions' bits, counted, then filled into exactly
 *              that many positions while the bits change
 *   sorted     a sorted run's values changed under the binary searches
 *
 * What is checked of the answers: a call returns SF_OK, SF_EUNSORTED or
 * SF_EOUTOFBOUNDS (within=), and positions it writes lie inside the data
 * and rise. Time is only a bound on each case, never measured.
 *
 *   test_races [--seed N] [--seconds S] [--only CASE]
 *              (S per case, default 1; CASE: within, within-sparse, within-dense,
 *              out, arrow, bits, sorted)
 *
 * Output: "race CASE: calls=N errors=E" per case, then "TOTAL status=OK".
 */
#define _DEFAULT_SOURCE /* clock_gettime */

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "simdfilter_arrow.h"
#include "test_common.h"

static double seconds_per_case = 1.0;
static const char *only; /* one case, or NULL for all */

/* --only within runs within-sparse and within-dense */
static int wanted(const char *name) { return !only || !strncmp(name, only, strlen(only)); }
static int failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond) && failures++ < 20) {                                                      \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                             \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the kernels, and the writer ------------------------------------------------ */

static const sf_kernel *kernels[32];
static int nkernels;

static void find_kernels(void) {
    for (int i = 0; i < sf_kernel_count() && nkernels < 32; i++)
        if (sf_kernel_supported(sf_kernel_at(i)))
            kernels[nkernels++] = sf_kernel_at(i);
}

/* The writer: scribble(ctx, round) over and over until stopped. Its stores
 * are relaxed atomics (the compiler keeps every one); the library's loads are
 * plain, as they are of any caller's memory. */
typedef struct racer {
    pthread_t thread;
    atomic_int stop;
    void (*scribble)(void *ctx, uint64_t round);
    void *ctx;
} racer;

static void *race_loop(void *arg) {
    racer *r = (racer *)arg;
    for (uint64_t round = 0; !atomic_load_explicit(&r->stop, memory_order_relaxed); round++)
        r->scribble(r->ctx, round);
    return NULL;
}

static void race_start(racer *r, void (*scribble)(void *, uint64_t), void *ctx) {
    atomic_init(&r->stop, 0);
    r->scribble = scribble;
    r->ctx = ctx;
    if (pthread_create(&r->thread, NULL, race_loop, r) != 0) {
        printf("FAIL: pthread_create\n");
        exit(1);
    }
}

static void race_stop(racer *r) {
    atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
    pthread_join(r->thread, NULL);
}

#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static void report(const char *name, unsigned long calls, unsigned long errors) {
    printf("race %s: calls=%lu errors=%lu\n", name, calls, errors);
    fflush(stdout);
}

/* Positions out[0, k) of op (index32 or index64) inside [0, n) and rising. */
static int positions_ok(sf_op op, const void *out, size_t k, uint64_t n) {
    uint64_t prev = 0;
    for (size_t i = 0; i < k; i++) {
        const uint64_t p = op == SF_OP_INDEX32 ? ((const uint32_t *)out)[i]
                                               : ((const uint64_t *)out)[i];
        if (p >= n || (i && p <= prev))
            return 0;
        prev = p;
    }
    return 1;
}

/* ---- within= -------------------------------------------------------------------- */

#define WITHIN_N ((size_t)1 << 16)

typedef struct within_case {
    void *pos; /* uint32_t or uint64_t */
    int wide;
    size_t count;
    size_t step;
} within_case;

/* Every 200th position set far out of the data (whichever block of 1,024 a
 * call is in holds some), then back for seven rounds: most calls see good
 * positions and get through, and the writer turns them bad under some. */
static void scribble_within(void *ctx, uint64_t round) {
    within_case *c = (within_case *)ctx;
    const int bad = round % 8 == 0;
    for (size_t j = 37; j < c->count; j += 200) {
        const uint64_t good = (uint64_t)j * c->step;
        if (c->wide)
            STORE((uint64_t *)c->pos + j, bad ? (uint64_t)1 << 40 : good);
        else
            STORE((uint32_t *)c->pos + j, bad ? (uint32_t)0xFFFFFFF0u : (uint32_t)good);
    }
}

/* Two runs of one array: positions [0, split) and [split, n). */
typedef struct two_runs {
    sf_source source;
    sf_run runs[2];
    int next;
} two_runs;

static int two_runs_next(sf_source *self, sf_run *run) {
    two_runs *s = (two_runs *)self;
    if (s->next >= 2)
        return 0;
    *run = s->runs[s->next++];
    return 1;
}

static void race_within(int wide, size_t step) {
    uint32_t *data = (uint32_t *)malloc(2 * WITHIN_N * sizeof *data);
    for (size_t i = 0; i < 2 * WITHIN_N; i++)
        data[i] = (uint32_t)i;
    within_case c = {NULL, wide, WITHIN_N / step, step};
    c.pos = malloc(c.count * 8);
    for (size_t j = 0; j < c.count; j++) {
        if (wide)
            ((uint64_t *)c.pos)[j] = j * step;
        else
            ((uint32_t *)c.pos)[j] = (uint32_t)(j * step);
    }
    void *out = malloc(c.count * 8);
    racer r;
    race_start(&r, scribble_within, &c);
    unsigned long calls = 0, errors = 0;
    const double end = now() + seconds_per_case / 4;
    while (now() < end) {
        for (int k = 0; k < nkernels; k++)
            for (int layout = 0; layout < 3; layout++)
                for (int counting = 0; counting < 2; counting++) {
                    sf_query q = {.kernel = kernels[k],
                                  .op = counting ? SF_OP_COUNT
                                        : wide   ? SF_OP_INDEX64
                                                 : SF_OP_INDEX32,
                                  .elem = SF_U32};
                    q.range.lo = 0;
                    q.range.hi = UINT32_MAX;
                    q.within = c.pos;
                    q.within_count = c.count;
                    q.within_wide = wide;
                    sf_run run = {.data = data, .n = WITHIN_N, .stride = 4};
                    if (layout == 1) /* strided: the gathered way */
                        run.stride = 8;
                    sf_run_source one;
                    two_runs two = {{two_runs_next}, {run, run}, 0};
                    sf_source *src;
                    if (layout == 2) { /* a block copied once, spanning both runs */
                        const size_t split = WITHIN_N / 2 + 100;
                        two.runs[0].n = split;
                        two.runs[1].data = data + split;
                        two.runs[1].n = WITHIN_N - split;
                        two.runs[1].base = split;
                        src = &two.source;
                    } else {
                        src = sf_run_source_init(&one, &run);
                    }
                    const sf_exec x = {1, NULL, NULL, 0, 0};
                    size_t found = 0;
                    const int rc =
                        sf_execute(&q, src, counting ? NULL : out, c.count, &x, &found);
                    calls++;
                    if (rc == SF_EUNSORTED || rc == SF_EOUTOFBOUNDS) {
                        errors++;
                        continue;
                    }
                    CHECK(rc == SF_OK, "within %s step %zu: rc %d", wide ? "u64" : "u32", step, rc);
                    CHECK(found <= c.count, "found %zu of %zu", found, c.count);
                    if (!counting && rc == SF_OK)
                        CHECK(positions_ok(q.op, out, found, WITHIN_N),
                              "%s: positions outside the data or not rising", kernels[k]->name);
                }
    }
    race_stop(&r);
    char name[64];
    snprintf(name, sizeof name, "within %s %s", wide ? "uint64" : "uint32",
             step > 16 ? "sparse" : "dense");
    report(name, calls, errors);
    free(out);
    free(c.pos);
    free(data);
}

/* ---- out= ----------------------------------------------------------------------- */

#define OUT_N ((size_t)1 << 19) /* two threads' worth (SF_MIN_ELEMENTS_PER_THREAD) */

typedef struct out_case {
    unsigned char *out;
    size_t bytes;
} out_case;

static void scribble_out(void *ctx, uint64_t round) {
    out_case *c = (out_case *)ctx;
    for (size_t i = (round * 4096) % 64; i < c->bytes; i += 4096)
        STORE(c->out + i, (unsigned char)(0xA5 ^ round));
}

static void race_out(void) {
    uint32_t *data = (uint32_t *)malloc(OUT_N * sizeof *data);
    for (size_t i = 0; i < OUT_N; i++)
        data[i] = (uint32_t)(i * 2654435761u);
    out_case c = {(unsigned char *)malloc(OUT_N * 8), OUT_N * 8};
    racer r;
    race_start(&r, scribble_out, &c);
    static const sf_op ops[] = {SF_OP_INDEX32, SF_OP_INDEX64, SF_OP_VALUES, SF_OP_MASK8,
                                SF_OP_BITS};
    unsigned long calls = 0;
    const double end = now() + seconds_per_case;
    while (now() < end) {
        for (int k = 0; k < nkernels; k++)
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
                for (int threads = 1; threads <= 2; threads++) {
                    sf_query q = {.kernel = kernels[k], .op = ops[o], .elem = SF_U32};
                    q.range.lo = 0;
                    q.range.hi = UINT32_MAX / 2;
                    const sf_run run = {.data = data, .n = OUT_N, .stride = 4};
                    sf_run_source one;
                    const sf_exec x = {threads, NULL, NULL, 0, 0};
                    /* a capacity short of the worst case too: staged, then cut */
                    const size_t capacity = threads == 1 ? OUT_N / 3 : OUT_N;
                    size_t found = 0;
                    const int rc = sf_execute(&q, sf_run_source_init(&one, &run), c.out,
                                              capacity, &x, &found);
                    calls++;
                    CHECK(rc == SF_OK, "out: rc %d", rc);
                }
    }
    race_stop(&r);
    report("out", calls, 0);
    free(c.out);
    free(data);
}

/* ---- Arrow ---------------------------------------------------------------------- */

#define ARROW_CHUNK ((size_t)50000)

typedef struct arrow_case {
    const void *buffers[2][2]; /* each chunk's buffer list: the producer's */
    const void *values[2];
    uint8_t *validity[2];
    uint32_t *data[2];
} arrow_case;

static void scribble_arrow(void *ctx, uint64_t round) {
    arrow_case *c = (arrow_case *)ctx;
    const int k = (int)(round % 2);
    switch (round / 2 % 4) {
    case 0: STORE(&c->buffers[k][1], (const void *)NULL); break;
    case 1: STORE(&c->buffers[k][1], c->values[k]); break;
    case 2: STORE(&c->buffers[k][0], (const void *)NULL); break;
    default: STORE(&c->buffers[k][0], (const void *)c->validity[k]); break;
    }
    for (size_t i = round % 97; i < ARROW_CHUNK / 8; i += 97)
        STORE(c->validity[k] + i, (uint8_t)(round * 31));
    for (size_t i = round % 89; i < ARROW_CHUNK + 1; i += 89)
        STORE(c->data[k] + i, (uint32_t)(round * 2654435761u));
}

static void noop_release(struct ArrowArray *a) { a->release = NULL; }

static void race_arrow(void) {
    arrow_case c;
    struct ArrowArray arrays[2];
    for (int k = 0; k < 2; k++) {
        c.data[k] = (uint32_t *)malloc((ARROW_CHUNK + 1) * 4); /* offset 1 */
        c.validity[k] = (uint8_t *)malloc(ARROW_CHUNK / 8 + 1);
        for (size_t i = 0; i < ARROW_CHUNK + 1; i++)
            c.data[k][i] = (uint32_t)(i * 7);
        memset(c.validity[k], 0xF7, ARROW_CHUNK / 8 + 1);
        c.values[k] = c.data[k];
        c.buffers[k][0] = c.validity[k];
        c.buffers[k][1] = c.data[k];
        /* the struct itself moved into the consumer's memory, as a consumer does */
        memset(&arrays[k], 0, sizeof arrays[k]);
        arrays[k].length = (int64_t)ARROW_CHUNK - 7;
        arrays[k].offset = 1;
        arrays[k].null_count = -1;
        arrays[k].n_buffers = 2;
        arrays[k].buffers = c.buffers[k];
        arrays[k].release = noop_release;
    }
    const sf_arrow_type t = {SF_T_U32, SF_ARROW_NUMBER, 0, NULL};
    const size_t n = 2 * ((size_t)ARROW_CHUNK - 7);
    uint32_t *pos = (uint32_t *)malloc(n / 3 * 4 + 4);
    for (size_t j = 0; j < n / 3; j++)
        pos[j] = (uint32_t)(3 * j);
    unsigned char *out = (unsigned char *)malloc(n * 8);
    racer r;
    race_start(&r, scribble_arrow, &c);
    static const sf_op ops[] = {SF_OP_INDEX32, SF_OP_COUNT, SF_OP_MASK8, SF_OP_BITS,
                                SF_OP_VALUES};
    unsigned long calls = 0, errors = 0;
    const double end = now() + seconds_per_case;
    while (now() < end) {
        for (int k = 0; k < nkernels; k++)
            for (size_t o = 0; o < sizeof ops / sizeof ops[0] + 1; o++) {
                const int within = o == sizeof ops / sizeof ops[0];
                char err[160];
                if (sf_arrow_check_array(&arrays[0], &t, err, sizeof err) < 0 ||
                    sf_arrow_check_array(&arrays[1], &t, err, sizeof err) < 0) {
                    calls++, errors++;
                    continue;
                }
                sf_query q = {.kernel = kernels[k],
                              .op = within ? SF_OP_INDEX32 : ops[o],
                              .elem = SF_U32};
                q.range.lo = 100;
                q.range.hi = UINT32_MAX / 3;
                if (within) {
                    q.within = pos;
                    q.within_count = n / 3;
                }
                sf_arrow_source as;
                size_t found = 0;
                const int rc =
                    sf_execute(&q, sf_arrow_source_init(&as, &t, arrays, 2), out, n, NULL, &found);
                calls++;
                /* A source read short says so: the binding then raises rather
                 * than answer with an output whose tail was never written. */
                CHECK(as.refused || within || as.base == n,
                      "arrow: %zu of %zu elements read, no chunk refused", (size_t)as.base, n);
                if (within && rc == SF_EOUTOFBOUNDS) { /* a chunk refused on the way */
                    CHECK(as.refused, "arrow: within= out of bounds, no chunk refused");
                    errors++;
                    continue;
                }
                if (as.refused)
                    errors++;
                CHECK(rc == SF_OK, "arrow: rc %d", rc);
                if (rc == SF_OK && (q.op == SF_OP_INDEX32))
                    CHECK(positions_ok(q.op, out, found < n ? found : n, n),
                          "arrow: positions outside the data or not rising");
            }
    }
    race_stop(&r);
    report("arrow", calls, errors);
    for (int k = 0; k < 2; k++)
        free(c.data[k]), free(c.validity[k]);
    free(pos);
    free(out);
}

/* ---- sf_bits_positions ---------------------------------------------------------- */

#define BITS_N ((size_t)1 << 16)

static void scribble_bits(void *ctx, uint64_t round) {
    uint8_t *bits = (uint8_t *)ctx;
    /* all set, then one in 512: far more, then far fewer, than were counted */
    for (size_t i = 0; i < BITS_N / 8; i++)
        STORE(bits + i, round % 2 ? (uint8_t)(i % 64 == 0) : (uint8_t)0xFF);
}

static void race_bits(void) {
    uint8_t *bits = (uint8_t *)calloc(BITS_N / 8, 1);
    racer r;
    race_start(&r, scribble_bits, bits);
    unsigned long calls = 0, errors = 0;
    const double end = now() + seconds_per_case;
    while (now() < end) {
        for (int k = 0; k < nkernels; k++)
            for (int wide = 0; wide < 2; wide++) {
                const sf_op op = wide ? SF_OP_INDEX64 : SF_OP_INDEX32;
                const size_t n = BITS_N - (size_t)k * 3; /* a last partial byte too */
                const size_t count = sf_bits_positions(kernels[k], bits, n, op, NULL, 0);
                calls++;
                if (!count)
                    continue;
                /* exactly the room counted: ASan sees a position written past it */
                void *out = malloc(count * (wide ? 8 : 4));
                const size_t again = sf_bits_positions(kernels[k], bits, n, op, out, count);
                if (again != count)
                    errors++;
                else
                    CHECK(positions_ok(op, out, count, n), "bits: positions out of order");
                free(out);
            }
    }
    race_stop(&r);
    report("bits", calls, errors);
    free(bits);
}

/* ---- sorted data ---------------------------------------------------------------- */

#define SORTED_N ((size_t)1 << 16)

static void scribble_sorted(void *ctx, uint64_t round) {
    int32_t *v = (int32_t *)ctx;
    for (size_t i = round % 61; i < SORTED_N; i += 61)
        STORE(v + i, round % 2 ? (int32_t)i : (int32_t)(round * 2654435761u));
}

static void race_sorted(void) {
    int32_t *v = (int32_t *)malloc(SORTED_N * 4);
    for (size_t i = 0; i < SORTED_N; i++)
        v[i] = (int32_t)i;
    uint32_t *out = (uint32_t *)malloc(SORTED_N * 4);
    racer r;
    race_start(&r, scribble_sorted, v);
    unsigned long calls = 0;
    const double end = now() + seconds_per_case / 2;
    while (now() < end) {
        for (int k = 0; k < nkernels; k++) {
            sf_query q = {.kernel = kernels[k], .op = SF_OP_INDEX32, .elem = SF_U32};
            q.range.lo = 1000;
            q.range.hi = 40000;
            const sf_run run = {.data = v, .n = SORTED_N, .stride = 4};
            sf_run_source one;
            sf_sorted_source sorted;
            sf_source *src = sf_sorted_source_init(&sorted, sf_run_source_init(&one, &run),
                                                   SF_T_I32, &q.range);
            size_t found = 0;
            const int rc = sf_execute(&q, src, out, SORTED_N, NULL, &found);
            calls++;
            CHECK(rc == SF_OK && positions_ok(q.op, out, found, SORTED_N),
                  "sorted: rc %d or positions outside the run", rc);
        }
    }
    race_stop(&r);
    report("sorted", calls, 0);
    free(out);
    free(v);
}

int main(int argc, char **argv) {
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
            seconds_per_case = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
    rng_seed(seed);
    find_kernels();
    printf("seed %llu, kernels", (unsigned long long)seed);
    for (int k = 0; k < nkernels; k++)
        printf(" %s", kernels[k]->name);
    printf("\n");
    for (int wide = 0; wide < 2; wide++) {
        if (wanted("within-sparse"))
            race_within(wide, 64);
        if (wanted("within-dense"))
            race_within(wide, 4);
    }
    if (wanted("out"))
        race_out();
    if (wanted("arrow"))
        race_arrow();
    if (wanted("bits"))
        race_bits();
    if (wanted("sorted"))
        race_sorted();
    printf("TOTAL failures=%d status=%s\n", failures, failures ? "FAIL" : "OK");
    return failures != 0;
}
