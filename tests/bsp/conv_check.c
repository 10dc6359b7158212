/* The int8 convolution of bsp/cluster4-pulp/conv_sdotp.c (CONV_SOURCE) on one
 * hart, data in core 0's scratchpad: each case's cycles, then every sum against
 * the sums of the bytes.  The cases are the kinds iree-data-tiling.mlir hands
 * it: 3x3 of stride 1 and 2, 1x1 of stride 2, a first layer's 4 channels, rows
 * of outputs not a multiple of the tile's 4, and a stride times channels the
 * 4x4 tile has no copy for (one output at a time). */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"
#include CONV_SOURCE

static int8_t input[17 * 17 * 16] __attribute__((aligned(64)));
static int8_t weights[32 * 9 * 32] __attribute__((aligned(64)));
static int32_t sums[10 * 10 * 32] __attribute__((aligned(64)));

static int8_t next_byte(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (int8_t)(*state >> 16);
}

/* Filter f's weight at (kh, kw, c) in the kernel's blocks of 4 filters. */
static int32_t weight(int f, int kh, int kw, int c, int k, int channels) {
  const int words = k * k * channels / 4;
  return weights[(f / 4) * words * 16 + ((kh * k + kw) * (channels / 4) + c / 4) * 16 +
                 (f % 4) * 4 + c % 4];
}

/* One case: an in x in x c input, f filters of k x k, stride s; returns mismatches. */
static int check(const char *name, int in, int c, int f, int k, int s) {
  const int out = (in - k) / s + 1, fill = -77;
  uint64_t start = bsp_cycles();
  for (int row = 0; row < out; ++row)
    ireerv_conv_s8(input, 0, weights, 0, sums, 0, in, c, out, f, k, k, s, fill, row);
  printf("CYCLES %s %lu for %d MACs\n", name, (unsigned long)(bsp_cycles() - start),
         out * out * f * k * k * c);
  int bad = 0;
  for (int y = 0; y < out; ++y)
    for (int x = 0; x < out; ++x)
      for (int g = 0; g < f; ++g) {
        int32_t sum = fill;
        for (int kh = 0; kh < k; ++kh)
          for (int kw = 0; kw < k; ++kw)
            for (int ch = 0; ch < c; ++ch)
              sum += input[((y * s + kh) * in + x * s + kw) * c + ch] * weight(g, kh, kw, ch, k, c);
        bad += sums[(y * out + x) * f + g] != sum;
      }
  return bad;
}

int main(void) {
  uint32_t state = 12345;
  for (unsigned i = 0; i < sizeof input; ++i) input[i] = next_byte(&state);
  for (unsigned i = 0; i < sizeof weights; ++i) weights[i] = next_byte(&state);
  int bad = check("3x3", 10, 32, 16, 3, 1);
  bad += check("3x3s2", 17, 16, 32, 3, 2);
  bad += check("rows", 11, 16, 8, 3, 1);    /* 9 outputs a row: two tiles and one */
  bad += check("1x1s2", 11, 32, 8, 1, 2);
  bad += check("first", 12, 4, 8, 3, 1);
  bad += check("other", 8, 12, 4, 3, 1);     /* 12 bytes apart: one output at a time */
  printf("MISMATCHES %d\n", bad);
  return bad != 0;
}
