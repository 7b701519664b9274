/*
 * Arrow columns: their types (from the schema's format string) and their
 * chunks as runs, read in place. The format strings are the Arrow C data
 * interface's.
 */
#include "simdfilter_arrow.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char SUPPORTED[] =
    "int8..int64, uint8..uint64, float32, float64, bool, date32, date64, "
    "timestamp (any unit, with or without a time zone), duration, time32 and time64";

static const struct {
    char code;
    sf_type type;
} NUMBERS[] = {
    {'c', SF_T_I8},  {'C', SF_T_U8},  {'s', SF_T_I16}, {'S', SF_T_U16}, {'i', SF_T_I32},
    {'I', SF_T_U32}, {'l', SF_T_I64}, {'L', SF_T_U64}, {'f', SF_T_F32}, {'g', SF_T_F64},
};

/* A reader's name for a format simdfilter does not read. */
static const char *format_name(const char *f) {
    static const struct {
        const char *format, *name;
        int is_prefix; /* the format carries parameters after this */
    } names[] = {
        {"n", "null", 0},           {"e", "float16", 0},        {"u", "string", 0},
        {"U", "large_string", 0},   {"vu", "string_view", 0},   {"z", "binary", 0},
        {"Z", "large_binary", 0},   {"vz", "binary_view", 0},   {"w:", "fixed_size_binary", 1},
        {"d:", "decimal", 1},       {"+l", "list", 0},          {"+L", "large_list", 0},
        {"+vl", "list_view", 0},    {"+w:", "fixed_size_list", 1}, {"+s", "struct", 0},
        {"+m", "map", 0},           {"+u", "union", 1},         {"+r", "run_end_encoded", 0},
        {"ti", "interval", 1},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *want = names[i].format;
        if (names[i].is_prefix ? strncmp(f, want, strlen(want)) == 0 : strcmp(f, want) == 0)
            return names[i].name;
    }
    return NULL;
}

static int fail(char *err, size_t errlen, const char *what, const char *detail) {
    if (errlen)
        snprintf(err, errlen, "simdfilter reads Arrow arrays of %s, not %s%s", SUPPORTED, what,
                 detail);
    return -1;
}

/* Whether Arrow's metadata encoding (an int32 count, then int32
 * length-prefixed keys and values) holds `key`. The encoding carries no total
 * size, so that its lengths stay inside it is the producer's promise; a
 * negative count or length, which no producer could mean, ends the search
 * instead of stepping backwards. */
static int has_metadata_key(const char *metadata, const char *key) {
    if (!metadata)
        return 0;
    int32_t n, len;
    const char *p = metadata;
    memcpy(&n, p, 4);
    p += 4;
    for (int32_t i = 0; i < n; i++) {
        memcpy(&len, p, 4);
        p += 4;
        if (len < 0)
            return 0;
        const int match = (size_t)len == strlen(key) && memcmp(p, key, (size_t)len) == 0;
        p += len;
        if (match)
            return 1;
        memcpy(&len, p, 4);
        if (len < 0)
            return 0;
        p += 4 + (size_t)len;
    }
    return 0;
}

/* f starts with 't'. Each character is read only after the one before it
 * proved not to be the terminator: "t" and "td" are formats a malformed
 * producer can send, and f[2] or f[3] would lie past their end. */
static int temporal(const char *f, sf_arrow_type *out) {
    const char kind = f[1];
    if (!kind)
        return -1;
    const char unit = f[2];
    if (!unit)
        return -1;
    const int known_unit = unit == 's' || unit == 'm' || unit == 'u' || unit == 'n';
    if (kind == 'd' && (unit == 'D' || unit == 'm') && f[3] == '\0') {
        out->kind = SF_ARROW_DATE;
        out->type = unit == 'D' ? SF_T_I32 : SF_T_I64;
        out->unit = unit;
        return 0;
    }
    if (kind == 't' && known_unit && f[3] == '\0') {
        out->kind = SF_ARROW_TIME;
        out->type = unit == 's' || unit == 'm' ? SF_T_I32 : SF_T_I64;
        out->unit = unit;
        return 0;
    }
    if (kind == 'D' && known_unit && f[3] == '\0') {
        out->kind = SF_ARROW_DURATION;
        out->type = SF_T_I64;
        out->unit = unit;
        return 0;
    }
    if (kind == 's' && known_unit && f[3] == ':') {
        out->kind = SF_ARROW_TIMESTAMP;
        out->type = SF_T_I64;
        out->unit = unit;
        out->timezone = f[4] ? f + 4 : NULL;
        return 0;
    }
    return -1;
}

int sf_arrow_type_of(const struct ArrowSchema *schema, sf_arrow_type *out, char *err,
                     size_t errlen) {
    memset(out, 0, sizeof *out);
    const char *f = schema ? schema->format : NULL;
    if (!f || schema->release == NULL)
        return fail(err, errlen, "a released or empty schema", "");
    if (schema->dictionary)
        return fail(err, errlen, "dictionary-encoded (categorical) arrays", "");
    if (has_metadata_key(schema->metadata, "ARROW:extension:name"))
        return fail(err, errlen, "extension types", "");
    if (f[0] && f[1] == '\0') {
        for (size_t i = 0; i < sizeof NUMBERS / sizeof NUMBERS[0]; i++) {
            if (NUMBERS[i].code == f[0]) {
                out->kind = SF_ARROW_NUMBER;
                out->type = NUMBERS[i].type;
                return 0;
            }
        }
        if (f[0] == 'b') {
            out->kind = SF_ARROW_BOOL;
            out->type = SF_T_BOOL;
            return 0;
        }
    }
    if (f[0] == 't' && temporal(f, out) == 0)
        return 0;
    const char *name = format_name(f);
    if (name)
        return fail(err, errlen, name, "");
    char detail[48];
    snprintf(detail, sizeof detail, " (format '%.24s')", f);
    return fail(err, errlen, "this type", detail);
}

/* The last element's bit (bool) or byte past its end must be a number a
 * pointer can step to: offset + length elements, in bits or in bytes, within
 * int64 (and so within size_t and ptrdiff_t on 64-bit targets; on 32-bit
 * ones, within PTRDIFF_MAX). */
static int reachable(const sf_arrow_type *t, int64_t length, int64_t offset) {
    const uint64_t size = t->kind == SF_ARROW_BOOL ? 1 : sf_elem_size(sf_type_elem(t->type));
    const uint64_t limit = (uint64_t)(PTRDIFF_MAX < INT64_MAX ? PTRDIFF_MAX : INT64_MAX) / size;
    return length >= 0 && offset >= 0 && (uint64_t)length <= limit &&
           (uint64_t)offset <= limit - (uint64_t)length;
}

int sf_arrow_check_array(const struct ArrowArray *a, const sf_arrow_type *t, char *err,
                         size_t errlen) {
    /* Each field read once (the struct may be a producer's, written while
     * this reads it): what is checked is what was read. */
    const int64_t length = a->length, offset = a->offset;
    const void *const *buffers = (const void *const *)a->buffers;
    const char *problem = NULL;
    if (a->release == NULL)
        problem = "a released array";
    else if (length < 0 || offset < 0)
        problem = "an array with a negative length or offset";
    else if (!reachable(t, length, offset))
        problem = "an array whose offset and length lie beyond any buffer";
    else if (a->n_buffers != 2 || !buffers)
        problem = "an array whose buffers do not fit its type";
    else if (a->n_children != 0 || a->dictionary)
        problem = "an array whose children do not fit its type";
    else if (length > 0 && !buffers[1])
        problem = "an array without a values buffer";
    if (!problem)
        return 0;
    if (errlen)
        snprintf(err, errlen, "simdfilter cannot read %s", problem);
    return -1;
}

static int arrow_next(sf_source *self, sf_run *run) {
    sf_arrow_source *s = (sf_arrow_source *)self;
    if (s->next >= s->count)
        return 0;
    const struct ArrowArray *a = &s->arrays[s->next++];
    /* The struct and its list of buffers may be a producer's memory, written
     * since sf_arrow_check_array read them, or while this reads them: each
     * field is read once, what sf_arrow_check_array refuses is refused again
     * in what was read, and only that is used. A chunk refused here ends the
     * source, which says so (`refused`): that chunk and those after it are
     * neither read nor written into an output (never a read at a pointer or
     * offset that was not checked), so the caller must not take the output
     * as the answer: a mask in reused memory would keep what it held. */
    const int64_t length = a->length, offset64 = a->offset, null_count = a->null_count;
    const void *const *buffers = (const void *const *)a->buffers;
    const void *validity = NULL, *values = NULL;
    if (reachable(&s->type, length, offset64) && a->n_buffers == 2 && buffers) {
        validity = buffers[0];
        values = buffers[1];
    }
    if (!values && length != 0) {
        s->next = s->count;
        s->refused = 1;
        return 0;
    }
    const size_t n = (size_t)length, offset = (size_t)offset64;
    const sf_elem elem = sf_type_elem(s->type.type);
    run->n = n;
    run->base = s->base;
    s->base += n;
    if (s->type.kind == SF_ARROW_BOOL) {
        run->bit_packed = 1;
        run->data = values;
        run->data_bit = offset;
    } else {
        const size_t size = sf_elem_size(elem);
        run->data = n ? (const char *)values + offset * size : values;
        run->stride = (ptrdiff_t)size;
    }
    /* No validity buffer, or a null count of 0, means no nulls (-1: unknown). */
    if (validity && null_count != 0) {
        run->null_form = SF_NULLS_BITMAP;
        run->nulls = (const uint8_t *)validity;
        run->null_bit = offset;
    }
    return 1;
}

sf_source *sf_arrow_source_init(sf_arrow_source *s, const sf_arrow_type *t,
                                const struct ArrowArray *arrays, size_t count) {
    s->source.next = arrow_next;
    s->arrays = arrays;
    s->count = count;
    s->next = 0;
    s->type = *t;
    s->base = 0;
    s->refused = 0;
    return &s->source;
}
