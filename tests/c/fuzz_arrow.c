/*
 * libFuzzer target: the Arrow import (csrc/lib/arrow.c, simdfilter_arrow.h)
 * on ArrowSchema/ArrowArray structs built from the fuzz bytes, the way a
 * consumer meets them from a producer it cannot trust.
 *
 *   clang -fsanitize=fuzzer,address,undefined ... fuzz_arrow.c <library objects>
 *   ./fuzz_arrow -max_total_time=30 corpus_arrow/
 *
 * What a consumer can check must never crash, whatever the bytes say: the
 * format string (any bytes, any length, in an exact-size heap block so that
 * AddressSanitizer sees a read past its NUL), the release state of the schema
 * and of each array, the dictionary, the metadata's counts and lengths when
 * negative, the buffer count, NULL buffer lists and buffers, children, and
 * lengths and offsets anywhere in int64. sf_arrow_type_of and
 * sf_arrow_check_array either refuse them or accept them.
 *
 * What a consumer cannot check is the producer's promise, as the C data
 * interface and pyarrow have it: that each buffer holds offset + length
 * elements (bits for bools and validity) and that metadata is as long as its
 * lengths say. This harness keeps that promise for what it then reads: the
 * buffers it gives are exact-size heap blocks of what offset + length needs,
 * and an accepted array whose offset + length is past MAX_ELEMS (too large to
 * allocate) is checked but never read. Every accepted column is then
 * filtered (count, positions and values) with the process default kernel.
 *
 * Input layout (short inputs are padded with zero bytes):
 *   [0]       format: < 0xe0 picks FORMATS[b % count]; else the format is the
 *             next (b & 0x1f) bytes of the input, as they are (a NUL ends it early)
 *   [1]       schema: bit 0 released, bit 1 a dictionary, bits 2-3 metadata
 *             (none, the extension key, other keys, a negative length)
 *   [2]       arrays: 1 + (bits 0-1)
 *   then per array, 19 bytes:
 *     [0]       bit 0 released, bit 1 NULL buffer list, bit 2 NULL values,
 *               bit 3 a validity bitmap, bit 4 one child, bit 5 a dictionary,
 *               bits 6-7 n_buffers - 2 + (0, 0, 1, -2)
 *     [1, 9)    length: small (bits of [1] pick the form, see int64_from)
 *     [9, 17)   offset: the same
 *     [17]      null_count: 0, -1, 1 or length, by bits 0-1
 *     [18]      seed of the values and validity bits
 *   then bounds: [0, 8) lo, [8, 16) hi, as int64 (float data: their bits)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdfilter.h"
#include "simdfilter_arrow.h"

#define MAX_ELEMS 4096
#define ARRAY_BYTES 19

static const char *const FORMATS[] = {
    "c", "C", "s", "S", "i", "I", "l", "L", "f", "g", "b", "e", "n", "u", "z", "w:4",
    "d:10,2", "+l", "+s", "+w:2", "tdD", "tdm", "tts", "ttm", "ttu", "ttn", "tDs", "tDn",
    "tss:", "tsn:UTC", "tsu:+01:00", "tiM", "t", "td", "ts", "tt", "tD", "tdx", "tss", "tsnx",
    "", "+", "+w", "w", "d", "tD:", "ttnn", "l ", "gg", "tdDD",
};
#define NFORMATS (sizeof FORMATS / sizeof FORMATS[0])

typedef struct input {
    const uint8_t *p;
    size_t n, at;
} input;

static uint8_t byte(input *in) {
    return in->at < in->n ? in->p[in->at++] : 0;
}

static uint64_t u64(input *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)byte(in) << (8 * i);
    return v;
}

/* Lengths and offsets that reach every check: small ones (read), the edges of
 * int64 and of 2**63 bytes (refused or only checked), and any 64 bits. */
static int64_t int64_from(input *in) {
    const uint64_t v = u64(in);
    switch (v & 7) {
    case 0: case 1: case 2: return (int64_t)((v >> 3) % 70);
    case 3: return (int64_t)((v >> 3) % (MAX_ELEMS + 1));
    case 4: return INT64_MAX - (int64_t)((v >> 3) % 17);
    case 5: return ((int64_t)1 << (60 + (v >> 3) % 3)) - (int64_t)((v >> 8) % 3);
    case 6: return -(int64_t)((v >> 3) % 3) - 1;
    default: return (int64_t)v;
    }
}

static void release_schema(struct ArrowSchema *s) {
    s->release = NULL;
}

static void release_array(struct ArrowArray *a) {
    a->release = NULL;
}

/* Arrow's metadata encoding: int32 count, then int32-prefixed keys and values. */
static char *metadata(int form) {
    static const char *const keys[2][2] = {{"ARROW:extension:name", "x"}, {"k", "value"}};
    char *m = malloc(64), *p = m;
    int32_t v = form == 3 ? 2 : 1;
    memcpy(p, &v, 4);
    p += 4;
    const char *const *kv = keys[form == 1 ? 0 : 1];
    for (int i = 0; i < 2; i++) {
        v = (int32_t)strlen(kv[i]);
        memcpy(p, &v, 4);
        memcpy(p + 4, kv[i], (size_t)v);
        p += 4 + v;
    }
    if (form == 3) { /* a second key whose length, negative, no producer could mean */
        v = -5 - (int32_t)(m[0] & 3);
        memcpy(p, &v, 4);
    }
    return m;
}

static uint64_t mix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void *random_block(size_t bytes, uint64_t *seed) {
    uint8_t *b = malloc(bytes ? bytes : 1);
    for (size_t i = 0; i < bytes; i++)
        b[i] = (uint8_t)mix(seed);
    return b;
}

typedef struct built {
    struct ArrowArray array;
    const void *buffers[4];
    struct ArrowArray child, *children[1];
    void *values, *validity;
    int readable; /* the producer's promise holds: buffers as long as offset + length */
} built;

static void build_array(input *in, const sf_arrow_type *t, built *b) {
    const uint8_t flags = byte(in);
    memset(b, 0, sizeof *b);
    struct ArrowArray *a = &b->array;
    a->length = int64_from(in);
    a->offset = int64_from(in);
    const uint8_t nulls = byte(in);
    uint64_t seed = byte(in);
    a->null_count = (nulls & 3) == 0 ? 0 : (nulls & 3) == 1 ? -1 : (nulls & 3) == 2 ? 1 : a->length;
    static const int extra[4] = {0, 0, 1, -2};
    a->n_buffers = 2 + extra[flags >> 6];
    a->release = flags & 1 ? NULL : release_array;
    if (flags & 16) {
        a->n_children = 1;
        b->children[0] = &b->child;
        a->children = b->children;
    }
    if (flags & 32)
        a->dictionary = &b->child;
    a->buffers = flags & 2 ? NULL : b->buffers;
    /* Only a span that can be allocated gets buffers that keep the promise. */
    const uint64_t span = (uint64_t)a->offset + (uint64_t)a->length;
    b->readable = a->length >= 0 && a->offset >= 0 && span <= MAX_ELEMS;
    if (b->readable && !(flags & 4)) {
        const size_t size = t->kind == SF_ARROW_BOOL ? 0 : sf_elem_size(sf_type_elem(t->type));
        b->values = random_block(size ? span * size : (span + 7) / 8, &seed);
        b->buffers[1] = b->values;
    }
    if (b->readable && (flags & 8)) {
        b->validity = random_block((span + 7) / 8, &seed);
        b->buffers[0] = b->validity;
    }
}

static void filter(const sf_arrow_type *t, const struct ArrowArray *arrays, size_t count,
                   input *in) {
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += (size_t)arrays[i].length;
    sf_bound lo = {SF_BOUND_INT, 0, 0, 0.0}, hi = lo;
    const uint64_t a = u64(in), b = u64(in);
    if (t->type == SF_T_F32 || t->type == SF_T_F64) {
        lo.kind = hi.kind = SF_BOUND_FLOAT;
        memcpy(&lo.f, &a, 8);
        memcpy(&hi.f, &b, 8);
    } else {
        lo.i = (int64_t)a;
        hi.i = (int64_t)b;
    }
    sf_query q;
    memset(&q, 0, sizeof q);
    q.elem = sf_type_elem(t->type);
    if (sf_resolve_range(t->type, &lo, 1, &hi, 1, &q.range) != SF_RANGE_OK)
        return;
    const size_t width = sf_elem_size(q.elem) > 8 ? sf_elem_size(q.elem) : 8;
    void *out = malloc(total ? total * width : 1);
    const sf_exec opts = {1, NULL, NULL, 0, 0};
    static const sf_op ops[] = {SF_OP_COUNT, SF_OP_INDEX64, SF_OP_VALUES};
    size_t counted = 0;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        sf_arrow_source s;
        size_t found = 0;
        q.op = ops[k];
        const int rc = sf_execute(&q, sf_arrow_source_init(&s, t, arrays, count),
                                  ops[k] == SF_OP_COUNT ? NULL : out, total, &opts, &found);
        if (rc != SF_OK) {
            fprintf(stderr, "fuzz_arrow: sf_execute returned %d\n", rc);
            abort();
        }
        if (k == 0)
            counted = found;
        else if (found != counted || found > total) {
            fprintf(stderr, "fuzz_arrow: op %d found %zu, count %zu, of %zu\n", (int)ops[k],
                    found, counted, total);
            abort();
        }
    }
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size, 0};
    const uint8_t f = byte(&in);
    char *format;
    if (f < 0xe0) {
        const char *pick = FORMATS[f % NFORMATS];
        format = malloc(strlen(pick) + 1);
        memcpy(format, pick, strlen(pick) + 1);
    } else { /* exact-size, so a read past the NUL is ASan's to see */
        const size_t len = f & 0x1f;
        format = malloc(len + 1);
        for (size_t i = 0; i < len; i++)
            format[i] = (char)byte(&in);
        format[len] = '\0';
        format = realloc(format, strlen(format) + 1);
    }
    const uint8_t sflags = byte(&in);
    struct ArrowSchema dict;
    memset(&dict, 0, sizeof dict);
    char *meta = (sflags >> 2 & 3) ? metadata(sflags >> 2 & 3) : NULL;
    struct ArrowSchema schema = {format, "x", meta, 0, 0, NULL, sflags & 2 ? &dict : NULL,
                                 sflags & 1 ? NULL : release_schema, NULL};
    char err[320];
    sf_arrow_type t;
    const int nchunks = 1 + (byte(&in) & 3);
    if (sf_arrow_type_of(&schema, &t, err, sizeof err) == 0) {
        built b[4];
        struct ArrowArray arrays[4];
        int all_ok = 1, readable = 1;
        for (int i = 0; i < nchunks; i++) {
            build_array(&in, &t, &b[i]);
            if (sf_arrow_check_array(&b[i].array, &t, err, sizeof err) != 0)
                all_ok = 0;
            readable &= b[i].readable;
            arrays[i] = b[i].array;
        }
        /* A consumer (source_arrow.c) reads only a column whose every chunk
         * passed, and whose buffers the producer promised. */
        if (all_ok && readable)
            filter(&t, arrays, (size_t)nchunks, &in);
        for (int i = 0; i < nchunks; i++) {
            free(b[i].values);
            free(b[i].validity);
        }
    } else if (!memchr(err, '\0', sizeof err)) {
        abort(); /* the error must be a string */
    }
    free(meta);
    free(format);
    return 0;
}
