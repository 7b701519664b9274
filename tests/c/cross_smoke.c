/*
 * The smallest program on the public C API, for the cross-compiled builds of
 * .ci/cross_os.py (macOS x86-64 and arm64, Windows x86-64): it links the whole
 * library and every kernel file of the target, and prints what dispatch chose
 * and one filter's answer. CI links it only (it cannot run those targets).
 */
#include <stdio.h>

#include "simdfilter.h"

int main(void) {
    static const uint32_t years[8] = {1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996};
    uint32_t out[8];
    const size_t k = sf_filter_indexes_u32(years, 8, 1982, 2000, out);
    char features[256];
    sf_cpu_features(features, sizeof features);
    printf("simdfilter %s: kernel %s of %d, features \"%s\"\n", SIMDFILTER_VERSION,
           sf_active_kernel()->name, sf_kernel_count(), features);
    for (size_t i = 0; i < k; i++)
        printf("%s%u", i ? " " : "positions: ", (unsigned)out[i]);
    printf("\n");
    return !(k == 3 && out[0] == 0 && out[1] == 5 && out[2] == 7);
}
