// One model archive's dispatcher for several harts (docs/firmware.md,
// "Harts"): the runner's HARTS=auto dispatcher (runtime/runner/parallel.c,
// hart_local.c, hart_plan.c) compiled with this model's tables
// (hart_local_check.h, model_dispatches.h) into the model's archive, where
// its symbols are local; the runtime (harts.c) reaches it through
// ireerv_model_harts.  runner_model is what hart_local.c reads of the model:
// its kernel libraries (the descriptor, <m>_model.c, defines them).

#include "ireerv_model.h"
#include "parallel.h"
#include "runner.h"

#if RUNNER_HARTS > 1
const ireerv_harts_t ireerv_model_harts = {runner_harts_begin_call, runner_harts_share};
#else  // every dispatch has one workgroup: nothing to share
const ireerv_harts_t ireerv_model_harts = {NULL, NULL};
#endif
