// Parallel dispatch: the workgroups of each dispatch shared out over
// RUNNER_HARTS harts (parallel.c).  With RUNNER_HARTS 1 (the default) nothing
// changes: every workgroup runs on hart 0 in IREE's own loop.

#ifndef RUNNER_PARALLEL_H_
#define RUNNER_PARALLEL_H_

#include "iree/base/api.h"
#include "iree/hal/local/local_executable.h"

#if !defined(RUNNER_HARTS)
#define RUNNER_HARTS 1
#endif
// From the compiled program (the build's harts/dispatch_counts.py): when every
// dispatch has one workgroup there is nothing to share, and an image built for
// several harts is the image of one hart: IREE's own loop, no team.
#if __has_include("model_dispatches.h")  // absent: any dispatch may be shared
#include "model_dispatches.h"
#endif
#if defined(RUNNER_MODEL_SHARES) && !RUNNER_MODEL_SHARES
#undef RUNNER_HARTS
#define RUNNER_HARTS 1
#endif
// HARTS=auto: each dispatch site uses 1 .. RUNNER_HARTS harts (hart_plan.c).
#if !defined(RUNNER_HARTS_AUTO)
#define RUNNER_HARTS_AUTO 0
#endif
// The dispatcher of a model archive of `scons library` (runtime/api/harts.c):
// the firmware starts harts 1.. and they serve it (ireerv_worker), no wake-up,
// no heap, no printing.
#if !defined(RUNNER_HARTS_LIBRARY)
#define RUNNER_HARTS_LIBRARY 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Wakes harts 1 .. RUNNER_HARTS-1 and installs the dispatch hook (hart 0,
// once, before the first dispatch); a no-op for one hart.
iree_status_t runner_harts_start(void);

// Bytes of woken hart `hart`'s stack (1 .. RUNNER_HARTS-1) ever used.
size_t runner_hart_stack_used(unsigned hart);

// Before each call of the entry function: counts anew, and with HARTS=auto,
// once every dispatch site has chosen hart 0 and the last call shared
// nothing, runs later calls as an image of one hart would.
void runner_harts_next_call(void);

// Prints "WORKGROUPS <x>x<y>x<z> ..." for the dispatches of the last call
// that went through the harts' dispatch hook, in order, and "HART_CYCLES
// <c0> ..." the cycles each hart spent on its shares of the last call
// (nothing for one hart).
void runner_harts_print_counts(void);

// The runner's warm-up hook for one dispatch (runner.c): what staging keeps
// (runner_stage_warm_up), and where harts 1.. run a dispatch in hart 0's
// stead, that dispatch run, so that they keep its weights too.
iree_status_t runner_harts_warm_up(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory);

#if RUNNER_HARTS_LIBRARY && RUNNER_HARTS > 1
#include "iree/hal/local/local_executable.h"

// Before each call (hart 0): counts anew as runner_harts_next_call() does,
// installs the dispatch hook and returns it (NULL once every dispatch site
// has chosen hart 0 alone: IREE's own loop).
iree_hal_local_executable_dispatch_fn_t runner_harts_begin_call(void);

// Hart `hart` (1 ..): its share of the dispatch published, between the two
// barriers of its caller's loop.
void runner_harts_share(unsigned hart);
#endif

#ifdef __cplusplus
}
#endif

#endif  // RUNNER_PARALLEL_H_
