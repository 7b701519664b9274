/*
 * Bounds on datetime64 and timedelta64 data, read in C: np.datetime64 and
 * np.timedelta64 of any unit, datetime.datetime, date and timedelta, and
 * pandas' Timestamp, Timedelta and NaT (known by their class's name and
 * module, as simdfilter._bounds knows them; pandas is never imported here),
 * and ISO strings of the common forms (on tz-aware data, with a UTC offset).
 * Each is turned into ticks of the data's unit exactly, by the rules of
 * simdfilter._bounds._time_real: an instant between two ticks counts as the
 * half tick between them, which the library's closed/open arithmetic then
 * treats exactly as the instant itself.
 *
 * Whatever is not read here - other strings, 0-d arrays, subclasses of the
 * datetime types, units whose arithmetic could overflow, and every bound that
 * Python answers with an error - goes to Python (the reader returns 0), so an
 * error message is always Python's own.
 */
#include "binding.h"

#include <datetime.h>
#include <string.h>

typedef __int128 wide;

/* Past every 64-bit domain: where an instant that far out is saturated. */
static const wide BEYOND = (wide)1 << 70;
static const int64_t E18 = 1000000000000000000LL;
#define DAY_AS ((wide)86400 * E18)

/* Attoseconds per tick of a fixed-length unit; 0 for years, months, generic. */
static wide unit_attoseconds(int unit) {
    switch (unit) {
    case NPY_FR_W: return 7 * DAY_AS;
    case NPY_FR_D: return DAY_AS;
    case NPY_FR_h: return (wide)3600 * E18;
    case NPY_FR_m: return (wide)60 * E18;
    case NPY_FR_s: return E18;
    case NPY_FR_ms: return E18 / 1000;
    case NPY_FR_us: return E18 / 1000000;
    case NPY_FR_ns: return 1000000000;
    case NPY_FR_ps: return 1000000;
    case NPY_FR_fs: return 1000;
    case NPY_FR_as: return 1;
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

/* A time bound, exactly: `ticks` months (calendar) or ticks of `per_tick`
 * attoseconds. */
typedef struct tval {
    int calendar;
    wide ticks, per_tick;
} tval;

/* floor(ticks * num / den) and whether it is exact, saturated at +-BEYOND.
 * 0 when the product overflows and the quotient may still be small. Units
 * are mostly powers of 1000 apart: one divides the other, in 64 bits. */
static int scale(wide ticks, wide num, wide den, wide *floor, int *exact) {
    wide p, rest;
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
 * floor and exactness. 0: Python's rules make this an error (or it is out of
 * the arithmetic's reach); Python decides. */
static int data_ticks(const tval *v, int is_dt, int unit, int num, wide *floor, int *exact) {
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
    if (unit != NPY_FR_Y && unit != NPY_FR_M)
        return 0; /* generic data */
    const wide months_per_tick = (unit == NPY_FR_Y ? 12 : 1) * (wide)num;
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

/* ---- Reading the bound objects --------------------------------------------------------- */

typedef enum pandas_kind { PD_NONE, PD_TIMESTAMP, PD_TIMEDELTA, PD_NAT } pandas_kind;

static PyTypeObject *pandas_types[3]; /* Timestamp, Timedelta, NaTType once seen */
static PyObject *str_value, *str_creso, *str_utcoffset, *str_value_1x, *str_reso_1x;

int sfpy_bounds_time_init(void) {
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI)
        return -1;
    str_value = PyUnicode_InternFromString("_value");
    str_creso = PyUnicode_InternFromString("_creso");
    str_utcoffset = PyUnicode_InternFromString("utcoffset");
    str_value_1x = PyUnicode_InternFromString("value");
    str_reso_1x = PyUnicode_InternFromString("_reso");
    return str_value && str_creso && str_utcoffset && str_value_1x && str_reso_1x ? 0 : -1;
}

/* What _bounds._is_pandas and _is_pandas_nat see: the class's __name__, and a
 * __module__ that starts with "pandas". */
static pandas_kind classify_pandas(PyTypeObject *t) {
    static const char *const names[] = {"Timestamp", "Timedelta", "NaTType"};
    PyObject *name = PyObject_GetAttrString((PyObject *)t, "__name__");
    PyObject *module = name ? PyObject_GetAttrString((PyObject *)t, "__module__") : NULL;
    pandas_kind kind = PD_NONE;
    if (module && PyUnicode_Check(name) && PyUnicode_Check(module)) {
        const char *m = PyUnicode_AsUTF8(module);
        for (int i = 0; m && i < 3 && strncmp(m, "pandas", 6) == 0; i++)
            if (PyUnicode_CompareWithASCIIString(name, names[i]) == 0)
                kind = (pandas_kind)(i + 1);
    }
    PyErr_Clear();
    Py_XDECREF(name);
    Py_XDECREF(module);
    return kind;
}

/* pandas' Timestamp, Timedelta and NaT subclass datetime and timedelta. */
static pandas_kind pandas_type(PyObject *obj) {
    PyTypeObject *t = Py_TYPE(obj);
    for (int i = 0; i < 3; i++)
        if (t == pandas_types[i])
            return (pandas_kind)(i + 1);
    if (PyDateTime_CheckExact(obj) || PyDelta_CheckExact(obj) ||
        !(PyDateTime_Check(obj) || PyDelta_Check(obj)))
        return PD_NONE;
    const pandas_kind kind = classify_pandas(t);
    if (kind != PD_NONE && !pandas_types[kind - 1]) {
        Py_INCREF(t);
        pandas_types[kind - 1] = t;
    }
    return kind;
}

/* An int64 attribute; 0 if it is missing or no int64 (then Python decides).
 * pandas' `_value` and `_creso` are getsets of a Cython base class: where the
 * class keeps the generic getattr, the getter is called straight from the
 * descriptor, as PyObject_GetAttr would once it found a data descriptor, and
 * the int read without PyLong_AsLongLong's byte-array detour for a 3-digit
 * int: 335 fewer instructions per pd.Timestamp bound, of ~1,000 (callgrind,
 * CPython 3.11, pandas 3.1.1). */
static int int_attr(PyObject *obj, PyObject *name, long long *out) {
    PyTypeObject *t = Py_TYPE(obj);
    PyObject *descr = t->tp_getattro == PyObject_GenericGetAttr ? _PyType_Lookup(t, name) : NULL;
    PyObject *v;
    if (descr && Py_IS_TYPE(descr, &PyGetSetDescr_Type) &&
        ((PyGetSetDescrObject *)descr)->d_getset->get) {
        const PyGetSetDef *g = ((PyGetSetDescrObject *)descr)->d_getset;
        Py_INCREF(descr); /* borrowed from the type, which the getter could change */
        v = g->get(obj, g->closure);
        Py_DECREF(descr);
    } else {
        v = PyObject_GetAttr(obj, name);
    }
    int overflow = 0;
    if (v && PyLong_Check(v))
        *out = PyLong_AsLongLongAndOverflow(v, &overflow);
    const int got = v && PyLong_Check(v) && !overflow && !PyErr_Occurred();
    Py_XDECREF(v);
    if (!got)
        PyErr_Clear();
    return got;
}

/* The ticks and unit of a pandas Timestamp or Timedelta: `_value` and
 * `_creso` from pandas 2.0 on; pandas 1.x names them `value` and `_reso`, and
 * its public constructors only make nanosecond ones (`value` is nanoseconds:
 * any other unit is left to Python). 0 if neither pair is there. */
static int pandas_ticks(PyObject *obj, long long *ticks, long long *unit) {
    if (int_attr(obj, str_value, ticks) && int_attr(obj, str_creso, unit))
        return 1;
    return int_attr(obj, str_reso_1x, unit) && *unit == NPY_FR_ns &&
           int_attr(obj, str_value_1x, ticks);
}

/* A pandas Timestamp or Timedelta: its ticks (`_value`) in its unit (`_creso`,
 * a NumPy unit number): what its to_datetime64() / to_timedelta64() hold,
 * which is how Python reads it, without the 1-2 us those calls cost. For an
 * aware Timestamp the ticks are UTC: Python's wall time less utcoffset() is
 * the same instant (pandas derives the wall time from them), without the
 * 15 us utcoffset() costs a Timestamp. */
static int pandas_value(PyObject *obj, tval *v) {
    long long ticks, unit;
    if (!pandas_ticks(obj, &ticks, &unit) || ticks == NPY_DATETIME_NAT || unit < 0 ||
        unit > NPY_FR_as)
        return 0;
    v->calendar = 0;
    v->ticks = ticks;
    v->per_tick = unit_attoseconds((int)unit);
    return v->per_tick != 0;
}

/* A datetime.datetime as microseconds from the epoch (an aware one, with `tz`,
 * as its instant: the wall time less utcoffset(), as Python reads it). Python
 * refuses an aware one on naive data and a naive one on aware data. */
static int datetime_value(PyObject *obj, int aware, tval *v) {
    const int has_tz = _PyDateTime_HAS_TZINFO(obj) && ((PyDateTime_DateTime *)obj)->tzinfo != Py_None;
    if (has_tz != aware)
        return 0;
    const wide months = (wide)(PyDateTime_GET_YEAR(obj) - 1970) * 12 + PyDateTime_GET_MONTH(obj) - 1;
    const wide days = days_from_months(months) + PyDateTime_GET_DAY(obj) - 1;
    const wide secs = days * 86400 + PyDateTime_DATE_GET_HOUR(obj) * 3600 +
                      PyDateTime_DATE_GET_MINUTE(obj) * 60 + PyDateTime_DATE_GET_SECOND(obj);
    wide us = secs * 1000000 + PyDateTime_DATE_GET_MICROSECOND(obj);
    /* timezone.utc, the commonest tzinfo of an aware bound, needs no call. Any
     * other is asked tzinfo.utcoffset(dt) itself, which is what dt.utcoffset()
     * returns once it has checked the answer: a ZoneInfo answers in ~15 ns
     * where dt.utcoffset() takes ~230 (CPython 3.11; two bounds a call). The
     * check is made here: anything but a timedelta strictly within a day
     * (None, or what Python would refuse) goes to the Python path. */
    PyObject *tz = ((PyDateTime_DateTime *)obj)->tzinfo;
    if (aware && tz != PyDateTime_TimeZone_UTC) {
        PyObject *off = PyObject_CallMethodOneArg(tz, str_utcoffset, obj);
        if (!off || !PyDelta_Check(off) || PyDateTime_DELTA_GET_DAYS(off) < -1 ||
            PyDateTime_DELTA_GET_DAYS(off) > 0 ||
            (PyDateTime_DELTA_GET_DAYS(off) == -1 && !PyDateTime_DELTA_GET_SECONDS(off) &&
             !PyDateTime_DELTA_GET_MICROSECONDS(off))) {
            Py_XDECREF(off);
            PyErr_Clear();
            return 0;
        }
        us -= ((wide)PyDateTime_DELTA_GET_DAYS(off) * 86400 + PyDateTime_DELTA_GET_SECONDS(off)) *
                  1000000 + PyDateTime_DELTA_GET_MICROSECONDS(off);
        Py_DECREF(off);
    }
    v->calendar = 0;
    v->ticks = us;
    v->per_tick = E18 / 1000000;
    return 1;
}

/* An np.datetime64 / np.timedelta64 scalar: 1, or 2 for NaT, 0 for generic. */
static int numpy_time_value(PyObject *obj, tval *v) {
    /* Both scalar structs hold the value, then the unit, the same way. */
    const PyDatetimeScalarObject *s = (const PyDatetimeScalarObject *)obj;
    if (s->obval == NPY_DATETIME_NAT)
        return 2;
    const int unit = (int)s->obmeta.base;
    v->calendar = unit == NPY_FR_Y || unit == NPY_FR_M;
    v->ticks = (wide)s->obval * s->obmeta.num * (unit == NPY_FR_Y ? 12 : 1);
    v->per_tick = unit_attoseconds(unit);
    return v->calendar || v->per_tick ? 1 : 0;
}

/* A duration (datetime.timedelta exactly) in microseconds, where NumPy's
 * np.timedelta64(td, "us") does not wrap around (Python keeps the others). */
static int timedelta_value(PyObject *obj, tval *v) {
    const wide us = ((wide)PyDateTime_DELTA_GET_DAYS(obj) * 86400 +
                     PyDateTime_DELTA_GET_SECONDS(obj)) * 1000000 +
                    PyDateTime_DELTA_GET_MICROSECONDS(obj);
    if (us > INT64_MAX || us <= INT64_MIN)
        return 0;
    v->calendar = 0;
    v->ticks = us;
    v->per_tick = E18 / 1000000;
    return 1;
}

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
static int iso_time(const char *s, Py_ssize_t len, tval *v) {
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
 * reads it plus the fraction of a second exactly (_bounds._parse_wall):
 * "YYYY", "YYYY-MM", "YYYY-MM-DD", then "T" or " ", "HH:MM", ":SS", and "."
 * or "," with 1-18 digits. Anything else (a zone, whitespace, an hour alone, a
 * sign, a day out of range, finer digits: what NumPy refuses or reads
 * otherwise) goes to Python, whose message an error keeps. Python's path costs
 * ~20 us a bound in Fraction arithmetic and warnings.catch_warnings. */
static int iso_wall(const char *s, Py_ssize_t len, tval *v) {
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
 * _bounds._ISO_OFFSET reads it: "Z" or "z", or a sign and two digits of hours,
 * then optionally two of minutes, with or without a colon (any digits: Python
 * checks no range either). Its length, 0 for none; *seconds east of UTC. */
static Py_ssize_t iso_offset(const char *s, Py_ssize_t len, int64_t *seconds) {
    if (len >= 1 && (s[len - 1] == 'Z' || s[len - 1] == 'z')) {
        *seconds = 0;
        return 1;
    }
    static const struct { int len, colon; } forms[] = {{3, 0}, {5, 0}, {6, 1}}; /* +HH +HHMM +HH:MM */
    for (int f = 0; f < 3; f++) {
        const Py_ssize_t at = len - forms[f].len;
        if (at < 0 || (s[at] != '+' && s[at] != '-') || (forms[f].colon && s[at + 3] != ':'))
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

/* An ISO string as a bound: on naive data its wall time; on tz-aware data the
 * instant of a wall time with a UTC offset after its time of day (one without
 * is a wall time in the data's zone: Python's, with the zone's rules). */
static int iso_value(PyObject *obj, int aware, tval *v) {
    if (!PyUnicode_IS_ASCII(obj))
        return 0;
    const char *s = (const char *)PyUnicode_1BYTE_DATA(obj);
    const Py_ssize_t len = PyUnicode_GET_LENGTH(obj);
    if (!aware)
        return iso_wall(s, len, v);
    int64_t seconds;
    const Py_ssize_t wall = len - iso_offset(s, len, &seconds);
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

/* A bound on datetime data as Python's _time_value/_aware_value read it: 1
 * with *v, 2 for NaT, 0 for Python. */
static int datetime_bound(PyObject *obj, int aware, tval *v) {
    if (PyArray_IsScalar(obj, Datetime)) {
        const int got = numpy_time_value(obj, v);
        return aware && got == 1 ? 0 : got; /* an aware bound is needed */
    }
    if (PyDateTime_CheckExact(obj))
        return datetime_value(obj, aware, v);
    if (PyUnicode_CheckExact(obj))
        return iso_value(obj, aware, v);
    if (PyDate_CheckExact(obj) && !aware) {
        v->calendar = 0;
        v->ticks = days_from_months((wide)(PyDateTime_GET_YEAR(obj) - 1970) * 12 +
                                    PyDateTime_GET_MONTH(obj) - 1) +
                   PyDateTime_GET_DAY(obj) - 1;
        v->per_tick = DAY_AS;
        return 1;
    }
    switch (pandas_type(obj)) {
    case PD_NAT: return 2;
    case PD_TIMESTAMP: { /* tzinfo set or not as Python's rules want it */
        const int has_tz = _PyDateTime_HAS_TZINFO(obj) && ((PyDateTime_DateTime *)obj)->tzinfo != Py_None;
        return has_tz == aware ? pandas_value(obj, v) : 0;
    }
    default: return 0;
    }
}

/* A bound on timedelta data (_time_value): 1 with *v, 3 with an int in *ticks
 * (ticks of the data's unit), 2 for NaT, 0 for Python. */
static int timedelta_bound(PyObject *obj, tval *v, sf_bound *ticks) {
    if (PyArray_IsScalar(obj, Timedelta))
        return numpy_time_value(obj, v);
    if (PyDelta_CheckExact(obj))
        return timedelta_value(obj, v);
    if ((PyLong_Check(obj) && !PyBool_Check(obj)) || PyArray_IsScalar(obj, Integer)) {
        PyObject *as_int = PyNumber_Index(obj);
        int overflow = 0;
        const long long i = as_int ? PyLong_AsLongLongAndOverflow(as_int, &overflow) : -1;
        Py_XDECREF(as_int);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        ticks->kind = overflow ? SF_BOUND_HUGE : SF_BOUND_INT;
        ticks->i = overflow ? overflow : i; /* HUGE: the sign */
        return 3;
    }
    switch (pandas_type(obj)) {
    case PD_NAT: return 2;
    case PD_TIMEDELTA: return pandas_value(obj, v);
    default: return 0;
    }
}

/* The data's unit, from its dtype's datetime metadata. */
static void data_unit(PyArray_Descr *descr, int *unit, int *num) {
    const PyArray_DatetimeMetaData *meta =
        &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(descr))->meta;
    *unit = (int)meta->base;
    *num = meta->num;
}

int sfpy_time_bound(PyObject *obj, const column *c, int lower, sf_bound *b, int *closed,
                    int *nat) {
    const int is_dt = c->descr->type_num == NPY_DATETIME;
    b->kind = SF_BOUND_NONE;
    if (obj == NULL || obj == Py_None)
        return 1;
    if (c->tz && !is_dt)
        return 0; /* a zone on timedelta data: Python's error */
    tval v;
    const int got = is_dt ? datetime_bound(obj, c->tz != NULL, &v) : timedelta_bound(obj, &v, b);
    if (got == 2)
        *nat = 1; /* matches nothing */
    if (got != 1)
        return got ? 1 : 0;
    int unit, num, exact;
    wide floor;
    data_unit(c->descr, &unit, &num);
    if (!data_ticks(&v, is_dt, unit, num, &floor, &exact))
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
