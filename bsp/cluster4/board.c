/* Drivers of the 4-core CV32E40P cluster testbench.  Every device access
 * goes through bsp_io.h: the core must not have one in flight when it next
 * touches its scratchpad. */
#include <stdint.h>

#include "bsp.h"
#include "bsp_config.h"
#include "bsp_io.h"

/* Every byte stored to the console address is printed by the testbench. */
void bsp_putc(char c) { bsp_io_write8(BSP_CONSOLE_ADDR, (uint8_t)c); }

/* Any write ends the simulation: 0 passes, anything else fails. */
_Noreturn void bsp_exit(int code) {
  bsp_io_write32(BSP_EXIT_ADDR, (uint32_t)code);
  for (;;) __asm__ volatile("wfi");
}

/* Event unit: a barrier of hart 0 alone completes as soon as hart 0
 * notifies it, which raises the cluster-wide event interrupt the parked
 * harts wait for.  Clearing hart 0's event lowers it again. */
#define EU_WAIT_BARRIER (BSP_WAKE_ADDR + 0x00)
#define EU_SET_BARRIER (BSP_WAKE_ADDR + 0x40)
#define EU_GPEVT_CLEAR (BSP_WAKE_ADDR + 0x84)

void bsp_wake_raise(void) {
  bsp_io_write32(EU_SET_BARRIER, (1u << 16) | 1u); /* one thread, mask: hart 0 */
  bsp_io_write32(EU_WAIT_BARRIER, 0);
}

void bsp_wake_lower(void) { bsp_io_write32(EU_GPEVT_CLEAR, 0); }
