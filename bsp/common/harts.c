/* The parked-hart mailbox and bsp_wake_harts(); the protocol is described
 * in bsp.h, the parking loop is in start.S. */
#include <stddef.h>
#include <stdint.h>
/* picolibc.h first: it enables the TLS API in picotls.h. */
#include <picolibc.h>
#include <picotls.h>

#include "bsp.h"
#include "bsp_config.h"
#include "bsp_io.h"

struct bsp_mailbox {
  uint32_t entry; /* bsp_hart_entry_t */
  uint32_t arg;
  uint32_t stacks;
  uint32_t stack_size;
  uint32_t started[BSP_HARTS];
};

_Static_assert(offsetof(struct bsp_mailbox, entry) == BSP_MAILBOX_ENTRY, "mailbox layout");
_Static_assert(offsetof(struct bsp_mailbox, arg) == BSP_MAILBOX_ARG, "mailbox layout");
_Static_assert(offsetof(struct bsp_mailbox, stacks) == BSP_MAILBOX_STACKS, "mailbox layout");
_Static_assert(offsetof(struct bsp_mailbox, stack_size) == BSP_MAILBOX_STACK_SIZE, "mailbox layout");
_Static_assert(offsetof(struct bsp_mailbox, started) == BSP_MAILBOX_STARTED, "mailbox layout");

/* Preloaded with zeros in the text region and never cleared by start-up:
 * parked harts may read it before hart 0 has initialised anything.  Only
 * accessed through bsp_io.h (it is outside the data region). */
__attribute__((section(".bsp.shared"), used)) struct bsp_mailbox __bsp_mailbox = {0};

#define BOX(field) ((uintptr_t)&__bsp_mailbox.field)

static inline void fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

/* Called by start.S on a woken hart, on its own stack. */
_Noreturn void __bsp_hart_main(unsigned hart) {
  /* 8-byte aligned; the linker script checks that TLS needs no more. */
  uint64_t tls[(_tls_size() + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 1];
  _init_tls(tls);
  _set_tls(tls);
  const bsp_hart_entry_t entry = (bsp_hart_entry_t)bsp_io_read32(BOX(entry));
  void *const arg = (void *)bsp_io_read32(BOX(arg));
  bsp_io_write32(BOX(started[hart]), 1);
  entry(hart, arg);
  fence();
  bsp_io_write32(BOX(started[hart]), 2);
  __asm__ volatile("csrw mie, zero");
  for (;;) __asm__ volatile("wfi");
}

/* The mailbox filled for bsp_wake_harts(); false on bad arguments. */
static int fill_mailbox(bsp_hart_entry_t entry, void *arg, void *stacks, size_t stack_size) {
  if (bsp_hart_id() != 0 || entry == NULL || stacks == NULL || stack_size < 256 ||
      stack_size % 16 != 0 || ((uintptr_t)stacks & 15) != 0 || bsp_io_read32(BOX(entry)) != 0) {
    return 0;
  }
  /* Slice h-1 belongs to hart h: its top is stacks + h * stack_size. */
  bsp_io_write32(BOX(arg), (uint32_t)(uintptr_t)arg);
  bsp_io_write32(BOX(stacks), (uint32_t)(uintptr_t)stacks);
  bsp_io_write32(BOX(stack_size), (uint32_t)stack_size);
  /* `started` is still as loaded (zeros): the entry is set once per run. */
  fence();
  bsp_io_write32(BOX(entry), (uint32_t)(uintptr_t)entry);
  fence();
  return 1;
}

/* Raises the wake signal until every hart has started, then lowers it. */
static void wake_and_wait(void) {
  bsp_wake_raise();
  for (unsigned h = 1; h < BSP_HARTS; ++h) {
    while (bsp_io_read32(BOX(started[h])) == 0) {
    }
  }
  bsp_wake_lower();
}

int bsp_wake_harts(bsp_hart_entry_t entry, void *arg, void *stacks, size_t stack_size) {
  if (!fill_mailbox(entry, arg, stacks, stack_size)) return -1;
  wake_and_wait();
  return BSP_HARTS - 1;
}

int bsp_wake_team(bsp_hart_entry_t entry, void *arg, void *stacks, size_t stack_size,
                  unsigned harts) {
  if (harts < 1 || harts > BSP_HARTS || !fill_mailbox(entry, arg, stacks, stack_size)) {
    return -1;
  }
  if (!bsp_wake_pulse(harts)) {
    wake_and_wait();
    bsp_barrier_setup(harts);
  }
  return BSP_HARTS - 1;
}

unsigned bsp_hart_state(unsigned hart) {
  return hart < BSP_HARTS ? bsp_io_read32(BOX(started[hart])) : 0;
}
