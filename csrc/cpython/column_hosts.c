/*
 * The buffers behind pandas columns and numpy.ma arrays, found in C: the
 * binding owns this outright (no call into the Python package; csrc/README.md,
 * "one way"). Nothing is copied where the host keeps a NumPy array:
 *
 * - a numpy.ma array: its data (a view) and its mask, when the mask is an
 *   array of the data's shape (numpy.ma's nomask is none);
 * - a pandas Series, Index or array: the array behind it (`_values`, else
 *   `array`), read by its kind: a masked array (Int*, UInt*, Float*, boolean)
 *   as its `_data` and `_mask`, a datetime or timedelta array as its
 *   `_ndarray` (tz-aware: UTC instants and the zone's name), a NumPy-backed
 *   one through `to_numpy()`, an Arrow-backed one as its pyarrow data, which
 *   the caller reads through the Arrow PyCapsule interface.
 *
 * pandas' private names were chosen because the public routes copy or cost far
 * more a call (Series.__arrow_c_stream__ converts through pyarrow: 32 us where
 * this takes under one). Each is looked up with a fallback to the public,
 * copying route, so a pandas that renames them gives right answers, only slower.
 * The kinds are pandas.arrays' classes, imported (from pandas, never from
 * simdfilter) when the first pandas column is met, and each array type's kind
 * is kept in the module's state.
 */
#include "binding.h"

#include <string.h>

/* Py_NewRef, which Python 3.9 lacks. */
static PyObject *new_ref(PyObject *o) {
    Py_INCREF(o);
    return o;
}

static const char SUPPORTED[] =
    "bool, int8..uint64, float32, float64, datetime64 (naive or tz-aware) and timedelta64, "
    "NumPy-backed, nullable (Int*, UInt*, Float*, boolean) or Arrow-backed";

/* getattr(obj, name, None) as a new reference: NULL only with an exception
 * other than AttributeError. */
static PyObject *attr_or_none(PyObject *obj, const char *name) {
    PyObject *v = PyObject_GetAttrString(obj, name);
    if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        v = new_ref(Py_None);
    }
    return v;
}

/* The buffers (data stolen, may be NULL after a failed call: -1), the mask and
 * zone None. */
static int numpy_buffers(sfpy_buffers *b, PyObject *data) {
    b->data = data;
    return data ? 0 : -1;
}

int sfpy_unwrap_masked(PyObject *values, sfpy_buffers *b) {
    memset(b, 0, sizeof *b);
    PyObject *data = PyObject_GetAttrString(values, "data"); /* a view of the values */
    if (!data)
        return -1;
    /* np.ma.getmask: the _mask attribute, nomask without one */
    PyObject *mask = attr_or_none(values, "_mask");
    if (!mask) {
        Py_DECREF(data);
        return -1;
    }
    if (!PyArray_Check(mask) || !PyArray_Check(data) ||
        !PyArray_SAMESHAPE((PyArrayObject *)mask, (PyArrayObject *)data))
        Py_SETREF(mask, new_ref(Py_None)); /* nomask (a scalar), or a mask of another shape */
    b->data = data;
    b->mask = mask;
    return 0;
}

/* The array behind a Series or Index, or the array itself. */
static PyObject *pandas_array(PyObject *values) {
    PyObject *array = attr_or_none(values, "_values");
    if (array != Py_None)
        return array;
    Py_DECREF(array);
    array = PyObject_GetAttrString(values, "array");
    if (!array && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        array = new_ref(values);
    }
    return array;
}

/* The kinds of pandas arrays, and the pandas.arrays classes of each. */
enum { KIND_MASKED, KIND_TIMES, KIND_ARROW, KIND_NUMPY, KIND_OTHER };
static const char *const KIND_CLASSES[KIND_OTHER][4] = {
    [KIND_MASKED] = {"IntegerArray", "FloatingArray", "BooleanArray", NULL},
    [KIND_TIMES] = {"DatetimeArray", "TimedeltaArray", NULL},
    [KIND_ARROW] = {"ArrowExtensionArray", "ArrowStringArray", NULL},
    /* The old name only if the new one is missing: pandas 2.1-2.x warn on touching it. */
    [KIND_NUMPY] = {"NumpyExtensionArray", NULL},
};

/* The classes of pandas.arrays that name each kind, as tuples, into st. */
static int load_pandas_kinds(sfpy_state *st) {
    PyObject *pandas = PyImport_ImportModule("pandas");
    PyObject *arrays = pandas ? PyObject_GetAttrString(pandas, "arrays") : NULL;
    Py_XDECREF(pandas);
    if (!arrays)
        return -1;
    PyObject *kinds[KIND_OTHER] = {NULL};
    int rc = 0;
    for (int k = 0; k < KIND_OTHER && rc == 0; k++) {
        PyObject *found = PyList_New(0);
        rc = found ? 0 : -1;
        for (int j = 0; rc == 0 && KIND_CLASSES[k][j]; j++) {
            PyObject *cls = attr_or_none(arrays, KIND_CLASSES[k][j]);
            rc = !cls || (cls != Py_None && PyList_Append(found, cls) < 0) ? -1 : 0;
            Py_XDECREF(cls);
        }
        if (rc == 0 && k == KIND_NUMPY && PyList_GET_SIZE(found) == 0) {
            PyObject *cls = attr_or_none(arrays, "PandasArray");
            rc = !cls || (cls != Py_None && PyList_Append(found, cls) < 0) ? -1 : 0;
            Py_XDECREF(cls);
        }
        kinds[k] = rc == 0 ? PyList_AsTuple(found) : NULL;
        Py_XDECREF(found);
        if (!kinds[k])
            rc = -1;
    }
    Py_DECREF(arrays);
    if (rc == 0 && !(st->pandas_kind_of = PyDict_New()))
        rc = -1;
    for (int k = 0; k < KIND_OTHER; k++) {
        if (rc == 0)
            st->pandas_kinds[k] = kinds[k];
        else
            Py_XDECREF(kinds[k]);
    }
    return rc;
}

/* The kind of a pandas array type: one dict lookup a call once the type was
 * met (the dict holds the types themselves: an entry never outlives its
 * type). -1 with an exception. */
static int kind_of(sfpy_state *st, PyObject *array_type) {
    if (!st->pandas_kind_of && load_pandas_kinds(st) < 0)
        return -1;
    PyObject *known = PyDict_GetItemWithError(st->pandas_kind_of, array_type);
    if (known)
        return (int)PyLong_AsLong(known);
    if (PyErr_Occurred())
        return -1;
    int kind = KIND_MASKED;
    for (; kind < KIND_OTHER; kind++) {
        const int is = PyObject_IsSubclass(array_type, st->pandas_kinds[kind]);
        if (is < 0)
            return -1;
        if (is)
            break;
    }
    PyObject *k = PyLong_FromLong(kind);
    const int rc = k ? PyDict_SetItem(st->pandas_kind_of, array_type, k) : -1;
    Py_XDECREF(k);
    return rc < 0 ? -1 : kind;
}

/* A tzinfo's name: zoneinfo's key, pytz's zone, else str(tz); None for None. */
static PyObject *zone_name(PyObject *tz) {
    if (tz == Py_None)
        return new_ref(Py_None);
    static const char *const names[] = {"key", "zone"};
    for (int i = 0; i < 2; i++) {
        PyObject *key = attr_or_none(tz, names[i]);
        const int truth = key ? PyObject_IsTrue(key) : -1;
        if (truth < 0) {
            Py_XDECREF(key);
            return NULL;
        }
        if (truth) {
            PyObject *s = PyObject_Str(key);
            Py_DECREF(key);
            return s;
        }
        Py_DECREF(key);
    }
    return PyObject_Str(tz);
}

/* A datetime or timedelta array: its int64 ticks (UTC instants) and its zone. */
static int times_buffers(PyObject *array, sfpy_buffers *b) {
    PyObject *dtype = PyObject_GetAttrString(array, "dtype");
    PyObject *tz = dtype ? attr_or_none(dtype, "tz") : NULL;
    Py_XDECREF(dtype);
    if (!tz)
        return -1;
    PyObject *data = attr_or_none(array, "_ndarray");
    if (data == Py_None) {
        Py_DECREF(data);
        PyObject *utc = tz != Py_None ? PyObject_CallMethod(array, "tz_convert", "O", Py_None)
                                      : new_ref(array);
        data = utc ? PyObject_CallMethod(utc, "to_numpy", NULL) : NULL;
        Py_XDECREF(utc);
    }
    PyObject *zone = data ? zone_name(tz) : NULL;
    Py_DECREF(tz);
    if (!zone) {
        Py_XDECREF(data);
        return -1;
    }
    b->data = data;
    b->tz = zone;
    return 0;
}

/* Whether obj's type comes from pyarrow (its __module__ starts so). */
static int from_pyarrow(PyObject *obj) {
    PyObject *module = PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__module__");
    const char *name = module && PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
    const int yes = name && strncmp(name, "pyarrow", 7) == 0;
    PyErr_Clear();
    Py_XDECREF(module);
    return yes;
}

/* An Arrow-backed array: its pyarrow data (pandas >= 2.1 name it _pa_array,
 * 1.5 to 2.0 _data), else a pyarrow copy, read through its Arrow C stream
 * (types, nulls and zones there). */
static int arrow_buffers(PyObject *array, sfpy_buffers *b) {
    PyObject *data = attr_or_none(array, "_pa_array");
    if (data == Py_None) {
        Py_SETREF(data, attr_or_none(array, "_data"));
        if (data && !from_pyarrow(data)) {
            Py_SETREF(data, NULL);
            PyObject *pa = PyImport_ImportModule("pyarrow");
            PyObject *one = pa ? PyObject_CallMethod(pa, "array", "O", array) : NULL;
            data = one ? PyObject_CallMethod(pa, "chunked_array", "[O]", one) : NULL;
            Py_XDECREF(one);
            Py_XDECREF(pa);
        }
    }
    b->arrow = data;
    return data ? 0 : -1;
}

int sfpy_unwrap_pandas(sfpy_state *st, PyObject *values, sfpy_buffers *b) {
    memset(b, 0, sizeof *b);
    PyObject *array = pandas_array(values);
    if (!array)
        return -1;
    int rc;
    if (PyArray_Check(array)) {
        rc = numpy_buffers(b, new_ref(array));
    } else {
        switch (kind_of(st, (PyObject *)Py_TYPE(array))) {
        case KIND_MASKED:
            rc = numpy_buffers(b, PyObject_GetAttrString(array, "_data"));
            if (rc == 0 && !(b->mask = PyObject_GetAttrString(array, "_mask")))
                rc = -1;
            break;
        case KIND_TIMES: rc = times_buffers(array, b); break;
        case KIND_ARROW: rc = arrow_buffers(array, b); break;
        case KIND_NUMPY: 
            rc = numpy_buffers(b, PyObject_CallMethod(array, "to_numpy", NULL));
            break;
        case KIND_OTHER: {
            PyObject *dtype = PyObject_GetAttrString(array, "dtype");
            if (dtype)
                PyErr_Format(PyExc_TypeError, "simdfilter supports pandas columns of %s, not %S",
                             SUPPORTED, dtype);
            Py_XDECREF(dtype);
            rc = -1;
            break;
        }
        default: rc = -1;
        }
    }
    Py_DECREF(array);
    return rc;
}

void sfpy_buffers_release(sfpy_buffers *b) {
    Py_CLEAR(b->data);
    Py_CLEAR(b->mask);
    Py_CLEAR(b->tz);
    Py_CLEAR(b->arrow);
}
