/*
 * The Polars plugin's kernels' path (polars_plugin.c has the ABI): a batch
 * whose dtype the bounds literal has a range for, answered by sf_execute over
 * the column's own Arrow chunks (an Arrow source: no copy, no Python), as a
 * boolean column (SF_OP_BITS, with the chunks' validity) or a count.
 */
#include "polars_plugin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One end of the spec's inclusive range as a bound of type t. */
static sf_bound spec_bound(sf_type t, uint64_t bits) {
    sf_bound b = {0};
    if (t == SF_T_F32 || t == SF_T_F64) {
        b.kind = SF_BOUND_FLOAT;
        memcpy(&b.f, &bits, 8);
    } else if ((t == SF_T_U64) && bits > (uint64_t)INT64_MAX) {
        b.kind = SF_BOUND_UINT;
        b.u = bits;
    } else {
        b.kind = SF_BOUND_INT;
        memcpy(&b.i, &bits, 8);
    }
    return b;
}

/* The column's chunks, contiguous (the source reads an array of structs): a
 * shallow copy, owned by Polars' export still. NULL when out of memory. */
static struct ArrowArray *chunks_of(const sf_series_export *e, size_t *n, char *err, size_t errlen,
                                    const sf_arrow_type *t) {
    struct ArrowArray *c = (struct ArrowArray *)malloc((e->len ? e->len : 1) * sizeof *c);
    size_t total = 0;
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < e->len; i++) {
        if (!e->arrays[i] || sf_arrow_check_array(e->arrays[i], t, err, errlen) < 0) {
            if (!e->arrays[i])
                snprintf(err, errlen, "a chunk is missing");
            free(c);
            return NULL;
        }
        c[i] = *e->arrays[i];
        total += (size_t)c[i].length;
    }
    *n = total;
    return c;
}

int sfpy_plugin_kernel_answer(plugin_op op, const sf_series_export *col, spec *sp,
                              sf_series_export *out) {
    char err[256];
    sf_arrow_type t;
    if (!col->field || sf_arrow_type_of(col->field, &t, err, sizeof err) < 0)
        return 0;
    if (sfpy_plugin_spec_read(sp, col->field->format) < 0) {
        sfpy_plugin_error("simdfilter's plugin: malformed bounds literal");
        return -1;
    }
    if (!sp->found)
        return 0;
    size_t n = 0;
    struct ArrowArray *chunks = chunks_of(col, &n, err, sizeof err, &t);
    if (!chunks) {
        sfpy_plugin_error(err);
        return -1;
    }
    sf_query q;
    memset(&q, 0, sizeof q);
    q.elem = sf_type_elem(t.type);
    int nonempty = 0;
    if (sp->nonempty) {
        const sf_bound a = spec_bound(t.type, sp->lo), b = spec_bound(t.type, sp->hi);
        nonempty = sf_resolve_range(t.type, &a, 1, &b, 1, &q.range) == SF_RANGE_OK;
    }
    const sf_exec ex = {.threads = 0, .fresh_out = 1};
    sf_arrow_source src;
    size_t found = 0;
    int rc = SF_OK;
    if (op != PLUGIN_BETWEEN) {
        if (nonempty && n) {
            q.op = SF_OP_COUNT;
            rc = sf_execute(&q, sf_arrow_source_init(&src, &t, chunks, col->len), NULL, 0, &ex,
                            &found);
        }
        out_private *p = sfpy_plugin_out_new(1, col->field->name);
        uint8_t *values = sfpy_bitmap_new(8);
        const void **buffers = (const void **)calloc(2, sizeof *buffers);
        if (rc != SF_OK || !p || !values || !buffers) {
            free(chunks), free(values), free(buffers);
            sfpy_plugin_out_free(p);
            sfpy_plugin_error(rc != SF_OK ? "simdfilter's plugin: the count failed" : "out of memory");
            return -1;
        }
        if (op == PLUGIN_COUNT32) {
            const uint32_t v = (uint32_t)found;
            memcpy(values, &v, 4);
        } else {
            const uint64_t v = found;
            memcpy(values, &v, 8);
        }
        buffers[1] = values;
        free(chunks);
        sfpy_plugin_out_publish_one(out, p, buffers, 1, 0, op == PLUGIN_COUNT32 ? "I" : "L");
        return 1;
    }
    const size_t bytes = (n + 7) / 8;
    uint8_t *values = sfpy_bitmap_new(bytes), *valid = NULL;
    const void **buffers = (const void **)calloc(2, sizeof *buffers);
    out_private *p = sfpy_plugin_out_new(1, col->field->name);
    int has_nulls = 0;
    for (size_t i = 0; i < col->len; i++)
        has_nulls |= chunks[i].null_count != 0 && chunks[i].n_buffers > 0 && chunks[i].buffers[0];
    size_t nulls = 0;
    int lost = 0;
    if (values && has_nulls && !(valid = sfpy_bitmap_new(bytes)))
        lost = 1;
    else if (values && has_nulls) {
        sf_validity(sf_arrow_source_init(&src, &t, chunks, col->len), valid, n, &nulls);
        if (!nulls) {
            free(valid);
            valid = NULL;
        }
    }
    if (!values || !buffers || !p || lost) {
        free(values), free(valid), free(buffers), free(chunks);
        sfpy_plugin_out_free(p);
        sfpy_plugin_error("out of memory");
        return -1;
    }
    if (!nonempty || n == 0) {
        memset(values, 0, bytes);
    } else {
        q.op = SF_OP_BITS;
        rc = sf_execute(&q, sf_arrow_source_init(&src, &t, chunks, col->len), values, n, &ex,
                        &found);
    }
    free(chunks);
    if (rc != SF_OK) {
        free(values), free(valid), free(buffers);
        sfpy_plugin_out_free(p);
        sfpy_plugin_error("simdfilter's plugin: the kernels failed");
        return -1;
    }
    buffers[0] = valid;
    buffers[1] = values;
    sfpy_plugin_out_publish_one(out, p, buffers, (int64_t)n, (int64_t)nulls, "b");
    return 1;
}

