/* Soft-float micro-benchmark: cycles per call of each f32 operation.
 *
 * Each operation runs as a loop of N calls over fixed operands (operands.h,
 * seed 1) held in the running hart's own memory; the same loop with an
 * integer operation instead of the call is the baseline, so
 *   per call = (cycles of the loop - cycles of the baseline) / N.
 * Operand sets: "normal" (normal values, results mostly normal) and
 * "special" (subnormals, zeros, infinities, NaN mixed with normals).
 * On QEMU with -icount the counter counts instructions.
 *
 * Output:
 *   SFB <set> <op> <loop cycles> <baseline cycles> <calls>
 *   SFH <harts> <slowest hart's cycles> <calls per hart>   multiply-add loop
 *   STATUS OK
 * For SFH every hart runs the same multiply-add loop on its own copy of the
 * operands (on the cluster: in its own scratchpad, as its stack); harts
 * other than 0 are woken once with bsp_wake_harts().  Not on qemu-virt: with
 * -icount it counts instructions on one clock, and its parked harts stay
 * asleep.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bsp.h"
#include "operands.h"

#define N 64
#define NOINLINE __attribute__((noinline))
#define HART_REPEAT 16

typedef struct {
  float a[N], b[N], c[N], out[N];
  int32_t ia[N], io[N];
} set_t;

static NOINLINE void loop_base(set_t *s) {
  for (int i = 0; i < N; ++i) s->io[i] = s->ia[i] ^ (int32_t)i;
}
static NOINLINE void loop_add(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = s->a[i] + s->b[i];
}
static NOINLINE void loop_sub(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = s->a[i] - s->b[i];
}
static NOINLINE void loop_mul(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = s->a[i] * s->b[i];
}
static NOINLINE void loop_div(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = s->a[i] / s->b[i];
}
static NOINLINE void loop_madd(set_t *s) { /* two calls: __mulsf3 then __addsf3 */
  for (int i = 0; i < N; ++i) s->out[i] = s->a[i] * s->b[i] + s->c[i];
}
float fmaf(float, float, float);
static NOINLINE void loop_fma(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = fmaf(s->a[i], s->b[i], s->c[i]);
}
static NOINLINE void loop_i2f(set_t *s) {
  for (int i = 0; i < N; ++i) s->out[i] = (float)s->ia[i];
}
static NOINLINE void loop_f2i(set_t *s) {
  for (int i = 0; i < N; ++i) s->io[i] = (int32_t)s->a[i];
}
static NOINLINE void loop_lt(set_t *s) {
  for (int i = 0; i < N; ++i) s->io[i] = s->a[i] < s->b[i];
}
static NOINLINE void loop_eq(set_t *s) {
  for (int i = 0; i < N; ++i) s->io[i] = s->a[i] == s->b[i];
}

static const struct {
  const char *name;
  void (*loop)(set_t *);
} ops[] = {{"add", loop_add}, {"sub", loop_sub}, {"mul", loop_mul}, {"div", loop_div},
           {"madd", loop_madd}, {"fma", loop_fma}, {"i2f", loop_i2f}, {"f2i", loop_f2i},
           {"lt", loop_lt}, {"eq", loop_eq}};
#define OPS (sizeof(ops) / sizeof(ops[0]))

static const uint32_t specials[8] = {0x00000001, 0x807fffff, 0x7f800000, 0xff800000,
                                     0x7fc00000, 0x00000000, 0x80000000, 0x00400000};

static inline float f(uint32_t bits) {
  float x;
  memcpy(&x, &bits, sizeof(x));
  return x;
}

/* Normal values in [2^-7, 2^9) with either sign; ints of 16 to 32 bits;
 * the special set puts a special value in a, and in b and c every other time. */
static void fill(set_t *s, int special) {
  for (uint32_t i = 0; i < N; ++i) {
    uint32_t r1 = sf_mix(4u * i), r2 = sf_mix(4u * i + 1u), r3 = sf_mix(4u * i + 2u);
    uint32_t r4 = sf_mix(4u * i + 3u);
    uint32_t a = sf_with_exp(r1, 120u + ((r1 >> 23) & 15u));
    uint32_t b = sf_with_exp(r2, 120u + ((r2 >> 23) & 15u));
    uint32_t c = sf_with_exp(r3, 120u + ((r3 >> 23) & 15u));
    int32_t ia = (int32_t)r4 >> (r1 & 15u);
    if (special) {
      a = specials[i % 8u];
      if (i & 1u) b = specials[(i / 2u) % 8u], c = specials[(i / 4u) % 8u];
      ia = (int32_t)(r4 & 0xffu) - 128; /* exact: no rounding */
    }
    s->a[i] = f(a), s->b[i] = f(b), s->c[i] = f(c), s->ia[i] = ia;
  }
}

static uint32_t timed(void (*loop)(set_t *), set_t *s, int repeat) {
  loop(s); /* once untimed */
  uint64_t begin = bsp_cycles();
  for (int r = 0; r < repeat; ++r) loop(s);
  return (uint32_t)(bsp_cycles() - begin);
}

static void bench_set(const char *name, int special) {
  set_t s;
  fill(&s, special);
  uint32_t base = timed(loop_base, &s, 1);
  for (unsigned k = 0; k < OPS; ++k) {
    uint32_t cycles = timed(ops[k].loop, &s, 1);
    printf("SFB %s %s %lu %lu %d\n", name, ops[k].name, (unsigned long)cycles,
           (unsigned long)base, N);
  }
}

/* -- several harts ------------------------------------------------------------------ */

static volatile uint32_t hart_cycles[BSP_HARTS];

static void hart_entry(unsigned hart, void *arg) {
  set_t s; /* on this hart's own stack */
  fill(&s, 0);
  hart_cycles[hart] = timed(loop_madd, &s, HART_REPEAT);
}

#ifdef BSP_MEM_SPM0_ORIGIN
/* Hart h's stack is its whole scratchpad: they follow spm0 at a stride of its length. */
#define HART_STACKS ((void *)(BSP_MEM_SPM0_ORIGIN + BSP_MEM_SPM0_LENGTH))
#define HART_STACK_SIZE BSP_MEM_SPM0_LENGTH
#else
#define HART_STACK_SIZE 0x4000
static uint8_t hart_stacks[(BSP_HARTS - 1) * HART_STACK_SIZE] __attribute__((aligned(16)));
#define HART_STACKS ((void *)hart_stacks)
#endif

static void bench_harts(void) {
  set_t s;
  fill(&s, 0);
  uint32_t one = timed(loop_madd, &s, HART_REPEAT);
  printf("SFH 1 %lu %d\n", (unsigned long)one, N * HART_REPEAT);
  if (bsp_wake_harts(hart_entry, NULL, HART_STACKS, HART_STACK_SIZE) < 0) {
    printf("STATUS ERROR bsp_wake_harts\n");
    return;
  }
  hart_entry(0, NULL);
  uint32_t slowest = 0;
  for (unsigned h = 0; h < BSP_HARTS; ++h) {
    while (h && bsp_hart_state(h) != 2) {
      /* Poll rarely: a divide takes many cycles, but one instruction fetch. */
      for (unsigned k = 0; k < 16; ++k) __asm__ volatile("divu zero, %0, %0" ::"r"(h + 1u));
    }
    if (hart_cycles[h] > slowest) slowest = hart_cycles[h];
  }
  printf("SFH %d %lu %d\n", BSP_HARTS, (unsigned long)slowest, N * HART_REPEAT);
}

int main(void) {
  bench_set("normal", 0);
  bench_set("special", 1);
#ifndef BSP_BOARD_QEMU_VIRT /* QEMU with -icount does not wake parked harts (one clock) */
  bench_harts();
#endif
  printf("STATUS OK\n");
  return 0;
}
