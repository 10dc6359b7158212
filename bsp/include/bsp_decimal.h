/* Decimal numbers for the console: the digits of an unsigned value, least
 * significant first, for the runner and the BSP alike.  One width each, so
 * that a 32-bit count pays for no 64-bit arithmetic. */
#ifndef BSP_DECIMAL_H
#define BSP_DECIMAL_H

#include <stdint.h>

/* Writes the decimal digits of `value`, a uint32_t variable, to `digits`
 * (room for 10) from index `count` on, least significant first, counting
 * them in `count` (an int variable) and leaving `value` 0.  A statement: the
 * BSP is built without optimisation, where a function would copy its
 * arguments. */
#define BSP_DECIMAL_DIGITS32(value, digits, count)     \
  do {                                                 \
    (digits)[(count)++] = (char)('0' + (value) % 10); \
    (value) /= 10;                                     \
  } while (value)

/* Divides *value by 10 in 16-bit steps, each of which fits 32 bits, so rv32's
 * divu does it and libgcc's 64-bit division (__udivdi3, __umoddi3: 2 KiB)
 * stays out; returns the remainder. */
static inline __attribute__((always_inline)) uint32_t bsp_div10_64(
    uint64_t *value) {
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
 * significant first, and returns how many. */
static inline __attribute__((always_inline)) int bsp_decimal_digits64(
    uint64_t value, char *digits) {
  int count = 0;
  do {
    digits[count++] = (char)('0' + bsp_div10_64(&value));
  } while (value);
  return count;
}

#endif /* BSP_DECIMAL_H */
