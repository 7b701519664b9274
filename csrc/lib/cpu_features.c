/*
 * What this CPU and OS can run: CPUID and XGETBV on x86, HWCAP on aarch64 Linux.
 * Read once, cached in one atomic word.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "cpu_features.h"
#include "simdfilter.h"

static const char *const feature_names[SF_FEATURE_COUNT] = {
#define SF_FEATURE_NAME(name, label) label,
    SF_CPU_FEATURES(SF_FEATURE_NAME)
#undef SF_FEATURE_NAME
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    /* xgetbv by opcode bytes would also do; the mnemonic needs no -mxsave. */
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

/* Every AMD CPU with AVX-512 so far (Zen 4, family 19h; Zen 5, family 1Ah)
 * microcodes the memory form of vpcompress: kernels/avx512.c. A later family
 * that fixes it would be told apart here, by family, once measured. */
static int is_amd(void) {
    unsigned int max_leaf, ebx, ecx, edx;
    if (!__get_cpuid(0, &max_leaf, &ebx, &ecx, &edx))
        return 0;
    return ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u; /* AuthenticAMD */
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
    if ((f & FEAT_AVX512F) && is_amd())
        f |= FEAT_SLOW_COMPRESS_STORE;
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

/* Features are read once. FEATURES_KNOWN marks the cached value as set, so one
 * atomic word suffices; threads racing on the first call all store the same. */
#define FEATURES_KNOWN (1u << 31)
static _Atomic unsigned cached_features;

unsigned sf_cpu_feature_bits(void) {
    unsigned f = atomic_load_explicit(&cached_features, memory_order_relaxed);
    if (!f) {
        f = detect_features() | FEATURES_KNOWN;
        atomic_store_explicit(&cached_features, f, memory_order_relaxed);
    }
    return f & ~FEATURES_KNOWN;
}

size_t sf_cpu_features(char *buf, size_t size) {
    /* Written into the caller's buffer: a shared static one would be a data race
     * between threads asking at the same time. */
    const unsigned f = sf_cpu_feature_bits();
    size_t len = 0;
    for (unsigned i = 0; i < SF_FEATURE_COUNT; i++) {
        if (!(f & (1u << i)))
            continue;
        for (const char *c = len ? " " : ""; *c; c++, len++)
            if (len + 1 < size)
                buf[len] = *c;
        for (const char *c = feature_names[i]; *c; c++, len++)
            if (len + 1 < size)
                buf[len] = *c;
    }
    if (size)
        buf[len < size ? len : size - 1] = '\0';
    return len;
}

int sf_cpu_feature_bits_of(const char *labels, unsigned *bits) {
    unsigned f = 0;
    for (const char *p = labels ? labels : ""; *p;) {
        const size_t skip = strspn(p, " ,\t\n"), len = strcspn(p + skip, " ,\t\n");
        p += skip;
        if (!len)
            break;
        unsigned i = 0;
        while (i < SF_FEATURE_COUNT &&
               !(strlen(feature_names[i]) == len && !strncmp(feature_names[i], p, len)))
            i++;
        if (i == SF_FEATURE_COUNT)
            return -1;
        f |= 1u << i;
        p += len;
    }
    *bits = f;
    return 0;
}
