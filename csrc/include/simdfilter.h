/*
 * simdfilter: find the positions of the values of an array that lie in a range.
 *
 * Public C API. Plain C11, no Python: usable from C, Rust or anything with a C FFI.
 *
 * Layers:
 *   - kernels (one per instruction set) implement the contract below for every
 *     element kind; they are reached through `sf_kernel` tables;
 *   - dispatch picks, once, the best kernel the CPU *and* the OS support, and lets
 *     the caller override that choice;
 *   - the sf_filter_* convenience functions run the active kernel.
 */
#ifndef SIMDFILTER_H
#define SIMDFILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMDFILTER_VERSION "0.1.0"

/*
 * Element kinds the kernels know. Signed integers, bool, datetime64 and
 * timedelta64 share the unsigned kernel of their width: see sf_range.
 */
typedef enum sf_elem {
    SF_U8 = 0,
    SF_U16,
    SF_U32,
    SF_U64,
    SF_F32,
    SF_F64,
    SF_ELEM_COUNT
} sf_elem;

/* Size in bytes of one element of kind `e` (0 for an invalid kind). */
size_t sf_elem_size(sf_elem e);
/* "u8", "u16", "u32", "u64", "f32", "f64" (NULL for an invalid kind). */
const char *sf_elem_name(sf_elem e);

/*
 * An inclusive, non-empty range, already expressed in the element's own domain.
 *
 * Integer kinds use `lo` and `hi`: the bit patterns of the inclusive bounds,
 * truncated to the element width. A kernel keeps x when
 *     (x - lo) mod 2^w  <=  (hi - lo) mod 2^w       (w = element width in bits)
 * which is the range test for unsigned data and, in two's complement, for signed
 * data too, provided lo <= hi in the data's own order. Callers never pass an
 * empty range (it has no representation here); they answer it without a kernel.
 *
 * Float kinds use `flo` and `fhi`: a kernel keeps x when flo <= x && x <= fhi
 * with IEEE ordered compares, so NaN never matches and -0.0 == 0.0. For SF_F32
 * both bounds must be exactly representable as float.
 */
typedef struct sf_range {
    uint64_t lo, hi;
    double flo, fhi;
} sf_range;

/*
 * The kernel contract, identical for every instruction set and element kind.
 *
 *   x     points to n elements of the kind, aligned to the element size;
 *   out   has room for n results (n positions, or n elements for values) and is
 *         aligned to the size of one result.
 *
 * index32/index64 write, in ascending order, base + i for every i in [0, n)
 * whose x[i] is in the range, and return how many they wrote (k). values writes
 * the matching elements themselves, in order. count writes nothing.
 * A kernel may write anywhere in out[0, n) (full-vector stores), never outside it;
 * out[k, n) is unspecified afterwards. x is never written.
 * index32 requires base + n <= 2^32.
 */
typedef size_t (*sf_index32_fn)(const void *x, size_t n, const sf_range *r,
                                uint32_t base, uint32_t *out);
typedef size_t (*sf_index64_fn)(const void *x, size_t n, const sf_range *r,
                                uint64_t base, uint64_t *out);
typedef size_t (*sf_values_fn)(const void *x, size_t n, const sf_range *r, void *out);
typedef size_t (*sf_count_fn)(const void *x, size_t n, const sf_range *r);

/* One instruction set's kernels: every slot is filled for every element kind. */
typedef struct sf_kernel {
    const char *name; /* "scalar", "sse41", "avx2", "avx512", "neon", "sve" */
    sf_index32_fn index32[SF_ELEM_COUNT];
    sf_index64_fn index64[SF_ELEM_COUNT];
    sf_values_fn values[SF_ELEM_COUNT];
    sf_count_fn count[SF_ELEM_COUNT];
} sf_kernel;

/* ---- Dispatch ------------------------------------------------------------ */

/* Kernels compiled into this build, slowest first (index 0 is always "scalar"). */
int sf_kernel_count(void);
const sf_kernel *sf_kernel_at(int i);
/* The kernel called `name`, whether or not this CPU can run it; NULL if unknown. */
const sf_kernel *sf_kernel_find(const char *name);
/* 1 if this CPU and OS can run `k`, else 0. */
int sf_kernel_supported(const sf_kernel *k);
/* The kernel the sf_filter_* functions use: the best supported one unless overridden. */
const sf_kernel *sf_active_kernel(void);
/* The best kernel this CPU and OS support. */
const sf_kernel *sf_best_kernel(void);

#define SF_OK 0
#define SF_EUNKNOWN (-1)     /* no kernel of that name in this build */
#define SF_EUNSUPPORTED (-2) /* this CPU or OS cannot run it */
/* Make `name` (or the best kernel, for NULL) the active kernel, process-wide. */
int sf_use_kernel(const char *name);

/* The CPU features dispatch looked at, as a space-separated list ("sse4.1 avx2 ..."),
 * written NUL-terminated into buf (at most size bytes, truncated if need be).
 * Returns the full length, without the NUL, as snprintf does. */
size_t sf_cpu_features(char *buf, size_t size);

/* ---- Convenience: run the active kernel ---------------------------------- */

/* Positions of the x[i] with lo <= x[i] <= hi (inclusive; lo > hi gives 0).
 * out must have room for n positions; returns how many were written, or
 * SF_TOO_LONG (writing nothing) when n > 2^32 - 1: use a kernel's index64 then. */
#define SF_TOO_LONG ((size_t)-1)
size_t sf_filter_indexes_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi,
                             uint32_t *out);
/* How many x[i] satisfy lo <= x[i] <= hi. */
size_t sf_count_in_range_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi);

#ifdef __cplusplus
}
#endif
#endif /* SIMDFILTER_H */
