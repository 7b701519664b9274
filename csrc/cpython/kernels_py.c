/*
 * Which kernel a call runs. The process default is the library's (dispatch);
 * a `with use_kernel(...)` block sets the context variable kernel_context,
 * local to its thread or asyncio task (as decimal.localcontext and NumPy 2's
 * errstate are), and every call reads it and passes the kernel in its query.
 */
#include "binding.h"

#include <string.h>

const sf_kernel *sfpy_context_kernel(const sfpy_state *st) {
    PyObject *v = NULL;
    if (PyContextVar_Get(st->kernel_context, NULL, &v) < 0)
        return SFPY_KERNEL_ERROR;
    if (!v)
        return NULL;
    const long i = PyLong_AsLong(v);
    Py_DECREF(v);
    /* Past the kernels: a benchmark-only variant (see py_kernel_index). */
    const int count = sf_kernel_count();
    const sf_kernel *k = i < 0         ? NULL
                         : i < count ? sf_kernel_at((int)i)
                                     : sf_kernel_variant_at((int)(i - count));
    if (!k) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_SystemError, "simdfilter: a bad kernel in kernel_context");
        return SFPY_KERNEL_ERROR;
    }
    return k;
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

/* "x86-64" as people write it; "aarch64" as it is; an architecture with no
 * SIMD kernel ("any") as "this architecture's". */
static const char *arch_display(const char *arch) {
    return strcmp(arch, "x86_64") == 0 ? "x86-64"
           : strcmp(arch, "any") == 0  ? "this architecture's"
                                       : arch;
}

/* A ValueError saying why the kernel `arg` (its UTF-8 `name`) cannot be used:
 * rc is what sf_kernel_select or sf_kernel_choice answered. `prefix` goes first
 * ("" or "SIMDFILTER_KERNEL='x': "). Returns NULL. */
static PyObject *refuse(PyObject *arg, const char *name, int rc, const char *prefix) {
    PyObject *avail = kernel_names(1);
    if (!avail)
        return NULL;
    const char *arch = rc == SF_ENOTBUILT ? sf_kernel_arch(name) : NULL;
    if (rc == SF_ENOTBUILT && arch && strcmp(arch, SF_BUILD_ARCH) != 0)
        PyErr_Format(PyExc_ValueError, "%s%R is an %s kernel, not in this %s build; "
                     "available kernels: %R", prefix, arg, arch_display(arch),
                     arch_display(SF_BUILD_ARCH), avail);
    else if (rc == SF_ENOTBUILT)
        PyErr_Format(PyExc_ValueError, "%sthe kernel %R was left out of this build "
                     "(SIMDFILTER_DISABLE_KERNELS); available kernels: %R", prefix, arg, avail);
    else if (rc == SF_EUNSUPPORTED)
        PyErr_Format(PyExc_ValueError, "%sthis CPU or OS cannot run the kernel %R; "
                     "available kernels: %R", prefix, arg, avail);
    else
        PyErr_Format(PyExc_ValueError, "%sunknown kernel %R; available kernels: %R", prefix, arg,
                     avail);
    Py_DECREF(avail);
    return NULL;
}

/* The runnable kernel `arg` names, or NULL with a ValueError that says why not. */
static const sf_kernel *select_kernel(PyObject *arg) {
    Py_ssize_t len;
    const char *name = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!name)
        return NULL;
    const sf_kernel *k = NULL;
    /* An embedded NUL would cut the name short: such a name is unknown. */
    const int rc = (size_t)len == strlen(name) ? sf_kernel_select(name, &k) : SF_EUNKNOWN;
    if (rc == SF_OK)
        return k;
    refuse(arg, name, rc, "");
    return NULL;
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
    (void)unused;
    const sf_kernel *k = sfpy_context_kernel(sfpy_state_of(self));
    if (k == SFPY_KERNEL_ERROR)
        return NULL;
    return PyUnicode_FromString((k ? k : sf_active_kernel())->name);
}

static PyObject *py_set_default_kernel(PyObject *self, PyObject *arg) {
    (void)self;
    const sf_kernel *k = select_kernel(arg);
    if (!k)
        return NULL;
    PyObject *previous = PyUnicode_FromString(sf_active_kernel()->name);
    if (previous && sf_use_kernel(k->name) != SF_OK) /* select_kernel vouched for it */
        Py_CLEAR(previous);
    return previous;
}

static PyObject *py_kernel_index(PyObject *self, PyObject *arg) {
    (void)self;
    const sf_kernel *k = select_kernel(arg);
    if (!k)
        return NULL;
    for (int i = 0; i < sf_kernel_count(); i++)
        if (sf_kernel_at(i) == k)
            return PyLong_FromLong(i);
    /* A benchmark-only variant ("avx2_dense"): numbered after the kernels. */
    for (int v = 0; v < sf_kernel_variant_count(); v++)
        if (sf_kernel_variant_at(v) == k)
            return PyLong_FromLong(sf_kernel_count() + v);
    PyErr_SetString(PyExc_SystemError, "simdfilter: a kernel missing from its own table");
    return NULL;
}

/* _kernel_choice(arch, features, requested=None): sf_kernel_choice for a
 * described CPU, the name or None for a refused request; ValueError for an
 * unknown architecture or feature. */
static PyObject *py_kernel_choice(PyObject *self, PyObject *args) {
    (void)self;
    const char *arch, *features, *requested = NULL, *name = NULL;
    if (!PyArg_ParseTuple(args, "ss|z:_kernel_choice", &arch, &features, &requested))
        return NULL;
    const int rc = sf_kernel_choice(arch, features, requested, &name);
    if (rc == SF_EINVAL)
        return PyErr_Format(PyExc_ValueError, "unknown architecture %s or a feature of %s "
                            "that sf_cpu_features never prints", arch, features);
    if (rc != SF_OK)
        return Py_BuildValue("(Oi)", Py_None, rc);
    return Py_BuildValue("(si)", name, rc);
}

/* _not_default_reason(name, arch=None, features=None): why dispatch's rule
 * does not make `name` the default (sf_kernel_not_default_reason): a sentence,
 * or None for the default. No arch: this machine. */
static PyObject *py_not_default_reason(PyObject *self, PyObject *args) {
    (void)self;
    const char *name, *arch = NULL, *features = NULL;
    if (!PyArg_ParseTuple(args, "s|zz:_not_default_reason", &name, &arch, &features))
        return NULL;
    if (!arch != !features)
        return PyErr_Format(PyExc_ValueError, "describe a CPU by both arch and features, "
                            "or by neither (this machine)");
    const char *why = sf_kernel_not_default_reason(arch, features, name);
    if (!why)
        Py_RETURN_NONE;
    return PyUnicode_FromString(why);
}

/* _environment_kernel(): None if SIMDFILTER_KERNEL, as the library read it, is
 * unset, blank or a kernel this CPU runs; else a ValueError saying why the
 * library refused it (its own answer: the value is not judged again here). */
static PyObject *py_environment_kernel(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    const char *value = NULL;
    const int rc = sf_kernel_env_status(&value);
    if (rc == SF_OK)
        Py_RETURN_NONE;
    /* The name as the library read it, without its blanks (63 bytes at most). */
    const char *start = value ? value : "";
    const size_t len = strlen(start);
    PyObject *arg = PyUnicode_DecodeFSDefaultAndSize(start, (Py_ssize_t)len);
    if (arg && len >= 63) { /* the library keeps 63 bytes of it */
        PyObject *cut = PyUnicode_FromFormat("%U...", arg);
        Py_SETREF(arg, cut);
    }
    if (!arg)
        return NULL;
    PyObject *prefix = PyUnicode_FromFormat("%s=%R: ", SF_KERNEL_ENV, arg);
    const char *p = prefix ? PyUnicode_AsUTF8(prefix) : NULL;
    if (p)
        refuse(arg, start, rc, p);
    Py_XDECREF(prefix);
    Py_DECREF(arg);
    return NULL;
}

static PyObject *py_default_kernel(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyUnicode_FromString(sf_best_kernel()->name);
}

static PyObject *py_cpu_features(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    char text[256];
    const size_t len = sf_cpu_features(text, sizeof text);
    if (len >= sizeof text) { /* cannot happen with today's short list; stay honest */
        PyErr_SetString(PyExc_SystemError, "sf_cpu_features: buffer too small");
        return NULL;
    }
    return PyUnicode_FromStringAndSize(text, (Py_ssize_t)len);
}

PyMethodDef sfpy_kernel_methods[] = {
    {"available_kernels", py_available_kernels, METH_NOARGS,
     "available_kernels()\n--\n\nKernels this CPU and OS can run, slowest first."},
    {"compiled_kernels", py_compiled_kernels, METH_NOARGS,
     "compiled_kernels()\n--\n\nKernels compiled into this build, slowest first."},
    {"active_kernel", py_active_kernel, METH_NOARGS,
     "active_kernel()\n--\n\nName of the kernel a call made here runs: the one of the "
     "innermost\n``with use_kernel(...)`` block of this thread or task, else the process "
     "default."},
    {"_set_default_kernel", py_set_default_kernel, METH_O,
     "_set_default_kernel(name)\n--\n\nMake `name` the process default kernel; returns the "
     "previous default."},
    {"_kernel_index", py_kernel_index, METH_O,
     "_kernel_index(name)\n--\n\nThe table index of the runnable kernel `name`, for "
     "kernel_context;\nValueError saying why a name cannot be used."},
    {"_kernel_choice", py_kernel_choice, METH_VARARGS,
     "_kernel_choice(arch, features, requested=None)\n--\n\nDispatch's rule for a described CPU "
     "(sf_kernel_choice): (name, 0),\nor (None, the library's error code) for a refused "
     "request."},
    {"_not_default_reason", py_not_default_reason, METH_VARARGS,
     "_not_default_reason(name, arch=None, features=None)\n--\n\nWhy dispatch's rule does not "
     "make `name` the default (of this machine,\nor of a described CPU): a sentence, or None "
     "for the default."},
    {"_environment_kernel", py_environment_kernel, METH_NOARGS,
     "_environment_kernel()\n--\n\nNone if SIMDFILTER_KERNEL, as the library read it, is "
     "unset or usable;\nelse raises the ValueError that says why the library refused it."},
    {"default_kernel", py_default_kernel, METH_NOARGS,
     "default_kernel()\n--\n\nThe kernel dispatch's rule picks for this CPU and OS: the "
     "process default\nunless SIMDFILTER_KERNEL or use_kernel chose another."},
    {"cpu_features", py_cpu_features, METH_NOARGS,
     "cpu_features()\n--\n\nThe CPU features dispatch detected (and the OS enabled)."},
    {NULL, NULL, 0, NULL},
};

/* The module's kernel_context (in its state, and as an attribute the package's
 * use_kernel sets) and the kernel functions. 0 or -1. */
int sfpy_add_kernel_functions(PyObject *module) {
    sfpy_state *st = sfpy_state_of(module);
    st->kernel_context = PyContextVar_New("simdfilter.kernel_context", NULL);
    if (!st->kernel_context)
        return -1;
    Py_INCREF(st->kernel_context);
    if (PyModule_AddObject(module, "kernel_context", st->kernel_context) < 0) {
        Py_DECREF(st->kernel_context);
        return -1;
    }
    return PyModule_AddFunctions(module, sfpy_kernel_methods);
}
