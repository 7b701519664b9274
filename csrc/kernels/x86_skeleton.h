/*
 * The loops of kernels/sse41.c and kernels/avx2.c, written once for any vector
 * width and any predicate, as Highway's CountIf takes its predicate. Each of
 * those files defines its ISA's primitives, includes x86_vec.h (broadcasts,
 * loads, blocks; no predicate) and x86_range.h (the range predicate), then
 * this file, which defines P_filter, P_count, ... (P = X86_SK) for
 * SF_INSTANTIATE. Every operation is one loop over blocks of a few vectors:
 *
 *   1. ask the predicate for the hits of a vector, one mask lane per element;
 *   2. movemask that into one bit per element (bit i = element i is kept);
 *   3. compact: for each group of output lanes, look the group's bits up in a
 *      table of lane permutations (x86_tables.h), permute the position vector
 *      (or the data itself, for values), store the whole vector at out + k and
 *      advance k by the popcount of the bits;
 *   count instead subtracts the all-ones hits from lane counters and
 *   folds them into a scalar before a lane could wrap (no movemask, no popcount).
 * At low selectivity the filter skips steps 2-3 for blocks that keep nothing
 * (the sparse windows, below P_step).
 *
 * The whole-vector stores in step 3 stay inside out[0, n): a group of G inputs
 * starts at some i with k <= i (we never keep more than we have read), its
 * store covers out[k, k + G) and k + G <= i + G <= n. The last partial block
 * runs the same step on a zero-padded copy of the input, into a scratch
 * buffer, so nothing is read past x[n-1] or written past out[n-1].
 *
 * The including file defines, before x86_vec.h:
 *   X86_ISA      its prefix (sse41, avx2): the ISA's functions are named
 *                X86_FN(name), that is P_name, like the file's own
 *   X86_BYTES    the vector width in bytes; X86_VEC the integer vector type
 *   X86_MM(f)    an intrinsic of that width (X86_MM(sub_epi8): _mm_sub_epi8 ...)
 *   X86_SI(f)    a whole-register one (X86_SI(loadu): _mm_loadu_si128 ...)
 * and the SF_INLINE functions
 *   P_range_cmp(elem, a, b, flip, x)  the range's compare (x86_range.h)
 *   P_bits(elem, h)               one bit per element of a hit vector
 *   P_popcount(m)                 the bits set in m (at most 32)
 *   P_emit_ids(w, out, k, ids, m) append the positions (w-byte lanes of ids)
 *                                 selected by m; return the new k
 *   P_emit_values(elem, out, k, x, m)  the same for the elements of x
 *   P_fold128(v)                  the two 128-bit halves of v added as 64-bit lanes
 *   P_gather_hw(op, elem, x, base, pos, cnt, buf)  load the cnt elements at the
 *                                 positions pos (uint32 for SF_OP_INDEX32, else
 *                                 uint64) side by side at buf with a hardware
 *                                 gather and return 1, or return 0 (scalar loads)
 *
 * The predicate contract. Before each #include of this file, define
 *   X86_SK     the prefix of what the inclusion defines (X86_LOOP(name)):
 *              P_filter, P_filter_valid, P_dense_filter, P_count,
 *              P_count_valid, P_within, P_mask_any and P_bits_ranges (what
 *              SF_INSTANTIATE_ALL and SF_INSTANTIATE_FILTERS stamp entry points
 *              from), and their helpers P_keep, P_step, ...
 *   X86_PRED   the predicate's prefix Q, whose definitions precede the include:
 *     Q_arg                      the type the entry points pass as `const Q_arg *r`
 *     Q_state                    what the loops compare with, made once per
 *                                call, passed by pointer
 *     Q_setup(elem, r)           the Q_state of r for element kind elem
 *     Q_hits(elem, s, x)         all-ones lanes (of elem's width) of the vector
 *                                x that hit, zero elsewhere (count subtracts
 *                                them). The padding lanes of a partial block
 *                                are zeros and may hit: the loops mask them off
 *     Q_hits_outside(elem)       1 when a hit means "not kept" (a compare for
 *                                outside is cheaper: the range's integers),
 *                                0 when it means kept; a constant per kind
 *     Q_has_none_kept(elem)      1 when Q_none_kept answers for elem, 0 when
 *                                the sparse path combines each vector's hits
 *                                (an AND of "outside" or an OR of "inside")
 *     Q_none_kept(elem, s, p, nvec)  1 if none of the nvec vectors at p is
 *                                kept, 0 else: a cheaper test of a whole
 *                                sparse block (the range's smallest offset)
 * Every function is SF_INLINE and takes op and elem as constants: each entry
 * point is one straight loop with the predicate inlined, the code the loops
 * written for one predicate compiled to.
 *
 * The instance today: P_range (x86_range.h; X86_SK = the ISA's prefix). A
 * second predicate is its own Q_* (with x86_vec.h's helpers and X86_MM at
 * hand), one more #include of this file with X86_SK = <isa>_<its name>, and
 * its entry points and table slots (CONTRIBUTING.md, "Adding a predicate").
 * Q and X86_SK must differ (the range: avx2_range and avx2: P_none_kept is
 * the skeleton's, Q_none_kept the predicate's); tests/c/test_predicate.c
 * instantiates x == v this way.
 * x86_masks.h (mask8, bits) is included at the end, for the same predicate.
 *
 * No include guard: each inclusion #undefs X86_SK and X86_PRED at its end.
 */
#if !defined(X86_ISA) || !defined(X86_FN)
#error "define X86_ISA and the primitives, and include x86_vec.h, before x86_skeleton.h"
#endif
#if !defined(X86_SK) || !defined(X86_PRED)
#error "define X86_SK and X86_PRED before including x86_skeleton.h"
#endif

#define X86_LOOP(name) SF_CAT(X86_SK, SF_CAT(_, name))
#define X86_Q(name) SF_CAT(X86_PRED, SF_CAT(_, name))

/* Kept-element bits of nvec consecutive vectors (at most 32 elements). */
SF_INLINE uint32_t X86_LOOP(keep)(sf_elem elem, const X86_Q(state) *c, const unsigned char *p,
                                  size_t nvec) {
    const size_t lanes = X86_FN(lanes)(elem), nbits = nvec * lanes;
    uint32_t m = 0;
    for (size_t v = 0; v < nvec; v++)
        m |= X86_FN(bits)(elem, X86_Q(hits)(elem, c, X86_FN(load)(p + X86_BYTES * v)))
             << (v * lanes);
    if (X86_Q(hits_outside)(elem))
        m ^= nbits >= 32 ? 0xffffffffu : (1u << nbits) - 1u;
    return m;
}

/*
 * One block of P_block(op, elem) elements at p: append what it keeps to out
 * (k results so far) and return the new k. `ids` holds the positions of the
 * next output group and moves on with it. `valid` masks off the padding lanes
 * of the last, partial block.
 */
SF_INLINE size_t X86_LOOP(step)(sf_op op, sf_elem elem, const X86_Q(state) *c,
                                const unsigned char *p, X86_VEC *ids, unsigned char *out,
                                size_t k, uint32_t valid) {
    if (op == SF_OP_VALUES) {
        const X86_VEC x = X86_FN(load)(p);
        uint32_t m = X86_FN(bits)(elem, X86_Q(hits)(elem, c, x));
        if (X86_Q(hits_outside)(elem))
            m = ~m;
        return X86_FN(emit_values)(elem, out, k, x, m & valid);
    }
    /* Positions of w bytes, g to a vector. */
    const size_t lanes = X86_FN(lanes)(elem), block = X86_FN(block)(op, elem);
    const size_t w = sf_result_size(op, elem), g = X86_BYTES / w;
    const uint32_t m = X86_LOOP(keep)(elem, c, p, block / lanes) & valid;
    for (size_t j = 0; j < block / g; j++) {
        k = X86_FN(emit_ids)(w, out, k, *ids, (m >> (g * j)) & ((1u << g) - 1u));
        *ids = w == 4 ? X86_MM(add_epi32)(*ids, X86_MM(set1_epi32)((int)g))
                      : X86_MM(add_epi64)(*ids, X86_MM(set1_epi64x)((long long)g));
    }
    return k;
}

/* ---- The sparse path: blocks that keep nothing, or next to nothing ---------- */

/*
 * At low selectivity most vectors keep nothing, yet the loop above pays each
 * one's table lookup, permute, store and popcount. The filter loop therefore
 * works in windows of X86_WINDOW elements and chooses each window's loop from
 * what the previous window kept (its popcounts, summed as k - k0):
 *   - dense: the step loop above, as before;
 *   - sparse, after a window that kept at most X86_SPARSE_MAX elements: blocks
 *     of X86_SPARSE elements (4 vectors of u32 on AVX2, 8 on SSE4.1). Their
 *     compares are combined into one vector (the predicate's Q_none_kept: for
 *     the range's 8-32-bit integers one compare of the lanes' smallest
 *     offsets; else an AND of "outside" or an OR of "inside") and tested with
 *     one vptest / ptest: a block that keeps nothing costs about what
 *     count_in_range pays for it, with no movemask, lookup or store. A
 *     block that keeps something gets its 32-bit mask and writes its positions
 *     (or values) one by one, lowest set bit first (tzcnt + blsr on AVX2).
 * Choosing per window rather than per block keeps the dense loop branch-free at
 * 1-90% selectivity, where "this block is empty" is a coin toss the branch
 * predictor would lose; the sparse loop's one branch per block is taken at
 * most ~3% of the time at 0.1% (1 - 0.999^32).
 *
 * The first choice comes sooner: a probe of X86_PROBE elements runs dense, and
 * the next window runs sparse if the probe kept nothing. A whole first window
 * run dense was 1/32 of a 64 Ki call, and a quarter of each 8192-element block
 * the driver hands a kernel for data with nulls. Kept nothing: 78% of probes
 * at 0.1% (0.999^256), 8% at 1%, where the one sparse window that follows
 * keeps ~20 and the loop is dense again after it; an input shorter than the
 * probe runs exactly the old loop. What is left after the last whole window
 * (down to a multiple of X86_WINDOW_UNIT) runs as one more window, in the loop chosen for it,
 * instead of dense as before.
 *
 * The threshold, X86_SPARSE_MAX = 8 of 2048 (0.4%), keeps uniform data at 1%
 * and above on the dense loop (a window keeps 20 on average at 1%, and at most
 * 8 with probability ~0.2%) and puts 0.1% (2 on average) on the sparse one.
 * Instruction counts (callgrind, avx2, u32 index32, 64 Ki and 1 Mi, AMD EPYC
 * Zen 3): 0.58 per element at 64 Ki, 0.1% (0.67 with a compare per vector)
 * against 1.88 for the dense loop and 0.88 for count_in_range; 1.83 against
 * 1.88 at 1-90%. The wall-clock
 * crossover was not measured on a quiet machine (benchmarks' selectivity
 * section compares the two loops: the *_dense variants).
 */
#ifndef X86_SPARSE /* this file is included once per predicate */
#define X86_SPARSE 32     /* elements of a sparse block: one 32-bit mask */
#define X86_WINDOW 2048   /* elements per choice of loop: a multiple of 2 * block */
#define X86_SPARSE_MAX 8u /* the most a window may keep for the next to run sparse */
#define X86_PROBE 256     /* elements of the first, shorter window */
/* Every window (the last one cut down to it) is a multiple of X86_WINDOW_UNIT:
 * a whole number of dense step pairs (2 * block, at most 64 elements) and of
 * sparse blocks, so that neither loop runs past a window. */
#define X86_WINDOW_UNIT 64
_Static_assert(X86_PROBE % X86_WINDOW_UNIT == 0 && X86_WINDOW % X86_WINDOW_UNIT == 0 &&
                   X86_WINDOW_UNIT % X86_SPARSE == 0,
               "windows must be whole dense step pairs and sparse blocks");
#endif

/* 1 if none of the X86_SPARSE elements at p is kept (nulls aside): the
 * predicate's own test when it has one, else each vector's hits combined and
 * tested once. */
SF_INLINE int X86_LOOP(none_kept)(sf_elem elem, const X86_Q(state) *c, const unsigned char *p) {
    const size_t nvec = X86_SPARSE / X86_FN(lanes)(elem);
    if (X86_Q(has_none_kept)(elem))
        return X86_Q(none_kept)(elem, c, p, nvec);
    X86_VEC h = X86_Q(hits)(elem, c, X86_FN(load)(p));
    if (X86_Q(hits_outside)(elem)) {
        for (size_t v = 1; v < nvec; v++)
            h = X86_SI(and)(h, X86_Q(hits)(elem, c, X86_FN(load)(p + X86_BYTES * v)));
        return X86_SI(testc)(h, X86_MM(set1_epi32)(-1)); /* every lane outside */
    }
    for (size_t v = 1; v < nvec; v++)
        h = X86_SI(or)(h, X86_Q(hits)(elem, c, X86_FN(load)(p + X86_BYTES * v)));
    return X86_SI(testz)(h, h); /* no lane inside */
}

/* One sparse block: the X86_SPARSE elements at p, the first at position pos,
 * `valid` their validity bits. Appends what they keep to out (k so far) one
 * element at a time and returns the new k. */
SF_INLINE size_t X86_LOOP(sparse_block)(sf_op op, sf_elem elem, const X86_Q(state) *c,
                                        const unsigned char *p, uint64_t pos, unsigned char *out,
                                        size_t k, uint32_t valid) {
    if (X86_LOOP(none_kept)(elem, c, p))
        return k;
    const size_t size = sf_elem_size(elem);
    uint32_t m = X86_LOOP(keep)(elem, c, p, X86_SPARSE / X86_FN(lanes)(elem)) & valid;
    for (; m; m &= m - 1u, k++) {
        const unsigned j = SF_CTZ32(m);
        sf_put_result(op, out, k, p + j * size, size, pos + j);
    }
    return k;
}

/*
 * The compaction loop behind index32, index64 and values, unrolled by two (see
 * the ISA file for what that bought). `sparse` (a constant) adds the sparse
 * windows above; 0 is the loop as it was before them, kept for the benchmark
 * (the *_dense kernel variants, plain entry points only).
 */
SF_INLINE size_t X86_LOOP(filter_any)(sf_op op, sf_elem elem, const void *x,
                                      const uint8_t *valid, size_t n, const X86_Q(arg) *r,
                                      uint64_t base, void *out_, int sparse) {
    const X86_Q(state) c = X86_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), osize = sf_result_size(op, elem);
    const size_t block = X86_FN(block)(op, elem);
    const uint32_t all = block >= 32 ? 0xffffffffu : (1u << block) - 1u;
    const unsigned char *p = (const unsigned char *)x;
    unsigned char *out = (unsigned char *)out_;
    X86_VEC ids = X86_FN(ids_at)(op, base);
    size_t i = 0, k = 0;
    /* With valid == NULL (a constant in the plain entry points) the masks
     * fold to `all` and the loop is the plain one. */
#define X86_VBITS(at, cnt) (valid ? sf_valid_bits(valid, (at), (cnt), block) : all)
#define X86_STEP2(at)                                                                    \
    do {                                                                                 \
        k = X86_LOOP(step)(op, elem, &c, p + (at) * size, &ids, out, k, X86_VBITS(at, block)); \
        k = X86_LOOP(step)(op, elem, &c, p + ((at) + block) * size, &ids, out, k,          \
                         X86_VBITS((at) + block, block));                                \
    } while (0)
    if (sparse) {
        int dense = 1;
        size_t window = X86_PROBE, most = 0; /* the probe; then X86_WINDOW, X86_SPARSE_MAX */
        /* The last window is what is left, down to a multiple of the unit: the
         * loop chosen goes on to the end rather than leave up to a window dense. */
        for (; n - i >= X86_WINDOW_UNIT; window = X86_WINDOW, most = X86_SPARSE_MAX) {
            const size_t len =
                n - i < window ? (n - i) / X86_WINDOW_UNIT * X86_WINDOW_UNIT : window;
            const size_t k0 = k, end = i + len;
            if (dense) {
                for (; i < end; i += 2 * block)
                    X86_STEP2(i);
            } else {
                for (; i < end; i += X86_SPARSE)
                    k = X86_LOOP(sparse_block)(
                        op, elem, &c, p + i * size, base + i, out, k,
                        valid ? sf_valid_bits(valid, i, X86_SPARSE, X86_SPARSE) : 0xffffffffu);
                ids = X86_FN(ids_at)(op, base + i);
            }
            dense = k - k0 > most;
        }
    }
    for (; n - i >= 2 * block; i += 2 * block)
        X86_STEP2(i);
#undef X86_STEP2
    if (n - i >= block) {
        k = X86_LOOP(step)(op, elem, &c, p + i * size, &ids, out, k, X86_VBITS(i, block));
        i += block;
    }
    if (i < n) {
        /* Fewer than `block` elements left: the same step on a zero-padded
         * copy, into scratch, then copy out what was kept. */
        _Alignas(X86_BYTES) unsigned char in[2 * X86_BYTES] = {0}; /* block * size */
        _Alignas(X86_BYTES) unsigned char tmp[8 * X86_BYTES];      /* block * osize */
        const size_t rest = n - i;
        memcpy(in, p + i * size, rest * size);
        const uint32_t tail = (1u << rest) - 1u;
        const size_t t = X86_LOOP(step)(op, elem, &c, in, &ids, tmp, 0,
                                      valid ? tail & sf_valid_bits(valid, i, rest, block) : tail);
        memcpy(out + k * osize, tmp, t * osize);
        k += t;
    }
#undef X86_VBITS
    return k;
}

/* P_filter and P_filter_valid (nulls: the block's validity bits ANDed with its
 * movemask bits before the table lookup, in the same loop), with the sparse
 * windows; P_dense_filter, the plain loop without them, for the P_dense
 * variant table (SF_INSTANTIATE_FILTERS in the ISA file). */
SF_INLINE size_t X86_LOOP(filter)(sf_op op, sf_elem elem, const void *x, size_t n,
                                  const X86_Q(arg) *r, uint64_t base, void *out) {
    return X86_LOOP(filter_any)(op, elem, x, NULL, n, r, base, out, 1);
}
SF_INLINE size_t X86_LOOP(filter_valid)(sf_op op, sf_elem elem, const void *x,
                                        const uint8_t *valid, size_t n, const X86_Q(arg) *r,
                                        uint64_t base, void *out) {
    return X86_LOOP(filter_any)(op, elem, x, valid, n, r, base, out, 1);
}
SF_INLINE size_t X86_LOOP(dense_filter)(sf_op op, sf_elem elem, const void *x, size_t n,
                                        const X86_Q(arg) *r, uint64_t base, void *out) {
    return X86_LOOP(filter_any)(op, elem, x, NULL, n, r, base, out, 0);
}

/* ---- count: no movemask, no popcount in the loop -------------------------- */

SF_INLINE size_t X86_LOOP(count)(sf_elem elem, const void *x, size_t n, const X86_Q(arg) *r) {
    const X86_Q(state) c = X86_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), lanes = X86_FN(lanes)(elem);
    /* Vectors per round before a lane counter could wrap (two counters). */
    const size_t round = size == 1 ? 2 * 255 : size == 2 ? 2 * 65535 : (size_t)1 << 30;
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0;
    uint64_t hits = 0;
    while (n - i >= lanes) {
        size_t nvec = (n - i) / lanes;
        if (nvec > round)
            nvec = round;
        /* Two counters: one would make the loop wait on its 1-cycle add. */
        X86_VEC acc0 = X86_SI(setzero)(), acc1 = X86_SI(setzero)();
        size_t v = 0;
        for (; v + 2 <= nvec; v += 2) {
            acc0 = X86_FN(count_lanes)(
                elem, acc0, X86_Q(hits)(elem, &c, X86_FN(load)(p + X86_BYTES * v)));
            acc1 = X86_FN(count_lanes)(
                elem, acc1,
                X86_Q(hits)(elem, &c, X86_FN(load)(p + X86_BYTES * (v + 1))));
        }
        if (v < nvec)
            acc0 = X86_FN(count_lanes)(
                elem, acc0, X86_Q(hits)(elem, &c, X86_FN(load)(p + X86_BYTES * v)));
        hits += X86_FN(sum_lanes)(elem, acc0) + X86_FN(sum_lanes)(elem, acc1);
        p += X86_BYTES * nvec;
        i += lanes * nvec;
    }
    size_t kept = X86_Q(hits_outside)(elem) ? i - (size_t)hits : (size_t)hits;
    if (i < n) {
        _Alignas(X86_BYTES) unsigned char in[X86_BYTES] = {0};
        const size_t rest = n - i;
        memcpy(in, p, rest * size);
        kept += X86_FN(popcount)(X86_LOOP(keep)(elem, &c, in, 1) & ((1u << rest) - 1u));
    }
    return kept;
}

/* count with nulls: the lane counters of P_count cannot see the bitmap, so one
 * movemask per vector, ANDed with its validity bits, and a popcount. */
SF_INLINE size_t X86_LOOP(count_valid)(sf_elem elem, const void *x, const uint8_t *valid,
                                       size_t n, const X86_Q(arg) *r) {
    const X86_Q(state) c = X86_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), lanes = X86_FN(lanes)(elem);
    const unsigned char *p = (const unsigned char *)x;
    size_t i = 0, kept = 0;
    for (; n - i >= lanes; i += lanes)
        kept += X86_FN(popcount)(X86_LOOP(keep)(elem, &c, p + i * size, 1) &
                                 sf_valid_bits(valid, i, lanes, lanes));
    if (i < n) {
        _Alignas(X86_BYTES) unsigned char in[X86_BYTES] = {0};
        const size_t rest = n - i;
        memcpy(in, p + i * size, rest * size);
        kept += X86_FN(popcount)(X86_LOOP(keep)(elem, &c, in, 1) & ((1u << rest) - 1u) &
                                 sf_valid_bits(valid, i, rest, lanes));
    }
    return kept;
}

/* ---- within: the values at given positions ---------------------------------- */

/*
 * Groups of g positions (one vector of them: g = X86_BYTES / w for w-byte
 * positions): P_gather puts the g elements x[pos[j] - base] side by side at
 * buf (as many vectors as they fill), the vector compare and movemask of
 * P_keep give their bits, and P_emit_ids compacts the position vector itself,
 * so out[] gets the kept pos[j]. The whole-vector store at out + k stays in
 * out[0, m) as in the filter loop (k <= i, i + g <= m). The last partial
 * group gathers only the positions there are and compacts into scratch.
 */
SF_INLINE size_t X86_LOOP(within)(sf_op op, sf_elem elem, const void *x, uint64_t base,
                                  const void *pos_, size_t m, const X86_Q(arg) *r, void *out_) {
    const X86_Q(state) c = X86_Q(setup)(elem, r);
    const size_t size = sf_elem_size(elem), w = sf_result_size(op, elem);
    const size_t g = X86_BYTES / w, lanes = X86_FN(lanes)(elem);
    const size_t nvec = (g + lanes - 1) / lanes;
    const uint32_t all = (1u << g) - 1u;
    const unsigned char *pos = (const unsigned char *)pos_;
    unsigned char *out = (unsigned char *)out_;
    _Alignas(X86_BYTES) unsigned char buf[2 * X86_BYTES] = {0}; /* g * size */
    size_t i = 0, k = 0;
    for (; m - i >= g; i += g) {
        X86_FN(gather)(op, elem, x, base, pos + i * w, g, buf);
        const uint32_t bits = X86_LOOP(keep)(elem, &c, buf, nvec) & all;
        k = X86_FN(emit_ids)(w, out, k, X86_FN(load)(pos + i * w), bits);
    }
    if (i < m) {
        _Alignas(X86_BYTES) unsigned char ids[X86_BYTES] = {0};
        _Alignas(X86_BYTES) unsigned char tmp[X86_BYTES];
        const size_t rest = m - i;
        memcpy(ids, pos + i * w, rest * w);
        X86_FN(gather)(op, elem, x, base, ids, rest, buf);
        const uint32_t bits = X86_LOOP(keep)(elem, &c, buf, nvec) & ((1u << rest) - 1u);
        const size_t t = X86_FN(emit_ids)(w, tmp, 0, X86_FN(load)(ids), bits);
        memcpy(out + k * w, tmp, t * w);
        k += t;
    }
    (void)size;
    return k;
}

#include "x86_masks.h" /* mask8 and bits */

#undef X86_LOOP
#undef X86_Q
#undef X86_SK
#undef X86_PRED
