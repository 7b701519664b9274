/*
 * The library's kernels against hand-written AVX-512 loops, in one process,
 * interleaved: uint32, index32 (filter_indexes with out=, one thread), at the
 * kernel's entry point (no driver, no Python). Built and run by
 * benchmarks/kernel_vs_hand.py, which links it with the library's objects.
 *
 *   kernel_vs_hand ROUNDS N,N,... SEL,SEL,... KERNEL,KERNEL,...
 *
 * prints one line per (n, selectivity): each kernel's G elements/s, the best
 * of ceiling.c's loops (its name, kernel / it), the best of every hand loop
 * here (the same), and each hand loop's G elements/s. Data and timing as
 * the hand-written ceiling.c (outside this repository) does them (its loops
 * are copied here, so the ratio is measured inside one process): srand(42),
 * ((rand() << 1) ^ rand()),
 * lo = 0, hi = sel * (2^32 - 1). A sample is the mean time of 4e6 / n calls
 * (at least one; CHUNK=elements in the environment changes it), short enough
 * to fall between the other jobs of a loaded machine; each loop's figure is
 * its best of ROUNDS samples. Every round runs each kernel and hand loop once,
 * starting from a different one each round, so that drift on a shared machine
 * and the order of the loops hit them all alike.
 *
 * The hand loops are compiled with target attributes, at the optimization level
 * the Python script gives this file (-O2, as ceiling.c's build line).
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simdfilter.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef size_t (*hand_fn)(const uint32_t *, size_t, uint32_t, uint32_t, uint32_t *);

static size_t tail(const uint32_t *in, size_t i, size_t n, uint32_t lo, uint32_t hi,
                   uint32_t *out, size_t k) {
    for (; i < n; i++) {
        out[k] = (uint32_t)i;
        k += (in[i] - lo) <= (hi - lo);
    }
    return k;
}

/* ceiling.c's avx512_reg: zero-masking register compress, full store. */
__attribute__((target("avx512f,avx512vl,popcnt"))) static size_t
hand_reg(const uint32_t *in, size_t n, uint32_t lo, uint32_t hi, uint32_t *out) {
    const __m512i vlo = _mm512_set1_epi32((int)lo), vw = _mm512_set1_epi32((int)(hi - lo));
    __m512i ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32(16);
    uint32_t *o = out;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_loadu_si512(in + i);
        __mmask16 m = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v, vlo), vw);
        _mm512_storeu_si512(o, _mm512_maskz_compress_epi32(m, ids));
        o += __builtin_popcount(m);
        ids = _mm512_add_epi32(ids, step);
    }
    return tail(in, i, n, lo, hi, out, (size_t)(o - out));
}

/* ceiling.c's avx512_merge: merge-masking register compress, two vectors a step. */
__attribute__((target("avx512f,avx512vl,popcnt"))) static size_t
hand_merge(const uint32_t *in, size_t n, uint32_t lo, uint32_t hi, uint32_t *out) {
    const __m512i vlo = _mm512_set1_epi32((int)lo), vw = _mm512_set1_epi32((int)(hi - lo));
    __m512i ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32(16);
    uint32_t *o = out;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i v0 = _mm512_loadu_si512(in + i), v1 = _mm512_loadu_si512(in + i + 16);
        __mmask16 m0 = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v0, vlo), vw);
        __mmask16 m1 = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v1, vlo), vw);
        __m512i ids1 = _mm512_add_epi32(ids, step);
        __m512i c0 = _mm512_mask_compress_epi32(ids, m0, ids);
        __m512i c1 = _mm512_mask_compress_epi32(ids1, m1, ids1);
        _mm512_storeu_si512(o, c0);
        o += __builtin_popcount(m0);
        _mm512_storeu_si512(o, c1);
        o += __builtin_popcount(m1);
        ids = _mm512_add_epi32(ids1, step);
    }
    return tail(in, i, n, lo, hi, out, (size_t)(o - out));
}

/* ceiling.c's avx512_mem: the memory form (vpcompressd m512{k}). */
__attribute__((target("avx512f,avx512vl,popcnt"))) static size_t
hand_mem(const uint32_t *in, size_t n, uint32_t lo, uint32_t hi, uint32_t *out) {
    const __m512i vlo = _mm512_set1_epi32((int)lo), vw = _mm512_set1_epi32((int)(hi - lo));
    __m512i ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i step = _mm512_set1_epi32(16);
    uint32_t *o = out;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512i v = _mm512_loadu_si512(in + i);
        __mmask16 m = _mm512_cmple_epu32_mask(_mm512_sub_epi32(v, vlo), vw);
        _mm512_mask_compressstoreu_epi32(o, m, ids);
        o += __builtin_popcount(m);
        ids = _mm512_add_epi32(ids, step);
    }
    return tail(in, i, n, lo, hi, out, (size_t)(o - out));
}

/* Not in ceiling.c: 256-bit (AVX-512VL) compresses, four a step, as Highway's
 * AVX3_ZEN4 target prefers on Zen 4 (whose 512-bit compress is two halves). */
__attribute__((target("avx512f,avx512vl,popcnt"))) static size_t
hand_ymm4(const uint32_t *in, size_t n, uint32_t lo, uint32_t hi, uint32_t *out) {
    const __m256i vlo = _mm256_set1_epi32((int)lo), vw = _mm256_set1_epi32((int)(hi - lo));
    __m256i ids = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i step = _mm256_set1_epi32(8);
    uint32_t *o = out;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i ids0 = ids, ids1 = _mm256_add_epi32(ids0, step);
        __m256i ids2 = _mm256_add_epi32(ids1, step), ids3 = _mm256_add_epi32(ids2, step);
        __mmask8 m0 = _mm256_cmple_epu32_mask(
            _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(in + i)), vlo), vw);
        __mmask8 m1 = _mm256_cmple_epu32_mask(
            _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(in + i + 8)), vlo), vw);
        __mmask8 m2 = _mm256_cmple_epu32_mask(
            _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(in + i + 16)), vlo), vw);
        __mmask8 m3 = _mm256_cmple_epu32_mask(
            _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(in + i + 24)), vlo), vw);
        _mm256_storeu_si256((__m256i *)o, _mm256_mask_compress_epi32(ids0, m0, ids0));
        o += __builtin_popcount(m0);
        _mm256_storeu_si256((__m256i *)o, _mm256_mask_compress_epi32(ids1, m1, ids1));
        o += __builtin_popcount(m1);
        _mm256_storeu_si256((__m256i *)o, _mm256_mask_compress_epi32(ids2, m2, ids2));
        o += __builtin_popcount(m2);
        _mm256_storeu_si256((__m256i *)o, _mm256_mask_compress_epi32(ids3, m3, ids3));
        o += __builtin_popcount(m3);
        ids = _mm256_add_epi32(ids3, step);
    }
    return tail(in, i, n, lo, hi, out, (size_t)(o - out));
}

/* Not in ceiling.c: merge-masking compress, four vectors a step. */
__attribute__((target("avx512f,avx512vl,popcnt"))) static size_t
hand_merge4(const uint32_t *in, size_t n, uint32_t lo, uint32_t hi, uint32_t *out) {
    const __m512i vlo = _mm512_set1_epi32((int)lo), vw = _mm512_set1_epi32((int)(hi - lo));
    __m512i ids = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    uint32_t *o = out;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        for (int v = 0; v < 4; v++) {
            const __mmask16 m = _mm512_cmple_epu32_mask(
                _mm512_sub_epi32(_mm512_loadu_si512(in + i + 16 * v), vlo), vw);
            const __m512i id = _mm512_add_epi32(ids, _mm512_set1_epi32(16 * v));
            _mm512_storeu_si512(o, _mm512_mask_compress_epi32(id, m, id));
            o += __builtin_popcount(m);
        }
        ids = _mm512_add_epi32(ids, _mm512_set1_epi32(64));
    }
    return tail(in, i, n, lo, hi, out, (size_t)(o - out));
}

/* The first NCEIL are ceiling.c's forms; the rest are loops of this file's own. */
static const struct {
    const char *name;
    hand_fn f;
} HAND[] = {{"reg", hand_reg},
            {"merge", hand_merge},
            {"mem", hand_mem},
            {"ymm4", hand_ymm4},
            {"merge4", hand_merge4}};
#define NCEIL 3
#define NHAND (sizeof HAND / sizeof *HAND)

static size_t split(char *s, char **parts, size_t max) {
    size_t c = 0;
    for (char *t = strtok(s, ","); t && c < max; t = strtok(NULL, ","))
        parts[c++] = t;
    return c;
}

/* Tables of a second tree's kernels, linked in under other names
 * (kernel_vs_hand.py --old: sf_kernel_<name> renamed sf_kernel_old_<name>),
 * asked for as "old:<name>". Generated: empty without --old. */
extern const sf_kernel *const OLD_TABLES[];
extern const char *const OLD_NAMES[];
extern const size_t OLD_COUNT;

static const sf_kernel *find_kernel(const char *spec) {
    if (!strncmp(spec, "old:", 4)) {
        for (size_t i = 0; i < OLD_COUNT; i++)
            if (!strcmp(OLD_NAMES[i], spec + 4))
                return OLD_TABLES[i];
        return NULL;
    }
    const sf_kernel *k;
    return sf_kernel_select(spec, &k) == SF_OK ? k : NULL;
}

#define MAXK 8

/* One sample: reps calls of kernel k's entry point for (op, elem). */
static double time_entry(const sf_kernel *k, sf_op op, sf_elem e, const void *x, size_t n,
                         const sf_range *r, void *out, size_t reps) {
    const double t0 = now();
    for (size_t z = 0; z < reps; z++) {
        switch (op) {
        case SF_OP_INDEX32: k->index32[e](x, n, r, 0, out); break;
        case SF_OP_INDEX64: k->index64[e](x, n, r, 0, out); break;
        case SF_OP_VALUES: k->values[e](x, n, r, out); break;
        default: k->count[e](x, n, r); break;
        }
        __asm__ volatile("" ::: "memory");
    }
    return (now() - t0) / reps;
}

/* KINDS=1: every element kind and operation, the kernels only (no hand loops):
 * data uniform over the kind's range (floats in [0, 1)), sel of it kept. */
static int kinds(int rounds, double chunk, size_t offset, size_t nn, char **ns, size_t nsel,
                 char **sels, size_t nk, char **kn, const sf_kernel **ks) {
    static const char *const ops[] = {"index32", "index64", "values", "count"};
    printf("%-9s %5s %-4s %-8s", "n", "sel", "kind", "op");
    for (size_t j = 0; j < nk; j++)
        printf(" %16s", kn[j]);
    printf("%s\n", nk == 2 ? "   second/first (time)" : "");
    for (size_t a = 0; a < nn; a++) {
        const size_t n = strtoull(ns[a], 0, 10);
        unsigned char *const in0 = aligned_alloc(64, n * 8 + 128), *in = in0 + offset,
                             *out = aligned_alloc(64, n * 8 + 128);
        for (size_t b = 0; b < nsel; b++) {
            const double sel = atof(sels[b]);
            for (int e = 0; e < SF_ELEM_COUNT; e++) {
                const size_t size = sf_elem_size((sf_elem)e);
                srand(42);
                for (size_t i = 0; i < n * size; i++)
                    in[i] = (unsigned char)(rand() >> 7);
                sf_range r = {0, 0, 0.0, sel};
                if (e == SF_F32)
                    for (size_t i = 0; i < n; i++)
                        ((float *)(void *)in)[i] = (float)rand() / (float)RAND_MAX;
                else if (e == SF_F64)
                    for (size_t i = 0; i < n; i++)
                        ((double *)(void *)in)[i] = (double)rand() / RAND_MAX;
                else
                    r.hi = (uint64_t)(sel * (double)(size == 8 ? UINT64_MAX
                                                               : (1ull << (8 * size)) - 1));
                for (int op = 0; op < 4; op++) {
                    size_t reps = (size_t)(chunk / n);
                    reps = reps ? reps : 1;
                    double best[MAXK];
                    for (size_t j = 0; j < nk; j++)
                        best[j] = 1e9;
                    for (int q = 0; q < rounds; q++)
                        for (size_t u = 0; u < nk; u++) {
                            const size_t j = (u + (size_t)q) % nk;
                            const double t = time_entry(ks[j], (sf_op)op, (sf_elem)e, in, n, &r,
                                                        out, reps);
                            best[j] = t < best[j] ? t : best[j];
                        }
                    printf("%-9zu %5.2f %-4s %-8s", n, sel, sf_elem_name((sf_elem)e), ops[op]);
                    for (size_t j = 0; j < nk; j++)
                        printf(" %16.2f", n / best[j] / 1e9);
                    if (nk == 2)
                        printf("   %.3f", best[1] / best[0]);
                    printf("\n");
                    fflush(stdout);
                }
            }
        }
        free(in0);
        free(out);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s ROUNDS N,... SEL,... KERNEL,...\n", argv[0]);
        return 2;
    }
    const int rounds = atoi(argv[1]);
    const double chunk = getenv("CHUNK") ? atof(getenv("CHUNK")) : 4e6;
    /* OFFSET=bytes (below 64): the input starts that far past a 64-byte boundary, as
     * NumPy's arrays do (16 or 32 bytes past one, from malloc); taken down to a multiple
     * of 4 (uint32) or, with KINDS, of 8 (every kind). */
    const size_t offset = getenv("OFFSET") ? (size_t)atoi(getenv("OFFSET")) % 64 / 4 * 4 : 0;
    char *ns[16], *sels[16], *kn[MAXK];
    const size_t nn = split(argv[2], ns, 16), ns_ = split(argv[3], sels, 16),
                 nk = split(argv[4], kn, MAXK);
    const sf_kernel *ks[MAXK];
    for (size_t j = 0; j < nk; j++) {
        if (!(ks[j] = find_kernel(kn[j]))) {
            fprintf(stderr, "kernel %s: not built or not runnable here\n", kn[j]);
            return 2;
        }
    }
    if (getenv("KINDS") && atoi(getenv("KINDS")))
        return kinds(rounds, chunk, offset / 8 * 8, nn, ns, ns_, sels, nk, kn, ks);
    printf("%-9s %5s", "n", "sel");
    for (size_t j = 0; j < nk; j++)
        printf(" %14s", kn[j]);
    printf(" %8s %6s", "ceiling", "form");
    for (size_t j = 0; j < nk; j++)
        printf(" %8s", "ratio");
    printf(" %8s %6s", "any", "form");
    for (size_t j = 0; j < nk; j++)
        printf(" %8s", "ratio");
    printf("\n");
    for (size_t a = 0; a < nn; a++) {
        const size_t n = strtoull(ns[a], 0, 10);
        uint32_t *const in0 = aligned_alloc(64, n * 4 + 128),
                       *in = (uint32_t *)(void *)((char *)in0 + offset),
                       *out = aligned_alloc(64, n * 4 + 128), *ref = aligned_alloc(64, n * 4 + 128);
        srand(42);
        for (size_t i = 0; i < n; i++)
            in[i] = ((uint32_t)rand() << 1) ^ (uint32_t)rand();
        memset(out, 0, n * 4 + 128);
        for (size_t b = 0; b < ns_; b++) {
            const double sel = atof(sels[b]);
            const uint32_t lo = 0, hi = (uint32_t)(sel * 4294967295.0);
            const sf_range r = {lo, hi, 0, 0};
            const size_t kref = hand_reg(in, n, lo, hi, ref);
            for (size_t h = 0; h < NHAND; h++)
                if (HAND[h].f(in, n, lo, hi, out) != kref || memcmp(out, ref, kref * 4)) {
                    fprintf(stderr, "MISMATCH hand %s\n", HAND[h].name);
                    return 1;
                }
            for (size_t j = 0; j < nk; j++)
                if (ks[j]->index32[SF_U32](in, n, &r, 0, out) != kref ||
                    memcmp(out, ref, kref * 4)) {
                    fprintf(stderr, "MISMATCH kernel %s\n", kn[j]);
                    return 1;
                }
            size_t reps = (size_t)(chunk / n);
            if (reps < 1)
                reps = 1;
            double bk[MAXK], bh[NHAND];
            for (size_t j = 0; j < nk; j++)
                bk[j] = 1e9;
            for (size_t h = 0; h < NHAND; h++)
                bh[h] = 1e9;
            /* Round q runs the NHAND + nk loops in turn from loop q: each one
             * follows a different one from round to round. */
            for (int q = 0; q < rounds; q++) {
                for (size_t u = 0; u < NHAND + nk; u++) {
                    const size_t w = (u + (size_t)q) % (NHAND + nk);
                    const double t0 = now();
                    if (w < NHAND) {
                        for (size_t z = 0; z < reps; z++) {
                            HAND[w].f(in, n, lo, hi, out);
                            __asm__ volatile("" ::: "memory");
                        }
                    } else {
                        const sf_index32_fn f = ks[w - NHAND]->index32[SF_U32];
                        for (size_t z = 0; z < reps; z++) {
                            f(in, n, &r, 0, out);
                            __asm__ volatile("" ::: "memory");
                        }
                    }
                    const double t = (now() - t0) / reps;
                    double *best = w < NHAND ? &bh[w] : &bk[w - NHAND];
                    *best = t < *best ? t : *best;
                }
            }
            size_t ceil = 0, any = 0;
            for (size_t h = 1; h < NHAND; h++) {
                if (h < NCEIL && bh[h] < bh[ceil])
                    ceil = h;
                if (bh[h] < bh[any])
                    any = h;
            }
            printf("%-9zu %5.2f", n, sel);
            for (size_t j = 0; j < nk; j++)
                printf(" %14.2f", n / bk[j] / 1e9);
            printf(" %8.2f %6s", n / bh[ceil] / 1e9, HAND[ceil].name);
            for (size_t j = 0; j < nk; j++)
                printf(" %8.3f", bh[ceil] / bk[j]);
            printf(" %8.2f %6s", n / bh[any] / 1e9, HAND[any].name);
            for (size_t j = 0; j < nk; j++)
                printf(" %8.3f", bh[any] / bk[j]);
            printf("   [");
            for (size_t h = 0; h < NHAND; h++)
                printf("%s%s %.2f", h ? " " : "", HAND[h].name, n / bh[h] / 1e9);
            printf("]\n");
            fflush(stdout);
        }
        free(in0);
        free(out);
        free(ref);
    }
    return 0;
}
