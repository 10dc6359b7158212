/* The board's int8 convolution: iree-data-tiling.mlir hands it each int8 3x3
 * convolution (and each 1x1 one of stride 2) of channels and filters multiples
 * of 4, one workgroup per output row.  IREE's own code took 2.7 cycles a MAC on
 * them; data tiling them needs an img2col copy the scratchpad cannot hold, and
 * IREE v3.9.0 miscompiles it when it tiles it (docs/boards.md).
 *
 * Layouts: input [IH][IW][C] (padded already); weights in blocks of 4 filters,
 * [F/4][KH][KW][C/4][4][4] (a word of each filter after another); int32 sums
 * [OH][OW][F], each starting from `fill` (the convolution's initial value).
 * Offsets count elements.  A tile of 4 outputs of a row by 4 filters: for each
 * word of a window's row four input words and four weight words, 16
 * cv.sdotsp.b. */
#include <stddef.h>
#include <stdint.h>

#include "xcv_insn.h"

/* One word of a window's row for 4 outputs by 4 filters: the outputs' input
 * words `apart` bytes from one another (a constant: immediate offsets, one
 * pointer), the 4 filters' words one after another; 8 loads, 16 cv.sdotsp.b,
 * each weight loaded a step before its use. */
#define QUAD_STEP(s, a, apart, w)                                                \
  do {                                                                         \
    const uint32_t x1 = *(const uint32_t *)((const int8_t *)a + (apart));        \
    const uint32_t x2 = *(const uint32_t *)((const int8_t *)a + 2 * (apart));    \
    const uint32_t x3 = *(const uint32_t *)((const int8_t *)a + 3 * (apart));    \
    const uint32_t x0 = LW_POST(a, 4);                                           \
    const uint32_t k0 = LW_POST(w, 4), k1 = LW_POST(w, 4);                       \
    s[0] = sdotsp_b(s[0], x0, k0); s[4] = sdotsp_b(s[4], x1, k0);                \
    s[8] = sdotsp_b(s[8], x2, k0); s[12] = sdotsp_b(s[12], x3, k0);              \
    const uint32_t k2 = LW_POST(w, 4);                                           \
    s[1] = sdotsp_b(s[1], x0, k1); s[5] = sdotsp_b(s[5], x1, k1);                \
    s[9] = sdotsp_b(s[9], x2, k1); s[13] = sdotsp_b(s[13], x3, k1);              \
    const uint32_t k3 = LW_POST(w, 4);                                           \
    s[2] = sdotsp_b(s[2], x0, k2); s[6] = sdotsp_b(s[6], x1, k2);                \
    s[10] = sdotsp_b(s[10], x2, k2); s[14] = sdotsp_b(s[14], x3, k2);            \
    s[3] = sdotsp_b(s[3], x0, k3); s[7] = sdotsp_b(s[7], x1, k3);                \
    s[11] = sdotsp_b(s[11], x2, k3); s[15] = sdotsp_b(s[15], x3, k3);            \
  } while (0)

/* Outputs x..x+3 of a row by filters f..f+3.  `in` is the first input pixel of
 * output x's window, `pitch` the bytes from one input row to the next, `apart`
 * from output x's window to x + 1's.  A window's row is `words` words (its
 * taps' channels lie one after another, as do a filter's). */
static inline __attribute__((always_inline)) void tile_4x4(
    int32_t *out, size_t f_total, const int8_t *in, size_t pitch, const size_t apart,
    const uint32_t *w, size_t rows, size_t words, int32_t fill) {
  int32_t s[16];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) s[i * 4 + j] = fill;
  for (size_t r = 0; r < rows; ++r, in += pitch) {
    const uint32_t *a = (const uint32_t *)in;
    size_t n = words;
    for (; n >= 2; n -= 2) {
      QUAD_STEP(s, a, apart, w);
      QUAD_STEP(s, a, apart, w);
    }
    if (n) QUAD_STEP(s, a, apart, w);
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) out[i * f_total + j] = s[i * 4 + j];
}

/* One output by filters f..f+3: a row's last outputs, and every output of a
 * layer whose windows lie apart by a distance tile_4x4 has no copy for. */
static void tile_1x4(int32_t *out, const int8_t *in, size_t pitch, const uint32_t *w,
                     size_t rows, size_t words, int32_t fill) {
  int32_t s[4] = {fill, fill, fill, fill};
  for (size_t r = 0; r < rows; ++r, in += pitch) {
    const uint32_t *a = (const uint32_t *)in;
    for (size_t n = words; n; --n) {
      const uint32_t x = LW_POST(a, 4);
      const uint32_t k0 = LW_POST(w, 4), k1 = LW_POST(w, 4);
      const uint32_t k2 = LW_POST(w, 4), k3 = LW_POST(w, 4);
      s[0] = sdotsp_b(s[0], x, k0); s[1] = sdotsp_b(s[1], x, k1);
      s[2] = sdotsp_b(s[2], x, k2); s[3] = sdotsp_b(s[3], x, k3);
    }
  }
  for (int j = 0; j < 4; ++j) out[j] = s[j];
}

/* A row's outputs 4 at a time, for windows `apart` bytes apart (a constant). */
#define ROW_OF_QUADS(apart)                                                      \
  for (; x + 4 <= ow; x += 4, first += 4 * (apart), out += 4 * f)                \
    for (size_t g = 0; g < f; g += 4)                                          \
      tile_4x4(out + g, f, first, pitch, (apart), (const uint32_t *)(weights + g * taps), kh, \
               words, fill)

/* Output row `row` of a kh x kw convolution (stride `stride` both ways; filters
 * and channels multiples of 4). */
void ireerv_conv_s8(const int8_t *in, size_t in_offset, const int8_t *weights,
                    size_t weights_offset, int32_t *sums, size_t sums_offset, size_t iw,
                    size_t c, size_t ow, size_t f, size_t kh, size_t kw, size_t stride,
                    int32_t fill, size_t row) {
  const size_t pitch = iw * c, step = stride * c, words = kw * c / 4, taps = kh * kw * c;
  const int8_t *first = in + in_offset + row * stride * pitch;
  int32_t *out = sums + sums_offset + row * ow * f;
  weights += weights_offset;
  size_t x = 0;
  switch (step) {  /* the strides times the channels of the networks here */
    case 4: ROW_OF_QUADS(4); break;
    case 8: ROW_OF_QUADS(8); break;
    case 16: ROW_OF_QUADS(16); break;
    case 32: ROW_OF_QUADS(32); break;
    case 64: ROW_OF_QUADS(64); break;
    case 128: ROW_OF_QUADS(128); break;
    default: break;
  }
  for (; x < ow; ++x, first += step, out += f)
    for (size_t g = 0; g < f; g += 4)
      tile_1x4(out + g, first, pitch, (const uint32_t *)(weights + g * taps), kh, words, fill);
}
