/*
 * The public API around the kernels, for tests/c/test_kernels.c: the dispatch
 * table (sf_kernel_count/at/find/supported/select/arch, sf_use_kernel, every
 * slot filled, the slots dispatch filled from a lower kernel, each kernel of
 * isa.def built or refused with SF_ENOTBUILT), sf_elem_name/size,
 * sf_result_size, and the u32 convenience functions sf_filter_indexes_u32 and
 * sf_count_in_range_u32 with every supported kernel active. Each check counts
 * in api_checks and the first that fails stops the run through die().
 *
 * Included by test_kernels.c after its arenas, kernel table and crash-report
 * state; test_nulls_within.h, included after this, uses API_CHECK and any_fn.
 */

/* ---- The public API around the kernels ------------------------------------ */

static unsigned long long api_checks;

#define API_CHECK(cond, ...)                                                                \
    do {                                                                                     \
        api_checks++;                                                                        \
        if (!(cond))                                                                         \
            die(__VA_ARGS__);                                                                \
    } while (0)

/* Every kernel the project knows, from the table dispatch reads too (read here
 * as plain data, to check dispatch's answers against it). */
static const struct {
    const char *name, *arch;
} known_kernels[] = {
#define SF_ISA(name, source, arch, features, flags) {#name, #arch},
#include "kernels/isa.def"
#undef SF_ISA
};
#define KNOWN_KERNELS ((int)(sizeof known_kernels / sizeof known_kernels[0]))

typedef void (*any_fn)(void); /* the type -Wcast-function-type lets any function pointer become */

/* Slot (op, e) of k, as one pointer type, only to compare it with others. */
static any_fn slot_of(const sf_kernel *k, int op, int e) {
    switch (op) {
    case SF_OP_INDEX32: return (any_fn)k->index32[e];
    case SF_OP_INDEX64: return (any_fn)k->index64[e];
    case SF_OP_VALUES: return (any_fn)k->values[e];
    case SF_OP_MASK8: return (any_fn)k->mask8[e];
    case SF_OP_BITS: return (any_fn)k->bits[e];
    default: return (any_fn)k->count[e];
    }
}

/* Every slot of the header's list (SF_KERNEL_SLOTS) filled in a table dispatch
 * hands out: a slot added to the list is checked without a word here. */
#define EVERY_SLOT_EACH(slot, type, group, k, unused)                                    \
    for (int e = 0; e < SF_ELEM_COUNT; e++)                                              \
        API_CHECK(k->slot[e], "kernel %s has an empty %s slot for elem %s", k->name, #slot, \
                  sf_elem_name((sf_elem)e));
#define EVERY_SLOT_ONE(slot, type, k, unused)                                            \
    API_CHECK(k->slot, "kernel %s has an empty %s slot", k->name, #slot);
static void check_every_slot(const sf_kernel *k) {
    SF_KERNEL_SLOTS(EVERY_SLOT_EACH, EVERY_SLOT_ONE, k, ~)
}
#undef EVERY_SLOT_EACH
#undef EVERY_SLOT_ONE


/* Dispatch's rule (sf_kernel_choice) here: this machine's default and every
 * name asked of it agree with the tables above; the same CPU described (arch and
 * features as printed) gets the same default whenever this build has every
 * kernel of its architecture. Described CPUs of every kind are checked from
 * tests/cpu_kinds.txt by tests/test_dispatch_rule.py and the Rust crate. */
static void check_rule(void) {
    const char *name = "unset", *arch = NULL;
    API_CHECK(sf_kernel_choice(NULL, NULL, NULL, &name) == SF_OK && name &&
                  !strcmp(name, sf_best_kernel()->name),
              "sf_kernel_choice's default here is %s, sf_best_kernel's %s", name,
              sf_best_kernel()->name);
    API_CHECK(sf_kernel_choice(NULL, NULL, " \t", &name) == SF_OK && !strcmp(name, sf_best_kernel()->name),
              "a blank request is not the default");
    API_CHECK(sf_kernel_choice(NULL, "avx2", NULL, &name) == SF_EINVAL && !name &&
                  sf_kernel_choice("riscv64", "", NULL, &name) == SF_EINVAL &&
                  sf_kernel_choice("x86_64", "sse4.1 avx3", NULL, &name) == SF_EINVAL &&
                  sf_kernel_choice("x86_64", "", "bogus", &name) == SF_EUNKNOWN && !name,
              "sf_kernel_choice accepted a bad description or name");
    int all_built = 1;
    for (int i = 0; i < KNOWN_KERNELS; i++) {
        const sf_kernel *k = sf_kernel_find(known_kernels[i].name);
        const int want = !k ? SF_ENOTBUILT : sf_kernel_supported(k) ? SF_OK : SF_EUNSUPPORTED;
        name = NULL;
        API_CHECK(sf_kernel_choice(NULL, NULL, known_kernels[i].name, &name) == want &&
                      (want != SF_OK || !strcmp(name, known_kernels[i].name)),
                  "sf_kernel_choice(\"%s\") here is not %d", known_kernels[i].name, want);
        if (!k && !strcmp(known_kernels[i].arch, sf_kernel_arch(sf_best_kernel()->name)))
            all_built = 0;
        if (!strcmp(known_kernels[i].arch, "x86_64") || !strcmp(known_kernels[i].arch, "aarch64"))
            if (k)
                arch = known_kernels[i].arch;
    }
    char features[256];
    sf_cpu_features(features, sizeof features);
    if (arch && all_built) {
        API_CHECK(sf_kernel_choice(arch, features, NULL, &name) == SF_OK &&
                      !strcmp(name, sf_best_kernel()->name),
                  "this CPU described (%s, \"%s\") gets %s, not the default here %s", arch,
                  features, name, sf_best_kernel()->name);
        printf("dispatch rule: %s with \"%s\" -> %s\n", arch, features, name);
    }
    const char *value = NULL;
    const int env = sf_kernel_env_status(&value);
    API_CHECK(env == SF_OK || (value && sf_kernel_choice(NULL, NULL, value, NULL) == env),
              "sf_kernel_env_status says %d for %s", env, value ? value : "(unset)");
}

static void check_table(void) {
    const sf_kernel *sel = NULL;
    API_CHECK(sf_kernel_count() >= 1 && sf_kernel_count() <= MAX_KERNELS, "sf_kernel_count() = %d",
              sf_kernel_count());
    API_CHECK(sf_kernel_at(0) && !strcmp(sf_kernel_at(0)->name, "scalar"),
              "sf_kernel_at(0) is not the scalar kernel");
    API_CHECK(!sf_kernel_at(-1) && !sf_kernel_at(sf_kernel_count()), "sf_kernel_at out of range is not NULL");
    API_CHECK(!sf_kernel_find("no-such-kernel") && !sf_kernel_find(NULL), "sf_kernel_find of an unknown name");
    API_CHECK(!sf_kernel_supported(NULL), "sf_kernel_supported(NULL) != 0");
    API_CHECK(sf_use_kernel("no-such-kernel") == SF_EUNKNOWN, "sf_use_kernel of an unknown name");
    API_CHECK(sf_kernel_select("no-such-kernel", &sel) == SF_EUNKNOWN && !sel &&
                  sf_kernel_select(NULL, &sel) == SF_EUNKNOWN && !sel,
              "sf_kernel_select of an unknown name");
    API_CHECK(!sf_kernel_arch("no-such-kernel") && !sf_kernel_arch(NULL), "sf_kernel_arch of an unknown name");
    for (int e = 0; e < SF_ELEM_COUNT; e++)
        API_CHECK(sf_elem_name((sf_elem)e) && sf_elem_size((sf_elem)e), "sf_elem_name/size(%d)", e);
    API_CHECK(!sf_elem_name(SF_ELEM_COUNT) && !sf_elem_size(SF_ELEM_COUNT), "invalid sf_elem accepted");
    API_CHECK(sf_result_size(SF_OP_INDEX32, SF_U8) == 4 && sf_result_size(SF_OP_INDEX64, SF_U8) == 8 &&
                  sf_result_size(SF_OP_VALUES, SF_U16) == 2 && sf_result_size(SF_OP_VALUES, SF_F64) == 8 &&
                  sf_result_size(SF_OP_COUNT, SF_U64) == 0 && sf_result_size(SF_OP_MASK8, SF_F64) == 1 &&
                  sf_result_size(SF_OP_BITS, SF_U8) == 0 && sf_output_bytes(SF_OP_BITS, SF_F64, 9) == 2 &&
                  sf_output_bytes(SF_OP_BITS, SF_U8, 16) == 2 && sf_output_bytes(SF_OP_BITS, SF_U8, 0) == 0 &&
                  sf_output_bytes(SF_OP_MASK8, SF_U64, 5) == 5 && sf_output_bytes(SF_OP_INDEX64, SF_U8, 3) == 24 &&
                  sf_op_is_mask(SF_OP_MASK8) && sf_op_is_mask(SF_OP_BITS) && !sf_op_is_mask(SF_OP_COUNT),
              "sf_result_size, sf_output_bytes or sf_op_is_mask");
    for (int i = 0; i < sf_kernel_count(); i++) {
        const sf_kernel *k = sf_kernel_at(i);
        API_CHECK(k && k->name, "sf_kernel_at(%d) has no name", i);
        API_CHECK(sf_kernel_find(k->name) == k, "sf_kernel_find(\"%s\") is not sf_kernel_at(%d)", k->name, i);
        check_every_slot(k);
        const int want = sf_kernel_supported(k) ? SF_OK : SF_EUNSUPPORTED;
        sel = NULL;
        API_CHECK(sf_kernel_select(k->name, &sel) == want && sel == (want == SF_OK ? k : NULL),
                  "sf_kernel_select(\"%s\") is not %d", k->name, want);
        API_CHECK(sf_use_kernel(k->name) == want, "sf_use_kernel(\"%s\") is not %d", k->name, want);
        nw_check_slots(i);
        /* A slot that is a lower kernel's function came from dispatch's fallback. */
        for (int op = 0; op < SF_OP_COUNT_OF_OPS; op++)
            for (int e = 0; e < SF_ELEM_COUNT; e++)
                for (int j = 0; j < i; j++)
                    if (slot_of(sf_kernel_at(j), op, e) == slot_of(k, op, e)) {
                        printf("slot %s %s %s: from %s\n", k->name, op_names[op],
                               sf_elem_name((sf_elem)e), sf_kernel_at(j)->name);
                        break;
                    }
    }
    for (int v = 0; v < sf_kernel_variant_count(); v++)
        check_every_slot(sf_kernel_variant_at(v));
    for (int i = 0; i < KNOWN_KERNELS; i++) {
        const char *name = known_kernels[i].name, *arch = sf_kernel_arch(name);
        const int built = sf_kernel_find(name) != NULL;
        API_CHECK(arch && !strcmp(arch, known_kernels[i].arch),
                  "sf_kernel_arch(\"%s\") = %s, isa.def says %s", name, arch ? arch : "NULL",
                  known_kernels[i].arch);
        if (!built) {
            sel = NULL;
            API_CHECK(sf_kernel_select(name, &sel) == SF_ENOTBUILT && !sel &&
                          sf_use_kernel(name) == SF_ENOTBUILT,
                      "kernel %s is not in this build: select/use must say SF_ENOTBUILT", name);
        }
        printf("known %s arch=%s: %s\n", name, arch, built ? "built" : "not built");
    }
    API_CHECK(sf_use_kernel(NULL) == SF_OK && sf_active_kernel() == sf_best_kernel(),
              "sf_use_kernel(NULL) did not restore the best kernel");
    check_rule();
    API_CHECK(sf_kernel_supported(sf_kernel_at(0)), "scalar reported unsupported");
    API_CHECK(sf_kernel_supported(sf_best_kernel()), "the best kernel is not supported");
}

/* sf_invert_range: an empty verdict keeps everything (every value of an integer
 * width; an inverted NaN range for floats, NaN included, by spec_keep), a
 * whole integer width keeps nothing, any other range toggles `invert` only,
 * and two inversions give the range back; bad kinds and verdicts refused. */
static void check_invert_range(void) {
    cur_kernel = "(sf_invert_range)";
    for (int e = 0; e < SF_ELEM_COUNT; e++) {
        const sf_elem k = (sf_elem)e;
        cur_elem = k;
        sf_range r;
        memset(&r, 0x5A, sizeof r);
        API_CHECK(sf_invert_range(k, SF_RANGE_EMPTY, &r) == SF_RANGE_OK,
                  "sf_invert_range(%s, EMPTY) is not OK", sf_elem_name(k));
        for (int t = 0; t < 2000; t++) {
            const uint64_t v = t < 4 ? (t < 2 ? 0 : width_mask(k)) : rnd() & width_mask(k);
            API_CHECK(spec_keep(k, v, &r), "outside an empty %s range, 0x%" PRIx64 " is not kept",
                      sf_elem_name(k), v);
        }
        if (is_float(k)) {
            API_CHECK(spec_keep(k, fbits(k, fval(SF_F64, 0x7FF8000000000000ull)), &r), "outside an empty range, NaN is not kept");
        } else {
            sf_range full = {0};
            full.lo = rnd() & width_mask(k);
            full.hi = (full.lo - 1) & width_mask(k);
            API_CHECK(sf_invert_range(k, SF_RANGE_OK, &full) == SF_RANGE_EMPTY,
                      "outside a whole %s width is not empty", sf_elem_name(k));
        }
        for (int t = 0; t < 100; t++) {
            const char *shape;
            sf_range a, b;
            make_range(k, &a, &shape);
            if (spec_full(k, &a))
                continue;
            b = a;
            API_CHECK(sf_invert_range(k, SF_RANGE_OK, &b) == SF_RANGE_OK && b.invert == 1 &&
                          sf_invert_range(k, SF_RANGE_OK, &b) == SF_RANGE_OK &&
                          b.invert == 0 && a.lo == b.lo && a.hi == b.hi &&
                          memcmp(&a.flo, &b.flo, sizeof a.flo) == 0 &&
                          memcmp(&a.fhi, &b.fhi, sizeof a.fhi) == 0,
                      "sf_invert_range(%s) twice is not the range (%s)", sf_elem_name(k), shape);
        }
    }
    sf_range r = {0};
    API_CHECK(sf_invert_range(SF_ELEM_COUNT, SF_RANGE_OK, &r) == SF_RANGE_EINVAL &&
                  sf_invert_range(SF_U8, SF_RANGE_EINVAL, &r) == SF_RANGE_EINVAL &&
                  sf_invert_range(SF_U8, SF_RANGE_OK, NULL) == SF_RANGE_EINVAL,
              "sf_invert_range took a bad kind, verdict or pointer");
    cur_kernel = "(harness)";
}

/* sf_merge_ranges on every type: random resolved ranges (narrow ones near a
 * few centres, so that they overlap, touch and nest), merged: the merged
 * ranges ascend without touching, and any value is in one of them exactly
 * when it is in one of the originals (values at and next to every end, and
 * random ones). */
static int in_any(sf_elem k, uint64_t v, const sf_range *r, size_t n) {
    return spec_keep_ranges(k, v, r, n, 0);
}

static void check_merge_ranges(void) {
    cur_kernel = "(sf_merge_ranges)";
    enum { K = 12 };
    for (int t = 0; t < SF_TYPE_COUNT; t++) {
        const sf_type type = (sf_type)t;
        const sf_elem k = sf_type_elem(type);
        const int fl = is_float(k);
        cur_elem = k;
        for (int round = 0; round < 300; round++) {
            sf_range orig[K], merged[K];
            size_t n = 0;
            const size_t want = 1 + below(K);
            while (n < want) {
                sf_bound lo = {SF_BOUND_INT, 0, 0, 0.0}, hi = lo;
                const int64_t centre = (int64_t)below(5) * 8 - 16, a = centre + (int64_t)below(9) - 4;
                const int64_t b = a + (int64_t)below(6);
                if (fl) {
                    lo.kind = hi.kind = SF_BOUND_FLOAT;
                    lo.f = (double)a / 2;
                    hi.f = (double)b / 2;
                } else {
                    lo.i = a;
                    hi.i = b;
                }
                if (below(8) == 0)
                    lo.kind = SF_BOUND_NONE;
                if (below(8) == 0)
                    hi.kind = SF_BOUND_NONE;
                if (sf_resolve_range(type, &lo, 1, &hi, 1, &orig[n]) == SF_RANGE_OK)
                    n++;
            }
            memcpy(merged, orig, sizeof orig);
            const size_t m = sf_merge_ranges(type, merged, n);
            API_CHECK(m >= 1 && m <= n, "sf_merge_ranges(%d) gave %zu of %zu ranges", t, m, n);
            for (size_t j = 0; j + 1 < m; j++) {
                const int ascends =
                    fl ? merged[j].fhi < merged[j + 1].flo
                       : (t == SF_T_BOOL || t == SF_T_U8 || t == SF_T_U16 || t == SF_T_U32 ||
                          t == SF_T_U64)
                             ? merged[j].hi + 1 < merged[j + 1].lo
                             : (int64_t)merged[j].hi + 1 < (int64_t)merged[j + 1].lo;
                API_CHECK(ascends, "sf_merge_ranges(%d): ranges %zu and %zu overlap, touch or "
                          "descend", t, j, j + 1);
            }
            for (size_t j = 0; j < n; j++) {
                const uint64_t ends[2] = {fl ? fbits(k, orig[j].flo) : orig[j].lo,
                                          fl ? fbits(k, orig[j].fhi) : orig[j].hi};
                for (int e = 0; e < 2; e++)
                    for (int d = -1; d <= 1; d++) {
                        const uint64_t v =
                            fl ? fbits(k, fval(k, ends[e]) + d * 0.25) : (ends[e] + (uint64_t)d) & width_mask(k);
                        API_CHECK(in_any(k, v, orig, n) == in_any(k, v, merged, m),
                                  "sf_merge_ranges(%d) changed whether 0x%" PRIx64 " is kept", t, v);
                    }
            }
            for (int j = 0; j < 50; j++) {
                const uint64_t v = fl ? fbits(k, ((double)below(81) - 40) / 4) : rnd() & width_mask(k);
                API_CHECK(in_any(k, v, orig, n) == in_any(k, v, merged, m),
                          "sf_merge_ranges(%d) changed whether 0x%" PRIx64 " is kept", t, v);
            }
        }
    }
    cur_kernel = "(harness)";
}

/* sf_bits_positions with every kernel that runs here: the set bits of random
 * bitmaps (every length to 70, and across the 2,048-element blocks; from none
 * set to all, so both the bit-by-bit and the kernel's path), the bits past n
 * set and never read as positions, exactly the count written (canaries after
 * it), a capacity short of the count honoured, the count alone without out,
 * and 0 for an op that is not a position. */
static void check_bits_positions(void) {
    enum { MAXN = 3 * 2048 + 5, CANARIES = 8 };
    static uint8_t bits[MAXN / 8 + 1];
    static uint64_t want[MAXN], got64[MAXN + CANARIES];
    static uint32_t got32[MAXN + CANARIES];
    static const unsigned density[] = {0, 1, 3, 20, 70, 100};
    cur_call = " via sf_bits_positions";
    for (int i = 0; i < sf_kernel_count(); i++) {
        const sf_kernel *k = sf_kernel_at(i);
        if (!sf_kernel_supported(k))
            continue;
        cur_kernel = k->name;
        for (size_t round = 0; round < 140; round++) {
            const size_t n = round <= 70 ? round
                             : round < 100 ? 2040 + below(20)
                                           : 2049 + below(MAXN - 2049 + 1);
            const unsigned pct = density[round % 6];
            size_t m = 0;
            for (size_t j = 0; j < sizeof bits; j++)
                bits[j] = (uint8_t)rnd(); /* past n: whatever was there */
            for (size_t j = 0; j < n; j++) {
                const int set = below(100) < pct;
                bits[j / 8] = (uint8_t)((bits[j / 8] & ~(1u << (j % 8))) | (unsigned)set << (j % 8));
                if (set)
                    want[m++] = j;
            }
            API_CHECK(sf_bits_positions(k, bits, n, SF_OP_INDEX32, NULL, 0) == m,
                      "sf_bits_positions counted wrong (n %zu, %zu set)", n, m);
            API_CHECK(sf_bits_positions(k, bits, n, SF_OP_COUNT, got32, m) == 0,
                      "sf_bits_positions took SF_OP_COUNT");
            memset(got32, 0xA5, sizeof got32);
            memset(got64, 0xA5, sizeof got64);
            API_CHECK(sf_bits_positions(k, bits, n, SF_OP_INDEX32, got32, m) == m &&
                          sf_bits_positions(k, bits, n, SF_OP_INDEX64, got64, m) == m,
                      "sf_bits_positions returned a wrong count (n %zu, %zu set)", n, m);
            for (size_t j = 0; j < m; j++)
                API_CHECK(got32[j] == want[j] && got64[j] == want[j],
                          "sf_bits_positions: position %zu of %zu is %u / %llu, expected %llu (n %zu)",
                          j, m, got32[j], (unsigned long long)got64[j],
                          (unsigned long long)want[j], n);
            for (size_t j = m; j < m + CANARIES; j++)
                API_CHECK(got32[j] == 0xA5A5A5A5u && got64[j] == 0xA5A5A5A5A5A5A5A5u,
                          "sf_bits_positions wrote past its %zu positions (n %zu)", m, n);
            /* a capacity short of the bits set (they changed since counted):
             * the first `cap` positions, nothing past them, the full count */
            const size_t cap = m / 2;
            memset(got32, 0xA5, sizeof got32);
            API_CHECK(sf_bits_positions(k, bits, n, SF_OP_INDEX32, got32, cap) == m,
                      "sf_bits_positions with a short capacity miscounted (n %zu)", n);
            for (size_t j = 0; j < cap + CANARIES; j++)
                API_CHECK(j < cap ? got32[j] == want[j] : got32[j] == 0xA5A5A5A5u,
                          "sf_bits_positions with capacity %zu: slot %zu wrong (n %zu)", cap, j, n);
        }
    }
    cur_kernel = "(harness)";
    cur_call = "";
}

/* sf_filter_indexes_u32 and sf_count_in_range_u32 with every supported kernel
 * active: the bounds the issue names, lo > hi (nothing, and nothing written),
 * lo == hi, and n too long for 32-bit positions. */
static void check_convenience(void) {
    static const uint32_t bounds[] = {0, 1, 2, 1000, 0x7FFFFFFEu, 0x7FFFFFFFu, 0x80000000u,
                                      0x80000001u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    const size_t nb = sizeof bounds / sizeof bounds[0];
    for (int ki = 0; ki < nkernels; ki++) {
        if (!kernels[ki].supported)
            continue;
        const sf_kernel *k = kernels[ki].k;
        API_CHECK(sf_use_kernel(k->name) == SF_OK && sf_active_kernel() == k,
                  "sf_use_kernel(\"%s\") did not make it active", k->name);
        cur_kernel = k->name;
        cur_call = " via sf_filter_indexes_u32 / sf_count_in_range_u32";
        cur_elem = SF_U32;
        for (size_t n = 0; n <= 67; n += (n < 20 ? 1 : 47)) {
            cur_n = (long)n;
            uint32_t *x = (uint32_t *)(void *)(in_arena.base + in_arena.size - n * 4);
            uint32_t *out = (uint32_t *)(void *)(out_arena.base + out_arena.size - n * 4);
            for (size_t i = 0; i < n; i++)
                x[i] = chance(50) ? bounds[below(nb)] : bounds[below(nb)] + (uint32_t)below(3) - 1;
            for (size_t a = 0; a < nb; a++)
                for (size_t b = 0; b < nb; b++) {
                    const uint32_t lo = bounds[a], hi = bounds[b];
                    size_t want = 0;
                    for (size_t i = 0; i < n; i++)
                        want += lo <= x[i] && x[i] <= hi;
                    memset(out, 0xEE, n * 4);
                    canary_fill(&out_arena, (unsigned char *)out, n * 4);
                    size_t got = sf_filter_indexes_u32(x, n, lo, hi, out);
                    API_CHECK(got == want && sf_count_in_range_u32(x, n, lo, hi) == want,
                              "kernel %s: sf_filter_indexes_u32/sf_count_in_range_u32(n=%zu, lo=%" PRIu32
                              ", hi=%" PRIu32 ") = %zu/%zu, expected %zu",
                              k->name, n, lo, hi, got, sf_count_in_range_u32(x, n, lo, hi), want);
                    API_CHECK(!canary_check(&out_arena, (unsigned char *)out, n * 4),
                              "kernel %s: sf_filter_indexes_u32 wrote outside out (n=%zu)", k->name, n);
                    for (size_t i = 0, j = 0; i < n; i++)
                        if (lo <= x[i] && x[i] <= hi)
                            API_CHECK(out[j++] == i, "kernel %s: sf_filter_indexes_u32(lo=%" PRIu32
                                      ", hi=%" PRIu32 ") out[%zu] = %" PRIu32 ", expected %zu",
                                      k->name, lo, hi, j - 1, out[j - 1], i);
                    if (lo > hi) /* nothing found, and nothing written either */
                        for (size_t i = 0; i < n; i++)
                            API_CHECK(out[i] == 0xEEEEEEEEu, "kernel %s: lo > hi wrote out[%zu]", k->name, i);
                }
        }
#if SIZE_MAX > UINT32_MAX
        /* Fenced, inaccessible memory: returning SF_TOO_LONG must touch neither. */
        {
            unsigned char *nothing = in_arena.base - page_size;
            API_CHECK(sf_filter_indexes_u32((const uint32_t *)(void *)nothing, (size_t)UINT32_MAX + 1, 0, 9,
                                            (uint32_t *)(void *)nothing) == SF_TOO_LONG,
                      "kernel %s: sf_filter_indexes_u32 with n = 2^32 did not return SF_TOO_LONG", k->name);
        }
#endif
    }
    cur_kernel = "(harness)";
    cur_call = "";
    API_CHECK(sf_use_kernel(NULL) == SF_OK && sf_active_kernel() == sf_best_kernel(),
              "sf_use_kernel(NULL) did not restore the best kernel");
    check_rule();
    check_invert_range();
    check_merge_ranges();
    check_bits_positions();
}
