/* The int8 convolution of bsp/cluster4-pulp/conv_sdotp.c (CONV_SOURCE) on one
 * hart, data in core 0's scratchpad: each case's cycles, then every sum against
 * the sums of the bytes.  The cases are the kinds iree-data-tiling.mlir hands
 * it: 3x3 of stride 1 and 2, 1x1 of stride 2, a first layer's 4 channels, rows
 * of outputs not a multiple of the tile's 4, and a stride times channels the
 * 4x4 tile has no copy for (one output at a time).  The cases ending in q are
 * ireerv_conv_q8's: the same sums requantised to int8 with columns of
 * formats/requant_generic.py, checked against that module's `compute`; `pointq`
 * is a pointwise layer of kws (rows of 5 outputs: a tile of 4 and one), `pairsq`
 * its first layer; those ending in qc and qp have clipped columns, qp plain ones too
 * (requant_q8.h's columns_kind: kws's; a byte of the table's SHIFT); `rgbq` is an image's 3
 * channels. */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"
#include CONV_SOURCE

static int8_t input[17 * 17 * 16] __attribute__((aligned(64)));
static int8_t weights[32 * 9 * 32] __attribute__((aligned(64)));
static int32_t sums[10 * 10 * 32] __attribute__((aligned(64)));
static int8_t bytes[10 * 10 * 32] __attribute__((aligned(64)));
static int32_t columns[64 * COLUMNS];  /* [F][COLUMNS]: requant_q8.h's, the reference's */
static int32_t table[64 * Q_COLUMNS];  /* the kernel's, packed from them */

static int8_t next_byte(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (int8_t)(*state >> 16);
}

/* The sum of output (y, x) of filter g, from `fill`, with the weights in the kernel's
 * blocks of 4 filters (a word of each filter after another): a window's row is kw * c
 * bytes one after another in the input, and its words follow one another 16 bytes
 * apart in the block, row after row. */
static int32_t sum_of(int y, int x, int g, int iw, int c, int kh, int kw, int sh, int sw,
                      int32_t fill) {
  const int8_t *w = weights + (g / 4) * (kh * kw * c / 4) * 16 + (g % 4) * 4;
  int32_t sum = fill;
  for (int r = 0; r < kh; ++r) {
    const int8_t *a = input + (y * sh + r) * iw * c + x * sw * c;
    for (int q = 0; q < kw * c / 4; ++q, a += 4, w += 16)
      sum += a[0] * w[0] + a[1] * w[1] + a[2] * w[2] + a[3] * w[3];
  }
  return sum;
}

/* requant_generic.compute for filter g's columns (of f). */
static int32_t compute(int32_t x, int g, int f) {
  const int32_t *t = columns + g * COLUMNS;
  (void)f;
  x = (int32_t)((uint32_t)(x + t[0]) << t[10]) + t[1];
  int64_t wide = (int64_t)(x * (t[2] ? 4 : 1)) * t[3];
  int32_t total = (int32_t)(wide >> 32) + t[5];
  if (t[4]) total += 2 * (x >> 31);
  int32_t r = (total >> t[6]) + t[7];
  return r < t[8] ? t[8] : r > t[9] ? t[9] : r;
}

/* Columns for f filters as the translator writes them: biases, the left shift 2,
 * multipliers of 2^30 and more, the sign term on every other filter, nudges of
 * 1 + 2^e (the zero point folded in on some), shifts 1 + e, clamps of a ReLU or
 * of int8; `clipped`: no constant after the shift and every clamp int8's (the
 * networks' layers: cv.clip); `plain`: none prescaled and no sign term (kws's). */
static void make_table(int f, int clipped, int plain, uint32_t *state) {
  for (int g = 0; g < f; ++g) {
    const int e = 8 + g % 6, zp = clipped ? 0 : (g % 3) * 5 - 5;
    const int prescaled = !plain && g % 5 == 0;
    int32_t *t = columns + g * COLUMNS;
    t[0] = next_byte(state) * 37;
    t[1] = prescaled ? next_byte(state) : 0;  /* a prescaled layer's biases, with t[10] */
    t[2] = prescaled ? 0 : 2;
    t[10] = prescaled ? 2 + g % 3 : 0;
    t[3] = (int32_t)(0x40000000u + (uint32_t)next_byte(state) * 0x100000u);
    t[4] = plain || g % 2 ? 0 : -1;
    t[5] = 1 + (1 << e) + (g % 4 ? 0 : zp * (2 << e));
    t[6] = 1 + e;
    t[7] = g % 4 ? zp : 0;
    t[8] = g % 2 && !clipped ? zp : -128;
    t[9] = 127;
  }
  /* The kernel's table as the spec's @ireerv_q8_table packs it, with the kind it
   * computes at compile time. */
  const int32_t kind = columns_kind(columns, f, COLUMNS);
  for (int g = 0; g < f; ++g) {
    const int32_t *t = columns + g * COLUMNS;
    int32_t *q = table + g * Q_COLUMNS;
    q[Q_BIAS] = t[BIAS];
    q[Q_BIASES] = t[BIASES];
    q[Q_M] = t[MULTIPLIERS];
    q[Q_NUDGE] = t[NUDGES];
    q[Q_SHIFT] = t[SHIFTS] | (kind & PLAIN ? t[LEFTS] : t[PRE]) << 8 | kind << 16;
    q[Q_MODE] = (int32_t)((uint32_t)(t[LOW] & 255) | (uint32_t)(t[HIGH] & 255) << 8 |
                          (uint32_t)(t[AFTER] & 255) << 16 | (t[SIGNS] ? MODE_SIGNED : 0) |
                          (uint32_t)t[LEFTS] << 24);
  }
}

/* One case: an ih x iw x c input, f filters of kh x kw, strides sh down and sw across,
 * requantised (1; 2: with clipped columns; 3: clipped and plain) or not; returns
 * mismatches. */
static int check_rect(const char *name, int ih, int iw, int c, int f, int kh, int kw, int sh,
                      int sw, int requantised) {
  const int oh = (ih - kh) / sh + 1, ow = (iw - kw) / sw + 1, fill = -77;
  uint32_t state = 777;
  make_table(f, requantised >= 2, requantised == 3, &state);
  uint64_t start = bsp_cycles();
  for (int row = 0; row < oh; ++row)
    if (requantised)
      ireerv_conv_q8(input, 0, weights, 0, table, 0, bytes, 0, iw, c, ow, f, kh, kw, sh, sw,
                     fill, row);
    else
      ireerv_conv_s8(input, 0, weights, 0, sums, 0, iw, c, ow, f, kh, kw, sh, fill, row);
  printf("CYCLES %s %lu for %d MACs\n", name, (unsigned long)(bsp_cycles() - start),
         oh * ow * f * kh * kw * c);
  int bad = 0;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int g = 0; g < f; ++g) {
        const int32_t sum = sum_of(y, x, g, iw, c, kh, kw, sh, sw, fill);
        const int at = (y * ow + x) * f + g;
        bad += requantised ? bytes[at] != compute(sum, g, f) : sums[at] != sum;
      }
  return bad;
}

/* A square case: an in x in x c input, f filters of k x k, stride s. */
static int check(const char *name, int in, int c, int f, int k, int s, int requantised) {
  return check_rect(name, in, in, c, f, k, k, s, s, requantised);
}

int main(void) {
  uint32_t state = 12345;
  for (unsigned i = 0; i < sizeof input; ++i) input[i] = next_byte(&state);
  for (unsigned i = 0; i < sizeof weights; ++i) weights[i] = next_byte(&state);
  int bad = check("3x3", 10, 32, 16, 3, 1, 0);
  bad += check("3x3s2", 17, 16, 32, 3, 2, 0);
  bad += check("rows", 11, 16, 8, 3, 1, 0);    /* 9 outputs a row: two tiles and one */
  bad += check("1x1s2", 11, 32, 8, 1, 2, 0);
  bad += check("first", 12, 4, 8, 3, 1, 0);
  bad += check("other", 8, 12, 4, 3, 1, 0);     /* 12 bytes apart: one output at a time */
  bad += check("3x3q", 10, 32, 16, 3, 1, 1);
  bad += check("rowsq", 11, 16, 8, 3, 1, 1);
  bad += check("otherq", 8, 12, 4, 3, 1, 1);
  bad += check("pointq", 5, 64, 64, 1, 1, 1);   /* kws's pointwise: rows of 5 */
  /* kws's first layer, 16 of its filters: 10 x 2 taps over channel pairs, strides 2
   * down and 1 across, so a window's row is one word, windows 2 bytes apart. */
  bad += check_rect("pairsq", 58, 6, 2, 16, 10, 2, 2, 1, 2);
  bad += check("pointqc", 5, 64, 64, 1, 1, 2);  /* kws's, with its clipped columns */
  /* kws's pointwise layer as the spec hands it (5 rows in one of 25) with its columns,
   * clipped and plain; its first layer so too. */
  bad += check_rect("pointqp", 1, 25, 64, 64, 1, 1, 1, 1, 3);
  bad += check_rect("pairsqp", 58, 6, 2, 16, 10, 2, 2, 1, 3);
  /* An image's 3 channels at stride 2 as the spec hands them (vww's first layer): a
   * window's row 4 taps of 3 channels, 12 bytes, starting mid-word. */
  bad += check_rect("rgbq", 17, 17, 3, 8, 3, 4, 2, 2, 2);
  bad += check_rect("rgbq1", 10, 11, 3, 8, 3, 4, 1, 1, 2);  /* stride 1: resnet8's */
  printf("MISMATCHES %d\n", bad);
  return bad != 0;
}
