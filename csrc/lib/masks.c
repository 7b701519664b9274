/*
 * The masks through sf_execute (SF_OP_MASK8, SF_OP_BITS), and sf_validity.
 *
 * A mask has a result per element, so where each goes is known before the
 * kernel runs: element j of the source at byte j (mask8) or bit j (bits) of
 * the output, whatever the runs' positions. Nothing is staged or placed
 * afterwards: a run's blocks, and on several threads each thread's blocks
 * (lib/team.c), are written in place.
 *
 * Bits have one complication: a run may start inside a byte (a chunk of 13
 * elements before it). Its first elements, up to the next byte boundary,
 * are computed into a byte on the stack and merged into that output byte
 * (put_bits); from there on every block starts on a byte, since every block
 * length the library cuts (SF_CANCEL_BLOCK, SF_THREAD_BLOCK, SF_GATHER_BLOCK,
 * SF_VALIDITY_BLOCK) is a multiple of 8, and the kernels write whole bytes,
 * the bits past their last element 0, so the next run's head merges with them.
 */
#include "library.h"

#include <string.h>

#include "../kernels/bits.h" /* sf_popcount_bytes */

_Static_assert(SF_CANCEL_BLOCK % 8 == 0 && SF_GATHER_BLOCK % 8 == 0 &&
                   SF_VALIDITY_BLOCK % 8 == 0,
               "blocks of a bit-packed output must start on a byte");

/* Bits [0, n) of src (its bits past n 0) into bits [at, at + n) of out: the
 * bits of out before `at` in its byte kept, those past at + n in the last byte
 * written 0. */
static void put_bits(uint8_t *out, uint64_t at, const uint8_t *src, size_t n) {
    uint8_t *o = out + at / 8;
    const unsigned r = (unsigned)(at % 8);
    const size_t have = (n + 7) / 8; /* bytes of src */
    if (!r) {
        memcpy(o, src, have);
        return;
    }
    const size_t touched = (r + n + 7) / 8; /* bytes of out */
    unsigned carry = o[0] & ((1u << r) - 1u);
    for (size_t j = 0; j < touched; j++) {
        const unsigned s = j < have ? src[j] : 0u;
        o[j] = (uint8_t)(carry | (s << r));
        carry = s >> (8 - r);
    }
}

/* The in-range elements of a run, counted on this thread (what is past the
 * capacity); SF_ECANCELLED if the cancel callback stops it. */
static int count_rest(const sf_plan *p, const sf_run *run, const sf_exec *x, size_t *since,
                      size_t *total) {
    sf_plan count = *p;
    count.op = SF_OP_COUNT;
    count.rsize = 0;
    sf_run block;
    for (sf_blocks b = SF_BLOCKS(run, SF_CANCEL_BLOCK); sf_blocks_next(&b, &block);) {
        *total += sf_scan_serial(&count, &block, NULL);
        if (sf_cancel_due(x, since, block.n))
            return SF_ECANCELLED;
    }
    return SF_OK;
}

/* Elements [0, run->n) of a run into out, which starts on a byte at the run's
 * first element (room for all of them): on several threads when the run is
 * long enough, else block by block here. */
static int write_run(const sf_plan *p, const sf_run *run, unsigned char *out, const sf_exec *x,
                     size_t *since, size_t *total) {
    const size_t nbytes = run->n * sf_elem_size(p->elem);
    const int threads =
        sf_team_size(run->n, x->threads > 0 ? x->threads
                             : x->fresh_out ? sf_auto_threads_fresh(nbytes)
                                            : sf_auto_threads(nbytes));
    if (threads > 1) {
        size_t got = 0;
        const int rc = sf_scan_team(p, run, out, run->n, threads, x, &got);
        if (rc != 1) {
            *total += got;
            return rc == SF_ECANCELLED ? SF_ECANCELLED : SF_OK;
        }
    }
    sf_run block;
    for (sf_blocks b = SF_BLOCKS(run, SF_CANCEL_BLOCK); sf_blocks_next(&b, &block);) {
        *total += sf_scan_serial(p, &block, out + sf_output_bytes(p->op, p->elem, block.base - run->base));
        if (sf_cancel_due(x, since, block.n))
            return SF_ECANCELLED;
    }
    return SF_OK;
}

int sf_execute_mask(const sf_plan *p, sf_source *src, unsigned char *out, size_t capacity,
                    const sf_exec *x, size_t *found) {
    size_t done = 0, total = 0, since = 0; /* elements written, in range, since a poll */
    int rc = SF_OK;
    sf_run run;
    while (rc == SF_OK && sf_next_run(src, &run)) {
        size_t at = 0; /* elements of this run written */
        const size_t room = done < capacity ? capacity - done : 0;
        const size_t m = run.n < room ? run.n : room;
        if (p->op == SF_OP_BITS && done % 8 && m) {
            /* The head: up to the next byte boundary, merged into its byte. */
            uint8_t byte = 0;
            at = 8 - done % 8 < m ? 8 - done % 8 : m;
            const sf_run head = sf_run_slice(&run, 0, at);
            total += sf_scan_serial(p, &head, &byte);
            put_bits(out, done, &byte, at);
        }
        if (at < m) {
            /* Positions carry on from the run's: block.base - run.base is the
             * element's place in the slice, whatever the base. */
            const sf_run rest = sf_run_slice(&run, at, m - at);
            rc = write_run(p, &rest, out + sf_output_bytes(p->op, p->elem, done + at), x, &since,
                           &total);
        }
        done += m;
        if (rc == SF_OK && m < run.n) {
            const sf_run past = sf_run_slice(&run, m, run.n - m);
            rc = count_rest(p, &past, x, &since, &total);
        }
    }
    *found = total;
    return rc;
}

/* sf_validity (simdfilter.h): each run's validity made in blocks (as the
 * driver makes it for the kernels), then put at its place in the bitmap. */
size_t sf_validity(sf_source *src, uint8_t *out, size_t capacity, size_t *nulls) {
    const sf_mask_to_valid_fn mask_to_valid = sf_active_kernel()->mask_to_valid;
    uint8_t bits[SF_VALIDITY_BLOCK / 8];
    size_t done = 0, elements = 0, valid = 0;
    sf_run run, block;
    while (sf_next_run(src, &run)) {
        const size_t room = done < capacity ? capacity - done : 0;
        const sf_run part = sf_run_slice(&run, 0, run.n < room ? run.n : room);
        elements += run.n;
        for (sf_blocks b = SF_BLOCKS(&part, SF_VALIDITY_BLOCK); sf_blocks_next(&b, &block);) {
            const size_t nb = (block.n + 7) / 8;
            if (block.null_form == SF_NULLS_NONE)
                memset(bits, 0xff, nb);
            else
                sf_validity_bits(&block, mask_to_valid, bits);
            if (block.n % 8) /* a bitmap's bits past the block are the next ones */
                bits[nb - 1] &= (uint8_t)((1u << (block.n % 8)) - 1u);
            valid += sf_popcount_bytes(bits, nb);
            put_bits(out, done, bits, block.n);
            done += block.n;
        }
    }
    if (nulls)
        *nulls = done - valid;
    return elements;
}
