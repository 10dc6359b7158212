/* The end of a run whose team barrier timed out (bsp.h): one line on the
 * console, then the exit device.  No stdio: the harts that did arrive may
 * be anywhere, and the heap and stdio have no locks. */
#include <stdint.h>

#include "bsp.h"
#include "bsp_decimal.h"

static void put_str(const char *s) {
  while (*s) bsp_putc(*s++);
}

static void put_u32(uint32_t value) {
  char digits[10];
  int n = 0;
  BSP_DECIMAL_DIGITS32(value, digits, n);
  while (n) bsp_putc(digits[--n]);
}

_Noreturn void __bsp_barrier_expired(unsigned harts, uint32_t missing, uint32_t ticks) {
  put_str("\nBSP BARRIER TIMEOUT: ");
  if (missing) {
    put_str("hart");
    for (unsigned h = 0; h < harts; ++h) {
      if (missing & (1u << h)) {
        bsp_putc(' ');
        put_u32(h);
      }
    }
    put_str(" never reached");
  } else {
    put_str("not every hart reached");
  }
  put_str(" the barrier of harts 0-");
  put_u32(harts - 1);
  put_str(" within ");
  put_u32(ticks);
  put_str(" ticks\n");
  bsp_exit(BSP_EXIT_BARRIER_TIMEOUT);
}
