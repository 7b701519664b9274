/*
 * Arrow columns through the Arrow PyCapsule interface: __arrow_c_array__
 * (one array) or __arrow_c_stream__ (a stream of chunks), consumed here in C.
 * The arrays are moved out of their capsules (their release callbacks become
 * ours, the capsules' set to NULL as the protocol says) and released by
 * sfpy_column_release on every path, success or error.
 */
#include "binding.h"

#include <string.h>

static int arrow_type_error(const char *message) {
    PyErr_SetString(PyExc_TypeError, message);
    return -1;
}

/* The column's type, its NumPy meaning and its zone, from an Arrow schema. */
static int take_schema(const struct ArrowSchema *schema, column *c) {
    char err[320];
    if (sf_arrow_type_of(schema, &c->arrow_type, err, sizeof err) < 0)
        return arrow_type_error(err);
    c->type = c->arrow_type.type;
    if (c->arrow_type.timezone) {
        c->tz = PyUnicode_FromString(c->arrow_type.timezone);
        if (!c->tz)
            return -1;
        c->arrow_type.timezone = NULL; /* it pointed into the schema, released soon */
    }
    return sfpy_arrow_descrs(&c->arrow_type, &c->descr, &c->storage_descr);
}

static int add_chunk(column *c, struct ArrowArray *array) {
    char err[160];
    if (sf_arrow_check_array(array, &c->arrow_type, err, sizeof err) < 0) {
        array->release(array);
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    if (!c->chunk_room) {
        c->chunks = c->inline_chunks;
        c->chunk_room = COLUMN_INLINE_CHUNKS;
    } else if (c->nchunks == c->chunk_room) {
        const size_t room = 2 * c->chunk_room;
        struct ArrowArray *grown = PyMem_Malloc(room * sizeof *grown);
        if (!grown) {
            array->release(array);
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, c->chunks, c->nchunks * sizeof *grown);
        if (c->chunks != c->inline_chunks)
            PyMem_Free(c->chunks);
        c->chunks = grown;
        c->chunk_room = room;
    }
    c->chunks[c->nchunks++] = *array;
    array->release = NULL; /* moved: the chunk is ours to release */
    c->n += (size_t)array->length;
    return 0;
}

static int from_array_capsules(PyObject *pair, column *c) {
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ must return (schema, array) capsules");
        return -1;
    }
    struct ArrowSchema *schema =
        PyCapsule_GetPointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema");
    struct ArrowArray *array = schema ? PyCapsule_GetPointer(PyTuple_GET_ITEM(pair, 1),
                                                             "arrow_array")
                                      : NULL;
    if (!array)
        return -1;
    if (take_schema(schema, c) < 0)
        return -1; /* the array stays in its capsule, whose destructor releases it */
    return add_chunk(c, array);
}

/* What simdfilter._columns knows about the producer's failure (an old Polars'
 * temporal streams fail in Polars itself): a str, "" if nothing. Asked only when
 * a stream has failed, so no call pays for it. */
static PyObject *failure_hint(PyObject *values) {
    PyObject *module = PyImport_ImportModule("simdfilter._columns");
    PyObject *hint = module ? PyObject_CallMethod(module, "stream_failure_hint", "O", values)
                            : NULL;
    Py_XDECREF(module);
    if (!hint || !PyUnicode_Check(hint)) {
        PyErr_Clear(); /* the producer's own message is the error; a hint is extra */
        Py_XDECREF(hint);
        hint = PyUnicode_FromString("");
    }
    return hint;
}

static int stream_error(struct ArrowArrayStream *stream, int code, PyObject *values) {
    const char *msg = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    PyObject *hint = failure_hint(values);
    if (!hint)
        return -1;
    PyErr_Format(PyExc_ValueError, "the Arrow stream failed (error %d): %s%U", code,
                 msg ? msg : "no message", hint);
    Py_DECREF(hint);
    return -1;
}

static int from_stream_capsule(PyObject *capsule, column *c, PyObject *values) {
    struct ArrowArrayStream *stream = PyCapsule_GetPointer(capsule, "arrow_array_stream");
    if (!stream)
        return -1;
    if (!stream->release) {
        PyErr_SetString(PyExc_ValueError, "the Arrow stream was already consumed");
        return -1;
    }
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    int code = stream->get_schema(stream, &schema);
    if (code != 0)
        return stream_error(stream, code, values);
    const int typed = take_schema(&schema, c);
    schema.release(&schema);
    if (typed < 0)
        return -1;
    /* Every chunk now, so the length (and the result's worst case) is known
     * before the filtering; they are views, nothing is copied. */
    for (;;) {
        struct ArrowArray array;
        memset(&array, 0, sizeof array);
        code = stream->get_next(stream, &array);
        if (code != 0)
            return stream_error(stream, code, values);
        if (!array.release)
            return 0; /* the end of the stream */
        if (add_chunk(c, &array) < 0)
            return -1;
    }
}

int sfpy_arrow_column(PyObject *values, int has_array, column *c) {
    PyObject *exported = PyObject_CallMethod(values, has_array ? "__arrow_c_array__"
                                                               : "__arrow_c_stream__", NULL);
    if (!exported)
        return -1;
    c->form = COLUMN_ARROW;
    const int rc = has_array ? from_array_capsules(exported, c)
                             : from_stream_capsule(exported, c, values);
    Py_DECREF(exported); /* the capsules' destructors release what was not moved */
    return rc;
}

void sfpy_arrow_release(column *c) {
    for (size_t i = 0; i < c->nchunks; i++)
        if (c->chunks[i].release)
            c->chunks[i].release(&c->chunks[i]);
    if (c->chunks != c->inline_chunks)
        PyMem_Free(c->chunks);
    c->chunks = NULL;
    c->nchunks = c->chunk_room = 0;
}

/* The NumPy dtype an Arrow type means, and the one its stored values have
 * (they differ for date32 and time32: 32-bit ticks, a 64-bit NumPy unit). */
int sfpy_arrow_descrs(const sf_arrow_type *t, PyArray_Descr **meaning, PyArray_Descr **storage) {
    static const int numbers[SF_TYPE_COUNT] = {
        [SF_T_BOOL] = NPY_BOOL,    [SF_T_I8] = NPY_INT8,     [SF_T_U8] = NPY_UINT8,
        [SF_T_I16] = NPY_INT16,    [SF_T_U16] = NPY_UINT16,  [SF_T_I32] = NPY_INT32,
        [SF_T_U32] = NPY_UINT32,   [SF_T_I64] = NPY_INT64,   [SF_T_U64] = NPY_UINT64,
        [SF_T_F32] = NPY_FLOAT32,  [SF_T_F64] = NPY_FLOAT64, [SF_T_TIME64] = NPY_INT64,
    };
    *storage = PyArray_DescrFromType(numbers[t->type]);
    if (t->kind == SF_ARROW_NUMBER || t->kind == SF_ARROW_BOOL) {
        Py_INCREF(*storage);
        *meaning = *storage;
        return 0;
    }
    const char *units[] = {"s", "ms", "us", "ns", "D"};
    const char *unit = t->unit == 's' ? units[0] : t->unit == 'm' ? units[1]
                     : t->unit == 'u' ? units[2] : t->unit == 'n' ? units[3] : units[4];
    const int is_datetime = t->kind == SF_ARROW_TIMESTAMP || t->kind == SF_ARROW_DATE;
    PyObject *name = PyUnicode_FromFormat("%s[%s]", is_datetime ? "M8" : "m8", unit);
    if (!name)
        return -1;
    const int ok = PyArray_DescrConverter(name, meaning);
    Py_DECREF(name);
    return ok ? 0 : -1;
}
