/* The board's cycle counter. */
#ifndef BSP_CYCLES_H
#define BSP_CYCLES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cycles since start-up released the counters; use differences.  64 bits,
 * so it never wraps in a simulation.  On QEMU with -icount shift=0 it counts
 * instructions (one clock for all harts). */
uint64_t bsp_cycles(void);

/* The counter's low 32 bits, read inline: for timing inside a measured phase
 * (the profile splits a run into phases at each call of bsp_cycles). */
static inline __attribute__((always_inline)) uint32_t bsp_cycles32(void) {
  uint32_t lo;
  /* Zicsr named here: code compiled at an LTO link takes the link's -march,
   * which names no extensions (it picks the multilib). */
  __asm__ volatile(".option push\n\t.option arch, +zicsr\n\tcsrr %0, mcycle\n\t"
                   ".option pop"
                   : "=r"(lo));
  return lo;
}

/* All 64 bits, read inline: bsp_cycles() itself, and the BSP's own reads
 * (the cluster's barrier), which must not mark a profile phase. */
static inline __attribute__((always_inline)) uint64_t bsp_cycles64(void) {
  uint32_t hi, lo, again;
  do { /* re-read when the low word carried into the high one */
    __asm__ volatile(".option push\n\t.option arch, +zicsr\n\tcsrr %0, mcycleh\n\t"
                     "csrr %1, mcycle\n\tcsrr %2, mcycleh\n\t.option pop"
                     : "=r"(hi), "=r"(lo), "=r"(again));
  } while (hi != again);
  return ((uint64_t)hi << 32) | lo;
}

#ifdef __cplusplus
}
#endif

#endif /* BSP_CYCLES_H */
