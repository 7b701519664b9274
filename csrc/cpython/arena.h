/*
 * The result arena: memory for fresh results, Python-free (the binding wraps it
 * in result_pool.c; tests/c/test_arena.c drives it alone under sanitizers).
 *
 * A fresh result is filled into a chunk of its worst case and then shrunk in
 * place to what the query found: the tail goes back to the arena as free
 * memory, and when the result dies its chunk does too. Chunks are cut from
 * large mappings (slabs) and joined again when their neighbours are free, as
 * a heap does, so that memory written by one call is reused by the next of any
 * size or selectivity with no system call, no page fault and no copy: the
 * reasons and the figures that chose this design are in csrc/cpython/README.md.
 *
 * Memory: free chunks keep the pages calls wrote in them up to
 * `idle_max` bytes in all; past it the arena gives pages back to the OS
 * (madvise(MADV_DONTNEED), or munmap of a whole free slab). A live chunk holds
 * only the pages of its own bytes (and the 64-byte rounding of its end).
 *
 * Not thread-safe: the binding calls it with the GIL held.
 */
#ifndef SIMDFILTER_ARENA_H
#define SIMDFILTER_ARENA_H

#include <stddef.h>

typedef struct sf_arena sf_arena;
typedef struct sf_chunk sf_chunk;

typedef struct sf_arena_stats {
    size_t slabs;         /* mappings */
    size_t mapped;        /* their bytes of address space */
    size_t live, free;    /* chunks in use (results), free chunks */
    size_t idle_resident; /* bytes of free chunks that may hold pages (an upper bound) */
    size_t idle_max;      /* the most of them the arena keeps */
    size_t largest_free;  /* the largest free chunk's size */
    size_t free_bytes;    /* the sizes of the free chunks, added up */
} sf_arena_stats;

/* A new empty arena keeping at most idle_max bytes of written, free memory;
 * NULL when malloc fails. */
sf_arena *sf_arena_new(size_t idle_max);
/* Unmaps every slab and frees the arena. A slab that still holds a live chunk
 * is left mapped (never expected: a result's owner keeps the arena alive). */
void sf_arena_free(sf_arena *a);
/* A chunk of at least `bytes` (> 0), 64-byte aligned; *warm: how many of its
 * first bytes hold pages already, at most (0: a page fault at each first
 * write). NULL when no memory can be had. */
void *sf_arena_take(sf_arena *a, size_t bytes, sf_chunk **chunk, size_t *warm);
/* The chunk's first `used` bytes are kept (used <= its size); a call wrote
 * (touched) its first `written` bytes. The rest goes back to the arena. */
void sf_arena_shrink(sf_arena *a, sf_chunk *c, size_t used, size_t written);
/* The chunk back to the arena (its result died). */
void sf_arena_give(sf_arena *a, sf_chunk *c);
/* Gives every free page back to the OS and unmaps every free slab; how many
 * slabs were unmapped. */
size_t sf_arena_release(sf_arena *a);
sf_arena_stats sf_arena_stats_of(const sf_arena *a);
/* The most written, free memory kept from now on; what is past it goes back
 * to the OS at once. */
void sf_arena_set_idle_max(sf_arena *a, size_t idle_max);

#endif
