/*
 * The packed column (include/simdfilter_packed.h): its build, its decoding and
 * its range queries, block by block. A query translates its range into each
 * block's own offsets once: a block wholly outside is skipped and one wholly
 * inside taken whole (counted, or its positions and values written without
 * reading its words, as ZoneMap does with its blocks); only a block the range
 * cuts goes to the packed kernel (kernels/packed.h), which unpacks its lanes
 * in registers and compares them there.
 *
 * The packed kernels are a small table of their own beside the filter
 * kernels: the one that runs is chosen by the name of the filter kernel a call
 * runs (a `use_kernel` block, SIMDFILTER_KERNEL, or dispatch's default), so
 * that pinning a kernel pins both. AVX2 and both AVX-512 builds have their
 * own; SSE4.1, NEON and SVE run the scalar twin in this first cut.
 */
#include <stdlib.h>
#include <string.h>

#include "../kernels/packed.h" /* the packed kernels' contract and tables */
#include "simdfilter_packed.h"

_Static_assert(SF_PACKED_OUT_SLACK == SF_PACKED_SLACK, "the public slack is the kernels'");

static const sf_packed_kernel *packed_kernel(const sf_kernel *k) {
    if (!k)
        k = sf_active_kernel();
    const char *name = k ? k->name : "scalar";
    (void)name;
#if defined(SF_HAVE_avx512_zen4)
    if (!strcmp(name, "avx512_zen4"))
        return &sf_packed_avx512_zen4;
#endif
#if defined(SF_HAVE_avx512)
    if (!strcmp(name, "avx512"))
        return &sf_packed_avx512;
#endif
#if defined(SF_HAVE_avx2)
    if (!strcmp(name, "avx2"))
        return &sf_packed_avx2;
#endif
    return &sf_packed_scalar;
}

const char *sf_packed_kernel_name(const sf_kernel *k) {
    return packed_kernel(k)->name;
}

static unsigned bit_width(uint64_t x) {
    return x ? 64u - (unsigned)__builtin_clzll(x) : 0u;
}

/* The images' flip: v ^ flip is v - min(type) in the type's width. */
static uint64_t image_flip(const sf_packed_column *c) {
    return c->is_signed ? (uint64_t)1 << (8 * c->bytes - 1) : 0;
}

#define PK_EACH_TYPE(c, MACRO)                                                           \
    do {                                                                                 \
        switch ((c)->bytes) {                                                            \
        case 1: MACRO(uint8_t); break;                                                   \
        case 2: MACRO(uint16_t); break;                                                  \
        case 4: MACRO(uint32_t); break;                                                  \
        default: MACRO(uint64_t); break;                                                 \
        }                                                                                \
    } while (0)

#define PK_MINMAX(T)                                                                     \
    do {                                                                                 \
        const T *x_ = (const T *)values + b * c->block, f_ = (T)flip;                    \
        T lo_ = (T)~(T)0, hi_ = 0;                                                       \
        for (size_t i = 0; i < nb; i++) {                                                \
            const T v_ = (T)(x_[i] ^ f_);                                                \
            lo_ = v_ < lo_ ? v_ : lo_;                                                   \
            hi_ = v_ > hi_ ? v_ : hi_;                                                   \
        }                                                                                \
        lo = lo_;                                                                        \
        hi = hi_;                                                                        \
    } while (0)

uint64_t sf_packed_measure(sf_packed_column *c, const void *values) {
    const size_t blocks = sf_packed_block_count(c->n, c->block);
    const uint64_t flip = image_flip(c);
    uint64_t total = 0;
    for (size_t b = 0; b < blocks; b++) {
        const size_t nb = c->n - b * c->block < c->block ? c->n - b * c->block : c->block;
        uint64_t lo = 0, hi = 0;
        PK_EACH_TYPE(c, PK_MINMAX);
        c->ref[b] = lo;
        c->maxoff[b] = hi - lo;
        c->width[b] = (uint8_t)bit_width(hi - lo);
        c->start[b] = total;
        total += (uint64_t)c->block * c->width[b] / 8;
    }
    c->start[blocks] = total;
    return total;
}

/* Block b's offsets from its reference into o (uint32_t or uint64_t by its
 * width), the padding past its nb values 0. */
#define PK_OFFSETS(T)                                                                    \
    do {                                                                                 \
        const T *x_ = (const T *)values + b * c->block, f_ = (T)flip, r_ = (T)c->ref[b]; \
        if (c->width[b] <= 32) {                                                         \
            uint32_t *o_ = (uint32_t *)o;                                                \
            for (size_t i = 0; i < nb; i++)                                              \
                o_[i] = (uint32_t)(T)((T)(x_[i] ^ f_) - r_);                             \
            memset(o_ + nb, 0, (c->block - nb) * sizeof *o_);                            \
        } else {                                                                         \
            uint64_t *o_ = (uint64_t *)o;                                                \
            for (size_t i = 0; i < nb; i++)                                              \
                o_[i] = (uint64_t)(T)((T)(x_[i] ^ f_) - r_);                             \
            memset(o_ + nb, 0, (c->block - nb) * sizeof *o_);                            \
        }                                                                                \
    } while (0)

int sf_packed_fill(const sf_kernel *k, sf_packed_column *c, const void *values) {
    const sf_packed_kernel *pk = packed_kernel(k);
    const size_t blocks = sf_packed_block_count(c->n, c->block);
    const uint64_t flip = image_flip(c);
    void *o = malloc(c->block * sizeof(uint64_t));
    if (!o)
        return SF_ENOMEM_PACKED;
    for (size_t b = 0; b < blocks; b++) {
        const size_t nb = c->n - b * c->block < c->block ? c->n - b * c->block : c->block;
        if (!c->width[b])
            continue;
        PK_EACH_TYPE(c, PK_OFFSETS);
        pk->pack(o, c->width[b], c->block, c->data + c->start[b]);
    }
    free(o);
    return SF_OK;
}

/* Values [from, from + m) of block b, whose offsets are in o (NULL: all 0),
 * into out[0, m); pos (if not NULL) picks offsets o[pos[i]] instead. */
#define PK_VALUES_OUT(T)                                                                 \
    do {                                                                                 \
        T *out_ = (T *)out;                                                              \
        const T f_ = (T)flip, r_ = (T)c->ref[b];                                         \
        if (!o) {                                                                        \
            for (size_t i = 0; i < m; i++)                                               \
                out_[i] = (T)(r_ ^ f_);                                                  \
        } else if (c->width[b] <= 32) {                                                  \
            const uint32_t *o_ = (const uint32_t *)o;                                    \
            if (pos)                                                                     \
                for (size_t i = 0; i < m; i++)                                           \
                    out_[i] = (T)((T)(r_ + (T)o_[pos[i]]) ^ f_);                         \
            else                                                                         \
                for (size_t i = 0; i < m; i++)                                           \
                    out_[i] = (T)((T)(r_ + (T)o_[i]) ^ f_);                              \
        } else {                                                                         \
            const uint64_t *o_ = (const uint64_t *)o;                                    \
            if (pos)                                                                     \
                for (size_t i = 0; i < m; i++)                                           \
                    out_[i] = (T)((T)(r_ + (T)o_[pos[i]]) ^ f_);                         \
            else                                                                         \
                for (size_t i = 0; i < m; i++)                                           \
                    out_[i] = (T)((T)(r_ + (T)o_[i]) ^ f_);                              \
        }                                                                                \
    } while (0)

static void block_values(const sf_packed_column *c, size_t b, const void *o, const uint32_t *pos,
                         size_t m, void *out) {
    const uint64_t flip = image_flip(c);
    PK_EACH_TYPE(c, PK_VALUES_OUT);
}

static sf_packed_ask block_ask(const sf_packed_column *c, size_t b) {
    sf_packed_ask q;
    memset(&q, 0, sizeof q);
    q.data = c->data + c->start[b];
    q.width = c->width[b];
    q.block = c->block;
    q.n = c->n - b * c->block < c->block ? c->n - b * c->block : c->block;
    return q;
}

int sf_packed_decode(const sf_kernel *k, const sf_packed_column *c, void *out) {
    const sf_packed_kernel *pk = packed_kernel(k);
    const size_t blocks = sf_packed_block_count(c->n, c->block);
    void *o = malloc(c->block * sizeof(uint64_t));
    if (!o)
        return SF_ENOMEM_PACKED;
    for (size_t b = 0; b < blocks; b++) {
        const sf_packed_ask q = block_ask(c, b);
        if (q.width)
            pk->decode(&q, o);
        block_values(c, b, q.width ? o : NULL, NULL, q.n,
                     (unsigned char *)out + b * c->block * c->bytes);
    }
    free(o);
    return SF_OK;
}

/* A block every one of whose nb values is kept, at its first position `first`:
 * the op's results into out, which it advances; the count it adds. */
static size_t take_whole(const sf_packed_kernel *pk, const sf_packed_column *c, size_t b,
                         sf_op op, void *o, unsigned char **out) {
    const sf_packed_ask q = block_ask(c, b);
    const uint64_t first = (uint64_t)b * c->block;
    switch (op) {
    case SF_OP_INDEX32: {
        uint32_t *p = (uint32_t *)(void *)*out;
        for (size_t i = 0; i < q.n; i++)
            p[i] = (uint32_t)(first + i);
        break;
    }
    case SF_OP_INDEX64: {
        uint64_t *p = (uint64_t *)(void *)*out;
        for (size_t i = 0; i < q.n; i++)
            p[i] = first + i;
        break;
    }
    case SF_OP_VALUES:
        if (q.width)
            pk->decode(&q, o);
        block_values(c, b, q.width ? o : NULL, NULL, q.n, *out);
        break;
    case SF_OP_MASK8:
        memset(*out, 1, q.n);
        break;
    default:
        return q.n;
    }
    *out += q.n * (op == SF_OP_MASK8 ? 1 : op == SF_OP_INDEX32 ? 4 : op == SF_OP_VALUES ? c->bytes : 8);
    return q.n;
}

int sf_packed_query(const sf_kernel *k, const sf_packed_column *c, sf_op op, uint64_t lo,
                    uint64_t hi, int empty, int invert, void *out, size_t *found) {
    if (op != SF_OP_COUNT && op != SF_OP_INDEX32 && op != SF_OP_INDEX64 && op != SF_OP_VALUES &&
        op != SF_OP_MASK8)
        return SF_EINVAL;
    const sf_packed_kernel *pk = packed_kernel(k);
    const size_t blocks = sf_packed_block_count(c->n, c->block);
    void *o = NULL;
    uint32_t *pos = NULL;
    if (op == SF_OP_VALUES) {
        o = malloc(c->block * sizeof(uint64_t));
        pos = (uint32_t *)malloc((c->block + SF_PACKED_SLACK) * sizeof(uint32_t));
        if (!o || !pos) {
            free(o);
            free(pos);
            return SF_ENOMEM_PACKED;
        }
    }
    unsigned char *at = (unsigned char *)out;
    size_t total = 0;
    for (size_t b = 0; b < blocks; b++) {
        sf_packed_ask q = block_ask(c, b);
        const uint64_t ref = c->ref[b], top = ref + c->maxoff[b];
        const int outside = empty || hi < ref || lo > top;
        const int inside = !outside && lo <= ref && hi >= top;
        if (invert ? inside : outside) {
            if (op == SF_OP_MASK8) {
                memset(at, 0, q.n);
                at += q.n;
            }
            continue;
        }
        if (invert ? outside : inside) {
            total += take_whole(pk, c, b, op, o, &at);
            continue;
        }
        /* The range cuts the block: its ends as the block's own offsets. */
        q.a = (lo > ref ? lo : ref) - ref;
        q.span = (hi < top ? hi : top) - ref - q.a;
        q.invert = invert;
        const uint64_t first = (uint64_t)b * c->block;
        size_t got;
        switch (op) {
        case SF_OP_INDEX32:
            got = pk->index32(&q, (uint32_t)first, (uint32_t *)(void *)at);
            at += got * 4;
            break;
        case SF_OP_INDEX64:
            got = pk->index64(&q, first, (uint64_t *)(void *)at);
            at += got * 8;
            break;
        case SF_OP_VALUES:
            got = pk->index32(&q, 0, pos);
            pk->decode(&q, o);
            block_values(c, b, o, pos, got, at);
            at += got * c->bytes;
            break;
        case SF_OP_MASK8:
            got = pk->mask8(&q, at);
            at += q.n;
            break;
        default:
            got = pk->count(&q);
            break;
        }
        total += got;
    }
    free(o);
    free(pos);
    *found = total;
    return SF_OK;
}
