/* Decimal numbers without libgcc's 64-bit division: the one way the runner
 * and the BSP print them. */
#ifndef BSP_DECIMAL_H
#define BSP_DECIMAL_H

#include <stdint.h>

/* Divides *value by 10 in 16-bit steps, each of which fits 32 bits, so rv32's
 * divu does it and __udivdi3/__umoddi3 (2 KiB) stay out; returns the
 * remainder. */
static inline __attribute__((always_inline)) uint32_t bsp_div10(uint64_t *value) {
  uint32_t remainder = 0;
  uint64_t quotient = 0;
  for (int shift = 48; shift >= 0; shift -= 16) {
    const uint32_t part = (remainder << 16) | (uint32_t)((*value >> shift) & 0xFFFF);
    quotient |= (uint64_t)(part / 10) << shift;
    remainder = part % 10;
  }
  *value = quotient;
  return remainder;
}

/* Writes the decimal digits of `value` to `digits` (room for 20), least
 * significant first, and returns how many.  Always inlined: the BSP is built
 * for size, where a call would cost more than the loop. */
static inline __attribute__((always_inline)) int bsp_decimal_digits(uint64_t value, char *digits) {
  int count = 0;
  do {
    digits[count++] = (char)('0' + bsp_div10(&value));
  } while (value);
  return count;
}

#endif /* BSP_DECIMAL_H */
