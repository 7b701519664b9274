/*
 * A refused column's TypeError in the user's terms, worded here (no call into
 * the Python package; csrc/README.md, "one way"): a frame names the frame
 * call that answers the question (df.sf.indexes/filter/count), strings say
 * what compares them in their host. Only after a function refused a column,
 * so off every fast path: the host's own functions (pandas' infer_dtype,
 * NumPy's asarray) are called freely. ZoneMap and the Dask functions ask the
 * same words of _core._refused_column.
 */
#include "binding.h"

#include <string.h>

static const char WHAT[] = "simdfilter compares numbers, booleans, dates and times";
static const char *const STRING_ARROW[] = {"string", "large_string", "string_view",
                                           "binary", "large_binary", "binary_view"};

/* Py_NewRef, which Python 3.9 lacks. */
static PyObject *new_ref(PyObject *o) {
    Py_INCREF(o);
    return o;
}

/* Clear an Exception (not a BaseException such as KeyboardInterrupt): 0, or
 * -1 with it still set. The words are advice: a host that fails to say what
 * it holds gets none, as the Python they replace caught Exception. */
static int forgive(void) {
    if (!PyErr_ExceptionMatches(PyExc_Exception))
        return -1;
    PyErr_Clear();
    return 0;
}

/* type(obj).__name__ */
static PyObject *type_name(PyObject *obj) {
    return PyObject_GetAttrString((PyObject *)Py_TYPE(obj), "__name__");
}

/* The frame's first two column labels, padded with 'a' and 'b' (any labels do
 * for the example), as a list of two. */
static PyObject *two_labels(PyObject *frame, int lazy) {
    PyObject *names = NULL;
    if (lazy) {
        PyObject *schema = PyObject_CallMethod(frame, "collect_schema", NULL);
        names = schema ? PyObject_CallMethod(schema, "names", NULL) : NULL;
        Py_XDECREF(schema);
    } else {
        names = PyObject_GetAttrString(frame, "columns");
    }
    PyObject *list = names ? PySequence_List(names) : NULL;
    Py_XDECREF(names);
    if (!list && (forgive() < 0 || !(list = PyList_New(0))))
        return NULL;
    if (PyList_GET_SIZE(list) < 2) {
        static const char *const pad[] = {"a", "b"};
        for (int i = 0; i < 2; i++) {
            PyObject *s = PyUnicode_FromString(pad[i]);
            if (!s || PyList_Append(list, s) < 0) {
                Py_XDECREF(s);
                Py_DECREF(list);
                return NULL;
            }
            Py_DECREF(s);
        }
    }
    return list;
}

/* The message for a frame given where one column goes: a new str, None (a
 * new reference) for no frame, NULL with an exception. */
static PyObject *frame_refusal(const sfpy_state *st, PyObject *values, const char *function) {
    int lazy = 0;
    const char *host = sfpy_frame_host(st, values, &lazy);
    if (!host)
        return new_ref(Py_None);
    PyObject *labels = two_labels(values, lazy), *name = labels ? type_name(values) : NULL;
    if (!name) {
        Py_XDECREF(labels);
        return NULL;
    }
    PyObject *a = PyList_GET_ITEM(labels, 0), *b = PyList_GET_ITEM(labels, 1);
    const char *who = strcmp(host, "pandas") == 0   ? "pandas"
                      : strcmp(host, "polars") == 0 ? "Polars"
                                                    : "Dask";
    PyObject *head = PyUnicode_FromFormat("%s reads one column, not a %s %U", function, who, name);
    PyObject *ranges = head ? PyUnicode_FromFormat("{%R: (lo, hi), %R: (lo, hi)}", a, b) : NULL;
    PyObject *res = NULL;
    if (ranges && lazy) {
        res = PyUnicode_FromFormat(
            "%U: keep the rows where every column is in its range with "
            "lf.filter(pl.col(%R).sf.between(lo, hi) & pl.col(%R).sf.between(lo, hi)) "
            "(import simdfilter.polars), or collect first: lf.collect().sf.filter(%U)",
            head, a, b, ranges);
    } else if (ranges && strcmp(host, "dask") == 0) {
        res = PyUnicode_FromFormat(
            "%U: for the rows where every column is in its range use ddf.sf.filter(%U) or "
            "ddf.sf.count(%U) (import simdfilter.dask); for one column, ddf[%R].sf.filter(lo, "
            "hi)",
            head, ranges, ranges, a);
    } else if (ranges) {
        PyObject *one = strcmp(function, "ZoneMap") == 0
                            ? PyUnicode_FromFormat("%s(df[%R])", function, a)
                            : PyUnicode_FromFormat("%s(df[%R], lo, hi)", function, a);
        if (one)
            res = PyUnicode_FromFormat(
                "%U: for the rows where every column is in its range use df.sf.indexes(%U) "
                "(their positions), df.sf.filter(%U) (the rows) or df.sf.count(%U) (import "
                "simdfilter.%s); for one column, %U",
                head, ranges, ranges, ranges, strcmp(host, "polars") == 0 ? "polars" : "pandas",
                one);
        Py_XDECREF(one);
    }
    Py_XDECREF(ranges);
    Py_XDECREF(head);
    Py_DECREF(name);
    Py_DECREF(labels);
    return res;
}

/* Whether str(obj) is one of the Arrow names of strings and bytes: 1, 0, -1. */
static int arrow_string_name(PyObject *obj) {
    PyObject *s = PyObject_Str(obj);
    const char *text = s ? PyUnicode_AsUTF8(s) : NULL;
    int found = text ? 0 : -1;
    for (size_t i = 0; text && i < sizeof STRING_ARROW / sizeof STRING_ARROW[0]; i++)
        found |= strcmp(text, STRING_ARROW[i]) == 0;
    Py_XDECREF(s);
    return found;
}

/* Whether `obj` is an instance of the attribute `name` of `module` (0 when
 * the module lacks it, as pandas before 1.5 lacks ArrowDtype): 1, 0, -1. */
static int instance_of_attr(PyObject *obj, PyObject *module, const char *name) {
    PyObject *cls = PyObject_GetAttrString(module, name);
    if (!cls) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -1;
        PyErr_Clear();
        return 0;
    }
    const int is = PyObject_IsInstance(obj, cls);
    Py_DECREF(cls);
    return is;
}

/* getattr(module, "a.b.c") for a dotted path: a new reference, or NULL. */
static PyObject *dotted(PyObject *module, const char *path) {
    PyObject *o = new_ref(module);
    char part[64];
    while (o && *path) {
        const char *dot = strchr(path, '.');
        const size_t len = dot ? (size_t)(dot - path) : strlen(path);
        if (len >= sizeof part) {
            PyErr_SetString(PyExc_SystemError, "simdfilter: an attribute path too long");
            Py_CLEAR(o);
            break;
        }
        memcpy(part, path, len);
        part[len] = '\0';
        Py_SETREF(o, PyObject_GetAttrString(o, part));
        path += len + (dot != NULL);
    }
    return o;
}

/* Whether `s` is a str equal to one of the NULL-ended `words`. */
static int str_is(PyObject *s, const char *const *words) {
    if (!s || !PyUnicode_Check(s))
        return 0;
    for (; *words; words++)
        if (PyUnicode_CompareWithASCIIString(s, *words) == 0)
            return 1;
    return 0;
}

/* A pandas column of strings (StringDtype, an Arrow string dtype, or object
 * values pandas infers as strings or bytes): 1, 0, -1. */
static int pandas_strings(PyObject *values, PyObject *dtype) {
    static const char *const object[] = {"O", NULL};
    static const char *const text_kinds[] = {"string", "bytes", NULL};
    PyObject *pd = PyImport_ImportModule("pandas");
    if (!pd)
        return -1;
    int text = instance_of_attr(dtype, pd, "StringDtype");
    if (text == 0 && (text = instance_of_attr(dtype, pd, "ArrowDtype")) == 1) {
        PyObject *arrow = PyObject_GetAttrString(dtype, "pyarrow_dtype");
        text = arrow ? arrow_string_name(arrow) : -1;
        Py_XDECREF(arrow);
    }
    if (text == 0) {
        PyObject *kind = PyObject_GetAttrString(dtype, "kind");
        if (!kind && forgive() < 0)
            text = -1;
        else if (str_is(kind, object)) {
            PyObject *infer = dotted(pd, "api.types.infer_dtype");
            PyObject *args = infer ? PyTuple_Pack(1, values) : NULL;
            PyObject *kw = args ? Py_BuildValue("{s:O}", "skipna", Py_True) : NULL;
            PyObject *got = kw ? PyObject_Call(infer, args, kw) : NULL;
            text = got ? str_is(got, text_kinds) : -1;
            Py_XDECREF(got);
            Py_XDECREF(kw);
            Py_XDECREF(args);
            Py_XDECREF(infer);
        }
        Py_XDECREF(kind);
    }
    Py_DECREF(pd);
    return text;
}

/* Whether the first 1,000 elements of an object array that are not None are
 * all str or bytes (and there is one): 1, 0, -1. */
static int object_strings(PyArrayObject *array) {
    PyObject *flat = PyObject_GetAttrString((PyObject *)array, "flat");
    PyObject *stop = flat ? PyLong_FromLong(1000) : NULL;
    PyObject *cut = stop ? PySlice_New(NULL, stop, NULL) : NULL;
    PyObject *first = cut ? PyObject_GetItem(flat, cut) : NULL;
    Py_XDECREF(cut);
    Py_XDECREF(stop);
    Py_XDECREF(flat);
    PyObject *items = first ? PySequence_Fast(first, "flat") : NULL;
    Py_XDECREF(first);
    if (!items)
        return -1;
    int found = 0, all = 1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(items); i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(items, i);
        if (x == Py_None)
            continue;
        found = 1;
        all &= PyUnicode_Check(x) || PyBytes_Check(x);
    }
    Py_DECREF(items);
    return found && all;
}

/* (what the column is, what compares strings in its host) into *kind and
 * *instead (new strs), for a column of strings or bytes: 1; 0 for any other
 * column; -1 with an exception. */
static int strings_kind(const sfpy_state *st, PyObject *values, PyObject **kind,
                        const char **instead) {
    *kind = NULL;
    if (sfpy_from_package(st, values, "pandas")) {
        PyObject *dtype = PyObject_GetAttrString(values, "dtype");
        if (!dtype)
            return forgive() < 0 ? -1 : 0;
        const int text = pandas_strings(values, dtype);
        if (text == 1)
            *kind = PyUnicode_FromFormat("pandas %S", dtype);
        Py_DECREF(dtype);
        *instead = "s.between(lo, hi) (or s.sf.indexes, s.sf.filter, s.sf.count)";
        return text == 1 ? (*kind ? 1 : -1) : text;
    }
    if (sfpy_from_package(st, values, "polars")) {
        PyObject *pl = PyImport_ImportModule("polars");
        PyObject *dtype = pl ? PyObject_GetAttrString(values, "dtype") : NULL;
        int text = dtype ? 0 : pl && forgive() == 0 ? 2 : -1;
        static const char *const names[] = {"String", "Binary"};
        for (int i = 0; i < 2 && text == 0; i++) {
            PyObject *t = PyObject_GetAttrString(pl, names[i]);
            text = t ? PyObject_RichCompareBool(dtype, t, Py_EQ) : -1;
            Py_XDECREF(t);
        }
        if (text == 1 && !(*kind = PyUnicode_FromFormat("Polars %S", dtype)))
            text = -1;
        Py_XDECREF(dtype);
        Py_XDECREF(pl);
        if (text == 2) /* no dtype: nothing to say */
            text = 0;
        *instead = "s.is_between(lo, hi) (or s.sf.indexes, s.sf.filter, s.sf.count)";
        return text;
    }
    if (sfpy_from_package(st, values, "pyarrow")) {
        PyObject *type = PyObject_GetAttrString(values, "type");
        if (!type)
            return forgive() < 0 ? -1 : 0;
        int text = arrow_string_name(type);
        if (text == 1 && !(*kind = PyUnicode_FromFormat("pyarrow %S", type)))
            text = -1;
        Py_DECREF(type);
        *instead = "pyarrow.compute: pc.and_(pc.greater_equal(a, lo), pc.less_equal(a, hi))";
        return text;
    }
    PyArrayObject *array;
    if (PyArray_Check(values)) {
        array = (PyArrayObject *)new_ref(values);
    } else if (PyList_Check(values) || PyTuple_Check(values)) {
        array = (PyArrayObject *)PyArray_FromAny(values, NULL, 0, 0, 0, NULL);
        if (!array)
            return forgive() < 0 ? -1 : 0; /* not an array: nothing to say */
    } else {
        return 0;
    }
    const char k = PyArray_DESCR(array)->kind;
    int text = k == 'O' ? object_strings(array) : k == 'U' || k == 'S';
    if (text == 1) {
        PyObject *name = PyArray_Check(values) ? NULL : type_name(values);
        if (PyArray_Check(values))
            *kind = PyUnicode_FromFormat("NumPy %S", (PyObject *)PyArray_DESCR(array));
        else if (name)
            *kind = PyUnicode_FromFormat("a %U of %S", name, (PyObject *)PyArray_DESCR(array));
        Py_XDECREF(name);
        text = *kind ? 1 : -1;
    }
    Py_DECREF(array);
    *instead = "NumPy: np.flatnonzero((a >= lo) & (a <= hi))";
    return text;
}

/* The message for a column of strings: a new str, None (a new reference) for
 * any other column, NULL with an exception. */
static PyObject *strings_refusal(const sfpy_state *st, PyObject *values) {
    PyObject *kind;
    const char *instead = NULL;
    const int text = strings_kind(st, values, &kind, &instead);
    if (text <= 0)
        return text < 0 ? NULL : new_ref(Py_None);
    PyObject *name = PyObject_GetAttrString(values, "name"), *subject;
    if (!name && forgive() < 0) {
        Py_DECREF(kind);
        return NULL;
    }
    if (name && PyUnicode_Check(name) && PyUnicode_GET_LENGTH(name) > 0)
        subject = PyUnicode_FromFormat("column %R", name);
    else
        subject = PyUnicode_FromString("the column");
    Py_XDECREF(name);
    PyObject *res = subject ? PyUnicode_FromFormat("%s; %U holds strings (%U): compare strings "
                                                   "with %s",
                                                   WHAT, subject, kind, instead)
                            : NULL;
    Py_XDECREF(subject);
    Py_DECREF(kind);
    return res;
}

/* The words for `values` refused by `function`: a frame's, else (`strings`)
 * a column of strings'; a new str, None (a new reference) for neither, NULL
 * with an exception. */
static PyObject *refusal(const sfpy_state *st, PyObject *values, const char *function,
                         int strings) {
    PyObject *frame = frame_refusal(st, values, function);
    if (frame != Py_None || !strings)
        return frame;
    Py_DECREF(frame);
    return strings_refusal(st, values);
}

int sfpy_column_refused(const sfpy_state *st, PyObject *values, const char *who) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError))
        return -1;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyObject *message = refusal(st, values, who, 1);
    if (message && PyUnicode_Check(message)) {
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
        PyErr_SetObject(PyExc_TypeError, message);
    } else {
        /* Nothing to add, or the words failed: they must not hide the error. */
        PyErr_Clear();
        PyErr_Restore(type, value, traceback);
    }
    Py_XDECREF(message);
    return -1;
}

/* _refused_column(values, function, strings=True): the words a function
 * named `function` refuses `values` with, or None. */
static PyObject *py_refused_column(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"values", "function", "strings", NULL};
    PyObject *values;
    const char *function;
    int strings = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Os|p:_refused_column", keywords, &values,
                                     &function, &strings))
        return NULL;
    return refusal(sfpy_state_of(self), values, function, strings);
}

PyMethodDef sfpy_refusal_methods[] = {
    {"_refused_column", (PyCFunction)(void (*)(void))py_refused_column,
     METH_VARARGS | METH_KEYWORDS,
     "_refused_column(values, function, strings=True)\n--\n\nThe TypeError's words when "
     "`function` refuses `values`: a frame (pandas, Polars,\nDask) names the frame call, a "
     "column of strings (with strings=True) what\ncompares strings in its host; None for "
     "any other column."},
    {NULL, NULL, 0, NULL},
};
