/*
 * The inputs of tests/c/test_driver.c and its naive reference: the layouts
 * (strides, misalignment, byte order), nulls (a validity bitmap at a bit offset
 * or strided mask bytes), the ranges and the values drawn near their bounds,
 * each input placed in a read-only region between PROT_NONE pages, and the
 * positions and values it must give (memcpy per element, spec_keep, is_null).
 * Nothing here calls the driver.
 *
 * Included by driver_check.h after its fail(c, fmt, ...) (report and exit) and
 * page_size are declared; the random numbers and element access come from
 * test_common.h.
 */

/* Nulls of an input: a validity bitmap at a bit offset, or mask bytes with a stride. */
typedef struct nulls_desc {
    sf_nulls form;
    guarded_mem mem;
    const uint8_t *nulls;
    uint64_t bit;
    ptrdiff_t stride;
} nulls_desc;

static int is_null(const nulls_desc *z, size_t i) {
    if (z->form == SF_NULLS_BITMAP)
        return !((z->nulls[(z->bit + i) / 8] >> ((z->bit + i) % 8)) & 1);
    if (z->form == SF_NULLS_BYTES)
        return z->nulls[(ptrdiff_t)i * z->stride] != 0;
    return 0;
}

static unsigned g_place; /* alternates placement against the upper / lower guard */

/* ---- Guarded memory --------------------------------------------------------- */

/* [PROT_NONE page][base: size bytes, whole pages][PROT_NONE page]: test_common.h */
typedef guarded_mem region;

static region region_new(size_t min_size) {
    region r;
    const char *failed = guarded_new(&r, min_size, page_size);
    if (failed)
        fail(NULL, "%s: %s", failed, strerror(errno));
    return r;
}

static void region_protect(const region *r, int prot) {
    if (mprotect(r->base, r->size, prot))
        fail(NULL, "mprotect: %s", strerror(errno));
}

/* ---- The reference ------------------------------------------------------------ */

/* Element i as its native bit pattern, zero-extended. memcpy: any alignment;
 * the bytes are reversed first when the element is stored byte-swapped. */
static uint64_t load_elem(const unsigned char *p, size_t size, int swap) {
    unsigned char b[8];
    for (size_t k = 0; k < size; k++)
        b[k] = p[swap ? size - 1 - k : k];
    return load_uint(size, b, 0);
}

static void store_elem(unsigned char *p, size_t size, int swap, uint64_t v) {
    unsigned char native[8];
    store_uint(size, native, 0, v); /* the value's native bytes, whatever the byte order */
    for (size_t k = 0; k < size; k++)
        p[k] = native[swap ? size - 1 - k : k];
}

/* Positions (relative to data[0]) and values of the matching elements. */
typedef struct {
    size_t count;
    uint64_t *pos;  /* count positions */
    uint64_t *bits; /* their values, native bits */
} expected;

static void reference(const unsigned char *data, size_t n, ptrdiff_t stride, size_t size, int swap,
                      sf_elem kind, const sf_range *r, size_t count, int every,
                      const nulls_desc *z, expected *e) {
    e->count = 0;
    e->pos = malloc((n ? n : 1) * sizeof *e->pos);
    e->bits = malloc((n ? n : 1) * sizeof *e->bits);
    if (!e->pos || !e->bits)
        fail(NULL, "out of memory for %zu expected results", n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = load_elem(data + (ptrdiff_t)i * stride, size, swap);
        if (spec_keep_ranges(kind, v, r, count, every) && !is_null(z, i)) {
            e->pos[e->count] = i;
            e->bits[e->count] = v;
            e->count++;
        }
    }
}

static void expected_free(expected *e) {
    free(e->pos);
    free(e->bits);
}

/* ---- Data and ranges -------------------------------------------------------- */

/* A quarter-step in [-8, 8]: exact in both float widths, so bounds get hit. */
static double quarter(void) { return ((double)below(65) - 32.0) / 4.0; }

static sf_range pick_plain_range(sf_elem kind) {
    sf_range r;
    memset(&r, 0, sizeof r);
    if (is_float(kind)) {
        switch (below(6)) {
        case 0: r.flo = -1.5; r.fhi = 2.25; break;
        case 1: r.flo = -0.0; r.fhi = 0.0; break; /* -0.0 == 0.0: both zeros match */
        case 2: r.flo = -INFINITY; r.fhi = INFINITY; break;
        case 3: r.flo = r.fhi = quarter(); break;
        case 4: r.flo = -INFINITY; r.fhi = quarter(); break;
        default: {
            double a = quarter(), b = quarter();
            r.flo = a < b ? a : b;
            r.fhi = a < b ? b : a;
        }
        }
        return r;
    }
    uint64_t m = width_mask(kind);
    switch (below(5)) {
    case 0: r.lo = 0; r.hi = m; break;                 /* everything */
    case 1: r.lo = r.hi = below(0) & m; break;         /* one value */
    case 2: {                                          /* signed [-k, k]: wraps */
        uint64_t k = below(m / 4 + 1);
        r.lo = (0 - k) & m;
        r.hi = k & m;
        break;
    }
    default: {                                         /* about half of the domain */
        r.lo = below(0) & m;
        r.hi = (r.lo + (m >> 1) + below((m >> 2) + 1)) & m;
    }
    }
    return r;
}

/* pick_plain_range's range, inverted one time in three (not a whole integer
 * width: the contract keeps that from the kernels). */
static sf_range pick_range(sf_elem kind) {
    sf_range r = pick_plain_range(kind);
    r.invert = below(3) == 0 && !spec_full(kind, &r);
    return r;
}

/* A value likely to sit on or next to the bounds, or to be special. */
static uint64_t pick_value(sf_elem kind, const sf_range *r) {
    unsigned roll = (unsigned)below(100);
    if (kind == SF_F32) {
        float lo = (float)r->flo, hi = (float)r->fhi; /* exact: bounds are float values */
        static const uint32_t specials[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0x7F800000u,
                                            0xFF800000u, 0x80000000u, 0x00000000u, 0x00000001u,
                                            0x7F7FFFFFu, 0xFF7FFFFFu};
        if (roll < 10)
            return specials[below(sizeof specials / sizeof *specials)];
        if (roll < 35) {
            float b = below(2) ? lo : hi;
            switch (below(3)) {
            case 0: return fbits(SF_F32, b);
            case 1: return fbits(SF_F32, nextafterf(b, INFINITY));
            default: return fbits(SF_F32, nextafterf(b, -INFINITY));
            }
        }
        if (roll < 40)
            return (uint32_t)below(0);
        return fbits(SF_F32, quarter());
    }
    if (kind == SF_F64) {
        static const uint64_t specials[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull,
                                            0x7FF0000000000001ull, 0x7FF0000000000000ull,
                                            0xFFF0000000000000ull, 0x8000000000000000ull,
                                            0, 1, 0x7FEFFFFFFFFFFFFFull};
        if (roll < 10)
            return specials[below(sizeof specials / sizeof *specials)];
        if (roll < 35) {
            double b = below(2) ? r->flo : r->fhi;
            switch (below(3)) {
            case 0: return fbits(SF_F64, b);
            case 1: return fbits(SF_F64, nextafter(b, INFINITY));
            default: return fbits(SF_F64, nextafter(b, -INFINITY));
            }
        }
        if (roll < 40)
            return below(0);
        return fbits(SF_F64, quarter());
    }
    uint64_t m = width_mask(kind);
    if (roll < 30) {
        static const int64_t delta[] = {-1, 0, 1};
        uint64_t b = below(2) ? r->lo : r->hi;
        return (b + (uint64_t)delta[below(3)]) & m;
    }
    if (roll < 40) {
        static const uint64_t special[] = {0, 1, ~(uint64_t)0, ~(uint64_t)0 >> 1,
                                           (~(uint64_t)0 >> 1) + 1};
        return special[below(5)] & m;
    }
    return below(0) & m;
}

/* ---- Layouts ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    int elems;     /* stride in elements (sign included) */
    int bytes;     /* plus this many bytes, same sign */
    int misalign;  /* data % size, when size > 1 */
} layout;

static const layout LAYOUTS[] = {
    {"contiguous", 1, 0, 0},
    {"unaligned", 1, 0, 1},
    {"stride 2", 2, 0, 0},
    {"stride 3", 3, 0, 0},
    {"stride 7", 7, 0, 0},
    {"stride 3*size+1", 3, 1, 0},
    {"unaligned stride 3", 3, 0, 1},
    {"overlapping stride 1 byte", 0, 1, 0},
    {"stride 0", 0, 0, 0},
    {"negative contiguous", -1, 0, 0},
    {"negative unaligned", -1, 0, 1},
    {"negative stride 2", -2, 0, 0},
    {"negative stride 3", -3, 0, 0},
    {"negative stride 7", -7, 0, 0},
    {"negative stride 3*size+1", -3, -1, 0},
};
#define N_LAYOUTS (sizeof LAYOUTS / sizeof *LAYOUTS)

/* Thread cases: fewer layouts (each costs a pass over up to 8 MiB per call). */
static const int THREAD_LAYOUTS[] = {0, 1, 3, 5, 9, 12};

static ptrdiff_t stride_of(const layout *l, size_t size) {
    return (ptrdiff_t)l->elems * (ptrdiff_t)size + l->bytes;
}

/* One input: n elements at data + i * stride inside a guarded, read-only region. */
typedef struct {
    region mem;
    const unsigned char *data;
    size_t n, size;
    ptrdiff_t stride;
    int swap, misalign;
    sf_elem kind;
    /* The query's ranges: ranges[0] is sf_query's range, the others its
     * `more` (one input in three has 2 to 4, one in nine 9 to 80: a set),
     * combined by `every`. */
    sf_range ranges[80];
    size_t nranges;
    int every;
    const char *layout;
    nulls_desc nulls;
    expected exp;
} input;

/* Nulls for n elements, half the time (allow 1), always (allow 2) or never
 * (allow 0): a bitmap at a random bit offset or mask bytes (stride 1 or 3,
 * other bytes nonzero junk), at a random density, in a read-only guarded
 * region of their own. */
static void nulls_make(nulls_desc *z, size_t n, int allow) {
    memset(z, 0, sizeof *z);
    if (!allow || n == 0 || (allow == 1 && below(2)))
        return;
    static const unsigned per_mille[] = {0, 10, 500, 1000};
    const unsigned density = per_mille[below(4)];
    if (below(2)) {
        z->form = SF_NULLS_BITMAP;
        z->bit = below(16);
        z->mem = region_new((z->bit + n + 7) / 8);
        uint8_t *b = g_place % 2 ? z->mem.base : z->mem.base + z->mem.size - (z->bit + n + 7) / 8;
        for (size_t i = 0; i < (z->bit + n + 7) / 8; i++)
            b[i] = (uint8_t)rnd();
        for (size_t i = 0; i < n; i++) {
            const uint64_t k = z->bit + i;
            b[k / 8] = (uint8_t)((b[k / 8] & ~(1u << (k % 8))) | ((below(1000) >= density) << (k % 8)));
        }
        z->nulls = b;
    } else {
        z->form = SF_NULLS_BYTES;
        z->stride = below(2) ? 1 : 3;
        const size_t span = (n - 1) * (size_t)z->stride + 1;
        z->mem = region_new(span);
        uint8_t *b = g_place % 2 ? z->mem.base : z->mem.base + z->mem.size - span;
        for (size_t i = 0; i < span; i++)
            b[i] = (uint8_t)(rnd() | 1); /* junk between the mask bytes: nonzero */
        for (size_t i = 0; i < n; i++)
            b[i * (size_t)z->stride] = below(1000) < density ? (uint8_t)(1 + below(255)) : 0;
        z->nulls = b;
    }
    region_protect(&z->mem, PROT_READ);
}


/* One input: with_nulls as nulls_make's allow; nranges ranges (0: one input
 * in three has 2 to 4, one in nine 9 to 80, the others 1). */
static void input_make_ranges(input *in, sf_elem kind, const layout *l, size_t n, int swap,
                              int with_nulls, size_t nranges) {
    size_t size = sf_elem_size(kind);
    ptrdiff_t stride = stride_of(l, size);
    size_t astride = (size_t)(stride < 0 ? -stride : stride);
    size_t span = n ? (n - 1) * astride + size : 0; /* bytes from lowest to highest element */
    int mis = size > 1 ? l->misalign : 0;
    in->mem = region_new(span + 2 * size);
    unsigned char *body = in->mem.base, *end = body + in->mem.size;
    for (size_t i = 0; i + 8 <= in->mem.size; i += 8) { /* junk between the elements */
        uint64_t v = rnd();
        memcpy(body + i, &v, 8);
    }
    unsigned char *low;
    if (g_place++ % 2 == 0) { /* against the upper guard: the last byte before it is used */
        uintptr_t a = (uintptr_t)(end - span - (size_t)mis);
        low = (unsigned char *)(a - a % size) + mis;
    } else { /* against the lower guard */
        low = body + mis;
    }
    unsigned char *data = stride < 0 && n ? low + (n - 1) * astride : low;
    in->nranges = nranges       ? nranges
                  : below(3) == 0 ? 2 + below(3)
                  : below(6) == 0 ? 9 + below(72)
                                  : 1;
    in->every = (int)below(2);
    for (size_t j = 0; j < in->nranges; j++) {
        in->ranges[j] = pick_range(kind);
        /* From 9 ranges on the library looks elements up in a set (lib/ranges.c)
         * when they are a union (none inverted) or its outside (all inverted). */
        if (in->nranges >= 9)
            in->ranges[j].invert = in->every && !spec_full(kind, &in->ranges[j]);
    }
    for (size_t i = 0; i < n; i++) /* near the bounds of one of the ranges */
        store_elem(data + (ptrdiff_t)i * stride, size, swap,
                   pick_value(kind, &in->ranges[below(in->nranges)]));
    region_protect(&in->mem, PROT_READ); /* the driver must never write its input */
    in->data = data;
    in->n = n;
    in->size = size;
    in->stride = stride;
    in->swap = swap;
    in->misalign = mis;
    in->kind = kind;
    in->layout = l->name;
    nulls_make(&in->nulls, n, with_nulls);
    /* Read back from memory: overlapping and zero strides mean later stores win. */
    reference(data, n, stride, size, swap, kind, in->ranges, in->nranges, in->every, &in->nulls,
              &in->exp);
}

static void input_make(input *in, sf_elem kind, const layout *l, size_t n, int swap) {
    input_make_ranges(in, kind, l, n, swap, 1, 0);
}

static void input_free(input *in) {
    guarded_free(&in->mem, page_size);
    if (in->nulls.form != SF_NULLS_NONE)
        guarded_free(&in->nulls.mem, page_size);
    expected_free(&in->exp);
}
