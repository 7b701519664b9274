/*
 * Time bounds as ticks of the data's unit (include/simdfilter_time.h): the
 * proleptic Gregorian calendar, ISO 8601 text and unit conversions, exactly,
 * by the rules of simdfilter._bounds._time_real. No Python: the CPython
 * binding (cpython/bounds_time.c) reads its objects' fields and calls these.
 */
#include <string.h>

#include "simdfilter_time.h"

#ifndef __SIZEOF_INT128__
#error "simdfilter's time arithmetic needs a compiler with __int128 (GCC or Clang, 64-bit)"
#endif

typedef __int128 wide;

/* Past every 64-bit domain: where an instant that far out is saturated. */
static const wide BEYOND = (wide)1 << 70;
static const int64_t E18 = 1000000000000000000LL;
#define DAY_AS ((wide)86400 * E18)

/* Attoseconds per tick of a fixed-length unit; 0 for years, months, generic. */
static wide unit_attoseconds(int unit) {
    switch (unit) {
    case SF_UNIT_W: return 7 * DAY_AS;
    case SF_UNIT_D: return DAY_AS;
    case SF_UNIT_h: return (wide)3600 * E18;
    case SF_UNIT_m: return (wide)60 * E18;
    case SF_UNIT_s: return E18;
    case SF_UNIT_ms: return E18 / 1000;
    case SF_UNIT_us: return E18 / 1000000;
    case SF_UNIT_ns: return 1000000000;
    case SF_UNIT_ps: return 1000000;
    case SF_UNIT_fs: return 1000;
    case SF_UNIT_as: return 1;
    default: return 0;
    }
}

/* Floor division and its remainder (0 <= rem < d), as Python's divmod; d > 0. */
static wide floordiv(wide n, wide d, wide *rem) {
    wide q = n / d, r = n % d;
    if (r < 0) {
        q -= 1;
        r += d;
    }
    if (rem)
        *rem = r;
    return q;
}

/* floor(n / d) for d > 0 in 64 bits, where an int128 division is a libgcc call. */
static int64_t floordiv64(int64_t n, int64_t d, int64_t *rem) {
    int64_t q = n / d, r = n % d;
    if (r < 0) {
        q -= 1;
        r += d;
    }
    *rem = r;
    return q;
}

static wide gcd(wide a, wide b) {
    while (b) {
        const wide t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Days from 1970-01-01 to the first of month `months` after January 1970 in
 * the proleptic Gregorian calendar (H. Hinnant's days_from_civil, as
 * _bounds._days_from_civil). |months| < 2^100: no step overflows. */
static wide days_from_months(wide months) {
    if (months < ((wide)1 << 40) && months > -((wide)1 << 40)) { /* the same in 64 bits */
        int64_t month0, era_rest;
        int64_t y = 1970 + floordiv64((int64_t)months, 12, &month0);
        const int m = (int)month0 + 1;
        y -= m <= 2;
        const int64_t era = floordiv64(y, 400, &era_rest), yoe = era_rest;
        const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5;
        return (wide)(era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468);
    }
    wide month0;
    wide y = 1970 + floordiv(months, 12, &month0);
    const int m = (int)month0 + 1;
    y -= m <= 2;
    const wide era = floordiv(y, 400, NULL);
    const wide yoe = y - era * 400;
    const wide doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5; /* the first: d - 1 = 0 */
    const wide doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The month (counted from January 1970) that day `z` is in, and its day of
 * the month (_bounds._civil_from_days). */
static wide month_of_day(wide z, int *day) {
    z += 719468;
    const wide era = floordiv(z, 146097, NULL);
    const wide doe = z - era * 146097;
    const wide yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const wide doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const wide mp = (5 * doy + 2) / 153;
    *day = (int)(doy - (153 * mp + 2) / 5 + 1);
    const int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    const wide y = yoe + era * 400 + (m <= 2);
    return (y - 1970) * 12 + m - 1;
}


/* floor(ticks * num / den) and whether it is exact, saturated at +-BEYOND.
 * 0 when the product overflows and the quotient may still be small. Units
 * are mostly powers of 1000 apart: one divides the other, in 64 bits. */
static int scale(wide ticks, wide num, wide den, wide *floor, int *exact) {
    wide p, rest = 0;
    if (num <= INT64_MAX && den <= INT64_MAX && ticks <= INT64_MAX && ticks >= -INT64_MAX) {
        const int64_t n = (int64_t)num, d = (int64_t)den;
        if (n % d == 0) {
            num = n / d;
            den = 1;
        } else if (d % n == 0) {
            int64_t r;
            *floor = floordiv64((int64_t)ticks, d / n, &r);
            *exact = r == 0;
            return 1;
        }
    }
    const wide g = den == 1 ? 1 : gcd(num, den);
    num /= g;
    den /= g;
    if (__builtin_mul_overflow(ticks, num, &p)) {
        if (den > ((wide)1 << 56))
            return 0; /* |quotient| >= 2^127 / den need not be beyond 2^70 */
        *floor = (ticks < 0) ? -BEYOND : BEYOND;
        *exact = 1;
        return 1;
    }
    *floor = den == 1 ? p : floordiv(p, den, &rest);
    *exact = den == 1 || rest == 0;
    if (*floor > BEYOND || *floor < -BEYOND)
        *floor = *floor < 0 ? -BEYOND : BEYOND;
    return 1;
}

/* The bound `v` in ticks of data in `unit` x `num` (is_dt: datetime data):
 * floor and exactness. 0: the caller's slower path decides (simdfilter._bounds
 * makes this an error, or it is out of the arithmetic's reach). */
static int data_ticks(const sf_time *v, int is_dt, int unit, int num, wide *floor, int *exact) {
    const wide per_tick = unit_attoseconds(unit);
    if (num <= 0)
        return 0;
    if (per_tick) {
        if (!v->calendar)
            return scale(v->ticks, v->per_tick, per_tick * num, floor, exact);
        if (!is_dt) /* a timedelta in months has no fixed length */
            return 0;
        if (v->ticks > ((wide)1 << 99) || v->ticks < -((wide)1 << 99)) {
            *floor = v->ticks < 0 ? -BEYOND : BEYOND;
            *exact = 1;
            return 1;
        }
        return scale(days_from_months(v->ticks), DAY_AS, per_tick * num, floor, exact);
    }
    if (unit != SF_UNIT_Y && unit != SF_UNIT_M)
        return 0; /* generic data */
    const wide months_per_tick = (unit == SF_UNIT_Y ? 12 : 1) * (wide)num;
    wide rest;
    if (v->calendar) {
        *floor = floordiv(v->ticks, months_per_tick, &rest);
        *exact = rest == 0;
        return 1;
    }
    if (!is_dt) /* a fixed length in months */
        return 0;
    wide days;
    int days_exact, day;
    if (!scale(v->ticks, v->per_tick, DAY_AS, &days, &days_exact))
        return 0;
    if (days >= BEYOND || days <= -BEYOND) {
        *floor = days;
        *exact = 1;
        return 1;
    }
    *floor = floordiv(month_of_day(days, &day), months_per_tick, &rest);
    *exact = days_exact && day == 1 && rest == 0;
    return 1;
}

/* ---- ISO 8601 text ---------------------------------------------------------------------- */

/* `n` ASCII digits at s as a number; -1 if any is no digit. */
static int64_t digits(const char *s, int n) {
    int64_t v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* The time of day after an ISO date ("THH:MM", ":SS", a fraction), added to
 * v's days: 1, or 0 if it is not of that form. */
static int iso_time(const char *s, size_t len, sf_time *v) {
    if ((s[0] != 'T' && s[0] != ' ') || len < 6 || s[3] != ':')
        return 0;
    const int64_t hour = digits(s + 1, 2), minute = digits(s + 4, 2);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59)
        return 0;
    v->ticks = v->ticks * 1440 + hour * 60 + minute;
    v->per_tick = (wide)60 * E18;
    if (len == 6)
        return 1;
    const int64_t second = len >= 9 && s[6] == ':' ? digits(s + 7, 2) : -1;
    if (second < 0 || second > 59)
        return 0;
    v->ticks = v->ticks * 60 + second;
    v->per_tick = E18;
    if (len == 9)
        return 1;
    const int frac_len = (int)(len - 10);
    const int64_t frac = (s[9] == '.' || s[9] == ',') && frac_len >= 1 && frac_len <= 18
                             ? digits(s + 10, frac_len) : -1;
    if (frac < 0)
        return 0;
    for (int i = 0; i < frac_len; i++) {
        v->ticks *= 10;
        v->per_tick /= 10;
    }
    v->ticks += frac;
    return 1;
}

/* An ISO wall time of the forms users write, read as np.datetime64(text)
 * reads it plus the fraction of a second exactly (_iso.parse_wall):
 * "YYYY", "YYYY-MM", "YYYY-MM-DD", then "T" or " ", "HH:MM", ":SS", and "."
 * or "," with 1-18 digits. Anything else (a zone, whitespace, an hour alone, a
 * sign, a day out of range, finer digits: what NumPy refuses or reads
 * otherwise) is left to the caller's slower path, whose message an error keeps
 * (simdfilter._bounds: ~20 us a bound in Fraction arithmetic and
 * warnings.catch_warnings). */
static int iso_wall(const char *s, size_t len, sf_time *v) {
    const int64_t year = len >= 4 ? digits(s, 4) : -1;
    if (year < 0 || (len != 4 && len != 7 && len < 10))
        return 0;
    if (len == 4 || len == 7) { /* a year or a month: NumPy's Y and M units */
        const int64_t month = len == 4 ? 1 : s[4] == '-' ? digits(s + 5, 2) : -1;
        if (month < 1 || month > 12)
            return 0;
        v->calendar = 1;
        v->ticks = (year - 1970) * 12 + month - 1;
        v->per_tick = 0;
        return 1;
    }
    const int64_t month = s[4] == '-' ? digits(s + 5, 2) : -1;
    const int64_t day = s[7] == '-' ? digits(s + 8, 2) : -1;
    if (month < 1 || month > 12 || day < 1)
        return 0;
    const wide first = days_from_months((year - 1970) * 12 + month - 1);
    if (day > days_from_months((year - 1970) * 12 + month) - first)
        return 0;
    v->calendar = 0;
    v->ticks = first + day - 1;
    v->per_tick = DAY_AS;
    return len == 10 || iso_time(s + 10, len - 10, v);
}

/* The UTC offset that ends an ISO string on tz-aware data, as
 * _iso.ISO_OFFSET reads it: "Z" or "z", or a sign and two digits of hours,
 * then optionally two of minutes, with or without a colon (any digits: Python
 * checks no range either). Its length, 0 for none; *seconds east of UTC. */
static size_t iso_offset(const char *s, size_t len, int64_t *seconds) {
    if (len >= 1 && (s[len - 1] == 'Z' || s[len - 1] == 'z')) {
        *seconds = 0;
        return 1;
    }
    static const struct { int len, colon; } forms[] = {{3, 0}, {5, 0}, {6, 1}}; /* +HH +HHMM +HH:MM */
    for (int f = 0; f < 3; f++) {
        if (len < (size_t)forms[f].len)
            continue;
        const size_t at = len - (size_t)forms[f].len;
        if ((s[at] != '+' && s[at] != '-') || (forms[f].colon && s[at + 3] != ':'))
            continue;
        const int64_t h = digits(s + at + 1, 2);
        const int64_t m = forms[f].len == 3 ? 0 : digits(s + at + 3 + forms[f].colon, 2);
        if (h < 0 || m < 0)
            continue;
        *seconds = (s[at] == '-' ? -1 : 1) * (h * 3600 + m * 60);
        return forms[f].len;
    }
    return 0;
}

/* ---- Building a time bound ------------------------------------------------------------- */

int sf_time_from_ticks(int64_t value, int unit, int num, sf_time *v) {
    v->calendar = unit == SF_UNIT_Y || unit == SF_UNIT_M;
    v->ticks = (wide)value * num * (unit == SF_UNIT_Y ? 12 : 1);
    v->per_tick = unit_attoseconds(unit);
    return v->calendar || v->per_tick ? 1 : 0;
}

void sf_time_from_date(int year, int month, int day, sf_time *v) {
    v->calendar = 0;
    v->ticks = days_from_months((wide)(year - 1970) * 12 + month - 1) + day - 1;
    v->per_tick = DAY_AS;
}

void sf_time_in_attoseconds(sf_time *v) {
    if (v->calendar) {
        const wide months = v->ticks;
        const wide year = (months >= 0 ? months : months - 11) / 12;
        sf_time_from_date((int)(1970 + year), (int)(months - year * 12) + 1, 1, v);
    }
    v->ticks *= v->per_tick;
    v->per_tick = 1;
}

void sf_time_from_datetime(int year, int month, int day, int hour, int minute, int second,
                           int microsecond, int64_t offset_us, sf_time *v) {
    const wide days = days_from_months((wide)(year - 1970) * 12 + month - 1) + day - 1;
    const wide secs = days * 86400 + hour * 3600 + minute * 60 + second;
    v->calendar = 0;
    v->ticks = secs * 1000000 + microsecond - offset_us;
    v->per_tick = E18 / 1000000;
}

int sf_time_from_duration(int64_t days, int64_t seconds, int64_t microseconds, sf_time *v) {
    const wide us = ((wide)days * 86400 + seconds) * 1000000 + microseconds;
    if (us > INT64_MAX || us <= INT64_MIN)
        return 0;
    v->calendar = 0;
    v->ticks = us;
    v->per_tick = E18 / 1000000;
    return 1;
}

int sf_time_parse_iso(const char *s, size_t len, int aware, sf_time *v) {
    if (!aware)
        return iso_wall(s, len, v);
    int64_t seconds = 0;
    const size_t wall = len - iso_offset(s, len, &seconds);
    if (wall == len || wall < 16 || !iso_wall(s, wall, v)) /* no offset, or no time of day */
        return 0;
    /* In the wall time's own unit where the offset is whole ones (minutes,
     * seconds, fractions of them): the data's unit is then reached in 64-bit
     * arithmetic, where attoseconds would take int128 divisions (~600 more
     * instructions a bound). */
    const wide offset_as = (wide)seconds * E18;
    if (offset_as % v->per_tick == 0) {
        v->ticks -= offset_as / v->per_tick;
    } else {
        v->ticks = v->ticks * v->per_tick - offset_as;
        v->per_tick = 1;
    }
    return 1;
}

int sf_time_bound(const sf_time *v, int is_datetime, int unit, int num, int lower, sf_bound *b,
                  int *closed) {
    wide floor;
    int exact;
    if (!data_ticks(v, is_datetime, unit, num, &floor, &exact))
        return 0;
    /* Between two ticks: "at least" is "at least the next tick", "at most" is
     * "at most this one", closed either way (as _int_at_least/_int_at_most on
     * floor + 1/2). */
    if (!exact) {
        floor += lower;
        *closed = 1;
    }
    if (floor > INT64_MAX || floor < INT64_MIN) {
        b->kind = SF_BOUND_HUGE;
        b->i = floor < 0 ? -1 : 1;
    } else {
        b->kind = SF_BOUND_INT;
        b->i = (int64_t)floor;
    }
    return 1;
}
