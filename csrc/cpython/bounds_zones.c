/*
 * Wall times in a named zone (bounds_time_rest.c's readers on tz-aware data):
 * the zone a name stands for (a fixed offset, UTC, or the standard library's
 * zoneinfo) and the UTC offset of a wall time there, both folds tried, so that
 * a wall time a clock change skips or repeats is refused as pandas refuses it.
 */
#include "binding.h"

#include <datetime.h>

#include "simdfilter_time.h"

#define AS_PER_US 1000000000000LL

/* The tzinfo a zone name stands for: a fixed offset ('+01:00', 'UTC+01:00'),
 * UTC, or a named zone (zoneinfo). New, or NULL with a ValueError. */
static PyObject *zone_of(PyObject *tz) {
    PyObject *m = sfpy_re_match("^(?:UTC|GMT)?(?P<sign>[+-])(?P<h>\\d{2})(?::?(?P<m>\\d{2}))?$", tz);
    if (!m)
        return NULL;
    if (m != Py_None) {
        PyObject *sign = sfpy_re_group(m, "sign"), *h = sign ? sfpy_re_group(m, "h") : NULL;
        PyObject *mm = h ? sfpy_re_group(m, "m") : NULL;
        PyObject *hi = mm ? PyLong_FromUnicodeObject(h, 10) : NULL;
        PyObject *mi = hi ? (mm == Py_None ? PyLong_FromLong(0) : PyLong_FromUnicodeObject(mm, 10))
                          : NULL;
        PyObject *zone = NULL;
        if (mi) {
            const long minutes = PyLong_AsLong(hi) * 60 + PyLong_AsLong(mi);
            const int neg = PyUnicode_CompareWithASCIIString(sign, "-") == 0;
            PyObject *d = PyDelta_FromDSU(0, (int)((neg ? -minutes : minutes) * 60), 0);
            zone = d ? PyTimeZone_FromOffset(d) : NULL;
            Py_XDECREF(d);
        }
        Py_XDECREF(sign);
        Py_XDECREF(h);
        Py_XDECREF(mm);
        Py_XDECREF(hi);
        Py_XDECREF(mi);
        Py_DECREF(m);
        return zone;
    }
    Py_DECREF(m);
    PyObject *upper = PyObject_CallMethod(tz, "upper", NULL);
    if (!upper)
        return NULL;
    const int utc = PyUnicode_CompareWithASCIIString(upper, "UTC") == 0 ||
                    PyUnicode_CompareWithASCIIString(upper, "Z") == 0 ||
                    PyUnicode_CompareWithASCIIString(upper, "GMT") == 0;
    Py_DECREF(upper);
    if (utc)
        return sfpy_new_ref(PyDateTime_TimeZone_UTC);
    PyObject *zi = sfpy_stdlib("zoneinfo", "ZoneInfo");
    PyObject *zone = zi ? PyObject_CallOneArg(zi, tz) : NULL;
    Py_XDECREF(zi);
    if (!zone) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *missing = sfpy_stdlib("zoneinfo", "ZoneInfoNotFoundError");
        const int unknown = missing && (PyErr_GivenExceptionMatches(type, missing) ||
                                        PyErr_GivenExceptionMatches(type, PyExc_ValueError));
        Py_XDECREF(missing);
        if (unknown || !missing) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            if (unknown)
                PyErr_Format(PyExc_ValueError,
                             "unknown time zone %R (no such zone in the time zone database)", tz);
        } else {
            PyErr_Restore(type, value, tb);
        }
    }
    return zone;
}

/* The UTC offset (microseconds) of the wall time `wall` in zone `tz`. A wall
 * time that a clock change skips or repeats has no single instant: ValueError,
 * where pandas refuses the comparison too. 0 or -1. */
int sfpy_wall_offset(const sf_time *wall, PyObject *tz, PyObject *text, int64_t *offset_us) {
    if (!PyDateTimeAPI) { /* this file's own copy of the datetime C API */
        PyDateTime_IMPORT;
        if (!PyDateTimeAPI)
            return -1;
    }
    PyObject *zone = zone_of(tz);
    if (!zone)
        return -1;
    if (PyObject_TypeCheck(zone, Py_TYPE(PyDateTime_TimeZone_UTC))) {
        /* a datetime.timezone, a fixed offset: no rules to look up */
        PyObject *off = PyObject_CallMethod(zone, "utcoffset", "O", Py_None);
        Py_DECREF(zone);
        if (!off)
            return -1;
        *offset_us = sfpy_delta_us(off);
        Py_DECREF(off);
        return 0;
    }
    /* Zone rules change on whole seconds, so the microsecond floor of the wall
     * time has the offset of the wall time itself. */
    sf_time v = *wall;
    if (v.calendar && (v.ticks < (1 - 1970) * 12 || v.ticks > (9999 - 1970) * 12 + 11))
        v.ticks = v.ticks < 0 ? -((__int128)1 << 100) : (__int128)1 << 100; /* out of range below */
    else
        sf_time_in_attoseconds(&v);
    __int128 us = v.ticks / AS_PER_US;
    if (us * AS_PER_US > v.ticks)
        us -= 1;
    if (us < -62135596800000000LL || us > 253402300799999999LL) {
        Py_DECREF(zone);
        PyErr_Format(PyExc_ValueError,
                     "%R lies outside years 1-9999, where the rules of time zone %R are unknown: "
                     "give the bound with a UTC offset",
                     text, tz);
        return -1;
    }
    const int64_t u = (int64_t)us;
    const int64_t days = (u >= 0 ? u : u - 86399999999LL) / 86400000000LL;
    const int64_t rest = u - days * 86400000000LL;
    PyObject *epoch = PyDateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0);
    PyObject *delta = epoch ? PyDelta_FromDSU((int)days, (int)(rest / 1000000),
                                              (int)(rest % 1000000))
                            : NULL;
    PyObject *local = delta ? PyNumber_Add(epoch, delta) : NULL;
    Py_XDECREF(epoch);
    Py_XDECREF(delta);
    PyObject *offsets = local ? PyList_New(0) : NULL;
    int failed = !offsets;
    for (int fold = 0; fold < 2 && !failed; fold++) {
        PyObject *replace = PyObject_GetAttrString(local, "replace");
        PyObject *kw = replace ? Py_BuildValue("{s:i,s:O}", "fold", fold, "tzinfo", zone) : NULL;
        PyObject *empty = kw ? PyTuple_New(0) : NULL;
        PyObject *at = empty ? PyObject_Call(replace, empty, kw) : NULL;
        PyObject *off = at ? PyObject_CallMethod(at, "utcoffset", NULL) : NULL;
        Py_XDECREF(replace);
        Py_XDECREF(kw);
        Py_XDECREF(empty);
        Py_XDECREF(at);
        if (!off || !PyDelta_Check(off)) {
            Py_XDECREF(off);
            failed = 1;
            break;
        }
        /* The wall time exists with this offset iff it comes back from UTC unchanged. */
        PyObject *utc_wall = PyNumber_Subtract(local, off), *back = NULL;
        PyObject *r2 = utc_wall ? PyObject_GetAttrString(utc_wall, "replace") : NULL;
        PyObject *kw2 = r2 ? Py_BuildValue("{s:O}", "tzinfo", PyDateTime_TimeZone_UTC) : NULL;
        PyObject *e2 = kw2 ? PyTuple_New(0) : NULL;
        PyObject *in_utc = e2 ? PyObject_Call(r2, e2, kw2) : NULL;
        if (!utc_wall && PyErr_ExceptionMatches(PyExc_OverflowError))
            PyErr_Clear(); /* within a day of year 1 or 9999 */
        else if (in_utc)
            back = PyObject_CallMethod(in_utc, "astimezone", "O", zone);
        if (in_utc && !back && PyErr_ExceptionMatches(PyExc_OverflowError))
            PyErr_Clear();
        Py_XDECREF(utc_wall);
        Py_XDECREF(r2);
        Py_XDECREF(kw2);
        Py_XDECREF(e2);
        Py_XDECREF(in_utc);
        if (PyErr_Occurred()) {
            Py_XDECREF(back);
            Py_DECREF(off);
            failed = 1;
            break;
        }
        int keep = 0;
        if (back) {
            PyObject *r3 = PyObject_GetAttrString(back, "replace");
            PyObject *kw3 = r3 ? Py_BuildValue("{s:O}", "tzinfo", Py_None) : NULL;
            PyObject *e3 = kw3 ? PyTuple_New(0) : NULL;
            PyObject *naive = e3 ? PyObject_Call(r3, e3, kw3) : NULL;
            const int same = naive ? PyObject_RichCompareBool(naive, local, Py_EQ) : -1;
            const int seen = same == 1 ? PySequence_Contains(offsets, off) : 0;
            keep = same == 1 && seen == 0;
            failed = same < 0 || seen < 0;
            Py_XDECREF(r3);
            Py_XDECREF(kw3);
            Py_XDECREF(e3);
            Py_XDECREF(naive);
            Py_DECREF(back);
        }
        if (keep && PyList_Append(offsets, off) < 0)
            failed = 1;
        Py_DECREF(off);
    }
    int got = -1;
    if (!failed && PyList_GET_SIZE(offsets) != 1) {
        PyErr_Format(PyExc_ValueError,
                     "%R %s in time zone %R (a clock change): give the bound with a UTC offset "
                     "or as an aware Timestamp",
                     text, PyList_GET_SIZE(offsets) ? "is ambiguous" : "does not exist", tz);
    } else if (!failed) {
        *offset_us = sfpy_delta_us(PyList_GET_ITEM(offsets, 0));
        got = 0;
    }
    Py_XDECREF(offsets);
    Py_XDECREF(local);
    Py_DECREF(zone);
    return got;
}
