/* An f32's bit pattern and back, without aliasing problems (compiles to moves). */
#ifndef SOFTFLOAT_BITS_H
#define SOFTFLOAT_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t bits_of(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof(b));
  return b;
}

static inline float float_of(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof(x));
  return x;
}

#endif /* SOFTFLOAT_BITS_H */
