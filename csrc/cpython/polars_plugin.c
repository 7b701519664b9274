/*
 * A Polars expression plugin: `pl.col(c).sf.between(...)` and `.sf.count(...)`
 * as functions Polars calls on each batch of the column itself, with no Python
 * (python/simdfilter/_polars_plugin.py registers them; issue 42 item 4).
 *
 * Polars' side of the ABI (polars-plan's plugin.rs and polars-ffi's version_0,
 * Polars 1.x and 2.1; no Rust crate is used here, the structs are written
 * from that reading):
 *
 *  - `_polars_plugin_get_version()` -> u32: the ABI, major << 16 | minor.
 *    Polars accepts major 0 and, for the field function, minor 0 or 1; this
 *    says 0.1, whose field function also receives the kwargs.
 *  - `_polars_plugin_<name>(inputs, n_inputs, kwargs, kwargs_len, out, ctx)`:
 *    one SeriesExport per input expression (a length-1 Series for a literal).
 *    Polars forgets its inputs after the call: the plugin owns them and
 *    releases each chunk's ArrowArray and then the export. A result goes into
 *    *out, whose private_data must be non-NULL; an error leaves it NULL and
 *    `_polars_plugin_get_last_error_message()` (a thread's own string) says
 *    why: Polars raises ComputeError("the plugin failed with message: ...").
 *    Polars moves every chunk out of the result's arrays (they are its own
 *    then) and calls the result's release, which frees everything else.
 *  - `_polars_plugin_field_<name>(fields, n, out, kwargs, kwargs_len)`: the
 *    output field (an ArrowSchema, private_data non-NULL) from the inputs'
 *    fields (contiguous ArrowSchemas Polars owns), at planning time.
 *  - kwargs are pickled (serde-pickle reads them in pyo3-polars); empty when
 *    none are given, which is what we give: the bounds travel as a Binary
 *    literal, the second input (see _polars_plugin.py for its layout).
 *
 * The bounds, as the Python package resolves them (simdfilter._polars_bounds,
 * the kernels' exact bounds) for each dtype the column may turn out to have,
 * are in that literal: an inclusive range per Arrow format string. A column of
 * another dtype, or one whose range Polars must answer itself, is handed to
 * the package's Python function (the same as the map_batches path ran: the
 * GIL taken, the batch imported and the answer exported through the Arrow
 * PyCapsule interface); a Python exception there becomes the plugin's error.
 *
 * This file holds what the paths share: the ABI's version, the thread's
 * error, the inputs and the bounds literal read, the result export. The
 * functions Polars calls are in polars_plugin_calls.c, which hands a batch to
 * the kernels' path (polars_plugin_kernels.c) or to Python's
 * (polars_plugin_python.c); what they share is declared in polars_plugin.h.
 */
#include "polars_plugin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SF_PLUGIN_ABI_MAJOR 0u
#define SF_PLUGIN_ABI_MINOR 1u

SF_PLUGIN_EXPORT uint32_t _polars_plugin_get_version(void);
SF_PLUGIN_EXPORT const char *_polars_plugin_get_last_error_message(void);

/* ---- Errors: a message per thread ------------------------------------------- */

static _Thread_local char last_error[512];

char *sfpy_plugin_copy_string(const char *s) {
    const size_t n = strlen(s) + 1;
    char *c = (char *)malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

void sfpy_plugin_error(const char *msg) {
    snprintf(last_error, sizeof last_error, "%s", msg);
}

uint32_t _polars_plugin_get_version(void) {
    return (SF_PLUGIN_ABI_MAJOR << 16) | SF_PLUGIN_ABI_MINOR;
}

const char *_polars_plugin_get_last_error_message(void) { return last_error; }

/* ---- The inputs ------------------------------------------------------------ */

void sfpy_plugin_release_inputs(sf_series_export *in, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < in[i].len; j++) {
            struct ArrowArray *a = in[i].arrays ? in[i].arrays[j] : NULL;
            if (a && a->release)
                a->release(a);
        }
        if (in[i].release)
            in[i].release(&in[i]);
    }
}

int sfpy_plugin_literal(const sf_series_export *e, const uint8_t **p, size_t *len) {
    if (!e->field || !e->field->format || e->len < 1 || !e->arrays[0])
        return -1;
    const struct ArrowArray *a = e->arrays[0];
    const char *f = e->field->format;
    if (a->length < 1 || a->n_buffers < 2 || !a->buffers || !a->buffers[1])
        return -1;
    const int64_t i = a->offset;
    if (strcmp(f, "vz") == 0) { /* views: length, then inline bytes or (prefix, buffer, offset) */
        const uint8_t *view = (const uint8_t *)a->buffers[1] + 16 * i;
        int32_t n, buf, off;
        memcpy(&n, view, 4);
        if (n < 0)
            return -1;
        if (n <= 12) {
            *p = view + 4;
        } else {
            memcpy(&buf, view + 8, 4);
            memcpy(&off, view + 12, 4);
            if (buf < 0 || off < 0 || 2 + (int64_t)buf >= a->n_buffers - 1 || !a->buffers[2 + buf])
                return -1;
            *p = (const uint8_t *)a->buffers[2 + buf] + off;
        }
        *len = (size_t)n;
        return 0;
    }
    if ((strcmp(f, "z") == 0 || strcmp(f, "Z") == 0) && a->n_buffers >= 3 && a->buffers[2]) {
        int64_t start, end;
        if (f[0] == 'z') {
            int32_t s32[2];
            memcpy(s32, (const int32_t *)a->buffers[1] + i, sizeof s32);
            start = s32[0], end = s32[1];
        } else {
            int64_t s64[2];
            memcpy(s64, (const int64_t *)a->buffers[1] + i, sizeof s64);
            start = s64[0], end = s64[1];
        }
        if (start < 0 || end < start)
            return -1;
        *p = (const uint8_t *)a->buffers[2] + start;
        *len = (size_t)(end - start);
        return 0;
    }
    return -1;
}

static int read_u32(const uint8_t **p, const uint8_t *end, uint32_t *v) {
    if ((size_t)(end - *p) < 4)
        return -1;
    memcpy(v, *p, 4);
    *p += 4;
    return 0;
}

int sfpy_plugin_spec_read(spec *s, const char *format) {
    const uint8_t *p = s->p, *end = s->p + s->len;
    uint32_t n, k;
    s->found = 0;
    if (s->len < 4 || memcmp(p, "SFP1", 4) != 0)
        return -1;
    p += 4;
    if (read_u32(&p, end, &n) < 0)
        return -1;
    const size_t flen = format ? strlen(format) : 0;
    for (uint32_t i = 0; i < n; i++) {
        if (end - p < 1)
            return -1;
        const size_t l = *p++;
        if ((size_t)(end - p) < l + 17)
            return -1;
        if (format && !s->found && l == flen && memcmp(p, format, l) == 0) {
            s->found = 1;
            s->nonempty = p[l] != 0;
            memcpy(&s->lo, p + l + 1, 8);
            memcpy(&s->hi, p + l + 9, 8);
        }
        p += l + 17;
    }
    if (read_u32(&p, end, &k) < 0 || (size_t)(end - p) < k)
        return -1;
    s->pickled = p;
    s->pickled_len = k;
    return 0;
}

/* ---- The result ------------------------------------------------------------ */

void sfpy_plugin_out_free(out_private *p) {
    if (p)
        free(p->ptrs), free(p->arrays), free(p->name), free(p);
}

static void release_out(sf_series_export *e) {
    out_private *p = (out_private *)e->private_data;
    if (p && p->schema.release)
        p->schema.release(&p->schema);
    /* Polars moved every chunk out (a bitwise copy, which leaves `release` set
     * here): they are its own now, and only their structs are freed. */
    sfpy_plugin_out_free(p);
    e->private_data = NULL;
    e->release = NULL;
}

out_private *sfpy_plugin_out_new(size_t n, const char *name) {
    out_private *p = (out_private *)calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    p->ptrs = (struct ArrowArray **)calloc(n ? n : 1, sizeof *p->ptrs);
    p->arrays = (struct ArrowArray *)calloc(n ? n : 1, sizeof *p->arrays);
    p->name = sfpy_plugin_copy_string(name ? name : "");
    if (!p->ptrs || !p->arrays || !p->name) {
        sfpy_plugin_out_free(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        p->ptrs[i] = &p->arrays[i];
    return p;
}

void sfpy_plugin_out_publish(sf_series_export *out, out_private *p) {
    *out = (sf_series_export){.field = &p->schema, .arrays = p->ptrs, .len = p->n,
                              .release = release_out, .private_data = p};
}

void sfpy_plugin_out_publish_one(sf_series_export *out, out_private *p, const void **buffers,
                                 int64_t length, int64_t nulls, const char *format) {
    p->arrays[0] = (struct ArrowArray){.length = length, .null_count = nulls, .n_buffers = 2,
                                       .buffers = buffers, .release = sfpy_release_owned_array};
    p->schema = (struct ArrowSchema){.format = format, .name = p->name,
                                     .flags = ARROW_FLAG_NULLABLE,
                                     .release = sfpy_schema_release_nothing};
    sfpy_plugin_out_publish(out, p);
}
