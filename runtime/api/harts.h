// The team of harts behind ireerv_worker (harts.c, docs/firmware.md "Harts").
#ifndef IREERV_HARTS_H_
#define IREERV_HARTS_H_

#include "ireerv_model.h"

// Harts of the board the runtime was built for (1: ireerv_worker parks).
#if !defined(IREERV_HARTS)
#define IREERV_HARTS 1
#endif

#if IREERV_HARTS > 1
// Hart 0, before a call of a model: once every hart 1 .. IREERV_HARTS-1 has
// come to ireerv_worker, sets the team's barrier up (the first time) and
// installs the model's dispatch hook, so that its dispatches are shared as
// HARTS=auto shares them.  Until then, or for a model with no dispatcher,
// IREE's own loop runs everything on hart 0.
void ireerv_harts_begin(const ireerv_harts_t *harts);

// Hart 0, after the call: IREE's own loop again.
void ireerv_harts_end(void);
#else
static inline void ireerv_harts_begin(const ireerv_harts_t *harts) { (void)harts; }
static inline void ireerv_harts_end(void) {}
#endif

#endif  // IREERV_HARTS_H_
