/* Board support: console, exit, hart control.  Addresses come from the
 * generated bsp_config.h (from bsp/<board>/board.toml), nowhere else. */
#ifndef BSP_H
#define BSP_H

#include "bsp_config.h" /* generated: BSP_HARTS, addresses */

/* Exit codes the BSP itself reports (both boards' exit devices carry them). */
#define BSP_EXIT_STACK_OVERFLOW 125 /* the stack guard was overwritten */
#define BSP_EXIT_TRAP 126           /* an exception trapped (see the TRAP line) */
#define BSP_EXIT_BARRIER_TIMEOUT 124 /* a hart never reached the team barrier */
/* abort(): raise(SIGABRT) -> kill() -> exit code 128 + 6 = 134 */

/* Words written at the bottom of hart 0's stack, checked at exit. */
#define BSP_STACK_GUARD_WORDS 4
#define BSP_STACK_GUARD 0x5a17c0de
/* The rest of hart 0's stack is painted with this before main: what was never
 * overwritten was never used (bsp_stack_used). */
#define BSP_STACK_PAINT 0xa5a5a5a5

/* Mailbox offsets, shared with start.S. */
#define BSP_MAILBOX_ENTRY 0
#define BSP_MAILBOX_ARG 4
#define BSP_MAILBOX_STACKS 8
#define BSP_MAILBOX_STACK_SIZE 12
#define BSP_MAILBOX_STARTED 16

#ifndef __ASSEMBLER__

#include <stddef.h>
#include <stdint.h>

#include "bsp_cycles.h"
#include "bsp_memory.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Board drivers (bsp/<board>/board.c). */
void bsp_putc(char c);
_Noreturn void bsp_exit(int code); /* 0 = success */
void bsp_wake_raise(void);         /* signal every parked hart */
void bsp_wake_lower(void);         /* withdraw that signal */
/* Raises the wake signal and sets up the team barrier of `harts`, the second
 * ending the first: 1 where every parked hart wakes on such a pulse, else 0
 * (nothing done). */
int bsp_wake_pulse(unsigned harts);

static inline unsigned bsp_hart_id(void) {
  unsigned id;
  /* Zicsr named here: see bsp_cycles32 (bsp_cycles.h). */
  __asm__ volatile(".option push\n\t.option arch, +zicsr\n\tcsrr %0, mhartid\n\t"
                   ".option pop"
                   : "=r"(id));
  return id;
}

/*
 * Parked harts.
 *
 * Start-up lets only hart 0 run.  Every other hart parks before it touches
 * memory: it enables only the board's wake interrupt in `mie` (with
 * mstatus.MIE clear, so the interrupt is never taken) and sleeps in `wfi`.
 * After each wake-up it reads the mailbox (a preloaded, never-cleared word
 * in shared memory); while the entry is NULL it goes back to sleep.
 *
 * bsp_wake_harts() (hart 0, once per run) fills in the mailbox and raises the wake
 * signal.  Hart h (1 <= h < BSP_HARTS) then runs entry(h, arg) on the stack
 * [stacks + (h-1)*stack_size, stacks + h*stack_size), with its own TLS
 * block carved from that stack (so errno is per hart).  When entry returns,
 * the hart parks for good.  The heap and stdio are not thread-safe (no
 * atomics on this core): woken harts must not call malloc or printf
 * concurrently with hart 0.  Returns the number of harts started, after all
 * of them are running, or -1 when called from another hart than 0 or with
 * bad arguments.  The wake signal is the board's: the CLINT software
 * interrupt on QEMU, the event unit's barrier interrupt on the cluster
 * (which reprograms barrier 0 to hart 0 alone).
 */
typedef void (*bsp_hart_entry_t)(unsigned hart, void *arg);
int bsp_wake_harts(bsp_hart_entry_t entry, void *arg, void *stacks, size_t stack_size);

/*
 * bsp_wake_harts() and bsp_barrier_setup(harts) in one, returning before the
 * harts are up where the board's wake signal can be a pulse (the cluster):
 * hart 0 goes on while they start.  Each started hart of the team must wait
 * in the barrier; harts from `harts` on should return at once (they park).
 * Returns as bsp_wake_harts().
 */
int bsp_wake_team(bsp_hart_entry_t entry, void *arg, void *stacks, size_t stack_size,
                  unsigned harts);

/* bsp_wake_harts() state of hart h: 0 parked, 1 running entry, 2 done. */
unsigned bsp_hart_state(unsigned hart);


/*
 * A barrier of harts 0 .. harts-1 (board.c), for harts woken by
 * bsp_wake_harts().  Hart 0 calls bsp_barrier_setup() once, after
 * bsp_wake_harts() and before any hart waits; every hart of the team then
 * calls bsp_barrier_wait(), which returns once all of them have called it.
 * A waiting hart sleeps in `wfi` on the board's wake interrupt (a spinning
 * hart would take instruction fetches from the working ones).  The cluster
 * uses the event unit's barrier; QEMU per-hart flags and CLINT software
 * interrupts.  No atomics either way.
 */
void bsp_barrier_setup(unsigned harts);
void bsp_barrier_wait(void);

/*
 * Hart 0 waits at most this long in one bsp_barrier_wait() for the others,
 * in the board's timer ticks (clock cycles on the cluster, from the
 * testbench's countdown timer; the CLINT's 10 MHz mtime on QEMU); past it
 * the run ends with a "BSP BARRIER TIMEOUT" line and exit code
 * BSP_EXIT_BARRIER_TIMEOUT instead of hanging.  0 waits for ever.  The
 * default (board.c): 300,000,000 cycles on the cluster (below its cycle
 * limit, so the timeout is the error a run sees), 100,000,000 ticks (10 s)
 * on QEMU.
 */
void bsp_barrier_timeout(uint32_t ticks);

/* Ends the run after a barrier timeout (common/barrier.c).  `missing`
 * has bit h set for each hart known not to have arrived (0: not known). */
_Noreturn void __bsp_barrier_expired(unsigned harts, uint32_t missing, uint32_t ticks);

#ifdef __cplusplus
}
#endif

#endif /* __ASSEMBLER__ */
#endif /* BSP_H */
