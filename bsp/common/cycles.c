/* The cycle counter of every board so far: the core's own 64-bit mcycle.
 * No bus access (on the cluster, the testbench's global counter is 32 bits
 * and costs a trip through the shared path).  Start-up clears mcountinhibit,
 * so it counts every cycle; on QEMU with -icount shift=0, every instruction. */
#include <stdint.h>

#include "bsp_cycles.h"

uint64_t bsp_cycles(void) {
  uint32_t hi, lo, again;
  do { /* re-read when the low word carried into the high one */
    __asm__ volatile("csrr %0, mcycleh" : "=r"(hi));
    __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
    __asm__ volatile("csrr %0, mcycleh" : "=r"(again));
  } while (hi != again);
  return ((uint64_t)hi << 32) | lo;
}
