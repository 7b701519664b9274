/*
 * The AVX-512 kernel (F + VL + BW + DQ, with BMI1/2 and POPCNT).
 *
 * One compare turns a 64-byte vector into a mask register: 64 lanes of u8, 32 of
 * u16, 16 of u32/f32, 8 of u64/f64 (the 8- and 16-bit compares need BW). The
 * outputs are produced in *groups*: 16 positions for index32 (one epi32
 * compress), 8 for index64 (one epi64 compress), 16 or 8 elements for values.
 * A group is a slice of one mask when a vector has more lanes than a group (u8,
 * u16), or two masks glued together when it has fewer (u64/f64 into 16 uint32
 * positions), so every element kind runs through the same loops below.
 *
 * The store form depends on the CPU, so isa.def builds this file twice, as
 * two kernels:
 *   - avx512 (the default on Intel): the memory form, vpcompressd/q m512{k}
 *     (_mm512_mask_compressstoreu_*), which writes exactly the kept lanes. On
 *     the 2-core Intel Xeon (Sapphire Rapids class) KVM it measured up to
 *     1.78x faster than the register form at 50% selectivity in L2 (1.23x at
 *     1 Mi; equal at 1-10% and from DRAM). It also prefetches 2 KiB ahead
 *     for 32- and 64-bit elements (AVX512_PREFETCH_BYTES, avx512_core.h).
 *   - avx512_zen4 (isa.def's row builds it with -DAVX512_REGISTER_FORM=1; the
 *     default on AMD): compress into a register
 *     with merge masking, then store the whole register. The memory form is
 *     microcoded on AMD Zen 4/5 (~142 cycles latency in AMD's Zen 4 guide;
 *     12.8 G/s against 19-23 G/s for the register form, u32 on the 2-core AMD EPYC
 *     Zen 5 KVM), and the zero-masking register form carries a false
 *     dependency on its destination there (LLVM issue 206849).
 * Dispatch picks between them from CPUID (isa.def's SF_NOT_DEFAULT_ON, the
 * SLOW_COMPRESS_STORE trait of lib/cpu_features.c); either runs on any AVX-512
 * CPU, and both are tested on every machine. The register form's full store is
 * in bounds because in the main loop the output cursor k never passes the
 * input cursor i, and a group of G inputs is only taken whole when i + G <= n:
 * out[k, k + G) lies inside out[0, n). The tail (fewer than a block) loads
 * with masked, fault-suppressing loads and stores exactly the kept lanes (in
 * both forms), so nothing is read past x[n - 1] or written past out[n - 1].
 *
 * Nulls run the same loops: each vector's compare mask is ANDed with the
 * validity bits of its elements (avx512_valid_bits: the bitmap bytes of that
 * vector, one load) before the group compress; the plain entry points pass a
 * constant NULL bitmap, which folds that away. At low selectivity the filter
 * switches to sparse windows (see "The sparse path" below). `within` (given
 * positions) gathers the elements at 16 uint32 or 8 uint64 positions, compares
 * them into a mask and compresses the position vector (avx512_within.h).
 *
 * The loops are avx512_skeleton.h's, written once for any predicate (its top
 * gives the contract) and included here for the range (avx512_range.h); the
 * building blocks (settings, loads, emitters, validity bits) are in
 * avx512_core.h.
 */
#include "avx512_core.h"
#include "avx512_range.h"

/* The kernel this build is: its table is sf_kernel_<AVX512_KERNEL>. */
#if AVX512_REGISTER_FORM
#define AVX512_KERNEL avx512_zen4
#else
#define AVX512_KERNEL avx512
#endif

/* The loops for the range: avx512_filter, avx512_count, ... */
#define AVX512_SK avx512
#define AVX512_PRED avx512_range
#include "avx512_skeleton.h"

/* 64 mask bytes into 64 validity bits with one vptestnmb; the tail is one
 * masked (fault-suppressing) load that reads nothing past mask[n - 1]. */
static void avx512_mask_to_valid(const uint8_t *mask, size_t n, uint8_t *valid) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const __m512i v = _mm512_loadu_si512((const void *)(mask + i));
        const uint64_t bits = _mm512_testn_epi8_mask(v, v);
        memcpy(valid + i / 8, &bits, 8);
    }
    if (i < n) {
        const __mmask64 live = _bzhi_u64(~0ull, (unsigned)(n - i));
        const __m512i v = _mm512_maskz_loadu_epi8(live, (const void *)(mask + i));
        const uint64_t bits = _mm512_mask_testn_epi8_mask(live, v, v);
        memcpy(valid + i / 8, &bits, (n - i + 7) / 8);
    }
}

SF_INSTANTIATE_ALL_AS(avx512, AVX512_KERNEL, u8, u16, u32, u64, f32, f64)

/* <kernel>_dense: the filter loop without the sparse windows, a variant for the
 * benchmark only (dispatch's SF_VARIANTS; not listed among the kernels). */
SF_INSTANTIATE_FILTERS_AS(avx512_dense, SF_CAT(AVX512_KERNEL, _dense), u8, u16, u32, u64, f32, f64)

/* The packed column's kernel (packed.h, packed_x86.h). */
#define PK_NAME AVX512_KERNEL
#include "packed_x86.h"
