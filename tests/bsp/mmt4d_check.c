/* The int8 tile of bsp/cluster4-pulp/mmt4d_sdotp.c (MMT4D_SOURCE) on a 64x64x64
 * product in IREE's mmt4d layout (8x8 output tiles, 4 steps of k), data in core
 * 0's scratchpad: its cycles on one hart, then every output against the sums
 * of the bytes, element by element. */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"
#include MMT4D_SOURCE

#define MACS (64 * 64 * 64)
static int8_t lhs[4096] __attribute__((aligned(64))); /* [8][16][8][4] */
static int8_t rhs[4096] __attribute__((aligned(64))); /* [8][16][8][4] */
static int32_t out[4096] __attribute__((aligned(64))); /* [8][8][8][8] */

static int8_t next_byte(uint32_t *state) {
  *state = *state * 1103515245u + 12345u;
  return (int8_t)(*state >> 16);
}

int main(void) {
  uint32_t state = 12345;
  for (int i = 0; i < 4096; ++i) lhs[i] = next_byte(&state);
  for (int i = 0; i < 4096; ++i) rhs[i] = next_byte(&state);
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
  printf("MISMATCHES %d\n", bad);
  return bad != 0;
}
