/* Drivers of QEMU's virt machine. */
#include <stdint.h>

#include "bsp.h"
#include "bsp_config.h"
#include "bsp_io.h"

#define UART_THR 0
#define UART_LSR 5
#define UART_LSR_THRE 0x20

void bsp_putc(char c) {
  volatile uint8_t *uart = (volatile uint8_t *)(uintptr_t)BSP_CONSOLE_ADDR;
  while (!(uart[UART_LSR] & UART_LSR_THRE)) {
  }
  uart[UART_THR] = (uint8_t)c;
}

/* SiFive test finisher: 0x5555 passes, (code << 16) | 0x3333 fails and
 * becomes QEMU's exit status, of which the shell sees the low byte only:
 * keep that byte non-zero for every failure. */
_Noreturn void bsp_exit(int code) {
  uint32_t value = 0x5555;
  if (code != 0) {
    uint32_t status = (uint32_t)code & 0xffff;
    if ((status & 0xff) == 0) status |= 1;
    value = (status << 16) | 0x3333;
  }
  bsp_io_write32(BSP_EXIT_ADDR, value);
  for (;;) __asm__ volatile("wfi");
}

/* CLINT machine software interrupt: one msip word per hart. */
#define MSIP(hart) (BSP_WAKE_ADDR + 4 * (hart))

void bsp_wake_raise(void) {
  for (unsigned h = 1; h < BSP_HARTS; ++h) bsp_io_write32(MSIP(h), 1);
}

void bsp_wake_lower(void) {
  for (unsigned h = 1; h < BSP_HARTS; ++h) bsp_io_write32(MSIP(h), 0);
}

/* The team barrier, centralised on hart 0 with one flag word per hart (no
 * atomics): hart h > 0 writes its round number and rings hart 0's msip, then
 * sleeps until hart 0 has published the same round; hart 0 sleeps until
 * every hart's flag has reached its round, then publishes it and rings
 * them.  A hart clears its own msip before it looks at the flags, so a ring
 * that comes after the look still ends the next wfi. */
static unsigned team_size;
static volatile uint32_t arrived[BSP_HARTS];
static volatile uint32_t released;
static uint32_t round_of[BSP_HARTS]; /* each hart reads and writes its own */

void bsp_barrier_setup(unsigned harts) { team_size = harts; }

static inline void fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

void bsp_barrier_wait(void) {
  const unsigned me = bsp_hart_id();
  const uint32_t round = ++round_of[me];
  __asm__ volatile("csrs mie, %0" ::"r"(1u << BSP_WAKE_IRQ));
  if (me != 0) {
    arrived[me] = round;
    fence();
    bsp_io_write32(MSIP(0), 1);
    for (;;) {
      bsp_io_write32(MSIP(me), 0);
      fence();
      if (released == round) return;
      __asm__ volatile("wfi");
    }
  }
  for (;;) {
    bsp_io_write32(MSIP(0), 0);
    fence();
    unsigned h = 1;
    while (h < team_size && arrived[h] == round) ++h;
    if (h == team_size) break;
    __asm__ volatile("wfi");
  }
  released = round;
  fence();
  for (unsigned h = 1; h < team_size; ++h) bsp_io_write32(MSIP(h), 1);
}
