/*
 * Runs a kernel over what NumPy hands us: contiguous or strided runs, native or
 * byte-swapped elements, one thread or several. No Python here.
 */
#ifndef SIMDFILTER_DRIVER_H
#define SIMDFILTER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#include "simdfilter.h"

typedef enum sf_op { SF_OP_INDEX32, SF_OP_INDEX64, SF_OP_VALUES, SF_OP_COUNT } sf_op;

/* One pass of one operation over n elements, the i-th at data + i * stride. */
typedef struct sf_job {
    const sf_kernel *kernel;
    sf_op op;
    sf_elem kind;
    sf_range range;
    const char *data;
    size_t n;
    ptrdiff_t stride; /* in bytes; may be negative or not a multiple of the size */
    int byteswap;     /* elements are stored in the other byte order */
    uint64_t base;    /* position reported for data[0] (index ops) */
} sf_job;

/* Bytes of one result of the job (0 for count). */
size_t sf_job_result_size(const sf_job *job);

/*
 * Run the job on up to `threads` threads and write the results in order to out,
 * which has room for job->n results. Values come out in native byte order.
 * Returns the number of results (for count: the count).
 */
size_t sf_job_run(const sf_job *job, void *out, int threads);

/*
 * The same, for an output with room for only `capacity` results (fewer than
 * job->n): results are staged in a small buffer and at most `capacity` are
 * copied out. For callers that counted first and allocated the exact size.
 * Returns the number of results found, which may exceed what was copied.
 */
size_t sf_job_run_bounded(const sf_job *job, void *out, size_t capacity, int threads);

/* Below this many elements per thread, starting a thread costs more than it saves. */
#define SF_MIN_ELEMENTS_PER_THREAD ((size_t)1 << 18)

#endif
