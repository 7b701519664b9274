/*
 * lib/times.c on its own: dates, wall times, durations and ISO text as ticks
 * of a data unit, against values worked out by hand (and by NumPy:
 * np.datetime64("2000-02-29", "s").astype(int) == 951782400).
 */
#include <stdio.h>
#include <string.h>

#include "simdfilter_time.h"

static int failures, checks;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        checks++;                                                                              \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                             \
        }                                                                                      \
    } while (0)

/* The bound on data of `unit` (datetime data), or a sentinel when there is none. */
static int64_t bound_of(const sf_time *v, int is_dt, int unit, int num, int lower, int *closed) {
    sf_bound b;
    *closed = 0;
    if (!sf_time_bound(v, is_dt, unit, num, lower, &b, closed))
        return -7777;
    if (b.kind == SF_BOUND_HUGE)
        return b.i < 0 ? INT64_MIN : INT64_MAX;
    return b.i;
}

static int64_t iso(const char *s, int aware, int unit, int lower, int *closed) {
    sf_time v;
    if (!sf_time_parse_iso(s, strlen(s), aware, &v))
        return -9999;
    return bound_of(&v, 1, unit, 1, lower, closed);
}

int main(void) {
    sf_time v;
    int closed;
    /* Dates, leap years included. */
    sf_time_from_date(2000, 2, 29, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_s, 1, 1, &closed) == 951782400 && !closed);
    sf_time_from_date(1969, 12, 31, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_D, 1, 1, &closed) == -1);
    sf_time_from_date(1600, 3, 1, &v); /* np.datetime64("1600-03-01").astype(int) */
    CHECK(bound_of(&v, 1, SF_UNIT_D, 1, 1, &closed) == -135080);
    CHECK(bound_of(&v, 1, SF_UNIT_M, 1, 1, &closed) == -4438 && !closed);
    /* A day within a month on month data: between two months, closed inward. */
    sf_time_from_date(1600, 3, 2, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_M, 1, 1, &closed) == -4437 && closed);
    CHECK(bound_of(&v, 1, SF_UNIT_M, 1, 0, &closed) == -4438 && closed);
    sf_time_from_date(2024, 1, 1, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_Y, 1, 1, &closed) == 54 && !closed);
    /* A wall time less its UTC offset; a half-second on second data. */
    sf_time_from_datetime(1970, 1, 1, 1, 0, 0, 500000, 3600LL * 1000000, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_s, 1, 1, &closed) == 1 && closed);
    CHECK(bound_of(&v, 1, SF_UNIT_s, 1, 0, &closed) == 0 && closed);
    CHECK(bound_of(&v, 1, SF_UNIT_ns, 1, 1, &closed) == 500000000 && !closed);
    /* 10-second ticks. */
    sf_time_from_datetime(1970, 1, 1, 0, 0, 25, 0, 0, &v);
    CHECK(bound_of(&v, 1, SF_UNIT_s, 10, 1, &closed) == 3 && closed);
    /* Durations: within int64 microseconds or not at all; none on month data. */
    CHECK(sf_time_from_duration(1, 1, 1, &v));
    CHECK(bound_of(&v, 0, SF_UNIT_us, 1, 1, &closed) == 86401000001LL);
    CHECK(bound_of(&v, 0, SF_UNIT_M, 1, 1, &closed) == -7777);
    CHECK(!sf_time_from_duration(999999999, 0, 0, &v));
    /* Ticks of NumPy scalars: months are calendar, generic is none. */
    CHECK(sf_time_from_ticks(2, SF_UNIT_Y, 1, &v) && v.calendar && v.ticks == 24);
    CHECK(bound_of(&v, 1, SF_UNIT_D, 1, 1, &closed) == 730);
    CHECK(bound_of(&v, 0, SF_UNIT_D, 1, 1, &closed) == -7777); /* a month has no length */
    CHECK(!sf_time_from_ticks(5, SF_UNIT_GENERIC, 1, &v));
    CHECK(sf_time_from_ticks(3, SF_UNIT_ms, 1, &v));
    CHECK(bound_of(&v, 0, SF_UNIT_s, 1, 1, &closed) == 1 && closed);
    CHECK(bound_of(&v, 0, SF_UNIT_s, 1, 0, &closed) == 0 && closed);
    /* Far out: saturated, never wrapped. */
    CHECK(sf_time_from_ticks(INT64_MAX, SF_UNIT_Y, 1, &v));
    CHECK(bound_of(&v, 1, SF_UNIT_as, 1, 1, &closed) == INT64_MAX);
    CHECK(sf_time_from_ticks(INT64_MIN + 1, SF_UNIT_D, 1, &v));
    CHECK(bound_of(&v, 1, SF_UNIT_ns, 1, 1, &closed) == INT64_MIN);
    /* ISO text: the forms read, and those left to the caller. */
    CHECK(iso("2000-02-29", 0, SF_UNIT_s, 1, &closed) == 951782400);
    CHECK(iso("2000-02-30", 0, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("1970", 0, SF_UNIT_D, 1, &closed) == 0);
    CHECK(iso("1970-02", 0, SF_UNIT_D, 1, &closed) == 31);
    CHECK(iso("1970-01-01T00:01", 0, SF_UNIT_s, 1, &closed) == 60);
    CHECK(iso("1970-01-01 00:00:01", 0, SF_UNIT_ms, 1, &closed) == 1000);
    CHECK(iso("1970-01-01T00:00:00.0000000015", 0, SF_UNIT_ns, 1, &closed) == 2 && closed);
    CHECK(iso("1970-01-01T00:00:00,25", 0, SF_UNIT_ms, 0, &closed) == 250 && !closed);
    CHECK(iso("1970-01-01T24:00", 0, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("1970-01-01T00", 0, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("197", 0, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("", 0, SF_UNIT_s, 1, &closed) == -9999);
    /* Aware: an offset after a time of day, and nothing else. */
    CHECK(iso("1970-01-01T05:00+05:00", 1, SF_UNIT_s, 1, &closed) == 0);
    CHECK(iso("1970-01-01T00:00-0130", 1, SF_UNIT_m, 1, &closed) == 90);
    CHECK(iso("1970-01-01T00:00:00.5Z", 1, SF_UNIT_s, 1, &closed) == 1 && closed);
    CHECK(iso("1970-01-01T00:00+01", 1, SF_UNIT_h, 1, &closed) == -1);
    CHECK(iso("1970-01-01T00:00", 1, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("1970-01-01Z", 1, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("Z", 1, SF_UNIT_s, 1, &closed) == -9999);
    CHECK(iso("+01", 1, SF_UNIT_s, 1, &closed) == -9999);
    printf("TOTAL checks=%d failures=%d status=%s\n", checks, failures, failures ? "FAIL" : "OK");
    return failures != 0;
}
