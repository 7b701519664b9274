/*
 * The kernel slots with nulls (index32_valid, index64_valid, values_valid,
 * count_valid) and with given positions (within32, within64), for
 * test_kernels.c: included after its run_one, on the same case (data, range,
 * bases), with a random validity bitmap and a random position set of its own.
 * Every kernel is checked against the specification (spec_keep ANDed with the
 * validity bit, or looked up at each position), the scalar kernel included.
 *
 * The bitmap and the positions each end at a guard page (or start at one), so
 * a kernel that reads a byte past valid[ceil(n / 8) - 1] or past pos[m - 1]
 * faults natively; outputs are fenced by canaries as in run_one.
 */

enum { NW_INDEX32_VALID, NW_INDEX64_VALID, NW_VALUES_VALID, NW_COUNT_VALID, NW_WITHIN32,
       NW_WITHIN64, NW_MASK8_VALID, NW_BITS_VALID, NW_OPS };
static const char *const nw_names[NW_OPS] = {"index32_valid", "index64_valid", "values_valid",
                                             "count_valid",   "within32",      "within64",
                                             "mask8_valid",   "bits_valid"};
static unsigned long long nw_cmp[MAX_KERNELS][SF_ELEM_COUNT][NW_OPS];
static arena valid_arena, pos_arena;
static size_t *nw_expect; /* what the specification keeps: element indexes */
static size_t *nw_pos;    /* the position set, as element indexes */
static unsigned long long nw_mask_cmp[MAX_KERNELS][SF_ELEM_COUNT];
static arena mask_arena;

static void nw_fail(const kstate *ks, int op, const tcase *c, const char *what, size_t got,
                    size_t want, const char *sets) {
    printf("\nFAIL: kernel %s, op %s, elem %s: %s\n", ks->k->name, nw_names[op],
           sf_elem_name(c->elem), what);
    printf("  n=%zu base32=%" PRIu32 " base64=%" PRIu64 " range shape=%s data=%s; %s\n", c->n,
           c->base32, c->base64, c->shape, c->data_desc, sets);
    printf("  returned %zu, expected %zu\n", got, want);
    fail_footer();
}

/* What a mask with nulls says of element i: in range and valid. */
typedef struct {
    const tcase *c;
    const uint8_t *valid;
} nw_mask_ctx;

static int nw_keeps(size_t i, const void *ctx) {
    const nw_mask_ctx *m = (const nw_mask_ctx *)ctx;
    return ((m->valid[i / 8] >> (i % 8)) & 1) &&
           spec_keep(m->c->elem, load_bits(m->c->elem, m->c->x, i), &m->c->r);
}

/* mask8_valid and bits_valid of one kernel: every result (nulls 0) and, for
 * bits, the bits past n; want is how many are in range and valid. */
static void nw_run_mask(kstate *ks, int ki, int op, const tcase *c, const uint8_t *valid,
                        size_t want, const char *sets) {
    const sf_op mop = op == NW_MASK8_VALID ? SF_OP_MASK8 : SF_OP_BITS;
    const size_t bytes = sf_output_bytes(mop, c->elem, c->n);
    unsigned char *out = arena_place(&out_arena, c->out_place, bytes, 1, c->out_shift);
    memset(out, 0xEE, bytes);
    canary_fill(&out_arena, out, bytes);
    cur_kernel = ks->k->name;
    const size_t got = op == NW_MASK8_VALID
                           ? ks->k->mask8_valid[c->elem](c->x, valid, c->n, &c->r, out)
                           : ks->k->bits_valid[c->elem](c->x, valid, c->n, &c->r, out);
    cur_kernel = "(harness)";
    if (canary_check(&out_arena, out, bytes))
        nw_fail(ks, op, c, "wrote outside its output buffer", got, want, sets);
    const nw_mask_ctx ctx = {c, valid};
    const size_t at = mask_mismatch(mop, out, c->n, nw_keeps, &ctx);
    if (at != (size_t)-1) {
        printf("\n  result %zu is %u (element %s, %s)", at, mask_result(mop, out, at),
               at < c->n && ((valid[at / 8] >> (at % 8)) & 1) ? "valid" : "null or past n",
               at < c->n && spec_keep(c->elem, load_bits(c->elem, c->x, at), &c->r) ? "in range"
                                                                                 : "not in range");
        nw_fail(ks, op, c, "wrong mask", got, want, sets);
    }
    if (got != want)
        nw_fail(ks, op, c, "wrong count", got, want, sets);
    nw_cmp[ki][c->elem][op]++;
    total_cmp++;
}

/* One slot of one kernel, its output compared with nw_expect[0, want). */
static void nw_run_one(kstate *ks, int ki, int op, const tcase *c, const uint8_t *valid,
                       const void *pos, size_t m, size_t want, const char *sets) {
    const sf_kernel *k = ks->k;
    const sf_elem elem = c->elem;
    const int is_pos = op == NW_WITHIN32 || op == NW_WITHIN64;
    const size_t osz = op == NW_INDEX32_VALID || op == NW_WITHIN32 ? 4
                       : op == NW_INDEX64_VALID || op == NW_WITHIN64 ? 8
                                                                     : esize(elem);
    const size_t bytes = op == NW_COUNT_VALID ? 0 : (is_pos ? m : c->n) * osz;
    unsigned char *out = arena_place(&out_arena, c->out_place, bytes, osz, c->out_shift);
    size_t got;
    memset(out, 0xEE, bytes);
    canary_fill(&out_arena, out, bytes);
    cur_kernel = k->name;
    switch (op) {
    case NW_INDEX32_VALID:
        got = k->index32_valid[elem](c->x, valid, c->n, &c->r, c->base32, (uint32_t *)(void *)out);
        break;
    case NW_INDEX64_VALID:
        got = k->index64_valid[elem](c->x, valid, c->n, &c->r, c->base64, (uint64_t *)(void *)out);
        break;
    case NW_VALUES_VALID: got = k->values_valid[elem](c->x, valid, c->n, &c->r, out); break;
    case NW_COUNT_VALID: got = k->count_valid[elem](c->x, valid, c->n, &c->r); break;
    case NW_WITHIN32:
        got = k->within32[elem](c->x, c->base32, (const uint32_t *)pos, m, &c->r,
                                (uint32_t *)(void *)out);
        break;
    default:
        got = k->within64[elem](c->x, c->base64, (const uint64_t *)pos, m, &c->r,
                                (uint64_t *)(void *)out);
        break;
    }
    cur_kernel = "(harness)";
    if (canary_check(&out_arena, out, bytes))
        nw_fail(ks, op, c, "wrote outside its output buffer", got, want, sets);
    if (got != want)
        nw_fail(ks, op, c, "wrong count", got, want, sets);
    for (size_t j = 0; op != NW_COUNT_VALID && j < got; j++) {
        const size_t i = nw_expect[j];
        uint64_t have, expect_j;
        switch (op) {
        case NW_INDEX32_VALID: case NW_WITHIN32:
            have = load_bits(SF_U32, out, j), expect_j = (uint32_t)(c->base32 + (uint32_t)i);
            break;
        case NW_INDEX64_VALID: case NW_WITHIN64:
            have = load_bits(SF_U64, out, j), expect_j = c->base64 + i;
            break;
        default: have = load_bits(elem, out, j), expect_j = load_bits(elem, c->x, i); break;
        }
        if (have != expect_j) {
            printf("\n  out[%zu] = %" PRIu64 ", expected %" PRIu64 " (element %zu)", j, have,
                   expect_j, i);
            nw_fail(ks, op, c, "wrong output", got, want, sets);
        }
    }
    nw_cmp[ki][elem][op]++;
    total_cmp++;
}

/* A random position set of the n elements, strictly ascending, into nw_pos:
 * empty, one, every element, sparse, dense, or the first and last. */
static size_t nw_positions(size_t n, char *desc, size_t cap) {
    size_t m = 0;
    const unsigned kind = n ? (unsigned)below(6) : 0;
    static const char *const kinds[6] = {"empty", "single", "all", "sparse", "dense", "ends"};
    switch (kind) {
    case 0: break;
    case 1: nw_pos[m++] = (size_t)below(n); break;
    case 2: for (size_t i = 0; i < n; i++) nw_pos[m++] = i; break;
    case 5:
        nw_pos[m++] = 0;
        if (n > 1)
            nw_pos[m++] = n - 1;
        break;
    default: {
        const unsigned pct = kind == 3 ? (unsigned)(1 + below(10)) : (unsigned)(50 + below(50));
        for (size_t i = 0; i < n; i++)
            if (chance(pct) || (i == n - 1 && chance(50)))
                nw_pos[m++] = i;
    }
    }
    snprintf(desc, cap, "%s positions (m=%zu)", kinds[kind], m);
    return m;
}

/* mask_to_valid of every kernel on a random byte mask of c->n bytes (zero, or
 * any nonzero byte: pandas writes 1, a mask from other code need not), which
 * ends or starts at a guard page, into a fenced bitmap: bit i is 1 exactly
 * where mask[i] is 0, and the bits past n in the last byte are 0. */
static void run_mask_to_valid(const tcase *c) {
    const size_t n = c->n, nb = (n + 7) / 8;
    static const unsigned densities[4] = {0, 1, 50, 100};
    const unsigned density = densities[below(4)];
    char what[96];
    uint8_t *mask = arena_place(&mask_arena, (int)below(PLACE_N), n, 1,
                                (size_t)below(64));
    for (size_t i = 0; i < n; i++)
        mask[i] = chance(density) ? (uint8_t)(1 + below(255)) : 0;
    arena_protect(mask, n, PROT_READ);
    for (int ki = 0; ki < nkernels; ki++) {
        if (!kernels[ki].supported)
            continue;
        uint8_t *bits = arena_place(&out_arena, c->out_place, nb, 1, c->out_shift);
        memset(bits, 0xEE, nb);
        canary_fill(&out_arena, bits, nb);
        cur_kernel = kernels[ki].k->name;
        kernels[ki].k->mask_to_valid(mask, n, bits);
        cur_kernel = "(harness)";
        if (canary_check(&out_arena, bits, nb))
            snprintf(what, sizeof what, "mask_to_valid wrote outside its %zu bytes", nb);
        else
            what[0] = 0;
        for (size_t i = 0; !what[0] && i < 8 * nb; i++) {
            const unsigned have = (bits[i / 8] >> (i % 8)) & 1u, want = i < n && mask[i] == 0;
            if (have != want)
                snprintf(what, sizeof what, "mask_to_valid: bit %zu is %u, mask byte %s", i, have,
                         i < n ? (mask[i] ? "nonzero" : "zero") : "past n");
        }
        if (what[0]) {
            printf("\nFAIL: kernel %s: %s\n  n=%zu, null density %u%%\n", kernels[ki].k->name,
                   what, n, density);
            fail_footer();
        }
        nw_mask_cmp[ki][c->elem]++;
        total_cmp++;
    }
    arena_protect(mask, n, PROT_READ | PROT_WRITE);
}

static void run_nulls_within(const tcase *c) {
    run_mask_to_valid(c);
    const size_t n = c->n, nb = (n + 7) / 8;
    static const unsigned densities[4] = {0, 1, 50, 100};
    const unsigned density = densities[below(4)];
    char sets[160], pdesc[64];

    /* The bitmap: bits past n random, since a kernel must ignore them. */
    uint8_t *valid = arena_place(&valid_arena, chance(50) ? PLACE_END : PLACE_START, nb, 1, 0);
    memset(valid, 0, nb);
    for (size_t i = 0; i < 8 * nb; i++)
        if (i >= n ? chance(50) : chance(density))
            valid[i / 8] |= (uint8_t)(1u << (i % 8));
    const size_t m = nw_positions(n, pdesc, sizeof pdesc);
    snprintf(sets, sizeof sets, "validity density %u%%, %s", density, pdesc);
    const int pos_place = chance(50) ? PLACE_END : PLACE_START;
    uint32_t *pos32 = (uint32_t *)(void *)arena_place(&pos_arena, pos_place, m * 4, 4, 0);
    for (size_t j = 0; j < m; j++)
        pos32[j] = c->base32 + (uint32_t)nw_pos[j];
    arena_protect(valid, nb, PROT_READ);

    size_t want = 0;
    for (size_t i = 0; i < n; i++)
        if (((valid[i / 8] >> (i % 8)) & 1) && spec_keep(c->elem, load_bits(c->elem, c->x, i), &c->r))
            nw_expect[want++] = i;
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            for (int op = NW_INDEX32_VALID; op <= NW_COUNT_VALID; op++)
                nw_run_one(&kernels[ki], ki, op, c, valid, NULL, 0, want, sets);
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            for (int op = NW_MASK8_VALID; op <= NW_BITS_VALID; op++)
                nw_run_mask(&kernels[ki], ki, op, c, valid, want, sets);
    arena_protect(valid, nb, PROT_READ | PROT_WRITE);

    want = 0;
    for (size_t j = 0; j < m; j++)
        if (spec_keep(c->elem, load_bits(c->elem, c->x, nw_pos[j]), &c->r))
            nw_expect[want++] = nw_pos[j];
    arena_protect((const unsigned char *)pos32, m * 4, PROT_READ);
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            nw_run_one(&kernels[ki], ki, NW_WITHIN32, c, NULL, pos32, m, want, sets);
    arena_protect((const unsigned char *)pos32, m * 4, PROT_READ | PROT_WRITE);
    uint64_t *pos64 = (uint64_t *)(void *)arena_place(&pos_arena, pos_place, m * 8, 8, 0);
    for (size_t j = 0; j < m; j++)
        pos64[j] = c->base64 + nw_pos[j];
    arena_protect((const unsigned char *)pos64, m * 8, PROT_READ);
    for (int ki = 0; ki < nkernels; ki++)
        if (kernels[ki].supported)
            nw_run_one(&kernels[ki], ki, NW_WITHIN64, c, NULL, pos64, m, want, sets);
    arena_protect((const unsigned char *)pos64, m * 8, PROT_READ | PROT_WRITE);
}

static void nw_setup(size_t max_len) {
    valid_arena = arena_new(max_len / 8 + 64);
    mask_arena = arena_new(max_len + 64);
    pos_arena = arena_new(max_len * 8 + 64);
    nw_expect = malloc(max_len * sizeof *nw_expect);
    nw_pos = malloc(max_len * sizeof *nw_pos);
    if (!nw_expect || !nw_pos)
        die("out of memory");
}

static void nw_teardown(void) {
    free(nw_expect);
    free(nw_pos);
    guarded_free(&valid_arena, page_size);
    guarded_free(&mask_arena, page_size);
    guarded_free(&pos_arena, page_size);
}

/* The counts of one kernel and kind, appended to its "compared" line. */
static void nw_print(int ki, int e) {
    for (int op = 0; op < NW_OPS; op++)
        printf(" %s=%llu", nw_names[op], nw_cmp[ki][e][op]);
    printf(" mask_to_valid=%llu", nw_mask_cmp[ki][e]);
}

/* Slot op of the nulls/positions slots of k, as one pointer type. */
static any_fn nw_slot_of(const sf_kernel *k, int op, int e) {
    switch (op) {
    case NW_INDEX32_VALID: return (any_fn)k->index32_valid[e];
    case NW_INDEX64_VALID: return (any_fn)k->index64_valid[e];
    case NW_VALUES_VALID: return (any_fn)k->values_valid[e];
    case NW_COUNT_VALID: return (any_fn)k->count_valid[e];
    case NW_WITHIN32: return (any_fn)k->within32[e];
    case NW_WITHIN64: return (any_fn)k->within64[e];
    case NW_MASK8_VALID: return (any_fn)k->mask8_valid[e];
    default: return (any_fn)k->bits_valid[e];
    }
}

/* Kernel i's new slots are filled, and where one is a lower kernel's, say so
 * as check_table does for the others ("slot K OP ELEM: from L"). */
static void nw_check_slots(int i) {
    const sf_kernel *k = sf_kernel_at(i);
    API_CHECK(k->mask_to_valid, "kernel %s has an empty mask_to_valid slot", k->name);
    for (int j = 0; j < i; j++)
        if (sf_kernel_at(j)->mask_to_valid == k->mask_to_valid) {
            printf("slot %s mask_to_valid any: from %s\n", k->name, sf_kernel_at(j)->name);
            break;
        }
    for (int op = 0; op < NW_OPS; op++)
        for (int e = 0; e < SF_ELEM_COUNT; e++) {
            API_CHECK(nw_slot_of(k, op, e), "kernel %s has an empty %s slot for elem %s", k->name,
                      nw_names[op], sf_elem_name((sf_elem)e));
            for (int j = 0; j < i; j++)
                if (nw_slot_of(sf_kernel_at(j), op, e) == nw_slot_of(k, op, e)) {
                    printf("slot %s %s %s: from %s\n", k->name, nw_names[op],
                           sf_elem_name((sf_elem)e), sf_kernel_at(j)->name);
                    break;
                }
        }
}
