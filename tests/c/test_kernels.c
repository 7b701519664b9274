/*
 * Differential test of every kernel compiled into this build against the scalar
 * kernel, through the public C API only (simdfilter.h). No Python.
 *
 *   test_kernels [--seed N] [--quick] [--kernel NAME] [--rounds R] [--mid M] [--large L]
 *           [--max-len N] [--list]
 *
 * Every case is checked three ways: the scalar kernel against a specification
 * written from the header's wording (spec_keep, in test_common.h: so the
 * reference itself is tested), then every other supported kernel against that
 * same expected result, for every operation (index32 with a base, index64
 * with a base, values, count, and the masks mask8 and bits, whose every
 * result, and for bits every bit past n in the last byte, is checked).
 *
 * Out-of-bounds accesses must crash rather than pass: the input and every output
 * live in arenas fenced by PROT_NONE pages and are placed, case by case, to end
 * exactly at the fence, to start exactly after it, or in the middle between
 * canaries. The input pages are read-only while kernels run. The first
 * difference stops the run with a report and exit status 1; a crash prints what
 * was running before the signal takes its course (test_crash.h). The checks of
 * the dispatch table and the u32 convenience functions are in test_api.h, those
 * of the slots with nulls and given positions in test_nulls_within.h.
 *
 * Output lines the pytest driver parses (keep them stable):
 *   kernel NAME: reference|supported|unsupported|not selected
 *   known NAME arch=ARCH: built|not built        (every kernel of isa.def)
 *   slot NAME OP ELEM: from LOWER                (a slot dispatch filled from LOWER)
 *   compared NAME KIND: index32=A index64=B values=C count=D mask8=E bits=F ... total=T
 *   TOTAL comparisons=N cases=C kernels=a,b time=S status=OK
 */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, clock_gettime, sigaction */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/prctl.h>
#endif

#include "simdfilter.h"
#include "test_cases.h"
#include "test_common.h"

#define MAX_KERNELS 16
#define CANARY 64 /* bytes checked on each side of an output not fenced by a guard page */

/* ---- Failure reporting ---------------------------------------------------- */

static uint64_t g_seed;
static int g_quick;
static const char *g_only_kernel;
static char g_argv0[256];

static void reproduce_hint(void) {
    printf("reproduce: %s --seed %" PRIu64 "%s%s%s\n", g_argv0, g_seed, g_quick ? " --quick" : "",
           g_only_kernel ? " --kernel " : "", g_only_kernel ? g_only_kernel : "");
}

static void die(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    reproduce_hint();
    printf("TOTAL status=FAIL\n");
    fflush(stdout);
    exit(1);
}

#include "test_crash.h"

/* ---- Guarded arenas ------------------------------------------------------- */

static size_t page_size;

typedef guarded_mem arena; /* between PROT_NONE pages: see test_common.h */

static arena arena_new(size_t min_size) {
    arena a;
    const char *failed = guarded_new(&a, min_size, page_size);
    if (failed)
        die("%s failed: %s", failed, strerror(errno));
    return a;
}

/* Only the pages holding [p, p + bytes): the whole arena would cost a system
 * call's worth of page-table work per case for nothing. */
static void arena_protect(const unsigned char *p, size_t bytes, int prot) {
    uintptr_t from = (uintptr_t)p / page_size * page_size;
    uintptr_t to = ((uintptr_t)p + bytes + page_size - 1) / page_size * page_size;
    if (to > from && mprotect((void *)from, to - from, prot))
        die("mprotect failed: %s", strerror(errno));
}

enum { PLACE_END, PLACE_START, PLACE_MIDDLE, PLACE_N };
static const char *const place_names[PLACE_N] = {"ends at guard page", "starts at guard page",
                                                 "between canaries"};

/* A buffer of `bytes`, aligned to `align`, placed in the arena as `place` says.
 * In the middle its start is misaligned from 64 bytes by a random multiple of
 * `align`, so kernels see every start alignment. */
static unsigned char *arena_place(const arena *a, int place, size_t bytes, size_t align,
                                  size_t shift) {
    switch (place) {
    case PLACE_END:
        return a->base + a->size - bytes;
    case PLACE_START:
        return a->base;
    default:
        return a->base + CANARY + (shift % 64) / align * align;
    }
}

static unsigned char canary_byte(size_t i) { return (unsigned char)(0xA5 ^ (i * 31)); }

/* Fill the bytes of the arena around [p, p + bytes) (up to CANARY each side). */
static void canary_fill(const arena *a, unsigned char *p, size_t bytes) {
    unsigned char *lo = p - a->base >= CANARY ? p - CANARY : a->base;
    unsigned char *end = p + bytes, *arena_end = a->base + a->size;
    unsigned char *hi = (size_t)(arena_end - end) >= CANARY ? end + CANARY : arena_end;
    for (unsigned char *q = lo; q < p; q++)
        *q = canary_byte((size_t)(p - q));
    for (unsigned char *q = end; q < hi; q++)
        *q = canary_byte((size_t)(q - end) + 1000);
}

/* Offset of the first clobbered canary byte (negative: before the buffer), or 0. */
static long canary_check(const arena *a, unsigned char *p, size_t bytes) {
    unsigned char *lo = p - a->base >= CANARY ? p - CANARY : a->base;
    unsigned char *end = p + bytes, *arena_end = a->base + a->size;
    unsigned char *hi = (size_t)(arena_end - end) >= CANARY ? end + CANARY : arena_end;
    for (unsigned char *q = lo; q < p; q++)
        if (*q != canary_byte((size_t)(p - q)))
            return -(long)(p - q);
    for (unsigned char *q = end; q < hi; q++)
        if (*q != canary_byte((size_t)(q - end) + 1000))
            return (long)(q - end) + 1;
    return 0;
}

/* ---- Element access (the rest is in test_common.h) ------------------------ */

static size_t esize(sf_elem k) { return sf_elem_size(k); }

/* ---- Running and comparing ------------------------------------------------ */

typedef struct {
    const sf_kernel *k;
    int supported;
    unsigned long long cmp[SF_ELEM_COUNT][SF_OP_COUNT_OF_OPS];
} kstate;

static kstate kernels[MAX_KERNELS];
static unsigned long long ranges_cmp[MAX_KERNELS][SF_ELEM_COUNT]; /* bits_ranges checks */
static int nkernels;
static unsigned long long total_cmp, total_cases;

static arena in_arena, out_arena;
static size_t *expect; /* positions the specification keeps, for the current case */

typedef struct {
    sf_elem elem;
    size_t n;
    sf_range r;
    uint32_t base32;
    uint64_t base64;
    const unsigned char *x;
    int in_place, out_place;
    size_t out_shift;
    const char *shape;
    char data_desc[96];
    size_t kept;
} tcase;

static void describe_value(sf_elem k, uint64_t bits, char *buf, size_t cap) {
    if (is_float(k))
        snprintf(buf, cap, "%.9g (bits 0x%0*" PRIx64 ")", fval(k, bits), (int)esize(k) * 2, bits);
    else
        snprintf(buf, cap, "%" PRIu64 " (0x%0*" PRIx64 ", signed %" PRId64 ")", bits,
                 (int)esize(k) * 2, bits, as_signed(k, bits));
}

static void print_case(const tcase *c) {
    char lo[96], hi[96];
    if (is_float(c->elem)) {
        snprintf(lo, sizeof lo, "%.17g (%a)", c->r.flo, c->r.flo);
        snprintf(hi, sizeof hi, "%.17g (%a)", c->r.fhi, c->r.fhi);
    } else {
        describe_value(c->elem, c->r.lo, lo, sizeof lo);
        describe_value(c->elem, c->r.hi, hi, sizeof hi);
    }
    printf("  case #%llu: elem %s, n = %zu, range [%s, %s] (%s)%s\n", total_cases,
           sf_elem_name(c->elem), c->n, lo, hi, c->shape, c->r.invert ? ", inverted" : "");
    printf("  data: %s; %zu of %zu kept by the specification\n", c->data_desc, c->kept, c->n);
    printf("  input %s, start address %% 64 = %u; output %s; index32 base %" PRIu32
           ", index64 base %" PRIu64 "\n",
           place_names[c->in_place], (unsigned)((uintptr_t)c->x % 64), place_names[c->out_place],
           c->base32, c->base64);
}

static void print_neighbourhood(const tcase *c, size_t i) {
    size_t from = i >= 3 ? i - 3 : 0, to = i + 4 < c->n ? i + 4 : c->n;
    for (size_t j = from; j < to; j++) {
        char v[96];
        uint64_t b = load_bits(c->elem, c->x, j);
        describe_value(c->elem, b, v, sizeof v);
        printf("    x[%zu] = %s  %s\n", j, v, spec_keep(c->elem, b, &c->r) ? "IN" : "out");
    }
}

static void fail_header(const kstate *ks, int op, const tcase *c, const char *what) {
    fflush(stdout);
    printf("\nFAIL: kernel %s, op %s, elem %s: %s\n", ks->k->name, op_names[op],
           sf_elem_name(c->elem), what);
    if (strcmp(ks->k->name, "scalar"))
        printf("  (the scalar kernel agreed with the specification on this case)\n");
    else
        printf("  (the REFERENCE disagrees with the header's specification)\n");
    print_case(c);
}

static void fail_footer(void) {
    reproduce_hint();
    printf("TOTAL status=FAIL\n");
    fflush(stdout);
    exit(1);
}

/* Expected output element j of operation op. */
static uint64_t expected_at(const tcase *c, int op, size_t j) {
    switch (op) {
    case SF_OP_INDEX32: return (uint32_t)(c->base32 + (uint32_t)expect[j]);
    case SF_OP_INDEX64: return c->base64 + expect[j];
    default: return load_bits(c->elem, c->x, expect[j]);
    }
}

/* Whether the specification keeps element i of the case (mask_mismatch's test). */
static int case_keeps(size_t i, const void *ctx) {
    const tcase *c = (const tcase *)ctx;
    return spec_keep(c->elem, load_bits(c->elem, c->x, i), &c->r);
}

/* mask8 and bits: a result for every element, exactly out[0, sf_output_bytes)
 * written (the canaries and guard pages around it), the bits past n 0. */
static void run_mask_one(kstate *ks, int op, const tcase *c) {
    const sf_kernel *k = ks->k;
    const size_t bytes = sf_output_bytes((sf_op)op, c->elem, c->n);
    unsigned char *out = arena_place(&out_arena, c->out_place, bytes, 1, c->out_shift);
    memset(out, 0xEE, bytes);
    canary_fill(&out_arena, out, bytes);
    cur_kernel = k->name;
    cur_op = op;
    const size_t got = op == SF_OP_MASK8 ? k->mask8[c->elem](c->x, c->n, &c->r, out)
                                         : k->bits[c->elem](c->x, c->n, &c->r, out);
    cur_op = -1;
    cur_kernel = "(harness)";
    const long bad = canary_check(&out_arena, out, bytes);
    if (bad) {
        fail_header(ks, op, c, "wrote outside its output buffer");
        printf("  canary clobbered %ld byte(s) %s the output buffer of %zu bytes\n",
               bad < 0 ? -bad : bad, bad < 0 ? "before the start of" : "past the end of", bytes);
        fail_footer();
    }
    const size_t at = mask_mismatch((sf_op)op, out, c->n, case_keeps, c);
    if (at != (size_t)-1) {
        fail_header(ks, op, c, "wrong mask");
        printf("  result %zu is %u%s\n", at, mask_result((sf_op)op, out, at),
               at >= c->n ? " (a bit past n)" : "");
        if (at < c->n)
            print_neighbourhood(c, at);
        fail_footer();
    }
    if (got != c->kept) {
        fail_header(ks, op, c, "wrong count");
        printf("  returned %zu, expected %zu (the mask itself is right)\n", got, c->kept);
        fail_footer();
    }
    ks->cmp[c->elem][op]++;
    total_cmp++;
}

/* bits_ranges: the case's range and up to SF_RANGES_AT_ONCE - 1 more, ORed or
 * ANDed, checked as bits are (every result, the bits past n 0, nothing
 * written outside the output, the count). */
typedef struct {
    const tcase *c;
    const sf_range *r;
    size_t k;
    int every;
} ranges_case;

static int ranges_keep(size_t i, const void *ctx) {
    const ranges_case *q = (const ranges_case *)ctx;
    return spec_keep_ranges(q->c->elem, load_bits(q->c->elem, q->c->x, i), q->r, q->k, q->every);
}

static void run_ranges(int ki, const tcase *c, const ranges_case *q, size_t want) {
    const sf_kernel *k = kernels[ki].k;
    const size_t bytes = sf_output_bytes(SF_OP_BITS, c->elem, c->n);
    unsigned char *out = arena_place(&out_arena, c->out_place, bytes, 1, c->out_shift);
    memset(out, 0xEE, bytes);
    canary_fill(&out_arena, out, bytes);
    cur_kernel = k->name;
    cur_op = SF_OP_BITS;
    const size_t got = k->bits_ranges[c->elem](c->x, c->n, q->r, q->k, q->every, out);
    cur_op = -1;
    cur_kernel = "(harness)";
    const long bad = canary_check(&out_arena, out, bytes);
    const size_t at = mask_mismatch(SF_OP_BITS, out, c->n, ranges_keep, q);
    if (bad || at != (size_t)-1 || got != want) {
        fail_header(&kernels[ki], SF_OP_BITS, c, "bits_ranges is wrong");
        printf("  bits_ranges of %zu ranges, kept when in %s (the case's range is the first):\n",
               q->k, q->every ? "every one" : "any");
        for (size_t j = 0; j < q->k; j++)
            printf("    lo=0x%" PRIx64 " hi=0x%" PRIx64 " flo=%a fhi=%a invert=%d\n", q->r[j].lo,
                   q->r[j].hi, q->r[j].flo, q->r[j].fhi, q->r[j].invert);
        if (bad)
            printf("  canary clobbered %ld byte(s) %s the output\n", bad < 0 ? -bad : bad,
                   bad < 0 ? "before" : "past");
        if (at != (size_t)-1)
            printf("  result %zu is %u%s\n", at, mask_result(SF_OP_BITS, out, at),
                   at >= c->n ? " (a bit past n)" : "");
        if (got != want)
            printf("  returned %zu, expected %zu\n", got, want);
        fail_footer();
    }
    ranges_cmp[ki][c->elem]++;
    total_cmp++;
}

static void run_ranges_all(const tcase *c) {
    sf_range r[SF_RANGES_AT_ONCE];
    const char *shape;
    ranges_case q = {c, r, 1 + (size_t)below(SF_RANGES_AT_ONCE), (int)below(2)};
    r[0] = c->r;
    for (size_t j = 1; j < q.k; j++)
        make_range_any(c->elem, &r[j], &shape);
    size_t want = 0;
    for (size_t i = 0; i < c->n; i++)
        want += (size_t)ranges_keep(i, &q);
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            run_ranges(ki, c, &q, want);
}

static void run_one(kstate *ks, int op, const tcase *c) {
    if (sf_op_is_mask((sf_op)op)) {
        run_mask_one(ks, op, c);
        return;
    }
    const sf_kernel *k = ks->k;
    const sf_elem elem = c->elem;
    /* count writes nothing; its (empty) output is placed as the elements would be */
    const size_t osz = op == SF_OP_COUNT ? esize(elem) : sf_result_size((sf_op)op, elem);
    const size_t bytes = op == SF_OP_COUNT ? 0 : c->n * osz;
    unsigned char *out = arena_place(&out_arena, c->out_place, bytes, osz, c->out_shift);
    size_t got;

    /* Stale results of the previous kernel must not pass for this one's. */
    memset(out, 0xEE, bytes);
    canary_fill(&out_arena, out, bytes);
    cur_kernel = k->name;
    cur_op = op;
    switch (op) {
    case SF_OP_INDEX32: got = k->index32[elem](c->x, c->n, &c->r, c->base32, (uint32_t *)(void *)out); break;
    case SF_OP_INDEX64: got = k->index64[elem](c->x, c->n, &c->r, c->base64, (uint64_t *)(void *)out); break;
    case SF_OP_VALUES: got = k->values[elem](c->x, c->n, &c->r, out); break;
    default: got = k->count[elem](c->x, c->n, &c->r); break;
    }
    cur_op = -1;
    cur_kernel = "(harness)";

    long bad = canary_check(&out_arena, out, bytes);
    if (bad) {
        fail_header(ks, op, c, "wrote outside its output buffer");
        printf("  canary clobbered %ld byte(s) %s the output buffer of %zu bytes\n",
               bad < 0 ? -bad : bad, bad < 0 ? "before the start of" : "past the end of", bytes);
        fail_footer();
    }
    if (got != c->kept) {
        fail_header(ks, op, c, "wrong count");
        printf("  returned %zu, expected %zu\n", got, c->kept);
        if (op != SF_OP_COUNT && got <= c->n) {
            /* Point at the element it missed or invented: the first output that differs. */
            const sf_elem ok = op == SF_OP_INDEX32 ? SF_U32 : op == SF_OP_INDEX64 ? SF_U64 : elem;
            size_t j = 0, m = got < c->kept ? got : c->kept;
            while (j < m && load_bits(ok, out, j) == expected_at(c, op, j))
                j++;
            if (j < c->kept) {
                printf("  out[%zu] should come from x[%zu]:\n", j, expect[j]);
                print_neighbourhood(c, expect[j]);
            } else if (op != SF_OP_VALUES) {
                const uint64_t mask = op == SF_OP_INDEX32 ? UINT32_MAX : UINT64_MAX;
                const uint64_t pos = (load_bits(ok, out, j) - (op == SF_OP_INDEX32 ? c->base32 : c->base64)) & mask;
                printf("  out[%zu] is position %" PRIu64 ", which the specification rejects:\n", j, pos);
                if (pos < c->n)
                    print_neighbourhood(c, (size_t)pos);
            }
        }
        fail_footer();
    }
    for (size_t j = 0; op != SF_OP_COUNT && j < got; j++) {
        const sf_elem ok = op == SF_OP_INDEX32 ? SF_U32 : op == SF_OP_INDEX64 ? SF_U64 : elem;
        uint64_t have = load_bits(ok, out, j), want = expected_at(c, op, j);
        if (have != want) {
            char hv[96], wv[96];
            fail_header(ks, op, c, "wrong output");
            describe_value(ok, have, hv, sizeof hv);
            describe_value(ok, want, wv, sizeof wv);
            printf("  out[%zu] = %s, expected %s (from x[%zu])\n", j, hv, wv, expect[j]);
            print_neighbourhood(c, expect[j]);
            fail_footer();
        }
    }
    ks->cmp[elem][op]++;
    total_cmp++;
}

static void nw_check_slots(int i);          /* test_nulls_within.h */
static void run_nulls_within(const tcase *c); /* test_nulls_within.h */

static void run_case(sf_elem elem, size_t n, int clustered) {
    tcase c;
    const size_t sz = esize(elem);
    memset(&c, 0, sizeof c);
    c.elem = elem;
    c.n = n;
    make_range_any(elem, &c.r, &c.shape);

    switch (below(4)) {
    case 0: c.base32 = 0; break;
    case 1: c.base32 = (uint32_t)below((1ull << 32) - n + 1); break;
    case 2: c.base32 = (uint32_t)((1ull << 32) - n); break; /* the last position is 2^32 - 1 */
    default: c.base32 = (uint32_t)((1ull << 32) - n - below(n < 4 ? 1 : 4)); break;
    }
    switch (below(5)) {
    case 0: c.base64 = 0; break;
    case 1: c.base64 = (1ull << 32) - below(n + 1); /* positions cross 2^32 */ break;
    case 2: c.base64 = 0ull - n; /* the last position is 2^64 - 1 */ break;
    case 3: c.base64 = (1ull << 31) - below(n + 1); break;
    default: c.base64 = n ? below(0ull - n + 1) : rnd(); break;
    }

    c.in_place = (int)below(PLACE_N);
    c.out_place = (int)below(PLACE_N);
    c.out_shift = (size_t)below(64);
    unsigned char *x = arena_place(&in_arena, c.in_place, n * sz, sz, (size_t)below(64));
    c.x = x;
    if (clustered)
        fill_clustered(elem, x, n, &c.r, c.data_desc, sizeof c.data_desc);
    else
        fill_data(elem, x, n, &c.r, c.data_desc, sizeof c.data_desc);
    for (size_t i = 0; i < n; i++)
        if (spec_keep(elem, load_bits(elem, x, i), &c.r))
            expect[c.kept++] = i;

    cur_elem = elem;
    cur_n = (long)n;
    cur_case = (sig_atomic_t)total_cases;
    arena_protect(x, n * sz, PROT_READ); /* a kernel that writes its input faults */
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++)
                run_one(&kernels[ki], op, &c);
    run_ranges_all(&c);
    run_nulls_within(&c);
    arena_protect(x, n * sz, PROT_READ | PROT_WRITE);
    total_cases++;
}

#include "test_api.h"
#include "test_nulls_within.h"

/* ---- Main ----------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int sve_vector_bits(void) {
#if defined(__aarch64__) && defined(__linux__) && defined(PR_SVE_GET_VL)
    int vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
    return vl < 0 ? 0 : (vl & PR_SVE_VL_LEN_MASK) * 8;
#else
    return 0;
#endif
}

static const char *arch_name(void) {
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#else
    return "other";
#endif
}

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--seed N] [--quick] [--kernel NAME] [--rounds R] [--mid M] [--large L]\n"
            "          [--max-len N] [--list]\n"
            "  --quick      fewer cases (for emulators): still every length 0..300 for every\n"
            "               element kind and operation, plus a few longer and a few large lengths\n"
            "  --kernel     compare only this kernel with scalar\n"
            "  --rounds R   random cases per length 0..300 per kind (default 6, quick 2)\n"
            "  --mid M      random lengths in 301..4096 per kind (default 60, quick 8)\n"
            "  --large L    random lengths up to --max-len per kind (default 6, quick 1)\n"
            "  --max-len N  largest length (default 1000000; at least 24832, the longest\n"
            "               clustered case)\n",
            argv0);
    exit(2);
}

static unsigned long parse_num(const char *s, const char *argv0) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s ? s : "", &end, 0);
    if (!s || !*s || *end || errno)
        usage(argv0);
    return (unsigned long)v;
}

/* How many cases of each kind, from the options. */
typedef struct {
    unsigned long rounds, mid, large, max_len;
    int list_only;
} case_counts;

/* The longest clustered case: several of the x86 kernels' 2048-element windows. */
#define CLUSTERED_MAX_LEN (256 + 24 * 1024)

/* The options into *o and the g_ globals (usage() and exit 2 on a bad one). */
static void parse_args(int argc, char **argv, case_counts *o) {
    int set_rounds = 0, set_mid = 0, set_large = 0;
    *o = (case_counts){6, 60, 6, 1000000, 0};
    g_seed = (uint64_t)time(NULL);
    snprintf(g_argv0, sizeof g_argv0, "%s", argv[0]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed")) g_seed = parse_num(v, argv[0]), i++;
        else if (!strcmp(a, "--quick")) g_quick = 1;
        else if (!strcmp(a, "--kernel") && v) g_only_kernel = v, i++;
        else if (!strcmp(a, "--rounds")) o->rounds = parse_num(v, argv[0]), set_rounds = 1, i++;
        else if (!strcmp(a, "--mid")) o->mid = parse_num(v, argv[0]), set_mid = 1, i++;
        else if (!strcmp(a, "--large")) o->large = parse_num(v, argv[0]), set_large = 1, i++;
        else if (!strcmp(a, "--max-len")) o->max_len = parse_num(v, argv[0]), i++;
        else if (!strcmp(a, "--list")) o->list_only = 1;
        else usage(argv[0]);
    }
    if (g_quick) {
        o->rounds = set_rounds ? o->rounds : 2;
        o->mid = set_mid ? o->mid : 8;
        o->large = set_large ? o->large : 1;
    }
    /* The buffers are sized by max_len: it covers the clustered cases too (a
     * --max-len below them once ran those past the arenas' ends). */
    if (o->max_len < CLUSTERED_MAX_LEN)
        o->max_len = CLUSTERED_MAX_LEN;
}

/* sf_cpu_features against snprintf's contract (the full length whatever the
 * room, truncated and NUL-terminated output, nothing written for size 0), then
 * the harness line with its answer. 0, or 1 after a FAIL line. */
static int print_harness_line(void) {
    char features[256], tiny[5];
    const size_t full = sf_cpu_features(features, sizeof features);
    if (full >= sizeof features || strlen(features) != full ||
        sf_cpu_features(tiny, sizeof tiny) != full ||
        strlen(tiny) != (full < sizeof tiny - 1 ? full : sizeof tiny - 1) ||
        strncmp(tiny, features, strlen(tiny)) != 0 || sf_cpu_features(NULL, 0) != full) {
        printf("FAIL: sf_cpu_features(buf, size) breaks its contract (\"%s\", %zu)\n", features,
               full);
        return 1;
    }
    printf("simdfilter harness: seed=%" PRIu64 " mode=%s arch=%s cpu_features=\"%s\" sve_vl_bits=%d\n",
           g_seed, g_quick ? "quick" : "full", arch_name(), features, sve_vector_bits());
    return 0;
}

/* Every kernel (scalar, at 0, always: the reference) and every benchmark-only
 * variant into kernels[], each reported, those not selected by --kernel
 * marked unsupported. 0, or 2 after a FAIL line when --kernel names none this
 * CPU runs. */
static int select_kernels(void) {
    if (g_only_kernel && !sf_kernel_find(g_only_kernel)) {
        printf("FAIL: no kernel named \"%s\" in this build\n", g_only_kernel);
        return 2;
    }
    for (int i = 0; i < sf_kernel_count() && nkernels < MAX_KERNELS; i++) {
        kstate *ks = &kernels[nkernels++];
        ks->k = sf_kernel_at(i);
        const int selected = i == 0 || !g_only_kernel || !strcmp(ks->k->name, g_only_kernel);
        ks->supported = selected && sf_kernel_supported(ks->k);
        printf("kernel %s: %s\n", ks->k->name,
               i == 0 ? "reference" : !selected ? "not selected" : ks->supported ? "supported" : "unsupported");
    }
    /* The benchmark-only variants (the x86 filter loop without its sparse
     * windows) are compared with scalar like any kernel. */
    for (int v = 0; v < sf_kernel_variant_count() && nkernels < MAX_KERNELS; v++) {
        kstate *ks = &kernels[nkernels++];
        ks->k = sf_kernel_variant_at(v);
        const size_t only = g_only_kernel ? strlen(g_only_kernel) : 0;
        const int selected = !g_only_kernel || !strcmp(ks->k->name, g_only_kernel) ||
                             (!strncmp(ks->k->name, g_only_kernel, only) && ks->k->name[only] == '_');
        ks->supported = selected && sf_kernel_supported(ks->k);
        printf("variant %s: %s\n", ks->k->name,
               !selected ? "not selected" : ks->supported ? "supported" : "unsupported");
    }
    printf("active kernel by default: %s\n", sf_active_kernel()->name);
    if (g_only_kernel && !sf_kernel_supported(sf_kernel_find(g_only_kernel))) {
        printf("FAIL: kernel \"%s\" cannot run on this CPU\n", g_only_kernel);
        return 2;
    }
    return 0;
}

/* The random cases of every element kind: every length 0..300, mid lengths,
 * clustered ones and large ones. */
static void run_cases(const case_counts *o) {
    for (int e = 0; e < SF_ELEM_COUNT; e++) {
        for (size_t n = 0; n <= 300; n++)
            for (unsigned long r = 0; r < o->rounds; r++)
                run_case((sf_elem)e, n, 0);
        for (unsigned long m = 0; m < o->mid; m++)
            run_case((sf_elem)e, 301 + (size_t)below(4096 - 301 + 1), 0);
        /* Clustered, from the x86 kernels' 256-element probe to several
         * 2048-element windows and a partial last one: the sparse path and the
         * dense loop inside one call, switching both ways. */
        for (unsigned long m = 0; m < o->mid; m++)
            run_case((sf_elem)e, 256 + (size_t)below(CLUSTERED_MAX_LEN - 256 + 1), 1);
        for (unsigned long l = 0; l < o->large; l++)
            run_case((sf_elem)e, l == 0 ? o->max_len : 4097 + (size_t)below(o->max_len - 4097 + 1),
                     (int)(l & 1));
    }
}

/* The compared lines of every kernel that ran, the api line and TOTAL. */
static void print_totals(double seconds) {
    int compared = 0;
    char names[256] = "";
    for (int ki = 0; ki < nkernels; ki++) {
        const kstate *ks = &kernels[ki];
        if (!ks->supported)
            continue;
        for (int e = 0; e < SF_ELEM_COUNT; e++) {
            const unsigned long long *c = ks->cmp[e];
            printf("compared %s %s: index32=%llu index64=%llu values=%llu count=%llu "
                   "mask8=%llu bits=%llu",
                   ks->k->name, sf_elem_name((sf_elem)e), c[0], c[1], c[2], c[3],
                   c[SF_OP_MASK8], c[SF_OP_BITS]);
            nw_print(ki, e);
            printf(" bits_ranges=%llu", ranges_cmp[ki][e]);
            printf(" total=%llu\n", c[0] + c[1] + c[2] + c[3] + c[SF_OP_MASK8] + c[SF_OP_BITS]);
        }
        if (ki > 0) {
            compared++;
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", len ? "," : "", ks->k->name);
        }
    }
    printf("api checks: %llu (dispatch table, sf_use_kernel, sf_filter_indexes_u32, "
           "sf_count_in_range_u32)\n", api_checks);
    printf("TOTAL comparisons=%llu cases=%llu kernels=%s time=%.2fs status=OK\n", total_cmp,
           total_cases, compared ? names : "(none besides scalar)", seconds);
}

int main(int argc, char **argv) {
    case_counts o;
    parse_args(argc, argv, &o);
    setvbuf(stdout, NULL, _IOLBF, 0);
    page_size = (size_t)sysconf(_SC_PAGESIZE);
    rng_seed(g_seed);
    if (print_harness_line())
        return 1;
    const int status = select_kernels();
    if (status || o.list_only)
        return status;

    install_crash_handler();
    in_arena = arena_new(o.max_len * 8 + 2 * CANARY + 64);
    out_arena = arena_new(o.max_len * 8 + 2 * CANARY + 64);
    expect = malloc(o.max_len * sizeof *expect);
    if (!expect)
        die("out of memory");
    nw_setup(o.max_len);

    const double t0 = now();
    check_table();
    check_convenience();
    run_cases(&o);
    print_totals(now() - t0);

    free(expect);
    nw_teardown();
    guarded_free(&in_arena, page_size);
    guarded_free(&out_arena, page_size);
    return 0;
}
