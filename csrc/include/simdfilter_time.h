/*
 * Time bounds on int64 tick data (datetime64/timedelta64 of any unit, Arrow
 * timestamps and durations): calendar dates, times of day, ISO 8601 text and
 * tick counts of one unit turned into ticks of the data's unit, exactly. No
 * Python here: a binding reads the fields out of its objects and hands them
 * over. An instant between two ticks counts as the half tick between them,
 * which sf_resolve_range's closed/open arithmetic then treats exactly as the
 * instant itself.
 *
 * The arithmetic is on 128-bit integers (GCC and Clang, 64-bit targets), as
 * lib/bounds.c's is.
 */
#ifndef SIMDFILTER_TIME_H
#define SIMDFILTER_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "simdfilter.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The units of a tick, numbered as NumPy's NPY_DATETIMEUNIT numbers them (the
 * CPython binding checks that they agree); SF_UNIT_GENERIC has no length. */
typedef enum sf_time_unit {
    SF_UNIT_Y = 0,
    SF_UNIT_M = 1,
    SF_UNIT_W = 2,
    SF_UNIT_D = 4,
    SF_UNIT_h = 5,
    SF_UNIT_m = 6,
    SF_UNIT_s = 7,
    SF_UNIT_ms = 8,
    SF_UNIT_us = 9,
    SF_UNIT_ns = 10,
    SF_UNIT_ps = 11,
    SF_UNIT_fs = 12,
    SF_UNIT_as = 13,
    SF_UNIT_GENERIC = 14
} sf_time_unit;

/* A time bound, exactly: `ticks` months from January 1970 (calendar: years
 * and months have no fixed length), or `ticks` of `per_tick` attoseconds
 * (from the epoch for an instant). */
typedef struct sf_time {
    int calendar;
    __int128 ticks, per_tick;
} sf_time;

/* `value` ticks of `num` x `unit` (a NumPy datetime64/timedelta64 scalar, or
 * num = 1 for a pandas Timestamp's `_value` in its `_creso`): 1, or 0 for a
 * generic unit. */
int sf_time_from_ticks(int64_t value, int unit, int num, sf_time *v);

/* A proleptic Gregorian date (month 1-12, day 1-31, unchecked) as days. */
void sf_time_from_date(int year, int month, int day, sf_time *v);

/* v as attoseconds from the epoch (per_tick 1; a calendar time through its
 * month's first day). */
void sf_time_in_attoseconds(sf_time *v);

/* A wall time (a datetime.datetime's fields) less `offset_us` (its UTC offset,
 * 0 for a naive one) as microseconds from the epoch. */
void sf_time_from_datetime(int year, int month, int day, int hour, int minute, int second,
                           int microsecond, int64_t offset_us, sf_time *v);

/* A duration (a datetime.timedelta's fields) in microseconds: 1, or 0 where
 * NumPy's np.timedelta64(td, "us") would wrap around (beyond int64). */
int sf_time_from_duration(int64_t days, int64_t seconds, int64_t microseconds, sf_time *v);

/* ISO 8601 text of the forms users write, read as np.datetime64(text) reads
 * it plus the fraction of a second exactly: "YYYY", "YYYY-MM", "YYYY-MM-DD",
 * then "T" or " ", "HH:MM", ":SS", and "." or "," with 1-18 digits. With
 * `aware` (tz-aware data) the text must end with a UTC offset after a time of
 * day ("Z", "+HH", "+HHMM", "+HH:MM"), and v is the instant. 1, or 0 for any
 * other form (a binding's slower path decides). */
int sf_time_parse_iso(const char *s, size_t len, int aware, sf_time *v);

/* One end (`lower`: the low one) of a range on int64 tick data of `num` x
 * `unit` (`is_datetime`: instants; else durations) as an exact bound: 1 with
 * *b filled (*closed becomes 1 for a bound between two ticks), or 0 where the
 * bound has no answer here (a calendar duration on fixed-length data, a
 * fixed duration on calendar data, generic data, or arithmetic beyond reach). */
int sf_time_bound(const sf_time *v, int is_datetime, int unit, int num, int lower, sf_bound *b,
                  int *closed);

#ifdef __cplusplus
}
#endif
#endif /* SIMDFILTER_TIME_H */
