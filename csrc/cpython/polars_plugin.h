/*
 * Internal to the Polars plugin (polars_plugin_calls.c above
 * polars_plugin_kernels.c and polars_plugin_python.c, all three above
 * polars_plugin.c): the ABI's structs as polars-ffi lays them out, the
 * bounds literal, the result export, and the calls between the files.
 * What the ABI is and who owns what: polars_plugin.c's opening comment.
 */
#ifndef SIMDFILTER_POLARS_PLUGIN_H
#define SIMDFILTER_POLARS_PLUGIN_H

#include "binding.h"

#include <stddef.h>
#include <stdint.h>

/* polars-ffi's version_0::SeriesExport, #[repr(C)]. */
typedef struct sf_series_export {
    struct ArrowSchema *field;
    struct ArrowArray **arrays;
    size_t len;
    void (*release)(struct sf_series_export *);
    void *private_data;
} sf_series_export;

/* polars-ffi's version_0::CallerContext: bit 0, Polars runs this call beside others. */
typedef struct sf_caller_context {
    uint64_t bitflags;
} sf_caller_context;

typedef enum plugin_op { PLUGIN_BETWEEN, PLUGIN_COUNT32, PLUGIN_COUNT64 } plugin_op;

#if defined(__GNUC__) || defined(__clang__)
#define SF_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SF_PLUGIN_EXPORT
#endif

/* The thread's error message (what _polars_plugin_get_last_error_message
 * returns): `msg` copied, cut to its room. */
void sfpy_plugin_error(const char *msg);
/* strdup, which C11 lacks. */
char *sfpy_plugin_copy_string(const char *s);

/* ---- polars_plugin.c: the inputs ---- */

/* Polars' inputs released: every chunk still owned, then the export itself. */
void sfpy_plugin_release_inputs(sf_series_export *in, size_t n);
/* The spec literal's bytes (input 1: a Binary, BinaryView or LargeBinary
 * Series of one value): 0 with *p, *len, or -1. */
int sfpy_plugin_literal(const sf_series_export *e, const uint8_t **p, size_t *len);

/* ---- polars_plugin.c: the bounds literal ---- */

/* The spec: "SFP1", u32 entries, each (u8 format length, the format, u8 kind:
 * 0 nothing in range / 1 the inclusive range of the next two 8-byte ends, in
 * the column's type: double bits on float columns, else int64 or uint64),
 * then u32 and the pickled (lo, hi, inclusive) for Python. */
typedef struct spec {
    const uint8_t *p;
    size_t len;
    int found, nonempty;
    uint64_t lo, hi;
    const uint8_t *pickled;
    size_t pickled_len;
} spec;

/* Parses the spec, looking up `format`: 0 (s->found says whether it is there), -1 malformed. */
int sfpy_plugin_spec_read(spec *s, const char *format);

/* ---- polars_plugin.c: the result export ---- */

/* What a result export owns: its schema (name copied), the pointers to its
 * chunks and the chunks' structs (their buffers are the chunks' own). */
typedef struct out_private {
    struct ArrowSchema schema;
    struct ArrowArray **ptrs;
    struct ArrowArray *arrays;
    size_t n;
    char *name;
} out_private;

/* An export of n chunks (filled by the caller, zeroed here) named `name`;
 * NULL when out of memory. */
out_private *sfpy_plugin_out_new(size_t n, const char *name);
/* The export's own memory freed (p may be NULL); its chunks' buffers are not
 * its own, nor its schema's (released first, when it has any). */
void sfpy_plugin_out_free(out_private *p);
/* p handed over as *out: Polars' release of *out frees it. */
void sfpy_plugin_out_publish(sf_series_export *out, out_private *p);
/* A one-chunk export (p from sfpy_plugin_out_new(1, ...)) of the two buffers
 * (validity, values: their own, malloc'd) into *out, a nullable column of
 * `format`. */
void sfpy_plugin_out_publish_one(sf_series_export *out, out_private *p, const void **buffers,
                                 int64_t length, int64_t nulls, const char *format);

/* ---- the two paths ---- */

/* polars_plugin_kernels.c: the kernels' answer on the column's own chunks
 * into *out: 1 done, 0 not this path's (a dtype the spec has no range for),
 * -1 failed (the error set). */
int sfpy_plugin_kernel_answer(plugin_op op, const sf_series_export *col, spec *sp,
                              sf_series_export *out);
/* polars_plugin_python.c: simdfilter._polars_plugin._batch's answer into *out,
 * the GIL taken: 0 done, -1 failed (the error set). Moves col's chunks into
 * capsules; sp read whole by sfpy_plugin_spec_read. */
int sfpy_plugin_python_answer(plugin_op op, sf_series_export *col, const spec *sp,
                              sf_series_export *out);

#endif
