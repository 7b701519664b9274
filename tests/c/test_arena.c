/*
 * The result arena (csrc/cpython/arena.c, Python-free) on its own: random
 * takes, shrinks and gives against a model of the live chunks, each chunk
 * filled with its own byte and checked intact when it is given back (no two
 * live chunks overlap, a shrink never moves or cuts what it keeps), the
 * idle limit held after every step, a dead chunk's memory served to the next
 * take, and everything given back at the end. Run natively and under
 * ASan+UBSan by tests/test_c_harness.py.
 *
 *   test_arena [--seed N] [--quick]
 *
 * --quick: the random walks take a quarter of their steps (the quick loop).
 */
#include "../../csrc/cpython/arena.c"

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                      \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                       \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

static uint64_t rng_state = 88172645463325252ull;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct live {
    sf_chunk *chunk;
    unsigned char *mem;
    size_t used;
    unsigned char fill;
} live;

#define MOST_LIVE 24

static int intact(const live *l) {
    for (size_t i = 0; i < l->used; i++)
        if (l->mem[i] != l->fill)
            return 0;
    return 1;
}

static void check_disjoint(const live *ls, int count) {
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            CHECK(ls[i].mem + ls[i].used <= ls[j].mem || ls[j].mem + ls[j].used <= ls[i].mem);
}

/* Random sizes from 1 byte to 24 MiB, most below 2 MiB, a tenth past the slab. */
static size_t random_size(void) {
    const uint64_t r = next_random();
    switch (r % 10) {
    case 0:
        return 1 + (size_t)(r >> 8) % 64;
    case 1:
        return ((size_t)64 << 20) + (size_t)(r >> 8) % ((size_t)8 << 20);
    default:
        return 1 + (size_t)(r >> 8) % ((size_t)2 << 20);
    }
}

static void random_walk(size_t idle_max, int steps, int vary_limit) {
    sf_arena *a = sf_arena_new(idle_max);
    CHECK(a != NULL);
    live ls[MOST_LIVE];
    int count = 0;
    for (int step = 0; step < steps; step++) {
        if (count == MOST_LIVE || (count && next_random() % 3 == 0)) {
            const int i = (int)(next_random() % (uint64_t)count);
            CHECK(intact(&ls[i]));
            sf_arena_give(a, ls[i].chunk);
            ls[i] = ls[--count];
        } else {
            const size_t worst = random_size();
            size_t warm;
            live l;
            l.mem = sf_arena_take(a, worst, &l.chunk, &warm);
            CHECK(l.mem != NULL);
            if (!l.mem)
                break;
            CHECK((uintptr_t)l.mem % ALIGN == 0);
            CHECK(warm < round_up(worst, ALIGN) + SPLIT_MIN); /* an unsplit chunk's tail */
            /* a call writes part of its worst case, then keeps what it found */
            const size_t written = (size_t)(next_random() % (worst + 1));
            l.used = written ? (size_t)(next_random() % written) + 1 : 0;
            l.fill = (unsigned char)(step | 1);
            memset(l.mem, 0xEE, written);
            memset(l.mem, l.fill, l.used);
            sf_arena_shrink(a, l.chunk, l.used, written);
            ls[count++] = l;
            check_disjoint(ls, count);
        }
        if (vary_limit && next_random() % 40 == 0) { /* set_result_pool_limit mid-walk */
            static const size_t limits[] = {0, (size_t)1 << 20, (size_t)64 << 20};
            sf_arena_set_idle_max(a, limits[next_random() % 3]);
            CHECK(sf_arena_stats_of(a).idle_resident <= sf_arena_stats_of(a).idle_max);
        }
        const sf_arena_stats s = sf_arena_stats_of(a);
        size_t listed = 0;
        for (const sf_chunk *c = a->free_chunks; c; c = c->free_next)
            listed += c->free;
        CHECK(listed == s.free); /* the free list holds every free chunk, only them */
        CHECK(s.idle_resident <= s.idle_max);
        CHECK(s.live == (size_t)count);
    }
    while (count) {
        CHECK(intact(&ls[count - 1]));
        sf_arena_give(a, ls[--count].chunk);
    }
    sf_arena_stats s = sf_arena_stats_of(a);
    CHECK(s.live == 0 && s.idle_resident <= s.idle_max);
    CHECK(s.slabs <= 1); /* one free slab is kept for the next call, no more */
    sf_arena_release(a);
    s = sf_arena_stats_of(a);
    CHECK(s.slabs == 0 && s.mapped == 0 && s.idle_resident == 0);
    sf_arena_free(a);
}

/* The steady state of `r = f(...)`, `calls` times: each call's worst case is
 * served by memory calls wrote before (resident), from the third call on,
 * with the result of the previous call alive while the next is made. */
static void r_equals_f(sf_arena *a, size_t worst, size_t used, int calls) {
    sf_chunk *previous = NULL;
    for (int call = 0; call < calls; call++) {
        sf_chunk *c;
        size_t warm;
        unsigned char *mem = sf_arena_take(a, worst, &c, &warm);
        if (call >= 2)
            CHECK(warm >= used); /* no page fault where the answer goes */
        memset(mem, call, used + 256); /* and a little past it, as kernels do */
        sf_arena_shrink(a, c, used, used + 256);
        if (previous)
            sf_arena_give(a, previous);
        previous = c;
    }
    sf_arena_give(a, previous);
    CHECK(sf_arena_stats_of(a).live == 0);
}

static void reuse_while_the_last_result_lives(size_t tenths) {
    sf_arena *a = sf_arena_new((size_t)64 << 20);
    const size_t worst = (size_t)4 << 20;
    r_equals_f(a, worst, worst / 10 * tenths, 8);
    sf_arena_free(a);
}

/* Past the idle limit, pages go back to the OS: what a large result wrote is
 * kept up to the limit only, and the memory reads as zeros (MADV_DONTNEED). */
static void the_idle_limit_gives_pages_back(void) {
    const size_t limit = (size_t)1 << 20, worst = (size_t)16 << 20;
    sf_arena *a = sf_arena_new(limit);
    sf_chunk *c;
    size_t warm;
    unsigned char *mem = sf_arena_take(a, worst, &c, &warm);
    CHECK(warm == 0);
    memset(mem, 0x5A, worst);
    sf_arena_shrink(a, c, worst, worst);
    sf_arena_give(a, c);
    sf_arena_stats s = sf_arena_stats_of(a);
    CHECK(s.idle_resident <= limit);
    CHECK(s.idle_resident >= limit - 4096); /* the limit's worth kept, not nothing */
#ifdef __linux__
    CHECK(mem[worst - 1] == 0); /* dropped: the page reads as new */
#endif
    CHECK(mem[0] == 0x5A); /* kept */
    sf_arena_free(a);
}

/* A shrink hands the tail back at once: all but the kept bytes are free. */
static size_t free_bytes(const sf_arena *a) {
    size_t bytes = 0;
    for (const sf_chunk *c = a->free_chunks; c; c = c->free_next)
        bytes += c->size;
    return bytes;
}

static void a_shrink_frees_the_tail(void) {
    sf_arena *a = sf_arena_new((size_t)64 << 20);
    sf_chunk *c1, *c2;
    size_t w;
    unsigned char *m1 = sf_arena_take(a, (size_t)8 << 20, &c1, &w);
    sf_arena_shrink(a, c1, 1000, 1000);
    const sf_arena_stats s = sf_arena_stats_of(a);
    CHECK(free_bytes(a) == s.mapped - 1024); /* 1000 bytes rounded to 64 */
    unsigned char *m2 = sf_arena_take(a, (size_t)8 << 20, &c2, &w);
    CHECK(m2 + ((size_t)8 << 20) <= m1 || m2 >= m1 + 1024);
    sf_arena_give(a, c1);
    sf_arena_give(a, c2);
    CHECK(sf_arena_stats_of(a).free == 1); /* joined again */
    CHECK(free_bytes(a) == s.mapped);
    sf_arena_free(a);
}

/* Small results kept alive lie side by side (placement's DENSE_MAX): 100 live
 * results of 684 bytes from 64 KiB worst cases span about their own bytes,
 * not a page each. And the `r = f(...)` steady state still reuses written
 * memory at that size. */
static void small_live_results_share_pages(void) {
    sf_arena *a = sf_arena_new((size_t)64 << 20);
    enum { COUNT = 100 };
    const size_t worst = (size_t)64 << 10, used = 684;
    sf_chunk *cs[COUNT];
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < COUNT; i++) {
        size_t warm;
        unsigned char *mem = sf_arena_take(a, worst, &cs[i], &warm);
        memset(mem, i, used + 256);
        sf_arena_shrink(a, cs[i], used, used + 256);
        lo = (uintptr_t)mem < lo ? (uintptr_t)mem : lo;
        hi = (uintptr_t)mem + used > hi ? (uintptr_t)mem + used : hi;
    }
    CHECK(hi - lo <= COUNT * round_up(used, ALIGN)); /* at the chunk's end: 100 x 64 KiB */
    for (int i = 0; i < COUNT; i++)
        sf_arena_give(a, cs[i]);
    r_equals_f(a, worst, used, 300);
    sf_arena_free(a);
}

int main(int argc, char **argv) {
    int quarter = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            rng_state = strtoull(argv[++i], NULL, 10) | 1;
        } else if (!strcmp(argv[i], "--quick")) {
            quarter = 4;
        } else {
            fprintf(stderr, "usage: %s [--seed N] [--quick]\n", argv[0]);
            return 2;
        }
    }
    printf("seed %llu\n", (unsigned long long)rng_state);
    a_shrink_frees_the_tail();
    for (size_t tenths = 1; tenths <= 9; tenths += 4)
        reuse_while_the_last_result_lives(tenths);
    the_idle_limit_gives_pages_back();
    small_live_results_share_pages();
    random_walk((size_t)64 << 20, 800 / quarter, 0);
    random_walk((size_t)1 << 20, 800 / quarter, 0); /* the limit reached at every step */
    random_walk(0, 300 / quarter, 0);                /* nothing kept */
    random_walk((size_t)64 << 20, 800 / quarter, 1); /* the limit changed as the walk goes */
    printf("status=%s (%d failures)\n", failures ? "FAIL" : "OK", failures);
    return failures != 0;
}
