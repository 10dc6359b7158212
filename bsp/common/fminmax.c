/* fmaximumf and fminimumf (C23, IEEE 754-2019 maximum/minimum: a NaN operand
 * gives NaN, -0 is below +0).  Compiled kernels call them for float max/min
 * with NaN propagation (a softmax's max, a ReLU folded into a reduction);
 * picolibc 1.8 predates them. */
#include <math.h>

float fmaximumf(float x, float y) {
  if (isnan(x) || isnan(y)) return x + y;
  if (x == y) return signbit(x) ? y : x; /* +0 over -0 */
  return x > y ? x : y;
}

float fminimumf(float x, float y) {
  if (isnan(x) || isnan(y)) return x + y;
  if (x == y) return signbit(x) ? x : y; /* -0 under +0 */
  return x < y ? x : y;
}
