// Staged constants: kernels read the model's weights from copies in the
// scratchpad (staging.c).
#ifndef RUNNER_STAGING_H_
#define RUNNER_STAGING_H_

#include "iree/hal/local/local_executable.h"

#ifdef __cplusplus
extern "C" {
#endif

// When the board keeps the model's constants apart from the data
// (BSP_STAGED_CONSTANTS): copies the bindings of `*dispatch_state` that lie
// among them into the staging area, or finds them kept, and points
// `*dispatch_state` at a copy of the state that binds the copies.  Otherwise
// leaves it as it is.
iree_status_t runner_stage(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state);

// runner_stage() in two steps, for a caller that may run the dispatch
// without staging it (parallel.c): first the bindings sorted, new copies
// kept where the weight cache has room; `*pending` says which bindings are
// left to stage (bit i: binding i).  Then, unless the caller runs the
// dispatch otherwise, the staging area made large enough and the copies.
// runner_unstage() follows either way.
iree_status_t runner_stage_sort(
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t* pending);
iree_status_t runner_stage_copy(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state);

// After the dispatch runner_stage() staged has run: its copies may move again.
void runner_unstage(void);

// For the runner's warm-up: what runner_stage() keeps and the room it makes,
// without staging anything.
iree_status_t runner_stage_warm_up(
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state);

// Copies `bytes` from shared RAM at `from` (word-aligned) into the scratchpad at
// `to` (word-aligned) under the scratchpad rule.  Staged-constants images only.
void runner_copy_from_shared(void* to, const void* from, size_t bytes);

// One hart: installs the dispatch hook that stages, then runs the workgroups.
void runner_staging_start(void);

#ifdef __cplusplus
}
#endif

#endif  // RUNNER_STAGING_H_
