/*
 * A query of several ranges (sf_query's more, more_count and every): the
 * elements in any of them, or in every one, in one pass over the data.
 *
 * The data goes by in blocks small enough to stay in the first-level cache.
 * Each range's mask op (MASK8, or BITS for a bits result) runs over the block
 * in turn and the masks are combined (OR for a union, AND for an
 * intersection); the block's results then come from the combined mask, which
 * the kernel's own uint8 filter reads (its nonzero bytes are the kept
 * elements). Every step is a kernel op with its scalar twin, so a query of
 * several ranges runs on every ISA with nothing per ISA here; the data is read
 * from memory once, and each range costs one compare pass over cached data.
 * Nulls: each mask op already clears them, and so does either combination.
 */
#include "library.h"

#include <string.h>

/* Elements per block: 16 KiB of 8-byte data, half of the 32 KiB first-level
 * data cache of the smallest x86 and Arm cores we run on, so that each
 * range's pass reads the block from there. A multiple of 64: a bits mask of a
 * block starts on a whole byte and combines in 8-byte words. */
#define RANGES_BLOCK ((size_t)2048)

/* The uint8 range of a combined mask's kept bytes: nonzero. */
static const sf_range NONZERO = {1, 255, 0.0, 0.0, 0};

/* Range r's mask of the block (bytes, or bits for SF_OP_BITS) into m. */
static void mask_of(const sf_plan *p, const sf_range *r, const void *x, const uint8_t *valid,
                    size_t n, uint8_t *m) {
    const sf_kernel *k = p->kernel;
    if (p->op == SF_OP_BITS) {
        if (valid)
            k->bits_valid[p->elem](x, valid, n, r, m);
        else
            k->bits[p->elem](x, n, r, m);
    } else if (valid) {
        k->mask8_valid[p->elem](x, valid, n, r, m);
    } else {
        k->mask8[p->elem](x, n, r, m);
    }
}

/* acc = acc | part (every = 0) or acc & part, over `bytes` bytes. */
static void combine(uint8_t *acc, const uint8_t *part, size_t bytes, int every) {
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t a, b;
        memcpy(&a, acc + i, 8);
        memcpy(&b, part + i, 8);
        a = every ? a & b : a | b;
        memcpy(acc + i, &a, 8);
    }
    for (; i < bytes; i++)
        acc[i] = (uint8_t)(every ? acc[i] & part[i] : acc[i] | part[i]);
}

/* The bits set in bytes[0, len). */
static size_t ones(const uint8_t *bytes, size_t len) {
    size_t total = 0;
    for (size_t i = 0; i < len; i++)
        for (unsigned b = bytes[i]; b; b &= b - 1u)
            total++;
    return total;
}

/* The elements of x (of `size` bytes) at the positions pos[0, m), side by side. */
static void take_values(const unsigned char *x, size_t size, const uint32_t *pos, size_t m,
                        unsigned char *out) {
    switch (size) { /* a constant size per loop: each memcpy is one move */
    case 1: for (size_t j = 0; j < m; j++) out[j] = x[pos[j]]; break;
    case 2: for (size_t j = 0; j < m; j++) memcpy(out + 2 * j, x + 2 * (size_t)pos[j], 2); break;
    case 4: for (size_t j = 0; j < m; j++) memcpy(out + 4 * j, x + 4 * (size_t)pos[j], 4); break;
    default: for (size_t j = 0; j < m; j++) memcpy(out + 8 * j, x + 8 * (size_t)pos[j], 8); break;
    }
}

size_t sf_run_ranges(const sf_plan *p, const void *x, const uint8_t *valid, size_t n,
                     uint64_t base, void *out) {
    const sf_kernel *k = p->kernel;
    const size_t size = sf_elem_size(p->elem);
    const int bits = p->op == SF_OP_BITS;
    uint8_t acc[RANGES_BLOCK], part[RANGES_BLOCK];
    uint32_t pos[RANGES_BLOCK];
    unsigned char *dst = (unsigned char *)out;
    size_t total = 0;
    for (size_t i = 0; i < n; i += RANGES_BLOCK) {
        const size_t m = n - i < RANGES_BLOCK ? n - i : RANGES_BLOCK;
        const size_t bytes = bits ? (m + 7) / 8 : m;
        const unsigned char *xs = (const unsigned char *)x + i * size;
        const uint8_t *vs = valid ? valid + i / 8 : NULL;
        /* A mask result is combined in place in the output. */
        uint8_t *mask = sf_op_is_mask(p->op) ? dst + (bits ? i / 8 : i) : acc;
        mask_of(p, p->range, xs, vs, m, mask);
        for (size_t r = 0; r < p->more_count; r++) {
            mask_of(p, &p->more[r], xs, vs, m, part);
            combine(mask, part, bytes, p->every);
        }
        switch (p->op) {
        case SF_OP_MASK8:
        case SF_OP_COUNT:
            total += k->count[SF_U8](mask, m, &NONZERO);
            break;
        case SF_OP_BITS:
            total += ones(mask, bytes);
            break;
        case SF_OP_INDEX32:
            total += k->index32[SF_U8](mask, m, &NONZERO, (uint32_t)(base + i),
                                       (uint32_t *)(void *)(dst + 4 * total));
            break;
        case SF_OP_INDEX64:
            total += k->index64[SF_U8](mask, m, &NONZERO, base + i,
                                       (uint64_t *)(void *)(dst + 8 * total));
            break;
        default: { /* SF_OP_VALUES */
            const size_t got = k->index32[SF_U8](mask, m, &NONZERO, 0, pos);
            take_values(xs, size, pos, got, dst + size * total);
            total += got;
        }
        }
    }
    return total;
}
