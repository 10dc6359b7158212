/* fmaf: a correctly rounded f32 fused multiply-add for cores without an FPU.
 *
 * picolibc's soft-float fmaf computes x*y + z with two roundings (wrong in
 * about one case of ten).  This one works on integers: the exact 48-bit
 * product and z's significand are aligned in 64 bits (bits shifted out of
 * the smaller one are kept as a sticky bit), added or subtracted, and the
 * sum is rounded once, to nearest even, subnormal results included.  A NaN
 * result is the canonical NaN 0x7fc00000, as RISC-V's F extension returns.
 * Linked before the C library, this definition replaces its fmaf.
 */
#include <stdint.h>
#include <string.h>

#include "bits.h"

#define SIGN 0x80000000u
#define QNAN 0x7fc00000u
#define INF 0x7f800000u


/* Significand with the hidden bit at bit 23 and its exponent field (1 for subnormals,
 * after normalising them); the operand is finite and not zero. */
static inline uint32_t unpack(uint32_t v, int32_t *e) {
  uint32_t m = v & 0x7fffffu;
  *e = (int32_t)((v >> 23) & 0xffu);
  if (*e) return m | 0x800000u;
  int32_t shift = __builtin_clz(m) - 8;
  *e = 1 - shift;
  return m << shift;
}

/* x >> k, with every bit shifted out or'ed into bit 0. */
static inline uint64_t shift_jam(uint64_t x, int32_t k) {
  if (k <= 0) return x;
  if (k >= 63) return x != 0;
  return (x >> k) | ((x << (64 - k)) != 0);
}

/* Round sign * r * 2^e (r != 0) to float, nearest even. */
static uint32_t round_pack(uint32_t sign, uint64_t r, int32_t e) {
  int32_t top = 63 - __builtin_clzll(r);
  int32_t field = top + e + 127; /* biased exponent of the leading bit */
  int32_t shift = top - 23;
  if (field < 1) shift += 1 - field; /* subnormal: fewer bits */
  uint32_t m;
  if (shift <= 0) {
    m = (uint32_t)(r << -shift); /* exact */
  } else {
    if (shift >= 63) return sign;
    uint64_t rem = r & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    m = (uint32_t)(r >> shift);
    m += rem > half || (rem == half && (m & 1u));
  }
  uint32_t out = field < 1 ? m : ((uint32_t)(field - 1) << 23) + m;
  return out >= INF ? sign | INF : sign | out;
}

float fmaf(float x, float y, float z) {
  uint32_t a = bits_of(x), b = bits_of(y), c = bits_of(z);
  uint32_t sp = (a ^ b) & SIGN, sc = c & SIGN;
  uint32_t aa = a & ~SIGN, ab = b & ~SIGN, ac = c & ~SIGN;
  if (aa >= INF || ab >= INF || ac >= INF) {
    if (aa > INF || ab > INF || ac > INF) return float_of(QNAN);
    if (aa == INF || ab == INF) {
      if (aa == 0 || ab == 0 || (ac == INF && sc != sp)) return float_of(QNAN);
      return float_of(sp | INF);
    }
    return z; /* z infinite, the product finite */
  }
  if (aa == 0 || ab == 0) return ac == 0 ? float_of(sp & sc) : z; /* +0 unless both -0 */
  int32_t ea, eb, ec;
  uint32_t ma = unpack(a, &ea), mb = unpack(b, &eb);
  /* Product: top bit at 59 or 60; value = P * 2^ep. */
  uint64_t big = ((uint64_t)ma * mb) << 13;
  int32_t ep = ea + eb - 300 - 13;
  if (ac == 0) return float_of(round_pack(sp, big, ep));
  uint64_t small = (uint64_t)unpack(c, &ec) << 37; /* top bit at 60 */
  int32_t e = ec - 150 - 37;
  uint32_t sign = sp;
  if (e > ep) { /* z's leading bit is higher: it leads */
    uint64_t t = big;
    big = small, small = t;
    int32_t te = ep;
    ep = e, e = te;
    sign = sc;
  }
  small = shift_jam(small, ep - e);
  uint64_t r;
  if (sp == sc) {
    r = big + small;
  } else if (big >= small) {
    r = big - small;
  } else {
    r = small - big;
    sign ^= SIGN;
  }
  if (r == 0) return float_of(0); /* exact cancellation: +0 */
  return float_of(round_pack(sign, r, ep));
}
