/*
 * The AVX-512 kernel with the register store form (compress into a register,
 * store it whole): the default on AMD Zen 4/5, where the memory form that
 * kernels/avx512.c uses is microcoded. The same loops, built a second time
 * (without avx512.c's software prefetch, measured on Intel only); see the top
 * of avx512.c for the measurements behind the two forms.
 */
#define AVX512_REGISTER_FORM 1
#define AVX512_PREFETCH_BYTES 0 /* measured on Intel only (avx512.c) */
#define AVX512_KERNEL avx512_zen4
#include "avx512.c"
