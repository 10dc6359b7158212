// ireerv_worker and the team of harts (harts.h).
//
// Harts 1 .. n-1 come to ireerv_worker however the firmware starts them (the
// BSP's bsp_wake_harts, or its own start-up), each on a stack of its own.
// Each says it is there, then waits until hart 0 has set the barrier up: at
// the first ireerv_run that finds every hart there, so a firmware that never
// calls ireerv_worker runs on hart 0 alone and never waits.  Then each loops
// as the runner's woken harts do (runtime/runner/parallel.c): barrier (a
// dispatch is published), its share of the model being called, barrier.
// Which model is being called is published before the first barrier.

#include "harts.h"

#include "ireerv.h"

#if IREERV_HARTS > 1

#include "bsp.h"

static volatile uint32_t arrived[IREERV_HARTS];
static volatile uint32_t team_ready;
static const ireerv_harts_t *volatile serving;

static inline void fence(void) { __asm__ volatile("fence rw, rw" ::: "memory"); }

// Until team_ready: a look at the flag, then divides, which fetch no
// instruction for 35 cycles each: a polling hart leaves the one fetch port
// to hart 0 (docs/harts.md).
static void wait_for_team(void) {
  while (!team_ready) {
    uint32_t x = 1;
    for (int i = 0; i < 8; ++i) {
      __asm__ volatile("divu %0, %0, %1\n\tdivu %0, %0, %1" : "+r"(x) : "r"(1u));
    }
  }
}

void ireerv_worker(unsigned hart) {
  if (hart == 0 || hart >= IREERV_HARTS || hart != bsp_hart_id()) {
    for (;;) __asm__ volatile("wfi");  // not a worker of this runtime
  }
  fence();
  arrived[hart] = 1;
  wait_for_team();
  for (;;) {
    bsp_barrier_wait();  // hart 0 has published a dispatch
    serving->share(hart);
    bsp_barrier_wait();  // every share is done
  }
}

// Whether the team is up: set up once every hart has arrived.
static int team_up(void) {
  if (team_ready) return 1;
  for (unsigned h = 1; h < IREERV_HARTS; ++h) {
    if (!arrived[h]) return 0;
  }
  bsp_barrier_setup(IREERV_HARTS);
  fence();
  team_ready = 1;
  return 1;
}

void ireerv_harts_begin(const ireerv_harts_t *harts) {
  if (!harts || !harts->begin_call || !team_up()) return;
  serving = harts;
  fence();
  harts->begin_call();  // installs the model's hook, or IREE's loop
}

void ireerv_harts_end(void) { iree_hal_local_executable_dispatch_hook = NULL; }

#else  // one hart

void ireerv_worker(unsigned hart) {
  (void)hart;
  for (;;) __asm__ volatile("wfi");
}

#endif
