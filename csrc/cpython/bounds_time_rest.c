/*
 * The time bounds bounds_time.c's readers leave, read by the same rules: ISO
 * strings of the forms lib/times.c does not read (NumPy parses them, the
 * fraction of a second read apart, exactly), wall times on tz-aware data (the
 * zone's rules, through the standard library's zoneinfo: bounds_zones.c),
 * subclasses of the datetime types, pandas objects in units the fast readers
 * do not take, and every time bound refused, in the words the tests and users
 * match.
 *
 * Only the standard library (re, warnings, datetime, zoneinfo, numbers), NumPy
 * and the bound objects' own methods are called here, never the package: the
 * slow path of a bound is still one call into C (issue 44).
 */
#include "binding.h"

#include <datetime.h>
#include <string.h>

#include "simdfilter_time.h"

#define E18 1000000000000000000LL
#define AS_PER_US 1000000000000LL

/* A wall or an instant read here: the time, and whether the instant lies
 * strictly after it by less than an attosecond (digits past 18 of a second). */
typedef struct rest_time {
    sf_time v;
    int after;
} rest_time;

/* A TypeError naming the bound's type (format: one %U). -1. */
static int refuse_type(const char *format, PyObject *obj) {
    PyObject *name = sfpy_type_name(obj);
    if (name) {
        PyErr_Format(PyExc_TypeError, format, name);
        Py_DECREF(name);
    }
    return -1;
}

static int is_pandas(PyObject *obj, const char *name) {
    PyObject *n = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
    PyObject *mod = n ? PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__") : NULL;
    int is = 0;
    if (mod && PyUnicode_Check(n) && PyUnicode_Check(mod)) {
        const char *ms = PyUnicode_AsUTF8(mod);
        is = ms && strncmp(ms, "pandas", 6) == 0 && PyUnicode_CompareWithASCIIString(n, name) == 0;
    }
    PyErr_Clear();
    Py_XDECREF(n);
    Py_XDECREF(mod);
    return is;
}

/* ---- Reading ---------------------------------------------------------------------------- */

/* An np.datetime64/np.timedelta64 scalar: 1, 2 for NaT, or -1 with the
 * TypeError of a generic unit. */
static int numpy_time(PyObject *obj, rest_time *t) {
    const PyDatetimeScalarObject *s = (const PyDatetimeScalarObject *)obj;
    t->after = 0;
    if (s->obval == NPY_DATETIME_NAT)
        return 2;
    if (!sf_time_from_ticks(s->obval, (int)s->obmeta.base, s->obmeta.num, &t->v)) {
        PyErr_SetString(PyExc_TypeError,
                        "a generic (unitless) datetime64/timedelta64 bound has no unit to compare in");
        return -1;
    }
    return 1;
}

/* A datetime's naive wall time (its fields, as np.datetime64(dt, "us") reads
 * them) less `offset_us`. */
static void datetime_fields(PyObject *obj, int64_t offset_us, sf_time *v) {
    sf_time_from_datetime(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj),
                          PyDateTime_GET_DAY(obj), PyDateTime_DATE_GET_HOUR(obj),
                          PyDateTime_DATE_GET_MINUTE(obj), PyDateTime_DATE_GET_SECOND(obj),
                          PyDateTime_DATE_GET_MICROSECOND(obj), offset_us, v);
}

/* obj.utcoffset() in microseconds: 1, 0 for None, -1 with Python's error. */
static int utcoffset_us(PyObject *obj, int64_t *us) {
    PyObject *off = PyObject_CallMethod(obj, "utcoffset", NULL);
    if (!off)
        return -1;
    const int got = off != Py_None;
    if (got && !PyDelta_Check(off)) {
        Py_DECREF(off);
        PyErr_SetString(PyExc_TypeError, "utcoffset() returned no timedelta");
        return -1;
    }
    if (got)
        *us = sfpy_delta_us(off);
    Py_DECREF(off);
    return got;
}

/* Whether obj.tzinfo is not None: 1, 0, -1. */
static int has_tzinfo(PyObject *obj) {
    PyObject *tz = PyObject_GetAttrString(obj, "tzinfo");
    const int has = tz ? tz != Py_None : -1;
    Py_XDECREF(tz);
    return has;
}

/* A method returning an np.datetime64/np.timedelta64 (to_datetime64() ...), read. */
static int via_numpy(PyObject *obj, const char *method, rest_time *t) {
    PyObject *v = PyObject_CallMethod(obj, method, NULL);
    if (!v)
        return -1;
    int got;
    if (PyArray_IsScalar(v, Datetime) || PyArray_IsScalar(v, Timedelta)) {
        got = numpy_time(v, t);
    } else {
        PyErr_Format(PyExc_TypeError, "%s() returned no NumPy time scalar", method);
        got = -1;
    }
    Py_DECREF(v);
    return got;
}

/* ISO text as a wall time (_iso.parse_wall before issue 44): NumPy reads the
 * text without its fraction of a second, whose digits are read apart, exactly
 * (NumPy would parse 2013 in picoseconds, which wraps around int64); past 18
 * digits only whether one is nonzero counts. 1, 2 for NaT, -1. */
static int parse_wall(PyObject *text, PyObject *original, rest_time *t) {
    PyObject *stripped = PyObject_CallMethod(text, "strip", NULL);
    if (!stripped)
        return -1;
    int64_t extra = 0;
    t->after = 0;
    PyObject *m = sfpy_re_match("^(?P<head>.*\\d{2}:\\d{2}:\\d{2})[.,](?P<frac>\\d+)(?P<tail>.*)$",
                           stripped);
    if (!m)
        goto fail;
    if (m != Py_None) {
        PyObject *head = sfpy_re_group(m, "head"), *frac = head ? sfpy_re_group(m, "frac") : NULL;
        PyObject *tail = frac ? sfpy_re_group(m, "tail") : NULL;
        PyObject *joined = tail ? PyUnicode_Concat(head, tail) : NULL;
        PyObject *first = joined ? PyUnicode_Substring(frac, 0, 18) : NULL;
        PyObject *padded = first ? PyObject_CallMethod(first, "ljust", "is", 18, "0") : NULL;
        PyObject *digits = padded ? PyLong_FromUnicodeObject(padded, 10) : NULL;
        const Py_ssize_t n = frac ? PyUnicode_GET_LENGTH(frac) : 0;
        PyObject *rest = digits && n > 18 ? PyUnicode_Substring(frac, 18, n) : NULL;
        PyObject *nonzero = rest ? PyObject_CallMethod(rest, "strip", "s", "0") : NULL;
        if (digits)
            extra = PyLong_AsLongLong(digits);
        t->after = nonzero && PyUnicode_GET_LENGTH(nonzero) > 0;
        const int ok = digits && (n <= 18 || nonzero);
        if (ok)
            Py_SETREF(stripped, sfpy_new_ref(joined));
        Py_XDECREF(head);
        Py_XDECREF(frac);
        Py_XDECREF(tail);
        Py_XDECREF(joined);
        Py_XDECREF(first);
        Py_XDECREF(padded);
        Py_XDECREF(digits);
        Py_XDECREF(rest);
        Py_XDECREF(nonzero);
        if (!ok)
            goto fail;
    }
    Py_DECREF(m);
    PyObject *lower = PyObject_CallMethod(stripped, "lower", NULL);
    if (!lower)
        goto fail_text;
    const int nat = PyUnicode_CompareWithASCIIString(lower, "nat") == 0 ||
                    PyUnicode_GET_LENGTH(lower) == 0;
    Py_DECREF(lower);
    if (nat) { /* NumPy's NaT strings */
        Py_DECREF(stripped);
        return 2;
    }
    /* NumPy only warns when it drops a timezone ('Z', '+01:00'): refused. */
    PyObject *catch = sfpy_stdlib("warnings", "catch_warnings");
    PyObject *cm = catch ? PyObject_CallNoArgs(catch) : NULL;
    Py_XDECREF(catch);
    PyObject *entered = cm ? PyObject_CallMethod(cm, "__enter__", NULL) : NULL;
    PyObject *simple = entered ? sfpy_stdlib("warnings", "simplefilter") : NULL;
    PyObject *set = simple ? PyObject_CallFunction(simple, "s", "error") : NULL;
    Py_XDECREF(entered);
    Py_XDECREF(simple);
    PyObject *v = set ? PyObject_CallOneArg((PyObject *)&PyDatetimeArrType_Type, stripped) : NULL;
    Py_XDECREF(set);
    if (cm) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *out = PyObject_CallMethod(cm, "__exit__", "OOO", Py_None, Py_None, Py_None);
        Py_XDECREF(out);
        if (out)
            PyErr_Restore(type, value, tb);
        else {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
        }
        Py_DECREF(cm);
    }
    Py_DECREF(stripped);
    if (!v) {
        if (PyErr_ExceptionMatches(PyExc_UserWarning) ||
            PyErr_ExceptionMatches(PyExc_DeprecationWarning)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "%R has a timezone; datetime64 data are naive: give the bound in the "
                         "data's own time",
                         original);
        } else if (PyErr_ExceptionMatches(PyExc_ValueError)) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            PyErr_NormalizeException(&type, &value, &tb);
            PyErr_Format(PyExc_ValueError, "cannot read %R as a datetime64 bound: %S", original,
                         value);
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
        }
        return -1;
    }
    const int after = t->after;
    const int got = PyArray_IsScalar(v, Datetime) ? numpy_time(v, t) : -1;
    Py_DECREF(v);
    t->after = after;
    if (got == 1 && (extra || t->after)) {
        sf_time_in_attoseconds(&t->v);
        t->v.ticks += extra;
    }
    return got;
fail:
    Py_XDECREF(m);
fail_text:
    Py_DECREF(stripped);
    return -1;
}

/* ---- The bounds ----------------------------------------------------------------------- */

/* A string on tz-aware data (_iso.parse_aware before issue 44): a wall time
 * with the UTC offset it ends with, or one in the data's zone. */
static int aware_string(PyObject *obj, PyObject *tz, rest_time *t) {
    PyObject *stripped = PyObject_CallMethod(obj, "strip", NULL);
    PyObject *m =
        stripped ? sfpy_re_match("^(?P<wall>.*[T ]\\d{2}(?::?\\d{2}){0,2}(?:[.,]\\d+)?)\\s*"
                            "(?:(?P<z>[Zz])|(?P<sign>[+-])(?P<h>\\d{2})(?::?(?P<m>\\d{2}))?)$",
                            stripped)
                 : NULL;
    Py_XDECREF(stripped);
    if (!m)
        return -1;
    PyObject *wall = m == Py_None ? sfpy_new_ref(obj) : sfpy_re_group(m, "wall");
    int got = wall ? parse_wall(wall, obj, t) : -1;
    Py_XDECREF(wall);
    if (got < 0 && PyErr_ExceptionMatches(PyExc_TypeError)) { /* an offset NumPy would drop */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        PyErr_Format(PyExc_ValueError, "cannot read %R as a datetime bound: %S", obj, value);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
    int64_t offset_s = 0, offset_us = 0;
    if (got == 1 && m == Py_None) {
        got = sfpy_wall_offset(&t->v, tz, obj, &offset_us) < 0 ? -1 : 1;
    } else if (got == 1) {
        PyObject *z = sfpy_re_group(m, "z"), *sign = z ? sfpy_re_group(m, "sign") : NULL;
        PyObject *h = sign ? sfpy_re_group(m, "h") : NULL, *mm = h ? sfpy_re_group(m, "m") : NULL;
        if (!mm) {
            got = -1;
        } else if (z == Py_None) {
            PyObject *hi = PyLong_FromUnicodeObject(h, 10);
            PyObject *mi = hi ? (mm == Py_None ? PyLong_FromLong(0)
                                               : PyLong_FromUnicodeObject(mm, 10))
                              : NULL;
            if (mi)
                offset_s = (PyLong_AsLongLong(hi) * 3600 + PyLong_AsLongLong(mi) * 60) *
                           (PyUnicode_CompareWithASCIIString(sign, "-") == 0 ? -1 : 1);
            got = mi ? 1 : -1;
            Py_XDECREF(hi);
            Py_XDECREF(mi);
        }
        Py_XDECREF(z);
        Py_XDECREF(sign);
        Py_XDECREF(h);
        Py_XDECREF(mm);
    }
    Py_DECREF(m);
    if (got == 1) {
        sf_time_in_attoseconds(&t->v);
        t->v.ticks -= (__int128)offset_s * E18 + (__int128)offset_us * AS_PER_US;
    }
    return got;
}

/* A bound on tz-aware datetime data (_bounds._aware_value before issue 44). */
static int aware_bound(sfpy_state *st, PyObject *obj, PyObject *tz, rest_time *t) {
    t->after = 0;
    if (sfpy_is_pandas_nat(st, obj) ||
        (PyArray_IsScalar(obj, Datetime) &&
         ((const PyDatetimeScalarObject *)obj)->obval == NPY_DATETIME_NAT))
        return 2;
    if (PyUnicode_Check(obj))
        return aware_string(obj, tz, t);
    if (is_pandas(obj, "Timestamp") || PyDateTime_Check(obj)) {
        int64_t off = 0;
        const int has = utcoffset_us(obj, &off);
        if (has < 0)
            return -1;
        if (!has) {
            PyObject *name = sfpy_type_name(obj);
            if (name)
                PyErr_Format(PyExc_TypeError,
                             "Invalid comparison between datetime64 data with time zone %R and "
                             "a naive %U: localize the bound (e.g. Timestamp.tz_localize) or "
                             "give it with a UTC offset",
                             tz, name);
            Py_XDECREF(name);
            return -1;
        }
        if (!is_pandas(obj, "Timestamp")) {
            datetime_fields(obj, off, &t->v);
            return 1;
        }
        PyObject *replace = PyObject_GetAttrString(obj, "replace");
        PyObject *kw = replace ? Py_BuildValue("{s:O}", "tzinfo", Py_None) : NULL;
        PyObject *e = kw ? PyTuple_New(0) : NULL;
        PyObject *naive = e ? PyObject_Call(replace, e, kw) : NULL;
        Py_XDECREF(replace);
        Py_XDECREF(kw);
        Py_XDECREF(e);
        const int got = naive ? via_numpy(naive, "to_datetime64", t) : -1;
        Py_XDECREF(naive);
        if (got == 1) {
            sf_time_in_attoseconds(&t->v);
            t->v.ticks -= (__int128)off * AS_PER_US;
        }
        return got;
    }
    if (PyArray_IsScalar(obj, Datetime) || PyDate_Check(obj)) {
        PyObject *name = sfpy_type_name(obj);
        if (name)
            PyErr_Format(PyExc_TypeError,
                         "Invalid comparison between datetime64 data with time zone %R and a "
                         "%U, which has no time zone: give an aware Timestamp or datetime, or "
                         "an ISO string",
                         tz, name);
        Py_XDECREF(name);
        return -1;
    }
    return refuse_type("bounds on datetime64 data with a time zone must be an aware "
                       "pandas.Timestamp or datetime, an ISO string or None, not %U",
                       obj);
}

/* A bound on naive datetime data (_bounds._time_value before issue 44). */
static int naive_bound(sfpy_state *st, PyObject *obj, rest_time *t) {
    t->after = 0;
    if (sfpy_is_pandas_nat(st, obj))
        return 2;
    if (PyArray_IsScalar(obj, Datetime))
        return numpy_time(obj, t);
    if (PyUnicode_Check(obj))
        return parse_wall(obj, obj, t);
    if (is_pandas(obj, "Timestamp")) {
        const int has = has_tzinfo(obj);
        if (has > 0)
            PyErr_SetString(PyExc_TypeError,
                            "a timezone-aware Timestamp cannot bound naive datetime64 data; "
                            "convert it with .tz_convert(None) first");
        return has ? -1 : via_numpy(obj, "to_datetime64", t);
    }
    if (PyDateTime_Check(obj)) {
        const int has = has_tzinfo(obj);
        if (has > 0)
            PyErr_SetString(PyExc_TypeError,
                            "a timezone-aware datetime cannot bound naive datetime64 data");
        if (has)
            return -1;
        datetime_fields(obj, 0, &t->v);
        return 1;
    }
    if (PyDate_Check(obj)) {
        sf_time_from_date(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj),
                          PyDateTime_GET_DAY(obj), &t->v);
        return 1;
    }
    return refuse_type("bounds on datetime64 data must be np.datetime64, datetime, date, "
                       "pandas.Timestamp, an ISO string or None, not %U",
                       obj);
}

/* A bound on timedelta data (_bounds._time_value before issue 44): 1 with a
 * duration, 3 with ticks of the data's unit in *b, 2 for NaT, -1. */
static int timedelta_rest(sfpy_state *st, PyObject *obj, rest_time *t, sf_bound *b) {
    t->after = 0;
    if (sfpy_is_pandas_nat(st, obj))
        return 2;
    if (PyArray_IsScalar(obj, Timedelta))
        return numpy_time(obj, t);
    if (is_pandas(obj, "Timedelta"))
        return via_numpy(obj, "to_timedelta64", t);
    if (PyDelta_Check(obj)) {
        /* As np.timedelta64(td, "us") converts it: in int64, wrapping around. */
        const uint64_t us = ((uint64_t)(int64_t)PyDateTime_DELTA_GET_DAYS(obj) * 86400u +
                             (uint64_t)(int64_t)PyDateTime_DELTA_GET_SECONDS(obj)) *
                                1000000u +
                            (uint64_t)(int64_t)PyDateTime_DELTA_GET_MICROSECONDS(obj);
        int64_t wrapped;
        memcpy(&wrapped, &us, sizeof wrapped);
        if (wrapped == NPY_DATETIME_NAT)
            return 2;
        sf_time_from_ticks(wrapped, SF_UNIT_us, 1, &t->v);
        return 1;
    }
    const int integral = PyArray_IsScalar(obj, Datetime) ? 0 : sfpy_instance_of(obj, "numbers", "Integral");
    if (integral < 0)
        return -1;
    if (!integral)
        return refuse_type("bounds on timedelta64 data must be np.timedelta64, "
                           "datetime.timedelta, pandas.Timedelta, an int or bool (ticks of the "
                           "data's unit) or None, not %U",
                           obj);
    PyObject *as_int = PyNumber_Long(obj);
    if (!as_int)
        return -1;
    int overflow = 0;
    const long long i = PyLong_AsLongLongAndOverflow(as_int, &overflow);
    Py_DECREF(as_int);
    if (i == -1 && PyErr_Occurred())
        return -1;
    if (!overflow && i == INT64_MIN)
        return 2; /* NumPy reads -2**63 as NaT */
    b->kind = overflow ? SF_BOUND_HUGE : SF_BOUND_INT;
    b->i = overflow ? overflow : i;
    return 3;
}

int sfpy_time_unit_refused(const struct sf_time *v, const column *c) {
    const PyArray_DatetimeMetaData *meta =
        &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(c->descr))->meta;
    const int calendar_data = meta->base == NPY_FR_Y || meta->base == NPY_FR_M;
    if (meta->base == NPY_FR_GENERIC)
        PyErr_Format(PyExc_TypeError, "%S data has no unit to compare bounds in", c->descr);
    else if (c->descr->type_num == NPY_TIMEDELTA && v->calendar && !calendar_data)
        PyErr_Format(PyExc_TypeError,
                     "a timedelta64 in years or months has no fixed length in %S units", c->descr);
    else if (c->descr->type_num == NPY_TIMEDELTA && !v->calendar && calendar_data)
        PyErr_Format(PyExc_TypeError, "a fixed-length timedelta has no exact length in %S units",
                     c->descr);
    else
        PyErr_Format(PyExc_OverflowError,
                     "a time bound beyond the exact arithmetic of this build in %S units", c->descr);
    return -1;
}

int sfpy_time_bound_rest(PyObject *obj, const column *c, int lower, sf_bound *b, int *closed,
                         int *nat) {
    const int is_dt = c->descr->type_num == NPY_DATETIME;
    rest_time t;
    int got;
    if (!PyDateTimeAPI) {
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    if (c->tz && !is_dt) {
        PyErr_Format(PyExc_ValueError, "a time zone applies to datetime64 data, not %S", c->descr);
        return -1;
    }
    if (sfpy_time_of_day(c)) {
        return refuse_type("bounds on time-of-day data must be naive datetime.time or None, "
                           "not %U",
                           obj);
    }
    if (is_dt)
        got = c->tz ? aware_bound(c->st, obj, c->tz, &t) : naive_bound(c->st, obj, &t);
    else
        got = timedelta_rest(c->st, obj, &t, b);
    if (got < 0)
        return -1;
    if (got == 2)
        *nat = 1;
    if (got != 1)
        return 1;
    const PyArray_DatetimeMetaData *meta =
        &((PyArray_DatetimeDTypeMetaData *)PyDataType_C_METADATA(c->descr))->meta;
    int exact_closed = 0;
    if (!sf_time_bound(&t.v, is_dt, (int)meta->base, meta->num, lower, b, &exact_closed))
        return sfpy_time_unit_refused(&t.v, c);
    if (exact_closed) {
        *closed = 1;
    } else if (t.after) {
        /* just after a tick of the data or between two: at least the next, at most this */
        *closed = 1;
        if (lower && b->kind == SF_BOUND_INT && b->i < INT64_MAX)
            b->i += 1;
        else if (lower && b->kind == SF_BOUND_INT)
            b->kind = SF_BOUND_HUGE, b->i = 1;
    }
    return 1;
}
