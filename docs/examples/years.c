/* The C guide's example (docs/guide/c.rst): which people were born between
 * 1982 and 2000? tests/test_docs.py compiles it with the library and runs it. */
#include <stdio.h>

#include "simdfilter.h"

int main(void) {
    const uint32_t years[8] = {1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996};
    uint32_t out[8];

    /* The convenience form: uint32 data, inclusive bounds, the default kernel. */
    size_t k = sf_filter_indexes_u32(years, 8, 1982, 2000, out);
    printf("%zu born 1982..2000:", k);
    for (size_t i = 0; i < k; i++) printf(" %u", (unsigned)out[i]);
    printf("\n");

    /* The general form: bounds resolved exactly, a query over a source of runs.
     * Here [1982, 2000.5]: the float bound on integer data keeps up to 2000. */
    sf_bound lo = {.kind = SF_BOUND_INT, .i = 1982};
    sf_bound hi = {.kind = SF_BOUND_FLOAT, .f = 2000.5};
    sf_query q = {.op = SF_OP_INDEX32, .elem = sf_type_elem(SF_T_U32)}; /* .kernel NULL: the default */
    if (sf_resolve_range(SF_T_U32, &lo, 1, &hi, 1, &q.range) != SF_RANGE_OK) return 1;

    sf_run run = {.data = years, .n = 8, .stride = sizeof years[0]};
    sf_run_source src;
    sf_exec opts = {.threads = 0}; /* automatic threads, no cancel callback */
    size_t found;
    if (sf_execute(&q, sf_run_source_init(&src, &run), out, 8, &opts, &found) != SF_OK) return 1;
    printf("%zu found by sf_execute:", found);
    for (size_t i = 0; i < found; i++) printf(" %u", (unsigned)out[i]);
    printf("\n");

    printf("born 2000 or later: %zu\n", sf_count_in_range_u32(years, 8, 2000, UINT32_MAX));
    printf("kernel: %s\n", sf_active_kernel()->name);
    return 0;
}
