/*
 * The sizes and field offsets of the public structs as the C compiler lays
 * them out, so that a Rust test can check src/ffi.rs's #[repr(C)] copies
 * against the header instead of trusting that they were transcribed right.
 * Linked into the Rust crate only.
 */
#include <stddef.h>

#include "simdfilter.h"

#define FIELD(type, field) offsetof(type, field)

static const size_t layout[] = {
    sizeof(sf_range), FIELD(sf_range, lo), FIELD(sf_range, hi), FIELD(sf_range, flo),
    FIELD(sf_range, fhi), FIELD(sf_range, invert),

    sizeof(sf_bound), FIELD(sf_bound, kind), FIELD(sf_bound, i), FIELD(sf_bound, u),
    FIELD(sf_bound, f),

    sizeof(sf_query), FIELD(sf_query, kernel), FIELD(sf_query, op), FIELD(sf_query, elem),
    FIELD(sf_query, range), FIELD(sf_query, within), FIELD(sf_query, within_count),
    FIELD(sf_query, within_wide), FIELD(sf_query, more), FIELD(sf_query, more_count),
    FIELD(sf_query, every),

    sizeof(sf_run), FIELD(sf_run, data), FIELD(sf_run, n), FIELD(sf_run, stride),
    FIELD(sf_run, byteswap), FIELD(sf_run, base), FIELD(sf_run, null_form),
    FIELD(sf_run, nulls), FIELD(sf_run, null_bit), FIELD(sf_run, null_stride),
    FIELD(sf_run, bit_packed), FIELD(sf_run, data_bit),

    sizeof(sf_source), sizeof(sf_run_source), FIELD(sf_run_source, source),
    FIELD(sf_run_source, run), FIELD(sf_run_source, taken),

    sizeof(sf_exec), FIELD(sf_exec, threads), FIELD(sf_exec, cancel), FIELD(sf_exec, cancel_ctx),
    FIELD(sf_exec, fresh_out),
    FIELD(sf_exec, out_resident),

    sizeof(sf_kernel), FIELD(sf_kernel, name),

    /* Enums are passed as C int: check that they are int-sized. */
    sizeof(sf_type), sizeof(sf_op), sizeof(sf_elem), sizeof(sf_bound_kind), sizeof(sf_nulls),

    /* Constants the Rust side restates. */
    SF_ELEM_COUNT, SF_TYPE_COUNT, SF_MAX_THREADS,
};

const size_t *sf_rust_layout(size_t *len);
const size_t *sf_rust_layout(size_t *len) {
    *len = sizeof layout / sizeof layout[0];
    return layout;
}
