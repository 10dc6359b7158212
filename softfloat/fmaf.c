/* fmaf: a correctly rounded f32 fused multiply-add for cores without an FPU.
 *
 * picolibc's soft-float fmaf computes x*y + z with two roundings (wrong in
 * about one case of ten).  Here the product of two floats is exact in
 * double (48 significant bits); the sum with z is rounded in double and its
 * rounding error recovered exactly (TwoSum); when the sum was inexact it is
 * made odd ("round to odd"), so the final rounding to float, 29 bits
 * further down, is the single correct round-to-nearest-even rounding.
 * Subnormal results are included (double's range holds every exact result);
 * a NaN result is the canonical NaN, as the double-to-float conversion gives.
 * Linked before the C library, this definition replaces its fmaf.
 */
#include <stdint.h>
#include <string.h>

float fmaf(float x, float y, float z) {
  double p = (double)x * (double)y; /* exact */
  double c = (double)z;
  double s = p + c;
  uint64_t bits;
  memcpy(&bits, &s, sizeof(bits));
  if (((bits >> 52) & 0x7ffu) == 0x7ffu) return (float)s; /* inf or NaN */
  double pp = s - c;
  double err = (p - pp) + (c - (s - pp)); /* s + err == p + c exactly */
  if (err != 0.0 && (bits & 1u) == 0) {
    /* Round to odd: one unit toward the exact value. */
    bits += ((err > 0.0) == (s > 0.0)) ? 1 : (uint64_t)-1;
    memcpy(&s, &bits, sizeof(s));
  }
  return (float)s;
}
