/*
 * within= through sf_execute (csrc/lib/driver.c: take_positions, within_dense,
 * within_block), for tests/c/test_driver.c: the positions' results checked
 * against the reference of driver_inputs.h (an element is kept where the
 * reference keeps it: spec_keep_ranges, not null), and the return codes of
 * positions that do not ascend or lie outside the data.
 *
 * For every kind and kernel, on inputs of every shape that picks a path in
 * within_block: direct (contiguous, aligned, native) or not (unaligned,
 * strided, negative stride, byte-swapped), without and with nulls, one range
 * and several; each a source of one run or of 2 to 4 runs cut at random
 * places (an empty one now and then). Each op that takes positions: count
 * (uint32 and uint64 positions), index32 (uint32), index64 (uint64), on bases
 * that put the last position at 2^32 - 1 or 2^64 - 1.
 *
 * The position sets (WITHIN_PATTERNS) sit either side of the driver's
 * constants: every element, every 2nd, 4th, 15th, 16th, 17th (its dense pass
 * takes a block of at most 16 elements per position), 1 in 100; clusters
 * across the cuts between runs; blocks spanning 4095 to 8193 elements (its
 * 4096-element windows); exactly 1024 and 1025 positions (a block), close
 * together and far apart; random and mixed densities; none, one.
 *
 * Each call has a random thread count and must start no thread; its output
 * ends at a PROT_NONE page behind a canary, with room for every position or
 * (index ops) for the count, one less, half, or none; the positions end at a
 * PROT_NONE page too and are read-only during the call.
 *
 * Included by test_driver.c after driver_check.h.
 */
#ifndef SIMDFILTER_DRIVER_WITHIN_H
#define SIMDFILTER_DRIVER_WITHIN_H

/* The driver's constants (lib/driver.c), which the patterns sit around. */
#define W_BLOCK 1024
#define W_DENSE_SPAN 16
#define W_WINDOW 4096

static region g_within; /* the positions end exactly at its upper guard */

/* One call's positions: element indexes of the input (rel), ascending unless
 * an error case made them not; abs[i] = the position passed, base + rel[i],
 * or set directly by an error case. */
typedef struct within_set {
    const char *name;
    size_t m;
    uint64_t *rel;
} within_set;

/* The source a within call reads: the input as one run, or cut into pieces
 * (cuts[0] = 0 <= ... <= cuts[pieces] = n); with a gap, the runs after the
 * first start `gap` positions further on (positions need only ascend). */
typedef struct within_src {
    size_t pieces;
    size_t cuts[5];
    uint64_t gap;
} within_src;

/* pieces_source with the gap after its first run. */
typedef struct gap_source {
    sf_source source;
    pieces_source cut;
    uint64_t gap;
} gap_source;

static int gap_next(sf_source *self, sf_run *run) {
    gap_source *g = (gap_source *)self;
    const int first = g->cut.next == 0;
    if (!pieces_next(&g->cut.source, run))
        return 0;
    run->base += first ? 0 : g->gap;
    return 1;
}

/* The ops that take positions, with the positions' width. */
typedef struct within_op {
    sf_op op;
    int wide;
} within_op;
static const within_op WITHIN_OPS[] = {
    {SF_OP_COUNT, 0}, {SF_OP_COUNT, 1}, {SF_OP_INDEX32, 0}, {SF_OP_INDEX64, 1}};
#define N_WITHIN_OPS (sizeof WITHIN_OPS / sizeof *WITHIN_OPS)

static long g_within_calls, g_within_errors, g_within_run_ends, g_within_gaps;
static long g_within_checked[SF_ELEM_COUNT][SF_OP_COUNT_OF_OPS];

/* A base for positions of the width: base + n - 1 fits, and one time in
 * three the last position is the width's largest. */
static uint64_t within_base(int wide, size_t n) {
    return pick_base(wide ? SF_OP_INDEX64 : SF_OP_INDEX32, n);
}

static void within_fail(const call_desc *c, const within_set *w, int wide, const within_src *s,
                        const char *fmt, ...) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    printf("within: positions \"%s\", %zu of them, uint%d; runs cut at", w->name, w->m,
           wide ? 64 : 32);
    for (size_t i = 0; i <= s->pieces; i++)
        printf(" %zu", s->cuts[i]);
    printf("%s\n", s->gap ? ", a gap after the first run" : "");
    fail(c, "%s", what);
}

/* Writes the positions (base + rel[i], or abs[i] where abs is given) of the
 * width so that they end at g_within's upper guard; returns where they start. */
static const void *within_place(const within_set *w, const uint64_t *abs, uint64_t base,
                                int wide) {
    const size_t width = wide ? 8 : 4;
    if ((w->m ? w->m : 1) * width > g_within.size)
        fail(NULL, "test bug: the positions' region is too small for %zu", w->m);
    region_protect(&g_within, PROT_READ | PROT_WRITE);
    unsigned char *p = g_within.base + g_within.size - w->m * width;
    for (size_t i = 0; i < w->m; i++) {
        const uint64_t v = abs ? abs[i] : base + w->rel[i];
        store_uint(width, p, i, v);
    }
    region_protect(&g_within, PROT_READ); /* the driver must never write them */
    return p;
}

/* One sf_execute with `within`: the input's run (or its pieces) at `base`,
 * room for `room` results. Returns the code, *found and the output. */
static int within_run(const input *in, const sf_kernel *k, within_op o, const void *pos,
                      size_t m, const within_src *s, uint64_t base, size_t room,
                      const call_desc *c, unsigned char **out_at, size_t *found) {
    sf_query q;
    memset(&q, 0, sizeof q);
    q.kernel = k;
    q.op = o.op;
    q.elem = in->kind;
    q.range = in->ranges[0];
    q.more = in->ranges + 1;
    q.more_count = in->nranges - 1;
    q.every = in->every;
    q.within = pos;
    q.within_count = m;
    q.within_wide = o.wide;
    sf_run run = {.data = in->data, .n = in->n, .stride = in->stride, .byteswap = in->swap,
                  .base = base, .null_form = in->nulls.form, .nulls = in->nulls.nulls,
                  .null_bit = in->nulls.bit, .null_stride = in->nulls.stride};
    unsigned char *out = output_for(c, in, room, result_size(o.op, in->size));
    sf_run_source one;
    gap_source cut;
    sf_source *src = sf_run_source_init(&one, &run);
    if (s->pieces > 1) {
        pieces_init(&cut.cut, &run, s->pieces);
        memcpy(cut.cut.cuts, s->cuts, sizeof s->cuts);
        cut.source.next = gap_next;
        cut.gap = s->gap;
        src = &cut.source;
    }
    const sf_exec opts = {c->threads, NULL, NULL, 0, 0};
    g_created = g_refused = 0;
    *found = 0;
    const int rc = sf_execute(&q, src, out, room, &opts, found);
    g_within_calls++;
    if (g_created + g_refused)
        fail(c, "a within= query started %d threads (it runs on the calling thread)",
             g_created + g_refused);
    for (size_t i = 0; i < CANARY; i++)
        if (out && result_size(o.op, in->size) && (out - CANARY)[i] != CANARY_BYTE)
            fail(c, "wrote %zu bytes before the start of the output", CANARY - i);
    *out_at = out;
    return rc;
}

static call_desc within_desc(const input *in, const sf_kernel *k, within_op o, size_t pieces,
                             uint64_t base, int bounded, size_t capacity) {
    /* Any thread count: the call runs on the calling thread whatever is asked. */
    const int threads = 1 + (int)below(4);
    call_desc c = {k->name, in->layout, bounded ? "sf_execute, bounded" : "sf_execute",
                   in->kind, o.op, in->n, capacity, in->stride, in->swap, threads, in->misalign,
                   base, in->ranges, in->nranges, in->every, pieces, &in->nulls};
    return c;
}

/* One call with positions w, checked: SF_OK, the count of positions whose
 * element the reference keeps (keep[i]), and (index ops) the first
 * min(count, room) of those positions in order. */
static void within_check(const input *in, const unsigned char *keep, const sf_kernel *k,
                         within_op o, const within_set *w, const within_src *s, int bounded,
                         size_t capacity) {
    const uint64_t base = within_base(o.wide, in->n);
    const size_t room = bounded ? capacity : w->m;
    call_desc c = within_desc(in, k, o, s->pieces, base, bounded, capacity);
    const void *pos = within_place(w, NULL, base, o.wide);
    unsigned char *out;
    size_t got;
    const int rc = within_run(in, k, o, pos, w->m, s, base, room, &c, &out, &got);
    if (rc != SF_OK)
        within_fail(&c, w, o.wide, s, "sf_execute with within returned %d", rc);
    g_within_checked[in->kind][o.op]++;
    size_t want = 0;
    const size_t rsize = result_size(o.op, in->size);
    for (size_t i = 0; i < w->m; i++) {
        if (!keep[w->rel[i]])
            continue;
        if (rsize && want < room) {
            const uint64_t have = load_uint(rsize, out, want), expect = base + w->rel[i];
            if (have != expect)
                within_fail(&c, w, o.wide, s,
                            "result %zu is %" PRIu64 ", expected %" PRIu64
                            " (position %zu of the %zu, element %" PRIu64 ")",
                            want, have, expect, i, w->m, w->rel[i]);
        }
        want++;
    }
    if (got != want)
        within_fail(&c, w, o.wide, s, "found %zu, expected %zu of the %zu positions kept", got,
                    want, w->m);
}

/* ---- The position sets -------------------------------------------------------- */

static uint64_t *g_rel; /* room for every element's index */

static size_t every_kth(uint64_t *rel, size_t n, size_t k) {
    size_t m = 0;
    for (size_t i = below(k); i < n; i += k)
        rel[m++] = i;
    return m;
}

/* Each element of [a, b) with probability 1 / k (k == 1: every one). */
static size_t some_of(uint64_t *rel, size_t m, size_t a, size_t b, size_t k) {
    for (size_t i = a; i < b; i++)
        if (k <= 1 || below(k) == 0)
            rel[m++] = i;
    return m;
}

/* `count` positions `step` apart from a random start (or fewer, if n is short). */
static size_t run_of(uint64_t *rel, size_t n, size_t count, size_t step) {
    const size_t need = (count - 1) * step + 1, a = n > need ? below(n - need + 1) : 0;
    size_t m = 0;
    for (size_t i = a; i < n && m < count; i += step)
        rel[m++] = i;
    return m;
}

/* First and last `span` - 1 apart from a random start, about one in `k` of the
 * elements between: one block whose dense pass covers exactly `span` elements. */
static size_t spanning(uint64_t *rel, size_t n, size_t span, size_t k) {
    if (span > n)
        span = n;
    const size_t a = below(n - span + 1);
    size_t m = 0;
    rel[m++] = a;
    m = some_of(rel, m, a + 1, a + span - 1, k);
    if (span > 1)
        rel[m++] = a + span - 1;
    return m;
}

/* Around each cut between runs (the middle, for one run): a cluster from up to
 * 40 elements before it to up to 40 after, every element or every 2nd, with
 * a few far positions between the clusters. */
static size_t clusters(uint64_t *rel, size_t n, const within_src *s) {
    size_t m = 0, done = 0;
    const size_t ncuts = s->pieces > 1 ? s->pieces - 1 : 1;
    for (size_t j = 0; j < ncuts; j++) {
        const size_t c = s->pieces > 1 ? s->cuts[j + 1] : n / 2;
        const size_t a = c > 40 ? c - 1 - below(40) : 0, b = c + 1 + below(40);
        const size_t step = 1 + below(2);
        if (a < done)
            continue; /* an empty run: the cluster of the cut before covers it */
        m = some_of(rel, m, done, a, 300);
        for (size_t i = a; i < b && i < n; i += step)
            rel[m++] = i;
        done = b < n ? b : n;
    }
    return some_of(rel, m, done, n, 300);
}

/* Stretches of alternating density: every element, 1 in 8, 1 in 40. */
static size_t mixed(uint64_t *rel, size_t n) {
    static const size_t ks[] = {1, 8, 40};
    size_t m = 0;
    for (size_t a = 0; a < n;) {
        const size_t len = 100 + below(3000), b = a + len < n ? a + len : n;
        m = some_of(rel, m, a, b, ks[below(3)]);
        a = b;
    }
    return m;
}

/* The patterns, by number: name and positions (into rel, their count). */
#define WITHIN_PATTERNS 28
static const char *within_pattern(int p, uint64_t *rel, size_t n, const within_src *s,
                                  size_t *m) {
    switch (p) {
    case 0: *m = every_kth(rel, n, 1); return "every element";
    case 1: *m = every_kth(rel, n, 2); return "every 2nd";
    case 2: *m = every_kth(rel, n, 4); return "every 4th (a block spans 4093 elements)";
    case 3: *m = every_kth(rel, n, 15); return "every 15th";
    case 4: *m = every_kth(rel, n, 16); return "every 16th";
    case 5: *m = every_kth(rel, n, 17); return "every 17th";
    case 6: *m = every_kth(rel, n, 100); return "every 100th";
    case 7: *m = clusters(rel, n, s); return "clusters across the cuts between runs";
    case 8: *m = spanning(rel, n, W_WINDOW - 1, 8); return "one block spanning 4095";
    case 9: *m = spanning(rel, n, W_WINDOW, 8); return "one block spanning 4096";
    case 10: *m = spanning(rel, n, W_WINDOW + 1, 8); return "one block spanning 4097";
    case 11: *m = spanning(rel, n, 2 * W_WINDOW, 10); return "one block spanning 8192";
    case 12: *m = spanning(rel, n, 2 * W_WINDOW + 1, 10); return "one block spanning 8193";
    case 13: *m = run_of(rel, n, 257, W_DENSE_SPAN); return "257, 16 apart (span 4097)";
    case 14: *m = run_of(rel, n, W_BLOCK, 1); return "1024 in a row";
    case 15: *m = run_of(rel, n, W_BLOCK + 1, 1); return "1025 in a row";
    case 16: *m = run_of(rel, n, W_BLOCK, 20); return "1024, 20 apart";
    case 17: *m = run_of(rel, n, W_BLOCK + 1, 20); return "1025, 20 apart";
    case 18: *m = run_of(rel, n, 2 * W_BLOCK + 1, 4); return "2049, 4 apart";
    case 19: *m = run_of(rel, n, W_BLOCK, W_DENSE_SPAN); return "1024, 16 apart (span 16369)";
    case 20: *m = run_of(rel, n, 64, W_DENSE_SPAN + 1); return "64, 17 apart";
    case 21: *m = some_of(rel, 0, 0, n, 3); return "random, 1 in 3";
    case 22: *m = some_of(rel, 0, 0, n, 20); return "random, 1 in 20";
    case 23: *m = mixed(rel, n); return "mixed stretches: all, 1 in 8, 1 in 40";
    case 24: *m = 0; return "none";
    case 25: rel[0] = below(n); *m = 1; return "one";
    case 26: rel[0] = 0; rel[1] = n - 1; *m = 2; return "the first and the last";
    default: *m = every_kth(rel, n, 3); /* the last W_BLOCK + 1 from the end */
        if (*m > W_BLOCK + 1) {
            memmove(rel, rel + *m - (W_BLOCK + 1), (W_BLOCK + 1) * sizeof *rel);
            *m = W_BLOCK + 1;
        }
        return "1025, 3 apart, to the end";
    }
}

/* ---- Errors ----------------------------------------------------------------------- */

/* The positions of w with one change (abs: the positions passed), expected to
 * give `want_rc` and *found = want_found, whatever the op. Results are not
 * checked: only that nothing was written outside the output. */
static void within_expect(const input *in, const sf_kernel *k, within_op o, const within_set *w,
                          const uint64_t *abs, const within_src *s, uint64_t base, int want_rc,
                          size_t want_found) {
    call_desc c = within_desc(in, k, o, s->pieces, base, 0, w->m);
    const void *pos = within_place(w, abs, base, o.wide);
    unsigned char *out;
    size_t got;
    const int rc = within_run(in, k, o, pos, w->m, s, base, w->m, &c, &out, &got);
    g_within_errors++;
    if (rc != want_rc || got != want_found)
        within_fail(&c, w, o.wide, s, "returned %d with %zu found, expected %d with %zu found",
                    rc, got, want_rc, want_found);
}

/* How many of the first m positions' elements are kept. */
static size_t kept_of(const unsigned char *keep, const uint64_t *rel, size_t m) {
    size_t kept = 0;
    for (size_t i = 0; i < m; i++)
        kept += keep[rel[i]];
    return kept;
}

/* The error cases on one input, as sf_execute answers them on main at the time
 * of writing (positions checked before any value at them is read):
 *   - not strictly ascending, anywhere in the data: SF_EUNSORTED, found 0 (a
 *     fall inside a block, at a block's first position, a duplicate there and
 *     elsewhere, a fall right after a run's end back into that run, a
 *     duplicate across a cut, a fall at the last position);
 *   - a position before the first run's base, or in a gap between runs:
 *     SF_EUNSORTED, found 0 (positions that skip the gap: SF_OK);
 *   - a position past the end of the data: SF_EOUTOFBOUNDS, found = the kept
 *     positions before it, even when positions past it fall (they are not
 *     checked). */
static void within_errors(const input *in, const unsigned char *keep, const sf_kernel *k,
                          const within_src *s) {
    const size_t n = in->n;
    uint64_t *abs = malloc((n / 7 + 2) * sizeof *abs);
    within_set w = {"every 7th, then changed", every_kth(g_rel, n, 7), g_rel};
    if (!abs)
        fail(NULL, "within errors: out of memory");
    if (w.m < W_BLOCK + 2)
        fail(NULL, "test bug: within errors need more than 1025 positions (n=%zu)", n);
    /* The first position at or past the first cut between runs, if any. */
    size_t at_cut = 0;
    for (size_t j = 1; j < s->pieces && !at_cut; j++)
        for (size_t i = 1; i + 1 < w.m && !at_cut; i++)
            if (w.rel[i] >= s->cuts[j] && w.rel[i - 1] < s->cuts[j] && s->cuts[j] > 0)
                at_cut = i;
    for (size_t oi = 0; oi < N_WITHIN_OPS; oi++) {
        const within_op o = WITHIN_OPS[oi];
        /* Room below the top of the width for positions past the end. */
        const uint64_t base = 1 + below(o.wide ? (uint64_t)1 << 40 : (uint64_t)1 << 20);
        const uint64_t top = o.wide ? ~(uint64_t)0 : 0xFFFFFFFFu;
#define RESET() for (size_t i = 0; i < w.m; i++) abs[i] = base + w.rel[i]
        const size_t inside = 1 + below(W_BLOCK - 2), anywhere = 1 + below(w.m - 1);
        struct {
            const char *name;
            size_t at;
            int mode; /* 0: fall by 1 below the one before; 1: duplicate */
        } unsorted[] = {
            {"a fall inside the first block", inside, 0},
            {"a fall anywhere", anywhere, 0},
            {"a duplicate inside the first block", inside, 1},
            {"a duplicate anywhere", anywhere, 1},
            {"a fall at a block's first position", W_BLOCK, 0},
            {"a duplicate at a block's first position", W_BLOCK, 1},
            {"a fall at the last position", w.m - 1, 0},
        };
        for (size_t u = 0; u < sizeof unsorted / sizeof *unsorted; u++) {
            RESET();
            abs[unsorted[u].at] = abs[unsorted[u].at - 1] - (unsorted[u].mode == 0);
            w.name = unsorted[u].name;
            within_expect(in, k, o, &w, abs, s, base, SF_EUNSORTED, 0);
        }
        if (at_cut) {
            size_t j = 1; /* the cut between rel[at_cut - 1] and rel[at_cut] */
            while (!(w.rel[at_cut] >= s->cuts[j] && w.rel[at_cut - 1] < s->cuts[j]))
                j++;
            const uint64_t end = base + s->cuts[j];
            /* ..., p < end, q >= end (the next run's), then back to end - 1
             * (above p, or p itself) */
            RESET();
            abs[at_cut + 1] = end - 1;
            w.name = "a fall right after a run's end, back into that run";
            within_expect(in, k, o, &w, abs, s, base, SF_EUNSORTED, 0);
            /* ..., p < end, q >= end, then below p */
            RESET();
            abs[at_cut + 1] = abs[at_cut - 1] - 1;
            w.name = "a fall right after a run's end, below that run's last position";
            within_expect(in, k, o, &w, abs, s, base, SF_EUNSORTED, 0);
            /* ..., end - 1, end - 1 | the next run's */
            RESET();
            abs[at_cut - 1] = abs[at_cut] = end - 1;
            w.name = "a duplicate at a run's end";
            within_expect(in, k, o, &w, abs, s, base, SF_EUNSORTED, 0);
            g_within_run_ends++;
        }
        if (s->pieces > 1) { /* the runs after the first moved on by a gap */
            within_src g = *s;
            g.gap = 1 + below(5000);
            size_t at = 0;
            for (size_t i = 0; i < w.m; i++) {
                abs[i] = base + w.rel[i] + (w.rel[i] >= s->cuts[1] ? g.gap : 0);
                at = !at && w.rel[i] >= s->cuts[1] ? i + 1 : at;
            }
            w.name = "positions that skip a gap between runs";
            within_expect(in, k, o, &w, abs, &g, base, SF_OK, kept_of(keep, w.rel, w.m));
            if (at) { /* the first position past the first run: into the gap */
                abs[at - 1] = base + s->cuts[1] + below(g.gap);
                w.name = "a position in a gap between runs";
                within_expect(in, k, o, &w, abs, &g, base, SF_EUNSORTED, 0);
                g_within_gaps++;
            }
        }
        RESET();
        abs[0] = base - 1;
        w.name = "the first position before the run's base";
        within_expect(in, k, o, &w, abs, s, base, SF_EUNSORTED, 0);
        RESET();
        abs[w.m - 1] = base + n;
        w.name = "the last position just past the end";
        within_expect(in, k, o, &w, abs, s, base, SF_EOUTOFBOUNDS, kept_of(keep, w.rel, w.m - 1));
        RESET();
        abs[w.m - 1] = top;
        w.name = "the last position the largest of its width";
        within_expect(in, k, o, &w, abs, s, base, SF_EOUTOFBOUNDS, kept_of(keep, w.rel, w.m - 1));
        RESET();
        abs[w.m - 2] = base + n + 5;
        abs[w.m - 1] = base + n + 1;
        w.name = "past the end, then a fall";
        within_expect(in, k, o, &w, abs, s, base, SF_EOUTOFBOUNDS, kept_of(keep, w.rel, w.m - 2));
#undef RESET
    }
    free(abs);
}

/* Ops and widths sf_execute refuses with within (SF_EINVAL, found 0, nothing
 * written): values, whose results are elements, not positions; masks; and
 * positions of another width than the index op writes. */
static void within_refused(const sf_kernel *k) {
    uint64_t data[64], out[64], pos64[4] = {1, 5, 9, 13};
    uint32_t pos32[4] = {1, 5, 9, 13};
    for (size_t i = 0; i < 64; i++)
        data[i] = i;
    sf_run run = {.data = data, .n = 64, .stride = 8};
    static const struct {
        sf_op op;
        int wide;
    } refused[] = {{SF_OP_VALUES, 0}, {SF_OP_VALUES, 1}, {SF_OP_INDEX32, 1},
                   {SF_OP_INDEX64, 0}, {SF_OP_MASK8, 0},  {SF_OP_BITS, 1}};
    for (size_t r = 0; r < sizeof refused / sizeof *refused; r++) {
        sf_query q = {.kernel = k, .op = refused[r].op, .elem = SF_U64};
        q.range.lo = 0;
        q.range.hi = 100;
        q.within = refused[r].wide ? (const void *)pos64 : (const void *)pos32;
        q.within_count = 4;
        q.within_wide = refused[r].wide;
        memset(out, 0xA5, sizeof out);
        sf_run_source one;
        size_t found = 99;
        const int rc = sf_execute(&q, sf_run_source_init(&one, &run), out, 64, NULL, &found);
        const unsigned char *bytes = (const unsigned char *)out;
        int untouched = 1;
        for (size_t i = 0; i < sizeof out; i++)
            untouched &= bytes[i] == 0xA5;
        if (rc != SF_EINVAL || found != 0 || !untouched)
            fail(NULL, "within refused (%s, %s positions, kernel %s): rc=%d found=%zu%s; "
                 "expected SF_EINVAL, 0 found, nothing written",
                 op_names[refused[r].op], refused[r].wide ? "uint64" : "uint32", k->name, rc,
                 found, untouched ? "" : ", out written");
    }
}

/* ---- The cases -------------------------------------------------------------------- */

/* The non-direct layouts, in turn (u8 has no misalignment: byte-swapped instead). */
static const int WITHIN_LAYOUTS[] = {1, 3, 9, 5, 12};

/* Cut n elements into 1 to 4 runs (one run one time in four), now and then
 * an empty one. */
static void within_cuts(within_src *s, size_t n, unsigned turn) {
    s->pieces = turn % 4 == 0 ? 1 : 1 + turn % 4;
    s->gap = 0;
    s->cuts[0] = 0;
    s->cuts[s->pieces] = n;
    size_t c[3];
    for (size_t j = 0; j + 1 < s->pieces; j++)
        c[j] = 1 + below(n - 1);
    if (s->pieces > 2 && chance(25))
        c[1] = c[0]; /* an empty run between them */
    for (size_t j = 0; j + 1 < s->pieces; j++) /* ascending */
        for (size_t i = j + 1; i + 1 < s->pieces; i++)
            if (c[i] < c[j]) {
                const size_t t = c[i];
                c[i] = c[j];
                c[j] = t;
            }
    for (size_t j = 0; j + 1 < s->pieces; j++)
        s->cuts[j + 1] = c[j];
}

static void within_cases(const sf_kernel *const *kernels, int nk) {
    const double t0 = now();
    const size_t max_n = 24000 + 64;
    g_within = region_new(max_n * 8);
    g_rel = malloc(max_n * sizeof *g_rel);
    unsigned char *keep = malloc(max_n);
    if (!g_rel || !keep)
        fail(NULL, "within cases: out of memory");
    unsigned turn = 0;
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (int shape = 0; shape < 8; shape++) {
            /* shape bit 0: direct; bit 1: nulls; bit 2: several ranges */
            const int direct = !(shape & 1), nulls = (shape >> 1) & 1, several = shape >> 2;
            if (g_quick && shape != 0 && shape != 7 && (shape + kind) % 3)
                continue;
            const int li = direct ? 0 : WITHIN_LAYOUTS[turn % 5];
            int swap = !direct && (turn / 5) % 2;
            if (!direct && sf_elem_size((sf_elem)kind) == 1 && LAYOUTS[li].misalign)
                swap = 1; /* an unaligned u8 is direct */
            input in;
            const size_t n = 21000 + below(max_n - 21000 + 1);
            input_make_ranges(&in, (sf_elem)kind, &LAYOUTS[li], n, swap, nulls ? 2 : 0,
                              several ? 2 + below(3) : 1);
            memset(keep, 0, n);
            for (size_t i = 0; i < in.exp.count; i++)
                keep[in.exp.pos[i]] = 1;
            within_src s;
            within_cuts(&s, n, turn++);
            for (int ki = 0; ki < nk; ki++) {
                for (int p = 0; p < WITHIN_PATTERNS; p++) {
                    within_set w = {NULL, 0, g_rel};
                    w.name = within_pattern(p, g_rel, n, &s, &w.m);
                    size_t want = kept_of(keep, w.rel, w.m);
                    for (size_t oi = 0; oi < N_WITHIN_OPS; oi++) {
                        const within_op o = WITHIN_OPS[oi];
                        within_check(&in, keep, kernels[ki], o, &w, &s, 0, 0);
                        if (o.op == SF_OP_COUNT || want == 0)
                            continue;
                        /* Room for the count, one less, half, none: one of them. */
                        const size_t caps[] = {want, want - 1, want / 2, 0};
                        within_check(&in, keep, kernels[ki], o, &w, &s, 1, caps[below(4)]);
                    }
                }
                within_errors(&in, keep, kernels[ki], &s);
                if (kind == 0 && shape == 0)
                    within_refused(kernels[ki]);
            }
            input_free(&in);
        }
    free(keep);
    free(g_rel);
    guarded_free(&g_within, page_size);
    if (!g_within_run_ends || !g_within_gaps)
        fail(NULL, "within cases: no fault at a run's end (%ld) or in a gap (%ld) was tried",
             g_within_run_ends, g_within_gaps);
    printf("within cases: %ld calls (%ld of them errors) in %.2f s\n", g_within_calls,
           g_within_errors, now() - t0);
    static const sf_op ops[] = {SF_OP_COUNT, SF_OP_INDEX32, SF_OP_INDEX64};
    for (int kind = 0; kind < SF_ELEM_COUNT; kind++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++)
            printf("checked within %s %s: runs=%ld\n", sf_elem_name((sf_elem)kind),
                   op_names[ops[oi]], g_within_checked[kind][ops[oi]]);
}

#endif
