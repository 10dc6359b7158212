/* Drivers of the 4-core CV32E40P cluster testbench.  Every device access
 * goes through bsp_io.h: the core must not have one in flight when it next
 * touches its scratchpad. */
#include <stdint.h>

#include "bsp.h"
#include "bsp_config.h"
#include "bsp_cycles.h"
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
#define EU_EVT_WAIT (BSP_WAKE_ADDR + 0x80)
#define EU_GPEVT_CLEAR (BSP_WAKE_ADDR + 0x84)

void bsp_wake_raise(void) {
  bsp_io_write32(EU_SET_BARRIER, (1u << 16) | 1u); /* one thread, mask: hart 0 */
  bsp_io_write32(EU_WAIT_BARRIER, 0);
}

void bsp_wake_lower(void) { bsp_io_write32(EU_GPEVT_CLEAR, 0); }

/* Setting a barrier up clears every pending event: raised, then set up, the
 * wake signal is a pulse of one device write, and each parked hart wakes on
 * its edge (its sleep ends on the interrupt line; it then reads the mailbox
 * whatever the line does). */
int bsp_wake_pulse(unsigned harts) {
  bsp_wake_raise();
  bsp_barrier_setup(harts);
  return 1;
}

/* The team barrier: barrier 0 with one bit per hart.  A hart notifies it,
 * then sleeps until its own event is pending (the interrupt line is the OR
 * of every hart's event, so a wake-up may be another hart's: check), and
 * clears it; the event unit ignores a notify while the hart's event is
 * still pending, so it is cleared before the next one. */
static unsigned barrier_harts;

void bsp_barrier_setup(unsigned harts) {
  barrier_harts = harts;
  bsp_io_write32(EU_SET_BARRIER, (harts << 16) | ((1u << harts) - 1u));
}

static inline uint32_t mcycle32(void) {
  uint32_t value;
  __asm__ volatile("csrr %0, mcycle" : "=r"(value));
  return value;
}

/* The core's clock, mcycle included, stops while it sleeps in wfi: hart 0
 * adds the cycles it slept (from the testbench's global counter) to its
 * mcycle, so bsp_cycles() keeps counting elapsed time across a barrier. */
static void mcycle_add(uint32_t cycles) {
  uint64_t value = bsp_cycles64() + cycles; /* inline: no profile phase mark */
  __asm__ volatile("csrw mcycle, zero\n\tcsrw mcycleh, %0\n\tcsrw mcycle, %1"
                   ::"r"((uint32_t)(value >> 32)), "r"((uint32_t)value));
}

/* Hart 0's bound on a wait (bsp.h): the testbench's countdown timer,
 * loaded on entry and stopped (0) on exit, wakes hart 0's wfi with its irq
 * when it runs out; nothing else raises that line.  The event unit cannot
 * say which harts have arrived. */
#define TIMER_IRQS (BSP_TIMER_ADDR + 0)
#define TIMER_COUNT (BSP_TIMER_ADDR + 4)
static uint32_t timeout_ticks = 300000000u; /* below the 400 M cycle limit */

void bsp_barrier_timeout(uint32_t ticks) { timeout_ticks = ticks; }

static inline uint32_t mip(void) {
  uint32_t value;
  __asm__ volatile("csrr %0, mip" : "=r"(value));
  return value;
}

void bsp_barrier_wait(void) {
  const unsigned me = bsp_hart_id();
  uint32_t wall = 0, awake = 0;
  const int bounded = me == 0 && timeout_ticks != 0;
  if (me == 0) {
    wall = bsp_io_read32(BSP_TICKS_ADDR);
    awake = mcycle32();
  }
  if (bounded) {
    bsp_io_write32(TIMER_IRQS, 1u << BSP_TIMER_IRQ);
    bsp_io_write32(TIMER_COUNT, timeout_ticks);
    __asm__ volatile("csrs mie, %0" ::"r"(1u << BSP_TIMER_IRQ));
  }
  __asm__ volatile("csrs mie, %0" ::"r"(1u << BSP_WAKE_IRQ));
  bsp_io_write32(EU_WAIT_BARRIER, 0);
  while ((bsp_io_read32(EU_EVT_WAIT) & 1u) == 0) {
    if (bounded && (mip() & (1u << BSP_TIMER_IRQ))) {
      __bsp_barrier_expired(barrier_harts, 0, timeout_ticks);
    }
    __asm__ volatile("wfi");
  }
  bsp_io_write32(EU_GPEVT_CLEAR, 0);
  if (bounded) {
    bsp_io_write32(TIMER_COUNT, 0); /* stopped: it never reaches 1 */
    __asm__ volatile("csrc mie, %0" ::"r"(1u << BSP_TIMER_IRQ));
  }
  if (me == 0) {
    const int32_t slept =
        (int32_t)((bsp_io_read32(BSP_TICKS_ADDR) - wall) - (mcycle32() - awake));
    if (slept > 0) mcycle_add((uint32_t)slept); /* <= 0: only the reads' skew */
  }
}
