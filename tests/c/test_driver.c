/*
 * Test of the driver (csrc/lib/driver.c: sf_execute over sources of runs, and
 * csrc/lib/team.c: a run on several threads) against
 * a reference written here, for every kernel this CPU supports. No Python.
 *
 *   driver_test [--seed N] [--quick] [--half-lengths] [--kernel NAME]
 *               [--strict-threads] [--count-out-nonnull] [--max-threads-case]
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
 *     Threads 1, 2, 3, 4 and 8; every other input, some threads start up to
 *     2 ms late (a wrapped start routine sleeps first), as threads parked behind
 *     another process do, so blocks are held and placed out of turn;
 *   - sources of one run and (one thread) of 2 to 4 runs cut at random places,
 *     positions continuing; sf_execute's cancel callback stopping a long call,
 *     on one thread and (a run of 2^38 elements at stride 0) on 2 to 4;
 *   - runs across a cancel block (2^24 + 32769) and of 3 * 2^18 + 4097
 *     elements, with and without mask nulls: threads 2-4 equal one thread;
 *   - the masks (mask8, bits): every result checked, the bits past the last
 *     element 0, from sources of runs cut anywhere (runs that start inside a
 *     byte of a bits output), capacities that stop anywhere;
 *   - within= (driver_within.h): count, index32 and index64 at given positions,
 *     uint32 and uint64, on direct and gathered runs, with and without nulls,
 *     one range and several, sources of 1 to 4 runs; positions either side of
 *     the driver's dense pass (16 elements per position), its 4096-element
 *     windows and its 1024-position blocks; bounded outputs; and the codes of
 *     positions that do not ascend or lie outside the data;
 *   - outputs with room for n, exactly the count, and below it
 *     (count - 1, count / 2, 0): the output ends at a PROT_NONE page, so one
 *     byte written past capacity crashes; a canary guards the bytes before it.
 *
 * How one call is run and checked (the wrapped pthread_create, the report,
 * check_call) is in driver_check.h; this file says which calls are made.
 *
 * Inputs (built in driver_inputs.h, with the reference) live between PROT_NONE
 * pages (placed against the upper or the lower one, alternately) and are
 * read-only while the driver runs; the bytes between strided elements are
 * random, so reading the wrong bytes shows.
 *
 * --quick trims the thread cases (for slow sanitizers); --half-lengths halves
 * them again (each kind takes every other length: pytest's quick loop).
 * --strict-threads also fails when a call runs on more threads than it was
 * given (caller included).
 * --count-out-nonnull gives count a non-NULL output pointer (the binding passes
 * NULL; the driver once computed NULL + 0 from it, which clang's UBSan reports).
 * --max-threads-case runs only threads = 256 on 2^26 + 1 elements, where the
 * split once yielded 257 parts for an array of 256.
 *
 * The first difference stops the run with a report and exit status 1.
 * Output lines the pytest driver parses:
 *   kernel NAME: supported|unsupported
 *   checked KIND OP: runs=R
 *   checked within KIND OP: runs=R
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
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/library.h"
#include "simdfilter.h"
#include "test_common.h"

#define MAX_KERNELS 16

/* The wrapped pthread_create, the options and the report, the inputs and their
 * reference, and check_call. */
#include "driver_check.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* within=: positions given (after now(), which it reports with). */
#include "driver_within.h"

/* ---- The cases ------------------------------------------------------------- */

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
static const int THREADS[] = {1, 2, 3, 4, 8};

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
    const sf_exec opts = {1, cancel_at_once, NULL, 0, 0};
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

/* With threads, the calling thread polls between its blocks, about every
 * SF_CANCEL_BLOCK elements of the whole call: a call that would run for
 * minutes (stride 0: the gather path) stops after a poll, with what it found
 * up to there: a prefix of the results, positions exact. */
static void cancel_threads_case(const sf_kernel *k) {
    static const unsigned char zero = 0;
    const size_t n = (size_t)1 << 38, room = (size_t)1 << 20;
    uint64_t *out = malloc(room * sizeof *out);
    if (!out)
        fail(NULL, "cancel threads case: out of memory");
    sf_query q = {.kernel = k, .op = SF_OP_INDEX64, .elem = SF_U8};
    sf_run run = {.data = &zero, .n = n, .stride = 0};
    for (int threads = 2; threads <= 4; threads++)
        for (int op = SF_OP_INDEX64; op <= SF_OP_COUNT; op += SF_OP_COUNT - SF_OP_INDEX64) {
            const sf_exec opts = {threads, cancel_at_once, NULL, 0, 0};
            sf_run_source one;
            size_t found = 0;
            q.op = (sf_op)op;
            cancel_calls = 0;
            g_created = 0;
            const double t0 = now();
            const int rc = sf_execute(&q, sf_run_source_init(&one, &run),
                                      op == SF_OP_COUNT ? NULL : (void *)out, room, &opts, &found);
            if (rc != SF_ECANCELLED || cancel_calls != 1 || g_created == 0)
                fail(NULL, "cancel threads case (%s, threads=%d): rc=%d after %d polls, %d threads "
                     "created; expected SF_ECANCELLED after 1 poll, threaded", op_names[op],
                     threads, rc, cancel_calls, g_created);
            if (op == SF_OP_COUNT && (found < SF_CANCEL_BLOCK || found > 64 * SF_CANCEL_BLOCK))
                fail(NULL, "cancel threads case: counted %zu before stopping", found);
            if (op != SF_OP_COUNT) {
                if (found != room)
                    fail(NULL, "cancel threads case: found %zu, expected the room, %zu", found, room);
                for (size_t i = 0; i < found; i++)
                    if (out[i] != i)
                        fail(NULL, "cancel threads case: result %zu is %" PRIu64, i, out[i]);
            }
            printf("cancel threads case: threads=%d %s stopped after %.3f s\n", threads,
                   op_names[op], now() - t0);
        }
    free(out);
}

/* Runs across a cancel block and of lengths that are no multiple of the
 * thread block, with and without nulls: every thread count gives exactly the
 * results of one thread, which the cases above check against the reference. */
static void long_run_case(const sf_kernel *k) {
    static const size_t lengths[] = {SF_CANCEL_BLOCK + 32769, 3 * ((size_t)1 << 18) + 4097};
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        const size_t n = lengths[li];
        unsigned char *data = malloc(n), *nulls = malloc(n);
        uint32_t *one = malloc(n * 4), *many = malloc(n * 4);
        if (!data || !nulls || !one || !many)
            fail(NULL, "long run case: out of memory");
        for (size_t i = 0; i < n; i++) {
            data[i] = (unsigned char)below(256);
            nulls[i] = chance(10);
        }
        sf_query q = {.kernel = k, .elem = SF_U8, .range = {.lo = 20, .hi = 150}};
        for (int with_nulls = 0; with_nulls < 2; with_nulls++)
            for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
                if (op == SF_OP_INDEX64)
                    continue; /* the same code as index32 here */
                sf_run run = {.data = data, .n = n, .stride = 1, .base = 7};
                if (with_nulls) {
                    run.null_form = SF_NULLS_BYTES;
                    run.nulls = nulls;
                    run.null_stride = 1;
                }
                q.op = (sf_op)op;
                size_t want = 0;
                for (int threads = 1; threads <= 4; threads++) {
                    const sf_exec opts = {threads, NULL, NULL, 0, 0};
                    sf_run_source src;
                    size_t got = 0;
                    uint32_t *dst = threads == 1 ? one : many;
                    if (op != SF_OP_COUNT)
                        memset(dst, 0xA5, n * 4);
                    g_created = 0;
                    /* A mask from 3 runs cut anywhere: the bits of each run
                     * after the first start inside a byte, then go on threads. */
                    const int mask = sf_op_is_mask((sf_op)op);
                    pieces_source cut;
                    sf_source *from = mask ? pieces_init(&cut, &run, 3) : sf_run_source_init(&src, &run);
                    const int rc = sf_execute(&q, from, op == SF_OP_COUNT ? NULL : dst, n, &opts, &got);
                    if (rc != SF_OK || (threads > 1 && g_created == 0 && !mask))
                        fail(NULL, "long run case: rc=%d, %d threads created", rc, g_created);
                    const size_t bytes = mask ? sf_output_bytes((sf_op)op, SF_U8, n)
                                              : got * (op == SF_OP_VALUES ? 1 : 4);
                    if (threads == 1)
                        want = got;
                    else if (got != want || (op != SF_OP_COUNT && memcmp(one, many, bytes) != 0))
                        fail(NULL, "long run case: n=%zu nulls=%d %s threads=%d differs from one "
                             "thread (%zu vs %zu results)", n, with_nulls, op_names[op], threads,
                             got, want);
                }
            }
        printf("long run case: n=%zu, threads 1-4 agree\n", n);
        free(data);
        free(nulls);
        free(one);
        free(many);
    }
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

/* The automatic thread count: one thread below its thresholds, never more than
 * the CPUs this process may use, and (on Linux) one CPU fewer while another
 * process spins: the busy CPU is left alone. */
static void auto_threads_case(void) {
    const int cpus = sf_available_cpus();
    const size_t huge = (size_t)1 << 40;
    int got;
    if ((got = sf_auto_threads(0)) != 1 || (got = sf_auto_threads(((size_t)16 << 20) - 1)) != 1)
        fail(NULL, "auto threads: below 2 x 8 MiB a call gets more than one thread (got %d, %d CPUs available)", got, cpus);
    if ((got = sf_auto_threads_fresh(((size_t)32 << 20) - 1)) != 1)
        fail(NULL, "auto threads: a fresh output below 2 x 16 MiB gets more than one thread (got %d, %d CPUs available)", got, cpus);
    if ((got = sf_auto_threads(huge)) < 1 || got > cpus ||
        (got = sf_auto_threads_fresh(huge)) < 1 || got > cpus)
        fail(NULL, "auto threads: outside [1, CPUs available] (got %d, %d CPUs available)", got, cpus);
#ifdef __linux__
    int ready[2];
    if (pipe(ready) != 0)
        fail(NULL, "pipe: %s", strerror(errno));
    const pid_t spinner = fork();
    if (spinner < 0)
        fail(NULL, "fork: %s", strerror(errno));
    if (spinner == 0) { /* runnable until killed */
        const char byte = 1;
        if (write(ready[1], &byte, 1) != 1)
            _exit(1);
        for (volatile unsigned long spin = 0;; spin++) {
        }
    }
    char byte;
    const int started = read(ready[0], &byte, 1) == 1;
    got = sf_auto_threads(huge);
    kill(spinner, SIGKILL);
    waitpid(spinner, NULL, 0);
    close(ready[0]);
    close(ready[1]);
    if (!started)
        fail(NULL, "auto threads: the spinning process did not start");
    if (got > (cpus > 1 ? cpus - 1 : 1))
        fail(NULL, "auto threads: another process spins, yet the call takes every CPU (got %d, %d CPUs available)", got, cpus);
    printf("auto threads: %d of %d CPUs with another process spinning\n", got, cpus);
#endif
}

/* 1. Lengths around the gather chunk, every layout, every kernel, one thread
 *    (and two: below 2^19 elements the driver must not split, and must not care). */
static void chunk_cases(const sf_kernel *const *kernels, int nk) {
    const double t0 = now();
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
    printf("chunk cases: %ld runs in %.2f s\n", g_runs, now() - t0);
}

/* Calls that split across threads, and calls whose thread creation was refused. */
typedef struct {
    int splits, fallbacks;
} split_tally;

/* Every op of one input on `threads` threads: the driver started threads
 * exactly when library.h's rule lets it split. report: print the split line. */
static void check_split(const input *in, const sf_kernel *k, int threads, int report,
                        split_tally *tally) {
    for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
        check_call(in, k, (sf_op)op, threads, 0, 0);
        call_desc c = {k->name, in->layout, "sf_execute", in->kind, (sf_op)op,
                       in->n, 0, in->stride, in->swap, threads, in->misalign, 0,
                       in->ranges, in->nranges, in->every, 1, &in->nulls};
        int split = may_split(in->n, threads);
        if (split && g_created + g_refused == 0)
            fail(&c, "did not split %zu elements across %d threads", in->n, threads);
        if (!split && g_created + g_refused)
            fail(&c, "started %d threads for %zu elements (< 2 * 2^18)",
                 g_created + g_refused, in->n);
        if (op == 0 && split && report)
            printf("split threads=%d n=%zu created=%d refused=%d\n", threads,
                   in->n, g_created, g_refused);
        tally->splits += split && g_created > 0;
        tally->fallbacks += g_refused > 0;
    }
}

/* One input of the thread cases (the rotate-th): every thread count, then
 * bounded outputs on three threads. */
static void thread_case(const input *in, const sf_kernel *k, unsigned rotate, int report,
                        split_tally *tally) {
    for (size_t ti = 0; ti < sizeof THREADS / sizeof *THREADS; ti++) {
        /* Every third input: every other pthread_create fails, so the
         * driver's run-it-here fallback is exercised. */
        g_fail_every = rotate % 3 == 0 ? 2 : 0;
        /* Every other input: some threads start up to 2 ms late. */
        g_delay_every = rotate % 2 == 0 ? 2 : 0;
        g_create_calls = 0;
        check_split(in, k, THREADS[ti], report, tally);
        g_fail_every = g_delay_every = 0;
    }
    /* Bounded on big inputs: exact count (the staged serial path) and
     * less; room for n takes the threaded path. (A mask's capacity counts
     * elements: the count is one more place to stop.) */
    for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
        if (op == SF_OP_COUNT)
            continue;
        check_call(in, k, (sf_op)op, 3, 1, in->n);
        check_call(in, k, (sf_op)op, 3, 1, in->exp.count);
        if (in->exp.count)
            check_call(in, k, (sf_op)op, 3, 1, in->exp.count - 1);
    }
}

/* 2. Lengths around the thread split. The kernel rotates so that each one
 *    meets every kind across the cases; each input gets every op and threads. */
static void thread_cases(const sf_kernel *const *kernels, int nk) {
    const double t0 = now();
    const size_t *lens = g_quick ? THREAD_LENGTHS_QUICK : THREAD_LENGTHS;
    size_t nlens = g_quick ? sizeof THREAD_LENGTHS_QUICK / sizeof *THREAD_LENGTHS_QUICK
                           : sizeof THREAD_LENGTHS / sizeof *THREAD_LENGTHS;
    const size_t nlayouts = sizeof THREAD_LAYOUTS / sizeof *THREAD_LAYOUTS;
    const long runs_before = g_runs;
    unsigned rotate = 0;
    split_tally tally = {0, 0};
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (size_t ni = 0; ni < nlens; ni++) {
            /* Each length once per kind; the layout and byte order rotate with
             * it so that every kind meets every thread layout, both ways.
             * --half-lengths: every other length per kind, alternately (each
             * length still meets half the kinds), the layout and byte order
             * rotating with the cases made, so every layout meets both. */
            if (g_half_lengths && (ni + (size_t)kind) % 2)
                continue;
            size_t li = (g_half_lengths ? rotate : ni + (size_t)kind) % nlayouts;
            int swap = (int)((g_half_lengths ? rotate / nlayouts : ni / 2 + (size_t)kind) % 2);
            input in;
            input_make(&in, (sf_elem)kind, &LAYOUTS[THREAD_LAYOUTS[li]], lens[ni], swap);
            const sf_kernel *k = kernels[rotate++ % (unsigned)nk];
            thread_case(&in, k, rotate, kind == 0, &tally);
            input_free(&in);
        }
    if (!tally.splits || !tally.fallbacks)
        fail(NULL, "the thread cases never split (%d) or never fell back (%d)", tally.splits,
             tally.fallbacks);
    printf("thread cases: %ld runs in %.2f s (%d split calls, %d with a refused thread)\n",
           g_runs - runs_before, now() - t0, tally.splits, tally.fallbacks);
}

/* ---- Main ------------------------------------------------------------------ */

/* The options into the g_ globals; 1 for --max-threads-case. */
static int parse_args(int argc, char **argv) {
    int max_threads_only = 0;
    g_argv0 = argv[0];
    g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            g_seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--quick"))
            g_quick = 1;
        else if (!strcmp(argv[i], "--half-lengths"))
            g_half_lengths = 1;
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
            g_only_kernel = argv[++i];
        else if (!strcmp(argv[i], "--strict-threads"))
            g_strict_threads = 1;
        else if (!strcmp(argv[i], "--count-out-nonnull"))
            g_count_out_nonnull = 1;
        else if (!strcmp(argv[i], "--max-threads-case"))
            max_threads_only = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--quick] [--half-lengths] [--kernel NAME] "
                            "[--strict-threads] [--count-out-nonnull] [--max-threads-case]\n",
                    argv[0]);
            exit(2);
        }
    }
    return max_threads_only;
}

/* The kernels to test (those this CPU runs, or the --kernel one), each
 * reported; their number, at least 1. */
static int select_kernels(const sf_kernel **kernels) {
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
    return nk;
}

static void print_totals(const sf_kernel *const *kernels, int nk, double t0) {
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++)
            printf("checked %s %s: runs=%ld\n", sf_elem_name((sf_elem)kind), op_names[op],
                   g_checked[kind][op]);
    printf("TOTAL runs=%ld kernels=", g_runs);
    for (int i = 0; i < nk; i++)
        printf("%s%s", i ? "," : "", kernels[i]->name);
    printf(" time=%.2f status=OK\n", now() - t0);
}

int main(int argc, char **argv) {
    const int max_threads_only = parse_args(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    rng_seed(g_seed);
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    printf("seed %" PRIu64 "\n", g_seed);

    const sf_kernel *kernels[MAX_KERNELS];
    const int nk = select_kernels(kernels);
    const sf_kernel *last = kernels[nk - 1];

    /* Big enough for 2^20 + 77 results of 8 bytes plus the canary (and 2^26 + 1
     * nothing: the max-threads case counts). */
    g_out = region_new((4 * M18 + 77) * 8 + CANARY + 64);
    const double t0 = now();

    if (max_threads_only) {
        max_threads_case(last);
        printf("TOTAL runs=%ld kernels=%s time=%.2f status=OK\n", g_runs, last->name,
               now() - t0);
        return 0;
    }
    auto_threads_case();
    chunk_cases(kernels, nk);
    within_cases(kernels, nk);
    thread_cases(kernels, nk);
    cancel_case(last);
    cancel_threads_case(last);
    g_delay_every = 3;
    long_run_case(last);
    g_delay_every = 0;
    print_totals(kernels, nk, t0);
    guarded_free(&g_out, page_size);
    return 0;
}
