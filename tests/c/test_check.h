/*
 * The check of the seeded test programs (test_sorted.c, test_frame.c,
 * test_packed.c): CHECK(cond, fmt, ...) counts a check and, for the first 20
 * that fail, prints where, the condition, the seed (set seed_used before the
 * checks) and a message. Each program includes it once, after test_common.h,
 * and ends with its own summary of `checks` and `failures`.
 */
#ifndef SIMDFILTER_TEST_CHECK_H
#define SIMDFILTER_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>

static int failures, checks;
static uint64_t seed_used;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond) && failures++ < 20) {                                                      \
            printf("FAIL %s:%d: %s (seed %llu): ", __FILE__, __LINE__, #cond,                  \
                   (unsigned long long)seed_used);                                             \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

#endif
