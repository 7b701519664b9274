/*
 * The result arena (arena.h): slabs of address space cut into chunks, kept in
 * address order so that a freed chunk joins its free neighbours.
 */
/* mmap's MAP_ANONYMOUS and madvise under -std=c11 */
#define _DEFAULT_SOURCE
#include "arena.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define HAVE_MMAP 1
#else
#define HAVE_MMAP 0
#endif

/* Chunks start and end on cache lines (the kernels store whole vectors). */
#define ALIGN ((size_t)64)
/* A tail shorter than this stays with its chunk: not worth a free chunk. */
#define SPLIT_MIN ((size_t)4096)
/* Slabs are at least this much address space (only written pages cost
 * memory), aligned to a huge page. */
#define SLAB_MIN ((size_t)64 << 20)
#define HUGE_PAGE ((size_t)2 << 20)
/* A slab made for a chunk of this size or more is advised MADV_HUGEPAGE, as
 * NumPy advises its arrays of 4 MiB and more: where THP is `madvise`, each
 * 2 MiB is then faulted at once. Smaller slabs are not: a small first result
 * would pay for zeroing a whole huge page. */
#define HUGE_MIN ((size_t)4 << 20)
/* A take of at most this much with no written stretch to go to starts at its
 * free chunk's start (placement), beside the live result before it: small
 * results kept alive then share pages instead of pinning one each. */
#define DENSE_MAX ((size_t)64 << 10)

typedef struct sf_slab sf_slab;

struct sf_chunk {
    sf_slab *slab;
    size_t off, size;
    /* Two views of its pages: all of them lie in [res_lo, res_hi) (an upper
     * bound, for the idle limit), and [warm_lo, warm_hi) holds pages for sure
     * (a stretch a call wrote, where the next take is placed). */
    size_t res_lo, res_hi, warm_lo, warm_hi;
    int free;
    sf_chunk *prev, *next;           /* address order within the slab */
    sf_chunk *free_prev, *free_next; /* the arena's free chunks, when free */
};

struct sf_slab {
    char *base;
    size_t size;
    size_t live; /* chunks in use */
    sf_chunk *first;
    sf_slab *prev, *next;
};

struct sf_arena {
    sf_slab *slabs;
    sf_chunk *free_chunks; /* never two neighbours: at most one more than the live ones */
    /* Descriptors of chunks joined away, kept for the next split (linked by
     * `next`): a call splits twice and joins two or three times, and malloc
     * and free for those were a quarter of a fresh result's cost over `out=`
     * (callgrind, 4 Ki uint32 at 0.1 %: ~1,400 instructions a call). */
    sf_chunk *spare;
    size_t idle_resident, idle_max;
};

static void free_spares(sf_arena *a) {
    for (sf_chunk *c = a->spare, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    a->spare = NULL;
}

static size_t round_up(size_t x, size_t to) {
    return (x + to - 1) / to * to;
}

static size_t page_size(void) {
#if HAVE_MMAP
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
#else
    return 4096;
#endif
}

/* ---- slabs: address space from the OS ---- */

static char *map_slab(size_t size, int huge) {
#if HAVE_MMAP
    /* Over-map by a huge page and cut both ends, for a 2 MiB-aligned base. */
    const size_t span = size + HUGE_PAGE;
    char *raw = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *base = (char *)round_up((size_t)(uintptr_t)raw, HUGE_PAGE);
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    if (raw + span > base + size)
        munmap(base + size, (size_t)(raw + span - (base + size)));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (huge)
        (void)madvise(base, size, MADV_HUGEPAGE); /* advice: nothing changes where it fails */
#else
    (void)huge;
#endif
    return base;
#else
    (void)huge;
    return malloc(size);
#endif
}

static void unmap_slab(sf_slab *s) {
#if HAVE_MMAP
    munmap(s->base, s->size);
#else
    free(s->base);
#endif
}

/* The pages of [from, to) back to the OS (they read as zeros after). */
static void drop_pages(char *from, char *to) {
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (to > from)
        (void)madvise(from, (size_t)(to - from), MADV_DONTNEED);
#else
    (void)from;
    (void)to;
#endif
}

/* ---- chunks ---- */

static size_t resident(const sf_chunk *c) {
    return c->res_hi - c->res_lo;
}

/* [*lo, *hi) clipped to [0, size); [0, 0) when empty. */
static void clip(size_t *lo, size_t *hi, size_t size) {
    if (*hi > size)
        *hi = size;
    if (*lo >= *hi)
        *lo = *hi = 0;
}

/* c's pages within [lo, hi) of its own bytes; the sure stretch kept within. */
static void set_resident(sf_chunk *c, size_t lo, size_t hi) {
    clip(&lo, &hi, c->size);
    c->res_lo = lo;
    c->res_hi = hi;
    size_t wlo = c->warm_lo > lo ? c->warm_lo : lo, whi = c->warm_hi;
    clip(&wlo, &whi, hi);
    c->warm_lo = wlo;
    c->warm_hi = whi;
}

static void set_warm(sf_chunk *c, size_t lo, size_t hi) {
    clip(&lo, &hi, c->size);
    c->warm_lo = lo;
    c->warm_hi = hi;
}

static sf_chunk *new_chunk(sf_arena *a, sf_slab *s, size_t off, size_t size) {
    sf_chunk *c = a->spare;
    if (c)
        a->spare = c->next;
    else
        c = malloc(sizeof *c);
    if (c) {
        c->slab = s;
        c->off = off;
        c->size = size;
        c->res_lo = c->res_hi = c->warm_lo = c->warm_hi = 0;
        c->free = 0; /* link_free marks and links it */
        c->prev = c->next = c->free_prev = c->free_next = NULL;
    }
    return c;
}

/* c's descriptor kept for the next new_chunk. */
static void drop_chunk(sf_arena *a, sf_chunk *c) {
    c->next = a->spare;
    a->spare = c;
}

static void link_free(sf_arena *a, sf_chunk *c) {
    c->free = 1;
    c->free_prev = NULL;
    c->free_next = a->free_chunks;
    if (a->free_chunks)
        a->free_chunks->free_prev = c;
    a->free_chunks = c;
}

static void unlink_free(sf_arena *a, sf_chunk *c) {
    if (c->free_prev)
        c->free_prev->free_next = c->free_next;
    else
        a->free_chunks = c->free_next;
    if (c->free_next)
        c->free_next->free_prev = c->free_prev;
    c->free = 0;
}

static sf_slab *add_slab(sf_arena *a, size_t bytes) {
    const size_t size = round_up(bytes > SLAB_MIN ? bytes : SLAB_MIN, HUGE_PAGE);
    if (size < bytes) /* overflow */
        return NULL;
    sf_slab *s = malloc(sizeof *s);
    if (!s)
        return NULL;
    s->size = size;
    s->base = map_slab(size, bytes >= HUGE_MIN);
    s->first = s->base ? new_chunk(a, s, 0, size) : NULL;
    if (!s->first) {
        if (s->base)
            unmap_slab(s);
        free(s);
        return NULL;
    }
    s->live = 0;
    link_free(a, s->first);
    s->prev = NULL;
    s->next = a->slabs;
    if (a->slabs)
        a->slabs->prev = s;
    a->slabs = s;
    return s;
}

static void remove_slab(sf_arena *a, sf_slab *s) {
    if (s->prev)
        s->prev->next = s->next;
    else
        a->slabs = s->next;
    if (s->next)
        s->next->prev = s->prev;
    for (sf_chunk *c = s->first, *next; c; c = next) {
        next = c->next;
        if (c->free)
            unlink_free(a, c);
        drop_chunk(a, c);
    }
    unmap_slab(s);
    free(s);
}

/* c split at `at` bytes: a free chunk after it holds the rest, with the pages
 * c had there. The new chunk, or NULL (nothing split) when malloc fails. */
static sf_chunk *split(sf_arena *a, sf_chunk *c, size_t at) {
    sf_chunk *t = new_chunk(a, c->slab, c->off + at, c->size - at);
    if (!t)
        return NULL;
    t->prev = c;
    t->next = c->next;
    if (c->next)
        c->next->prev = t;
    c->next = t;
    set_warm(t, c->warm_lo > at ? c->warm_lo - at : 0, c->warm_hi > at ? c->warm_hi - at : 0);
    set_resident(t, c->res_lo > at ? c->res_lo - at : 0, c->res_hi > at ? c->res_hi - at : 0);
    c->size = at;
    set_warm(c, c->warm_lo, c->warm_hi);
    set_resident(c, c->res_lo, c->res_hi);
    link_free(a, t);
    return t;
}

/* Free hi joined into free lo, its lower neighbour. Where both hold pages,
 * the bytes between count as resident too: an upper bound. */
static void join(sf_arena *a, sf_chunk *lo, sf_chunk *hi) {
    const size_t before = resident(lo) + resident(hi);
    size_t res_lo = lo->res_lo, res_hi = lo->res_hi;
    if (resident(hi)) {
        if (!resident(lo))
            res_lo = lo->size + hi->res_lo;
        res_hi = lo->size + hi->res_hi;
    }
    /* the sure stretches: one if they meet, else the longer */
    size_t warm_lo = lo->warm_lo, warm_hi = lo->warm_hi;
    const size_t hi_len = hi->warm_hi - hi->warm_lo;
    if (hi_len && warm_hi == lo->size && hi->warm_lo == 0 && warm_hi > warm_lo)
        warm_hi = lo->size + hi->warm_hi;
    else if (hi_len > warm_hi - warm_lo) {
        warm_lo = lo->size + hi->warm_lo;
        warm_hi = lo->size + hi->warm_hi;
    }
    lo->size += hi->size;
    set_warm(lo, warm_lo, warm_hi);
    set_resident(lo, res_lo, res_hi);
    a->idle_resident += resident(lo) - before;
    lo->next = hi->next;
    if (hi->next)
        hi->next->prev = lo;
    unlink_free(a, hi);
    drop_chunk(a, hi);
}

/* A free chunk joined with its free neighbours; the chunk it became part of. */
static sf_chunk *coalesce(sf_arena *a, sf_chunk *c) {
    if (c->next && c->next->free)
        join(a, c, c->next);
    if (c->prev && c->prev->free) {
        sf_chunk *lo = c->prev;
        join(a, lo, c);
        c = lo;
    }
    return c;
}

/* The pages of free chunk c past its first `keep` resident bytes back to the
 * OS: [res_lo + keep, res_hi), whole pages only. A partial page at either end
 * stays and is no longer counted: at the chunk's ends it is a live
 * neighbour's page (free neighbours are joined), elsewhere at most a page. */
static void drop_resident(sf_arena *a, sf_chunk *c, size_t keep) {
    const size_t page = page_size(), before = resident(c);
    char *const base = c->slab->base;
    const size_t from = round_up(c->off + c->res_lo + keep, page);
    size_t to = round_up(c->off + c->res_hi, page);
    const size_t end = (c->off + c->size) / page * page;
    if (to > end)
        to = end;
    if (from < to)
        drop_pages(base + from, base + to);
    if (keep && from < to)
        set_resident(c, c->res_lo, from - c->off);
    else if (!keep)
        set_resident(c, 0, 0);
    a->idle_resident -= before - resident(c);
}

/* Keeps the free memory that may hold pages within idle_max: the largest
 * resident free chunks give back what is past the limit, so that a large
 * result that died leaves idle_max of its pages for the next call. */
static void trim(sf_arena *a) {
    while (a->idle_resident > a->idle_max) {
        sf_chunk *largest = NULL;
        for (sf_chunk *c = a->free_chunks; c; c = c->free_next)
            if (!largest || resident(c) > resident(largest))
                largest = c;
        if (!largest || !resident(largest))
            return;
        const size_t before = a->idle_resident, excess = before - a->idle_max;
        drop_resident(a, largest, resident(largest) > excess ? resident(largest) - excess : 0);
        if (a->idle_resident == before) /* the excess within one page: all of it */
            drop_resident(a, largest, 0);
    }
}

/* Of two free slabs, the one with fewer pages goes (a free slab is kept for
 * the next call; one is enough). */
static void drop_spare_slab(sf_arena *a, sf_slab *now_free) {
    for (sf_slab *s = a->slabs; s; s = s->next)
        if (s != now_free && s->live == 0) {
            sf_slab *go = resident(s->first) <= resident(now_free->first) ? s : now_free;
            a->idle_resident -= resident(go->first);
            remove_slab(a, go);
            return;
        }
}

/* ---- the interface ---- */

sf_arena *sf_arena_new(size_t idle_max) {
    sf_arena *a = malloc(sizeof *a);
    if (a) {
        a->slabs = NULL;
        a->free_chunks = NULL;
        a->spare = NULL;
        a->idle_resident = 0;
        a->idle_max = idle_max;
    }
    return a;
}

void sf_arena_free(sf_arena *a) {
    if (!a)
        return;
    for (sf_slab *s = a->slabs, *next; s; s = next) {
        next = s->next;
        if (s->live == 0)
            remove_slab(a, s);
    }
    free_spares(a);
    free(a);
}

/* How many of `bytes` placed in free chunk c hold pages for sure: the most
 * [o, o + bytes) can cover of [warm_lo, warm_hi). */
static size_t warm_bytes(const sf_chunk *c, size_t bytes) {
    const size_t len = c->warm_hi - c->warm_lo;
    return len < bytes ? len : bytes;
}

/* The free chunk that fits `bytes` with the most of them already resident,
 * then the smallest. */
static sf_chunk *best_fit(const sf_arena *a, size_t bytes) {
    sf_chunk *best = NULL;
    size_t best_warm = 0;
    for (sf_chunk *c = a->free_chunks; c; c = c->free_next) {
        if (c->size < bytes)
            continue;
        const size_t warm = warm_bytes(c, bytes);
        if (!best || warm > best_warm || (warm == best_warm && c->size < best->size)) {
            best = c;
            best_warm = warm;
        }
    }
    return best;
}

/* Where in free chunk c a take of `need` bytes starts: over its pages, or,
 * where it has (almost) none, at its end, so that what stays free lies beside
 * the live results before it. In `r = f(...)` the previous result dies next
 * and joins that free memory, and the third call's worst case fits in memory
 * the first two wrote (from the start instead, the third call faulted a new
 * stretch: 92 against 61 faults a call over the first 30 calls at 1 Mi
 * uint32, 90 % selected, THP never, AMD EPYC Zen 4, family 25 model 17).
 * A small take (DENSE_MAX) starts at the chunk's start instead: placed at the
 * end, 20,000 live results of 684 bytes (16 Ki uint32 at 1 %) each pinned a
 * page of their own, 85 MB of RSS for 13 MB of results; at the start they
 * share pages, 18.5 MB (NumPy's own arrays: 16.1 MB). The price is in a
 * process's first calls, while the written stretch creeps forward: 1.1 and
 * 1.5 faults a call against 0.6 and 1.1 over the first 30 calls at 16 Ki, 50
 * and 90 %, THP madvise (AMD EPYC Zen 3, family 25 model 1); in a loop's
 * steady state none, as before. Up to 1 MiB, 64 Ki at 1 % pinned 1.06x its
 * bytes instead of 1.59x, but a 256 Ki call's first 30 took 17 and 23 faults
 * against 9 and 15 (50 and 90 %): what the pool won for the first calls. */
static size_t placement(const sf_chunk *c, size_t need) {
    const size_t room = c->size - need;
    const size_t warm = c->warm_hi - c->warm_lo;
    if (warm < SPLIT_MIN && need <= DENSE_MAX)
        return 0;
    const size_t at = warm < SPLIT_MIN ? room : c->warm_lo < room ? c->warm_lo : room;
    const size_t aligned = at / ALIGN * ALIGN;
    return aligned >= SPLIT_MIN ? aligned : 0;
}

void *sf_arena_take(sf_arena *a, size_t bytes, sf_chunk **chunk, size_t *warm) {
    const size_t need = round_up(bytes ? bytes : 1, ALIGN);
    if (need < bytes)
        return NULL;
    sf_chunk *c = best_fit(a, need);
    if (!c) {
        sf_slab *s = add_slab(a, need);
        if (!s)
            return NULL;
        c = s->first;
    }
    const size_t at = placement(c, need);
    a->idle_resident -= resident(c);
    unlink_free(a, c);
    if (at) { /* the head stays free */
        sf_chunk *t = split(a, c, at);
        if (t) {
            unlink_free(a, t);
            link_free(a, c);
            a->idle_resident += resident(c);
            c = t;
        }
    }
    if (c->size - need >= SPLIT_MIN) {
        sf_chunk *t = split(a, c, need);
        if (t)
            a->idle_resident += resident(t);
    }
    c->slab->live++;
    *chunk = c;
    *warm = c->warm_lo == 0 ? c->warm_hi : 0;
    return c->slab->base + c->off;
}

void sf_arena_shrink(sf_arena *a, sf_chunk *c, size_t used, size_t written) {
    if (written) { /* the call wrote [0, written): its pages are mapped now */
        set_resident(c, 0, written > c->res_hi ? written : c->res_hi);
        if (c->warm_lo <= written || c->warm_hi - c->warm_lo <= written)
            set_warm(c, 0, c->warm_lo <= written && c->warm_hi > written ? c->warm_hi : written);
    }
    const size_t keep = round_up(used ? used : 1, ALIGN);
    if (keep >= c->size || c->size - keep < SPLIT_MIN)
        return;
    sf_chunk *t = split(a, c, keep);
    if (!t)
        return;
    a->idle_resident += resident(t);
    coalesce(a, t);
    trim(a);
}

void sf_arena_give(sf_arena *a, sf_chunk *c) {
    sf_slab *s = c->slab;
    link_free(a, c);
    s->live--;
    a->idle_resident += resident(c);
    coalesce(a, c);
    if (s->live == 0)
        drop_spare_slab(a, s);
    trim(a);
}

size_t sf_arena_release(sf_arena *a) {
    size_t unmapped = 0;
    for (sf_slab *s = a->slabs, *next; s; s = next) {
        next = s->next;
        if (s->live == 0) {
            a->idle_resident -= resident(s->first);
            remove_slab(a, s);
            unmapped++;
        }
    }
    for (sf_chunk *c = a->free_chunks; c; c = c->free_next)
        drop_resident(a, c, 0);
    free_spares(a);
    return unmapped;
}

void sf_arena_set_idle_max(sf_arena *a, size_t idle_max) {
    a->idle_max = idle_max;
    trim(a);
}

sf_arena_stats sf_arena_stats_of(const sf_arena *a) {
    sf_arena_stats st = {0, 0, 0, 0, a->idle_resident, a->idle_max, 0, 0};
    for (const sf_slab *s = a->slabs; s; s = s->next) {
        st.slabs++;
        st.mapped += s->size;
        for (const sf_chunk *c = s->first; c; c = c->next) {
            if (!c->free) {
                st.live++;
                continue;
            }
            st.free++;
            st.free_bytes += c->size;
            if (c->size > st.largest_free)
                st.largest_free = c->size;
        }
    }
    return st;
}
