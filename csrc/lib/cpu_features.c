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

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
/* CPUID and XGETBV as each compiler spells them: MSVC's intrinsics, or GCC's
 * and Clang's <cpuid.h> (Linux, macOS, MinGW) and the xgetbv mnemonic, which
 * needs no -mxsave. r[] is eax, ebx, ecx, edx. */
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    int v[4];
    __cpuidex(v, (int)leaf, (int)sub);
    for (int i = 0; i < 4; i++)
        r[i] = (unsigned)v[i];
}
static unsigned long long read_xcr0(void) { return _xgetbv(0); }
#else
#include <cpuid.h>
static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static unsigned long long read_xcr0(void) {
    unsigned int eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}
#endif

/* Every AMD CPU with AVX-512 so far (Zen 4, family 19h; Zen 5, family 1Ah)
 * microcodes the memory form of vpcompress: kernels/avx512.c. A later family
 * that fixes it would be told apart here, by family, once measured. */
static int is_amd(const unsigned leaf0[4]) {
    return leaf0[1] == 0x68747541u && leaf0[3] == 0x69746e65u &&
           leaf0[2] == 0x444d4163u; /* "AuthenticAMD" in ebx, edx, ecx */
}

static unsigned detect_features(void) {
    unsigned leaf0[4], r[4], f = 0;
    cpuid(0, 0, leaf0);
    const unsigned max_leaf = leaf0[0];
    if (max_leaf < 1)
        return 0;
    cpuid(1, 0, r);
    const unsigned ecx = r[2];
    if (ecx & (1u << 19))
        f |= FEAT_SSE41;
    if (ecx & (1u << 23))
        f |= FEAT_POPCNT;
    const int osxsave = (ecx & (1u << 27)) != 0, cpu_avx = (ecx & (1u << 28)) != 0;
    const unsigned long long xcr0 = osxsave ? read_xcr0() : 0;
    /* The CPU having AVX is not enough: the OS must save XMM|YMM (bits 1, 2) ... */
    const int os_avx = osxsave && (xcr0 & 0x6) == 0x6;
    /* ... and for AVX-512 also opmask, ZMM_Hi256 and Hi16_ZMM (bits 5, 6, 7). */
    const int os_avx512 = osxsave && (xcr0 & 0xE6) == 0xE6;
    if (cpu_avx && os_avx)
        f |= FEAT_AVX;
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        const unsigned ebx = r[1];
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
    if ((f & FEAT_AVX512F) && is_amd(leaf0))
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
        const size_t skip = strspn(p, " ,\t\n\r"), len = strcspn(p + skip, " ,\t\n\r");
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
