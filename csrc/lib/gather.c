/*
 * Gathering: a block of a run that a kernel cannot read in place (strided,
 * unaligned or byte-swapped) copied into a small native buffer.
 */
#include "library.h"

#include <string.h>

int sf_run_is_direct(const sf_run *run, sf_elem elem) {
    const size_t size = sf_elem_size(elem);
    return !run->bit_packed && !run->byteswap && run->stride == (ptrdiff_t)size &&
           ((uintptr_t)run->data % size) == 0;
}

const uint8_t *sf_run_validity_in_place(const sf_run *run) {
    if (run->null_form == SF_NULLS_BITMAP && run->null_bit % 8 == 0)
        return run->nulls + run->null_bit / 8;
    return NULL;
}

/* Bits [bit, bit + n) of src, LSB first, as bits [0, n) of dst. Reads no byte
 * of src past the one holding bit + n - 1. */
static void shift_bits(const uint8_t *src, uint64_t bit, size_t n, uint8_t *dst) {
    const uint8_t *s = src + bit / 8;
    const unsigned r = (unsigned)(bit % 8);
    const size_t nbytes = (n + 7) / 8, last = (r + n - 1) / 8; /* the last byte of s read */
    for (size_t k = 0; k < nbytes; k++) {
        unsigned v = (unsigned)s[k] >> r;
        if (r && k + 1 <= last)
            v |= (unsigned)s[k + 1] << (8 - r);
        dst[k] = (uint8_t)v;
    }
}

void sf_validity_bits(const sf_run *run, sf_mask_to_valid_fn mask_to_valid, uint8_t *dst) {
    if (run->null_form == SF_NULLS_BITMAP) {
        shift_bits(run->nulls, run->null_bit, run->n, dst);
    } else if (run->null_stride == 1) {
        mask_to_valid(run->nulls, run->n, dst);
    } else { /* a strided mask (a view of a numpy.ma): byte by byte */
        memset(dst, 0, (run->n + 7) / 8);
        for (size_t i = 0; i < run->n; i++)
            dst[i / 8] |= (uint8_t)((run->nulls[(ptrdiff_t)i * run->null_stride] == 0) << (i % 8));
    }
}

void sf_gather(const sf_run *run, sf_elem elem, void *dst_) {
    if (run->bit_packed) { /* Arrow booleans: a byte 0 or 1 per bit */
        const uint8_t *bits = (const uint8_t *)run->data;
        uint8_t *out = (uint8_t *)dst_;
        for (size_t i = 0; i < run->n; i++) {
            const uint64_t b = run->data_bit + i;
            out[i] = (uint8_t)((bits[b / 8] >> (b % 8)) & 1);
        }
        return;
    }
    const char *src = (const char *)run->data;
    const ptrdiff_t stride = run->stride;
    const size_t n = run->n;
    const int swap = run->byteswap;
    unsigned char *dst = (unsigned char *)dst_;
    /* Constant sizes let memcpy become single loads and stores; the byte order
     * and the dense case (a byte-swapped or unaligned contiguous array) are
     * decided outside the loops, so the compiler can vectorize those. */
#define GATHER_LOOP(T, STEP, FIX)                                                         \
    for (size_t i = 0; i < n; i++) {                                                     \
        T v;                                                                             \
        memcpy(&v, src + (ptrdiff_t)i * (STEP), sizeof v);                               \
        v = FIX(v);                                                                      \
        memcpy(dst + i * sizeof v, &v, sizeof v);                                        \
    }
#define GATHER_AS(T, SWAP)                                                               \
    if (stride == (ptrdiff_t)sizeof(T) && !swap)                                        \
        memcpy(dst, src, n * sizeof(T));                                                 \
    else if (stride == (ptrdiff_t)sizeof(T))                                            \
        GATHER_LOOP(T, (ptrdiff_t)sizeof(T), SWAP)                                      \
    else if (swap)                                                                       \
        GATHER_LOOP(T, stride, SWAP)                                                     \
    else                                                                                 \
        GATHER_LOOP(T, stride, KEEP)
#define KEEP(v) (v)
    switch (sf_elem_size(elem)) {
    case 1:
        GATHER_AS(uint8_t, KEEP)
        break;
    case 2:
        GATHER_AS(uint16_t, __builtin_bswap16)
        break;
    case 4:
        GATHER_AS(uint32_t, __builtin_bswap32)
        break;
    default:
        GATHER_AS(uint64_t, __builtin_bswap64)
        break;
    }
#undef KEEP
#undef GATHER_AS
#undef GATHER_LOOP
}

/* ---- At given elements (within=) ---------------------------------------------------- */

void sf_gather_at(const sf_run *run, sf_elem elem, const uint64_t *idx, size_t m, void *dst_) {
    unsigned char *dst = (unsigned char *)dst_;
    const size_t size = sf_elem_size(elem);
    if (run->bit_packed) {
        const uint8_t *bits = (const uint8_t *)run->data;
        for (size_t i = 0; i < m; i++) {
            const uint64_t b = run->data_bit + idx[i];
            dst[i] = (uint8_t)((bits[b / 8] >> (b % 8)) & 1);
        }
        return;
    }
    const char *src = (const char *)run->data;
    for (size_t i = 0; i < m; i++)
        memcpy(dst + i * size, src + (ptrdiff_t)idx[i] * run->stride, size);
    if (run->byteswap) { /* in place, on the gathered copies */
        sf_run native = {.data = dst, .n = m, .stride = (ptrdiff_t)size, .byteswap = 1};
        sf_gather(&native, elem, dst);
    }
}

void sf_validity_bits_at(const sf_run *run, const uint64_t *idx, size_t m, uint8_t *dst) {
    memset(dst, 0, (m + 7) / 8);
    for (size_t i = 0; i < m; i++) {
        int valid;
        if (run->null_form == SF_NULLS_BITMAP) {
            const uint64_t b = run->null_bit + idx[i];
            valid = (run->nulls[b / 8] >> (b % 8)) & 1;
        } else {
            valid = run->nulls[(ptrdiff_t)idx[i] * run->null_stride] == 0;
        }
        dst[i / 8] |= (uint8_t)(valid << (i % 8));
    }
}

/* ---- Rows at positions (sf_take_rows) --------------------------------------------- */

/* Positions a block of rows holds: 16 KiB of uint32, L1-resident while every
 * column takes its rows. */
#define TAKE_BLOCK ((size_t)4096)

/* dst[i] = the element at pos[i], for i < m; m, or the first i whose position
 * is out of bounds. The bound check is one predictable branch in a loop that
 * waits on memory. */
#define TAKE_LOOP(name, T, P)                                                                      \
    static size_t name(const char *src, ptrdiff_t stride, size_t n, const P *pos, size_t m,         \
                       T *dst) {                                                                   \
        for (size_t i = 0; i < m; i++) {                                                           \
            const P j = pos[i];                                                                    \
            if ((uint64_t)j >= n)                                                                  \
                return i;                                                                          \
            memcpy(&dst[i], src + (ptrdiff_t)j * stride, sizeof(T));                               \
        }                                                                                          \
        return m;                                                                                  \
    }
TAKE_LOOP(take8_32, uint8_t, uint32_t)
TAKE_LOOP(take16_32, uint16_t, uint32_t)
TAKE_LOOP(take32_32, uint32_t, uint32_t)
TAKE_LOOP(take64_32, uint64_t, uint32_t)
TAKE_LOOP(take8_64, uint8_t, uint64_t)
TAKE_LOOP(take16_64, uint16_t, uint64_t)
TAKE_LOOP(take32_64, uint32_t, uint64_t)
TAKE_LOOP(take64_64, uint64_t, uint64_t)

static size_t take_block(const sf_take_column *c, size_t n, const void *pos, int wide, size_t m,
                         size_t at) {
    const char *src = (const char *)c->data;
    char *dst = (char *)c->dst + at * c->size;
    if (wide) {
        const uint64_t *p = (const uint64_t *)pos + at;
        switch (c->size) {
        case 1: return take8_64(src, c->stride, n, p, m, (uint8_t *)dst);
        case 2: return take16_64(src, c->stride, n, p, m, (uint16_t *)dst);
        case 4: return take32_64(src, c->stride, n, p, m, (uint32_t *)dst);
        default: return take64_64(src, c->stride, n, p, m, (uint64_t *)dst);
        }
    }
    const uint32_t *p = (const uint32_t *)pos + at;
    switch (c->size) {
    case 1: return take8_32(src, c->stride, n, p, m, (uint8_t *)dst);
    case 2: return take16_32(src, c->stride, n, p, m, (uint16_t *)dst);
    case 4: return take32_32(src, c->stride, n, p, m, (uint32_t *)dst);
    default: return take64_32(src, c->stride, n, p, m, (uint64_t *)dst);
    }
}

size_t sf_take_rows(const sf_take_column *cols, size_t ncols, size_t n, const void *positions,
                    int wide, size_t k) {
    for (size_t c = 0; c < ncols; c++)
        if (cols[c].size != 1 && cols[c].size != 2 && cols[c].size != 4 && cols[c].size != 8)
            return SIZE_MAX;
    for (size_t at = 0; at < k; at += TAKE_BLOCK) {
        const size_t m = k - at < TAKE_BLOCK ? k - at : TAKE_BLOCK;
        for (size_t c = 0; c < ncols; c++) {
            const size_t done = take_block(&cols[c], n, positions, wide, m, at);
            if (done < m)
                return at + done;
        }
    }
    return k;
}
