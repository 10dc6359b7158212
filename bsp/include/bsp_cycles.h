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

#ifdef __cplusplus
}
#endif

#endif /* BSP_CYCLES_H */
