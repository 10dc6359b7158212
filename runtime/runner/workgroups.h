// Running workgroups from the runner's dispatch hooks (staging.c, parallel.c,
// hart_local.c): the call into a kernel and the walk over a dispatch's grid.
#ifndef RUNNER_WORKGROUPS_H_
#define RUNNER_WORKGROUPS_H_

#include "iree/hal/local/local_executable.h"

// Bindings a dispatch may have where the runner copies them: masks of them
// are 32-bit words (bit i: binding i).
#define RUNNER_MAX_BINDINGS 32

// Sets (x, y, z) to the id of workgroup `index` of a grid of `count_x` by
// `per_z / count_x` by any (index counted in IREE's order, x fastest).  Three
// divisions: once per run of workgroups, then RUNNER_WORKGROUP_STEP.
#define RUNNER_WORKGROUP_AT(index, count_x, per_z, x, y, z) \
  ((x) = (index) % (count_x), (y) = ((index) % (per_z)) / (count_x), \
   (z) = (index) / (per_z))

// Steps (x, y, z) to the next workgroup in IREE's order (x fastest) in a grid
// `count_x` by `count_y` wide: no division (one costs up to 35 cycles on the
// CV32E40P).  A macro, for ids of any integer type.
#define RUNNER_WORKGROUP_STEP(x, y, z, count_x, count_y) \
  do {                                                    \
    if (++(x) == (count_x)) {                             \
      (x) = 0;                                            \
      if (++(y) == (count_y)) {                           \
        (y) = 0;                                          \
        ++(z);                                            \
      }                                                   \
    }                                                     \
  } while (0)

// Calls workgroup `workgroup_state` of entry point `ordinal` as
// iree_hal_local_executable_issue_call() does, through the executable's
// vtable: that function, with callers in the hooks as well as in IREE's own
// loop, stays out of line under link-time optimisation, a call more per
// workgroup.  Returns the kernel's status.
static inline __attribute__((always_inline)) iree_status_t runner_issue_call(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    const iree_hal_executable_workgroup_state_v0_t* workgroup_state,
    uint32_t worker_id) {
  return ((const iree_hal_local_executable_vtable_t*)executable->resource.vtable)
      ->issue_call(executable, ordinal, dispatch_state, workgroup_state, worker_id);
}

// Runs every workgroup of dispatch `d` on the calling hart, in IREE's order,
// with `local_memory` as their local memory; stops at the first failure and
// returns it.  Always inlined, as runner_issue_call().
static inline __attribute__((always_inline)) iree_status_t runner_run_grid(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* d, uint32_t processor_id,
    iree_byte_span_t local_memory) {
  iree_alignas(64) iree_hal_executable_workgroup_state_v0_t state = {
      .processor_id = processor_id,
      .local_memory = local_memory.data,
      .local_memory_size = (size_t)local_memory.data_length,
  };
  for (uint32_t z = 0; z < d->workgroup_count_z; ++z) {
    state.workgroup_id_z = z;
    for (uint32_t y = 0; y < d->workgroup_count_y; ++y) {
      state.workgroup_id_y = y;
      for (uint32_t x = 0; x < d->workgroup_count_x; ++x) {
        state.workgroup_id_x = x;
        IREE_RETURN_IF_ERROR(
            runner_issue_call(executable, ordinal, d, &state, /*worker_id=*/0));
      }
    }
  }
  return iree_ok_status();
}

#endif  // RUNNER_WORKGROUPS_H_
