/* Deterministic f32 operands for the soft-float check and bench.
 *
 * Counter-based: operand word k of operation `op` is mix(base(op) + k), so
 * the host computes the very same operands with vectorised NumPy
 * (site_scons/ireerv/softfloat/reference.py mirrors every line here).  The shapes
 * favour the interesting paths: exponents close together (cancellation in
 * add/sub), products and quotients near 1, values near 1, and short
 * mantissas, for which ties in rounding are frequent.
 */
#ifndef SOFTFLOAT_OPERANDS_H
#define SOFTFLOAT_OPERANDS_H

#include <stdint.h>

static inline uint32_t sf_mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

static inline uint32_t sf_base(uint32_t seed, uint32_t op) {
  return seed * 0x9e3779b9u + op * 0x10000000u;
}

static inline uint32_t sf_with_exp(uint32_t x, uint32_t e) {
  return (x & 0x807fffffu) | ((e & 0xffu) << 23);
}

/* Two operands from two random words. */
static inline void sf_pair(uint32_t r1, uint32_t r2, uint32_t *a, uint32_t *b) {
  uint32_t ea = (r1 >> 23) & 0xffu;
  uint32_t d = (r2 >> 23) & 7u; /* exponent offset + 4 */
  uint32_t x = r1, y = r2;
  switch (r2 & 3u) {
    case 0: break;                                         /* anything */
    case 1: y = sf_with_exp(r2, ea + d - 4u); break;       /* close exponents */
    case 2: y = sf_with_exp(r2, 254u - ea + d - 4u); break; /* product near 1 */
    default:                                               /* both near 1 */
      x = sf_with_exp(r1, 119u + ((r1 >> 23) & 15u));
      y = sf_with_exp(r2, 123u + d);
      break;
  }
  if (r2 & 4u) { /* short mantissas: rounding ties are frequent */
    x &= 0xfffff800u;
    y &= 0xfffff800u;
  }
  *a = x;
  *b = y;
}

/* The addend of a fused multiply-add: anything, or close to the product. */
static inline uint32_t sf_addend(uint32_t a, uint32_t b, uint32_t r3) {
  if (r3 & 1u) return r3;
  uint32_t e = ((a >> 23) & 0xffu) + ((b >> 23) & 0xffu) + ((r3 >> 23) & 7u) - 131u;
  return sf_with_exp(r3, e);
}

/* A float in int32 range (|x| < 2^31) and one in uint32 range (0 <= x < 2^32). */
static inline uint32_t sf_int_range(uint32_t r) {
  return sf_with_exp(r, 100u + ((r >> 23) & 0xffu) % 58u);
}
static inline uint32_t sf_uint_range(uint32_t r) {
  return sf_with_exp(r & 0x7fffffffu, 100u + ((r >> 23) & 0xffu) % 59u);
}

/* Checksum term of result `bits` at position `index`. */
static inline uint32_t sf_term(uint32_t bits, uint32_t index) {
  return sf_mix(bits + index * 0x9e3779b9u);
}

#endif /* SOFTFLOAT_OPERANDS_H */
