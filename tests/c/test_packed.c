/*
 * lib/packed.c on its own: columns of 1, 2, 4 and 8-byte values, signed or
 * not, whose blocks span a random width 0..64 bits (capped by the type), in
 * blocks of 1024..4096 with a short last one, are built, decoded back exactly,
 * and queried (count, uint32 and uint64 positions, values, mask bytes; ranges
 * that cut blocks, random ones, empty ones, inverted or not) with every kernel
 * this CPU runs: each answer equals a naive loop over the values' images, and
 * every kernel's output bytes equal the scalar twin's. Under ASan+UBSan no
 * query reads or writes past its buffers (out sized n + SF_PACKED_OUT_SLACK).
 *
 *   test_packed [--seed N] [--trials N]
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>

#include "simdfilter_packed.h"
#include "test_common.h"
#include "test_check.h"

/* Value i's image (its bits minus the type's least value), little-endian. */
static uint64_t image(const unsigned char *x, size_t i, unsigned bytes, int is_signed) {
    uint64_t v = 0;
    memcpy(&v, x + i * bytes, bytes);
    return is_signed ? v ^ (uint64_t)1 << (8 * bytes - 1) : v;
}

static size_t result_size(sf_op op, unsigned bytes) {
    return op == SF_OP_INDEX32 ? 4 : op == SF_OP_INDEX64 ? 8 : op == SF_OP_VALUES ? bytes : 1;
}

/* The query on every runnable kernel against the naive loop (and the scalar twin's bytes). */
static void query(const sf_packed_column *c, const unsigned char *x, uint64_t lo, uint64_t hi,
                  int empty, int invert) {
    static const sf_op ops[] = {SF_OP_COUNT, SF_OP_INDEX32, SF_OP_INDEX64, SF_OP_VALUES,
                                SF_OP_MASK8};
    const size_t n = c->n;
    unsigned char *want = malloc((n + 1) * 8), *got = malloc((n + SF_PACKED_OUT_SLACK) * 8);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        const sf_op op = ops[o];
        const size_t size = result_size(op, c->bytes);
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            const uint64_t v = image(x, i, c->bytes, c->is_signed);
            const int keep = (!empty && v >= lo && v <= hi) != invert;
            if (op == SF_OP_MASK8)
                want[i] = (unsigned char)keep;
            if (!keep)
                continue;
            if (op == SF_OP_INDEX32) {
                const uint32_t p = (uint32_t)i;
                memcpy(want + k * 4, &p, 4);
            } else if (op == SF_OP_INDEX64) {
                const uint64_t p = i;
                memcpy(want + k * 8, &p, 8);
            } else if (op == SF_OP_VALUES) {
                memcpy(want + k * size, x + i * size, size);
            }
            k++;
        }
        const size_t len = op == SF_OP_COUNT ? 0 : op == SF_OP_MASK8 ? n : k;
        for (int i = 0; i < sf_kernel_count(); i++) {
            const sf_kernel *kern = sf_kernel_at(i);
            if (!sf_kernel_supported(kern))
                continue;
            size_t found = 0;
            const int rc = sf_packed_query(kern, c, op, lo, hi, empty, invert, got, &found);
            CHECK(rc == SF_OK && found == k && !memcmp(got, want, len * size),
                  "kernel %s (packed %s) op %d bytes %u n %zu: found %zu of %zu", kern->name,
                  sf_packed_kernel_name(kern), (int)op, c->bytes, n, found, k);
        }
    }
    free(want);
    free(got);
}

static void trial(unsigned bytes, int is_signed) {
    const size_t block = 1024 * (1 + below(4)), n = chance(30) ? below(200) : below(9000);
    const unsigned bits = 8 * bytes, w = (unsigned)below(bits + 1);
    const uint64_t top = bits == 64 ? ~0ull : (1ull << bits) - 1;
    /* Images base + offset, the offsets below 2^w, base + 2^w - 1 within the
     * type: the blocks span at most w bits. */
    const uint64_t span = w == 64 ? ~0ull : (1ull << w) - 1, flip = is_signed ? 1ull << (bits - 1) : 0;
    const uint64_t base = top == span ? 0 : below(top - span + 1);
    unsigned char *x = malloc(n * bytes + 1);
    for (size_t i = 0; i < n; i++) {
        const uint64_t v = (base + (rnd() & span)) ^ flip;
        memcpy(x + i * bytes, &v, bytes);
    }
    const size_t nb = sf_packed_block_count(n, block);
    sf_packed_column c;
    memset(&c, 0, sizeof c);
    c.n = n, c.block = block, c.bytes = bytes, c.is_signed = is_signed;
    c.ref = malloc(8 * nb + 8), c.maxoff = malloc(8 * nb + 8), c.start = malloc(8 * (nb + 1));
    c.width = malloc(nb + 1);
    const uint64_t total = sf_packed_measure(&c, x);
    c.data = malloc(total + 1);
    CHECK(sf_packed_fill(NULL, &c, x) == SF_OK, "fill");
    for (size_t b = 0; b < nb; b++)
        CHECK(c.width[b] <= w && (w == 64 || c.maxoff[b] >> w == 0), "block %zu: width %u of %u",
              b, c.width[b], w);
    unsigned char *back = malloc(n * bytes + 1);
    for (int i = 0; i < sf_kernel_count(); i++) {
        if (!sf_kernel_supported(sf_kernel_at(i)))
            continue;
        memset(back, 0xA5, n * bytes + 1);
        CHECK(sf_packed_decode(sf_kernel_at(i), &c, back) == SF_OK && !memcmp(back, x, n * bytes),
              "decode by %s, n %zu width %u", sf_kernel_at(i)->name, n, w);
    }
    for (int r = 0; r < 6; r++) {
        uint64_t lo = rnd() & top, hi = rnd() & top;
        if (n && r < 3) { /* a narrow range about a value: it cuts its block */
            const uint64_t v = image(x, below(n), bytes, is_signed), d = below(100);
            lo = v > d ? v - d : 0;
            hi = v + d > top || v + d < v ? top : v + d;
        }
        if (lo > hi) {
            const uint64_t t = lo;
            lo = hi, hi = t;
        }
        query(&c, x, lo, hi, r == 5, chance(50));
    }
    free(x), free(back), free(c.ref), free(c.maxoff), free(c.start), free(c.width), free(c.data);
}

int main(int argc, char **argv) {
    uint64_t seed = 12345;
    long trials = 40;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--trials"))
            trials = strtol(argv[i + 1], NULL, 10);
    }
    seed_used = seed;
    rng_seed(seed);
    for (unsigned bytes = 1; bytes <= 8; bytes *= 2)
        for (int is_signed = 0; is_signed < 2; is_signed++)
            for (long t = 0; t < trials; t++)
                trial(bytes, is_signed);
    printf("TOTAL checks=%d failures=%d kernel=%s status=%s\n", checks, failures,
           sf_active_kernel()->name, failures ? "FAIL" : "OK");
    return failures != 0;
}
