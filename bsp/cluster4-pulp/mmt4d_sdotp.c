/* iree_uk_mmt4d for the CV32E40P with its PULP extensions: int8 tiles of
 * 8x8 outputs and 4 steps of k (the tiles iree-compile's data tiling picks for
 * riscv32), and of 1x8 outputs (its pick for a matmul of one row: a fully
 * connected layer), multiply four int8 pairs at once with cv.sdotsp.b.
 *
 * iree-compile calls it from the board's data-tiled matmuls (board.toml [iree]
 * flags: --iree-global-opt-data-tiling --iree-llvmcpu-enable-ukernels=mmt4d
 * --iree-llvmcpu-link-ukernel-bitcode=false leave the symbol undefined in the
 * kernel object; `kernel_sources` links this file, at -O2).  Debian's GCC knows
 * no CORE-V instruction: `.insn` spells it out for the assembler.
 *
 * Layouts (IREE's mmt4d): lhs [M][K][M0][K0], rhs [N][K][N0][K0], out
 * [M][N][M0][N0], row-major tiles; strides and offsets count elements.  With
 * K0 = 4 one row of an lhs tile and one column of an rhs tile are one 32-bit
 * word each: one cv.sdotsp.b operand. */
#include <stdint.h>

#include "xcv_insn.h"

/* runtime/src/iree/builtins/ukernel/exported_bits.h */
#define MMT4D_TYPE_MASK 0xFFu
#define MMT4D_TYPE_S8S8S32 0x02u
#define MMT4D_ACCUMULATE 0x100u

/* One step of k for a 4x4 quarter: its four lhs and four rhs words (a step is 8
 * words of each operand, this quarter reads 4: the last load steps over the
 * others), 16 cv.sdotsp.b; 24 instructions for 64 MACs. */
#define QUARTER_STEP(c, pa, pb)                                                  \
  do {                                                                         \
    uint32_t a0 = LW_POST(pa, 4), a1 = LW_POST(pa, 4), a2 = LW_POST(pa, 4);      \
    uint32_t a3 = LW_POST(pa, 20);                                             \
    uint32_t b0 = LW_POST(pb, 4), b1 = LW_POST(pb, 4), b2 = LW_POST(pb, 4);      \
    uint32_t b3 = LW_POST(pb, 20);                                             \
    c[0][0] = sdotsp_b(c[0][0], a0, b0); c[0][1] = sdotsp_b(c[0][1], a0, b1);    \
    c[0][2] = sdotsp_b(c[0][2], a0, b2); c[0][3] = sdotsp_b(c[0][3], a0, b3);    \
    c[1][0] = sdotsp_b(c[1][0], a1, b0); c[1][1] = sdotsp_b(c[1][1], a1, b1);    \
    c[1][2] = sdotsp_b(c[1][2], a1, b2); c[1][3] = sdotsp_b(c[1][3], a1, b3);    \
    c[2][0] = sdotsp_b(c[2][0], a2, b0); c[2][1] = sdotsp_b(c[2][1], a2, b1);    \
    c[2][2] = sdotsp_b(c[2][2], a2, b2); c[2][3] = sdotsp_b(c[2][3], a2, b3);    \
    c[3][0] = sdotsp_b(c[3][0], a3, b0); c[3][1] = sdotsp_b(c[3][1], a3, b1);    \
    c[3][2] = sdotsp_b(c[3][2], a3, b2); c[3][3] = sdotsp_b(c[3][3], a3, b3);    \
  } while (0)

/* One 4x4 quarter of an 8x8 output tile over K steps: 16 accumulators, four
 * lhs and four rhs words a step, two pointers (26 registers: no spill), the
 * steps two at a time (a taken branch costs the core 3 cycles). */
static void quarter_8x8x4(int32_t *out, const uint32_t *lhs, const uint32_t *rhs,
                          int32_t k, int accumulate) {
  /* Unrolled, c lives in registers: as loops GCC kept it on the stack and
   * stored it with four memcpy calls (64x64x64: 35,036 of 307,560 cycles). */
  int32_t c[4][4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) c[i][j] = accumulate ? out[i * 8 + j] : 0;
  for (int32_t pairs = k >> 1; pairs != 0; --pairs) {
    QUARTER_STEP(c, lhs, rhs);
    QUARTER_STEP(c, lhs, rhs);
  }
  if (k & 1) QUARTER_STEP(c, lhs, rhs);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) out[i * 8 + j] = c[i][j];
}

static void tile_s8_8x8x4(int32_t *out, const int8_t *lhs, const int8_t *rhs, int32_t k,
                          int accumulate) {
  const uint32_t *a = (const uint32_t *)lhs, *b = (const uint32_t *)rhs;
  quarter_8x8x4(out, a, b, k, accumulate);
  quarter_8x8x4(out + 4, a, b + 4, k, accumulate);
  quarter_8x8x4(out + 32, a + 4, b, k, accumulate);
  quarter_8x8x4(out + 36, a + 4, b + 4, k, accumulate);
}

/* One step of k for a row of one lhs row by 8 rhs columns (a fully connected
 * layer's vector by its weights: the 1x8x4 tile iree-compile picks for one row):
 * one lhs word, eight rhs words, 8 cv.sdotsp.b; 17 instructions for 32 MACs. */
#define ROW_STEP(c, pa, pb)                                                      \
  do {                                                                         \
    uint32_t x = LW_POST(pa, 4);                                                 \
    uint32_t b0 = LW_POST(pb, 4), b1 = LW_POST(pb, 4), b2 = LW_POST(pb, 4);      \
    uint32_t b3 = LW_POST(pb, 4), b4 = LW_POST(pb, 4), b5 = LW_POST(pb, 4);      \
    uint32_t b6 = LW_POST(pb, 4), b7 = LW_POST(pb, 4);                           \
    c[0] = sdotsp_b(c[0], x, b0); c[1] = sdotsp_b(c[1], x, b1);                  \
    c[2] = sdotsp_b(c[2], x, b2); c[3] = sdotsp_b(c[3], x, b3);                  \
    c[4] = sdotsp_b(c[4], x, b4); c[5] = sdotsp_b(c[5], x, b5);                  \
    c[6] = sdotsp_b(c[6], x, b6); c[7] = sdotsp_b(c[7], x, b7);                  \
  } while (0)

/* A 1x8 output tile over K steps: 8 accumulators, 9 words a step, the steps
 * two at a time, as in the 8x8 tile.  Not inlined: in iree_uk_mmt4d's frame GCC
 * kept half the operands on the stack (1x128 by 128x128: 19,189 cycles, 10,971
 * so). */
__attribute__((noinline)) static void tile_s8_1x8x4(int32_t *out, const int8_t *lhs, const int8_t *rhs, int32_t k,
                          int accumulate) {
  const uint32_t *a = (const uint32_t *)lhs, *b = (const uint32_t *)rhs;
  int32_t c[8];
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) c[j] = accumulate ? out[j] : 0;
  for (int32_t pairs = k >> 1; pairs != 0; --pairs) {
    ROW_STEP(c, a, b);
    ROW_STEP(c, a, b);
  }
  if (k & 1) ROW_STEP(c, a, b);
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) out[j] = c[j];
}

/* Any other tile shape, element by element. */
static void tile_s8_generic(int32_t *out, const int8_t *lhs, const int8_t *rhs, int32_t k,
                            int32_t m0, int32_t n0, int32_t k0, int accumulate) {
  for (int32_t i = 0; i < m0; ++i)
    for (int32_t j = 0; j < n0; ++j) {
      int32_t sum = accumulate ? out[i * n0 + j] : 0;
      for (int32_t s = 0; s < k; ++s)
        for (int32_t t = 0; t < k0; ++t)
          sum += lhs[(s * m0 + i) * k0 + t] * rhs[(s * n0 + j) * k0 + t];
      out[i * n0 + j] = sum;
    }
}

int32_t iree_uk_mmt4d(const void *lhs_buffer, int32_t lhs_offset, int32_t lhs_stride0,
                      const void *rhs_buffer, int32_t rhs_offset, int32_t rhs_stride0,
                      void *out_buffer, int32_t out_offset, int32_t out_stride0, int32_t m,
                      int32_t n, int32_t k, int32_t m0, int32_t n0, int32_t k0, uint32_t flags,
                      const uint64_t *cpu_data) {
  (void)cpu_data;
  const int accumulate = (flags & MMT4D_ACCUMULATE) != 0;
  const uint32_t type = flags & MMT4D_TYPE_MASK;
  if (type == MMT4D_TYPE_S8S8S32) {
    const int fast = m0 == 8 && n0 == 8 && k0 == 4;
    const int row = m0 == 1 && n0 == 8 && k0 == 4;
    const int8_t *lhs = (const int8_t *)lhs_buffer + lhs_offset;
    for (int32_t i = 0; i < m; ++i, lhs += lhs_stride0) {
      const int8_t *rhs = (const int8_t *)rhs_buffer + rhs_offset;
      int32_t *out = (int32_t *)out_buffer + out_offset + i * out_stride0;
      for (int32_t j = 0; j < n; ++j, rhs += rhs_stride0, out += m0 * n0) {
        if (fast)
          tile_s8_8x8x4(out, lhs, rhs, k, accumulate);
        else if (row)
          tile_s8_1x8x4(out, lhs, rhs, k, accumulate);
        else
          tile_s8_generic(out, lhs, rhs, k, m0, n0, k0, accumulate);
      }
    }
    return 0;
  }
  /* Only int8 matmuls are data-tiled (iree-data-tiling.mlir).  No soft-float here:
   * a call of it would make the harts' analysis run this kernel in place. */
  __builtin_trap();
}
