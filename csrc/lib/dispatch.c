/*
 * The only file that knows both that instruction sets exist and which ones this
 * CPU and OS can run (cpu_features.c reads the features). Every fact about an
 * instruction set (name, architecture, required features) comes from
 * kernels/isa.def. It holds the one piece of global state of the library: the
 * process default kernel.
 *
 * setup.py defines SF_HAVE_<name>=1, the name spelt as in isa.def (the
 * preprocessor cannot change its case), for every kernel of isa.def it compiled
 * in; a kernel of architecture `any` is always built.
 */
#include <stdatomic.h>
#include <stdlib.h>
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
#define SF_ISA(name, source, arch, features, flags)                                      \
    SF_IF(SF_BUILT(name, arch))(SF_DECLARE, SF_NOTHING)(name, features)
#include "../kernels/isa.def"
#undef SF_ISA

/* isa.def's features column joins FEAT_* bits without their prefix (AVX|AVX2),
 * or says NONE: in the scope of this enum those names are the bits. */
#define SF_FEATURE_BARE(name, label) name = FEAT_##name,
#define SF_ISA_FEATURE_NAMES                                                             \
    enum { NONE = 0, SF_CPU_FEATURES(SF_FEATURE_BARE) }

/* SF_KNOWN_INDEX_<name>: a kernel's row in isa.def, built here or not. */
enum {
#define SF_ISA(name, source, arch, features, flags) SF_KNOWN_INDEX_##name,
#include "../kernels/isa.def"
#undef SF_ISA
    KNOWN_COUNT
};

/* Every kernel the project knows, built here or not, with the features it
 * needs. */
typedef struct known_isa {
    const char *name, *arch;
    unsigned need;
    int built;
} known_isa;

static const known_isa *known_isas(void) {
    SF_ISA_FEATURE_NAMES;
    static const known_isa known[KNOWN_COUNT] = {
#define SF_ISA(name, source, arch, features, flags)                                      \
    [SF_KNOWN_INDEX_##name] = {#name, #arch, (unsigned)(features), SF_BUILT(name, arch)},
#include "../kernels/isa.def"
#undef SF_ISA
    };
    return known;
}

/* For each known kernel, the CPU traits on which the default passes over it
 * (isa.def's SF_NOT_DEFAULT_ON lines; 0 for most). */
static const unsigned *known_avoids(void) {
    SF_ISA_FEATURE_NAMES;
    static const unsigned avoid[KNOWN_COUNT] = {
#define SF_NOT_DEFAULT_ON(name, trait) [SF_KNOWN_INDEX_##name] = (unsigned)(trait),
#define SF_ISA(name, source, arch, features, flags)
#include "../kernels/isa.def"
#undef SF_ISA
#undef SF_NOT_DEFAULT_ON
    };
    return avoid;
}

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
#define SF_ISA(name, source, arch, features, flags)                                      \
    SF_IF(SF_BUILT(name, arch))(SF_ENTRY, SF_NOTHING)(name, features)
#include "../kernels/isa.def"
#undef SF_ISA
    };
    return built;
}

#define SF_ISA(name, source, arch, features, flags) +SF_BUILT(name, arch)
enum { BUILT_COUNT = 0
#include "../kernels/isa.def"
};
#undef SF_ISA

/* ---- Benchmark-only variants ------------------------------------------------- */

/* V(variant, base): kernels/<base>.c also defines sf_kernel_<variant>, a table
 * of some slots only, laid over base's full table. A variant runs wherever base
 * does and is not listed by sf_kernel_count/at (users choose among the real
 * kernels); sf_kernel_find and sf_kernel_select know its name, so a benchmark
 * can time it against base in one process, interleaved. Today: the x86 filter
 * loop without its sparse windows (kernels/x86_skeleton.h, avx512_skeleton.h). */
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
        /* Every slot of the list (include/simdfilter.h's SF_KERNEL_SLOTS). */
#define FILL(slot, type, group, t, lower)                                                \
    for (int e = 0; e < SF_ELEM_COUNT; e++)                                              \
        if (!t->slot[e])                                                                 \
            t->slot[e] = lower->slot[e];
#define FILL_ONE(slot, type, t, lower)                                                   \
    if (!t->slot)                                                                        \
        t->slot = lower->slot;
        SF_KERNEL_SLOTS(FILL, FILL_ONE, t, lower)
#undef FILL
#undef FILL_ONE
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
#define OVERLAY(slot, type, group, t, over)                                              \
    for (int e = 0; e < SF_ELEM_COUNT; e++)                                              \
        if (over->slot[e])                                                               \
            t->slot[e] = over->slot[e];
#define OVERLAY_ONE(slot, type, t, over)                                                 \
    if (over->slot)                                                                      \
        t->slot = over->slot;
        SF_KERNEL_SLOTS(OVERLAY, OVERLAY_ONE, t, over)
#undef OVERLAY
#undef OVERLAY_ONE
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

/* ---- Dispatch's rule --------------------------------------------------------- */

/* Every variant's name and its base's, built here or not. */
static const struct {
    const char *name, *base;
} known_variants[] = {
#define SF_VNAMES(variant, base) {#variant, #base},
    SF_VARIANTS(SF_VNAMES)
#undef SF_VNAMES
};
#define KNOWN_VARIANTS ((int)(sizeof known_variants / sizeof known_variants[0]))

/* The CPU a choice is made for: an architecture, its features and traits, and
 * whether only the kernels of this build count (this machine) or every kernel
 * of isa.def (a described CPU). */
typedef struct cpu_kind {
    const char *arch;
    unsigned features;
    int built_only;
} cpu_kind;

static int kernel_of_arch(const known_isa *k, const cpu_kind *cpu) {
    return (!strcmp(k->arch, "any") || !strcmp(k->arch, cpu->arch)) &&
           (k->built || !cpu->built_only);
}

/* The rule for the default, and the one place it is written: among the kernels
 * of the CPU's architecture (and scalar, of arch any), the last in isa.def's
 * order (slowest first) whose features the CPU has, passing over a kernel
 * marked SF_NOT_DEFAULT_ON a trait the CPU has. scalar always qualifies. */
static const char *default_for(const cpu_kind *cpu) {
    const known_isa *k = known_isas();
    const char *best = k[SF_KNOWN_INDEX_scalar].name;
    for (int i = 0; i < KNOWN_COUNT; i++)
        if (kernel_of_arch(&k[i], cpu) && (k[i].need & cpu->features) == k[i].need &&
            !(known_avoids()[i] & cpu->features))
            best = k[i].name;
    return best;
}

/* A kernel (or variant) asked for by name, the `len` bytes at `name`: SF_OK
 * with *chosen, or SF_EUNKNOWN (no such name), SF_ENOTBUILT (another
 * architecture's, or left out of this build), SF_EUNSUPPORTED (the CPU lacks a
 * feature it needs). Traits never refuse a kernel asked for by name. */
/* The `len` bytes at `name` without the blanks around them: the name a
 * SIMDFILTER_KERNEL value or a request gives. Returns the start, sets *len. */
static const char *without_blanks(const char *name, size_t *len) {
    const char *start = name ? name + strspn(name, " \t\n\r") : "";
    size_t n = strlen(start);
    while (n && strchr(" \t\n\r", start[n - 1]))
        n--;
    *len = n;
    return start;
}

/* The variant called by the `len` bytes at `name`: its base kernel's name, with
 * *spelt its own; NULL for a name no variant has. */
static const char *variant_base(const char *name, size_t len, const char **spelt) {
    for (int v = 0; v < KNOWN_VARIANTS; v++)
        if (strlen(known_variants[v].name) == len && !strncmp(known_variants[v].name, name, len)) {
            *spelt = known_variants[v].name;
            return known_variants[v].base;
        }
    return NULL;
}

static int requested_for(const cpu_kind *cpu, const char *name, size_t len,
                         const char **chosen) {
#define SF_NAME_IS(s) (strlen(s) == len && !strncmp((s), name, len))
    const char *spelt = NULL, *base = variant_base(name, len, &spelt);
    const known_isa *k = known_isas(), *found = NULL;
    for (int i = 0; i < KNOWN_COUNT && !found; i++)
        if (base ? !strcmp(k[i].name, base) : SF_NAME_IS(k[i].name))
            found = &k[i];
#undef SF_NAME_IS
    if (!found)
        return SF_EUNKNOWN;
    if (!kernel_of_arch(found, cpu))
        return SF_ENOTBUILT;
    if ((found->need & cpu->features) != found->need)
        return SF_EUNSUPPORTED;
    *chosen = spelt ? spelt : found->name;
    return SF_OK;
}

int sf_kernel_choice(const char *arch, const char *features, const char *requested,
                     const char **name) {
    cpu_kind cpu = {SF_BUILD_ARCH, 0, 1};
    const char *chosen = NULL;
    if (name)
        *name = NULL;
    if (arch) {
        int known_arch = 0;
        for (int i = 0; i < KNOWN_COUNT; i++)
            known_arch |= !strcmp(known_isas()[i].arch, arch);
        if (!known_arch || sf_cpu_feature_bits_of(features, &cpu.features) != 0)
            return SF_EINVAL;
        cpu.arch = arch;
        cpu.built_only = 0;
    } else if (features) {
        return SF_EINVAL; /* this machine's features are detected, not described */
    } else {
        cpu.features = sf_cpu_feature_bits();
    }
    /* Blank space around a name is no part of it; an empty name asks for nothing. */
    size_t len;
    const char *start = without_blanks(requested, &len);
    if (len) {
        const int status = requested_for(&cpu, start, len, &chosen);
        if (status != SF_OK)
            return status;
    } else {
        chosen = default_for(&cpu);
    }
    if (name)
        *name = chosen;
    return SF_OK;
}

/* Why the default passes over a kernel on a CPU with one of its
 * SF_NOT_DEFAULT_ON traits, in words: one sentence per trait isa.def uses. */
static const char *trait_reason(unsigned traits) {
    if (traits & FEAT_SLOW_COMPRESS_STORE)
        return "this CPU (AMD Zen 4, Zen 5) runs AVX-512's compress store to memory in "
               "microcode, ~50x slower than compressing in a register on Zen 4, so the "
               "default is avx512_zen4";
    return "a trait of this CPU keeps the default off it";
}

/* The rule's position of a kernel (a variant: its base's) in isa.def's order. */
static int known_index(const char *name) {
    const char *spelt, *base = variant_base(name, strlen(name), &spelt);
    for (int i = 0; i < KNOWN_COUNT; i++)
        if (!strcmp(known_isas()[i].name, base ? base : name))
            return i;
    return -1;
}

const char *sf_kernel_not_default_reason(const char *arch, const char *features,
                                         const char *name) {
    const char *best = NULL, *chosen = NULL;
    unsigned bits = 0;
    if (sf_kernel_choice(arch, features, NULL, &best) != SF_OK ||
        (arch ? sf_cpu_feature_bits_of(features, &bits) : (bits = sf_cpu_feature_bits(), 0)))
        return "no such CPU: an unknown architecture or feature";
    switch (sf_kernel_choice(arch, features, name, &chosen)) {
    case SF_OK:
        break;
    case SF_EUNKNOWN:
        return "no kernel of that name";
    case SF_ENOTBUILT:
        return "not in this build (another architecture's, or left out)";
    default:
        return "this CPU or its OS lacks an instruction set it needs";
    }
    if (!strcmp(chosen, best))
        return NULL;
    size_t len;
    const char *spelt, *start = without_blanks(name, &len);
    if (variant_base(start, len, &spelt))
        return "a benchmark-only variant, never a default";
    const int i = known_index(chosen);
    if (known_avoids()[i] & bits)
        return trait_reason(known_avoids()[i] & bits);
    const int b = known_index(best);
    if (known_isas()[i].need == known_isas()[b].need)
        return "another form of the default's instruction set, for CPUs with another trait";
    return i < b ? "an older instruction set than the default's"
                 : "the default comes later in the rule's order";
}

const sf_kernel *sf_best_kernel(void) {
    const char *name = NULL;
    (void)sf_kernel_choice(NULL, NULL, NULL, &name); /* the default: cannot fail */
    return sf_kernel_find(name);
}

const char *sf_kernel_arch(const char *name) {
    const known_isa *k = known_isas();
    /* A variant's architecture is its base's: so that sf_kernel_select calls one
     * of another architecture's "not built", as sf_kernel_choice does. */
    const char *spelt, *base = name ? variant_base(name, strlen(name), &spelt) : NULL;
    if (base)
        name = base;
    for (int i = 0; name && i < KNOWN_COUNT; i++)
        if (!strcmp(k[i].name, name))
            return k[i].arch;
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

/* ---- The process default ------------------------------------------------------ */

/* NULL until first use, then the chosen kernel. */
static const sf_kernel *_Atomic active;

/* SF_KERNEL_ENV as read once, at the first use of the process default: its
 * value (cut to the buffer) and what choosing it gave. Written before
 * env_state turns 2, read only after. */
static atomic_int env_state; /* 0: not read, 1: being read, 2: read */
static int env_status, env_set;
static char env_value[64];

static void read_environment(void) {
    int expected = 0;
    if (!atomic_compare_exchange_strong_explicit(&env_state, &expected, 1, memory_order_acquire,
                                                 memory_order_acquire)) {
        while (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
            ;
        return;
    }
    const char *value = getenv(SF_KERNEL_ENV), *chosen = NULL;
    env_set = value != NULL;
    if (value) { /* kept as the name it gives, for the bindings' messages */
        size_t len;
        const char *start = without_blanks(value, &len);
        len = len < sizeof env_value ? len : sizeof env_value - 1;
        memcpy(env_value, start, len);
        env_value[len] = '\0';
    }
    env_status = sf_kernel_choice(NULL, NULL, value, &chosen);
    /* A name the CPU cannot run leaves the best kernel as the default; the
     * bindings report env_status (sf_kernel_env_status) as their errors. */
    const sf_kernel *k = env_status == SF_OK ? sf_kernel_find(chosen) : sf_best_kernel();
    const sf_kernel *none = NULL;
    atomic_compare_exchange_strong(&active, &none, k); /* unless sf_use_kernel came first */
    atomic_store_explicit(&env_state, 2, memory_order_release);
}

int sf_kernel_env_status(const char **value) {
    if (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        read_environment();
    if (value)
        *value = env_set ? env_value : NULL;
    return env_status;
}

const sf_kernel *sf_active_kernel(void) {
    const sf_kernel *k = atomic_load_explicit(&active, memory_order_acquire);
    if (!k) {
        read_environment();
        k = atomic_load_explicit(&active, memory_order_acquire);
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
    if (atomic_load_explicit(&env_state, memory_order_acquire) != 2)
        read_environment(); /* so that the environment cannot undo this choice later */
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
