/* The int8 tile of bsp/cluster4-pulp/mmt4d_sdotp.c (MMT4D_SOURCE) on a 64x64x64
 * product in IREE's mmt4d layout (8x8 output tiles, 4 steps of k), data in core
 * 0's scratchpad: its cycles on one hart, then every output against the sums
 * of the bytes, element by element. */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"
#include MMT4D_SOURCE

#define MACS (64 * 64 * 64)
#define ROW_MACS (128 * 128)
static int8_t lhs[4096] __attribute__((aligned(64))); /* [8][16][8][4] */
static int8_t rhs[16384] __attribute__((aligned(64))); /* [8][16][8][4]; the row's [16][32][8][4] */
static int32_t out[4096] __attribute__((aligned(64))); /* [8][8][8][8] */

static int8_t next_byte(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (int8_t)(*state >> 16);
}

int main(void) {
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) lhs[i] = next_byte(&state);
  for (int i = 0; i < 16384; ++i) rhs[i] = next_byte(&state);
  /* s8s8s32 (0x02), generic fallback allowed (0x200), no intermediate rounding (0x400),
   * as iree-compile passes them. */
  uint64_t start = bsp_cycles();
  iree_uk_mmt4d(lhs, 0, 512, rhs, 0, 512, out, 0, 512, 8, 8, 16, 8, 8, 4, 0x602, 0);
  printf("CYCLES mmt4d %lu for %d MACs\n", (unsigned long)(bsp_cycles() - start), MACS);
  int bad = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < 64; ++n) {
      int32_t sum = 0;
      for (int k = 0; k < 64; ++k)
        sum += lhs[(m / 8) * 512 + (k / 4) * 32 + (m % 8) * 4 + k % 4] *
               rhs[(n / 8) * 512 + (k / 4) * 32 + (n % 8) * 4 + k % 4];
      bad += out[(m / 8) * 512 + (n / 8) * 64 + (m % 8) * 8 + n % 8] != sum;
    }
  /* One row by 128 columns over k = 128: a fully connected layer's vector (1x8x4
   * tiles; lhs [32][1][4], rhs [16][32][8][4], out [16][1][8]). */
  start = bsp_cycles();
  iree_uk_mmt4d(lhs, 0, 128, rhs, 0, 1024, out, 0, 128, 1, 16, 32, 1, 8, 4, 0x602, 0);
  printf("CYCLES row %lu for %d MACs\n", (unsigned long)(bsp_cycles() - start), ROW_MACS);
  for (int n = 0; n < 128; ++n) {
    int32_t sum = 0;
    for (int k = 0; k < 128; ++k) sum += lhs[k] * rhs[(n / 8) * 1024 + (k / 4) * 32 + (n % 8) * 4 + k % 4];
    bad += out[n] != sum;
  }
  printf("MISMATCHES %d\n", bad);
  return bad != 0;
}
