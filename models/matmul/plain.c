/* Plain C f32 matmul, C = A x B with N x N matrices: the reference work's
 * comparison point for the IREE matmul.  No IREE, only the BSP.
 *
 * Build with -DMATMUL_N=4|16|32 (default 4).  With
 * -DMATMUL_INPUTS="file.h" the inputs come from that header, which defines
 * MATMUL_INPUTS_N and the arrays matmul_lhs[N*N] and matmul_rhs[N*N]
 * (row-major floats; the build generates it from models/matmul so both
 * versions compute on the same numbers).  Without it, the inputs are small
 * whole numbers computed here, so every sum is exact in f32.
 *
 * Output, in the runner's format (runtime/runner/runner.c):
 *   CYCLES startup <n>    nothing to set up: the cost of two counter reads
 *   CYCLES inputs <n>     copying the inputs into the working arrays
 *   CYCLES call <i> <n>   one matmul (zero fill + triple loop)
 *   OUTPUT 0 f32 NxN: <hex bits of each element>
 *   STATUS OK
 * Only integer formatting is used, so an integer-only printf suffices.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bsp_cycles.h"

#ifndef MATMUL_N
#define MATMUL_N 4
#endif
#ifndef MATMUL_REPEAT
#define MATMUL_REPEAT 1
#endif
#define N MATMUL_N

#ifdef MATMUL_INPUTS
#include MATMUL_INPUTS
#if MATMUL_INPUTS_N != MATMUL_N
#error "MATMUL_INPUTS holds inputs of another size than MATMUL_N"
#endif
#endif

static float lhs[N * N];
static float rhs[N * N];
static float result[N * N];

static void load_inputs(void) {
#ifdef MATMUL_INPUTS
  memcpy(lhs, matmul_lhs, sizeof(lhs));
  memcpy(rhs, matmul_rhs, sizeof(rhs));
#else
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      lhs[i * N + j] = (float)((i + 2 * j) % 9 - 4);
      rhs[i * N + j] = (float)((3 * i + j) % 9 - 4);
    }
  }
#endif
}

/* noinline: the timed region is exactly this call. */
__attribute__((noinline)) static void matmul(const float *a, const float *b, float *c) {
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < N; ++k) sum += a[i * N + k] * b[k * N + j];
      c[i * N + j] = sum;
    }
  }
}

static void print_cycles(const char *what, int index, uint64_t cycles) {
  if (index >= 0) {
    printf("CYCLES %s %d %lu\n", what, index, (unsigned long)cycles);
  } else {
    printf("CYCLES %s %lu\n", what, (unsigned long)cycles);
  }
}

static void print_output(void) {
  printf("OUTPUT 0 f32 %dx%d:", N, N);
  for (int i = 0; i < N * N; ++i) {
    uint32_t bits;
    memcpy(&bits, &result[i], sizeof(bits));
    printf(" 0x%08lx", (unsigned long)bits);
  }
  printf("\n");
}

int main(void) {
  uint64_t begin = bsp_cycles();
  uint64_t end = bsp_cycles();
  print_cycles("startup", -1, end - begin);

  begin = bsp_cycles();
  load_inputs();
  end = bsp_cycles();
  print_cycles("inputs", -1, end - begin);

  for (int i = 0; i < MATMUL_REPEAT; ++i) {
    begin = bsp_cycles();
    matmul(lhs, rhs, result);
    end = bsp_cycles();
    print_cycles("call", i, end - begin);
  }
  print_output();
  printf("STATUS OK\n");
  return 0;
}
