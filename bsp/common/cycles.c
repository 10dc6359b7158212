/* The cycle counter of every board so far: the core's own 64-bit mcycle.
 * No bus access (on the cluster, the testbench's global counter is 32 bits
 * and costs a trip through the shared path).  Start-up clears mcountinhibit,
 * so it counts every cycle; on QEMU with -icount shift=0, every instruction. */
#include <stdint.h>

#include "bsp_cycles.h"

uint64_t bsp_cycles(void) { return bsp_cycles64(); }
