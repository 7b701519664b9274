/*
 * Arrow columns as simdfilter sources: the types simdfilter reads, and a
 * source over the chunks (ArrowArray) of one column, whose positions continue
 * from chunk to chunk. Plain C, no Arrow library: the ABI structs are in
 * arrow_abi.h. The caller keeps the arrays alive, and releases them, itself.
 */
#ifndef SIMDFILTER_ARROW_H
#define SIMDFILTER_ARROW_H

#include <stddef.h>

#include "arrow_abi.h"
#include "simdfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sf_arrow_kind {
    SF_ARROW_NUMBER = 0, /* int8..uint64, float32, float64 */
    SF_ARROW_BOOL,       /* bit-packed booleans */
    SF_ARROW_TIMESTAMP,  /* int64 ticks since the epoch, in UTC when there is a zone */
    SF_ARROW_DATE,       /* date32: int32 days; date64: int64 milliseconds */
    SF_ARROW_TIME,       /* time32/time64: ticks since midnight */
    SF_ARROW_DURATION    /* int64 ticks */
} sf_arrow_kind;

typedef struct sf_arrow_type {
    sf_type type;       /* the stored values' domain, for bounds and kernels */
    sf_arrow_kind kind;
    char unit;          /* temporal kinds: 's', 'm' (milli), 'u' (micro), 'n' (nano), 'D' (days) */
    const char *timezone; /* timestamps with a zone: the zone, pointing into the
                             schema's format string; else NULL */
} sf_arrow_type;

/* The type of a column with this schema: 0, or -1 with a sentence in err
 * (at most errlen bytes) saying what is not supported. */
int sf_arrow_type_of(const struct ArrowSchema *schema, sf_arrow_type *out, char *err,
                     size_t errlen);

/* 0 if `array` is a well-formed array of type t: not released, two buffers
 * and no children or dictionary, a values buffer when it has elements, no
 * negative length or offset, and offset + length within what a pointer can
 * step over; -1 with a sentence in err otherwise. What no consumer can check
 * stays the producer's promise, as the C data interface (and pyarrow's
 * importer) has it: that each buffer holds offset + length elements (bits for
 * bool values and validity), that a schema's metadata is as long as its
 * lengths say, and that the arrays stay alive until released. */
int sf_arrow_check_array(const struct ArrowArray *array, const sf_arrow_type *t, char *err,
                         size_t errlen);

/* A source over `count` arrays of type t, read in place: one run each, with
 * its validity bitmap (at any bit offset) when it has nulls. An array whose
 * buffers changed since sf_arrow_check_array accepted them (its values buffer
 * now NULL: a producer's list of buffers, written after the check or during
 * the call) is refused: the source ends there and `refused` becomes 1. The
 * elements from that array on were then never read, and never written into
 * any output: a caller that finds `refused` set after sf_execute or
 * sf_validity must not take the output as the answer. */
typedef struct sf_arrow_source {
    sf_source source;
    const struct ArrowArray *arrays;
    size_t count, next;
    sf_arrow_type type;
    uint64_t base;
    int refused;
} sf_arrow_source;
sf_source *sf_arrow_source_init(sf_arrow_source *s, const sf_arrow_type *t,
                                const struct ArrowArray *arrays, size_t count);

#ifdef __cplusplus
}
#endif
#endif /* SIMDFILTER_ARROW_H */
