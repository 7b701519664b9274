/*
 * The packed column's kernel contract (simdfilter.Packed, lib/packed.c), part
 * of the contract beside isa.def and bits.h: lib/packed.c includes it, and
 * kernels/packed_body.h defines a table of it in each kernel file that
 * includes that body (scalar.c, avx2.c, avx512.c).
 *
 * One block of B values (B a multiple of SF_PACKED_BLOCK_UNIT) holds offsets
 * from the block's reference, each of `width` bits, in interleaved lanes (after
 * FastLanes): with 32-bit words (width 1..32) there are 32 lanes and element
 * k * 32 + j is the k-th value of lane j; with 64-bit words (width 33..64), 16
 * lanes and element k * 16 + j. Lane j's values follow each other bit after
 * bit, LSB first, in its own words: word r of lane j is data[r * lanes + j], so
 * that one row of words is one load per vector, and the k-th values of every
 * lane (a run of 32 or 16 consecutive elements) come out of one or two rows by
 * the same shifts in every lane. A block takes B * width / 8 bytes.
 */
#ifndef SIMDFILTER_KERNELS_PACKED_H
#define SIMDFILTER_KERNELS_PACKED_H

#include <stddef.h>
#include <stdint.h>

#define SF_PACKED_LANES32 32
#define SF_PACKED_LANES64 16
/* Blocks are whole multiples of this: then each lane's bits fill whole words
 * at every width (B / 32 values of w bits are B * w / 1024 32-bit words). */
#define SF_PACKED_BLOCK_UNIT 1024

/* One block as a kernel reads it: an element whose offset o satisfies
 * (o - a) <= span, unsigned in the word's width, is in; `invert` keeps the
 * others instead. Only elements [0, n) are looked at (the last block of a
 * column is shorter than its padding). */
typedef struct sf_packed_ask {
    const void *data; /* the block's words: uint32_t when width <= 32, else uint64_t */
    unsigned width;   /* 1..64 */
    size_t block;     /* B */
    size_t n;         /* 1..B */
    uint64_t a, span;
    int invert;
} sf_packed_ask;

/* Results an index or mask8 kernel may write past its last one (whole vectors
 * of positions, a row's bytes): room the caller leaves. */
#define SF_PACKED_SLACK 32

typedef size_t (*sf_packed_count_fn)(const sf_packed_ask *q);
/* base + i for each i kept, ascending; returns how many (out: room for n +
 * SF_PACKED_SLACK). */
typedef size_t (*sf_packed_index32_fn)(const sf_packed_ask *q, uint32_t base, uint32_t *out);
typedef size_t (*sf_packed_index64_fn)(const sf_packed_ask *q, uint64_t base, uint64_t *out);
/* out[i] = 1 if element i is kept else 0, for i in [0, n), out having room for
 * n + SF_PACKED_SLACK; returns how many are. */
typedef size_t (*sf_packed_mask8_fn)(const sf_packed_ask *q, uint8_t *out);
/* The offsets of elements [0, B) into out: uint32_t when width <= 32, else
 * uint64_t (a, span, n and invert unread). */
typedef void (*sf_packed_decode_fn)(const sf_packed_ask *q, void *out);
/* The inverse: offsets[0, B) (uint32_t when width <= 32, else uint64_t, each
 * below 2^width) into the block's words at data. */
typedef void (*sf_packed_pack_fn)(const void *offsets, unsigned width, size_t block, void *data);

typedef struct sf_packed_kernel {
    const char *name;
    sf_packed_count_fn count;
    sf_packed_index32_fn index32;
    sf_packed_index64_fn index64;
    sf_packed_mask8_fn mask8;
    sf_packed_decode_fn decode;
    sf_packed_pack_fn pack;
} sf_packed_kernel;

/* The tables, each in the kernel file of that name (packed_body.h). */
extern const sf_packed_kernel sf_packed_scalar;
extern const sf_packed_kernel sf_packed_avx2;
extern const sf_packed_kernel sf_packed_avx512;
extern const sf_packed_kernel sf_packed_avx512_zen4;

#endif
