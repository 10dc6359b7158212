/* Decimal numbers for the console, without libgcc's 64-bit division. */
#include "bsp.h"

/* Divides *value by 10 in 16-bit steps, each of which fits 32 bits, so rv32's
 * divu does it and __udivdi3/__umoddi3 (2 KiB) stay out; returns the
 * remainder. */
static uint32_t div10(uint64_t *value) {
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

char *bsp_format_u64(char *at, uint64_t value) {
  char digits[20];
  int count = 0;
  do {
    digits[count++] = (char)('0' + div10(&value));
  } while (value);
  while (count) *at++ = digits[--count];
  return at;
}
