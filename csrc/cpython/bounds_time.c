/*
 * Bounds on datetime64 and timedelta64 data, read in C: np.datetime64 and
 * np.timedelta64 of any unit, datetime.datetime, date and timedelta, and
 * pandas' Timestamp, Timedelta and NaT (known by their class's name and
 * module, as simdfilter._bounds knows them; pandas is never imported here),
 * and ISO strings of the common forms (on tz-aware data, with a UTC offset).
 * This file reads the objects; the library's lib/times.c
 * (include/simdfilter_time.h) turns what they hold into ticks of the data's
 * unit exactly, by the rules of simdfilter._bounds._time_real.
 *
 * Whatever is not read here - other strings, wall times in a zone, subclasses
 * of the datetime types, and every bound refused - goes to bounds_time_rest.c
 * (the reader returns 0), slower and by the same rules.
 */
#include "binding.h"

#include <datetime.h>
/* CPython 3.9's datetime.h lacks it; 3.10's defines it so. */
#ifndef _PyDateTime_HAS_TZINFO
#define _PyDateTime_HAS_TZINFO(o) (((_PyDateTime_BaseTZInfo *)(o))->hastzinfo)
#endif
#include <string.h>

#include "simdfilter_time.h"

/* The library numbers units as NumPy does: a unit is handed over as it is. */
#define SAME_UNIT(u) ((int)SF_UNIT_##u == (int)NPY_FR_##u)
_Static_assert(SAME_UNIT(Y) && SAME_UNIT(M) && SAME_UNIT(W) && SAME_UNIT(D) &&
                   SAME_UNIT(h) && SAME_UNIT(m) && SAME_UNIT(s) && SAME_UNIT(ms) &&
                   SAME_UNIT(us) && SAME_UNIT(ns) && SAME_UNIT(ps) && SAME_UNIT(fs) &&
                   SAME_UNIT(as) && SAME_UNIT(GENERIC),
               "sf_time_unit numbers units as NPY_DATETIMEUNIT does");
#undef SAME_UNIT

/* ---- Reading the bound objects --------------------------------------------------------- */

/* At module init: the datetime C API and the names the readers look up, in
 * the module's state. 0 or -1. */
int sfpy_bounds_time_init(sfpy_state *st) {
    PyDateTime_IMPORT;
    if (!PyDateTimeAPI)
        return -1;
    st->str_value = PyUnicode_InternFromString("_value");
    st->str_creso = PyUnicode_InternFromString("_creso");
    st->str_utcoffset = PyUnicode_InternFromString("utcoffset");
    st->str_value_1x = PyUnicode_InternFromString("value");
    st->str_reso_1x = PyUnicode_InternFromString("_reso");
    return st->str_value && st->str_creso && st->str_utcoffset && st->str_value_1x &&
                   st->str_reso_1x
               ? 0
               : -1;
}

/* An int64 attribute; 0 if it is missing or no int64 (then the slow reader decides).
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
 * any other unit is left to the slow reader). 0 if neither pair is there. */
static int pandas_ticks(const sfpy_state *st, PyObject *obj, long long *ticks, long long *unit) {
    if (int_attr(obj, st->str_value, ticks) && int_attr(obj, st->str_creso, unit))
        return 1;
    return int_attr(obj, st->str_reso_1x, unit) && *unit == NPY_FR_ns &&
           int_attr(obj, st->str_value_1x, ticks);
}

/* A pandas Timestamp or Timedelta: its ticks (`_value`) in its unit (`_creso`,
 * a NumPy unit number): what its to_datetime64() / to_timedelta64() hold,
 * which is how the slow reader reads it, without the 1-2 us those calls cost. For an
 * aware Timestamp the ticks are UTC: the wall time less utcoffset() is
 * the same instant (pandas derives the wall time from them), without the
 * 15 us utcoffset() costs a Timestamp. */
static int pandas_value(const sfpy_state *st, PyObject *obj, sf_time *v) {
    long long ticks, unit;
    if (!pandas_ticks(st, obj, &ticks, &unit) || ticks == NPY_DATETIME_NAT || unit < 0 ||
        unit > NPY_FR_as)
        return 0;
    return unit != NPY_FR_Y && unit != NPY_FR_M && sf_time_from_ticks(ticks, (int)unit, 1, v);
}

/* A datetime.datetime as microseconds from the epoch (an aware one, with `tz`,
 * as its instant: the wall time less utcoffset(), as the slow reader reads it). It
 * refuses an aware one on naive data and a naive one on aware data. */
static int datetime_value(const sfpy_state *st, PyObject *obj, int aware, sf_time *v) {
    const int has_tz = _PyDateTime_HAS_TZINFO(obj) && ((PyDateTime_DateTime *)obj)->tzinfo != Py_None;
    if (has_tz != aware)
        return 0;
    /* timezone.utc, the commonest tzinfo of an aware bound, needs no call. Any
     * other is asked tzinfo.utcoffset(dt) itself, which is what dt.utcoffset()
     * returns once it has checked the answer: a ZoneInfo answers in ~15 ns
     * where dt.utcoffset() takes ~230 (CPython 3.11; two bounds a call). The
     * check is made here: anything but a timedelta strictly within a day
     * (None, or what datetime.utcoffset() would refuse) goes to the slow reader
     * (bounds_time_rest.c), which calls dt.utcoffset() itself. */
    PyObject *tz = ((PyDateTime_DateTime *)obj)->tzinfo;
    int64_t offset_us = 0;
    if (aware && tz != PyDateTime_TimeZone_UTC) {
        PyObject *off = PyObject_CallMethodOneArg(tz, st->str_utcoffset, obj);
        if (!off || !PyDelta_Check(off) || PyDateTime_DELTA_GET_DAYS(off) < -1 ||
            PyDateTime_DELTA_GET_DAYS(off) > 0 ||
            (PyDateTime_DELTA_GET_DAYS(off) == -1 && !PyDateTime_DELTA_GET_SECONDS(off) &&
             !PyDateTime_DELTA_GET_MICROSECONDS(off))) {
            Py_XDECREF(off);
            PyErr_Clear();
            return 0;
        }
        offset_us = ((int64_t)PyDateTime_DELTA_GET_DAYS(off) * 86400 +
                     PyDateTime_DELTA_GET_SECONDS(off)) * 1000000 +
                    PyDateTime_DELTA_GET_MICROSECONDS(off);
        Py_DECREF(off);
    }
    sf_time_from_datetime(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj),
                          PyDateTime_GET_DAY(obj), PyDateTime_DATE_GET_HOUR(obj),
                          PyDateTime_DATE_GET_MINUTE(obj), PyDateTime_DATE_GET_SECOND(obj),
                          PyDateTime_DATE_GET_MICROSECOND(obj), offset_us, v);
    return 1;
}

/* An np.datetime64 / np.timedelta64 scalar: 1, or 2 for NaT, 0 for generic. */
static int numpy_time_value(PyObject *obj, sf_time *v) {
    /* Both scalar structs hold the value, then the unit, the same way. */
    const PyDatetimeScalarObject *s = (const PyDatetimeScalarObject *)obj;
    if (s->obval == NPY_DATETIME_NAT)
        return 2;
    return sf_time_from_ticks(s->obval, (int)s->obmeta.base, s->obmeta.num, v);
}

/* A duration (datetime.timedelta exactly) in microseconds, where NumPy's
 * np.timedelta64(td, "us") does not wrap around (the slow reader wraps the others). */
static int timedelta_value(PyObject *obj, sf_time *v) {
    return sf_time_from_duration(PyDateTime_DELTA_GET_DAYS(obj), PyDateTime_DELTA_GET_SECONDS(obj),
                                 PyDateTime_DELTA_GET_MICROSECONDS(obj), v);
}

/* An ISO string as a bound: on naive data its wall time; on tz-aware data the
 * instant of a wall time with a UTC offset after its time of day (one without
 * is a wall time in the data's zone: the slow reader's, with the zone's rules). */
static int iso_value(PyObject *obj, int aware, sf_time *v) {
    if (!PyUnicode_IS_ASCII(obj))
        return 0;
    return sf_time_parse_iso((const char *)PyUnicode_1BYTE_DATA(obj),
                             (size_t)PyUnicode_GET_LENGTH(obj), aware, v);
}

/* A bound on datetime data as the rule reads it (bounds_time_rest.c has the rest): 1
 * with *v, 2 for NaT, 0 for the slow reader. */
static int datetime_bound(sfpy_state *st, PyObject *obj, int aware, sf_time *v) {
    if (PyArray_IsScalar(obj, Datetime)) {
        const int got = numpy_time_value(obj, v);
        return aware && got == 1 ? 0 : got; /* an aware bound is needed */
    }
    if (PyDateTime_CheckExact(obj))
        return datetime_value(st, obj, aware, v);
    if (PyUnicode_CheckExact(obj))
        return iso_value(obj, aware, v);
    if (PyDate_CheckExact(obj) && !aware) {
        sf_time_from_date(PyDateTime_GET_YEAR(obj), PyDateTime_GET_MONTH(obj),
                          PyDateTime_GET_DAY(obj), v);
        return 1;
    }
    switch (sfpy_pandas_kind(st, obj)) {
    case PD_NAT: return 2;
    case PD_TIMESTAMP: { /* tzinfo set or not as the rule wants it */
        const int has_tz = _PyDateTime_HAS_TZINFO(obj) && ((PyDateTime_DateTime *)obj)->tzinfo != Py_None;
        return has_tz == aware ? pandas_value(st, obj, v) : 0;
    }
    default: return 0;
    }
}

/* A bound on timedelta data (_time_value): 1 with *v, 3 with an int in *ticks
 * (ticks of the data's unit), 2 for NaT, 0 for the slow reader. */
static int timedelta_bound(sfpy_state *st, PyObject *obj, sf_time *v, sf_bound *ticks) {
    if (PyArray_IsScalar(obj, Timedelta)) {
        const PyTimedeltaScalarObject *s = (const PyTimedeltaScalarObject *)obj;
        if (s->obmeta.base != NPY_FR_GENERIC || s->obval == NPY_DATETIME_NAT)
            return numpy_time_value(obj, v);
        ticks->kind = SF_BOUND_INT; /* unitless: NumPy reads ticks of the data's unit */
        ticks->i = s->obval;
        return 3;
    }
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool)) { /* NumPy: 0 or 1 tick */
        ticks->kind = SF_BOUND_INT;
        ticks->i = obj == Py_True || obj == PyArrayScalar_True;
        return 3;
    }
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
        if (!overflow && i == INT64_MIN)
            return 2; /* NumPy reads -2**63 as NaT */
        ticks->kind = overflow ? SF_BOUND_HUGE : SF_BOUND_INT;
        ticks->i = overflow ? overflow : i; /* HUGE: the sign */
        return 3;
    }
    switch (sfpy_pandas_kind(st, obj)) {
    case PD_NAT: return 2;
    case PD_TIMEDELTA: return pandas_value(st, obj, v);
    default: return 0;
    }
}

/* A bound on time-of-day data: a naive datetime.time, as the time since
 * midnight (1 with *v); anything else is the slow reader's (0), which refuses what
 * pandas and Polars refuse there (a timedelta among them). */
static int time_of_day_bound(PyObject *obj, sf_time *v) {
    if (!PyTime_CheckExact(obj) || (_PyDateTime_HAS_TZINFO(obj) &&
                                    ((PyDateTime_Time *)obj)->tzinfo != Py_None))
        return 0;
    return sf_time_from_duration(0,
                                 PyDateTime_TIME_GET_HOUR(obj) * 3600 +
                                     PyDateTime_TIME_GET_MINUTE(obj) * 60 +
                                     PyDateTime_TIME_GET_SECOND(obj),
                                 PyDateTime_TIME_GET_MICROSECOND(obj), v);
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
        return 0; /* a zone on timedelta data: the slow reader's error */
    sf_time v;
    const int got = sfpy_time_of_day(c) ? time_of_day_bound(obj, &v)
                    : is_dt             ? datetime_bound(c->st, obj, c->tz != NULL, &v)
                                        : timedelta_bound(c->st, obj, &v, b);
    if (got == 0)
        return sfpy_time_bound_rest(obj, c, lower, b, closed, nat);
    if (got == 2)
        *nat = 1; /* matches nothing */
    if (got != 1)
        return 1;
    int unit, num;
    data_unit(c->descr, &unit, &num);
    return sf_time_bound(&v, is_dt, unit, num, lower, b, closed) ? 1
                                                                  : sfpy_time_unit_refused(&v, c);
}
