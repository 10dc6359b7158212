// Running workgroups from the runner's dispatch hooks (staging.c, parallel.c).
//
// The call goes through the executable's vtable as
// iree_hal_local_executable_issue_call() does, not through that function:
// with callers in the hooks as well as in IREE's own loop, link-time
// optimisation kept it out of line everywhere, one more call per workgroup
// (ad with HARTS=auto, settled on hart 0: 203 cycles a call over one hart).
#ifndef RUNNER_WORKGROUPS_H_
#define RUNNER_WORKGROUPS_H_

#include "iree/hal/local/local_executable.h"

static inline __attribute__((always_inline)) iree_status_t runner_issue_call(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    const iree_hal_executable_workgroup_state_v0_t* workgroup_state,
    uint32_t worker_id) {
  return ((const iree_hal_local_executable_vtable_t*)executable->resource.vtable)
      ->issue_call(executable, ordinal, dispatch_state, workgroup_state, worker_id);
}

// Every workgroup of a dispatch on the calling hart, in IREE's order.  Always
// inlined, for the same reason.
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
