/*
 * The CPU and OS features dispatch looks at (private to csrc/lib).
 *
 * One bit each. isa.def's features column names them without the FEAT_ prefix
 * (AVX|AVX2|...), so this list is the one place a feature is declared; the
 * string is what sf_cpu_features prints.
 *
 * SLOW_COMPRESS_STORE is a trait, not a feature (no kernel requires it): the
 * memory form of vpcompress is microcoded on this CPU (AMD Zen 4/5). isa.def's
 * SF_NOT_DEFAULT_ON keeps dispatch's default off the kernel that uses it.
 */
#ifndef SIMDFILTER_CPU_FEATURES_H
#define SIMDFILTER_CPU_FEATURES_H

#define SF_CPU_FEATURES(X)                                                               \
    X(SSE41, "sse4.1")                                                                   \
    X(POPCNT, "popcnt")                                                                  \
    X(AVX, "avx") /* the CPU has it and the OS saves the YMM state */                    \
    X(AVX2, "avx2")                                                                      \
    X(BMI1, "bmi1")                                                                      \
    X(BMI2, "bmi2")                                                                      \
    X(AVX512F, "avx512f") /* the CPU has it and the OS saves the ZMM and mask state */   \
    X(AVX512VL, "avx512vl")                                                              \
    X(AVX512BW, "avx512bw")                                                              \
    X(AVX512DQ, "avx512dq")                                                              \
    X(SVE, "sve")                                                                        \
    X(SLOW_COMPRESS_STORE, "slow-compress-store")

enum {
#define SF_FEATURE_INDEX(name, label) SF_FEATURE_INDEX_##name,
    SF_CPU_FEATURES(SF_FEATURE_INDEX)
#undef SF_FEATURE_INDEX
    SF_FEATURE_COUNT
};

enum {
#define SF_FEATURE_BIT(name, label) FEAT_##name = 1u << SF_FEATURE_INDEX_##name,
    SF_CPU_FEATURES(SF_FEATURE_BIT)
#undef SF_FEATURE_BIT
};

/* The FEAT_* bits of this CPU and OS, detected on the first call and cached. */
unsigned sf_cpu_feature_bits(void);

/* The FEAT_* bits a list of labels names ("sse4.1 avx2 slow-compress-store",
 * separated by spaces or commas, as sf_cpu_features prints them): 0 with *bits
 * set, or -1 for a label no feature has. For describing a CPU to dispatch's
 * rule (sf_kernel_choice). */
int sf_cpu_feature_bits_of(const char *labels, unsigned *bits);

#endif
