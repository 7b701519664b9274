/*
 * The functions a Polars expression plugin exports: one per verb, and one for
 * its output field (the ABI: polars_plugin.c's opening comment). Each hands a
 * batch to the kernels' path, or to Python's for a dtype the kernels' bounds
 * do not cover; both are below this file and never call it.
 */
#include "polars_plugin.h"

#include <stdint.h>
#include <stdlib.h>

/* ---- The functions Polars calls --------------------------------------------- */

static void call(plugin_op op, sf_series_export *in, size_t n_in, sf_series_export *out) {
    spec sp = {0};
    if (n_in != 2 || sfpy_plugin_literal(&in[1], &sp.p, &sp.len) < 0) {
        sfpy_plugin_error("simdfilter's plugin takes the column and its bounds literal");
    } else {
        const int got = sfpy_plugin_kernel_answer(op, &in[0], &sp, out);
        if (got == 0) {
            if (sfpy_plugin_spec_read(&sp, NULL) < 0)
                sfpy_plugin_error("simdfilter's plugin: malformed bounds literal");
            else if (!Py_IsInitialized())
                sfpy_plugin_error("simdfilter's plugin: no Python to answer this dtype");
            else
                sfpy_plugin_python_answer(op, &in[0], &sp, out);
        }
    }
    sfpy_plugin_release_inputs(in, n_in);
}

#define PLUGIN_FUNCTION(NAME, OP)                                                          \
    SF_PLUGIN_EXPORT void _polars_plugin_##NAME(sf_series_export *in, size_t n_in,        \
                                                const uint8_t *kwargs, size_t kwargs_len,  \
                                                sf_series_export *out,                     \
                                                const sf_caller_context *ctx);             \
    void _polars_plugin_##NAME(sf_series_export *in, size_t n_in, const uint8_t *kwargs,   \
                               size_t kwargs_len, sf_series_export *out,                   \
                               const sf_caller_context *ctx) {                             \
        (void)kwargs, (void)kwargs_len, (void)ctx;                                         \
        call(OP, in, n_in, out);                                                           \
    }

PLUGIN_FUNCTION(sf_between, PLUGIN_BETWEEN)
PLUGIN_FUNCTION(sf_count32, PLUGIN_COUNT32)
PLUGIN_FUNCTION(sf_count64, PLUGIN_COUNT64)

/* ---- Output fields --------------------------------------------------------- */

static void release_field(struct ArrowSchema *s) {
    free(s->private_data); /* the name */
    s->private_data = NULL;
    s->release = NULL;
}

static void field(const char *format, const struct ArrowSchema *fields, size_t n,
                  struct ArrowSchema *out) {
    const char *name = n && fields[0].name ? fields[0].name : "";
    char *copy = sfpy_plugin_copy_string(name);
    if (!copy) {
        sfpy_plugin_error("out of memory");
        return;
    }
    *out = (struct ArrowSchema){.format = format, .name = copy, .flags = ARROW_FLAG_NULLABLE,
                                .release = release_field, .private_data = copy};
}

#define FIELD_FUNCTION(NAME, FORMAT)                                                       \
    SF_PLUGIN_EXPORT void _polars_plugin_field_##NAME(const struct ArrowSchema *fields,    \
                                                      size_t n, struct ArrowSchema *out,   \
                                                      const uint8_t *kwargs,               \
                                                      size_t kwargs_len);                  \
    void _polars_plugin_field_##NAME(const struct ArrowSchema *fields, size_t n,           \
                                     struct ArrowSchema *out, const uint8_t *kwargs,       \
                                     size_t kwargs_len) {                                  \
        (void)kwargs, (void)kwargs_len;                                                    \
        field(FORMAT, fields, n, out);                                                     \
    }

FIELD_FUNCTION(sf_between, "b")
FIELD_FUNCTION(sf_count32, "I")
FIELD_FUNCTION(sf_count64, "L")
