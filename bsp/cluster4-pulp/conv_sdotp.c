/* The board's int8 convolution: iree-data-tiling.mlir hands it each int8 3x3
 * convolution (and each 1x1 one of stride 2) of channels and filters multiples
 * of 4, and kws's first layer (row_of_words_q8), one workgroup per output row.
 * IREE's own code took 2.7 cycles a MAC on them; data tiling them needs an img2col
 * copy the scratchpad cannot hold, and IREE v3.9.0 miscompiles it when it tiles
 * it (docs/boards.md).
 *
 * Layouts: input [IH][IW][C] (padded already); weights in blocks of 4 filters,
 * [F/4][KH][KW][C/4][4][4] (a word of each filter after another); outputs
 * [OH][OW][F].  A window's row is kw * c bytes, a whole number of words: c a
 * multiple of 4, or an image's 3 channels in windows of 4 taps whose last weighs 0
 * (the spec's @ireerv_rgb_blocks).  Offsets count elements.  A tile of 4 outputs of a row by 4
 * filters: for each word of a window's row four input words and four weight
 * words, 16 cv.sdotsp.b.
 *
 * ireerv_conv_s8 writes the int32 sums, each starting from `fill` (the
 * convolution's initial value).  ireerv_conv_q8 writes int8: each sum starts from
 * `fill` plus the layer's bias and is requantised as TFLite does, with the
 * translator's columns (formats/requant_generic.py, the same bits): the spec
 * hands it the layers no other path takes. */
#include <stddef.h>
#include <stdint.h>

#include "requant_q8.h"
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

/* The sums s (4 outputs by 4 filters) over a window: `in` is the first input pixel
 * of the first output's window, `pitch` the bytes from one input row to the next,
 * `apart` from one output's window to the next's.  A window's row is `words`
 * words (its taps' channels lie one after another, as do a filter's). */
static inline __attribute__((always_inline)) void sums_4x4(
    int32_t *s, const int8_t *in, size_t pitch, const size_t apart, const uint32_t *w,
    size_t rows, size_t words) {
  if (__builtin_constant_p(words) && words == 1) {
    /* Rows of one word (row_of_words_q8, words a constant there): 10 rows an
     * iteration, kws's first layer's (its check, pairsqp: 82,130 cycles in a loop of
     * one row, 77,705 so, with sums_1x4's). */
#pragma GCC unroll 10
    for (size_t r = 0; r < rows; ++r, in += pitch) {
      const uint32_t *a = (const uint32_t *)in;
      QUAD_STEP(s, a, apart, w);
    }
    return;
  }
  for (size_t r = 0; r < rows; ++r, in += pitch) {
    const uint32_t *a = (const uint32_t *)in;
    size_t n = words;
    /* 4 words an iteration: a taken branch costs the loop 3 to 4 cycles. */
    for (; n >= 4; n -= 4) {
      QUAD_STEP(s, a, apart, w);
      QUAD_STEP(s, a, apart, w);
      QUAD_STEP(s, a, apart, w);
      QUAD_STEP(s, a, apart, w);
    }
    if (n >= 2) {
      QUAD_STEP(s, a, apart, w);
      QUAD_STEP(s, a, apart, w);
      n -= 2;
    }
    if (n) QUAD_STEP(s, a, apart, w);
  }
}

/* Outputs x..x+3 of a row by filters f..f+3 (sums_4x4's window), as int32 sums. */
static inline __attribute__((always_inline)) void tile_4x4(
    int32_t *out, size_t f_total, const int8_t *in, size_t pitch, const size_t apart,
    const uint32_t *w, size_t rows, size_t words, int32_t fill) {
  int32_t s[16];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) s[i * 4 + j] = fill;
  sums_4x4(s, in, pitch, apart, w, rows, words);
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) out[i * f_total + j] = s[i * 4 + j];
}

/* put_q8 for one kind of filter: `prescaled`, `signed_` and `clipped` are constants. */
#define PUT_Q8(prescaled, signed_)                                               \
  for (int i = 0; i < n; ++i) {                                                \
    const int32_t v = prescaled ? (int32_t)((uint32_t)s[i * step] << pre) + biases \
                                : s[i * step];                                 \
    store_byte(out + i * f_total,                                              \
               requantise(v, left, m, signed_, nudge, shift, after, low, high, clipped)); \
  }

/* Filter g's n sums (`step` apart in s), requantised with its columns t, to
 * out[i * f_total] (prescaled first where the columns say so).  `kind` (columns_kind's,
 * a constant): with CLIPPED cv.clip for cv.max, cv.min and the constant's addition;
 * with PLAIN no column read to choose the code, the left shift read from PRE's byte
 * (requant_q8.h), the outputs stored with
 * post-increment (a filter of a 4x4 tile: 33 instructions, 45 without). */
static inline __attribute__((always_inline)) void put_q8(int8_t *out, size_t f_total,
                                                         const int32_t *t, const int32_t *s,
                                                         int step, int n, const int kind) {
  const int8_t *mode = (const int8_t *)&t[Q_MODE]; /* its bytes: requant_q8.h */
  const int32_t sign_left = mode[3], left = sign_left & 31;
  const int32_t m = t[Q_M], nudge = t[Q_NUDGE], shift = t[Q_SHIFT];
  const int32_t low = mode[0], high = mode[1], after = mode[2];
  const int32_t pre = ((const uint8_t *)&t[Q_SHIFT])[Q_PRE_BYTE], biases = t[Q_BIASES];
  const int clipped = kind & CLIPPED;
  if (kind & PLAIN) {
#pragma GCC unroll 4
    for (int i = 0; i < n; ++i)
      SB_POST_REG(out, requantise(s[i * step], pre, m, 0, nudge, shift, after, low, high,
                                  clipped), f_total);
  } else if (pre | biases) {
    if (sign_left < 0) {
#pragma GCC unroll 4
      PUT_Q8(1, 1)
    } else {
#pragma GCC unroll 4
      PUT_Q8(1, 0)
    }
  } else if (sign_left < 0) {
#pragma GCC unroll 4
    PUT_Q8(0, 1)
  } else {
#pragma GCC unroll 4
    PUT_Q8(0, 0)
  }
}

/* tile_4x4's outputs requantised to int8 with the columns `table` of filters f..f+3. */
static inline __attribute__((always_inline)) void tile_4x4_q8(
    int8_t *out, size_t f_total, const int8_t *in, size_t pitch, const size_t apart,
    const uint32_t *w, size_t rows, size_t words, int32_t fill, const int32_t *table,
    const int kind) {
  int32_t s[16];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) {
    const int32_t start = fill + table[j * Q_COLUMNS + Q_BIAS];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) s[i * 4 + j] = start;
  }
  sums_4x4(s, in, pitch, apart, w, rows, words);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j)
    put_q8(out + j, f_total, table + j * Q_COLUMNS, s + j, 4, 4, kind);
}

/* The sums s (one output by 4 filters) over a window: a row's last outputs, and
 * every output of a layer whose windows lie apart by a distance tile_4x4 has no
 * copy for. */
#define SINGLE_STEP(s, a, w)                                                     \
  do {                                                                         \
    const uint32_t x = LW_POST(a, 4);                                          \
    const uint32_t k0 = LW_POST(w, 4), k1 = LW_POST(w, 4);                     \
    const uint32_t k2 = LW_POST(w, 4), k3 = LW_POST(w, 4);                     \
    s[0] = sdotsp_b(s[0], x, k0); s[1] = sdotsp_b(s[1], x, k1);                \
    s[2] = sdotsp_b(s[2], x, k2); s[3] = sdotsp_b(s[3], x, k3);                \
  } while (0)

static inline __attribute__((always_inline)) void sums_1x4(int32_t *s, const int8_t *in, size_t pitch, const uint32_t *w,
                     size_t rows, size_t words) {
  if (__builtin_constant_p(words) && words == 1) {
#pragma GCC unroll 10
    for (size_t r = 0; r < rows; ++r, in += pitch) {
      const uint32_t *a = (const uint32_t *)in;
      SINGLE_STEP(s, a, w);
    }
    return;
  }
  for (size_t r = 0; r < rows; ++r, in += pitch) {
    const uint32_t *a = (const uint32_t *)in;
    size_t n = words;
    for (; n >= 2; n -= 2) {
      SINGLE_STEP(s, a, w);
      SINGLE_STEP(s, a, w);
    }
    if (n) SINGLE_STEP(s, a, w);
  }
}

/* One output by filters g..g+3 as int32 sums (sums_1x4's window). */
static void tile_1x4(int32_t *out, const int8_t *in, size_t pitch, const uint32_t *w,
                     size_t rows, size_t words, int32_t fill) {
  int32_t s[4] = {fill, fill, fill, fill};
  sums_1x4(s, in, pitch, w, rows, words);
  for (int j = 0; j < 4; ++j) out[j] = s[j];
}

/* A row's outputs 4 at a time, for windows `apart` bytes apart (a constant):
 * TILE(g, apart) computes filters g..g+3 of outputs x..x+3. */
#define ROW_OF_QUADS(apart, TILE)                                                \
  for (; x + 4 <= ow; x += 4, first += 4 * (apart), out += 4 * f)                \
    for (size_t g = 0; g < f; g += 4) TILE(g, apart)

/* The distances the 4x4 tile has copies for: the strides times the channels of
 * the networks here (3 and 6: an image's 3 channels, resnet8's and vww's first
 * layers). */
#define EACH_STEP(TILE)                                                          \
  switch (step) {                                                              \
    case 3: ROW_OF_QUADS(3, TILE); break;                                      \
    case 4: ROW_OF_QUADS(4, TILE); break;                                      \
    case 6: ROW_OF_QUADS(6, TILE); break;                                      \
    case 8: ROW_OF_QUADS(8, TILE); break;                                      \
    case 16: ROW_OF_QUADS(16, TILE); break;                                    \
    case 32: ROW_OF_QUADS(32, TILE); break;                                    \
    case 64: ROW_OF_QUADS(64, TILE); break;                                    \
    case 128: ROW_OF_QUADS(128, TILE); break;                                  \
    default: break;                                                            \
  }

#define SUMS_TILE(g, apart)                                                      \
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
  EACH_STEP(SUMS_TILE)
  for (; x < ow; ++x, first += step, out += f)
    for (size_t g = 0; g < f; g += 4)
      tile_1x4(out + g, first, pitch, (const uint32_t *)(weights + g * taps), kh, words, fill);
}

/* One output by filters g..g+3 requantised to int8 with their columns `table`: the
 * sums stay in registers (unrolled loops over the 4).  Inlined into each caller: as a
 * call (two callers) kws's pointwise layer took 3 % longer. */
static inline __attribute__((always_inline)) void tile_1x4_q8(
    int8_t *out, const int8_t *in, size_t pitch, const uint32_t *w, size_t rows, size_t words,
    int32_t fill, const int32_t *table, const int kind) {
  int32_t s[4];
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) s[j] = fill + table[j * Q_COLUMNS + Q_BIAS];
  sums_1x4(s, in, pitch, w, rows, words);
#pragma GCC unroll 4
  for (int j = 0; j < 4; ++j) put_q8(out + j, 0, table + j * Q_COLUMNS, s + j, 1, 1, kind);
}

#define BYTES_TILE(g, apart)                                                     \
  tile_4x4_q8(out + g, f, first, pitch, (apart),                                 \
              (const uint32_t *)(weights + g * taps), kh, words, fill, table + g * Q_COLUMNS, \
              kind)

/* A row of outputs whose windows' rows are one word each, 2 bytes apart (kws's first
 * layer: the translator's two taps of channel pairs, 2 x 2 bytes, stride 1 across):
 * the tiles with `words` 1, so no loop over a window row's words (the core splits a
 * load from an address of 2 mod 4 into two accesses). */
static inline __attribute__((always_inline)) void row_of_words_q8(
    int8_t *out, size_t f, const int8_t *first, size_t pitch, const int8_t *weights, size_t kh,
    size_t ow, int32_t fill, const int32_t *table, const int kind) {
  const size_t words = 1, taps = 4 * kh;
  size_t x = 0;
  ROW_OF_QUADS(2, BYTES_TILE);
  for (; x < ow; ++x, first += 2, out += f)
    for (size_t g = 0; g < f; g += 4)
      tile_1x4_q8(out + g, first, pitch, (const uint32_t *)(weights + g * taps), kh, words,
                  fill, table + g * Q_COLUMNS, kind);
}

/* One output row (ireerv_conv_q8's), `kind` a constant. */
static inline __attribute__((always_inline)) void row_q8(
    const int8_t *first, const int8_t *weights, const int32_t *table, int8_t *out,
    size_t pitch, size_t step, size_t words, size_t taps, size_t ow, size_t f, size_t kh,
    int32_t fill, const int kind) {
  if (step == 2 && words == 1) {
    row_of_words_q8(out, f, first, pitch, weights, kh, ow, fill, table, kind);
    return;
  }
  size_t x = 0;
  EACH_STEP(BYTES_TILE)
  for (; x < ow; ++x, first += step, out += f)
    for (size_t g = 0; g < f; g += 4)
      tile_1x4_q8(out + g, first, pitch, (const uint32_t *)(weights + g * taps), kh, words,
                  fill, table + g * Q_COLUMNS, kind);
}

/* row_q8 for each kind of columns, a copy each. */
#define ROW_Q8(name, kind)                                                       \
  static __attribute__((noinline)) void name(                                  \
      const int8_t *first, const int8_t *weights, const int32_t *table, int8_t *out, \
      size_t pitch, size_t step, size_t words, size_t taps, size_t ow, size_t f, size_t kh, \
      int32_t fill) {                                                          \
    row_q8(first, weights, table, out, pitch, step, words, taps, ow, f, kh, fill, kind); \
  }
ROW_Q8(row_q8_plain_clipped, PLAIN | CLIPPED)
ROW_Q8(row_q8_plain, PLAIN)
ROW_Q8(row_q8_clipped, CLIPPED)
ROW_Q8(row_q8_any, 0)

/* Output row `row` requantised to int8 with the columns `table` ([F][Q_COLUMNS],
 * requant_q8.h's), strides sh down and sw across. */
void ireerv_conv_q8(const int8_t *in, size_t in_offset, const int8_t *weights,
                    size_t weights_offset, const int32_t *table, size_t table_offset,
                    int8_t *bytes, size_t bytes_offset, size_t iw, size_t c, size_t ow,
                    size_t f, size_t kh, size_t kw, size_t sh, size_t sw, int32_t fill,
                    size_t row) {
  const size_t pitch = iw * c, step = sw * c, words = kw * c / 4, taps = kh * kw * c;
  const int8_t *first = in + in_offset + row * sh * pitch;
  int8_t *out = bytes + bytes_offset + row * ow * f;
  weights += weights_offset;
  table += table_offset;
  const int32_t kind = ((const uint8_t *)&table[Q_SHIFT])[Q_KIND_BYTE];
  if (kind == (PLAIN | CLIPPED))
    row_q8_plain_clipped(first, weights, table, out, pitch, step, words, taps, ow, f, kh, fill);
  else if (kind == PLAIN)
    row_q8_plain(first, weights, table, out, pitch, step, words, taps, ow, f, kh, fill);
  else if (kind == CLIPPED)
    row_q8_clipped(first, weights, table, out, pitch, step, words, taps, ow, f, kh, fill);
  else
    row_q8_any(first, weights, table, out, pitch, step, words, taps, ow, f, kh, fill);
}
