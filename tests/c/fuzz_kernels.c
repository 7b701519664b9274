/*
 * libFuzzer target: every kernel this CPU supports against the scalar kernel,
 * and the scalar kernel against the header's specification, on inputs the
 * fuzzer shapes.
 *
 *   clang -fsanitize=fuzzer,address,undefined ... fuzz_kernels.c <library objects>
 *   ./fuzz_kernels -max_total_time=60 corpus/
 *
 * Input layout (short inputs are padded with zero bytes; see tests/c/corpus/):
 *   [0]       bits 0-6: element kind, modulo SF_ELEM_COUNT; bit 7: the range
 *             inverted (sf_range.invert: keep what is outside it)
 *   [1]       bits 0-2: start offset in elements (misaligns x from malloc's alignment)
 *             bit 3: index32 base = 2^32 - n - (base32 & 3), the top of the 32-bit range
 *             bit 4: index64 base = 2^32 - (base64 % (n + 1)), positions cross 2^32
 *             bit 5: index64 base = 2^64 - n, the top of the 64-bit range
 *   [2, 10)   lo, little-endian, truncated to the element width (floats: their bits)
 *   [10, 18)  hi, the same
 *   [18, 22)  base32
 *   [22, 30)  base64
 *   [30]      tiling: the elements are the payload's, repeated 1 + (bits 0-3) times;
 *             tile t > 0 is the payload again if bit (t % 4) of bits 4-7 is set, else
 *             the payload's first element repeated (a block of all-in or all-out), so
 *             that inputs reach the x86 kernels' sparse windows (after a
 *             256-element probe, 2048 elements each) and change between empty and
 *             dense windows
 *   [31, ...) the payload: elements in native byte order; a partial trailing element
 *             is ignored
 *
 * The masks (mask8, bits) are checked whole: every result, the bits past n;
 * so is bits_ranges, over the case's range and up to 7 more (fuzz_ranges).
 * The slots with nulls and with given positions (index32_valid ... within64,
 * mask8_valid, bits_valid) run on the same elements, with a validity bitmap and a strictly ascending
 * position set drawn from a generator seeded by the header: bits 6-7 of [1]
 * pick the validity density (0%, 1%, 50%, 100%), the same generator the share
 * of positions kept (none, 1%, 50%, all).
 *
 * Bounds become a non-empty range the way a caller would build one: integer
 * pairs empty in both unsigned and signed order are swapped; a NaN bound becomes
 * the infinity on its side; float bounds in the wrong order are swapped. An
 * inverted integer range that covers its width (nothing outside it, which the
 * contract keeps from the kernels) is left plain.
 *
 * Buffers are exact-size heap blocks, so AddressSanitizer reports any read or
 * write past either end. A difference prints a report and aborts, which
 * libFuzzer turns into a saved crash input.
 */
#define _DEFAULT_SOURCE /* test_common.h: mmap's MAP_ANONYMOUS */

#include <inttypes.h>
#include <math.h> /* INFINITY and NAN only: no libm call */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdfilter.h"
#include "test_common.h"

#define HEADER 31

static uint64_t le(const uint8_t *p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static const sf_kernel *kernels[16];
static int nkernels;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* k into kernels[] and its name onto names, when this CPU runs it (and there
 * is room). */
static void add_kernel(const sf_kernel *k, char *names, size_t cap) {
    if (nkernels >= (int)(sizeof kernels / sizeof *kernels) || !sf_kernel_supported(k))
        return;
    kernels[nkernels++] = k;
    size_t len = strlen(names);
    snprintf(names + len, cap - len, "%s%s", len ? "," : "", k->name);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    char names[256] = "";
    for (int i = 1; i < sf_kernel_count(); i++)
        add_kernel(sf_kernel_at(i), names, sizeof names);
    /* The benchmark-only variants (the x86 filter loop without its sparse
     * windows) are fuzzed like the kernels. */
    for (int v = 0; v < sf_kernel_variant_count(); v++)
        add_kernel(sf_kernel_variant_at(v), names, sizeof names);
    /* The pytest driver checks this line: a build without SIMD kernels must not pass. */
    fprintf(stderr, "fuzz_kernels: kernels under test: %s\n", nkernels ? names : "(none)");
    return 0;
}

typedef struct {
    sf_elem elem;
    size_t n, size;
    sf_range r;
    uint32_t base32;
    uint64_t base64;
    const void *x;
} fcase;

static void report(const char *kernel, int op, const fcase *c, const char *what) {
    fprintf(stderr,
            "\nFAIL: kernel %s, op %s, elem %s, n = %zu: %s\n"
            "  range lo=0x%" PRIx64 " hi=0x%" PRIx64 " flo=%.17g fhi=%.17g base32=%" PRIu32
            " base64=%" PRIu64 " invert=%d\n",
            kernel, op_names[op], sf_elem_name(c->elem), c->n, what, c->r.lo, c->r.hi, c->r.flo,
            c->r.fhi, c->base32, c->base64, c->r.invert);
}

static size_t call(const sf_kernel *k, int op, const fcase *c, void *out) {
    switch (op) {
    case SF_OP_INDEX32: return k->index32[c->elem](c->x, c->n, &c->r, c->base32, (uint32_t *)out);
    case SF_OP_INDEX64: return k->index64[c->elem](c->x, c->n, &c->r, c->base64, (uint64_t *)out);
    case SF_OP_VALUES: return k->values[c->elem](c->x, c->n, &c->r, out);
    case SF_OP_MASK8: return k->mask8[c->elem](c->x, c->n, &c->r, (uint8_t *)out);
    case SF_OP_BITS: return k->bits[c->elem](c->x, c->n, &c->r, (uint8_t *)out);
    default: return k->count[c->elem](c->x, c->n, &c->r);
    }
}

/* What a mask says of element i: in range and (valid != NULL) valid. */
typedef struct {
    const fcase *c;
    const uint8_t *valid;
} mask_ctx;

static int mask_keeps(size_t i, const void *ctx) {
    const mask_ctx *m = (const mask_ctx *)ctx;
    return (!m->valid || ((m->valid[i / 8] >> (i % 8)) & 1)) &&
           spec_keep(m->c->elem, load_uint(m->c->size, m->c->x, i), &m->c->r);
}

/* A mask op (with nulls when valid): scalar against the specification (every
 * result, the bits past n 0, the count), every kernel byte for byte against
 * scalar. The outputs are exact-size heap blocks. */
static void fuzz_mask(sf_op op, const fcase *c, const uint8_t *valid) {
    const size_t bytes = sf_output_bytes(op, c->elem, c->n);
    unsigned char *ref = malloc(bytes ? bytes : 1), *out = malloc(bytes ? bytes : 1);
    const char *name = valid ? (op == SF_OP_MASK8 ? "mask8_valid" : "bits_valid") : op_names[op];
    if (!ref || !out) {
        free(ref), free(out);
        return;
    }
    for (int i = -1; i < nkernels; i++) {
        const sf_kernel *k = i < 0 ? sf_kernel_at(0) : kernels[i];
        unsigned char *dst = i < 0 ? ref : out;
        memset(dst, 0xEE, bytes);
        const size_t got =
            valid ? (op == SF_OP_MASK8 ? k->mask8_valid : k->bits_valid)[c->elem](
                        c->x, valid, c->n, &c->r, dst)
                  : call(k, op, c, dst);
        const mask_ctx ctx = {c, valid};
        size_t want = 0;
        for (size_t j = 0; j < c->n; j++)
            want += (size_t)mask_keeps(j, &ctx);
        if (i < 0 && mask_mismatch(op, ref, c->n, mask_keeps, &ctx) != (size_t)-1) {
            fprintf(stderr, "\nFAIL: kernel scalar, op %s, elem %s, n = %zu: the reference "
                    "disagrees with the specification\n", name, sf_elem_name(c->elem), c->n);
            abort();
        }
        if (got != want || (i >= 0 && bytes && memcmp(out, ref, bytes))) {
            fprintf(stderr, "\nFAIL: kernel %s, op %s, elem %s, n = %zu: %s (returned %zu, "
                    "expected %zu)\n", k->name, name, sf_elem_name(c->elem), c->n,
                    got != want ? "wrong count" : "wrong output", got, want);
            abort();
        }
    }
    free(ref);
    free(out);
}

/* The scalar result must be what the specification says, element by element. */
static void check_reference(int op, const fcase *c, size_t got, const void *out) {
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t v = load_uint(c->size, c->x, i);
        if (!spec_keep(c->elem, v, &c->r))
            continue;
        if (op != SF_OP_COUNT && k < got) {
            const uint64_t want = op == SF_OP_INDEX32   ? (uint32_t)(c->base32 + (uint32_t)i)
                                  : op == SF_OP_INDEX64 ? c->base64 + i
                                                     : v;
            const size_t osz = sf_result_size((sf_op)op, c->elem);
            if (load_uint(osz, out, k) != want) {
                report("scalar", op, c, "the reference disagrees with the specification");
                fprintf(stderr, "  out[%zu] should come from x[%zu]\n", k, i);
                abort();
            }
        }
        k++;
    }
    if (k != got) {
        report("scalar", op, c, "the reference disagrees with the specification");
        fprintf(stderr, "  returned %zu, the specification keeps %zu\n", got, k);
        abort();
    }
}

/* ---- Nulls and positions ------------------------------------------------- */

enum { FW_INDEX32, FW_INDEX64, FW_VALUES, FW_COUNT, FW_WITHIN32, FW_WITHIN64, FW_OPS };
static const char *const fw_names[FW_OPS] = {"index32_valid", "index64_valid", "values_valid",
                                             "count_valid",   "within32",      "within64"};

static size_t fw_call(const sf_kernel *k, int op, const fcase *c, const uint8_t *valid,
                      const void *pos, size_t m, void *out) {
    switch (op) {
    case FW_INDEX32:
        return k->index32_valid[c->elem](c->x, valid, c->n, &c->r, c->base32, (uint32_t *)out);
    case FW_INDEX64:
        return k->index64_valid[c->elem](c->x, valid, c->n, &c->r, c->base64, (uint64_t *)out);
    case FW_VALUES: return k->values_valid[c->elem](c->x, valid, c->n, &c->r, out);
    case FW_COUNT: return k->count_valid[c->elem](c->x, valid, c->n, &c->r);
    case FW_WITHIN32:
        return k->within32[c->elem](c->x, c->base32, (const uint32_t *)pos, m, &c->r,
                                    (uint32_t *)out);
    default:
        return k->within64[c->elem](c->x, c->base64, (const uint64_t *)pos, m, &c->r,
                                    (uint64_t *)out);
    }
}

static void fw_fail(const char *kernel, int op, const fcase *c, const char *what) {
    fprintf(stderr, "\nFAIL: kernel %s, op %s, elem %s, n = %zu: %s\n", kernel, fw_names[op],
            sf_elem_name(c->elem), c->n, what);
    abort();
}

static void fuzz_nulls_within(const fcase *c, const uint8_t *h) {
    static const unsigned pct[4] = {0, 1, 50, 100};
    rng_seed(le(h + 2, 8) ^ le(h + 22, 8) ^ ((uint64_t)h[1] << 56) ^ c->n);
    const unsigned vd = pct[h[1] >> 6], pd = pct[below(4)];
    const size_t nb = (c->n + 7) / 8;
    uint8_t *valid = malloc(nb ? nb : 1);
    size_t *idx = malloc((c->n ? c->n : 1) * sizeof *idx), m = 0;
    uint32_t *p32 = malloc((c->n ? c->n : 1) * 4);
    uint64_t *p64 = malloc((c->n ? c->n : 1) * 8);
    if (!valid || !idx || !p32 || !p64)
        goto done;
    memset(valid, 0, nb);
    for (size_t i = 0; i < 8 * nb; i++) /* bits past n random: they must be ignored */
        if (i >= c->n ? chance(50) : chance(vd))
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
    for (size_t i = 0; i < c->n; i++)
        if (chance(pd))
            idx[m] = i, p32[m] = c->base32 + (uint32_t)i, p64[m] = c->base64 + i, m++;
    for (int op = 0; op < FW_OPS; op++) {
        const int is_pos = op >= FW_WITHIN32;
        const size_t osz = op == FW_INDEX32 || op == FW_WITHIN32 ? 4
                           : op == FW_INDEX64 || op == FW_WITHIN64 ? 8
                                                                   : c->size;
        const size_t obytes = op == FW_COUNT ? 0 : (is_pos ? m : c->n) * osz;
        const void *pos = op == FW_WITHIN32 ? (const void *)p32 : (const void *)p64;
        unsigned char *ref = malloc(obytes ? obytes : 1), *out = malloc(obytes ? obytes : 1);
        if (!ref || !out) {
            free(ref), free(out);
            break;
        }
        const size_t want = fw_call(sf_kernel_at(0), op, c, valid, pos, m, ref);
        /* scalar against the specification */
        size_t k = 0;
        const size_t count = is_pos ? m : c->n;
        for (size_t j = 0; j < count; j++) {
            const size_t i = is_pos ? idx[j] : j;
            const uint64_t v = load_uint(c->size, c->x, i);
            if (!spec_keep(c->elem, v, &c->r) || (!is_pos && !((valid[i / 8] >> (i % 8)) & 1)))
                continue;
            const uint64_t w = osz == 4 && op != FW_VALUES ? (uint32_t)(c->base32 + (uint32_t)i)
                               : op == FW_VALUES        ? v
                                                        : c->base64 + i;
            if (op != FW_COUNT && (k >= want || load_uint(osz, ref, k) != w))
                fw_fail("scalar", op, c, "the reference disagrees with the specification");
            k++;
        }
        if (k != want)
            fw_fail("scalar", op, c, "the reference's count disagrees with the specification");
        for (int i = 0; i < nkernels; i++) {
            memset(out, 0xEE, obytes);
            const size_t got = fw_call(kernels[i], op, c, valid, pos, m, out);
            if (got != want)
                fw_fail(kernels[i]->name, op, c, "wrong count");
            if (op != FW_COUNT && got && memcmp(out, ref, got * osz))
                fw_fail(kernels[i]->name, op, c, "wrong output");
        }
        free(ref);
        free(out);
    }
    fuzz_mask(SF_OP_MASK8, c, valid);
    fuzz_mask(SF_OP_BITS, c, valid);
done:
    free(valid);
    free(idx);
    free(p32);
    free(p64);
}

/* The elements: the payload's pn elements, then tiles - 1 more tiles, each the
 * payload again or its first element repeated, as bits 4-7 of h[30] say. */
static void tile_elements(unsigned char *elems, const uint8_t *payload, size_t pn, size_t size,
                          size_t tiles, uint8_t tiling) {
    const size_t pbytes = pn * size;
    for (size_t t = 0; t < tiles; t++) {
        unsigned char *tile = elems + t * pbytes;
        if (t == 0 || ((tiling >> 4) >> (t % 4)) & 1)
            memcpy(tile, payload, pbytes);
        else
            for (size_t i = 0; i < pn; i++)
                memcpy(tile + i * size, payload, size);
    }
}

/* The range of kind `elem` from the bits lo and hi, made non-empty as a caller
 * would; the fields of the other kind hold junk the kernel must ignore. */
static sf_range range_from_bits(sf_elem elem, uint64_t lo, uint64_t hi, int invert) {
    sf_range r;
    if (is_float(elem)) {
        const uint64_t m = width_mask(elem), sign = (m >> 1) + 1;
        double flo = fval(elem, lo & m), fhi = fval(elem, hi & m);
        if (flo != flo)
            flo = (lo & sign) ? -INFINITY : INFINITY;
        if (fhi != fhi)
            fhi = (hi & sign) ? -INFINITY : INFINITY;
        r.flo = flo <= fhi ? flo : fhi;
        r.fhi = flo <= fhi ? fhi : flo;
        r.lo = hi; /* junk a float kernel must ignore */
        r.hi = lo;
    } else {
        const uint64_t m = width_mask(elem);
        lo &= m;
        hi &= m;
        if (lo > hi && as_signed(elem, lo) > as_signed(elem, hi)) {
            uint64_t t = lo;
            lo = hi;
            hi = t;
        }
        r.lo = lo;
        r.hi = hi;
        r.flo = NAN; /* junk an integer kernel must ignore */
        r.fhi = -1.0;
    }
    r.invert = invert && !spec_full(elem, &r);
    return r;
}

/* The case's range from h[2, 18) and bit 7 of h[0]. */
static void range_from_header(fcase *c, const uint8_t *h) {
    c->r = range_from_bits(c->elem, le(h + 2, 8), le(h + 10, 8), h[0] >> 7);
}

/* The index bases from h[18, 30) and the flags of h[1], kept so that no
 * position overflows its width. */
static void bases_from_header(fcase *c, const uint8_t *h) {
    c->base32 = (uint32_t)le(h + 18, 4);
    if ((h[1] & 8) || (uint64_t)c->base32 + c->n > (1ull << 32))
        c->base32 = (uint32_t)((1ull << 32) - c->n - (c->n >= 4 ? (c->base32 & 3) : 0));
    c->base64 = le(h + 22, 8);
    if (h[1] & 16)
        c->base64 = (1ull << 32) - c->base64 % (c->n + 1);
    if ((h[1] & 32) || c->base64 > UINT64_MAX - c->n)
        c->base64 = 0ull - c->n;
}

/* Every op: scalar against the specification, every kernel against scalar. */
static void fuzz_ops(const fcase *c) {
    for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++) {
        if (sf_op_is_mask((sf_op)op)) {
            fuzz_mask((sf_op)op, c, NULL);
            continue;
        }
        const size_t osz = sf_result_size((sf_op)op, c->elem);
        const size_t obytes = op == SF_OP_COUNT ? 0 : c->n * osz;
        unsigned char *ref = malloc(obytes), *out = malloc(obytes);
        if ((!ref || !out) && obytes) {
            free(ref);
            free(out);
            break;
        }
        const size_t want = call(sf_kernel_at(0), op, c, ref);
        check_reference(op, c, want, ref);
        for (int i = 0; i < nkernels; i++) {
            if (obytes)
                memset(out, 0xEE, obytes);
            const size_t got = call(kernels[i], op, c, out);
            if (got != want) {
                report(kernels[i]->name, op, c, "wrong count");
                fprintf(stderr, "  returned %zu, scalar returned %zu\n", got, want);
                abort();
            }
            if (op != SF_OP_COUNT && got && memcmp(out, ref, got * osz)) {
                size_t j = 0;
                while (load_uint(osz, out, j) == load_uint(osz, ref, j))
                    j++;
                report(kernels[i]->name, op, c, "wrong output");
                fprintf(stderr, "  out[%zu] = 0x%" PRIx64 ", scalar wrote 0x%" PRIx64 "\n", j,
                        load_uint(osz, out, j), load_uint(osz, ref, j));
                abort();
            }
        }
        free(ref);
        free(out);
    }
}

/* bits_ranges: the case's range and 0-7 more, ORed or ANDed (bits 0-2 of
 * h[18] and bit 0 of h[22], which the bases read too). Range j takes elements
 * 2j - 2 and 2j - 1 of the input as its ends (the header's ends, moved, when
 * the input is shorter), each inverted when bit j of h[26] says so. Scalar
 * against the specification (every bit, those past n 0, the count), every
 * kernel byte for byte against scalar. */
typedef struct {
    const fcase *c;
    const sf_range *r;
    size_t k;
    int every;
} ranges_ctx;

static int ranges_keep(size_t i, const void *ctx) {
    const ranges_ctx *q = (const ranges_ctx *)ctx;
    return spec_keep_ranges(q->c->elem, load_uint(q->c->size, q->c->x, i), q->r, q->k, q->every);
}

static void fuzz_ranges(const fcase *c, const uint8_t *h) {
    sf_range r[SF_RANGES_AT_ONCE];
    const ranges_ctx q = {c, r, 1 + (h[18] & 7u), h[22] & 1};
    r[0] = c->r;
    for (size_t j = 1; j < q.k; j++) {
        const int from_data = 2 * j <= c->n;
        const uint64_t lo = from_data ? load_uint(c->size, c->x, 2 * j - 2) : le(h + 2, 8) + j;
        const uint64_t hi = from_data ? load_uint(c->size, c->x, 2 * j - 1) : le(h + 10, 8) - j;
        r[j] = range_from_bits(c->elem, lo, hi, (h[26] >> j) & 1);
    }
    const size_t bytes = sf_output_bytes(SF_OP_BITS, c->elem, c->n);
    unsigned char *ref = malloc(bytes ? bytes : 1), *out = malloc(bytes ? bytes : 1);
    if (!ref || !out) {
        free(ref), free(out);
        return;
    }
    size_t want = 0;
    for (size_t j = 0; j < c->n; j++)
        want += (size_t)ranges_keep(j, &q);
    for (int i = -1; i < nkernels; i++) {
        const sf_kernel *k = i < 0 ? sf_kernel_at(0) : kernels[i];
        unsigned char *dst = i < 0 ? ref : out;
        memset(dst, 0xEE, bytes);
        const size_t got = k->bits_ranges[c->elem](c->x, c->n, r, q.k, q.every, dst);
        if (i < 0 && mask_mismatch(SF_OP_BITS, ref, c->n, ranges_keep, &q) != (size_t)-1) {
            fprintf(stderr, "\nFAIL: kernel scalar, op bits_ranges, elem %s, n = %zu, %zu "
                    "ranges: the reference disagrees with the specification\n",
                    sf_elem_name(c->elem), c->n, q.k);
            abort();
        }
        if (got != want || (i >= 0 && bytes && memcmp(out, ref, bytes))) {
            fprintf(stderr, "\nFAIL: kernel %s, op bits_ranges, elem %s, n = %zu, %zu ranges "
                    "(every=%d): %s (returned %zu, expected %zu)\n", k->name,
                    sf_elem_name(c->elem), c->n, q.k, q.every,
                    got != want ? "wrong count" : "wrong output", got, want);
            abort();
        }
    }
    free(ref);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t h[HEADER] = {0};
    memcpy(h, data, size < HEADER ? size : HEADER);
    const uint8_t *payload = size > HEADER ? data + HEADER : data;
    const size_t payload_len = size > HEADER ? size - HEADER : 0;

    fcase c;
    memset(&c, 0, sizeof c);
    c.elem = (sf_elem)((h[0] & 127u) % SF_ELEM_COUNT);
    c.size = sf_elem_size(c.elem);
    const size_t pn = payload_len / c.size, tiles = 1 + (h[30] & 15u);
    c.n = pn * tiles;
    const size_t off = h[1] & 7, bytes = c.n * c.size;
    unsigned char *elems = malloc(bytes ? bytes : 1);
    if (!elems)
        return 0;
    tile_elements(elems, payload, pn, c.size, tiles, h[30]);
    range_from_header(&c, h);
    bases_from_header(&c, h);

    /* Exact-size copies: the heap redzone starts right after the last element. */
    unsigned char *xbuf = malloc(off * c.size + bytes);
    if (!xbuf) {
        free(elems);
        return 0;
    }
    memcpy(xbuf + off * c.size, elems, bytes);
    c.x = xbuf + off * c.size;

    fuzz_ops(&c);
    fuzz_ranges(&c, h);
    fuzz_nulls_within(&c, h);
    if (memcmp(c.x, elems, bytes)) {
        fprintf(stderr, "\nFAIL: a kernel modified its input (elem %s, n = %zu)\n",
                sf_elem_name(c.elem), c.n);
        abort();
    }
    free(xbuf);
    free(elems);
    return 0;
}
