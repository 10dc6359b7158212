/* Bit-exactness check of the soft-float routines the image links.
 *
 * For each operation, COUNT operand sets from operands.h (seed SEED) and
 * then every combination of the edge values below go through the C
 * operators (so through __addsf3, __mulsf3, ... of the linked library) and
 * fmaf().  The results are summed per block of BLOCK operations:
 *   SF <op> <block> <checksum>      random operands, block by block
 *   SF <op> edge <checksum>         all combinations of the edge values
 *   STATUS OK
 * With -DDUMP=n it also prints the first n operand sets and results of each
 * operation (SFD <op> <i> <a> <b> <c> <result>), to find where a sum differs.
 * The host computes the same sums from IEEE results (NumPy float32,
 * site_scons/ireerv/softfloat/reference.py), with every NaN result written as the
 * RISC-V canonical NaN 0x7fc00000, and names the blocks that differ.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bits.h"
#include "operands.h"

#ifndef COUNT
#define COUNT (1u << 20)
#endif
#ifndef SEED
#define SEED 1u
#endif
#define BLOCK (1u << 16)

#define f float_of
#define u bits_of

/* One operation on operand words a, b, c; noinline keeps each a real call site. */
typedef uint32_t (*op_fn)(uint32_t a, uint32_t b, uint32_t c);
#define NOINLINE __attribute__((noinline))
static NOINLINE uint32_t op_add(uint32_t a, uint32_t b, uint32_t c) { return u(f(a) + f(b)); }
static NOINLINE uint32_t op_sub(uint32_t a, uint32_t b, uint32_t c) { return u(f(a) - f(b)); }
static NOINLINE uint32_t op_mul(uint32_t a, uint32_t b, uint32_t c) { return u(f(a) * f(b)); }
static NOINLINE uint32_t op_div(uint32_t a, uint32_t b, uint32_t c) { return u(f(a) / f(b)); }
static NOINLINE uint32_t op_fma(uint32_t a, uint32_t b, uint32_t c) {
  return u(fmaf(f(a), f(b), f(c)));
}
static NOINLINE uint32_t op_i2f(uint32_t a, uint32_t b, uint32_t c) { return u((float)(int32_t)a); }
static NOINLINE uint32_t op_u2f(uint32_t a, uint32_t b, uint32_t c) { return u((float)a); }
static NOINLINE uint32_t op_f2i(uint32_t a, uint32_t b, uint32_t c) {
  return (uint32_t)(int32_t)f(a);
}
static NOINLINE uint32_t op_f2u(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)f(a); }
static NOINLINE uint32_t op_cmp(uint32_t a, uint32_t b, uint32_t c) {
  float x = f(a), y = f(b);
  return (uint32_t)(x < y) | (uint32_t)(x <= y) << 1 | (uint32_t)(x == y) << 2 |
         (uint32_t)(x > y) << 3 | (uint32_t)(x >= y) << 4 | (uint32_t)(x != y) << 5 |
         (uint32_t)isunordered(x, y) << 6;
}

enum { ADD, SUB, MUL, DIV, FMA, I2F, U2F, F2I, F2U, CMP, OPS };
static const char *const names[OPS] = {"add", "sub", "mul", "div", "fma",
                                       "i2f", "u2f", "f2i", "f2u", "cmp"};
static const op_fn fns[OPS] = {op_add, op_sub, op_mul, op_div, op_fma,
                               op_i2f, op_u2f, op_f2i, op_f2u, op_cmp};

/* The operand words of operation `op` for random set i. */
static void operands(unsigned op, uint32_t i, uint32_t w[3]) {
  uint32_t base = sf_base(SEED, op) + 3u * i;
  uint32_t r1 = sf_mix(base), r2 = sf_mix(base + 1u), r3 = sf_mix(base + 2u);
  w[1] = w[2] = 0;
  switch (op) {
    case I2F: w[0] = (uint32_t)((int32_t)r1 >> (r2 & 31u)); break;
    case U2F: w[0] = r1 >> (r2 & 31u); break;
    case F2I: w[0] = sf_int_range(r1); break;
    case F2U: w[0] = sf_uint_range(r1); break;
    default:
      sf_pair(r1, r2, &w[0], &w[1]);
      w[2] = sf_addend(w[0], w[1], r3);
  }
}

static void check_random(unsigned op) {
  uint32_t w[3], sum = 0;
  for (uint32_t i = 0; i < COUNT; ++i) {
    operands(op, i, w);
    uint32_t r = fns[op](w[0], w[1], w[2]);
    sum += sf_term(r, i);
#ifdef DUMP /* -DDUMP=n: also print the first n operand sets and results */
    if (i < DUMP)
      printf("SFD %s %lu 0x%08lx 0x%08lx 0x%08lx 0x%08lx\n", names[op], (unsigned long)i,
             (unsigned long)w[0], (unsigned long)w[1], (unsigned long)w[2], (unsigned long)r);
#endif
    if ((i + 1u) % BLOCK == 0 || i + 1u == COUNT) {
      printf("SF %s %lu 0x%08lx\n", names[op], (unsigned long)(i / BLOCK), (unsigned long)sum);
      sum = 0;
    }
  }
}

/* Edge values: signed zeros, subnormals, normal limits, infinities, NaNs. */
static const uint32_t edge[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
    0x80800000, 0x00400000, 0x3f800000, 0xbf800000, 0x3f800001, 0x3fffffff, 0x40000000,
    0x3f000000, 0x33800000, 0x34000000, 0x4b800000, 0x7f000000, 0x7f7fffff, 0xff7fffff,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc12345, 0x3eaaaaab,
    0x0c000000, 0x1f800000, 0x5f800000, 0x72800000};
#define EDGES (sizeof(edge) / sizeof(edge[0]))

/* Conversion edges: int32 / uint32 words, and floats in int32 / uint32 range. */
static const uint32_t int_edge[] = {
    0u, 1u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x80000001u, 0x01000001u, 0x01000003u,
    0x7fffffc0u, 0x7fffffbfu, 0x7fffff80u, 0xffffff80u, 0xffffff7fu, 0xffffffc0u, 0x00ffffffu,
    0xff000001u, 0x02000006u, 0x02000002u, 0xfe000002u, 0x0000ffffu};
static const uint32_t f2i_edge[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x3f000000, 0xbf000000, 0x3f7fffff,
    0x3f800000, 0xbf800000, 0x3fc00000, 0xbfc00000, 0x40200000, 0x4effffff, 0xceffffff,
    0xcf000000, 0x4b000001, 0xcb7fffff};
static const uint32_t f2u_edge[] = {0x00000000, 0x80000000, 0x00000001, 0x3f7fffff, 0x3f800000,
                                    0x4f000000, 0x4f7fffff, 0x4effffff, 0x4b800001};
#define LEN(a) (sizeof(a) / sizeof(a[0]))

static void check_edges(unsigned op) {
  uint32_t sum = 0, n = 0;
  const uint32_t *list = edge;
  uint32_t len = EDGES;
  if (op == I2F || op == U2F) list = int_edge, len = LEN(int_edge);
  if (op == F2I) list = f2i_edge, len = LEN(f2i_edge);
  if (op == F2U) list = f2u_edge, len = LEN(f2u_edge);
  uint32_t inner = op >= I2F && op <= F2U ? 1u : len;
  uint32_t third = op == FMA ? len : 1u;
  for (uint32_t i = 0; i < len; ++i)
    for (uint32_t j = 0; j < inner; ++j)
      for (uint32_t k = 0; k < third; ++k, ++n)
        sum += sf_term(fns[op](list[i], list[j], edge[k]), n);
  printf("SF %s edge 0x%08lx\n", names[op], (unsigned long)sum);
}

int main(void) {
  printf("SOFTFLOAT check: %lu random operand sets per operation, seed %lu\n",
         (unsigned long)COUNT, (unsigned long)SEED);
  for (unsigned op = 0; op < OPS; ++op) {
    check_edges(op);
    check_random(op);
  }
  printf("STATUS OK\n");
  return 0;
}
