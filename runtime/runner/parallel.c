// Parallel dispatch over the board's harts, bare metal: no OS, no threads
// library, no atomics (CV32E40P has none).
//
// runner_harts_start() wakes harts 1 .. RUNNER_HARTS-1 once (bsp_wake_harts)
// and installs the runtime's dispatch hook (patches/iree-parallel-dispatch-
// hook.patch).  Each woken hart then loops: barrier (sleeping in wfi until
// hart 0 has published a dispatch), its share of the workgroups, barrier.
// Hart 0 does the same around its own share, so a dispatch costs two
// barriers.  A dispatch of one workgroup runs on hart 0 alone, as before.
//
// Shares are contiguous runs of the flattened workgroup index (x fastest);
// the harts that take part get sizes differing by at most one (share_begin).
// Every hart has its own workgroup state (on its stack) and local memory; the
// dispatch state and the bindings are shared read-only, and workgroups write
// disjoint parts of the outputs, so results do not depend on HARTS.
//
// Memory: the woken harts' stacks (slices of `stacks` below), this file's
// job record and every binding live where the board puts all data; on the
// cluster that is core 0's scratchpad, so harts 1-3 reach all their data
// over the shared path and never touch their own scratchpads (the rule in
// bsp/README.md holds for every hart).

#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>

#if RUNNER_HARTS > 1

#include "bsp.h"
#include "bsp_cycles.h"
#include "iree/hal/local/local_executable.h"

#if RUNNER_HARTS > BSP_HARTS
#error "RUNNER_HARTS exceeds the board's hart count"
#endif

#if !defined(RUNNER_HART_STACK)
#define RUNNER_HART_STACK (8 * 1024)  // bytes per woken hart
#endif

// bsp_wake_harts starts every parked hart: one slice each, even for harts
// beyond RUNNER_HARTS (they return at once and park for good).
static uint8_t stacks[(BSP_HARTS - 1) * RUNNER_HART_STACK]
    __attribute__((aligned(16)));

typedef struct runner_job_t {
  iree_hal_local_executable_t* executable;
  iree_host_size_t ordinal;
  const iree_hal_executable_dispatch_state_v0_t* dispatch_state;
  uint32_t total;  // workgroups
  iree_byte_span_t local_memory[RUNNER_HARTS];
  iree_status_code_t status[RUNNER_HARTS];
} runner_job_t;

static runner_job_t job;
static volatile uint32_t team_ready;

// Workgroup counts of the dispatches since the last reset (for the output).
#define COUNT_CAPACITY 16
static uint32_t counts[COUNT_CAPACITY][3];
static uint32_t count_length;
// Cycles each hart spent on its shares since the reset (its own counter).
static uint32_t busy[RUNNER_HARTS];

static iree_status_code_t run_share(unsigned hart);

static iree_status_code_t run_share_timed(unsigned hart) {
  const uint32_t begin = (uint32_t)bsp_cycles();
  const iree_status_code_t code = run_share(hart);
  busy[hart] += (uint32_t)bsp_cycles() - begin;
  return code;
}

// The first workgroup of a hart's share.  As few harts as give the shortest
// longest share take part (4 workgroups on 3 harts: 2 + 2 + 0, not 1 + 1 + 2,
// so fewer harts compete for the fetch port and the shared path), and the
// larger shares go to the lowest harts: hart 0 reads its data in one cycle.
static uint32_t share_begin(uint32_t total, unsigned hart) {
  const uint32_t longest = (total + RUNNER_HARTS - 1) / RUNNER_HARTS;
  const uint32_t active = (total + longest - 1) / longest;
  if (hart >= active) return total;
  const uint32_t base = total / active, extra = total % active;
  return hart * base + (hart < extra ? hart : extra);
}

static iree_status_code_t run_share(unsigned hart) {
  const iree_hal_executable_dispatch_state_v0_t* d = job.dispatch_state;
  const uint32_t begin = share_begin(job.total, hart);
  const uint32_t end = share_begin(job.total, hart + 1);
  if (begin == end) return IREE_STATUS_OK;
  const uint32_t per_z = d->workgroup_count_x * d->workgroup_count_y;
  iree_alignas(64) iree_hal_executable_workgroup_state_v0_t state = {
      .workgroup_id_x = begin % d->workgroup_count_x,
      .workgroup_id_y = (begin % per_z) / d->workgroup_count_x,
      .workgroup_id_z = begin / per_z,
      .processor_id = hart,
      .local_memory = job.local_memory[hart].data,
      .local_memory_size = (size_t)job.local_memory[hart].data_length,
  };
  for (uint32_t i = begin; i < end; ++i) {
    iree_status_t status = iree_hal_local_executable_issue_call(
        job.executable, job.ordinal, d, &state, hart);
    if (!iree_status_is_ok(status)) return iree_status_consume_code(status);
    if (++state.workgroup_id_x == d->workgroup_count_x) {
      state.workgroup_id_x = 0;
      if (++state.workgroup_id_y == d->workgroup_count_y) {
        state.workgroup_id_y = 0;
        ++state.workgroup_id_z;
      }
    }
  }
  return IREE_STATUS_OK;
}

static void worker(unsigned hart, void* arg) {
  (void)arg;
  if (hart >= RUNNER_HARTS) return;  // not in the team: park for good
  while (!team_ready) {  // once, while hart 0 sets the barrier up
  }
  for (;;) {
    bsp_barrier_wait();  // a dispatch is published
    job.status[hart] = run_share_timed(hart);
    bsp_barrier_wait();  // every share is done
  }
}

static iree_status_t dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  (void)processor_id;
  if (count_length < COUNT_CAPACITY) {
    counts[count_length][0] = dispatch_state->workgroup_count_x;
    counts[count_length][1] = dispatch_state->workgroup_count_y;
    counts[count_length][2] = dispatch_state->workgroup_count_z;
    ++count_length;
  }
  job.executable = executable;
  job.ordinal = ordinal;
  job.dispatch_state = dispatch_state;
  job.total = dispatch_state->workgroup_count_x *
              dispatch_state->workgroup_count_y *
              dispatch_state->workgroup_count_z;
  job.local_memory[0] = local_memory;
  if (job.total < 2) {  // nothing to share: no barrier cost
    iree_alignas(64) iree_hal_executable_workgroup_state_v0_t state = {
        .local_memory = local_memory.data,
        .local_memory_size = (size_t)local_memory.data_length,
    };
    return job.total ? iree_hal_local_executable_issue_call(
                           executable, ordinal, dispatch_state, &state, 0)
                     : iree_ok_status();
  }
  // Local memory for harts 1..: the heap has no lock, so hart 0 takes it.
  iree_status_code_t code = IREE_STATUS_OK;
  for (unsigned h = 1; h < RUNNER_HARTS; ++h) {
    job.local_memory[h] = iree_make_byte_span(NULL, local_memory.data_length);
    if (local_memory.data_length) {
      job.local_memory[h].data = malloc(local_memory.data_length);
      if (!job.local_memory[h].data) code = IREE_STATUS_RESOURCE_EXHAUSTED;
    }
  }
  if (code == IREE_STATUS_OK) {
    bsp_barrier_wait();
    job.status[0] = run_share_timed(0);
    bsp_barrier_wait();
    for (unsigned h = 0; h < RUNNER_HARTS; ++h) {
      if (code == IREE_STATUS_OK) code = job.status[h];
    }
  }
  for (unsigned h = 1; h < RUNNER_HARTS; ++h) free(job.local_memory[h].data);
  return code == IREE_STATUS_OK
             ? iree_ok_status()
             : iree_make_status(code, "workgroup failed on a hart");
}

iree_status_t runner_harts_start(void) {
  if (bsp_wake_harts(worker, NULL, stacks, RUNNER_HART_STACK) < 0) {
    return iree_make_status(IREE_STATUS_UNAVAILABLE, "cannot wake the harts");
  }
  bsp_barrier_setup(RUNNER_HARTS);
  __asm__ volatile("fence rw, rw" ::: "memory");
  team_ready = 1;
  iree_hal_local_executable_dispatch_hook = dispatch;
  return iree_ok_status();
}

void runner_harts_reset_counts(void) {
  count_length = 0;
  for (unsigned h = 0; h < RUNNER_HARTS; ++h) busy[h] = 0;
}

static char* put_u32(char* p, uint32_t v) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = digits[--n];
  return p;
}

void runner_harts_print_counts(void) {
  char line[32 + COUNT_CAPACITY * 36 + RUNNER_HARTS * 11];
  char* p = line;
  for (const char* s = "WORKGROUPS"; *s;) *p++ = *s++;
  for (uint32_t i = 0; i < count_length; ++i) {
    *p++ = ' ';
    p = put_u32(p, counts[i][0]);
    *p++ = 'x';
    p = put_u32(p, counts[i][1]);
    *p++ = 'x';
    p = put_u32(p, counts[i][2]);
  }
  *p++ = '\n';
  for (const char* s = "HART_CYCLES"; *s;) *p++ = *s++;
  for (unsigned h = 0; h < RUNNER_HARTS; ++h) {
    *p++ = ' ';
    p = put_u32(p, busy[h]);
  }
  *p++ = '\n';
  *p = '\0';
  fputs(line, stdout);
}

#else  // one hart: IREE's own loop

iree_status_t runner_harts_start(void) { return iree_ok_status(); }
void runner_harts_reset_counts(void) {}
void runner_harts_print_counts(void) {}

#endif  // RUNNER_HARTS > 1
