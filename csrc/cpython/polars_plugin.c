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
 */
#include "binding.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define SF_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SF_PLUGIN_EXPORT
#endif

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

#define SF_PLUGIN_ABI_MAJOR 0u
#define SF_PLUGIN_ABI_MINOR 1u

SF_PLUGIN_EXPORT uint32_t _polars_plugin_get_version(void);
SF_PLUGIN_EXPORT const char *_polars_plugin_get_last_error_message(void);

/* ---- Errors: a message per thread ------------------------------------------- */

static _Thread_local char last_error[512];

/* strdup, which C11 lacks. */
static char *copy_string(const char *s) {
    const size_t n = strlen(s) + 1;
    char *c = (char *)malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

static void set_error(const char *msg) {
    snprintf(last_error, sizeof last_error, "%s", msg);
}

uint32_t _polars_plugin_get_version(void) {
    return (SF_PLUGIN_ABI_MAJOR << 16) | SF_PLUGIN_ABI_MINOR;
}

const char *_polars_plugin_get_last_error_message(void) { return last_error; }

/* ---- The inputs ------------------------------------------------------------ */

/* Polars' inputs released: every chunk still owned, then the export itself. */
static void release_inputs(sf_series_export *in, size_t n) {
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

/* The spec literal's bytes (input 1: a Binary, BinaryView or LargeBinary
 * Series of one value): 0 with *p, *len, or -1. */
static int literal_bytes(const sf_series_export *e, const uint8_t **p, size_t *len) {
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

static int read_u32(const uint8_t **p, const uint8_t *end, uint32_t *v) {
    if ((size_t)(end - *p) < 4)
        return -1;
    memcpy(v, *p, 4);
    *p += 4;
    return 0;
}

/* Parses the spec, looking up `format`: 0 (s->found says whether it is there), -1 malformed. */
static int spec_read(spec *s, const char *format) {
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

/* ---- The result ------------------------------------------------------------ */

/* What a result export owns: its schema (name copied), the pointers to its
 * chunks and the chunks' structs (their buffers are the chunks' own). */
typedef struct out_private {
    struct ArrowSchema schema;
    struct ArrowArray **ptrs;
    struct ArrowArray *arrays;
    size_t n;
    char *name;
} out_private;

static void noop_release_schema(struct ArrowSchema *s) { s->release = NULL; }

static void release_out(sf_series_export *e) {
    out_private *p = (out_private *)e->private_data;
    if (p) {
        if (p->schema.release)
            p->schema.release(&p->schema);
        /* Polars moved every chunk out (a bitwise copy, which leaves `release` set
         * here): they are its own now, and only their structs are freed. */
        free(p->ptrs);
        free(p->arrays);
        free(p->name);
        free(p);
    }
    e->private_data = NULL;
    e->release = NULL;
}

/* An export of n chunks (filled by the caller, zeroed here) named `name`;
 * NULL when out of memory. */
static out_private *out_new(size_t n, const char *name) {
    out_private *p = (out_private *)calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = n;
    p->ptrs = (struct ArrowArray **)calloc(n ? n : 1, sizeof *p->ptrs);
    p->arrays = (struct ArrowArray *)calloc(n ? n : 1, sizeof *p->arrays);
    p->name = copy_string(name ? name : "");
    if (!p->ptrs || !p->arrays || !p->name) {
        free(p->ptrs), free(p->arrays), free(p->name), free(p);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        p->ptrs[i] = &p->arrays[i];
    return p;
}

static void out_publish(sf_series_export *out, out_private *p) {
    *out = (sf_series_export){.field = &p->schema, .arrays = p->ptrs, .len = p->n,
                              .release = release_out, .private_data = p};
}

/* A buffer for `bytes` bytes, 64-byte aligned and padded to 64, the padding zeroed. */
static uint8_t *bitmap_new(size_t bytes) {
    const size_t padded = (bytes + 63) / 64 * 64 + (bytes == 0) * 64;
    uint8_t *b = (uint8_t *)aligned_alloc(64, padded);
    if (b)
        memset(b + bytes, 0, padded - bytes);
    return b;
}

static void release_owned_array(struct ArrowArray *a) {
    const void **buffers = a->buffers;
    for (int64_t i = 0; i < a->n_buffers; i++)
        free((void *)buffers[i]);
    free((void *)buffers);
    a->release = NULL;
}

/* ---- The kernels' path ----------------------------------------------------- */

typedef enum plugin_op { PLUGIN_BETWEEN, PLUGIN_COUNT32, PLUGIN_COUNT64 } plugin_op;

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

/* The kernels' answer into *out: 1 done, 0 not this path's (another dtype),
 * -1 failed (last_error set). */
static int kernel_answer(plugin_op op, const sf_series_export *col, spec *sp,
                         sf_series_export *out) {
    char err[256];
    sf_arrow_type t;
    if (!col->field || sf_arrow_type_of(col->field, &t, err, sizeof err) < 0)
        return 0;
    if (spec_read(sp, col->field->format) < 0) {
        set_error("simdfilter's plugin: malformed bounds literal");
        return -1;
    }
    if (!sp->found)
        return 0;
    size_t n = 0;
    struct ArrowArray *chunks = chunks_of(col, &n, err, sizeof err, &t);
    if (!chunks) {
        set_error(err);
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
        out_private *p = out_new(1, col->field->name);
        uint8_t *values = bitmap_new(8);
        const void **buffers = (const void **)calloc(2, sizeof *buffers);
        if (rc != SF_OK || !p || !values || !buffers) {
            free(chunks), free(values), free(buffers);
            if (p)
                free(p->ptrs), free(p->arrays), free(p->name), free(p);
            set_error(rc != SF_OK ? "simdfilter's plugin: the count failed" : "out of memory");
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
        p->arrays[0] = (struct ArrowArray){.length = 1, .n_buffers = 2, .buffers = buffers,
                                           .release = release_owned_array};
        p->schema = (struct ArrowSchema){.format = op == PLUGIN_COUNT32 ? "I" : "L",
                                         .name = p->name, .flags = ARROW_FLAG_NULLABLE,
                                         .release = noop_release_schema};
        free(chunks);
        out_publish(out, p);
        return 1;
    }
    const size_t bytes = (n + 7) / 8;
    uint8_t *values = bitmap_new(bytes), *valid = NULL;
    const void **buffers = (const void **)calloc(2, sizeof *buffers);
    out_private *p = out_new(1, col->field->name);
    int has_nulls = 0;
    for (size_t i = 0; i < col->len; i++)
        has_nulls |= chunks[i].null_count != 0 && chunks[i].n_buffers > 0 && chunks[i].buffers[0];
    size_t nulls = 0;
    int lost = 0;
    if (values && has_nulls && !(valid = bitmap_new(bytes)))
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
        if (p)
            free(p->ptrs), free(p->arrays), free(p->name), free(p);
        set_error("out of memory");
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
        free(p->ptrs), free(p->arrays), free(p->name), free(p);
        set_error("simdfilter's plugin: the kernels failed");
        return -1;
    }
    buffers[0] = valid;
    buffers[1] = values;
    p->arrays[0] = (struct ArrowArray){.length = (int64_t)n, .null_count = (int64_t)nulls,
                                       .n_buffers = 2, .buffers = buffers,
                                       .release = release_owned_array};
    p->schema = (struct ArrowSchema){.format = "b", .name = p->name,
                                     .flags = ARROW_FLAG_NULLABLE,
                                     .release = noop_release_schema};
    out_publish(out, p);
    return 1;
}

/* ---- Python's path: the package's function on the batch -------------------- */

/* A schema lent to a capsule: the fields of Polars' own (which outlives the
 * call), released as a no-op; the importer copies what it reads. */
static void lent_schema_release(struct ArrowSchema *s) { s->release = NULL; }

static void drop_schema_capsule(PyObject *capsule) {
    struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(capsule, "arrow_schema");
    if (s && s->release)
        s->release(s);
    free(s);
}

static void drop_array_capsule(PyObject *capsule) {
    struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(capsule, "arrow_array");
    if (a && a->release)
        a->release(a);
    free(a);
}

/* [(schema capsule, array capsule), ...] of the column's chunks, each chunk
 * moved into its capsule (released there, not by release_inputs). */
static PyObject *chunk_capsules(sf_series_export *col) {
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < col->len; i++) {
        struct ArrowSchema *s = (struct ArrowSchema *)malloc(sizeof *s);
        struct ArrowArray *a = (struct ArrowArray *)malloc(sizeof *a);
        if (!s || !a || !col->arrays[i]) {
            free(s), free(a);
            Py_DECREF(list);
            return PyErr_NoMemory();
        }
        *s = *col->field;
        s->release = lent_schema_release;
        *a = *col->arrays[i];
        col->arrays[i]->release = NULL; /* moved */
        PyObject *sc = PyCapsule_New(s, "arrow_schema", drop_schema_capsule);
        if (!sc) {
            free(s);
            a->release(a);
            free(a);
            Py_DECREF(list);
            return NULL;
        }
        PyObject *ac = PyCapsule_New(a, "arrow_array", drop_array_capsule);
        if (!ac) {
            a->release(a);
            free(a);
            Py_DECREF(sc);
            Py_DECREF(list);
            return NULL;
        }
        PyObject *pair = PyTuple_Pack(2, sc, ac);
        Py_DECREF(sc);
        Py_DECREF(ac);
        if (!pair || PyList_Append(list, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return list;
}

/* The Arrow C stream of a Series (its __arrow_c_stream__) into *out, chunk by
 * chunk: 0, or -1 with an exception. */
static int export_stream(PyObject *capsule, const char *name, sf_series_export *out) {
    struct ArrowArrayStream *st =
        (struct ArrowArrayStream *)PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!st)
        return -1;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    if (st->get_schema(st, &schema) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "the answer's Arrow stream gave no schema");
        return -1;
    }
    size_t n = 0, room = 4;
    struct ArrowArray *arrays = (struct ArrowArray *)malloc(room * sizeof *arrays);
    while (arrays) {
        if (n == room) {
            struct ArrowArray *more =
                (struct ArrowArray *)realloc(arrays, 2 * room * sizeof *arrays);
            if (!more)
                break;
            arrays = more, room *= 2;
        }
        memset(&arrays[n], 0, sizeof arrays[n]);
        if (st->get_next(st, &arrays[n]) != 0) {
            for (size_t i = 0; i < n; i++)
                arrays[i].release(&arrays[i]);
            free(arrays);
            schema.release(&schema);
            PyErr_SetString(PyExc_RuntimeError, "the answer's Arrow stream failed");
            return -1;
        }
        if (!arrays[n].release)
            break;
        n++;
    }
    out_private *p = arrays ? out_new(n, name) : NULL;
    if (!p) {
        for (size_t i = 0; arrays && i < n; i++)
            arrays[i].release(&arrays[i]);
        free(arrays);
        schema.release(&schema);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(p->arrays, arrays, n * sizeof *arrays);
    free(arrays);
    p->schema = schema; /* its own release; the name is the column's */
    p->schema.name = p->name;
    out_publish(out, p);
    return 0;
}

/* The message of the exception set now, as "Type: message", into last_error. */
static void python_error(void) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
#endif
    PyObject *s = exc ? PyObject_Str(exc) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(last_error, sizeof last_error, "%s: %s", exc ? Py_TYPE(exc)->tp_name : "Error",
             msg ? msg : "(no message)");
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(exc);
}

static int python_answer(plugin_op op, sf_series_export *col, const spec *sp,
                         sf_series_export *out) {
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = -1;
    /* The package's module, as imported by whoever built the expression: the
     * binding imports no simdfilter module (helpers come to it); the plugin has
     * no module object whose state would hold one, so it reads sys.modules. */
    PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter._polars_plugin");
    Py_XINCREF(mod);
    if (!mod)
        PyErr_SetString(PyExc_RuntimeError,
                        "simdfilter's plugin needs `import simdfilter.polars` in this process");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "_batch") : NULL;
    PyObject *chunks = fn ? chunk_capsules(col) : NULL;
    PyObject *res = NULL, *stream = NULL;
    if (chunks) {
        res = PyObject_CallFunction(fn, "sy#Os", op == PLUGIN_BETWEEN ? "between" : "count",
                                    (const char *)sp->pickled, (Py_ssize_t)sp->pickled_len,
                                    chunks, col->field->name ? col->field->name : "");
    }
    if (res)
        stream = PyObject_CallMethod(res, "__arrow_c_stream__", NULL);
    if (stream && export_stream(stream, col->field->name, out) == 0)
        rc = 0;
    if (rc < 0)
        python_error();
    Py_XDECREF(stream);
    Py_XDECREF(res);
    Py_XDECREF(chunks);
    Py_XDECREF(fn);
    Py_XDECREF(mod);
    PyGILState_Release(g);
    return rc;
}

/* ---- The functions Polars calls --------------------------------------------- */

static void call(plugin_op op, sf_series_export *in, size_t n_in, sf_series_export *out) {
    spec sp = {0};
    if (n_in != 2 || literal_bytes(&in[1], &sp.p, &sp.len) < 0) {
        set_error("simdfilter's plugin takes the column and its bounds literal");
    } else {
        const int got = kernel_answer(op, &in[0], &sp, out);
        if (got == 0) {
            if (spec_read(&sp, NULL) < 0)
                set_error("simdfilter's plugin: malformed bounds literal");
            else if (!Py_IsInitialized())
                set_error("simdfilter's plugin: no Python to answer this dtype");
            else
                python_answer(op, &in[0], &sp, out);
        }
    }
    release_inputs(in, n_in);
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
    char *copy = copy_string(name);
    if (!copy) {
        set_error("out of memory");
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
