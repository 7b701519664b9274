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
 *
 * The way back too: filter_values on a tz-aware column returns the values in
 * the column's own kind, with its zone (sfpy_zoned_values, below). And whose a
 * type is (a package's, a host's frame), read from the type: column.c and
 * refusals.c ask here.
 */
#include "binding.h"

#include <string.h>

/* ---- Whose a type is ---- */

/* Whether type t comes from `package` (its module is package or package.*): a
 * class's __module__ from its own dict, a static type's from its dotted tp_name
 * ("pyarrow.lib.ChunkedArray"), without building a string. */
static int type_from_package(const sfpy_state *st, PyTypeObject *t, const char *package) {
    const char *name = t->tp_name;
    if (t->tp_flags & Py_TPFLAGS_HEAPTYPE) {
        PyObject *module = t->tp_dict ? PyDict_GetItemWithError(t->tp_dict, st->name_module) : NULL;
        name = module && PyUnicode_Check(module) ? PyUnicode_AsUTF8(module) : NULL;
        PyErr_Clear(); /* no module name, or one that is no str: no package's */
        if (!name)
            return 0;
    }
    const size_t len = strlen(package);
    return strncmp(name, package, len) == 0 && (name[len] == '.' || !name[len]);
}

int sfpy_from_package(const sfpy_state *st, PyObject *values, const char *package) {
    return type_from_package(st, Py_TYPE(values), package);
}

/* The host of a frame (a pandas, Polars or Dask DataFrame, a Polars LazyFrame,
 * or a subclass of one), or NULL: a frame is several columns, which np.asarray
 * would flatten into one (a pandas or Dask DataFrame) and the Arrow C stream
 * gives as a struct (Polars). A walk over the type's bases comparing names: no
 * Python call, no import. Dask's DataFrame lived in the dask-expr package
 * (module dask_expr) from Dask 2024.3 until 2025.1 moved it into dask itself. */
const char *sfpy_frame_host(const sfpy_state *st, PyObject *values, int *lazy) {
    static const char *const hosts[][2] = {
        {"pandas", "pandas"}, {"polars", "polars"}, {"dask", "dask"}, {"dask_expr", "dask"}};
    PyObject *mro = Py_TYPE(values)->tp_mro;
    if (!mro || !PyTuple_Check(mro))
        return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        const char *dot = strrchr(t->tp_name, '.'), *name = dot ? dot + 1 : t->tp_name;
        if (strcmp(name, "DataFrame") != 0 && strcmp(name, "LazyFrame") != 0)
            continue;
        for (size_t h = 0; h < sizeof hosts / sizeof hosts[0]; h++) {
            if (type_from_package(st, t, hosts[h][0])) {
                *lazy = name[0] == 'L';
                return hosts[h][1];
            }
        }
    }
    return NULL;
}

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

/* ---- filter_values on tz-aware data: the values given back their zone ---- */

/* f(arg, key=value), or NULL with an exception (f may be NULL: one already set). */
static PyObject *call_kw(PyObject *f, PyObject *arg, const char *key, PyObject *value) {
    PyObject *args = f ? PyTuple_Pack(1, arg) : NULL;
    PyObject *kw = args ? Py_BuildValue("{s:O}", key, value) : NULL;
    PyObject *res = kw ? PyObject_Call(f, args, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(args);
    return res;
}

/* A pandas column's kind: an ArrowDtype column gets a pyarrow array of its own
 * type (the zone is in it); any other a DatetimeArray of UTC converted to tz. */
static PyObject *pandas_zoned(PyObject *utc, PyObject *source, PyObject *tz) {
    PyObject *pd = PyImport_ImportModule("pandas");
    PyObject *dtype = pd ? PyObject_GetAttrString(source, "dtype") : NULL;
    PyObject *arrow_dtype = dtype ? attr_or_none(pd, "ArrowDtype") : NULL; /* pandas >= 1.5 */
    const int arrow = !arrow_dtype             ? -1
                      : arrow_dtype == Py_None ? 0
                                               : PyObject_IsInstance(dtype, arrow_dtype);
    PyObject *res = NULL;
    if (arrow == 1) {
        PyObject *pa = PyImport_ImportModule("pyarrow");
        PyObject *type = pa ? PyObject_GetAttrString(dtype, "pyarrow_dtype") : NULL;
        PyObject *pa_array = type ? PyObject_GetAttrString(pa, "array") : NULL;
        PyObject *data = call_kw(pa_array, utc, "type", type);
        PyObject *pd_array = data ? PyObject_GetAttrString(pd, "array") : NULL;
        res = call_kw(pd_array, data, "dtype", dtype);
        Py_XDECREF(pd_array);
        Py_XDECREF(data);
        Py_XDECREF(pa_array);
        Py_XDECREF(type);
        Py_XDECREF(pa);
    } else if (arrow == 0) {
        PyObject *index = PyObject_CallMethod(pd, "DatetimeIndex", "O", utc);
        PyObject *in_utc = index ? PyObject_CallMethod(index, "tz_localize", "s", "UTC") : NULL;
        PyObject *zoned = in_utc ? PyObject_CallMethod(in_utc, "tz_convert", "O", tz) : NULL;
        res = zoned ? PyObject_GetAttrString(zoned, "array") : NULL;
        Py_XDECREF(zoned);
        Py_XDECREF(in_utc);
        Py_XDECREF(index);
    }
    Py_XDECREF(arrow_dtype);
    Py_XDECREF(dtype);
    Py_XDECREF(pd);
    return res;
}

/* A Polars Series of the column's name, in UTC converted to tz. */
static PyObject *polars_zoned(PyObject *utc, PyObject *source, PyObject *tz) {
    PyObject *pl = PyImport_ImportModule("polars");
    PyObject *name = pl ? attr_or_none(source, "name") : NULL;
    if (name == Py_None)
        Py_SETREF(name, PyUnicode_FromString(""));
    PyObject *series = name ? PyObject_CallMethod(pl, "Series", "OO", name, utc) : NULL;
    PyObject *dt = series ? PyObject_GetAttrString(series, "dt") : NULL;
    PyObject *in_utc = dt ? PyObject_CallMethod(dt, "replace_time_zone", "s", "UTC") : NULL;
    PyObject *dt_utc = in_utc ? PyObject_GetAttrString(in_utc, "dt") : NULL;
    PyObject *res = dt_utc ? PyObject_CallMethod(dt_utc, "convert_time_zone", "O", tz) : NULL;
    Py_XDECREF(dt_utc);
    Py_XDECREF(in_utc);
    Py_XDECREF(dt);
    Py_XDECREF(series);
    Py_XDECREF(name);
    Py_XDECREF(pl);
    return res;
}

/* Any other Arrow producer: a pyarrow timestamp array of the zone, or the UTC
 * datetime64 itself when pyarrow is not installed (it is an extra). */
static PyObject *arrow_zoned(PyObject *utc, PyObject *tz) {
    PyObject *pa = PyImport_ImportModule("pyarrow");
    if (!pa) {
        if (!PyErr_ExceptionMatches(PyExc_ImportError))
            return NULL;
        PyErr_Clear();
        return new_ref(utc);
    }
    PyObject *np = PyImport_ImportModule("numpy");
    PyObject *meta = np ? PyObject_CallMethod(np, "datetime_data", "O",
                                              (PyObject *)PyArray_DESCR((PyArrayObject *)utc))
                        : NULL;
    PyObject *unit = meta && PyTuple_Check(meta) && PyTuple_GET_SIZE(meta) > 0
                         ? new_ref(PyTuple_GET_ITEM(meta, 0))
                         : NULL;
    if (meta && !unit)
        PyErr_SetString(PyExc_SystemError, "numpy.datetime_data gave no unit");
    PyObject *timestamp = unit ? PyObject_GetAttrString(pa, "timestamp") : NULL;
    PyObject *type = call_kw(timestamp, unit, "tz", tz);
    PyObject *pa_array = type ? PyObject_GetAttrString(pa, "array") : NULL;
    PyObject *res = call_kw(pa_array, utc, "type", type);
    Py_XDECREF(pa_array);
    Py_XDECREF(type);
    Py_XDECREF(timestamp);
    Py_XDECREF(unit);
    Py_XDECREF(meta);
    Py_XDECREF(np);
    Py_DECREF(pa);
    return res;
}

PyObject *sfpy_zoned_values(const sfpy_state *st, PyObject *utc, PyObject *source,
                            PyObject *tz) {
    PyObject *res = sfpy_from_package(st, source, "pandas")   ? pandas_zoned(utc, source, tz)
                    : sfpy_from_package(st, source, "polars") ? polars_zoned(utc, source, tz)
                                                              : arrow_zoned(utc, tz);
    Py_DECREF(utc);
    return res;
}
