// Harts 1.. running their share of a dispatch from their own scratchpads.
//
// On the cluster every data access of harts 1-3 to core 0's scratchpad
// crosses the shared path, one transaction at a time for the whole cluster.
// When the kernels allow it (hart_local_check.h, generated from the kernel
// objects: RUNNER_HART_LOCAL), a woken hart copies the dispatch state,
// the environment and every binding into its own scratchpad, runs its
// workgroups there on a stack of its own, and writes back the bytes its
// workgroups changed.  See hart_local.c for how the scratchpad rule holds.
#ifndef RUNNER_HART_LOCAL_H_
#define RUNNER_HART_LOCAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hart_local_check.h"
#include "iree/hal/local/local_executable.h"

// What hart 0 publishes for a dispatch (in the shared job record).
typedef struct runner_local_job_t {
  iree_hal_executable_dispatch_v0_t fn;  // NULL: every hart runs in place
  uint32_t mode;  // RUNNER_LOCAL_MODE_* of the entry point (hart_local_check.h)
  const iree_hal_executable_environment_v0_t* environment;
  const iree_hal_executable_dispatch_state_v0_t* dispatch_state;
  uint32_t local_memory_size;
  uint32_t read_only;   // bindings the entry point only reads (bit i: binding i)
  uint32_t write_only;  // bindings it only writes: hart 0 zeroes them first
  uint32_t* copy_cycles;  // per hart: cycles spent copying in (written back)
  // For HARTS=auto (hart_plan.h): bytes every woken hart copies in, bytes
  // the workgroups split (a hart copies its part), bytes written back (in
  // word stores: a byte store costs a store and a load).
  uint32_t bytes_in, bytes_in_split, bytes_out;
} runner_local_job_t;

// How harts 1.. run an entry point: in place because it reads data of its own,
// from their own scratchpads, or in place because it is bound by instruction
// fetch (soft-float: copies would cost more than they save).
#define RUNNER_LOCAL_MODE_IN_PLACE 0
#define RUNNER_LOCAL_MODE_LOCAL 1
#define RUNNER_LOCAL_MODE_FETCH_BOUND 2

// runner_local_share's answer when the copies do not fit the scratchpad.
#define RUNNER_LOCAL_DOES_NOT_FIT 0xffffffffu

// Hart 0: fills `job` for a dispatch.  job->fn is the entry point when harts
// may run it from their own scratchpads (no imports, no executable constants,
// word-aligned bindings that do not overlap), else NULL; then the write-only
// bindings are zeroed, so a hart writes back only what is not zero.
void runner_local_prepare(
    runner_local_job_t* job, iree_hal_local_executable_t* executable,
    iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t local_memory_size);

// The fewest cycles dispatch `ordinal` of `executable` takes on one hart, all
// its workgroups together (from its MACs, hart_local_check.h; 0: unknown).
uint32_t runner_local_floor(iree_hal_local_executable_t* executable,
                            iree_host_size_t ordinal);

// Workgroup counts (hart_local_check.h) of an entry point whose slices hold
// for any count in x, with y and z one: a board's kernel, one workgroup an
// output row, its shapes push constants (site_scons/ireerv/harts/
// kernel_slices.py).
#define RUNNER_ANY_COUNT 0xFFFFFFFFu

#if RUNNER_HART_LOCAL_KERNELS
// The HARTS=auto site (hart_plan.h) of a dispatch: its entry point's ordinal,
// or for a board's kernel, one entry point for layers of several shapes, the
// ordinal and its push constants (each shape times and plans on its own).
iree_host_size_t runner_local_site_key(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state);
#define RUNNER_SITE_KEY(executable, ordinal, dispatch_state) \
  runner_local_site_key(executable, ordinal, dispatch_state)
#else
#define RUNNER_SITE_KEY(executable, ordinal, dispatch_state) (ordinal)
#endif

// Whether dispatch `ordinal` only moves data (no MACs: its floor unknown) and
// a hart sharing it would copy a read-write binding whole, in and out: IREE's
// copies into part of a larger buffer (docs/harts.md).
bool runner_local_moves_whole(iree_hal_local_executable_t* executable,
                              iree_host_size_t ordinal,
                              uint32_t binding_count);

// Whether harts 1.. may run dispatch `ordinal` from their own scratchpads
// with each workgroup reading a part of its own of every binding in
// `bindings` (bit i: binding i), all read-only: harts sharing it then copy,
// and keep, each byte of them once (parallel.c's delegate).
bool runner_local_splits(iree_hal_local_executable_t* executable,
                         iree_host_size_t ordinal, uint32_t bindings);

// Hart `hart` (>= 1): workgroups [begin, end) of the published dispatch, run
// from its own scratchpad.  An iree_status_code_t, or RUNNER_LOCAL_DOES_NOT_FIT
// (nothing ran: the caller runs the share in place).
uint32_t runner_local_share(const runner_local_job_t* job, unsigned hart,
                            uint32_t begin, uint32_t end);

#endif  // RUNNER_HART_LOCAL_H_
