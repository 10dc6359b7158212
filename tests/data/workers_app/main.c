// An application (APP=) on a board with several harts: kws through the ireerv
// API, harts 1.. serving its dispatches in ireerv_worker (docs/firmware.md,
// "Harts").  The BSP parks harts 1.. at start-up; main wakes them with
// bsp_wake_harts into an entry that calls ireerv_worker.  The input comes
// from kws_input.h (the test writes it: the runner's generated input), and
// the lines printed are the runner's: CYCLES startup, CYCLES call <i>, and
// OUTPUT 0's values.
#include <stdint.h>
#include <stdio.h>

#include "bsp.h"
#include "bsp_cycles.h"
#include "ireerv.h"
#include "kws.h"
#include "kws_input.h"  // static const int8_t kws_input[KWS_INPUT0_BYTES]

#define WORKER_STACK (8 * 1024)

static uint8_t arena[KWS_ARENA_BYTES] __attribute__((aligned(16)));
static int8_t output[KWS_OUTPUT0_BYTES];
// The workers' stacks where the runner keeps its woken harts' (.bsp.shared:
// shared RAM, loaded as zeros), out of core 0's scratchpad.
static uint8_t stacks[(BSP_HARTS - 1) * WORKER_STACK]
    __attribute__((section(".bsp.shared"), aligned(16), used));

static void worker(unsigned hart, void *arg) {
  (void)arg;
  ireerv_worker(hart);  // does not return
}

static int call(ireerv_instance_t *kws, int index) {
  const void *inputs[] = {kws_input};
  void *outputs[] = {output};
  const uint64_t begin = bsp_cycles();
  const int error = ireerv_run(kws, inputs, outputs);
  const uint64_t cycles = bsp_cycles() - begin;
  if (error) {
    printf("call %d: %s\n", index, ireerv_error(error));
    return 1;
  }
  printf("CYCLES call %d %lu\n", index, (unsigned long)cycles);
  return 0;
}

int main(void) {
  if (bsp_wake_harts(worker, NULL, stacks, WORKER_STACK) < 0) return 1;
  int error = 0;
  const uint64_t begin = bsp_cycles();
  ireerv_instance_t *kws = ireerv_open(&kws_model, arena, sizeof arena, &error);
  const uint64_t cycles = bsp_cycles() - begin;
  if (!kws) {
    printf("open: %s\n", ireerv_error(error));
    return 1;
  }
  printf("CYCLES startup %lu\n", (unsigned long)cycles);
  if (call(kws, 0) || call(kws, 1)) return 1;
  printf("OUTPUT 0:");
  for (unsigned i = 0; i < sizeof output; ++i) printf(" %d", output[i]);
  printf("\n");
  return 0;
}
