// Parallel dispatch over the board's harts, bare metal: no OS, no threads
// library, no atomics (CV32E40P has none).
//
// runner_harts_start() installs the runtime's dispatch hook (patches/iree-
// parallel-dispatch-hook.patch) and wakes harts 1 .. RUNNER_HARTS-1 with the
// team barrier set up (bsp_wake_team).  Each woken hart then loops: barrier
// (sleeping in wfi until hart 0 has published a dispatch), its share of the
// workgroups, barrier.  Hart 0 does the same around its own share, so a
// shared dispatch costs two barriers.  A dispatch of one workgroup runs on
// hart 0 alone, in IREE's loop.
//
// Shares are contiguous runs of the flattened workgroup index (x fastest);
// the harts that take part get sizes differing by at most one (share_begin),
// until a dispatch site's timings size hart 0's share (balanced_first).
// Every hart has its own workgroup state (on its stack) and local memory; the
// dispatch state and the bindings are shared read-only, and workgroups write
// disjoint parts of the outputs, so results do not depend on HARTS.
//
// In a model archive of `scons library` (RUNNER_HARTS_LIBRARY, runtime/api/
// model_harts.c) the firmware starts the harts: they come to ireerv_worker
// (runtime/api/harts.c), whose loop is worker()'s around
// runner_harts_share(), and ireerv_run installs the hook per call
// (runner_harts_begin_call).
//
// Memory: this file's job record and every binding live where the board
// puts all data; on the cluster that is core 0's scratchpad, so harts 1-3
// reach it over the shared path, as they reach their stacks (`stacks`
// below).  Where the kernels allow it they run their shares from their own
// scratchpads instead (hart_local.c), with copies of what they need.

#include "parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsp_config.h"
#include "staging.h"

// The warm-up of staging alone (images without staged constants have none).
static inline iree_status_t warm_up_staging(
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state) {
#if BSP_STAGED_CONSTANTS && !RUNNER_HARTS_LIBRARY
  return runner_stage_warm_up(dispatch_state);
#else
  (void)dispatch_state;
  return iree_ok_status();
#endif
}

#if RUNNER_HARTS > 1

#include "bsp.h"
#include "bsp_cycles.h"
#include "bsp_decimal.h"
#include "bsp_io.h"
#include "hart_local.h"
#include "hart_plan.h"
#include "iree/hal/local/local_executable.h"
#include "workgroups.h"

#if RUNNER_HARTS > BSP_HARTS
#error "RUNNER_HARTS exceeds the board's hart count"
#endif

#if !defined(RUNNER_HART_STACK)
#define RUNNER_HART_STACK (8 * 1024)  // bytes per woken hart
#endif

// bsp_wake_harts starts every parked hart: one slice each, even for harts
// beyond RUNNER_HARTS (they return at once and park for good).  The slices
// sit beside the BSP's mailbox, in the region the loader fills (zeros): a
// woken hart in place reaches them over the shared path, as it would core
// 0's scratchpad, and they take none of that scratchpad from the heap or
// the weight cache (staging.c), nor a clearing pass (runner_hart_stack_used).
#if !RUNNER_HARTS_LIBRARY  // the library's harts come on the firmware's stacks
#define STACKS_BYTES ((BSP_HARTS - 1) * RUNNER_HART_STACK)
static uint8_t stacks[STACKS_BYTES]
    __attribute__((section(".bsp.shared"), aligned(16), used));
#endif

typedef struct runner_job_t {
  iree_hal_local_executable_t* executable;
  iree_host_size_t ordinal;
  const iree_hal_executable_dispatch_state_v0_t* dispatch_state;
  uint32_t base;   // the first workgroup shared (those before ran on hart 0)
  uint32_t total;  // workgroups
  uint32_t first;  // workgroups of hart 0 (0: every hart takes the same)
  uint32_t harts;  // harts taking part (the others' shares are empty)
  uint32_t from_hart;  // the first of them: 1 for a dispatch delegated (below)
  runner_local_job_t local;  // for harts running from their own scratchpads
  iree_byte_span_t local_memory[RUNNER_HARTS];
  iree_status_code_t status[RUNNER_HARTS];
} runner_job_t;

static runner_job_t job;
#if !RUNNER_HARTS_LIBRARY
static volatile uint32_t team_ready;
#endif

// Workgroup counts of the dispatches since the last reset (for the output).
#define COUNT_CAPACITY 32
static uint32_t counts[COUNT_CAPACITY][3];
static uint32_t count_length;
// Cycles each hart spent on its shares since the reset (its own counter).
static uint32_t busy[RUNNER_HARTS];

static iree_status_code_t run_share(unsigned hart);

// Of the current dispatch: each hart's cycles, and those it spent copying in.
static uint32_t share_cycles[RUNNER_HARTS];
static uint32_t copy_cycles[RUNNER_HARTS];

static iree_status_code_t run_share_timed(unsigned hart) {
  const uint32_t begin = bsp_cycles32();
  const iree_status_code_t code = run_share(hart);
  share_cycles[hart] = bsp_cycles32() - begin;
  busy[hart] += share_cycles[hart];
  return code;
}

// The first workgroup of a hart's share.  As few harts as give the shortest
// longest share take part (4 workgroups on 3 harts: 2 + 2 + 0, not 1 + 1 + 2,
// so fewer harts compete for the fetch port and the shared path), and the
// larger shares go to the lowest harts: hart 0 reads its data in one cycle.
// With `first` set, hart 0 takes that many and the others share the rest.
// Counted from job.base; `harts` take part.
static uint32_t share_begin(uint32_t total, uint32_t first, unsigned hart,
                            uint32_t harts) {
  if (hart >= harts) return total;
  if (first) {
    if (hart == 0) return 0;
    const uint32_t rest = total - first, others = harts - 1;
    const uint32_t base = rest / others, extra = rest % others, k = hart - 1;
    return first + k * base + (k < extra ? k : extra);
  }
  const uint32_t longest = (total + harts - 1) / harts;
  const uint32_t active = (total + longest - 1) / longest;
  if (hart >= active) return total;
  const uint32_t base = total / active, extra = total % active;
  return hart * base + (hart < extra ? hart : extra);
}

// Runs workgroups [begin, end) on `hart`, in IREE's order: the first one's
// id divided out once, the rest stepped (workgroups.h).  Returns the first
// failure.
static iree_status_t issue_range(unsigned hart, uint32_t begin, uint32_t end) {
  const iree_hal_executable_dispatch_state_v0_t* d = job.dispatch_state;
  iree_hal_local_executable_t* executable = job.executable;
  const iree_host_size_t ordinal = job.ordinal;
  const uint32_t count_x = d->workgroup_count_x, count_y = d->workgroup_count_y;
  const uint32_t per_z = count_x * count_y;
  iree_alignas(64) iree_hal_executable_workgroup_state_v0_t state = {
      .processor_id = hart,
      .local_memory = job.local_memory[hart].data,
      .local_memory_size = (size_t)job.local_memory[hart].data_length,
  };
  if (begin) {  // a share of a dispatch (one of a single workgroup divides nothing)
    RUNNER_WORKGROUP_AT(begin, count_x, per_z, state.workgroup_id_x,
                        state.workgroup_id_y, state.workgroup_id_z);
  }
  for (uint32_t i = begin; i < end; ++i) {
    iree_status_t status =
        runner_issue_call(executable, ordinal, d, &state, hart);
    if (!iree_status_is_ok(status)) return status;
    RUNNER_WORKGROUP_STEP(state.workgroup_id_x, state.workgroup_id_y,
                          state.workgroup_id_z, count_x, count_y);
  }
  return iree_ok_status();
}

static iree_status_code_t run_share(unsigned hart) {
  const uint32_t count = job.total - job.base;
  if (hart < job.from_hart) return IREE_STATUS_OK;
  const unsigned k = hart - job.from_hart, harts = job.harts - job.from_hart;
  const uint32_t begin = job.base + share_begin(count, job.first, k, harts);
  const uint32_t end = job.base + share_begin(count, job.first, k + 1, harts);
  if (begin == end) return IREE_STATUS_OK;
  if (hart && job.local.fn) {
    const uint32_t code = runner_local_share(&job.local, hart, begin, end);
    if (code != RUNNER_LOCAL_DOES_NOT_FIT) return (iree_status_code_t)code;
  }
  return iree_status_consume_code(issue_range(hart, begin, end));
}

// Hart 0 reads the bindings in one cycle where harts 1-3 wait on the shared
// path, and harts that run from their own scratchpads first pay for their
// copies, so an even split leaves hart 0 idle at the end.  Per dispatch site
// (hart_plan.h), hart 0's share comes from the last dispatch's timings: hart
// 0 at a0 cycles per workgroup; the others at c (copying, 0 in place) + a1
// per workgroup.  Of equally long splits the one giving hart 0 most wins: the
// fewer harts still at work at the end, the more of the fetch port each one
// gets.  With long copies (over 1/16 of hart 0's share) hart 0's rate counts
// 1/16 faster than measured: harts that copy in turn leave hart 0 the fetch
// port for a while; short ones do not (docs/runtime.md, "Measured choices").
// Returns hart 0's share for the site's next dispatch and its predicted
// cycles in *predicted (0: unknown).
static uint32_t balanced_first(uint64_t* predicted) {
  const uint32_t total = job.total - job.base, harts = job.harts;
  const uint32_t n0 = share_begin(total, job.first, 1, harts);
  uint32_t a1 = 0, c = 0;
  for (unsigned h = 1; h < harts; ++h) {
    const uint32_t n = share_begin(total, job.first, h + 1, harts) -
                       share_begin(total, job.first, h, harts);
    if (!n) continue;  // idle
    if (copy_cycles[h] > c) c = copy_cycles[h];  // 0 when it ran in place
    const uint32_t a = (share_cycles[h] - copy_cycles[h]) / n;
    if (a > a1) a1 = a;
  }
  *predicted = 0;  // unknown
  if (!n0 || !a1) return job.first + job.base;
  const bool long_copies = c > share_cycles[0] / 16;
  const uint64_t a0 = (share_cycles[0] - (long_copies ? share_cycles[0] / 16 : 0)) / n0;
  // For the next dispatch from this place: all its workgroups are shared
  // (this one's first ran on hart 0 alone when job.base is 1).
  const uint32_t next = job.total;
  uint32_t best = job.first + job.base;
  uint64_t best_cycles = UINT64_MAX;
  for (uint32_t k = 1; k < next; ++k) {
    const uint32_t per = (next - k + harts - 2) / (harts - 1);
    const uint64_t mine = a0 * k, theirs = c + (uint64_t)a1 * per;
    const uint64_t longest = mine > theirs ? mine : theirs;
    if (longest <= best_cycles) best_cycles = longest, best = k;
  }
  *predicted = best_cycles;
  return best;
}

#if !RUNNER_HARTS_LIBRARY
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
#endif

#if RUNNER_HARTS_AUTO
// Runs workgroups [begin, end) on hart 0 alone, in IREE's order, counted as
// its share; returns the first failure.
static iree_status_t run_alone(uint32_t begin, uint32_t end) {
  const uint32_t start = bsp_cycles32();
  const iree_status_t status = begin < end ? issue_range(0, begin, end)
                                           : iree_ok_status();
  busy[0] += bsp_cycles32() - start;
  return status;
}
#endif

// A whole dispatch on hart 0, in IREE's loop and without the team's
// bookkeeping, so that one that stays on hart 0 costs about what it does in
// an image of one hart.  Counted as hart 0's share.
static __attribute__((noinline)) iree_status_t run_whole(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* d,
    iree_byte_span_t local_memory) {
  const uint32_t start = bsp_cycles32();
  const iree_status_t status =
      runner_run_grid(executable, ordinal, d, /*processor_id=*/0, local_memory);
  busy[0] += bsp_cycles32() - start;
  return status;
}

// Wakes the team at start-up, with the barrier set up in the same step
// (bsp_wake_team): on the cluster hart 0 goes on while the harts come up and
// then sleep in the barrier, so neither start-up nor the first dispatch that
// shares waits for them.  Elsewhere (QEMU) it waits for them.
#if !RUNNER_HARTS_LIBRARY
static iree_status_code_t wake_team(void) {
  if (bsp_wake_team(worker, NULL, stacks, RUNNER_HART_STACK, RUNNER_HARTS) < 0) {
    return IREE_STATUS_UNAVAILABLE;
  }
  __asm__ volatile("fence rw, rw" ::: "memory");
  team_ready = 1;
  return IREE_STATUS_OK;
}
#endif

static bool team_ran;  // since the last runner_harts_next_call()

// Workgroups job.base .. job.total shared by job.harts harts.
static iree_status_code_t run_team(uint32_t local_length) {
  team_ran = true;
  for (unsigned h = 0; h < RUNNER_HARTS; ++h) copy_cycles[h] = 0;
  // Local memory for harts 1..: the heap has no lock, so hart 0 takes it.
  // (The library has no heap: its dispatches with local memory stay on hart
  // 0, run_many.)
  iree_status_code_t code = IREE_STATUS_OK;
  for (unsigned h = 1; h < RUNNER_HARTS && !RUNNER_HARTS_LIBRARY; ++h) {
    job.local_memory[h] = iree_make_byte_span(NULL, local_length);
    if (local_length) {
      job.local_memory[h].data = malloc(local_length);
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
#if !RUNNER_HARTS_LIBRARY
  for (unsigned h = 1; h < RUNNER_HARTS; ++h) free(job.local_memory[h].data);
#endif
  return code;
}

#if RUNNER_HARTS_AUTO
// What harts 1.. would copy in and write back (hart_plan.h).
static runner_plan_bytes_t binding_bytes(void) {
  return (runner_plan_bytes_t){job.local.bytes_in, job.local.bytes_in_split,
                               job.local.bytes_out};
}

// The plan for all of a site's workgroups at `a0` (hart_plan.c): its harts,
// and hart 0's share in *first.
static inline __attribute__((always_inline)) uint32_t plan_whole(
    const runner_plan_site_t* site, uint32_t a0, uint32_t* first) {
  return runner_plan_choose(job.total, a0, site->mode, binding_bytes(),
                            RUNNER_HARTS, first);
}

// What the rest of a site's first dispatch was too little to share may pay
// shared whole (a site of few workgroups whose floor was too low to share
// at first sight, below): its later dispatches then go to the harts, and
// keeps_sharing() checks the first such run.
static void plan_later(runner_plan_site_t* site) {
  uint32_t first;
  const uint32_t harts = plan_whole(site, site->a0, &first);
  if (harts > 1) site->harts = harts, site->first = first;
}

// The least ratio of a site's a0 to its floor (its MACs at the fewest cycles
// a MAC can take, hart_local_check.h) in this run so far, in 16ths (0: none
// yet); and the current site's floor of a0 (0: unknown).
static uint32_t floor_ratio16;
static uint32_t site_floor;

static void learn_floor_ratio(uint32_t a0) {
  if (!site_floor || !a0 || a0 > UINT32_MAX / 16) return;
  const uint32_t ratio16 = a0 * 16 / site_floor;
  if (!floor_ratio16 || ratio16 < floor_ratio16) floor_ratio16 = ratio16;
}

// Whether the plan at `a0` shares the site's dispatch; if so, the site takes
// it.
static bool shares_at(runner_plan_site_t* site, uint32_t a0) {
  uint32_t first;
  const uint32_t harts = a0 ? plan_whole(site, a0, &first) : 1;
  if (harts < 2) return false;
  site->harts = harts;
  site->first = first;
  return true;
}

// Whether a site shares from its first dispatch: when the plan at the floor
// of a0 already does (hart_plan.c), or else at the floor times the least
// ratio of a0 to it seen so far.  The split is then that plan's: exact for a
// site bound by instruction fetch, which copies nothing, or of no more
// workgroups than harts, which gets one a hart; near enough for the others,
// whose harts copy in.  Timing a workgroup alone while the other harts wait
// costs more.  The site's a0 then comes from the harts' rates in that run
// (replan).
static bool shares_at_first_sight(runner_plan_site_t* site) {
  site_floor = runner_local_floor(job.executable, job.ordinal) / job.total;
  if (shares_at(site, site_floor)) return true;
  if (!floor_ratio16 || site_floor > UINT32_MAX / floor_ratio16) return false;
  return shares_at(site, site_floor * floor_ratio16 / 16);
}

// a0 of a site that shared from its first sight, from each hart's rate in
// this run (hart_plan.h); harts 1.. without their copies.
static uint32_t a0_from_share(void) {
  uint32_t workgroups[RUNNER_HARTS], cycles[RUNNER_HARTS];
  const uint32_t total = job.total - job.base;
  for (unsigned h = 0; h < RUNNER_HARTS; ++h) {
    workgroups[h] = share_begin(total, job.first, h + 1, job.harts) -
                    share_begin(total, job.first, h, job.harts);
    cycles[h] = share_cycles[h] - copy_cycles[h];
  }
  return runner_plan_alone(workgroups, cycles, job.harts, job.local.mode);
}

// After a first-sight run: the site's a0, and the plan for it, which may
// take fewer harts than the floor's did (then without a measured prediction
// for keeps_sharing()).
static void replan(runner_plan_site_t* site, uint64_t* predicted) {
  site->a0 = a0_from_share();
  if (!site->runs) learn_floor_ratio(site->a0);  // site_floor is this site's
  uint32_t first;
  const uint32_t harts = plan_whole(site, site->a0, &first);
  if (harts == job.harts) return;
  site->harts = harts;
  site->first = first;
  *predicted = 0;
}

// A site's first dispatch: its mode, then (unless it shares at first sight)
// its first workgroup on hart 0 alone (a0), then the plan for the rest
// (hart_plan.c).  Returns false when the whole dispatch has run.
static bool first_look(runner_plan_site_t* site, iree_status_t* status) {
  site->mode = job.local.mode;
  site->harts = 1;
  if (site->mode == RUNNER_LOCAL_MODE_IN_PLACE) {
    *status = run_whole(job.executable, job.ordinal, job.dispatch_state,
                        job.local_memory[0]);
    return false;
  }
  if (shares_at_first_sight(site)) return true;
  const uint32_t start = bsp_cycles32();
  *status = run_alone(0, 1);
  site->a0 = bsp_cycles32() - start;
  if (!iree_status_is_ok(*status)) return false;
  learn_floor_ratio(site->a0);
  site->harts = runner_plan_choose(job.total - 1, site->a0, site->mode,
                                   binding_bytes(), RUNNER_HARTS, &site->first);
  if (site->harts == 1) {
    *status = run_alone(1, job.total);
    plan_later(site);
    return false;
  }
  job.base = 1;
  return true;
}
#endif

#if RUNNER_HARTS_AUTO
// Whether a site that just ran on several harts in `took` cycles stays
// there.  After its first run (an even split, the first workgroup timed on
// hart 0 alone, its weights copied for the first time) the measured rates
// decide: the balanced split they predict for its next dispatch, plus this
// run's cost of waking and joining, must beat hart 0 alone.  After later runs
// the run itself must have (a site whose run did not goes back to hart 0).
static bool keeps_sharing(const runner_plan_site_t* site, uint32_t took,
                          uint64_t predicted) {
  const uint64_t alone = (uint64_t)(job.total - job.base) * site->a0;
  if (site->runs || !predicted) return took <= alone;
  uint32_t longest = 0;
  for (unsigned h = 0; h < job.harts; ++h) {
    if (share_cycles[h] > longest) longest = share_cycles[h];
  }
  const uint64_t joining = took > longest ? took - longest : 0;
  return predicted + joining < (uint64_t)job.total * site->a0;
}
#endif

// A dispatch that may be shared, published in `job` (apart from dispatch(),
// so that one that stays on hart 0 pays for none of its frame).
static __attribute__((noinline)) iree_status_t share(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory, uint32_t total, runner_plan_site_t* site) {
  job.executable = executable;
  job.ordinal = ordinal;
  job.dispatch_state = dispatch_state;
  job.base = 0;
  job.harts = RUNNER_HARTS;
  job.total = total;
  job.local_memory[0] = local_memory;
  job.local.copy_cycles = copy_cycles;
  runner_local_prepare(&job.local, executable, ordinal, dispatch_state,
                       (uint32_t)local_memory.data_length);
#if RUNNER_HARTS_AUTO
  if (site && !site->harts) {
    iree_status_t status = iree_ok_status();
    if (!first_look(site, &status)) return status;
  }
  if (site) job.harts = site->harts;
#endif
  job.first = site && site->first < job.total - job.base ? site->first : 0;
  const uint32_t start = bsp_cycles32();
  const iree_status_code_t code = run_team((uint32_t)local_memory.data_length);
  uint64_t predicted = 0;
  if (site) site->first = balanced_first(&predicted);
#if RUNNER_HARTS_AUTO
  if (site && !site->a0) replan(site, &predicted);
  if (site && !keeps_sharing(site, bsp_cycles32() - start, predicted)) {
    site->harts = 1;
  }
  if (site) ++site->runs;
#else
  (void)start;
#endif
  return code == IREE_STATUS_OK
             ? iree_ok_status()
             : iree_make_status(code, "workgroup failed on a hart");
}

#if RUNNER_HARTS_AUTO
// Whether a site's whole dispatch at its floor (hart_local_check.h) is too
// small for any plan to share (hart_plan.c), so that one run of it on hart 0
// alone, timed as a whole, costs less than finding a0 and planning.
static bool too_small_at_floor(iree_hal_local_executable_t* executable,
                               iree_host_size_t ordinal) {
  const uint32_t floor = runner_local_floor(executable, ordinal);
  return floor && runner_plan_too_small(floor);
}

// Such a site's first dispatch, on hart 0 alone: if it was as small as its
// floor said, the site stays there; if not, its next dispatch decides as any
// site's first does (first_look).
static iree_status_t run_small(
    runner_plan_site_t* site, iree_hal_local_executable_t* executable,
    iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory, uint32_t total) {
  const uint32_t start = bsp_cycles32();
  const iree_status_t status =
      run_whole(executable, ordinal, dispatch_state, local_memory);
  const uint32_t took = bsp_cycles32() - start;
  site->a0 = took / total ? took / total : 1;
  if (runner_plan_too_small(took)) site->harts = 1;
  return status;
}
#endif

// A dispatch of several workgroups: on hart 0 alone where its site chose so
// (HARTS=auto) or where sharing it would only copy data whole, else shared.
// Whether it only copies data whole is looked up once per site (the lookup
// walks the model's libraries): such a site keeps hart 0 alone (harts 1),
// and in an image of a fixed number of harts the others keep that number.
static __attribute__((noinline)) iree_status_t run_many(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory, uint32_t total) {
  runner_plan_site_t* site = runner_plan_site(
      executable, RUNNER_SITE_KEY(executable, ordinal, dispatch_state));
  if ((site && site->harts == 1) ||
      (RUNNER_HARTS_LIBRARY && local_memory.data_length)) {
    return run_whole(executable, ordinal, dispatch_state, local_memory);
  }
  if (!site || !site->harts) {
    if (runner_local_moves_whole(executable, ordinal,
                                 dispatch_state->binding_count)) {
      if (site) site->harts = 1;
      return run_whole(executable, ordinal, dispatch_state, local_memory);
    }
#if !RUNNER_HARTS_AUTO
    if (site) site->harts = RUNNER_HARTS;  // looked up
#endif
  }
#if RUNNER_HARTS_AUTO
  if (site && !site->harts && !site->a0 && too_small_at_floor(executable, ordinal)) {
    return run_small(site, executable, ordinal, dispatch_state, local_memory,
                     total);
  }
#endif
  return share(executable, ordinal, dispatch_state, local_memory, total, site);
}

// Notes a dispatch's workgroup counts (for the output); returns its
// workgroups.
static uint32_t note_counts(const iree_hal_executable_dispatch_state_v0_t* d) {
  const uint32_t x = d->workgroup_count_x;
  const uint32_t y = d->workgroup_count_y;
  const uint32_t z = d->workgroup_count_z;
  if (count_length < COUNT_CAPACITY) {
    counts[count_length][0] = x;
    counts[count_length][1] = y;
    counts[count_length][2] = z;
    ++count_length;
  }
  return x * y * z;
}

static iree_status_t run_dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  (void)processor_id;
  const uint32_t total = note_counts(dispatch_state);
  if (total < 2) return run_whole(executable, ordinal, dispatch_state, local_memory);
  return run_many(executable, ordinal, dispatch_state, local_memory, total);
}

#if BSP_STAGED_CONSTANTS && !RUNNER_HARTS_LIBRARY
#if defined(BSP_SHARING_COPY_IN_CYCLES)
#define COPY_IN_CYCLES BSP_SHARING_COPY_IN_CYCLES  // a word over the shared path
#define OVERHEAD_CYCLES BSP_SHARING_OVERHEAD_CYCLES  // waking, joining the harts
#else
#define COPY_IN_CYCLES 1
#define OVERHEAD_CYCLES 0
#endif

// A dispatch whose weights hart 0's weight cache does not hold (`pending`:
// the bindings it would stage, every call): harts 1.. run all its workgroups
// from their own scratchpads instead, where each keeps the bytes of those
// weights its share reads from one call to the next (hart_local.c).  The
// weights then cross the shared path once a run, not once a call, and hart
// 0 copies nothing.  Only where each workgroup reads a part of every such
// binding of its own (runner_local_splits): a hart keeps its parts alone;
// and only where staging them would take longer than waking the harts and
// what they copy in and write back every call, the kept weights apart (the
// plan's figures, hart_plan.h): vww's last depthwise layers stage a few KiB
// of weights, but their harts would copy in whole buffers of activations
// (delegated, vww took 130,000 cycles more).
// Returns false when it cannot (nothing ran); else *status is the run's.
static bool delegate(iree_hal_local_executable_t* executable,
                     iree_host_size_t ordinal,
                     const iree_hal_executable_dispatch_state_v0_t* d,
                     iree_byte_span_t local_memory, uint32_t pending,
                     iree_status_t* status) {
  // A site's layers have the same shapes: one refusal holds for all of them.
  runner_plan_site_t* site =
      runner_plan_site(executable, RUNNER_SITE_KEY(executable, ordinal, d));
  if (site && site->stages) return false;
  if (!runner_local_splits(executable, ordinal, pending)) {
    if (site) site->stages = 1;
    return false;
  }
  job.executable = executable;
  job.ordinal = ordinal;
  job.dispatch_state = d;
  job.base = job.first = 0;
  job.total = d->workgroup_count_x * d->workgroup_count_y * d->workgroup_count_z;
  job.harts = RUNNER_HARTS;
  job.local_memory[0] = local_memory;
  job.local.copy_cycles = copy_cycles;
  runner_local_prepare(&job.local, executable, ordinal, d,
                       (uint32_t)local_memory.data_length);
  if (!job.local.fn) {
    if (site) site->stages = 1;
    return false;
  }
  uint32_t kept = 0;
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((pending >> i) & 1) kept += (uint32_t)d->binding_lengths[i];
  }
  // Every woken hart copies bytes_in; the split bytes (the kept weights
  // among them) once in all.
  const uint32_t split = job.local.bytes_in_split;
  const uint64_t others = (uint64_t)job.local.bytes_in * (RUNNER_HARTS - 1) +
                          (split > kept ? split - kept : 0) + job.local.bytes_out;
  if ((uint64_t)kept / 4 * COPY_IN_CYCLES <=
      OVERHEAD_CYCLES + others / 4 * COPY_IN_CYCLES) {
    if (site) site->stages = 1;
    return false;
  }
  note_counts(d);
  job.from_hart = 1;
  const iree_status_code_t code = run_team((uint32_t)local_memory.data_length);
  job.from_hart = 0;
  *status = code == IREE_STATUS_OK
                ? iree_ok_status()
                : iree_make_status(code, "workgroup failed on a hart");
  return true;
}
#endif

iree_status_t runner_harts_warm_up(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory) {
#if BSP_STAGED_CONSTANTS && !RUNNER_HARTS_LIBRARY
  uint32_t pending;
  iree_status_t status = runner_stage_sort(dispatch_state, &pending);
  if (iree_status_is_ok(status) &&
      !(pending && delegate(executable, ordinal, dispatch_state, local_memory,
                            pending, &status))) {
    status = runner_stage_warm_up(dispatch_state);  // the area's room
  }
  runner_unstage();
  return status;
#else
  (void)executable, (void)ordinal, (void)local_memory;
  return warm_up_staging(dispatch_state);
#endif
}

static iree_status_t dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
#if BSP_STAGED_CONSTANTS
  uint32_t pending;
  iree_status_t status = runner_stage_sort(dispatch_state, &pending);
  bool ran = false;
#if !RUNNER_HARTS_LIBRARY
  if (iree_status_is_ok(status) && pending) {
    ran = delegate(executable, ordinal, dispatch_state, local_memory, pending,
                   &status);
  }
#endif
  if (iree_status_is_ok(status) && !ran) {
    status = runner_stage_copy(&dispatch_state);
  }
  if (iree_status_is_ok(status) && !ran) {
    status = run_dispatch(executable, ordinal, dispatch_state, processor_id,
                          local_memory);
  }
  runner_unstage();
  return status;
#else
  return run_dispatch(executable, ordinal, dispatch_state, processor_id,
                      local_memory);
#endif
}

#if !RUNNER_HARTS_LIBRARY
iree_status_t runner_harts_start(void) {
  iree_hal_local_executable_dispatch_hook = dispatch;
  const iree_status_code_t code = wake_team();
  return code == IREE_STATUS_OK ? iree_ok_status()
                                : iree_make_status(code, "the harts did not wake");
}
#endif

// HARTS=auto: after a call in which no dispatch was shared and every site
// had chosen hart 0 (ad: its weights cost more to copy to a hart than to
// use), later calls run as in an image of one hart, IREE's loop or the
// staging hook: the sites' choices are final, so checking them for every
// dispatch would only cost.  The workgroup counts printed are then those of
// the last call that went through the sites.
static bool settled;

static void settle(void) {
#if RUNNER_HARTS_AUTO
  if (settled || team_ran || !runner_plan_all_alone()) return;
  settled = true;
#if BSP_STAGED_CONSTANTS
  runner_staging_start();
#else
  iree_hal_local_executable_dispatch_hook = NULL;
#endif
#endif
}

void runner_harts_next_call(void) {
  if (count_length) settle();
  team_ran = false;
  if (!settled) count_length = 0;
  for (unsigned h = 0; h < RUNNER_HARTS; ++h) busy[h] = 0;
}

#if RUNNER_HARTS_LIBRARY
iree_hal_local_executable_dispatch_fn_t runner_harts_begin_call(void) {
  iree_hal_local_executable_dispatch_hook = dispatch;
  runner_harts_next_call();  // settling puts IREE's own loop back
  if (settled) iree_hal_local_executable_dispatch_hook = NULL;
  return iree_hal_local_executable_dispatch_hook;
}

void runner_harts_share(unsigned hart) { job.status[hart] = run_share_timed(hart); }
#else

// Writes `value` in decimal at `p`; returns the end.
static char* put_u32(char* p, uint32_t value) {
  char digits[10];
  int n = 0;
  BSP_DECIMAL_DIGITS32(value, digits, n);
  while (n) *p++ = digits[--n];
  return p;
}

void runner_harts_print_counts(void) {
  char line[32 + COUNT_CAPACITY * 36 + RUNNER_HARTS * 11];  // 10 digits a number
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

size_t runner_hart_stack_used(unsigned hart) {
  // The stacks were loaded as zeros and a stack frame's deepest word is
  // rarely zero: the lowest non-zero word is the high-water mark.  They are
  // outside hart 0's data region, so it reads them one completed load at a
  // time (bsp_io.h).
  const uintptr_t bottom = (uintptr_t)(stacks + (hart - 1) * RUNNER_HART_STACK);
  const uintptr_t top = bottom + RUNNER_HART_STACK;
  uintptr_t word = bottom;
  while (word < top && bsp_io_read32(word) == 0) word += 4;
  return (size_t)(top - word);
}
#endif  // RUNNER_HARTS_LIBRARY

#else  // one hart: IREE's own loop

iree_status_t runner_harts_warm_up(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    iree_byte_span_t local_memory) {
  (void)executable, (void)ordinal, (void)local_memory;
  return warm_up_staging(dispatch_state);
}

size_t runner_hart_stack_used(unsigned hart) { return 0; }
iree_status_t runner_harts_start(void) {
#if BSP_STAGED_CONSTANTS
  runner_staging_start();
#endif
  return iree_ok_status();
}
void runner_harts_next_call(void) {}
void runner_harts_print_counts(void) {}

#endif  // RUNNER_HARTS > 1
