/* Plain C f32 matmul, C = A x B with N x N matrices: the reference work's
 * comparison point for the IREE matmul.  No IREE, only the BSP.
 *
 * Build with -DMATMUL_N=4|16|32|64 (default 4).  With
 * -DMATMUL_INPUTS="file.h" the inputs come from that header, which defines
 * MATMUL_INPUTS_N and the arrays matmul_lhs[N*N] and matmul_rhs[N*N]
 * (row-major floats; the build generates it from models/matmul so both
 * versions compute on the same numbers).  Without it, the inputs are small
 * whole numbers computed here, so every sum is exact in f32.
 *
 * With -DMATMUL_HARTS=2..BSP_HARTS (RUNTIME=none HARTS=n) the rows are shared
 * out over that many harts in contiguous blocks, sizes differing by at most
 * one: harts 1..n-1 are woken once (bsp_wake_harts) and then each call is
 * a barrier (hart 0 releases the team), every hart's block, a barrier (hart
 * 0 waits for all); waiting harts sleep in wfi.  All data stays where the
 * board puts it (on the cluster core 0's scratchpad, which harts 1..n-1
 * reach only over the shared path: bsp/README.md, the scratchpad rule).
 * The per-element loop is the one-hart loop, so the bits are the same.
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
#if defined(MATMUL_HARTS) && MATMUL_HARTS > 1
#define MATMUL_TEAM 1
#include "bsp.h"
#endif

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

#ifndef MATMUL_TEAM
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
#endif

#ifdef MATMUL_TEAM
#if MATMUL_HARTS > BSP_HARTS
#error "MATMUL_HARTS exceeds the board's hart count"
#endif
#define STACK_SIZE 2048
static unsigned char stacks[(BSP_HARTS - 1) * STACK_SIZE] __attribute__((aligned(16)));
static volatile int team_ready;

/* Rows [N*hart/H, N*(hart+1)/H) of the result. */
__attribute__((noinline)) static void matmul_rows(const float *a, const float *b, float *c,
                                                  unsigned hart) {
  const int begin = (int)(N * hart / MATMUL_HARTS), end = (int)(N * (hart + 1) / MATMUL_HARTS);
  for (int i = begin; i < end; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < N; ++k) sum += a[i * N + k] * b[k * N + j];
      c[i * N + j] = sum;
    }
  }
}

static void worker(unsigned hart, void *arg) {
  (void)arg;
  if (hart >= MATMUL_HARTS) return; /* not in the team: parks for good */
  while (!team_ready) {
  }
  for (;;) {
    bsp_barrier_wait(); /* a call has started */
    matmul_rows(lhs, rhs, result, hart);
    bsp_barrier_wait(); /* every block is done */
  }
}

static int start_team(void) {
  if (bsp_wake_harts(worker, NULL, stacks, STACK_SIZE) < 0) return -1;
  bsp_barrier_setup(MATMUL_HARTS);
  __asm__ volatile("fence rw, rw" ::: "memory");
  team_ready = 1;
  return 0;
}

/* noinline: the timed region is exactly this call. */
__attribute__((noinline)) static void matmul_shared(void) {
  bsp_barrier_wait();
  matmul_rows(lhs, rhs, result, 0);
  bsp_barrier_wait();
}
#define MATMUL_CALL() matmul_shared()
#else /* one hart */
#define MATMUL_CALL() matmul(lhs, rhs, result)
#endif

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
#ifdef MATMUL_TEAM
  if (start_team() < 0) {
    printf("STATUS cannot wake the harts\n");
    return 1;
  }
#endif
  uint64_t begin = bsp_cycles();
  uint64_t end = bsp_cycles();
  print_cycles("startup", -1, end - begin);

  begin = bsp_cycles();
  load_inputs();
  end = bsp_cycles();
  print_cycles("inputs", -1, end - begin);

  for (int i = 0; i < MATMUL_REPEAT; ++i) {
    begin = bsp_cycles();
    MATMUL_CALL();
    end = bsp_cycles();
    print_cycles("call", i, end - begin);
  }
  print_output();
  printf("STATUS OK\n");
  return 0;
}
