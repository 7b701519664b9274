/*
 * Compaction tables shared by kernels/sse41.c and kernels/avx2.c. Nothing here
 * needs instruction-set flags: the tables are plain integers, and each kernel
 * file turns an entry into whatever shuffle control its instructions take.
 *
 * Every entry answers one question: for the lanes whose bit is set in mask m,
 * which source lane goes to output position j? Output positions at or past
 * popcount(m) hold lane 0; the kernels store them anyway, into out[k + popcount
 * ...), which the contract leaves unspecified and which the next store overwrites.
 *
 * The compiler builds the tables from the definitions below instead of us
 * pasting numbers, so the definition is the documentation and cannot drift.
 * Being static const in a header, each kernel file gets its own copy of only
 * the tables it uses.
 */
#ifndef SIMDFILTER_X86_TABLES_H
#define SIMDFILTER_X86_TABLES_H

#include <stdint.h>

/* popcount of the low 4 bits, as a constant expression: a 16-entry table of
 * nibbles packed into one 64-bit constant (shift amount at most 60). */
#define SF_POP4(m) ((unsigned)((0x4332322132212110ull >> (4u * ((unsigned)(m) & 15u))) & 15u))
#define SF_POP8(m) (SF_POP4(m) + SF_POP4((unsigned)(m) >> 4))
/* Bit b of m, and the output position of lane b when its bit is set. */
#define SF_BIT(m, b) (((unsigned)(m) >> (b)) & 1u)
#define SF_DEST(m, b) SF_POP8((unsigned)(m) & ((1u << (b)) - 1u))

/* Entry m, byte j: the source lane of output position j (8 lanes). */
#define SF_IDX8_TERM(m, b) ((uint64_t)SF_BIT(m, b) * ((uint64_t)(b) << (8u * SF_DEST(m, b))))
#define SF_IDX8(m)                                                                       \
    (SF_IDX8_TERM(m, 0) | SF_IDX8_TERM(m, 1) | SF_IDX8_TERM(m, 2) | SF_IDX8_TERM(m, 3) | \
     SF_IDX8_TERM(m, 4) | SF_IDX8_TERM(m, 5) | SF_IDX8_TERM(m, 6) | SF_IDX8_TERM(m, 7))
#define SF_LANE(m, j) ((unsigned)(SF_IDX8(m) >> (8u * (j))) & 0xffu)

/* 4 lanes of 64 bits seen as 8 lanes of 32: output 32-bit lanes 2j and 2j+1
 * take source lanes 2s and 2s+1, s = SF_LANE(m, j); one nibble each (for
 * vpermd after vpsrlvd). */
#define SF_NIB4X64_TERM(m, b)                                                            \
    (SF_BIT(m, b) * ((uint32_t)(2u * (b) | (2u * (b) + 1u) << 4) << (8u * SF_DEST(m, b))))
#define SF_NIB4X64(m)                                                                    \
    (SF_NIB4X64_TERM(m, 0) | SF_NIB4X64_TERM(m, 1) | SF_NIB4X64_TERM(m, 2) |             \
     SF_NIB4X64_TERM(m, 3))

/* pshufb controls: byte t of the output takes byte SF_LANE(m, t / w) * w + t % w
 * of the source, for lanes of w bytes. */
#define SF_SHUF_BYTE(m, w, t) ((uint8_t)(SF_LANE(m, (t) / (w)) * (w) + (t) % (w)))
#define SF_SHUF16(m, w)                                                                  \
    {SF_SHUF_BYTE(m, w, 0),  SF_SHUF_BYTE(m, w, 1),  SF_SHUF_BYTE(m, w, 2),                \
     SF_SHUF_BYTE(m, w, 3),  SF_SHUF_BYTE(m, w, 4),  SF_SHUF_BYTE(m, w, 5),                \
     SF_SHUF_BYTE(m, w, 6),  SF_SHUF_BYTE(m, w, 7),  SF_SHUF_BYTE(m, w, 8),                \
     SF_SHUF_BYTE(m, w, 9),  SF_SHUF_BYTE(m, w, 10), SF_SHUF_BYTE(m, w, 11),               \
     SF_SHUF_BYTE(m, w, 12), SF_SHUF_BYTE(m, w, 13), SF_SHUF_BYTE(m, w, 14),               \
     SF_SHUF_BYTE(m, w, 15)}

/* F(m) for m = 0 .. 2^bits - 1. */
#define SF_REP4(F, m) F((m) + 0u) F((m) + 1u) F((m) + 2u) F((m) + 3u)
#define SF_REP16(F, m) SF_REP4(F, (m) + 0u) SF_REP4(F, (m) + 4u) SF_REP4(F, (m) + 8u) SF_REP4(F, (m) + 12u)
#define SF_REP64(F, m) SF_REP16(F, (m) + 0u) SF_REP16(F, (m) + 16u) SF_REP16(F, (m) + 32u) SF_REP16(F, (m) + 48u)
#define SF_REP256(F) SF_REP64(F, 0u) SF_REP64(F, 64u) SF_REP64(F, 128u) SF_REP64(F, 192u)

#define SF_IDX8_ROW(m) SF_IDX8(m),
#define SF_NIB4X64_ROW(m) SF_NIB4X64(m),
#define SF_SHUF4X32_ROW(m) SF_SHUF16(m, 4),
#define SF_SHUF2X64_ROW(m) SF_SHUF16(m, 8),

/* 8 lanes of any width, one byte per output position (2 KiB). */
_Alignas(64) static const uint64_t sf_x86_idx8[256] = {SF_REP256(SF_IDX8_ROW)};
/* 4 lanes of 64 bits as 8 nibbles for vpermd. */
_Alignas(64) static const uint32_t sf_x86_nib4x64[16] = {SF_REP16(SF_NIB4X64_ROW, 0u)};
/* pshufb controls for 4 lanes of 32 bits and for 2 lanes of 64 bits. */
_Alignas(64) static const uint8_t sf_x86_shuf4x32[16][16] = {SF_REP16(SF_SHUF4X32_ROW, 0u)};
_Alignas(64) static const uint8_t sf_x86_shuf2x64[4][16] = {SF_REP4(SF_SHUF2X64_ROW, 0u)};

#endif
