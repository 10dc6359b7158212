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

/* A hart's msip cleared before it ran would leave it asleep: no pulse. */
int bsp_wake_pulse(unsigned harts) {
  (void)harts;
  return 0;
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

/* Hart 0's bound on a wait (bsp.h), with the CLINT's timer: mtimecmp at
 * the deadline and MTIE enabled end the wfi when it passes. */
#define MTIMECMP_LO (BSP_WAKE_ADDR + 0x4000)
#define MTIMECMP_HI (BSP_WAKE_ADDR + 0x4004)
#define MTIME_LO (BSP_WAKE_ADDR + 0xbff8)
#define MTIME_HI (BSP_WAKE_ADDR + 0xbffc)
#define MIE_MTIE (1u << 7)
static uint32_t timeout_ticks = 100000000u;

void bsp_barrier_timeout(uint32_t ticks) { timeout_ticks = ticks; }

static uint64_t mtime(void) {
  uint32_t hi, lo;
  do {
    hi = bsp_io_read32(MTIME_HI);
    lo = bsp_io_read32(MTIME_LO);
  } while (hi != bsp_io_read32(MTIME_HI));
  return ((uint64_t)hi << 32) | lo;
}

static void set_mtimecmp(uint64_t when) {
  bsp_io_write32(MTIMECMP_HI, 0xffffffffu); /* never early while half-written */
  bsp_io_write32(MTIMECMP_LO, (uint32_t)when);
  bsp_io_write32(MTIMECMP_HI, (uint32_t)(when >> 32));
}

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
  const uint64_t deadline = timeout_ticks ? mtime() + timeout_ticks : UINT64_MAX;
  if (timeout_ticks) {
    set_mtimecmp(deadline);
    __asm__ volatile("csrs mie, %0" ::"r"(MIE_MTIE));
  }
  for (;;) {
    bsp_io_write32(MSIP(0), 0);
    fence();
    uint32_t missing = 0;
    for (unsigned h = 1; h < team_size; ++h) {
      if (arrived[h] != round) missing |= 1u << h;
    }
    if (!missing) break;
    if (timeout_ticks && mtime() >= deadline) {
      __bsp_barrier_expired(team_size, missing, timeout_ticks);
    }
    __asm__ volatile("wfi");
  }
  if (timeout_ticks) {
    __asm__ volatile("csrc mie, %0" ::"r"(MIE_MTIE));
    set_mtimecmp(UINT64_MAX);
  }
  released = round;
  fence();
  for (unsigned h = 1; h < team_size; ++h) bsp_io_write32(MSIP(h), 1);
}
