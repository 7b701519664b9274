/*
 * The Polars plugin's Python path (polars_plugin.c has the ABI): a batch of a
 * dtype the bounds literal has no range for handed, under the GIL, to
 * simdfilter._polars_plugin._batch as Arrow PyCapsules, and its answer taken
 * back through its Arrow C stream.
 */
#include "polars_plugin.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* [(schema capsule, array capsule), ...] of the column's chunks, each chunk
 * moved into its capsule (released there, not by release_inputs). */
static PyObject *chunk_capsules(sf_series_export *col) {
    PyObject *list = PyList_New(0);
    for (size_t i = 0; list && i < col->len; i++) {
        struct ArrowSchema *s = (struct ArrowSchema *)malloc(sizeof *s);
        struct ArrowArray *a = (struct ArrowArray *)malloc(sizeof *a);
        if (!s || !a || !col->arrays[i]) {
            free(s), free(a);
            Py_DECREF(list);
            return PyErr_NoMemory();
        }
        /* Lent: the fields of Polars' own (which outlives the call), released
         * as a no-op; the importer copies what it reads. */
        *s = *col->field;
        s->release = sfpy_schema_release_nothing;
        *a = *col->arrays[i];
        col->arrays[i]->release = NULL; /* moved */
        PyObject *pair = sfpy_capsule_pair(s, a);
        if (!pair || PyList_Append(list, pair) < 0) {
            Py_XDECREF(pair);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(pair);
    }
    return list;
}

/* The Arrow C stream of a Series (its __arrow_c_stream__) into *out, chunk by
 * chunk: 0, or -1 with an exception. */
static int export_stream(PyObject *capsule, const char *name, sf_series_export *out) {
    struct ArrowArrayStream *st =
        (struct ArrowArrayStream *)PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!st)
        return -1;
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    if (st->get_schema(st, &schema) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "the answer's Arrow stream gave no schema");
        return -1;
    }
    size_t n = 0, room = 4;
    struct ArrowArray *arrays = (struct ArrowArray *)malloc(room * sizeof *arrays);
    while (arrays) {
        if (n == room) {
            struct ArrowArray *more =
                (struct ArrowArray *)realloc(arrays, 2 * room * sizeof *arrays);
            if (!more)
                break;
            arrays = more, room *= 2;
        }
        memset(&arrays[n], 0, sizeof arrays[n]);
        if (st->get_next(st, &arrays[n]) != 0) {
            for (size_t i = 0; i < n; i++)
                arrays[i].release(&arrays[i]);
            free(arrays);
            schema.release(&schema);
            PyErr_SetString(PyExc_RuntimeError, "the answer's Arrow stream failed");
            return -1;
        }
        if (!arrays[n].release)
            break;
        n++;
    }
    out_private *p = arrays ? sfpy_plugin_out_new(n, name) : NULL;
    if (!p) {
        for (size_t i = 0; arrays && i < n; i++)
            arrays[i].release(&arrays[i]);
        free(arrays);
        schema.release(&schema);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(p->arrays, arrays, n * sizeof *arrays);
    free(arrays);
    p->schema = schema; /* its own release; the name is the column's */
    p->schema.name = p->name;
    sfpy_plugin_out_publish(out, p);
    return 0;
}

/* The message of the exception set now, as "Type: message", as the plugin's error. */
static void python_error(void) {
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
#endif
    PyObject *s = exc ? PyObject_Str(exc) : NULL;
    const char *msg = s ? PyUnicode_AsUTF8(s) : NULL;
    char text[512]; /* the room of the error itself */
    snprintf(text, sizeof text, "%s: %s", exc ? Py_TYPE(exc)->tp_name : "Error",
             msg ? msg : "(no message)");
    sfpy_plugin_error(text);
    PyErr_Clear();
    Py_XDECREF(s);
    Py_XDECREF(exc);
}

int sfpy_plugin_python_answer(plugin_op op, sf_series_export *col, const spec *sp,
                              sf_series_export *out) {
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = -1;
    /* The package's module, as imported by whoever built the expression: the
     * binding imports no simdfilter module (helpers come to it); the plugin has
     * no module object whose state would hold one, so it reads sys.modules. */
    PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "simdfilter._polars_plugin");
    Py_XINCREF(mod);
    if (!mod)
        PyErr_SetString(PyExc_RuntimeError,
                        "simdfilter's plugin needs `import simdfilter.polars` in this process");
    PyObject *fn = mod ? PyObject_GetAttrString(mod, "_batch") : NULL;
    PyObject *chunks = fn ? chunk_capsules(col) : NULL;
    PyObject *res = NULL, *stream = NULL;
    if (chunks) {
        res = PyObject_CallFunction(fn, "sy#Os", op == PLUGIN_BETWEEN ? "between" : "count",
                                    (const char *)sp->pickled, (Py_ssize_t)sp->pickled_len,
                                    chunks, col->field->name ? col->field->name : "");
    }
    if (res)
        stream = PyObject_CallMethod(res, "__arrow_c_stream__", NULL);
    if (stream && export_stream(stream, col->field->name, out) == 0)
        rc = 0;
    if (rc < 0)
        python_error();
    Py_XDECREF(stream);
    Py_XDECREF(res);
    Py_XDECREF(chunks);
    Py_XDECREF(fn);
    Py_XDECREF(mod);
    PyGILState_Release(g);
    return rc;
}

