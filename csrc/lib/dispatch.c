/*
 * The only file that knows both that instruction sets exist and which ones this
 * CPU and OS can run (cpu_features.c reads the features). Every fact about an
 * instruction set (name, architecture, required features) comes from
 * kernels/isa.def. It holds the one piece of global state of the library: the
 * process default kernel.
 *
 * setup.py defines SF_HAVE_<name>=1, the name spelt as in isa.def (the
 * preprocessor cannot change its case), for every kernels/<name>.c it compiled
 * in; a kernel of architecture `any` is always built.
 */
#include <stdatomic.h>
#include <string.h>

#include "cpu_features.h"
#include "simdfilter.h"

/* ---- Which kernels of isa.def this build has, decided by the preprocessor --- */

#define SF_CAT(a, b) SF_CAT_(a, b)
#define SF_CAT_(a, b) a##b
/* 1 if x expands to 1, else 0 (x undefined). */
#define SF_PROBE_1 ~, 1
#define SF_SECOND(a, b, ...) b
#define SF_SECOND_(...) SF_SECOND(__VA_ARGS__)
#define SF_IS_ONE(x) SF_IS_ONE_(x)
#define SF_IS_ONE_(x) SF_SECOND_(SF_PROBE_##x, 0, ~)
#define SF_OR(a, b) SF_CAT(SF_OR_, SF_CAT(a, b))
#define SF_OR_00 0
#define SF_OR_01 1
#define SF_OR_10 1
#define SF_OR_11 1
#define SF_IF(c) SF_CAT(SF_IF_, c)
#define SF_IF_1(then, otherwise) then
#define SF_IF_0(then, otherwise) otherwise
#define SF_NOTHING(...)
#define SF_ARCH_ANY_any 1
#define SF_BUILT(name, arch) SF_OR(SF_IS_ONE(SF_HAVE_##name), SF_IS_ONE(SF_ARCH_ANY_##arch))

#define SF_DECLARE(name, features) extern const sf_kernel sf_kernel_##name;
#define SF_ISA(name, arch, features, flags)                                              \
    SF_IF(SF_BUILT(name, arch))(SF_DECLARE, SF_NOTHING)(name, features)
#include "../kernels/isa.def"
#undef SF_ISA

/* isa.def's features column joins FEAT_* bits without their prefix (AVX|AVX2),
 * or says NONE: in the scope of this enum those names are the bits. */
#define SF_FEATURE_BARE(name, label) name = FEAT_##name,
#define SF_ISA_FEATURE_NAMES                                                             \
    enum { NONE = 0, SF_CPU_FEATURES(SF_FEATURE_BARE) }

/* Every kernel the project knows, built here or not. */
typedef struct known_isa {
    const char *name, *arch;
} known_isa;

static const known_isa known[] = {
#define SF_ISA(name, arch, features, flags) {#name, #arch},
#include "../kernels/isa.def"
#undef SF_ISA
};
#define KNOWN_COUNT ((int)(sizeof known / sizeof known[0]))

/* The kernels of this build, slowest first (isa.def's order): each kernel file's
 * own table, whose slots may be NULL, and the features it needs. */
typedef struct built_isa {
    const sf_kernel *file;
    unsigned need;
} built_isa;

static const built_isa *built_isas(void) {
    SF_ISA_FEATURE_NAMES;
    static const built_isa built[] = {
#define SF_ENTRY(name, features) {&sf_kernel_##name, (unsigned)(features)},
#define SF_ISA(name, arch, features, flags)                                              \
    SF_IF(SF_BUILT(name, arch))(SF_ENTRY, SF_NOTHING)(name, features)
#include "../kernels/isa.def"
#undef SF_ISA
    };
    return built;
}

#define SF_ISA(name, arch, features, flags) +SF_BUILT(name, arch)
enum { BUILT_COUNT = 0
#include "../kernels/isa.def"
};
#undef SF_ISA

/* SF_BUILT_INDEX_<name>: a built kernel's index in built_isas(). */
#define SF_BUILT_INDEX(name) SF_BUILT_INDEX_##name,
#define SF_ISA(name, arch, features, flags)                                              \
    SF_IF(SF_BUILT(name, arch))(SF_BUILT_INDEX, SF_NOTHING)(name)
enum {
#include "../kernels/isa.def"
    SF_BUILT_INDEX_END_
};
#undef SF_ISA
#undef SF_BUILT_INDEX

/* For each built kernel, the CPU traits on which the default passes over it
 * (isa.def's SF_NOT_DEFAULT_ON lines; 0 for most). */
static const unsigned *default_avoids(void) {
    SF_ISA_FEATURE_NAMES;
    static const unsigned avoid[BUILT_COUNT] = {
#define SF_AVOID(name, trait) [SF_BUILT_INDEX_##name] = (unsigned)(trait),
#define SF_NOT_DEFAULT_ON(name, trait)                                                   \
    SF_IF(SF_IS_ONE(SF_HAVE_##name))(SF_AVOID, SF_NOTHING)(name, trait)
#define SF_ISA(name, arch, features, flags)
#include "../kernels/isa.def"
#undef SF_ISA
#undef SF_NOT_DEFAULT_ON
#undef SF_AVOID
    };
    return avoid;
}

/* ---- Benchmark-only variants ------------------------------------------------- */

/* V(variant, base): kernels/<base>.c also defines sf_kernel_<variant>, a table
 * of some slots only, laid over base's full table. A variant runs wherever base
 * does and is not listed by sf_kernel_count/at (users choose among the real
 * kernels); sf_kernel_find and sf_kernel_select know its name, so a benchmark
 * can time it against base in one process, interleaved. Today: the x86 filter
 * loop without its sparse windows (kernels/x86_skeleton.h, kernels/avx512.c). */
#define SF_VARIANTS(V)                                                                   \
    V(sse41_dense, sse41) V(avx2_dense, avx2) V(avx512_zen4_dense, avx512_zen4)              \
    V(avx512_dense, avx512)

#define SF_VDECLARE(variant, base) extern const sf_kernel sf_kernel_##variant;
#define SF_VARIANT(variant, base) SF_IF(SF_BUILT(base, none))(SF_VDECLARE, SF_NOTHING)(variant, base)
SF_VARIANTS(SF_VARIANT)
#undef SF_VARIANT

typedef struct variant_isa {
    const sf_kernel *file;
    const char *base;
} variant_isa;

#define SF_VENTRY(variant, base) {&sf_kernel_##variant, #base},
#define SF_VARIANT(variant, base) SF_IF(SF_BUILT(base, none))(SF_VENTRY, SF_NOTHING)(variant, base)
static const variant_isa variants[] = {SF_VARIANTS(SF_VARIANT){NULL, NULL}};
#undef SF_VARIANT
#define VARIANT_COUNT ((int)(sizeof variants / sizeof variants[0]) - 1)

/* ---- Full tables: every slot filled ------------------------------------------- */

/* The tables dispatch hands out: kernel i's own slots, and for each NULL slot
 * the entry of the nearest lower kernel that needs no feature kernel i does not
 * (so it runs wherever kernel i runs; scalar, which needs none, fills every slot
 * it has). Built once, by the first caller; the others wait the few nanoseconds. */
static sf_kernel filled[BUILT_COUNT];
static sf_kernel vfilled[VARIANT_COUNT + 1]; /* the variants over their base's table */
static int vbase[VARIANT_COUNT + 1];         /* the built index of each variant's base */
static atomic_int filled_state; /* 0: not yet, 1: being filled, 2: ready */

static void fill_tables(void) {
    const built_isa *built = built_isas();
    for (int i = 0; i < BUILT_COUNT; i++) {
        sf_kernel *t = &filled[i];
        *t = *built[i].file;
        int j = i - 1;
        while (j > 0 && (built[j].need & ~built[i].need))
            j--;
        if (j < 0)
            continue;
        const sf_kernel *lower = &filled[j];
#define FILL(slot)                                                                       \
    if (!t->slot[e])                                                                     \
        t->slot[e] = lower->slot[e];
        for (int e = 0; e < SF_ELEM_COUNT; e++) {
            FILL(index32) FILL(index64) FILL(values) FILL(count)
            FILL(index32_valid) FILL(index64_valid) FILL(values_valid) FILL(count_valid)
            FILL(within32) FILL(within64)
        }
#undef FILL
        if (!t->mask_to_valid)
            t->mask_to_valid = lower->mask_to_valid;
    }
    for (int v = 0; v < VARIANT_COUNT; v++) {
        const sf_kernel *over = variants[v].file;
        int b = BUILT_COUNT - 1;
        while (b > 0 && strcmp(built[b].file->name, variants[v].base))
            b--;
        vbase[v] = b;
        sf_kernel *t = &vfilled[v];
        *t = filled[b];
        t->name = over->name;
#define OVERLAY(slot)                                                                    \
    if (over->slot[e])                                                                   \
        t->slot[e] = over->slot[e];
        for (int e = 0; e < SF_ELEM_COUNT; e++) {
            OVERLAY(index32) OVERLAY(index64) OVERLAY(values) OVERLAY(count)
            OVERLAY(index32_valid) OVERLAY(index64_valid) OVERLAY(values_valid)
            OVERLAY(count_valid) OVERLAY(within32) OVERLAY(within64)
        }
#undef OVERLAY
    }
}

static const sf_kernel *tables(void) {
    if (atomic_load_explicit(&filled_state, memory_order_acquire) != 2) {
        int expected = 0;
        if (atomic_compare_exchange_strong_explicit(&filled_state, &expected, 1,
                                                    memory_order_acquire,
                                                    memory_order_acquire)) {
            fill_tables();
            atomic_store_explicit(&filled_state, 2, memory_order_release);
        } else {
            while (atomic_load_explicit(&filled_state, memory_order_acquire) != 2)
                ;
        }
    }
    return filled;
}

/* Index of k among the built kernels (a table of ours, or a kernel file's own),
 * for a variant its base's, or -1. */
static int built_index(const sf_kernel *k) {
    const sf_kernel *t = tables();
    for (int i = 0; i < BUILT_COUNT; i++)
        if (k == &t[i] || k == built_isas()[i].file)
            return i;
    for (int v = 0; v < VARIANT_COUNT; v++)
        if (k == &vfilled[v] || k == variants[v].file)
            return vbase[v];
    return -1;
}

static int built_index_of_name(const char *name) {
    for (int i = 0; name && i < BUILT_COUNT; i++)
        if (!strcmp(built_isas()[i].file->name, name))
            return i;
    return -1;
}

/* ---- Public API ---------------------------------------------------------- */

int sf_kernel_count(void) { return BUILT_COUNT; }

const sf_kernel *sf_kernel_at(int i) {
    return (i >= 0 && i < BUILT_COUNT) ? &tables()[i] : NULL;
}

int sf_kernel_variant_count(void) { return VARIANT_COUNT; }

const sf_kernel *sf_kernel_variant_at(int i) {
    if (i < 0 || i >= VARIANT_COUNT)
        return NULL;
    (void)tables(); /* which fills vfilled */
    return &vfilled[i];
}

const sf_kernel *sf_kernel_find(const char *name) {
    const sf_kernel *k = sf_kernel_at(built_index_of_name(name));
    for (int v = 0; !k && name && v < VARIANT_COUNT; v++)
        if (!strcmp(variants[v].file->name, name))
            k = sf_kernel_variant_at(v);
    return k;
}

int sf_kernel_supported(const sf_kernel *k) {
    const int i = k ? built_index(k) : -1;
    if (i < 0)
        return 0;
    const unsigned need = built_isas()[i].need;
    return (sf_cpu_feature_bits() & need) == need;
}

const sf_kernel *sf_best_kernel(void) {
    const unsigned traits = sf_cpu_feature_bits();
    for (int i = BUILT_COUNT - 1; i > 0; i--)
        if (sf_kernel_supported(sf_kernel_at(i)) && !(default_avoids()[i] & traits))
            return sf_kernel_at(i);
    return sf_kernel_at(0);
}

const char *sf_kernel_arch(const char *name) {
    for (int i = 0; name && i < KNOWN_COUNT; i++)
        if (!strcmp(known[i].name, name))
            return known[i].arch;
    return NULL;
}

int sf_kernel_select(const char *name, const sf_kernel **out) {
    const sf_kernel *k = sf_kernel_find(name);
    if (!k)
        return sf_kernel_arch(name) ? SF_ENOTBUILT : SF_EUNKNOWN;
    if (!sf_kernel_supported(k))
        return SF_EUNSUPPORTED;
    if (out)
        *out = k;
    return SF_OK;
}

/* The process default: NULL until first use, then the chosen kernel. */
static const sf_kernel *_Atomic active;

const sf_kernel *sf_active_kernel(void) {
    const sf_kernel *k = atomic_load_explicit(&active, memory_order_acquire);
    if (!k) {
        const sf_kernel *expected = NULL;
        k = sf_best_kernel();
        if (!atomic_compare_exchange_strong(&active, &expected, k))
            k = expected;
    }
    return k;
}

int sf_use_kernel(const char *name) {
    const sf_kernel *k = sf_best_kernel();
    if (name) {
        const int status = sf_kernel_select(name, &k);
        if (status != SF_OK)
            return status;
    }
    atomic_store_explicit(&active, k, memory_order_release);
    return SF_OK;
}

/* ---- Convenience --------------------------------------------------------- */

static int u32_range(uint32_t lo, uint32_t hi, sf_range *r) {
    if (lo > hi)
        return 0;
    memset(r, 0, sizeof *r);
    r->lo = lo;
    r->hi = hi;
    return 1;
}

size_t sf_filter_indexes_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi,
                             uint32_t *out) {
    sf_range r;
    if (!u32_range(lo, hi, &r) || n == 0)
        return 0;
    if (n > (size_t)UINT32_MAX)
        return SF_TOO_LONG; /* positions past 2^32 - 1 would not fit in uint32 */
    return sf_active_kernel()->index32[SF_U32](x, n, &r, 0, out);
}

size_t sf_count_in_range_u32(const uint32_t *x, size_t n, uint32_t lo, uint32_t hi) {
    sf_range r;
    if (!u32_range(lo, hi, &r) || n == 0)
        return 0;
    return sf_active_kernel()->count[SF_U32](x, n, &r);
}
