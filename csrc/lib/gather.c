/*
 * Gathering: a block of a run that a kernel cannot read in place (strided,
 * unaligned or byte-swapped) copied into a small native buffer.
 */
#include "library.h"

#include <string.h>

int sf_run_is_direct(const sf_run *run, sf_elem elem) {
    const size_t size = sf_elem_size(elem);
    return !run->byteswap && run->stride == (ptrdiff_t)size &&
           ((uintptr_t)run->data % size) == 0;
}

void sf_gather(const sf_run *run, sf_elem elem, void *dst_) {
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
