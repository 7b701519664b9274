/*
 * Arrow columns through the Arrow PyCapsule interface: __arrow_c_array__
 * (one array) or __arrow_c_stream__ (a stream of chunks), consumed here in C.
 * The arrays and the stream are moved out of their capsules (their release
 * callbacks become ours, the capsules' set to NULL as the protocol says) and
 * released on every path, success or error: the arrays by
 * sfpy_column_release, the stream once drained. A producer may hand out the
 * same capsules twice (caching them is legal Python): the second time they
 * hold released structs, which are refused with an error, never read.
 */
#include "binding.h"

#include <string.h>

/* A producer's release callback may be Python code (ctypes, cffi), and so may
 * a capsule's destructor; Python code must not run while this call's own
 * exception is pending (CPython would report "error return without exception
 * set", or lose the exception). It is set aside while they run. */
typedef struct pending {
    PyObject *type, *value, *traceback;
} pending;

static pending set_aside(void) {
    pending p;
    PyErr_Fetch(&p.type, &p.value, &p.traceback);
    return p;
}

static void put_back(pending p) {
    PyErr_Restore(p.type, p.value, p.traceback);
}

/* An Arrow struct's release called once, the pending exception set aside
 * (a producer's release may run Python). The C data interface has a release
 * callback mark its struct released; a producer that forgets must still not
 * be called twice, so the mark is made here too. One macro for the three
 * struct types, which C cannot take as one parameter. */
#define RELEASE_ONCE(x)                                                                          \
    do {                                                                                         \
        if ((x)->release) {                                                                      \
            const pending p_ = set_aside();                                                      \
            (x)->release(x);                                                                     \
            (x)->release = NULL;                                                                 \
            put_back(p_);                                                                        \
        }                                                                                        \
    } while (0)

static void release_array(struct ArrowArray *a) {
    RELEASE_ONCE(a);
}

static void release_schema(struct ArrowSchema *s) {
    RELEASE_ONCE(s);
}

static void release_stream(struct ArrowArrayStream *s) {
    RELEASE_ONCE(s);
}

/* The capsule named `name` in obj, or NULL with a TypeError of ours (not
 * PyCapsule_GetPointer's "called with incorrect name"). */
static void *capsule_pointer(PyObject *obj, const char *name, const char *method) {
    if (!PyCapsule_IsValid(obj, name)) {
        PyErr_Format(PyExc_TypeError,
                     "%s returned %.100s where the Arrow PyCapsule interface has a capsule "
                     "named '%s'",
                     method, Py_TYPE(obj)->tp_name, name);
        return NULL;
    }
    return PyCapsule_GetPointer(obj, name);
}

static int arrow_type_error(const char *message) {
    PyErr_SetString(PyExc_TypeError, message);
    return -1;
}

/* The column's type, its NumPy meaning and its zone, from an Arrow schema. */
static int take_schema(const struct ArrowSchema *schema, column *c) {
    char err[320];
    if (!schema->release) {
        PyErr_SetString(PyExc_ValueError,
                        "the Arrow schema was already released (a producer's capsules are "
                        "for one consumer: return new ones from each call)");
        return -1;
    }
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

static int add_chunk(column *c, struct ArrowArray *producers) {
    char err[160];
    /* Moved first, then checked: the producer's struct (a capsule's) may be
     * written while this reads it, so the copy is what is checked, kept and
     * counted. */
    struct ArrowArray chunk = *producers;
    producers->release = NULL; /* moved: the chunk is ours to release */
    struct ArrowArray *array = &chunk;
    if (sf_arrow_check_array(array, &c->arrow_type, err, sizeof err) < 0) {
        release_array(array);
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    if ((uint64_t)array->length > (uint64_t)PY_SSIZE_T_MAX - c->n) {
        release_array(array);
        PyErr_SetString(PyExc_ValueError,
                        "the Arrow column's chunks hold more elements than a Python "
                        "sequence can (their lengths add up past 2**63 - 1)");
        return -1;
    }
    if (!c->chunk_room) {
        c->chunks = c->inline_chunks;
        c->chunk_room = COLUMN_INLINE_CHUNKS;
    } else if (c->nchunks == c->chunk_room) {
        const size_t room = 2 * c->chunk_room;
        struct ArrowArray *grown = PyMem_Malloc(room * sizeof *grown);
        if (!grown) {
            release_array(array);
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
    c->n += (size_t)array->length;
    return 0;
}

static int from_array_capsules(PyObject *pair, column *c) {
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ must return (schema, array) capsules");
        return -1;
    }
    struct ArrowSchema *schema =
        capsule_pointer(PyTuple_GET_ITEM(pair, 0), "arrow_schema", "__arrow_c_array__");
    struct ArrowArray *array = schema ? capsule_pointer(PyTuple_GET_ITEM(pair, 1),
                                                        "arrow_array", "__arrow_c_array__")
                                      : NULL;
    if (!array)
        return -1;
    if (!array->release) {
        PyErr_SetString(PyExc_ValueError,
                        "the Arrow array was already released (a producer's capsules are for "
                        "one consumer: __arrow_c_array__ must return new ones from each call)");
        return -1;
    }
    if (take_schema(schema, c) < 0)
        return -1; /* the array stays in its capsule, whose destructor releases it */
    return add_chunk(c, array);
}

/* What simdfilter._columns knows about the producer's failure (an old Polars'
 * temporal streams fail in Polars itself): a str, "" if nothing. Asked only when
 * a stream has failed, so no call pays for it. */
static PyObject *failure_hint(const sfpy_state *st, PyObject *values) {
    PyObject *helper = sfpy_helper_get(st, SFPY_STREAM_FAILURE_HINT);
    PyObject *hint = helper ? PyObject_CallOneArg(helper, values) : NULL;
    if (!hint || !PyUnicode_Check(hint)) {
        PyErr_Clear(); /* the producer's own message is the error; a hint is extra */
        Py_XDECREF(hint);
        hint = PyUnicode_FromString("");
    }
    return hint;
}

static int stream_error(const column *c, struct ArrowArrayStream *stream, int code,
                        PyObject *values) {
    const char *msg = stream->get_last_error ? stream->get_last_error(stream) : NULL;
    PyObject *hint = failure_hint(c->st, values);
    if (!hint)
        return -1;
    PyErr_Format(PyExc_ValueError, "the Arrow stream failed (error %d): %s%U", code,
                 msg ? msg : "no message", hint);
    Py_DECREF(hint);
    return -1;
}

static int drain_stream(struct ArrowArrayStream *stream, column *c, PyObject *values) {
    if (!stream->get_schema || !stream->get_next) {
        PyErr_SetString(PyExc_ValueError,
                        "the Arrow stream is malformed: it has no get_schema or get_next");
        return -1;
    }
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    int code = stream->get_schema(stream, &schema);
    if (code != 0)
        return stream_error(c, stream, code, values);
    const int typed = take_schema(&schema, c);
    release_schema(&schema);
    if (typed < 0)
        return -1;
    /* Every chunk now, so the length (and the result's worst case) is known
     * before the filtering; they are views, nothing is copied. */
    for (;;) {
        struct ArrowArray array;
        memset(&array, 0, sizeof array);
        code = stream->get_next(stream, &array);
        if (code != 0)
            return stream_error(c, stream, code, values);
        if (!array.release)
            return 0; /* the end of the stream */
        if (add_chunk(c, &array) < 0)
            return -1;
    }
}

static int from_stream_capsule(PyObject *capsule, column *c, PyObject *values) {
    struct ArrowArrayStream *held =
        capsule_pointer(capsule, "arrow_array_stream", "__arrow_c_stream__");
    if (!held)
        return -1;
    if (!held->release) {
        PyErr_SetString(PyExc_ValueError,
                        "the Arrow stream was already consumed (a producer's capsules are for "
                        "one consumer: __arrow_c_stream__ must return a new one from each call)");
        return -1;
    }
    /* Moved out first, as pyarrow's importer does: the capsule is marked
     * consumed whatever happens next, so the same capsule handed over again
     * is refused instead of read as an empty stream. The arrays drained from
     * a stream outlive it (the interface says so): it is released here. */
    struct ArrowArrayStream stream = *held;
    held->release = NULL;
    const int rc = drain_stream(&stream, c, values);
    release_stream(&stream);
    return rc;
}

int sfpy_arrow_column(PyObject *values, int has_array, column *c) {
    PyObject *exported = PyObject_CallMethod(values, has_array ? "__arrow_c_array__"
                                                               : "__arrow_c_stream__", NULL);
    if (!exported)
        return -1;
    c->form = COLUMN_ARROW;
    const int rc = has_array ? from_array_capsules(exported, c)
                             : from_stream_capsule(exported, c, values);
    const pending p = set_aside();
    Py_DECREF(exported); /* the capsules' destructors release what was not moved */
    put_back(p);
    return rc;
}

int sfpy_column_source_refused(const column *c, const column_source *s) {
    if (c->form != COLUMN_ARROW || !s->arrow.refused)
        return 0;
    PyErr_SetString(PyExc_ValueError,
                    "an Arrow chunk's values buffer became NULL after simdfilter checked it "
                    "(its producer changed the array it handed over): the column could not be "
                    "read whole");
    return -1;
}

void sfpy_arrow_release(column *c) {
    for (size_t i = 0; i < c->nchunks; i++)
        release_array(&c->chunks[i]);
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
