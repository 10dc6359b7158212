// HARTS=auto: how many harts a dispatch uses, chosen per dispatch site
// (hart_plan.c) from the board's [sharing] figures.
#ifndef RUNNER_HART_PLAN_H_
#define RUNNER_HART_PLAN_H_

#include <stdbool.h>
#include <stdint.h>

#include "iree/hal/local/local_executable.h"

// What is known of one dispatch site (an executable's entry point).
typedef struct runner_plan_site_t {
  const void* executable;
  iree_host_size_t ordinal;
  uint32_t mode;   // RUNNER_LOCAL_MODE_* of the entry point
  uint32_t a0;     // cycles per workgroup of hart 0 alone (0: not measured)
  uint32_t harts;  // harts it uses (0: not decided yet; 1: hart 0 alone)
  uint32_t first;  // hart 0's workgroups (0: an even split)
  uint32_t runs;   // runs on several harts so far
  uint32_t stages; // 1: its weights are staged, not delegated (parallel.c)
} runner_plan_site_t;

// The site of (executable, ordinal), new ones zeroed; NULL when the table is
// full (then the dispatch runs as with a fixed HARTS).
runner_plan_site_t* runner_plan_site(const void* executable,
                                     iree_host_size_t ordinal);

// Whether every site seen has chosen hart 0 alone (and there is one).
bool runner_plan_all_alone(void);

// What a woken hart copies: `in` whole, and its workgroups' part of
// `in_split` (copied in) and of `out` (written back).
typedef struct runner_plan_bytes_t {
  uint32_t in, in_split, out;
} runner_plan_bytes_t;

// Cycles per workgroup of hart 0 alone, from a run on `harts` harts in which
// hart h computed workgroups[h] in cycles[h] (0 when unknown).
uint32_t runner_plan_alone(const uint32_t* workgroups, const uint32_t* cycles,
                           uint32_t harts, uint32_t mode);

// Whether a dispatch that takes hart 0 `alone` cycles is too small for any
// plan to share.
bool runner_plan_too_small(uint64_t alone);

// The harts (1 .. max_harts) that give the shortest predicted time for
// `rest` workgroups of a0 cycles each on hart 0 alone, and hart 0's share
// (*first; 0: an even split); 1 unless the prediction beats hart 0 alone by
// a margin.  `mode` is the entry point's RUNNER_LOCAL_MODE_*.
uint32_t runner_plan_choose(uint32_t rest, uint32_t a0, uint32_t mode,
                            runner_plan_bytes_t bytes, uint32_t max_harts,
                            uint32_t* first);

#endif  // RUNNER_HART_PLAN_H_
