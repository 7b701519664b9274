/*
 * Bit helpers that the kernels and the library both use: part of the contract
 * between them, as isa.def is (csrc/README.md's layers), and like it free of
 * instruction-set flags, Python and state. Everything else in kernels/ is the
 * kernels' own.
 */
#ifndef SIMDFILTER_BITS_H
#define SIMDFILTER_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Inlined into the kernels' loops whatever the compiler's estimate. */
#if defined(__GNUC__) || defined(__clang__)
#define SF_BITS_INLINE static inline __attribute__((always_inline))
#else
#define SF_BITS_INLINE static inline
#endif

/* Elements of a block several ranges are tested on, pass after pass: 16 KiB
 * of 8-byte data, half of the 32 KiB first-level data cache of the smallest
 * x86 and Arm cores we run on, so that each range's pass reads the block from
 * there. A multiple of 64: a block's bits start on a whole byte of a bits
 * output and combine in 8-byte words. lib/ranges.c's blocks and
 * SF_BITS_RANGES_BY_PASSES's (kernels/kernel_common.h). */
#define SF_RANGES_STEP ((size_t)2048)

/* The bits of a block of elements that several ranges give, combined: m, the
 * first range's bits, ORed (every = 0) or ANDed with h, the next one's. */
SF_BITS_INLINE uint64_t sf_combine_bits(uint64_t m, uint64_t h, int every) {
    return every ? m & h : m | h;
}

/* acc = acc | part (every = 0) or acc & part, over `bytes` bytes: the bits of
 * one pass of ranges combined with those of the passes before. */
SF_BITS_INLINE void sf_combine_bytes(uint8_t *acc, const uint8_t *part, size_t bytes, int every) {
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t a, b;
        memcpy(&a, acc + i, 8);
        memcpy(&b, part + i, 8);
        a = sf_combine_bits(a, b, every);
        memcpy(acc + i, &a, 8);
    }
    for (; i < bytes; i++)
        acc[i] = (uint8_t)sf_combine_bits(acc[i], part[i], every);
}

/* The bits set in w, counted in its own registers: the library is built for
 * the architecture's baseline, where __builtin_popcountll is a call into
 * libgcc (x86-64 without POPCNT: perf put __popcountdi2 at a third of
 * sf_bits_positions on AMD EPYC Zen 4); compilers turn this into POPCNT where
 * the target has it. */
SF_BITS_INLINE size_t sf_popcount64(uint64_t w) {
    w -= (w >> 1) & 0x5555555555555555u;
    w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (size_t)((w * 0x0101010101010101u) >> 56);
}

/* The bits set in bytes[0, len). */
static inline size_t sf_popcount_bytes(const uint8_t *bytes, size_t len) {
    size_t total = 0, i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, bytes + i, 8);
        total += sf_popcount64(w);
    }
    for (; i < len; i++)
        total += sf_popcount64(bytes[i]);
    return total;
}

#endif
