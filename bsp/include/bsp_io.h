/* Device and shared-memory accesses that complete before the next access.
 *
 * On boards with BSP_IO_BARRIER (the cluster), a core's scratchpad answers
 * at once even while one of its accesses to the shared path is still in
 * flight, and the core then pairs the responses with the wrong accesses.
 * So every access that leaves the scratchpad waits for its response: a
 * load is followed by an instruction that uses its result (the pipeline
 * stalls until the data is back); a store is followed by such a load from
 * the same address (the shared path answers in order).  Elsewhere these
 * are plain volatile accesses. */
#ifndef BSP_IO_H
#define BSP_IO_H

#include <stdint.h>

#include "bsp_config.h"

static inline uint32_t bsp_io_read32(uintptr_t addr) {
  uint32_t value;
#if BSP_IO_BARRIER
  __asm__ volatile("lw %0, 0(%1)\n\taddi %0, %0, 0" : "=r"(value) : "r"(addr) : "memory");
#else
  value = *(volatile uint32_t *)addr;
#endif
  return value;
}

static inline void bsp_io_write32(uintptr_t addr, uint32_t value) {
#if BSP_IO_BARRIER
  uint32_t tmp;
  __asm__ volatile("sw %1, 0(%2)\n\tlw %0, 0(%2)\n\taddi %0, %0, 0"
                   : "=&r"(tmp)
                   : "r"(value), "r"(addr)
                   : "memory");
  (void)tmp;
#else
  *(volatile uint32_t *)addr = value;
#endif
}

static inline void bsp_io_write8(uintptr_t addr, uint8_t value) {
#if BSP_IO_BARRIER
  uint32_t tmp;
  __asm__ volatile("sb %1, 0(%2)\n\tlw %0, 0(%2)\n\taddi %0, %0, 0"
                   : "=&r"(tmp)
                   : "r"(value), "r"(addr)
                   : "memory");
  (void)tmp;
#else
  *(volatile uint8_t *)addr = value;
#endif
}

#endif /* BSP_IO_H */
