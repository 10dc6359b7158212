/* The int8 depthwise convolution of bsp/cluster4-pulp/depthwise_q8.c
 * (DEPTHWISE_SOURCE) on one hart, data in core 0's scratchpad: each case's
 * cycles, then every output against the reference's, requantised with columns
 * of formats/requant_generic.py as that module's `compute` does.  The cases are
 * the kinds iree-data-tiling.mlir hands it: 3x3 of stride 1 (rows of kws's 5
 * outputs, and of 3 and 7: every remainder of the unrolled loop) and of stride
 * 2, prescaled or not, and a 1x1 window (the general loop); one output row a call,
 * and rows in groups. */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"
#include DEPTHWISE_SOURCE

static int8_t input[12 * 7 * 64] __attribute__((aligned(64)));  /* kws5 the largest */
static int8_t weights[9 * 64] __attribute__((aligned(64)));
static int8_t bytes[10 * 10 * 64] __attribute__((aligned(64)));
static int32_t table[64 * DW_COLUMNS];
static int32_t columns[64 * COLUMNS];  /* requant_q8.h's, the reference's */

static int8_t next_byte(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (int8_t)(*state >> 16);
}

/* requant_generic.compute for channel g's columns: the sum from fill plus the bias,
 * shifted by the prescaled layer's pre, plus its biases. */
static int32_t compute(int32_t x, int g) {
  const int32_t *t = columns + g * COLUMNS;
  x = (int32_t)((uint32_t)(x + t[BIAS]) << t[PRE]) + t[BIASES];
  int64_t wide = (int64_t)(x * (t[LEFTS] ? 4 : 1)) * t[MULTIPLIERS];
  int32_t total = (int32_t)(wide >> 32) + t[NUDGES];
  if (t[SIGNS]) total += 2 * (x >> 31);
  int32_t r = (total >> t[SHIFTS]) + t[AFTER];
  return r < t[LOW] ? t[LOW] : r > t[HIGH] ? t[HIGH] : r;
}

/* A channel's row of the kernel's table from its columns t and its 3x3 filter w (rows
 * c bytes apart, or NULL), as iree-data-tiling.mlir's @ireerv_dw_table makes it. */
static void pack(int32_t *row, const int32_t *t, const int8_t *w, int c, int32_t fill) {
  for (int r = 0; r < 3; ++r) {
    uint32_t word = 0;
    for (int j = 0; w && j < 3; ++j) word = word << 8 | (uint8_t)w[(r * 3 + j) * c];
    row[ROW0 + r] = (int32_t)word;
  }
  const int signed_ = t[SIGNS] != 0;
  const int32_t biased = (int32_t)((uint32_t)(fill + t[BIAS]) << t[PRE]) + t[BIASES];
  row[DW_M] = t[MULTIPLIERS];
  row[DW_NUDGE] = t[NUDGES];
  row[DW_SHIFT] = t[SHIFTS] | (signed_ ? t[PRE] : t[PRE] + t[LEFTS]) << 8;
  row[DW_BASE] = signed_ ? biased : (int32_t)((uint32_t)biased << t[LEFTS]);
  row[DW_MODE] = (int32_t)((uint32_t)(t[LOW] & 255) | (uint32_t)(t[HIGH] & 255) << 8 |
                           (uint32_t)(t[AFTER] & 255) << 16 | (signed_ ? DW_SIGNED : 0) |
                           (uint32_t)t[LEFTS] << 24);
}

/* Columns for c channels: a bias or a prescaled layer's biases and pre (every
 * `scaled`th channel), the left shift 2, multipliers of 2^30 and more, the sign
 * term on every other channel, nudges of 1 + 2^e, shifts 1 + e, clamps of a ReLU
 * or of int8; for k x k windows of 3, the filter's rows as words (bytes w[2], w[1],
 * w[0], 0), as iree-data-tiling.mlir makes them. */
static void make_table(int c, int k, int scaled, int32_t fill, uint32_t *state) {
  for (int g = 0; g < c; ++g) {
    const int e = 8 + g % 6, zp = (g % 3) * 5 - 5;
    int32_t *t = columns + g * COLUMNS;
    const int prescaled = scaled && g % scaled == 0;
    t[BIAS] = prescaled ? 0 : next_byte(state) * 37;
    t[BIASES] = prescaled ? next_byte(state) * 300 : 0;
    t[PRE] = prescaled ? 2 + g % 3 : 0;
    t[LEFTS] = prescaled ? 0 : 2;
    t[MULTIPLIERS] = (int32_t)(0x40000000u + (uint32_t)next_byte(state) * 0x100000u);
    t[SIGNS] = g % 2 ? 0 : -1;
    t[NUDGES] = 1 + (1 << e) + (g % 4 ? 0 : zp * (2 << e));
    t[SHIFTS] = 1 + e;
    /* Every third channel from the second clamps to int8 with no constant after the
     * shift (the networks' layers: the kernel's cv.clip loop). */
    const int clipped = g % 3 == 1;
    t[AFTER] = g % 4 && !clipped ? zp : 0;
    t[LOW] = g % 2 && !clipped ? zp : -128;
    t[HIGH] = 127;
    pack(table + g * DW_COLUMNS, t, k == 3 ? weights + g : NULL, c, fill);
  }
}

/* One case: an ih x iw x c input, k x k windows, stride s, `group` output rows a call;
 * returns mismatches. */
static int check_rows(const char *name, int ih, int iw, int c, int k, int s, int scaled,
                      int group) {
  const int oh = (ih - k) / s + 1, ow = (iw - k) / s + 1, fill = -77;
  uint32_t state = 777;
  make_table(c, k, scaled, fill, &state);
  uint64_t start = bsp_cycles();
  for (int row = 0; row < oh / group; ++row)
    ireerv_dw_q8(input, 0, weights, 0, table, 0, bytes, 0, iw, c, ow, k, k, s, s, group,
                 (group - 1) * s + k, fill, (size_t)(k * k * c), row);
  printf("CYCLES %s %lu for %d MACs\n", name, (unsigned long)(bsp_cycles() - start),
         oh * ow * c * k * k);
  int bad = 0;
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x)
      for (int g = 0; g < c; ++g) {
        int32_t sum = fill;
        for (int r = 0; r < k; ++r)
          for (int j = 0; j < k; ++j)
            sum += input[((y * s + r) * iw + x * s + j) * c + g] * weights[(r * k + j) * c + g];
        bad += bytes[(y * ow + x) * c + g] != (int8_t)compute(sum, g);
      }
  return bad;
}

/* A case of one output row a call. */
static int check(const char *name, int ih, int iw, int c, int k, int s, int scaled) {
  return check_rows(name, ih, iw, c, k, s, scaled, 1);
}

int main(void) {
  uint32_t state = 12345;
  for (unsigned i = 0; i < sizeof input; ++i) input[i] = next_byte(&state);
  for (unsigned i = 0; i < sizeof weights; ++i) weights[i] = next_byte(&state);
  int bad = check("kws", 9, 7, 64, 3, 1, 1);     /* rows of 5, like kws's */
  bad += check("s1", 10, 10, 16, 3, 1, 0);      /* rows of 8: 3 + 3 + 2 */
  bad += check("odd", 6, 9, 12, 3, 1, 3);       /* rows of 7: 3 + 3 + 1 */
  bad += check("s2", 13, 13, 16, 3, 2, 2);      /* rows of 6 */
  bad += check("s2odd", 11, 15, 8, 3, 2, 0);    /* rows of 7 */
  bad += check("one", 8, 8, 8, 1, 1, 2);        /* a 1x1 window: the general loop */
  /* Rows in groups, as the spec hands kws's: 2 calls of 5 rows of 5; 2 of 3 rows of 6 at
   * stride 2; 2 of 4 rows of the general loop. */
  bad += check_rows("kws5", 12, 7, 64, 3, 1, 1, 5);
  bad += check_rows("s2by3", 13, 13, 16, 3, 2, 2, 3);
  bad += check_rows("oneby4", 8, 8, 8, 1, 1, 2, 4);
  printf("MISMATCHES %d\n", bad);
  return bad != 0;
}
