/*
 * simdfilter: find the positions of the values of an array that lie in a range.
 *
 * Public C API. Plain C11, no Python: usable from C, Rust or anything with a C FFI.
 *
 * Layers, arrows one way only (csrc/README.md draws them):
 *   bindings (csrc/cpython, csrc/rust)
 *     -> the library (csrc/lib: types and bounds, sources and runs, the driver,
 *        threads, dispatch)
 *       -> kernels (csrc/kernels: one file per instruction set, one contract).
 *
 * A call is a *query* (what to compute: kernel, operation, element kind, range)
 * over a *source* of *runs* (where the data is: pointer, length, stride, byte
 * order, first position). sf_execute runs the one over the other.
 */
#ifndef SIMDFILTER_H
#define SIMDFILTER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMDFILTER_VERSION "0.1.0"

/* ---- Element kinds and logical types -------------------------------------- */

/*
 * Element kinds the kernels know: how many bits, and integer or IEEE float.
 * Signed integers, bool, datetime64 and timedelta64 share the unsigned kernel
 * of their width: see sf_range.
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

/* Size in bytes of one element of kind `e` (0 for an invalid kind). Inline so
 * that the kernels' compile-time constant kinds fold it away. */
static inline size_t sf_elem_size(sf_elem e) {
    switch (e) {
    case SF_U8: return 1;
    case SF_U16: return 2;
    case SF_U32: case SF_F32: return 4;
    case SF_U64: case SF_F64: return 8;
    default: return 0;
    }
}

/* "u8", "u16", "u32", "u64", "f32", "f64" (NULL for an invalid kind). */
const char *sf_elem_name(sf_elem e);

/*
 * What the values mean, which decides what a bound means: the domain of values
 * a type can hold, and which element kind carries it.
 */
typedef enum sf_type {
    SF_T_BOOL = 0, /* u8; any nonzero byte is True (as NumPy reads bool arrays) */
    SF_T_I8,
    SF_T_U8,
    SF_T_I16,
    SF_T_U16,
    SF_T_I32,
    SF_T_U32,
    SF_T_I64,
    SF_T_U64,
    SF_T_F32,
    SF_T_F64,
    SF_T_TIME64, /* i64 ticks (datetime64, timedelta64); INT64_MIN is NaT, never kept */
    SF_TYPE_COUNT
} sf_type;

/* The element kind that carries values of type `t`. */
sf_elem sf_type_elem(sf_type t);

/* ---- Operations ----------------------------------------------------------- */

typedef enum sf_op {
    SF_OP_INDEX32 = 0, /* positions, as uint32 */
    SF_OP_INDEX64,     /* positions, as uint64 */
    SF_OP_VALUES,      /* the matching elements themselves */
    SF_OP_COUNT,       /* how many match; writes nothing */
    /* The masks: one result for every element, in order, whether it matches
     * or not (a null never does: its result is 0). */
    SF_OP_MASK8,       /* a byte per element, 1 in range, 0 not: NumPy's bool */
    SF_OP_BITS,        /* a bit per element, LSB first, 1 in range, 0 not: the
                          values bitmap of an Arrow boolean array */
    SF_OP_COUNT_OF_OPS
} sf_op;

/* Bytes of one result of `op` on elements of kind `e` (0 for SF_OP_COUNT, and
 * for SF_OP_BITS, whose results are bits: see sf_output_bytes). */
static inline size_t sf_result_size(sf_op op, sf_elem e) {
    switch (op) {
    case SF_OP_INDEX32: return 4;
    case SF_OP_INDEX64: return 8;
    case SF_OP_VALUES: return sf_elem_size(e);
    case SF_OP_MASK8: return 1;
    default: return 0;
    }
}

/* Whether `op` writes a result for every element (SF_OP_MASK8, SF_OP_BITS). */
static inline int sf_op_is_mask(sf_op op) { return op == SF_OP_MASK8 || op == SF_OP_BITS; }

/* Bytes that `n` results of `op` on kind `e` take: n * sf_result_size, and
 * ceil(n / 8) for SF_OP_BITS. */
static inline size_t sf_output_bytes(sf_op op, sf_elem e, size_t n) {
    return op == SF_OP_BITS ? n / 8 + (n % 8 != 0) : n * sf_result_size(op, e);
}

/* ---- Ranges and bounds ---------------------------------------------------- */

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
 * both bounds must be exactly representable as float. A NaN bound is allowed:
 * nothing is in such a range (inverted, every element is outside it).
 *
 * `invert` nonzero: a kernel keeps x when it is NOT in the range, in the same
 * pass (NaN is then kept: NumPy's ~((a >= lo) & (a <= hi))); a null is still
 * never kept. For integer kinds the range must then leave some value of the
 * element width out (hi - lo != 2^w - 1 mod 2^w): nothing would be outside,
 * and the caller answers that without a kernel, as it does an empty range.
 * Integer kernels test the complement [hi + 1, lo - 1] (mod 2^w), itself a
 * range; float kernels negate their compare. Zero-initialised: not inverted.
 */
typedef struct sf_range {
    uint64_t lo, hi;
    double flo, fhi;
    int invert;
} sf_range;

/* One end of a range as the caller has it, in the data's units. */
typedef enum sf_bound_kind {
    SF_BOUND_NONE = 0, /* unbounded on this side */
    SF_BOUND_INT,      /* the integer `i` */
    SF_BOUND_UINT,     /* the integer `u` (for values above INT64_MAX) */
    SF_BOUND_FLOAT,    /* the double `f`; NaN makes the range empty */
    SF_BOUND_HUGE      /* an integer beyond the 64-bit ranges; its sign is the sign of `i` */
} sf_bound_kind;

typedef struct sf_bound {
    sf_bound_kind kind;
    int64_t i;
    uint64_t u;
    double f;
} sf_bound;

#define SF_RANGE_EMPTY 0    /* no value of the type can be in range */
#define SF_RANGE_OK 1       /* *out holds the range */
#define SF_RANGE_INEXACT 2  /* float data and an SF_BOUND_HUGE bound (its value is not known here): the caller decides */
#define SF_RANGE_EINVAL (-1) /* bad type or bound kind */

/*
 * Resolve the bounds of a query on data of type `t` exactly: compared
 * mathematically, never wrapped or rounded (lo = -1 on unsigned data keeps
 * everything from 0; lo = 1.5 on integers keeps values >= 2; an open float
 * bound moves to the next representable value). `lo_closed`/`hi_closed`: the
 * bound itself is in the range. Returns one of the SF_RANGE_* codes.
 */
int sf_resolve_range(sf_type t, const sf_bound *lo, int lo_closed, const sf_bound *hi,
                     int hi_closed, sf_range *out);

/*
 * isin's integer items on integer data of type `t` (not bool, not floats):
 * items[0, n), each `size` bytes (1, 2, 4 or 8, native order), signed or not,
 * as sf_resolve_range would resolve each as the closed range [v, v], in one
 * pass: the item's range into out[*kept] when the type holds the value, else
 * nothing. Returns SF_RANGE_OK, or SF_RANGE_EINVAL for another type or size.
 */
int sf_resolve_int_items(sf_type t, const void *items, size_t n, int size, int is_signed,
                         sf_range *out, size_t *kept);

/*
 * The values outside a range of elements of kind `e`, as a kernel takes them:
 * `verdict` is what sf_resolve_range returned (SF_RANGE_OK with *r, or
 * SF_RANGE_EMPTY). Returns SF_RANGE_OK with *r set to the complement (invert
 * toggled; outside an empty range, everything: an integer width's every value,
 * or for floats an inverted range of NaN bounds, NaN included), SF_RANGE_EMPTY
 * when nothing is outside (an integer range over the whole width), or
 * SF_RANGE_EINVAL. A null is never kept, inverted or not: nulls are not values.
 */
int sf_invert_range(sf_elem e, int verdict, sf_range *r);

/*
 * Ranges r[0, k) of a query on data of type `t`, each as sf_resolve_range
 * made it (SF_RANGE_OK, not inverted), as few ranges as hold the same values:
 * sorted by their low end in the type's order, the ranges that overlap or
 * touch (integers only: the next starts right after one ends; float ranges
 * join when they overlap) joined. Rewrites
 * r[0, k') and returns k' <= k. A union of several ranges costs a compare per
 * range and element, so a query merges them first.
 */
size_t sf_merge_ranges(sf_type t, sf_range *r, size_t k);

/* ---- The kernel contract -------------------------------------------------- */

/*
 * Identical for every instruction set and element kind.
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

/*
 * The same with nulls: `valid` holds one bit per element, LSB first (Arrow's
 * validity bitmap layout, starting at bit 0 of valid[0]); an element whose bit
 * is 0 is null and never matches, whatever the range. The kernel reads
 * valid[0, ceil(n / 8)) and nothing past it.
 */
typedef size_t (*sf_index32_valid_fn)(const void *x, const uint8_t *valid, size_t n,
                                      const sf_range *r, uint32_t base, uint32_t *out);
typedef size_t (*sf_index64_valid_fn)(const void *x, const uint8_t *valid, size_t n,
                                      const sf_range *r, uint64_t base, uint64_t *out);
typedef size_t (*sf_values_valid_fn)(const void *x, const uint8_t *valid, size_t n,
                                     const sf_range *r, void *out);
typedef size_t (*sf_count_valid_fn)(const void *x, const uint8_t *valid, size_t n,
                                    const sf_range *r);

/*
 * Positions given: within32/within64 write, in order, the pos[i] (i in [0, m))
 * whose element x[pos[i] - base] is in the range, and return how many (k).
 * The caller vouches that base <= pos[i] < base + (elements at x); out has
 * room for m positions and may be written anywhere in out[0, m).
 */
typedef size_t (*sf_within32_fn)(const void *x, uint64_t base, const uint32_t *pos, size_t m,
                                 const sf_range *r, uint32_t *out);
typedef size_t (*sf_within64_fn)(const void *x, uint64_t base, const uint64_t *pos, size_t m,
                                 const sf_range *r, uint64_t *out);

/*
 * The masks: mask8 writes out[i] = 1 if x[i] is in the range, else 0, for
 * every i in [0, n): exactly out[0, n). bits writes the same as bit i of out
 * (LSB first: bit i % 8 of out[i / 8], Arrow's bitmap layout): exactly
 * out[0, ceil(n / 8)), the bits past n in the last byte 0. Both return how
 * many elements are in range (the 1s written). The _valid forms take the
 * validity bitmap as the filters' _valid forms do; a null's result is 0.
 */
typedef size_t (*sf_mask_fn)(const void *x, size_t n, const sf_range *r, uint8_t *out);
typedef size_t (*sf_mask_valid_fn)(const void *x, const uint8_t *valid, size_t n,
                                   const sf_range *r, uint8_t *out);

/*
 * Several ranges at once, as bits writes one: bit i of out is 1 when x[i] is
 * in any of the k ranges r[0, k) (every = 0) or in each of them (every = 1),
 * for 1 <= k <= SF_RANGES_AT_ONCE; each element is loaded once and compared
 * with every range. No validity (the caller ANDs it in). Returns the 1s.
 */
#define SF_RANGES_AT_ONCE 8
typedef size_t (*sf_bits_ranges_fn)(const void *x, size_t n, const sf_range *r, size_t k,
                                    int every, uint8_t *out);

/*
 * A byte mask (pandas', numpy.ma's: mask[i] nonzero for a null) as the
 * validity bitmap the _valid entry points read: bit i of valid (LSB first) is 1
 * where mask[i] is 0. Writes ceil(n / 8) bytes; the bits past n in the last one
 * are 0.
 */
typedef void (*sf_mask_to_valid_fn)(const uint8_t *mask, size_t n, uint8_t *valid);

/*
 * The slots of a kernel table, in order: the one list of them, which the
 * struct below, the kernels' instantiation (kernels/kernel_common.h) and
 * dispatch's filling of empty slots (lib/dispatch.c) all expand.
 * SF_KERNEL_SLOTS(EACH, ONE, a, b) expands to
 *   EACH(slot, type, group, a, b)   a slot per element kind: type slot[SF_ELEM_COUNT]
 *   ONE(slot, type, a, b)           a single slot
 * where group says which entry points of a kernel file fill it: filters
 * (index32, index64, values), count, nulls (the _valid forms and the given
 * positions) or masks, and a, b are the includer's, passed on (the kernels'
 * prefix and element kind). A new slot goes at the end: the layout is the ABI.
 */
#define SF_KERNEL_SLOTS(EACH, ONE, a, b)                                                 \
    EACH(index32, sf_index32_fn, filters, a, b)                                          \
    EACH(index64, sf_index64_fn, filters, a, b)                                          \
    EACH(values, sf_values_fn, filters, a, b)                                            \
    EACH(count, sf_count_fn, count, a, b)                                                \
    EACH(index32_valid, sf_index32_valid_fn, nulls, a, b)                                \
    EACH(index64_valid, sf_index64_valid_fn, nulls, a, b)                                \
    EACH(values_valid, sf_values_valid_fn, nulls, a, b)                                  \
    EACH(count_valid, sf_count_valid_fn, nulls, a, b)                                    \
    EACH(within32, sf_within32_fn, nulls, a, b)                                          \
    EACH(within64, sf_within64_fn, nulls, a, b)                                          \
    ONE(mask_to_valid, sf_mask_to_valid_fn, a, b)                                        \
    EACH(mask8, sf_mask_fn, masks, a, b)                                                 \
    EACH(bits, sf_mask_fn, masks, a, b)                                                  \
    EACH(mask8_valid, sf_mask_valid_fn, masks, a, b)                                     \
    EACH(bits_valid, sf_mask_valid_fn, masks, a, b)                                      \
    EACH(bits_ranges, sf_bits_ranges_fn, masks, a, b)

/* One instruction set's kernels. A kernel file may leave a slot NULL (an
 * operation its ISA gains nothing on); dispatch fills such a slot from the next
 * lower kernel, so every table dispatch hands out has every slot filled. */
#define SF_KERNEL_FIELD_EACH_(slot, type, group, a, b) type slot[SF_ELEM_COUNT];
#define SF_KERNEL_FIELD_ONE_(slot, type, a, b) type slot;
typedef struct sf_kernel {
    const char *name; /* "scalar", "sse41", "avx2", "avx512", "neon", "sve" */
    SF_KERNEL_SLOTS(SF_KERNEL_FIELD_EACH_, SF_KERNEL_FIELD_ONE_, ~, ~)
} sf_kernel;
#undef SF_KERNEL_FIELD_EACH_
#undef SF_KERNEL_FIELD_ONE_

/* ---- Dispatch --------------------------------------------------------------- */

/* Kernels compiled into this build, slowest first (index 0 is always "scalar"). */
int sf_kernel_count(void);
const sf_kernel *sf_kernel_at(int i);
/* The kernel (or variant) called `name`, whether or not this CPU can run it;
 * NULL if not built. */
const sf_kernel *sf_kernel_find(const char *name);
/* Benchmark-only variants of built kernels ("avx2_dense", "sse41_dense": the
 * filter loop without its sparse windows), not counted by sf_kernel_count:
 * each is its base kernel's table with some slots replaced, runs wherever its
 * base does, and is found by name by sf_kernel_find and sf_kernel_select. */
int sf_kernel_variant_count(void);
const sf_kernel *sf_kernel_variant_at(int i);
/* 1 if this CPU and OS can run `k`, else 0. */
int sf_kernel_supported(const sf_kernel *k);
/* The process default: at its first use, the kernel SF_KERNEL_ENV names if this
 * CPU runs it, else the best kernel (sf_best_kernel); from then on what
 * sf_use_kernel made it. */
const sf_kernel *sf_active_kernel(void);
/* The kernel dispatch's rule picks for this CPU and OS: sf_kernel_choice's
 * default for this machine. */
const sf_kernel *sf_best_kernel(void);
/* The architecture ("x86_64", "aarch64"; "any" for scalar) of a kernel the
 * project knows (a variant: its base's), whether or not it is built here; NULL
 * for an unknown name. */
const char *sf_kernel_arch(const char *name);

/* The architecture the includer is compiled for, spelt as isa.def's arch
 * column: "x86_64", "aarch64", or "any" on one with no SIMD kernel (the
 * scalar kernel only). The one test of the compiler's target that dispatch
 * and the bindings share. */
#if defined(__x86_64__) || defined(_M_X64)
#define SF_BUILD_ARCH "x86_64"
#elif defined(__aarch64__) || defined(_M_ARM64)
#define SF_BUILD_ARCH "aarch64"
#else
#define SF_BUILD_ARCH "any"
#endif

#define SF_OK 0
#define SF_EUNKNOWN (-1)     /* no kernel of that name in the project */
#define SF_EUNSUPPORTED (-2) /* built, but this CPU or OS cannot run it */
#define SF_ENOTBUILT (-3)    /* a kernel of the project, not in this build (other arch, disabled) */
#define SF_ECANCELLED (-4)   /* sf_execute: the cancel callback asked to stop */
#define SF_EOUTOFBOUNDS (-5) /* sf_execute: a position of `within` is past the data */
#define SF_EUNSORTED (-6)    /* sf_execute: `within` is not strictly ascending */
#define SF_EINVAL (-7)       /* sf_kernel_choice: an unknown architecture or CPU feature;
                                sf_execute: `within` with a mask or values op, or
                                positions of another width than the op's */
#define SF_ENOMEM (-8)       /* sf_filter_rows: no memory for its blocks' buffers */

/* The runnable kernel called `name`: SF_OK with *out set, or an SF_E* code. */
int sf_kernel_select(const char *name, const sf_kernel **out);
/* Make `name` (or the best kernel, for NULL) the process default. Same codes. */
int sf_use_kernel(const char *name);

/*
 * Dispatch's rule, as a pure function of a CPU: the kernel it makes the
 * default, or the one a SIMDFILTER_KERNEL value asks for. The library's own
 * default and environment go through it; tests feed it described CPUs.
 *
 *   arch       "x86_64", "aarch64" (isa.def's spelling; "any": a CPU of an
 *              architecture with no SIMD kernel): a described CPU, for
 *              which every kernel of isa.def counts, built here or not; NULL:
 *              this machine (this build's kernels, the features detected).
 *   features   for a described CPU, its features and traits as sf_cpu_features
 *              prints them ("sse4.1 popcnt avx avx2 bmi1 bmi2 avx512f avx512vl
 *              avx512bw avx512dq slow-compress-store"), separated by spaces or
 *              commas; NULL for this machine.
 *   requested  NULL or blank: the default. Else a kernel's (or variant's)
 *              name, blanks around it ignored, as SIMDFILTER_KERNEL gives it.
 *
 * The default is the last kernel of the CPU's architecture in isa.def's order
 * (slowest first) whose features the CPU has, passing over one marked
 * SF_NOT_DEFAULT_ON a trait it has (avx512 on AMD: slow-compress-store).
 * Returns SF_OK with *name (a static string), or SF_EUNKNOWN, SF_ENOTBUILT
 * (another architecture's, or not in this build), SF_EUNSUPPORTED (a feature
 * missing), SF_EINVAL (an unknown arch or feature label) with *name = NULL.
 */
int sf_kernel_choice(const char *arch, const char *features, const char *requested,
                     const char **name);

/* Why dispatch's rule does not make `name` the default on a CPU (arch and
 * features as sf_kernel_choice takes them; NULL, NULL: this machine): NULL
 * when it is the default, else a static sentence for people ("this CPU (AMD
 * Zen 4, Zen 5) runs AVX-512's compress store to memory in microcode, ...",
 * "an older instruction set than the default's", "no kernel of that name"...).
 * `python -m simdfilter` prints it beside each kernel it times. */
const char *sf_kernel_not_default_reason(const char *arch, const char *features,
                                         const char *name);

/* The environment variable that names the process default's first kernel. */
#define SF_KERNEL_ENV "SIMDFILTER_KERNEL"
/* What SF_KERNEL_ENV, read once at the process default's first use (by getenv:
 * a program that changes its environment from several threads should make
 * that first use, say sf_active_kernel(), early), did:
 * SF_OK if unset, blank, or naming a kernel this CPU runs (which then became
 * the default); else sf_kernel_choice's code for it, the default being the best
 * kernel. *value (if value is not NULL) is the name the variable gives (its
 * value without the blanks around it) cut to 63 bytes, or NULL if unset. Bindings turn a failure into their own error. */
int sf_kernel_env_status(const char **value);

/* The CPU features dispatch looked at, as a space-separated list ("sse4.1 avx2 ..."),
 * written NUL-terminated into buf (at most size bytes, truncated if need be).
 * Returns the full length, without the NUL, as snprintf does. */
size_t sf_cpu_features(char *buf, size_t size);

/* ---- Queries, runs and sources --------------------------------------------- */

/* What to compute. */
typedef struct sf_query {
    const sf_kernel *kernel; /* NULL: the process default, sf_active_kernel() */
    sf_op op;
    sf_elem elem;
    sf_range range; /* non-empty: an empty range is answered without a query */
    /* Positions to look at, or NULL for every element: strictly ascending,
     * within_count of them, uint32 (within_wide 0) or uint64 (within_wide 1),
     * the width of the positions op (or either, for SF_OP_COUNT). Only the
     * values at these positions are read. */
    const void *within;
    size_t within_count;
    int within_wide;
    /* Several ranges in one pass: `range` and the more_count ranges at `more`
     * (each non-empty, each with its own `invert`). An element is kept when it
     * is in any of them (every = 0: their union) or in every one (every = 1:
     * their intersection, which is how the outside of a union is asked: the
     * intersection of the inverted ranges). Nulls are never kept. more_count 0
     * (zero-initialised): `range` alone. The data is read once: each block of
     * it is compared with every range while it is in cache. */
    const sf_range *more;
    size_t more_count;
    int every;
} sf_query;

/* How a run says which of its elements are null (they never match). */
typedef enum sf_nulls {
    SF_NULLS_NONE = 0, /* every element is valid */
    SF_NULLS_BITMAP,   /* bit (null_bit + i) of nulls, LSB first, is 1 for a valid
                          element: Arrow's validity bitmap */
    SF_NULLS_BYTES     /* byte nulls[i * null_stride] is nonzero for a null element:
                          a pandas or numpy.ma mask */
} sf_nulls;

/* Where one stretch of the data is: n elements, the i-th at data + i * stride
 * bytes, at position base + i. */
typedef struct sf_run {
    const void *data;
    size_t n;
    ptrdiff_t stride; /* bytes; any sign, need not be a multiple of the size or aligned */
    int byteswap;     /* elements are stored in the other byte order */
    uint64_t base;
    /* Nulls (zero-initialised: none). */
    sf_nulls null_form;
    const uint8_t *nulls;
    uint64_t null_bit;     /* SF_NULLS_BITMAP: the bit of element 0 */
    ptrdiff_t null_stride; /* SF_NULLS_BYTES: bytes between elements' mask bytes */
    /* Bit-packed bools (Arrow's boolean type), for SF_U8 queries: element i is
     * bit (data_bit + i) of data, LSB first, read as the byte 0 or 1. stride and
     * byteswap are then unused. */
    int bit_packed;
    uint64_t data_bit;
} sf_run;

/* Where all of the data is: a sequence of runs whose positions ascend. */
typedef struct sf_source sf_source;
struct sf_source {
    /* Store the next run in *run (zeroed before the call: fields left alone
     * mean no nulls, not bit-packed) and return 1, or return 0 when none is
     * left. A run's memory need only stay valid until the next call. */
    int (*next)(sf_source *self, sf_run *run);
};

/* The source of exactly one run. */
typedef struct sf_run_source {
    sf_source source;
    sf_run run;
    int taken;
} sf_run_source;
sf_source *sf_run_source_init(sf_run_source *s, const sf_run *run);

/* ---- Execution -------------------------------------------------------------- */

/* Polled between blocks of a long call (every SF_CANCEL_BLOCK elements, at most;
 * with threads, every SF_CANCEL_BLOCK elements of the whole call, between the
 * calling thread's own blocks): return nonzero to stop. Called on the thread
 * that called sf_execute, never on another. */
typedef int (*sf_cancel_fn)(void *ctx);
#define SF_CANCEL_BLOCK ((size_t)1 << 24)

/* The most threads one call uses. */
#define SF_MAX_THREADS 256

typedef struct sf_exec {
    int threads; /* 0: automatic (sf_auto_threads); k >= 1: up to k */
    sf_cancel_fn cancel; /* may be NULL */
    void *cancel_ctx;
    /* Nonzero: out is a new allocation none of whose pages was written yet
     * (ordinary writable memory: malloc, NumPy). The OS then zeroes each page
     * on its first write: automatic threads start later (lib/threads.c), and
     * on several threads (automatic or not) the driver has the OS populate
     * out a 2 MiB stretch ahead of the results (MADV_POPULATE_WRITE, what is
     * there kept), so up to 2 MiB of out past the results may become
     * resident. */
    int fresh_out;
    /* With fresh_out: how many bytes at out's start were written before (a
     * recycled buffer whose pages are still there); only the rest is fresh.
     * Those bytes are placed as into an out= output (streaming stores from
     * 64 MiB of output on x86-64, no populating ahead). 0: none. */
    size_t out_resident;
} sf_exec;

/*
 * Run query q over every run of src, in order, writing the results one after
 * another into out, which has room for `capacity` results (nothing is written
 * past it; results beyond it are still counted). out may be NULL for
 * SF_OP_COUNT. opts may be NULL (automatic threads, no cancel). Values come out
 * in native byte order.
 *
 * Returns SF_OK with *found = the number of results (for count: the count), or
 * SF_ECANCELLED (with *found = the results written so far), or SF_EUNSUPPORTED
 * when q->kernel cannot run here, or (with q->within) SF_EUNSORTED or
 * SF_EOUTOFBOUNDS, found before any value at such a position is read, or
 * SF_EINVAL for `within` with SF_OP_VALUES or with positions of another width
 * than the op's (SF_OP_INDEX32 takes uint32, SF_OP_INDEX64 uint64, SF_OP_COUNT
 * either), before anything is written.
 * A query with `within` runs on the calling thread.
 * With capacity >= the total element count, out may be written anywhere up to
 * that many results (whole-vector stores); otherwise exactly the first
 * min(found, capacity) results are written.
 */
int sf_execute(const sf_query *q, sf_source *src, void *out, size_t capacity,
               const sf_exec *opts, size_t *found);

/*
 * The masks (SF_OP_MASK8, SF_OP_BITS) through sf_execute: element j of the
 * source (counted over all its runs, in order, whatever their positions) gets
 * result j: byte out[j], or bit j of out (bit j % 8 of out[j / 8]). `capacity`
 * counts elements (out has capacity bytes, or ceil(capacity / 8)); exactly the
 * results of the first min(elements, capacity) elements are written, the bits
 * past the last one in its byte 0, so that a run may end anywhere in a byte.
 * *found is how many elements are in range, those past the capacity included.
 * A run is split across threads as for the filters, each part written in
 * place. With `within` the call returns SF_EINVAL (a mask has a result per
 * element, not per position). Cancelled (SF_ECANCELLED), *found counts the
 * elements in range among those written, and which were written is
 * unspecified on several threads. Values under a null are 0: the output of
 * SF_OP_BITS with the source's validity bitmap (sf_validity) is an Arrow
 * boolean array whose values bitmap is, on its own, "in range and not null".
 */

/* The validity of the source's elements as a bitmap, LSB first: bit j of out
 * is 1 when element j (counted over all runs, as for the masks) is not null.
 * Writes exactly ceil(min(elements, capacity) / 8) bytes, the bits past the
 * last element 0. Returns the number of elements; *nulls (if not NULL) is how
 * many of the first min(elements, capacity) are null. A byte mask is read with
 * the process default kernel's mask_to_valid. */
size_t sf_validity(sf_source *src, uint8_t *out, size_t capacity, size_t *nulls);

/* The positions of the set bits among bits [0, n) of `bits` (LSB first, as
 * SF_OP_BITS writes them), ascending, as uint32 (op SF_OP_INDEX32, which needs
 * n <= 2^32) or uint64 (SF_OP_INDEX64): a mask ANDed from several queries
 * (the rows in range in every column) turned into rows. At most `capacity`
 * positions are written to out, nothing past them (out NULL: none, the count
 * alone); bits past n are not read as positions. Returns how many bits are
 * set (more than capacity when the bits changed since they were counted), 0
 * for another op. `kernel` (NULL: the process default) reads the dense
 * stretches. */
size_t sf_bits_positions(const sf_kernel *kernel, const uint8_t *bits, size_t n, sf_op op,
                         void *out, size_t capacity);

/* One column of sf_take_rows: `data` holds n elements of `size` bytes (1, 2,
 * 4 or 8), `stride` bytes apart, read as they are (no byte swap); the rows
 * taken go to `dst`, contiguous. */
typedef struct sf_take_column {
    const void *data;
    ptrdiff_t stride;
    size_t size;
    void *dst;
} sf_take_column;

/* The rows at positions[0, k) of `ncols` columns of n elements, as NumPy's
 * take and pandas' iloc: cols[c].dst[i] = element positions[i] of column c.
 * positions are uint32 (wide 0) or uint64 (wide 1), in any order. Rows go in
 * blocks, every column of a block in turn, so that the block's positions stay
 * in L1 and each column is one forward stream when positions ascend. Returns
 * k, or the index of the first position >= n (the rows before it are
 * written, later ones may be); SIZE_MAX for a size other than 1, 2, 4, 8. */
size_t sf_take_rows(const sf_take_column *cols, size_t ncols, size_t n, const void *positions,
                    int wide, size_t k);

/* One range of a frame query (sf_filter_rows): a column and what its query
 * keeps. The query's kernel (NULL: the process default), elem, range and
 * further ranges (more, more_count, every) are read; its op is not, and
 * `within` must be NULL. The run holds at least the frame's rows (its base
 * is not read); any layout, byte order and nulls a run may have, but not
 * bit-packed. */
typedef struct sf_frame_range {
    sf_query query;
    sf_run run;
} sf_frame_range;

/*
 * The rows of a frame of n rows kept by every range of where[0, nwhere) (an
 * AND; nwhere >= 1), taken from `ncols` columns as sf_take_rows takes them:
 * cols[c].dst[i] = element r_i of column c, where r_0 < r_1 < ... are the rows
 * kept, and positions[i] = r_i (uint32 for wide 0, which needs n <= 2^32, or
 * uint64; positions may be NULL). Each dst, and positions, has room for
 * `capacity` rows: rows past it are counted, not written. The rows go by in
 * blocks that stay in cache, each block's columns read once for the ranges
 * and once for the take. One thread; opts->cancel polled between blocks as
 * sf_execute polls it (opts may be NULL).
 *
 * Returns SF_OK with *found = the rows kept, SF_ECANCELLED with *found = the
 * rows written (those of the blocks done), SF_EUNSUPPORTED for a kernel this
 * CPU cannot run, SF_ENOMEM, or SF_EINVAL (nwhere 0, a `within`, a run
 * shorter than n or bit-packed, a column size other than 1, 2, 4, 8, uint32
 * positions past 2^32 rows) before anything is written.
 */
int sf_filter_rows(const sf_frame_range *where, size_t nwhere, size_t n,
                   const sf_take_column *cols, size_t ncols, void *positions, int wide,
                   size_t capacity, const sf_exec *opts, size_t *found);

/* Threads that threads=0 gives a run of `nbytes` bytes of input: one per 8 MiB
 * (so 1 below 16 MiB), at most sf_available_cpus(), and on Linux at most the
 * CPUs idle at the call (sf_available_cpus() less the other runnable tasks
 * that /proc/loadavg counts, at least 1). */
int sf_auto_threads(size_t nbytes);
/* The same for a call whose output is fresh (sf_exec.fresh_out): one thread
 * per 16 MiB of input (64 MiB where the OS cannot populate pages ahead:
 * before Linux 5.14, and elsewhere). */
int sf_auto_threads_fresh(size_t nbytes);
/* The CPUs this process may run on (its affinity mask where the OS has one). */
int sf_available_cpus(void);

/* ---- Sorted data -------------------------------------------------------------- */

/*
 * Data the caller promises is sorted ascending in the order NumPy's sort gives
 * type `t` (as np.searchsorted takes it): NaN last on float data, NaT
 * (INT64_MIN) last on SF_T_TIME64, signed or unsigned by the type.
 *
 * sf_sorted_span: the stretch [*first, *first + *len) of `run` whose values
 * lie in r, by two binary searches (O(log n) elements read, at the run's
 * stride and byte order). The run's nulls are not looked at; a bit-packed run
 * gives an empty stretch. On unsorted data, some stretch of the run, never an
 * element outside it read.
 */
void sf_sorted_span(sf_type t, const sf_range *r, const sf_run *run, size_t *first, size_t *len);

/*
 * A source whose runs are those of `inner`, each narrowed to its
 * sf_sorted_span and left out when that is empty; once a run holds a value
 * after the range, the later runs are not read. sf_execute over it reads
 * O(log n + k) elements for k results, and still tests every element it
 * reads: on unsorted data its results are a subset of the scan's. A run with
 * nulls (which a sort puts first or last, over values of any kind) or
 * bit-packed is passed whole, and scanned; so is every run of an inverted
 * range (r->invert), whose values lie in two stretches. `inner` and `r` are read during
 * the calls only; `within` queries need the whole source (SF_EUNSORTED).
 */
typedef struct sf_sorted_source {
    sf_source source;
    sf_source *inner;
    sf_type type;
    sf_range range;
    int done;
    /* sf_sorted_source_ranges: the further ranges, and where a run is. */
    const sf_range *more;
    size_t more_count;
    sf_run run;      /* the inner run being narrowed */
    int in_run;      /* 1 while spans of `run` are left to hand out */
    size_t next;     /* the range whose span comes next (0: `range`) */
    size_t from;     /* where in `run` the next span may start */
    int scan;        /* every run whole: ranges that spans do not answer */
} sf_sorted_source;
sf_source *sf_sorted_source_init(sf_sorted_source *s, sf_source *inner, sf_type t,
                                 const sf_range *r);
/*
 * The same for a query of several ranges (sf_query's range, more, more_count
 * and every): for a union (every 0) of ranges that are not inverted and
 * ascend apart, as sf_merge_ranges leaves them, each run narrowed to the span
 * of each range in turn; a span is cut to start after the last one handed
 * out, so that the positions ascend and none comes twice. Any other query
 * (an intersection, an inverted range, ranges out of order or overlapping)
 * has its runs passed whole, and scanned.
 */
sf_source *sf_sorted_source_ranges(sf_sorted_source *s, sf_source *inner, sf_type t,
                                   const sf_range *r, const sf_range *more, size_t more_count,
                                   int every);

/* ---- Convenience: run the process default kernel --------------------------- */

/* Positions of the x[i] with lo <= x[i] <= hi (inclusive; lo > hi gives 0).
 * out must have room for n positions; returns how many were written, or
 * SF_TOO_LONG (writing nothing) when n > 2^32 - 1: use SF_OP_INDEX64 then. */
#define SF_TOO_LONG ((size_t)-1)
size_t sf_filter_indexes_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi,
                             uint32_t *out);
/* How many x[i] satisfy lo <= x[i] <= hi. */
size_t sf_count_in_range_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi);

#ifdef __cplusplus
}
#endif
#endif /* SIMDFILTER_H */
