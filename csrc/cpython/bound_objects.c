/*
 * What a bound object is, for every bound reader (bounds_py.c, bounds_exact.c,
 * bounds_time.c, bounds_time_rest.c), below them all: pandas' Timestamp,
 * Timedelta and NaT known by their class (pandas is never imported), the
 * datetime types, an instance of a class of a module already imported, and a
 * type's name for an error (a Python int as a bound: binding.h, inline).
 */
#include "binding.h"

#include <datetime.h>
#include <string.h>

/* At module init: the datetime C API (each file that uses it imports its own). 0 or -1. */
int sfpy_bound_objects_init(void) {
    PyDateTime_IMPORT;
    return PyDateTimeAPI ? 0 : -1;
}

/* pandas' Timestamp, Timedelta and NaT: the class's __name__, and a
 * __module__ that starts with "pandas". */
static sfpy_pandas_kind_t classify_pandas(PyTypeObject *t) {
    static const char *const names[] = {"Timestamp", "Timedelta", "NaTType"};
    PyObject *name = PyObject_GetAttrString((PyObject *)t, "__name__");
    PyObject *module = name ? PyObject_GetAttrString((PyObject *)t, "__module__") : NULL;
    sfpy_pandas_kind_t kind = PD_NONE;
    if (module && PyUnicode_Check(name) && PyUnicode_Check(module)) {
        const char *m = PyUnicode_AsUTF8(module);
        for (int i = 0; m && i < 3 && strncmp(m, "pandas", 6) == 0; i++)
            if (PyUnicode_CompareWithASCIIString(name, names[i]) == 0)
                kind = (sfpy_pandas_kind_t)(i + 1);
    }
    PyErr_Clear();
    Py_XDECREF(name);
    Py_XDECREF(module);
    return kind;
}

/* pandas' Timestamp, Timedelta and NaT subclass datetime and timedelta;
 * the module's state keeps each of the three types once seen. */
sfpy_pandas_kind_t sfpy_pandas_kind(sfpy_state *st, PyObject *obj) {
    PyTypeObject *t = Py_TYPE(obj);
    for (int i = 0; i < 3; i++)
        if ((PyObject *)t == st->pandas_types[i])
            return (sfpy_pandas_kind_t)(i + 1);
    if (PyDateTime_CheckExact(obj) || PyDelta_CheckExact(obj) ||
        !(PyDateTime_Check(obj) || PyDelta_Check(obj)))
        return PD_NONE;
    const sfpy_pandas_kind_t kind = classify_pandas(t);
    if (kind != PD_NONE && !st->pandas_types[kind - 1]) {
        Py_INCREF(t);
        st->pandas_types[kind - 1] = (PyObject *)t;
    }
    return kind;
}

int sfpy_is_pandas_nat(sfpy_state *st, PyObject *obj) {
    return sfpy_pandas_kind(st, obj) == PD_NAT;
}

int sfpy_is_date_or_delta(PyObject *obj) {
    return PyDate_Check(obj) || PyDelta_Check(obj);
}

PyObject *sfpy_type_name(PyObject *obj) {
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
    if (!name) {
        PyErr_Clear();
        name = PyUnicode_FromString(Py_TYPE(obj)->tp_name);
    }
    return name;
}

/* Whether obj is an instance of module.name, the module already imported
 * (nothing of it can exist before it is): 1, 0, or -1. */
int sfpy_instance_of(PyObject *obj, const char *module, const char *name) {
    PyObject *modname = PyUnicode_FromString(module);
    PyObject *mod = modname ? PyImport_GetModule(modname) : NULL;
    Py_XDECREF(modname);
    if (!mod)
        return PyErr_Occurred() ? -1 : 0;
    PyObject *cls = PyObject_GetAttrString(mod, name);
    Py_DECREF(mod);
    if (!cls) {
        PyErr_Clear();
        return 0;
    }
    const int is = PyObject_IsInstance(obj, cls);
    Py_DECREF(cls);
    return is;
}

/* The attribute `name` of the standard library's module `module` (new). */
PyObject *sfpy_stdlib(const char *module, const char *name) {
    PyObject *m = PyImport_ImportModule(module);
    PyObject *a = m ? PyObject_GetAttrString(m, name) : NULL;
    Py_XDECREF(m);
    return a;
}

PyObject *sfpy_re_match(const char *pattern, PyObject *text) {
    PyObject *match = sfpy_stdlib("re", "match");
    PyObject *m = match ? PyObject_CallFunction(match, "sO", pattern, text) : NULL;
    Py_XDECREF(match);
    return m;
}

PyObject *sfpy_re_group(PyObject *m, const char *name) {
    return PyObject_CallMethod(m, "group", "s", name);
}

int64_t sfpy_delta_us(PyObject *d) {
    return ((int64_t)PyDateTime_DELTA_GET_DAYS(d) * 86400 + PyDateTime_DELTA_GET_SECONDS(d)) *
               1000000 +
           PyDateTime_DELTA_GET_MICROSECONDS(d);
}
