/*
 * The only file that knows both that instruction sets exist and how to tell
 * which ones this CPU and OS can run. It holds the one piece of global state of
 * the library: the active kernel.
 *
 * setup.py defines SF_HAVE_<ISA> for every kernels/<isa>.c it compiled in.
 */
#include <stdatomic.h>
#include <string.h>

#include "simdfilter.h"

extern const sf_kernel sf_kernel_scalar;
#ifdef SF_HAVE_SSE41
extern const sf_kernel sf_kernel_sse41;
#endif
#ifdef SF_HAVE_AVX2
extern const sf_kernel sf_kernel_avx2;
#endif
#ifdef SF_HAVE_AVX512
extern const sf_kernel sf_kernel_avx512;
#endif
#ifdef SF_HAVE_NEON
extern const sf_kernel sf_kernel_neon;
#endif
#ifdef SF_HAVE_SVE
extern const sf_kernel sf_kernel_sve;
#endif

/* Slowest first: the best supported kernel is the last supported one. */
static const sf_kernel *const all_kernels[] = {
    &sf_kernel_scalar,
#ifdef SF_HAVE_SSE41
    &sf_kernel_sse41,
#endif
#ifdef SF_HAVE_AVX2
    &sf_kernel_avx2,
#endif
#ifdef SF_HAVE_AVX512
    &sf_kernel_avx512,
#endif
#ifdef SF_HAVE_NEON
    &sf_kernel_neon,
#endif
#ifdef SF_HAVE_SVE
    &sf_kernel_sve,
#endif
};
#define KERNEL_COUNT ((int)(sizeof all_kernels / sizeof all_kernels[0]))

/* ---- CPU and OS features ------------------------------------------------- */

enum {
    FEAT_SSE41 = 1u << 0,
    FEAT_POPCNT = 1u << 1,
    FEAT_AVX = 1u << 2, /* CPU has it and the OS saves the YMM state */
    FEAT_AVX2 = 1u << 3,
    FEAT_BMI1 = 1u << 4,
    FEAT_BMI2 = 1u << 5,
    FEAT_AVX512F = 1u << 6, /* CPU has it and the OS saves the ZMM and mask state */
    FEAT_AVX512VL = 1u << 7,
    FEAT_AVX512BW = 1u << 8,
    FEAT_AVX512DQ = 1u << 9,
    FEAT_SVE = 1u << 10,
};

static const struct {
    unsigned bit;
    const char *name;
} feature_names[] = {
    {FEAT_SSE41, "sse4.1"},       {FEAT_POPCNT, "popcnt"},       {FEAT_AVX, "avx"},
    {FEAT_AVX2, "avx2"},          {FEAT_BMI1, "bmi1"},           {FEAT_BMI2, "bmi2"},
    {FEAT_AVX512F, "avx512f"},    {FEAT_AVX512VL, "avx512vl"},   {FEAT_AVX512BW, "avx512bw"},
    {FEAT_AVX512DQ, "avx512dq"},  {FEAT_SVE, "sve"},
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    /* xgetbv by opcode bytes would also do; the mnemonic needs no -mxsave. */
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static unsigned detect_features(void) {
    unsigned int eax, ebx, ecx, edx, f = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
        return 0;
    if (ecx & (1u << 19))
        f |= FEAT_SSE41;
    if (ecx & (1u << 23))
        f |= FEAT_POPCNT;
    const int osxsave = (ecx & (1u << 27)) != 0, cpu_avx = (ecx & (1u << 28)) != 0;
    unsigned long long xcr0 = osxsave ? read_xcr0() : 0;
    /* The CPU having AVX is not enough: the OS must save XMM|YMM (bits 1, 2) ... */
    const int os_avx = osxsave && (xcr0 & 0x6) == 0x6;
    /* ... and for AVX-512 also opmask, ZMM_Hi256 and Hi16_ZMM (bits 5, 6, 7). */
    const int os_avx512 = osxsave && (xcr0 & 0xE6) == 0xE6;
    if (cpu_avx && os_avx)
        f |= FEAT_AVX;
    unsigned int max_leaf = __get_cpuid_max(0, NULL);
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, eax, ebx, ecx, edx);
        if (ebx & (1u << 3))
            f |= FEAT_BMI1;
        if (ebx & (1u << 8))
            f |= FEAT_BMI2;
        if ((f & FEAT_AVX) && (ebx & (1u << 5)))
            f |= FEAT_AVX2;
        if ((f & FEAT_AVX) && os_avx512) {
            if (ebx & (1u << 16))
                f |= FEAT_AVX512F;
            if (ebx & (1u << 17))
                f |= FEAT_AVX512DQ;
            if (ebx & (1u << 30))
                f |= FEAT_AVX512BW;
            if (ebx & (1u << 31))
                f |= FEAT_AVX512VL;
        }
    }
    return f;
}
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
static unsigned detect_features(void) {
    return (getauxval(AT_HWCAP) & HWCAP_SVE) ? FEAT_SVE : 0;
}
#else
static unsigned detect_features(void) { return 0; }
#endif

/* What each kernel needs; NEON is the aarch64 baseline. */
static unsigned required_features(const sf_kernel *k) {
    const char *n = k->name;
    if (!strcmp(n, "sse41"))
        return FEAT_SSE41;
    if (!strcmp(n, "avx2"))
        return FEAT_AVX | FEAT_AVX2 | FEAT_BMI1 | FEAT_BMI2 | FEAT_POPCNT;
    if (!strcmp(n, "avx512"))
        return FEAT_AVX | FEAT_AVX2 | FEAT_BMI1 | FEAT_BMI2 | FEAT_POPCNT | FEAT_AVX512F |
               FEAT_AVX512VL | FEAT_AVX512BW | FEAT_AVX512DQ;
    if (!strcmp(n, "sve"))
        return FEAT_SVE;
    return 0;
}

/* Features are read once. FEATURES_KNOWN marks the cached value as set, so one
 * atomic word suffices; threads racing on the first call all store the same. */
#define FEATURES_KNOWN (1u << 31)
static _Atomic unsigned cached_features;

static unsigned features(void) {
    unsigned f = atomic_load_explicit(&cached_features, memory_order_relaxed);
    if (!f) {
        f = detect_features() | FEATURES_KNOWN;
        atomic_store_explicit(&cached_features, f, memory_order_relaxed);
    }
    return f & ~FEATURES_KNOWN;
}

/* ---- Public API ---------------------------------------------------------- */

int sf_kernel_count(void) { return KERNEL_COUNT; }

const sf_kernel *sf_kernel_at(int i) {
    return (i >= 0 && i < KERNEL_COUNT) ? all_kernels[i] : NULL;
}

const sf_kernel *sf_kernel_find(const char *name) {
    if (!name)
        return NULL;
    for (int i = 0; i < KERNEL_COUNT; i++)
        if (!strcmp(all_kernels[i]->name, name))
            return all_kernels[i];
    return NULL;
}

int sf_kernel_supported(const sf_kernel *k) {
    if (!k)
        return 0;
    unsigned need = required_features(k);
    return (features() & need) == need;
}

const sf_kernel *sf_best_kernel(void) {
    for (int i = KERNEL_COUNT - 1; i > 0; i--)
        if (sf_kernel_supported(all_kernels[i]))
            return all_kernels[i];
    return &sf_kernel_scalar;
}

/* The dispatch table: NULL until first use, then the chosen kernel. */
static const sf_kernel *_Atomic active;

const sf_kernel *sf_active_kernel(void) {
    const sf_kernel *k = atomic_load_explicit(&active, memory_order_acquire);
    if (!k) {
        const sf_kernel *expected = NULL;
        k = sf_best_kernel();
        if (!atomic_compare_exchange_strong(&active, &expected, k))
            k = expected;
    }
    return k;
}

int sf_use_kernel(const char *name) {
    const sf_kernel *k = name ? sf_kernel_find(name) : sf_best_kernel();
    if (!k)
        return SF_EUNKNOWN;
    if (!sf_kernel_supported(k))
        return SF_EUNSUPPORTED;
    atomic_store_explicit(&active, k, memory_order_release);
    return SF_OK;
}

size_t sf_cpu_features(char *buf, size_t size) {
    /* Written into the caller's buffer: a shared static one would be a data race
     * between threads asking at the same time. */
    const unsigned f = features();
    size_t len = 0;
    for (size_t i = 0; i < sizeof feature_names / sizeof feature_names[0]; i++) {
        if (!(f & feature_names[i].bit))
            continue;
        for (const char *c = len ? " " : ""; *c; c++, len++)
            if (len + 1 < size)
                buf[len] = *c;
        for (const char *c = feature_names[i].name; *c; c++, len++)
            if (len + 1 < size)
                buf[len] = *c;
    }
    if (size)
        buf[len < size ? len : size - 1] = '\0';
    return len;
}

/* ---- Convenience --------------------------------------------------------- */

static int u32_range(uint32_t lo, uint32_t hi, sf_range *r) {
    if (lo > hi)
        return 0;
    memset(r, 0, sizeof *r);
    r->lo = lo;
    r->hi = hi;
    return 1;
}

size_t sf_filter_indexes_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi,
                             uint32_t *out) {
    sf_range r;
    if (!u32_range(lo, hi, &r) || n == 0)
        return 0;
    if (n > (size_t)UINT32_MAX)
        return SF_TOO_LONG; /* positions past 2^32 - 1 would not fit in uint32 */
    return sf_active_kernel()->index32[SF_U32](x, n, &r, 0, out);
}

size_t sf_count_in_range_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi) {
    sf_range r;
    if (!u32_range(lo, hi, &r) || n == 0)
        return 0;
    return sf_active_kernel()->count[SF_U32](x, n, &r);
}

/* Interim (replaced by the isa.def-driven dispatch): names known to the project. */
const char *sf_kernel_arch(const char *name) {
    static const char *const known[][2] = {{"scalar", "any"},   {"sse41", "x86_64"},
                                           {"avx2", "x86_64"},  {"avx512", "x86_64"},
                                           {"neon", "aarch64"}, {"sve", "aarch64"}};
    for (size_t i = 0; name && i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(known[i][0], name))
            return known[i][1];
    return NULL;
}

int sf_kernel_select(const char *name, const sf_kernel **out) {
    const sf_kernel *k = sf_kernel_find(name);
    if (!k)
        return sf_kernel_arch(name) ? SF_ENOTBUILT : SF_EUNKNOWN;
    if (!sf_kernel_supported(k))
        return SF_EUNSUPPORTED;
    *out = k;
    return SF_OK;
}
