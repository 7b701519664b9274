/*
 * The Python binding: argument parsing, bounds, buffers, the GIL, result arrays.
 * It knows nothing of instruction sets: it asks dispatch for the active kernel
 * and hands the driver a job.
 *
 * Bounds are resolved here for the common cases (Python or NumPy ints on integer
 * data, floats on float data) so a call on a small array costs well under a
 * microsecond; everything else (datetimes, strings, Fractions, huge ints on float
 * data...) goes to simdfilter._bounds.resolve, written in Python with exact
 * rational arithmetic. Tests check that both paths agree.
 */
#define PY_SSIZE_T_CLEAN
#define _GNU_SOURCE /* sched_getaffinity */
#include <Python.h>

#include <float.h>
#include <math.h>
#ifdef __linux__
#include <sched.h>
#endif
#include <string.h>
#include <unistd.h>

#define PY_ARRAY_UNIQUE_SYMBOL simdfilter_ARRAY_API
#include <numpy/arrayobject.h>
#include <numpy/arrayscalars.h>

#include "driver.h"
#include "simdfilter.h"

#ifndef __SIZEOF_INT128__
#error "simdfilter's bound arithmetic needs a compiler with __int128 (GCC or Clang, 64-bit)"
#endif
typedef __int128 wide;

/* Elements filtered between two checks for Ctrl-C (and GIL hand-backs). */
#define INTERRUPT_CHUNK ((size_t)1 << 24)
/* Below this many elements the GIL is kept: releasing it costs more than the work. */
#define RELEASE_GIL_MIN ((size_t)1 << 13)

/* ---- What we know of the input's dtype ---------------------------------- */

typedef enum { DOM_INT, DOM_FLOAT } domain_kind;

typedef struct {
    sf_elem kind;
    domain_kind domain;
    int is_time; /* datetime64/timedelta64: bounds go through Python, NaT excluded */
    int is_bool; /* domain [0, 1], but every nonzero byte reads as True */
    wide dmin, dmax; /* integer domains: the representable values (NaT excluded) */
} dtype_info;

static const char SUPPORTED[] =
    "bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float32, float64, "
    "datetime64 and timedelta64";

static int classify_dtype(PyArray_Descr *d, dtype_info *info) {
    int t = d->type_num;
    memset(info, 0, sizeof *info);
    info->domain = DOM_INT;
    if (t == NPY_BOOL) {
        info->kind = SF_U8;
        info->is_bool = 1;
        info->dmin = 0;
        info->dmax = 1;
        return 0;
    }
    if (t == NPY_DATETIME || t == NPY_TIMEDELTA) {
        info->kind = SF_U64;
        info->is_time = 1;
        info->dmin = (wide)INT64_MIN + 1; /* INT64_MIN is NaT, which never matches */
        info->dmax = INT64_MAX;
        return 0;
    }
    if (t == NPY_FLOAT || t == NPY_DOUBLE) {
        info->kind = t == NPY_FLOAT ? SF_F32 : SF_F64;
        info->domain = DOM_FLOAT;
        return 0;
    }
    if (PyTypeNum_ISINTEGER(t)) {
        int bits = (int)PyDataType_ELSIZE(d) * 8;
        switch (bits) {
        case 8: info->kind = SF_U8; break;
        case 16: info->kind = SF_U16; break;
        case 32: info->kind = SF_U32; break;
        case 64: info->kind = SF_U64; break;
        default: goto unsupported;
        }
        if (PyTypeNum_ISSIGNED(t)) {
            info->dmin = -((wide)1 << (bits - 1));
            info->dmax = ((wide)1 << (bits - 1)) - 1;
        } else {
            info->dmin = 0;
            info->dmax = ((wide)1 << bits) - 1;
        }
        return 0;
    }
unsupported:
    PyErr_Format(PyExc_TypeError, "simdfilter supports %s arrays, not %R%s", SUPPORTED,
                 (PyObject *)d,
                 t == NPY_OBJECT ? " (a timezone-aware, nullable or categorical pandas column "
                                   "arrives as object: convert it first, e.g. "
                                   "s.dt.tz_convert(None) or s.to_numpy('int64', na_value=0))"
                                 : "");
    return -1;
}

/* ---- Bounds ---------------------------------------------------------------- */

typedef struct {
    int left_closed, right_closed;
} inclusive_mode;

static int parse_inclusive(PyObject *obj, inclusive_mode *m) {
    if (obj == NULL) {
        m->left_closed = m->right_closed = 1;
        return 0;
    }
    if (PyUnicode_Check(obj)) {
        static const char *const names[] = {"both", "left", "right", "neither"};
        for (int i = 0; i < 4; i++) {
            if (PyUnicode_CompareWithASCIIString(obj, names[i]) == 0) {
                m->left_closed = (i == 0 || i == 1);
                m->right_closed = (i == 0 || i == 2);
                return 0;
            }
        }
    }
    PyErr_Format(PyExc_ValueError,
                 "inclusive must be one of 'both', 'left', 'right', 'neither'; got %R", obj);
    return -1;
}

static PyObject *bounds_module; /* simdfilter._bounds, imported lazily */

/* Python's own verdict for the cases we do not resolve in C. Returns 1 with
 * *r filled, 0 for an empty range, -1 with an exception set. */
static int resolve_in_python(PyArrayObject *arr, PyObject *lo, PyObject *hi,
                             const inclusive_mode *m, const dtype_info *info, sf_range *r) {
    if (!bounds_module) {
        bounds_module = PyImport_ImportModule("simdfilter._bounds");
        if (!bounds_module)
            return -1;
    }
    static const char *const names[] = {"neither", "right", "left", "both"};
    PyObject *res = PyObject_CallMethod(bounds_module, "resolve", "OOOs",
                                        (PyObject *)PyArray_DESCR(arr), lo ? lo : Py_None,
                                        hi ? hi : Py_None,
                                        names[m->left_closed * 2 + m->right_closed]);
    if (!res)
        return -1;
    if (res == Py_None) {
        Py_DECREF(res);
        return 0;
    }
    PyObject *plo, *phi;
    if (!PyTuple_Check(res) || PyTuple_GET_SIZE(res) != 2) {
        Py_DECREF(res);
        PyErr_SetString(PyExc_SystemError, "simdfilter._bounds.resolve returned a bad value");
        return -1;
    }
    plo = PyTuple_GET_ITEM(res, 0);
    phi = PyTuple_GET_ITEM(res, 1);
    memset(r, 0, sizeof *r);
    if (info->domain == DOM_FLOAT) {
        r->flo = PyFloat_AsDouble(plo);
        r->fhi = PyFloat_AsDouble(phi);
    } else {
        /* The domain values of signed data, as two's complement bit patterns. */
        long long a = PyLong_AsLongLong(plo), b;
        if (a == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            r->lo = PyLong_AsUnsignedLongLong(plo);
        } else {
            r->lo = (uint64_t)a;
        }
        b = PyLong_AsLongLong(phi);
        if (b == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            r->hi = PyLong_AsUnsignedLongLong(phi);
        } else {
            r->hi = (uint64_t)b;
        }
    }
    Py_DECREF(res);
    return PyErr_Occurred() ? -1 : 1;
}

/* A bound the C path understands: none, an exact integer, or a double. */
typedef enum { B_NONE, B_INT, B_FLOAT, B_OTHER } bound_kind;

typedef struct {
    bound_kind kind;
    wide i;   /* B_INT, saturated beyond +-2^70: far outside every domain */
    double f; /* B_FLOAT */
} bound;

static const wide BEYOND = (wide)1 << 70;

static int read_bound(PyObject *obj, bound *b) {
    if (obj == NULL || obj == Py_None) {
        b->kind = B_NONE;
        return 0;
    }
    PyObject *as_int = NULL;
    if (PyArray_IsScalar(obj, Bool)) {
        /* np.bool_ has no __index__ (NumPy 2), but it is 0 or 1. */
        b->kind = B_INT;
        int truth = PyObject_IsTrue(obj);
        b->i = truth;
        return truth < 0 ? -1 : 0;
    }
    if (PyLong_Check(obj)) {
        as_int = obj;
        Py_INCREF(as_int);
    } else if (PyArray_IsScalar(obj, Integer) && !PyArray_IsScalar(obj, Timedelta)) {
        /* np.timedelta64 subclasses np.signedinteger; it is no number bound. */
        as_int = PyNumber_Index(obj);
        if (!as_int)
            return -1;
    }
    if (as_int) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(as_int, &overflow);
        b->kind = B_INT;
        if (!overflow) {
            b->i = v;
        } else if (overflow < 0) {
            b->i = -BEYOND;
        } else {
            unsigned long long u = PyLong_AsUnsignedLongLong(as_int);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                b->i = BEYOND;
            } else {
                b->i = (wide)u;
            }
        }
        Py_DECREF(as_int);
        return 0;
    }
    if (PyFloat_Check(obj) || PyArray_IsScalar(obj, Half) || PyArray_IsScalar(obj, Float)) {
        b->kind = B_FLOAT;
        b->f = PyFloat_AsDouble(obj);
        return (b->f == -1.0 && PyErr_Occurred()) ? -1 : 0;
    }
    b->kind = B_OTHER;
    return 0;
}

/* An integer-domain bound as an inclusive wide integer. `lower`: the bound is
 * the low end. `closed`: the bound itself is in the range. Returns 0 if NaN. */
static int int_bound(const bound *b, int lower, int closed, const dtype_info *info, wide *out) {
    if (b->kind == B_NONE) {
        *out = lower ? info->dmin : info->dmax;
        return 1;
    }
    if (b->kind == B_INT) {
        *out = closed ? b->i : (lower ? b->i + 1 : b->i - 1);
        return 1;
    }
    double f = b->f;
    if (isnan(f))
        return 0;
    /* x >= f  <=>  x >= ceil(f) for integers x; x > f  <=>  x >= floor(f) + 1.
     * The +-1 is done on integers: in doubles it vanishes beyond 2^53. */
    double g = (lower == closed) ? ceil(f) : floor(f);
    wide w;
    if (g >= 0x1p70)
        w = BEYOND;
    else if (g <= -0x1p70)
        w = -BEYOND;
    else
        w = (wide)g; /* g is integral and in range: exact */
    *out = closed ? w : (lower ? w + 1 : w - 1);
    return 1;
}

/* The smallest float32 >= d (lower) or largest float32 <= d (upper), made strict
 * when the bound is open. Returns 0 when no float32 qualifies. */
static int f32_bound(double d, int lower, int closed, float *out) {
    float f;
    /* Out of float's finite range: the nearest candidates, chosen by hand
     * because (float)d is undefined there in ISO C. */
    if (d > FLT_MAX)
        f = lower || isinf(d) ? INFINITY : FLT_MAX;
    else if (d < -FLT_MAX)
        f = !lower || isinf(d) ? -INFINITY : -FLT_MAX;
    else
        f = (float)d;
    if (lower) {
        if ((double)f < d || (!closed && (double)f <= d))
            f = nextafterf(f, INFINITY);
        if ((double)f < d || (!closed && (double)f <= d))
            return 0; /* only at +inf */
    } else {
        if ((double)f > d || (!closed && (double)f >= d))
            f = nextafterf(f, -INFINITY);
        if ((double)f > d || (!closed && (double)f >= d))
            return 0;
    }
    *out = f;
    return 1;
}

static int f64_bound(double d, int lower, int closed, double *out) {
    double f = d;
    if (!closed)
        f = nextafter(d, lower ? INFINITY : -INFINITY);
    if (lower ? (f < d || (!closed && f <= d)) : (f > d || (!closed && f >= d)))
        return 0; /* open at +-inf: nothing beyond it */
    *out = f;
    return 1;
}

/* Returns 1 with *r filled, 0 for an empty range, 2 when C cannot decide exactly
 * (the caller asks Python), -1 with an exception set. */
static int resolve_in_c(PyObject *lo, PyObject *hi, const inclusive_mode *m,
                        const dtype_info *info, sf_range *r) {
    bound blo, bhi;
    /* Time bounds (datetimes, strings, units) are Python's; an unbounded side
     * is the domain's end, which the integer path below knows (NaT excluded). */
    const int lo_none = lo == NULL || lo == Py_None, hi_none = hi == NULL || hi == Py_None;
    if (info->is_time && !(lo_none && hi_none))
        return 2;
    if (read_bound(lo, &blo) < 0 || read_bound(hi, &bhi) < 0)
        return -1;
    if (blo.kind == B_OTHER || bhi.kind == B_OTHER)
        return 2;
    memset(r, 0, sizeof *r);
    if (info->domain == DOM_INT) {
        wide a, b;
        if (!int_bound(&blo, 1, m->left_closed, info, &a) ||
            !int_bound(&bhi, 0, m->right_closed, info, &b))
            return 0;
        if (a < info->dmin)
            a = info->dmin;
        if (b > info->dmax)
            b = info->dmax;
        if (a > b)
            return 0;
        r->lo = (uint64_t)a;
        r->hi = (uint64_t)b;
        return 1;
    }
    /* Float data: ints are exact as doubles up to 2^53; beyond, Python decides. */
    double d[2];
    const bound *bs[2] = {&blo, &bhi};
    for (int s = 0; s < 2; s++) {
        if (bs[s]->kind == B_INT) {
            if (bs[s]->i > ((wide)1 << 53) || bs[s]->i < -((wide)1 << 53))
                return 2;
            d[s] = (double)bs[s]->i;
        } else if (bs[s]->kind == B_FLOAT) {
            d[s] = bs[s]->f;
            if (isnan(d[s]))
                return 0;
        } else {
            d[s] = s == 0 ? -INFINITY : INFINITY; /* unbounded: closed at +-inf */
        }
    }
    int lc = blo.kind == B_NONE ? 1 : m->left_closed;
    int rc = bhi.kind == B_NONE ? 1 : m->right_closed;
    if (info->kind == SF_F32) {
        float a, b;
        if (!f32_bound(d[0], 1, lc, &a) || !f32_bound(d[1], 0, rc, &b) || !(a <= b))
            return 0;
        r->flo = a;
        r->fhi = b;
    } else {
        double a, b;
        if (!f64_bound(d[0], 1, lc, &a) || !f64_bound(d[1], 0, rc, &b) || !(a <= b))
            return 0;
        r->flo = a;
        r->fhi = b;
    }
    return 1;
}

/* 1: range in *r; 0: empty; -1: error. */
static int resolve_bounds(PyArrayObject *arr, PyObject *lo, PyObject *hi,
                          const inclusive_mode *m, const dtype_info *info, sf_range *r) {
    int got = resolve_in_c(lo, hi, m, info, r);
    if (got == 2)
        got = resolve_in_python(arr, lo, hi, m, info, r);
    /* NumPy reads any nonzero byte of a bool array as True (views of uint8
     * data hold such bytes): True is the byte range [1, 255]. */
    if (got == 1 && info->is_bool && r->hi == 1)
        r->hi = 0xFF;
    return got;
}

/* ---- Arguments ------------------------------------------------------------- */

typedef enum { OP_INDEXES, OP_VALUES, OP_COUNT } api_op;

typedef struct {
    PyObject *values, *lo, *hi, *inclusive, *out, *index_dtype, *threads;
} call_args;

static const char *const KEYWORDS[] = {"values", "lo", "hi", "inclusive",
                                       "out", "index_dtype", "threads"};
static const char *const OP_NAMES[] = {"filter_indexes", "filter_values", "count_in_range"};

/* Whether the function of `op` takes keyword `k` (index into KEYWORDS). */
static int takes_keyword(api_op op, int k) {
    if (k == 4)
        return op != OP_COUNT;
    if (k == 5)
        return op == OP_INDEXES;
    return 1;
}

static int parse_args(api_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                      call_args *a) {
    PyObject **slots[7] = {&a->values, &a->lo, &a->hi, &a->inclusive,
                           &a->out, &a->index_dtype, &a->threads};
    memset(a, 0, sizeof *a);
    const char *fname = OP_NAMES[op];
    if (nargs > 3) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes 3 positional arguments (values, lo, hi) but %zd were given; "
                     "the others are keyword-only",
                     fname, nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        *slots[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t j = 0; j < nkw; j++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, j);
        int found = -1;
        for (int k = 0; k < 7; k++) {
            if (takes_keyword(op, k) && PyUnicode_CompareWithASCIIString(name, KEYWORDS[k]) == 0) {
                found = k;
                break;
            }
        }
        if (found < 0) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", fname,
                         name);
            return -1;
        }
        if (*slots[found]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname,
                         KEYWORDS[found]);
            return -1;
        }
        *slots[found] = args[nargs + j];
    }
    for (int k = 0; k < 3; k++) {
        if (!*slots[k]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                         KEYWORDS[k]);
            return -1;
        }
    }
    if (a->inclusive == Py_None)
        a->inclusive = NULL;
    if (a->out == Py_None)
        a->out = NULL;
    if (a->index_dtype == Py_None)
        a->index_dtype = NULL;
    if (a->threads == Py_None)
        a->threads = NULL;
    return 0;
}

static int online_cpus = 1;

/* The CPUs this process may run on (its affinity mask, as os.sched_getaffinity
 * tells), not all the machine has: a container or taskset may allow fewer. */
static int count_cpus(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0)
            return c;
    }
#endif
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

/* threads=None: 0, resolved per call by auto_threads once the size is known. */
static int parse_threads(PyObject *obj) {
    if (!obj)
        return 0;
    if (PyBool_Check(obj) || PyArray_IsScalar(obj, Bool) || !PyIndex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "threads must be None or a positive int, not %R", obj);
        return -1;
    }
    PyObject *as_int = PyNumber_Index(obj);
    if (!as_int)
        return -1;
    int overflow = 0;
    long t = PyLong_AsLongAndOverflow(as_int, &overflow);
    Py_DECREF(as_int);
    if (overflow)
        t = overflow > 0 ? 256 : -1; /* more than any machine has: all of them */
    else if (t == -1 && PyErr_Occurred())
        return -1;
    if (t < 1) {
        PyErr_Format(PyExc_ValueError, "threads must be None or >= 1, got %R", obj);
        return -1;
    }
    return t > 256 ? 256 : (int)t;
}

/* ---- Index dtypes -------------------------------------------------------- */

/* uint32, or any 64-bit integer type (int64 and longlong are distinct type
 * numbers for the same dtype on LP64). */
static int is_index_type(PyArray_Descr *d, int *wide64) {
    int t = d->type_num;
    if (!PyTypeNum_ISINTEGER(t))
        return 0;
    if (PyDataType_ELSIZE(d) == 4 && PyTypeNum_ISUNSIGNED(t)) {
        *wide64 = 0;
        return 1;
    }
    if (PyDataType_ELSIZE(d) == 8) {
        *wide64 = 1;
        return 1;
    }
    return 0;
}

/* Input bytes per thread below which threads=None stays on fewer threads.
 * Measured on a 2-core Zen 5 VM (uint32, filter_indexes and count): a second
 * thread loses up to 40% at 4 MiB of input (thread start and join against
 * ~0.3 ms of work) and starts to win from about 16 MiB. */
#define AUTO_BYTES_PER_THREAD ((size_t)8 << 20)

static int auto_threads(size_t nbytes) {
    size_t t = nbytes / AUTO_BYTES_PER_THREAD;
    if (t < 1)
        return 1;
    return t < (size_t)online_cpus ? (int)t : online_cpus;
}

static const char INDEX_TYPES[] = "uint32, int64, uint64 (or intp)";

/* ---- The calls ------------------------------------------------------------- */

/* Bytes [lo, hi) spanned by an array's elements. */
static void extent(PyArrayObject *a, char **lo, char **hi) {
    char *p = PyArray_BYTES(a), *b = p, *e = p;
    npy_intp size = PyArray_SIZE(a);
    if (size == 0) {
        *lo = *hi = p;
        return;
    }
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp span = (PyArray_DIM(a, d) - 1) * PyArray_STRIDE(a, d);
        if (span < 0)
            b += span;
        else
            e += span;
    }
    *lo = b;
    *hi = e + PyArray_ITEMSIZE(a);
}

static int overlaps(PyArrayObject *a, PyArrayObject *b) {
    char *a0, *a1, *b0, *b1;
    extent(a, &a0, &a1);
    extent(b, &b0, &b1);
    return a0 < b1 && b0 < a1;
}

/* Run `job` over the whole array into `out` in chunks, releasing the GIL and
 * checking for Ctrl-C between chunks. Returns the count, or -1 with an error. */
typedef struct {
    PyArrayObject *arr;
    sf_job job; /* kernel, op, kind, range, byteswap filled in */
    int threads;
} run_plan;

static int check_signals(PyThreadState **save) {
    if (*save) {
        PyEval_RestoreThread(*save);
        *save = NULL;
    }
    return PyErr_CheckSignals();
}

static Py_ssize_t run_chunk(sf_job *job, char *out, size_t capacity, size_t rsize, size_t *total,
                            size_t *since_check, PyThreadState **save, int release, int threads) {
    /* Contiguous pieces of at most INTERRUPT_CHUNK elements. */
    size_t n = job->n;
    for (size_t done = 0; done < n;) {
        size_t m = n - done < INTERRUPT_CHUNK ? n - done : INTERRUPT_CHUNK;
        sf_job part = *job;
        part.data = job->data + (ptrdiff_t)done * job->stride;
        part.n = m;
        part.base = job->base + done;
        if (release && !*save)
            *save = PyEval_SaveThread();
        size_t room = *total < capacity ? capacity - *total : 0;
        size_t got = sf_job_run_bounded(&part, out ? out + *total * rsize : NULL, room, threads);
        *total += got;
        done += m;
        *since_check += m;
        if (*since_check >= INTERRUPT_CHUNK) {
            *since_check = 0;
            if (check_signals(save) < 0)
                return -1;
        }
    }
    return 0;
}

/* Rows shorter than this are batched (see run_plan_on), BATCH_ELEMENTS at a time. */
#define SHORT_ROW ((size_t)1024)
#define BATCH_ELEMENTS ((size_t)16384)

/* Step *ptr to the next row of an N-d array in C order: an odometer over every
 * axis but the last. */
static void odometer_next(int nd, const npy_intp *shape, const npy_intp *strides, npy_intp *idx,
                          char **ptr) {
    for (int d = nd - 2; d >= 0; d--) {
        if (++idx[d] < shape[d]) {
            *ptr += strides[d];
            return;
        }
        *ptr -= strides[d] * (shape[d] - 1);
        idx[d] = 0;
    }
}

/* `capacity`: how many results `out` has room for (at least the element count,
 * unless the caller counted first). */
static Py_ssize_t run_plan_on(run_plan *p, char *out, size_t capacity) {
    PyArrayObject *arr = p->arr;
    const size_t n = (size_t)PyArray_SIZE(arr), rsize = sf_job_result_size(&p->job);
    const int release = n >= RELEASE_GIL_MIN;
    PyThreadState *save = NULL;
    size_t total = 0, since_check = 0;
    int nd = PyArray_NDIM(arr);
    int rc = 0;
    sf_job job = p->job;
    if (n == 0)
        return 0;
    if (PyArray_IS_C_CONTIGUOUS(arr) || nd <= 1) {
        job.data = PyArray_BYTES(arr);
        job.n = n;
        job.stride = nd == 1 ? PyArray_STRIDE(arr, 0) : (ptrdiff_t)PyArray_ITEMSIZE(arr);
        job.base = 0;
        rc = run_chunk(&job, out, capacity, rsize, &total, &since_check, &save, release, p->threads);
    } else {
        /* Any other N-d layout: walk the rows (last axis) in C order, so positions
         * come out as np.flatnonzero gives them. An odometer over the outer axes. */
        npy_intp idx[NPY_MAXDIMS] = {0};
        const npy_intp *shape = PyArray_DIMS(arr), *strides = PyArray_STRIDES(arr);
        const size_t row = (size_t)shape[nd - 1], size = (size_t)PyArray_ITEMSIZE(arr);
        const size_t rows = n / row;
        const ptrdiff_t step = strides[nd - 1];
        char *ptr = PyArray_BYTES(arr);
        /* Short rows (a transposed or Fortran-ordered array with few columns)
         * are copied, raw, a batch of rows at a time into a bounded buffer that
         * one kernel call then filters: one call per row would cost more than
         * the filtering. */
        const size_t per_batch = row < SHORT_ROW ? BATCH_ELEMENTS / row : 1;
        char *batch = per_batch > 1 ? PyMem_RawMalloc(per_batch * row * size) : NULL;
        const size_t take = batch ? per_batch : 1;
        for (size_t r = 0; r < rows && rc == 0; r += take) {
            const size_t m = rows - r < take ? rows - r : take;
            if (batch) {
                char *dst = batch;
                for (size_t i = 0; i < m; i++) {
                    for (size_t j = 0; j < row; j++, dst += size)
                        memcpy(dst, ptr + (ptrdiff_t)j * step, size);
                    odometer_next(nd, shape, strides, idx, &ptr);
                }
                job.data = batch;
                job.n = m * row;
                job.stride = (ptrdiff_t)size;
            } else {
                job.data = ptr;
                job.n = row;
                job.stride = step;
                odometer_next(nd, shape, strides, idx, &ptr);
            }
            job.base = (uint64_t)r * row;
            rc = run_chunk(&job, out, capacity, rsize, &total, &since_check, &save, release, p->threads);
        }
        PyMem_RawFree(batch);
    }
    if (save)
        PyEval_RestoreThread(save);
    return rc < 0 ? -1 : (Py_ssize_t)total;
}

static PyObject *masked_array_type; /* numpy.ma.MaskedArray, imported when first needed */

/* A masked array's mask would be silently ignored (its data are read as they
 * are): refuse it rather than answer for the masked elements too. */
static int reject_masked(PyObject *values) {
    if (!masked_array_type) {
        PyObject *ma = PyImport_ImportModule("numpy.ma");
        if (!ma)
            return -1;
        masked_array_type = PyObject_GetAttrString(ma, "MaskedArray");
        Py_DECREF(ma);
        if (!masked_array_type)
            return -1;
    }
    int is_masked = PyObject_IsInstance(values, masked_array_type);
    if (is_masked > 0)
        PyErr_SetString(PyExc_TypeError,
                        "masked arrays are not supported: the mask would be ignored; pass "
                        "m.filled(value) or m.compressed() (positions then refer to it)");
    return is_masked ? -1 : 0;
}

static PyArrayObject *as_array(PyObject *values) {
    if (PyArray_Check(values)) {
        if (!PyArray_CheckExact(values) && reject_masked(values) < 0)
            return NULL;
        Py_INCREF(values);
        return (PyArrayObject *)values;
    }
    /* Array-likes (lists, pandas Series, Arrow arrays...): their own dtype, no
     * cast; NumPy-backed ones come back as views, not copies. */
    return (PyArrayObject *)PyArray_FromAny(values, NULL, 0, 0, 0, NULL);
}

static PyObject *empty_result(PyArray_Descr *descr) {
    npy_intp zero = 0;
    return PyArray_NewFromDescr(&PyArray_Type, descr, 1, &zero, NULL, NULL, 0, NULL);
}

static PyObject *filter_call(api_op op, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames) {
    call_args a;
    if (parse_args(op, args, nargs, kwnames, &a) < 0)
        return NULL;
    inclusive_mode mode;
    if (parse_inclusive(a.inclusive, &mode) < 0)
        return NULL;
    int threads = parse_threads(a.threads);
    if (threads < 0)
        return NULL;

    PyArrayObject *arr = as_array(a.values);
    if (!arr)
        return NULL;
    PyObject *result = NULL;
    PyArray_Descr *res_descr = NULL; /* result element type (owned) */
    PyArrayObject *out = NULL;       /* borrowed */
    dtype_info info;
    if (classify_dtype(PyArray_DESCR(arr), &info) < 0)
        goto done;
    const size_t n = (size_t)PyArray_SIZE(arr);

    /* Result type. */
    sf_op sop = SF_OP_COUNT;
    if (op == OP_INDEXES) {
        int w64 = 0;
        if (a.index_dtype) {
            if (!PyArray_DescrConverter(a.index_dtype, &res_descr))
                goto done;
        } else if (a.out && PyArray_Check(a.out)) {
            res_descr = PyArray_DESCR((PyArrayObject *)a.out);
            Py_INCREF(res_descr);
        } else {
            res_descr = PyArray_DescrFromType(n > (size_t)UINT32_MAX ? NPY_INT64 : NPY_UINT32);
        }
        if (!is_index_type(res_descr, &w64) || !PyArray_ISNBO(res_descr->byteorder)) {
            if (a.index_dtype)
                PyErr_Format(PyExc_TypeError, "index_dtype must be one of %s, not %R",
                             INDEX_TYPES, (PyObject *)res_descr);
            else
                PyErr_Format(PyExc_TypeError,
                             "out has dtype %R; filter_indexes writes positions as one of %s",
                             (PyObject *)res_descr, INDEX_TYPES);
            goto done;
        }
        if (!w64 && n > (size_t)UINT32_MAX) {
            PyErr_Format(PyExc_ValueError,
                         "%zu elements have positions beyond the uint32 range; "
                         "use index_dtype=np.int64",
                         n);
            goto done;
        }
        sop = w64 ? SF_OP_INDEX64 : SF_OP_INDEX32;
    } else if (op == OP_VALUES) {
        res_descr = PyArray_DescrNewByteorder(PyArray_DESCR(arr), NPY_NATIVE);
        if (!res_descr)
            goto done;
        sop = SF_OP_VALUES;
    }

    /* out= is checked whole before anything is written. */
    if (a.out) {
        if (!PyArray_Check(a.out)) {
            PyErr_Format(PyExc_TypeError, "out must be a numpy.ndarray, not %.200s",
                         Py_TYPE(a.out)->tp_name);
            goto done;
        }
        out = (PyArrayObject *)a.out;
        if (!PyArray_EquivTypes(PyArray_DESCR(out), res_descr) ||
            !PyArray_ISNBO(PyArray_DESCR(out)->byteorder)) {
            PyErr_Format(PyExc_TypeError, "out has dtype %R; %s needs %R here",
                         (PyObject *)PyArray_DESCR(out), OP_NAMES[op], (PyObject *)res_descr);
            goto done;
        }
        if (PyArray_NDIM(out) != 1 || !PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISALIGNED(out)) {
            PyErr_SetString(PyExc_ValueError, "out must be a contiguous, aligned 1-d array");
            goto done;
        }
        if (!PyArray_ISWRITEABLE(out)) {
            PyErr_SetString(PyExc_ValueError, "out is read-only");
            goto done;
        }
        if ((size_t)PyArray_SIZE(out) < n) {
            PyErr_Format(PyExc_ValueError,
                         "out has %zd elements; it needs at least values.size = %zu",
                         PyArray_SIZE(out), n);
            goto done;
        }
        if (overlaps(out, arr)) {
            PyErr_SetString(PyExc_ValueError, "out must not share memory with values");
            goto done;
        }
    }

    run_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.arr = arr;
    plan.threads = threads ? threads : auto_threads(n * (size_t)PyArray_ITEMSIZE(arr));
    plan.job.op = sop;
    plan.job.kind = info.kind;
    plan.job.byteswap = PyArray_ISBYTESWAPPED(arr) && PyArray_ITEMSIZE(arr) > 1;
    int nonempty = resolve_bounds(arr, a.lo, a.hi, &mode, &info, &plan.job.range);
    if (nonempty < 0)
        goto done;

    if (op == OP_COUNT) {
        Py_ssize_t k = 0;
        if (nonempty) {
            plan.job.kernel = sf_active_kernel();
            k = run_plan_on(&plan, NULL, 0);
            if (k < 0)
                goto done;
        }
        result = PyLong_FromSsize_t(k);
        goto done;
    }

    if (out) {
        Py_ssize_t k = 0;
        if (nonempty) {
            plan.job.kernel = sf_active_kernel();
            k = run_plan_on(&plan, PyArray_BYTES(out), n);
            if (k < 0)
                goto done;
        }
        PyObject *stop = PyLong_FromSsize_t(k);
        PyObject *slice = stop ? PySlice_New(NULL, stop, NULL) : NULL;
        Py_XDECREF(stop);
        if (slice) {
            result = PyObject_GetItem((PyObject *)out, slice);
            Py_DECREF(slice);
        }
        goto done;
    }

    if (!nonempty || n == 0) {
        result = empty_result(res_descr);
        res_descr = NULL; /* stolen */
        goto done;
    }

    /* A worst-case result, filled in one pass, then shrunk to its exact size:
     * the pages past what the kernel wrote were never touched, so they never
     * cost physical memory, and realloc gives them back without copying. */
    npy_intp dim = (npy_intp)n;
    Py_INCREF(res_descr); /* kept for the fallback below */
    PyArrayObject *res = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, res_descr, 1, &dim,
                                                               NULL, NULL, 0, NULL);
    plan.job.kernel = sf_active_kernel();
    if (!res) {
        /* No room for the worst case (huge n, tight limits): count, then fill an
         * exact-size result. Two passes over the input, but it works. */
        if (!PyErr_ExceptionMatches(PyExc_MemoryError))
            goto done;
        PyErr_Clear();
        sf_op fill_op = plan.job.op;
        plan.job.op = SF_OP_COUNT;
        Py_ssize_t need = run_plan_on(&plan, NULL, 0);
        if (need < 0)
            goto done;
        npy_intp exact = need;
        res = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, res_descr, 1, &exact,
                                                    NULL, NULL, 0, NULL);
        res_descr = NULL; /* stolen */
        if (!res)
            goto done;
        plan.job.op = fill_op;
        if (run_plan_on(&plan, PyArray_BYTES(res), (size_t)need) < 0) {
            Py_DECREF(res);
            goto done;
        }
        result = (PyObject *)res;
        goto done;
    }
    Py_ssize_t k = run_plan_on(&plan, PyArray_BYTES(res), n);
    if (k < 0) {
        Py_DECREF(res);
        goto done;
    }
    if ((size_t)k < n) {
        npy_intp newdim = k;
        PyArray_Dims shape = {&newdim, 1};
        PyObject *none = PyArray_Resize(res, &shape, 0, NPY_CORDER);
        if (!none) {
            Py_DECREF(res);
            goto done;
        }
        Py_DECREF(none);
    }
    result = (PyObject *)res;

done:
    Py_XDECREF(res_descr);
    Py_DECREF(arr);
    return result;
}

/* ---- Module functions ------------------------------------------------------ */

PyDoc_STRVAR(filter_indexes_doc,
"filter_indexes(values, lo, hi, *, inclusive='both', out=None, index_dtype=None, threads=None)\n"
"--\n"
"\n"
"Positions of the elements of `values` that lie between `lo` and `hi`.\n"
"\n"
"Equivalent to ``np.flatnonzero((values >= lo) & (values <= hi))``, in one pass\n"
"over memory with the fastest SIMD kernel this CPU supports, no temporary masks,\n"
"and 32-bit positions by default.\n"
"\n"
"Parameters\n"
"----------\n"
"values : array_like\n"
"    Data to search: bool, int8..uint64, float32, float64, datetime64 or\n"
"    timedelta64. NumPy arrays are read in place, never copied (read-only,\n"
"    memory-mapped, offset, strided, byte-swapped and N-d arrays included); a\n"
"    pandas Series or other array-like is viewed through ``np.asarray``. N-d\n"
"    arrays give flat C-order positions, like ``np.flatnonzero``.\n"
"lo, hi : scalar or None\n"
"    The bounds. Compared mathematically, never wrapped or rounded: ``lo=-1`` on\n"
"    unsigned data or ``hi=2**70`` behave as arithmetic says; ``lo=1.5`` on\n"
"    integers keeps values >= 2. None means unbounded on that side. ``lo > hi``\n"
"    or a NaN (NaT) bound gives an empty result. Datetime data takes\n"
"    ``np.datetime64``, ``datetime``/``date``, ``pandas.Timestamp`` or ISO strings.\n"
"inclusive : {'both', 'left', 'right', 'neither'}, default 'both'\n"
"    Which bounds are part of the range, as in ``pandas.Series.between``.\n"
"out : numpy.ndarray, optional\n"
"    Contiguous 1-d array of the index dtype with at least ``values.size``\n"
"    elements. The result is then the view ``out[:k]`` and nothing is allocated;\n"
"    ``out[k:values.size]`` is scratch afterwards (whole vectors are stored).\n"
"index_dtype : dtype, optional\n"
"    uint32 (the default below 2**32 elements), int64 (the default above;\n"
"    also ``np.intp``) or uint64.\n"
"threads : int, optional\n"
"    Up to this many threads (each gets at least 2**18 elements). None: one\n"
"    thread per 8 MiB of input, up to the CPUs available to the process.\n"
"    The result is the same whatever the thread count.\n"
"\n"
"Returns\n"
"-------\n"
"numpy.ndarray\n"
"    Ascending positions, exact length, a normal writable array.\n"
"\n"
"Raises\n"
"------\n"
"TypeError\n"
"    Unsupported dtype (object, complex, strings, float16...), bounds of the\n"
"    wrong kind, or an `out` / `index_dtype` of the wrong type.\n"
"ValueError\n"
"    Bad `inclusive`, `out` too small, read-only, non-contiguous or sharing\n"
"    memory with `values`, uint32 positions for 2**32 elements or more.\n"
"\n"
"Notes\n"
"-----\n"
"NaN and NaT never match. -0.0 equals 0.0. The GIL is released while the kernel\n"
"runs, and Ctrl-C interrupts a long call.\n"
"\n"
"Examples\n"
"--------\n"
">>> import numpy as np, simdfilter\n"
">>> years = np.array([1992, 2018, 1934, 2002, 2022, 1998, 1972, 1996], dtype=np.uint32)\n"
">>> simdfilter.filter_indexes(years, 1982, 2000)\n"
"array([0, 5, 7], dtype=uint32)\n"
">>> simdfilter.filter_indexes(years, 1982, 2000, inclusive='neither', index_dtype=np.int64)\n"
"array([0, 5, 7])\n");

static PyObject *py_filter_indexes(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    (void)self;
    return filter_call(OP_INDEXES, args, nargs, kwnames);
}

PyDoc_STRVAR(filter_values_doc,
"filter_values(values, lo, hi, *, inclusive='both', out=None, threads=None)\n"
"--\n"
"\n"
"The elements of `values` that lie between `lo` and `hi`, in order.\n"
"\n"
"Equivalent to ``values.ravel()[(values >= lo) & (values <= hi)]``, with the same\n"
"kernels, bounds and layouts as `filter_indexes`.\n"
"\n"
"Parameters\n"
"----------\n"
"values : array_like\n"
"    As in `filter_indexes`.\n"
"lo, hi : scalar or None\n"
"    As in `filter_indexes`.\n"
"inclusive : {'both', 'left', 'right', 'neither'}, default 'both'\n"
"out : numpy.ndarray, optional\n"
"    Contiguous 1-d array of the values' dtype (native byte order) with at least\n"
"    ``values.size`` elements; the result is then ``out[:k]`` and\n"
"    ``out[k:values.size]`` is scratch.\n"
"threads : int, optional\n"
"    As in `filter_indexes`.\n"
"\n"
"Returns\n"
"-------\n"
"numpy.ndarray\n"
"    The matching elements, same dtype as `values` in native byte order.\n"
"\n"
"Examples\n"
"--------\n"
">>> import numpy as np, simdfilter\n"
">>> simdfilter.filter_values(np.array([5, -3, 12, 7], dtype=np.int16), 0, 10)\n"
"array([5, 7], dtype=int16)\n");

static PyObject *py_filter_values(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                  PyObject *kwnames) {
    (void)self;
    return filter_call(OP_VALUES, args, nargs, kwnames);
}

PyDoc_STRVAR(count_in_range_doc,
"count_in_range(values, lo, hi, *, inclusive='both', threads=None)\n"
"--\n"
"\n"
"How many elements of `values` lie between `lo` and `hi`.\n"
"\n"
"Same semantics as `filter_indexes`; allocates nothing.\n"
"\n"
"Returns\n"
"-------\n"
"int\n"
"\n"
"Examples\n"
"--------\n"
">>> import numpy as np, simdfilter\n"
">>> simdfilter.count_in_range(np.arange(100, dtype=np.uint32), 10, 19)\n"
"10\n");

static PyObject *py_count_in_range(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames) {
    (void)self;
    return filter_call(OP_COUNT, args, nargs, kwnames);
}

static PyObject *kernel_names(int only_supported) {
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    for (int i = 0; i < sf_kernel_count(); i++) {
        const sf_kernel *k = sf_kernel_at(i);
        if (only_supported && !sf_kernel_supported(k))
            continue;
        PyObject *s = PyUnicode_FromString(k->name);
        if (!s || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    PyObject *t = PyList_AsTuple(list);
    Py_DECREF(list);
    return t;
}

static PyObject *py_available_kernels(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return kernel_names(1);
}

static PyObject *py_compiled_kernels(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return kernel_names(0);
}

static PyObject *py_active_kernel(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyUnicode_FromString(sf_active_kernel()->name);
}

static PyObject *py_set_kernel(PyObject *self, PyObject *arg) {
    (void)self;
    Py_ssize_t len;
    const char *name = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!name)
        return NULL;
    if ((size_t)len != strlen(name)) { /* an embedded NUL would cut the name short */
        PyErr_Format(PyExc_ValueError, "unknown kernel %R", arg);
        return NULL;
    }
    PyObject *previous = PyUnicode_FromString(sf_active_kernel()->name);
    if (!previous)
        return NULL;
    int rc = sf_use_kernel(name);
    if (rc == SF_OK)
        return previous;
    Py_DECREF(previous);
    PyObject *avail = kernel_names(1);
    if (!avail)
        return NULL;
    PyErr_Format(PyExc_ValueError, "%s kernel %R; available kernels: %R",
                 rc == SF_EUNKNOWN ? "unknown" : "this CPU or OS cannot run the", arg, avail);
    Py_DECREF(avail);
    return NULL;
}

static PyObject *py_cpu_features(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    char text[256];
    size_t len = sf_cpu_features(text, sizeof text);
    if (len >= sizeof text) { /* cannot happen with today's short list; stay honest */
        PyErr_SetString(PyExc_SystemError, "sf_cpu_features: buffer too small");
        return NULL;
    }
    return PyUnicode_FromStringAndSize(text, (Py_ssize_t)len);
}

static PyMethodDef methods[] = {
    {"filter_indexes", (PyCFunction)(void (*)(void))py_filter_indexes,
     METH_FASTCALL | METH_KEYWORDS, filter_indexes_doc},
    {"filter_values", (PyCFunction)(void (*)(void))py_filter_values,
     METH_FASTCALL | METH_KEYWORDS, filter_values_doc},
    {"count_in_range", (PyCFunction)(void (*)(void))py_count_in_range,
     METH_FASTCALL | METH_KEYWORDS, count_in_range_doc},
    {"available_kernels", py_available_kernels, METH_NOARGS,
     "available_kernels()\n--\n\nKernels this CPU and OS can run, slowest first."},
    {"compiled_kernels", py_compiled_kernels, METH_NOARGS,
     "compiled_kernels()\n--\n\nKernels compiled into this build, slowest first."},
    {"active_kernel", py_active_kernel, METH_NOARGS,
     "active_kernel()\n--\n\nName of the kernel in use."},
    {"_set_kernel", py_set_kernel, METH_O,
     "_set_kernel(name)\n--\n\nMake `name` the active kernel; returns the previous one."},
    {"cpu_features", py_cpu_features, METH_NOARGS,
     "cpu_features()\n--\n\nThe CPU features dispatch detected (and the OS enabled)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "simdfilter._core",
    "C core of simdfilter: kernels, dispatch and the NumPy binding.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    import_array();
    online_cpus = count_cpus();
    PyObject *m = PyModule_Create(&moduledef);
    if (!m)
        return NULL;
    if (PyModule_AddStringConstant(m, "__version__", SIMDFILTER_VERSION) < 0 ||
        PyModule_AddIntConstant(m, "cpu_count", online_cpus) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
