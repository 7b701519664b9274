/*
 * One block on the calling thread (sf_scan_serial): the kernel called on the
 * block in place where it can read it, else on small native blocks gathered
 * on the stack, with validity made from mask bytes or an unaligned bitmap
 * block by block. Called by the driver (lib/driver.c) and by a team's threads
 * (lib/team.c); it calls neither.
 */
#include "library.h"

/* sf_scan_serial (library.h). A validity that is not a byte-aligned bitmap is
 * made in small blocks too. The masks write a result per element: the cursor
 * moves by the block (whose length is a multiple of 8 but for the last). */
size_t sf_scan_serial(const sf_plan *p, const sf_run *block, void *out) {
    const int direct = sf_run_is_direct(block, p->elem);
    const uint8_t *valid = sf_run_validity_in_place(block);
    if (direct && (valid || block->null_form == SF_NULLS_NONE))
        return sf_scan_kernel(p, block->data, valid, block->n, block->base, out);
    uint64_t buf[SF_GATHER_BLOCK]; /* 64-bit words: aligned for every kind */
    uint8_t bits[SF_VALIDITY_BLOCK / 8];
    unsigned char *cursor = (unsigned char *)out;
    size_t total = 0;
    sf_run g;
    for (sf_blocks b = SF_BLOCKS(block, direct ? SF_VALIDITY_BLOCK : SF_GATHER_BLOCK);
         sf_blocks_next(&b, &g);) {
        const void *x = g.data;
        if (!direct) {
            sf_gather(&g, p->elem, buf);
            x = buf;
        }
        const uint8_t *v = sf_run_validity_in_place(&g);
        if (!v && g.null_form != SF_NULLS_NONE) {
            sf_validity_bits(&g, p->kernel->mask_to_valid, bits);
            v = bits;
        }
        size_t got = sf_scan_kernel(p, x, v, g.n, g.base, cursor);
        if (cursor) /* count passes no output: no arithmetic on NULL */
            cursor += sf_op_is_mask(p->op) ? sf_output_bytes(p->op, p->elem, g.n)
                                           : got * p->rsize;
        total += got;
    }
    return total;
}
