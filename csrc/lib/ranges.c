/*
 * A query of several ranges (sf_query's more, more_count and every): the
 * elements in any of them, or in every one, in one pass over the data.
 *
 * The data goes by in blocks of SF_RANGES_STEP elements (kernels/bits.h),
 * small enough to stay in the first-level cache. The kernel's bits_ranges
 * compares the block with up to SF_RANGES_AT_ONCE ranges (each vector against
 * every range) and combines their bits (OR for a union, AND for an
 * intersection); more ranges take more passes over the cached block,
 * combined the same way; the validity bits are then ANDed in (bits_ranges
 * does not read nulls). The block's results come from its bits: counted,
 * spread to bytes for a byte mask, or for positions and values read one by
 * one when few are set, else spread to bytes that the kernel's own uint8
 * filter reads. Every step on the data is a kernel op with its scalar twin.
 *
 * bits_ranges beat one pass per range (the figures, with their CPU:
 * lib/README.md).
 */
#include "library.h"

#include <string.h>

#include "../kernels/bits.h" /* SF_RANGES_STEP, sf_combine_bytes, sf_popcount_bytes */

/* The uint8 range of a mask's kept bytes: nonzero. */
static const sf_range NONZERO = {1, 255, 0.0, 0.0, 0};

/* The bits of the block for the ranges first[0, nfirst) and rest[0, nrest):
 * the kernel's bits_ranges, SF_RANGES_AT_ONCE ranges a pass, the passes
 * combined; then the nulls cleared. */
static void bits_of(const sf_plan *p, const sf_range *first, size_t nfirst, const sf_range *rest,
                    size_t nrest, const void *x, const uint8_t *valid, size_t n, uint8_t *m,
                    uint8_t *part) {
    const sf_bits_ranges_fn ranges = p->kernel->bits_ranges[p->elem];
    const size_t bytes = (n + 7) / 8;
    ranges(x, n, first, nfirst, p->every, m);
    for (size_t done = 0; done < nrest; done += SF_RANGES_AT_ONCE) {
        const size_t k = nrest - done < SF_RANGES_AT_ONCE ? nrest - done : SF_RANGES_AT_ONCE;
        ranges(x, n, rest + done, k, p->every, part);
        sf_combine_bytes(m, part, bytes, p->every);
    }
    if (valid)
        sf_combine_bytes(m, valid, bytes, 1);
}

/* Bits [0, n) of `bits` as the bytes 0 and 1 of mask[0, n). */
static void bits_to_bytes(const uint8_t *bits, size_t n, uint8_t *mask) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        /* The byte copied to all eight lanes, lane j keeping bit j, then each
         * lane's nonzero turned into 1 (adding 0x7f sets its top bit exactly
         * when it is nonzero, with no carry into the next lane). */
        uint64_t w = (uint64_t)bits[i / 8] * 0x0101010101010101u & 0x8040201008040201u;
        w = ((w + 0x7f7f7f7f7f7f7f7fu) & 0x8080808080808080u) >> 7;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        w = __builtin_bswap64(w); /* lane j is byte j in memory */
#endif
        memcpy(mask + i, &w, 8);
    }
    for (; i < n; i++)
        mask[i] = (uint8_t)((bits[i / 8] >> (i % 8)) & 1u);
}

/* Room offsets_of_bits needs past a block's last offset. */
#define OFFSETS_SLACK 4

/* The offsets of the set bits of bits[0, bytes) (at most SF_RANGES_STEP / 8
 * bytes), ascending, into at[], which has room for OFFSETS_SLACK more than
 * the bits set: a word's first four offsets are written whatever it holds.
 * There is then no branch on whether a word has any bit set, which at 1 % of
 * bits set is a coin toss per word (perf on AMD EPYC Zen 4: that branch was
 * most of _positions_of_bits' time). Returns how many. */
static size_t offsets_of_bits(const uint8_t *bits, size_t bytes, uint16_t *at) {
    size_t k = 0;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t w = 0; /* byte j of the 8 at bits + i as bits 8j..8j+7, any byte order */
        if (i + 8 <= bytes) {
            memcpy(&w, bits + i, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            w = __builtin_bswap64(w);
#endif
        } else {
            for (size_t j = 0; i + j < bytes; j++)
                w |= (uint64_t)bits[i + j] << (8 * j);
        }
        const size_t set = sf_popcount64(w), base = 8 * i;
        /* ctz of 0 is undefined: w | 2^63 gives 63 instead, an offset that is
         * written past this word's last and overwritten (or never read) */
        for (size_t j = 0; j < OFFSETS_SLACK; j++, w &= w - 1u)
            at[k + j] = (uint16_t)(base + (size_t)__builtin_ctzll(w | (1ull << 63)));
        for (size_t j = OFFSETS_SLACK; j < set; j++, w &= w - 1u)
            at[k + j] = (uint16_t)(base + (size_t)__builtin_ctzll(w));
        k += set;
    }
    return k;
}

/* The positions (from `base`) of the set bits of bits[0, bytes), bit by bit:
 * for a block that keeps few elements. Returns how many. */
static size_t positions_of_bits(const uint8_t *bits, size_t bytes, uint64_t base, sf_op op,
                                unsigned char *out) {
    uint16_t at[SF_RANGES_STEP + OFFSETS_SLACK];
    const size_t k = offsets_of_bits(bits, bytes, at);
    if (op == SF_OP_INDEX32)
        for (size_t j = 0; j < k; j++) {
            const uint32_t q = (uint32_t)(base + at[j]);
            memcpy(out + 4 * j, &q, 4);
        }
    else
        for (size_t j = 0; j < k; j++) {
            const uint64_t q = base + at[j];
            memcpy(out + 8 * j, &q, 8);
        }
    return k;
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

size_t sf_bits_positions(const sf_kernel *kernel, const uint8_t *bits, size_t n, sf_op op,
                         void *out, size_t capacity) {
    if (op != SF_OP_INDEX32 && op != SF_OP_INDEX64)
        return 0;
    /* the bits past n are not the caller's: its last partial byte masked */
    const uint8_t last = n % 8 ? (uint8_t)(bits[n / 8] & ((1u << (n % 8)) - 1u)) : 0;
    if (!out)
        return sf_popcount_bytes(bits, n / 8) + sf_popcount64(last);
    const sf_kernel *k = kernel ? kernel : sf_active_kernel();
    const size_t rsize = op == SF_OP_INDEX32 ? 4 : 8;
    unsigned char *dst = (unsigned char *)out;
    uint8_t block[SF_RANGES_STEP / 8], bytes[SF_RANGES_STEP];
    uint64_t pos[SF_RANGES_STEP]; /* the kernel writes anywhere in its n results */
    size_t total = 0;
    for (size_t i = 0; i < n; i += SF_RANGES_STEP) {
        const size_t m = n - i < SF_RANGES_STEP ? n - i : SF_RANGES_STEP, nbytes = (m + 7) / 8;
        /* Another thread may write the bits while they are read (the caller's
         * memory): a block is read once, into this copy, whose count then
         * bounds what is written from it. */
        memcpy(block, bits + i / 8, m % 8 ? nbytes - 1 : nbytes);
        if (m % 8) /* the last block */
            block[nbytes - 1] = last;
        const size_t kept = sf_popcount_bytes(block, nbytes);
        const size_t room = total < capacity ? capacity - total : 0;
        /* As sf_scan_ranges reads a block's bits: one by one when few are set,
         * else spread to bytes for the kernel's uint8 filter. A block that
         * would pass the capacity (the bits changed since they were counted)
         * is made aside and cut. */
        if (kept <= m / 32 && kept <= room) {
            positions_of_bits(block, nbytes, i, op, dst + rsize * total);
        } else if (room) {
            size_t made;
            if (kept <= m / 32) {
                made = positions_of_bits(block, nbytes, i, op, (unsigned char *)pos);
            } else {
                bits_to_bytes(block, m, bytes);
                made = op == SF_OP_INDEX32 ? k->index32[SF_U8](bytes, m, &NONZERO, (uint32_t)i,
                                                               (uint32_t *)(void *)pos)
                                           : k->index64[SF_U8](bytes, m, &NONZERO, i, pos);
            }
            memcpy(dst + rsize * total, pos, rsize * (made < room ? made : room));
        }
        total += kept;
    }
    return total;
}

size_t sf_scan_ranges(const sf_plan *p, const void *x, const uint8_t *valid, size_t n,
                     uint64_t base, void *out) {
    const sf_kernel *k = p->kernel;
    const size_t size = sf_elem_size(p->elem);
    uint8_t bits[SF_RANGES_STEP / 8], part[SF_RANGES_STEP / 8], bytes[SF_RANGES_STEP];
    /* The first pass's ranges side by side (the plan's range, then the first
     * of `more`); the other passes read `more` in place. */
    sf_range first[SF_RANGES_AT_ONCE];
    const size_t count = 1 + p->more_count;
    const size_t nfirst = count < SF_RANGES_AT_ONCE ? count : SF_RANGES_AT_ONCE;
    first[0] = *p->range;
    for (size_t j = 1; j < nfirst; j++)
        first[j] = p->more[j - 1];
    uint32_t pos[SF_RANGES_STEP];
    unsigned char *dst = (unsigned char *)out;
    size_t total = 0;
    for (size_t i = 0; i < n; i += SF_RANGES_STEP) {
        const size_t m = n - i < SF_RANGES_STEP ? n - i : SF_RANGES_STEP, nbytes = (m + 7) / 8;
        const unsigned char *xs = (const unsigned char *)x + i * size;
        const uint8_t *vs = valid ? valid + i / 8 : NULL;
        /* A bits result is made in place in the output. */
        uint8_t *acc = p->op == SF_OP_BITS ? dst + i / 8 : bits;
        bits_of(p, first, nfirst, p->more + (nfirst - 1), count - nfirst, xs, vs, m, acc, part);
        const size_t kept = sf_popcount_bytes(acc, nbytes);
        switch (p->op) {
        case SF_OP_BITS:
        case SF_OP_COUNT:
            break;
        case SF_OP_MASK8:
            bits_to_bytes(acc, m, dst + i);
            break;
        case SF_OP_INDEX32:
        case SF_OP_INDEX64:
            /* Few kept: their bits one by one; else the kernel's uint8 filter
             * over the bits spread to bytes. */
            if (kept <= m / 32) {
                positions_of_bits(acc, nbytes, base + i, p->op, dst + p->rsize * total);
            } else {
                bits_to_bytes(acc, m, bytes);
                if (p->op == SF_OP_INDEX32)
                    k->index32[SF_U8](bytes, m, &NONZERO, (uint32_t)(base + i),
                                      (uint32_t *)(void *)(dst + 4 * total));
                else
                    k->index64[SF_U8](bytes, m, &NONZERO, base + i,
                                      (uint64_t *)(void *)(dst + 8 * total));
            }
            break;
        default: /* SF_OP_VALUES: `kept` positions, as the bits past m are 0 */
            bits_to_bytes(acc, m, bytes);
            k->index32[SF_U8](bytes, m, &NONZERO, 0, pos);
            take_values(xs, size, pos, kept, dst + size * total);
        }
        total += kept;
    }
    return total;
}
