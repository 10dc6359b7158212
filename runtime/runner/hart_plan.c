// HARTS=auto: each dispatch site runs on hart 0 alone unless a cost rule
// predicts that more harts finish it sooner (parallel.c applies it).
//
// The rule uses what is known before the harts start: the entry point's mode
// (hart_local_check.h), the bytes a hart would copy, the workgroups left, and
// a0, the cycles one workgroup takes on hart 0 alone (estimated from the
// build's floor before a site's first dispatch, below; else parallel.c times
// that dispatch's first workgroup on hart 0 before it decides).  The board's
// figures (board.toml [sharing], bsp_config.h's BSP_SHARING_*) say:
// - every hart fetches through one port: m busy harts each run at most
//   cap/m as fast as one alone (cap16, per mode), and a workgroup takes
//   busy16[n] 16ths of a0 with n harts busy;
// - harts 1.. copy their inputs in, in turn, COPY_IN_CYCLES a word, so hart
//   h starts computing after h copies; they write their outputs back at
//   WRITE_BACK_CYCLES a word;
// - harts 1.. are slower per workgroup than hart 0 (HELPER16 16ths of a0:
//   their write-backs, and in place every access crosses the shared path);
//   kernels other than the local and the fetch-bound ones stay on hart 0;
// - waking and joining the harts (two barriers, local memory, zeroing the
//   outputs) costs about OVERHEAD cycles.
// Before a site's first dispatch the build may know a floor for a0 (its MACs
// at the fewest cycles a MAC can take, hart_local_check.h).  If sharing beats
// hart 0 alone even at that floor, it does at the real a0 too: a prediction
// is the least over the splits of the longer of two times linear in a0, so
// its ratio to a0 falls as a0 grows.  Such a site shares from its first
// dispatch on, as does one the plan shares at the floor times the least
// ratio of a0 to it seen so far in the run (parallel.c), without a workgroup
// timed alone; its a0 comes from the harts' rates in that run
// (runner_plan_alone).
// Harts 1.. get equal shares; of the splits hart 0's share is chosen to give
// the shortest predicted time, and the dispatch goes to several harts only
// if that beats hart 0 alone by 1/16 (and each further hart the fewer by
// 1/EXTRA_HART_MARGIN).  parallel.c then checks each parallel run against a0
// and keeps a site that did not gain on hart 0.  What the figures and the
// margins were measured on: docs/harts.md and docs/runtime.md ("Measured
// choices").

#include "hart_plan.h"

#include "bsp_config.h"
#include "hart_local.h"
#include "hart_local_check.h"

// A site per entry point of the kernel's library (hart_local_check.h lists
// them), and one per dispatch of a board's kernel, which has a site per layer
// (runner_local_site_key): with a site per kernel vww's last 6-row layers found
// the table full and went to every hart in even shares (one of them 303,714
// cycles, where hart 0 took 85,519 for its third).  The program's dispatch count
// bounds those (model_dispatches.h); 64 when the build could not list them.
#if __has_include("model_dispatches.h")
#include "model_dispatches.h"
#endif
#if RUNNER_HART_LOCAL_ENTRY_COUNT && defined(RUNNER_MODEL_DISPATCHES)
#define SITE_CAPACITY (RUNNER_HART_LOCAL_ENTRY_COUNT + RUNNER_MODEL_DISPATCHES)
#elif RUNNER_HART_LOCAL_ENTRY_COUNT
#define SITE_CAPACITY (RUNNER_HART_LOCAL_ENTRY_COUNT + RUNNER_HART_LOCAL_KERNELS)
#else
#define SITE_CAPACITY 64
#endif
// The board's figures (board.toml [sharing], through bsp_config.h).
#if !defined(BSP_SHARING_COPY_IN_CYCLES)
#error "no [sharing] table in the board's board.toml: several harts need one"
#endif
#define COPY_IN_CYCLES BSP_SHARING_COPY_IN_CYCLES  // per word, copied in turn
#define WRITE_BACK_CYCLES BSP_SHARING_WRITE_BACK_CYCLES  // per word
#define OVERHEAD BSP_SHARING_OVERHEAD_CYCLES
#define HELPER16 BSP_SHARING_HELPER16
// A further hart must beat the prediction for fewer by 1/64: the rule counts
// the harts' rates too kindly for three.
#define EXTRA_HART_MARGIN 64

static runner_plan_site_t sites[SITE_CAPACITY];

// Open addressing from the key (an entry point's ordinal, or with a board
// kernel's layer's hash above it): a dispatch finds its site in a probe or a
// few, where a scan would cost every dispatch.
runner_plan_site_t* runner_plan_site(const void* executable,
                                     iree_host_size_t ordinal) {
  const uint32_t start = (uint32_t)(ordinal ^ (ordinal >> 8) ^ (ordinal >> 20));
  for (uint32_t probe = 0; probe < SITE_CAPACITY; ++probe) {
    runner_plan_site_t* site = &sites[(start + probe) % SITE_CAPACITY];
    if (!site->executable) {
      *site = (runner_plan_site_t){executable, ordinal, 0, 0, 0, 0, 0, 0};
      return site;
    }
    if (site->executable == executable && site->ordinal == ordinal) return site;
  }
  return NULL;
}

bool runner_plan_all_alone(void) {
  bool any = false;
  for (uint32_t i = 0; i < SITE_CAPACITY; ++i) {
    if (!sites[i].executable) continue;
    if (sites[i].harts != 1) return false;
    any = true;
  }
  return any;
}

// The harts' joint speed at most, in 16ths of one hart's, by mode (0: never
// share).
static uint32_t cap16(uint32_t mode) {
  return mode == RUNNER_LOCAL_MODE_LOCAL         ? BSP_SHARING_CAP16_LOCAL
         : mode == RUNNER_LOCAL_MODE_FETCH_BOUND ? BSP_SHARING_CAP16_FETCH_BOUND
                                                 : 0;
}

// 16ths of a0 a workgroup takes with n harts busy: the board's table where it
// has one for n (the harts' gains are not one cap for all), else n harts at
// cap/n each.
static uint32_t slow16(uint32_t mode, uint32_t n) {
  static const uint8_t fetch_bound[] = BSP_SHARING_BUSY16_FETCH_BOUND;
  static const uint8_t local[] = BSP_SHARING_BUSY16_LOCAL;
  if (mode == RUNNER_LOCAL_MODE_FETCH_BOUND &&
      n < BSP_SHARING_BUSY16_FETCH_BOUND_LENGTH) {
    return fetch_bound[n];
  }
  if (mode == RUNNER_LOCAL_MODE_LOCAL && n < BSP_SHARING_BUSY16_LOCAL_LENGTH) {
    return local[n];
  }
  const uint32_t busy = n * 256 / cap16(mode);
  return busy > 16 ? busy : 16;
}

// value / divisor, in 32 bits where it fits: a 64-bit division is a libgcc
// call of several hundred cycles on the CV32E40P.
static uint64_t quotient(uint64_t value, uint32_t divisor) {
  return value <= UINT32_MAX ? (uint32_t)value / divisor : value / divisor;
}

// What a prediction for n harts needs besides hart 0's share k.
typedef struct plan_t {
  uint32_t rest, n, mode;
  uint32_t per_rest;  // (2^32 - 1) / rest, for by_rest()
  uint64_t a0_slow;   // a0 times 16ths of a0 per workgroup with n harts busy
  runner_plan_bytes_t bytes;
  bool narrow;  // every quantity of a prediction fits 32 bits
} plan_t;

static plan_t plan_for(uint32_t rest, uint32_t per_rest, uint32_t a0,
                       uint32_t mode, runner_plan_bytes_t bytes, uint32_t n) {
  const uint64_t a0_slow = (uint64_t)a0 * slow16(mode, n);
  // Bounds of every product and sum in mine() and theirs() (HELPER16 <= 32).
  const uint64_t copies = (uint64_t)(n - 1) * (bytes.in / 4 + bytes.in_split / 4 + 1) *
                              COPY_IN_CYCLES + (uint64_t)(bytes.out / 4) * WRITE_BACK_CYCLES;
  const bool narrow = a0_slow * rest * 2 + copies < UINT32_MAX &&
                      (uint64_t)bytes.in_split * rest < UINT32_MAX &&
                      (uint64_t)(bytes.out / 4) * WRITE_BACK_CYCLES * rest < UINT32_MAX;
  return (plan_t){rest, n, mode, per_rest, a0_slow, bytes, narrow};
}

// value / rest, exactly, with a multiplication: per_rest / 2^32 falls short
// of 1 / rest by under 2^-31, so for a 32-bit value the product's high word is
// the quotient or one less (a division costs up to 35 cycles on the CV32E40P,
// and each prediction would take two).
static uint64_t by_rest(const plan_t* p, uint64_t value) {
  if (value > UINT32_MAX) return value / p->rest;
  const uint32_t v = (uint32_t)value;
  uint32_t q = (uint32_t)(((uint64_t)v * p->per_rest) >> 32);
  if (v - q * p->rest >= p->rest) ++q;
  return q;
}

// The others' workgroups each: `workgroups` / `others`, the common divisors
// as constants (multiplications).
static uint32_t per_other(uint32_t workgroups, uint32_t others) {
  switch (others) {
    case 1: return workgroups;
    case 2: return workgroups / 2;
    case 3: return workgroups / 3;
    default: return workgroups / others;
  }
}

// Predicted cycles of hart 0's k workgroups, and of the others' shares of the
// rest (each with its copies), n harts busy.  In 32 bits where the plan is
// narrow (nearly always), the same values, and inlined: the plans run on
// hart 0 before a site's first dispatches.
static inline __attribute__((always_inline)) uint64_t mine(const plan_t* p,
                                                          uint32_t k) {
  if (p->narrow) return (uint32_t)p->a0_slow * k / 16;
  return p->a0_slow * k / 16;
}

static inline __attribute__((always_inline)) uint32_t theirs_narrow(
    const plan_t* p, uint32_t per) {
  uint32_t t = (uint32_t)p->a0_slow * per / 16 * HELPER16 / 16;
  if (p->mode == RUNNER_LOCAL_MODE_LOCAL) {
    const uint32_t in = p->bytes.in + (uint32_t)by_rest(p, p->bytes.in_split * per);
    t += (p->n - 1) * (in / 4) * COPY_IN_CYCLES;
    t += (uint32_t)by_rest(p, (p->bytes.out / 4) * WRITE_BACK_CYCLES * per);
  }
  return t;
}

static inline __attribute__((always_inline)) uint64_t theirs(const plan_t* p,
                                                            uint32_t k) {
  const uint32_t per = per_other(p->rest - k + p->n - 2, p->n - 1);
  if (p->narrow) return theirs_narrow(p, per);
  uint64_t t = p->a0_slow * per / 16 * HELPER16 / 16;
  if (p->mode == RUNNER_LOCAL_MODE_LOCAL) {
    const uint64_t in = p->bytes.in + by_rest(p, (uint64_t)p->bytes.in_split * per);
    t += (uint64_t)(p->n - 1) * (in / 4) * COPY_IN_CYCLES;
    t += by_rest(p, (uint64_t)(p->bytes.out / 4) * WRITE_BACK_CYCLES * per);
  }
  return t;
}

// A bisection over hart 0's share k in [1, hi): the first k where hart 0's
// time reaches the others' (hi when there is none).
static uint32_t first_crossing(const plan_t* p, uint32_t hi) {
  uint32_t lo = 1;
  while (lo < hi) {
    const uint32_t k = lo + (hi - lo) / 2;
    if (mine(p, k) >= theirs(p, k)) hi = k; else lo = k + 1;
  }
  return lo;
}

// The shortest predicted time for n harts and, of the splits that give it,
// the one giving hart 0 most in *k_best (as parallel.c's balanced_first: the
// fewer harts still at work at the end, the more of the fetch port each
// gets).
// Hart 0's time grows with k and the others' shrinks, so the longer of the
// two is least where they cross (found by bisection: a dozen predictions
// instead of rest) or just before.
static uint64_t best_split(const plan_t* p, uint32_t* k_best) {
  const uint32_t cross = first_crossing(p, p->rest);
  uint64_t best = cross < p->rest ? mine(p, cross) : UINT64_MAX;
  *k_best = cross;
  const uint64_t before = cross > 1 ? theirs(p, cross - 1) : UINT64_MAX;
  if (before < best) {  // the others' time decides
    best = before;
    *k_best = cross - 1;
  }
  return best + OVERHEAD;
}

// Whether no split on n harts comes under `bar`: from k_bar on, hart 0's
// share alone takes bar - OVERHEAD, and below it the others' take at least
// what they take at k_bar - 1 (theirs falls as k grows).  One prediction
// instead of a bisection (kws's first call: most of its plans for 3 and 4).
static bool cannot_beat(const plan_t* p, uint64_t bar) {
  if (bar <= OVERHEAD) return true;
  const uint64_t x = bar - OVERHEAD;
  const uint64_t y = 16 * x + p->a0_slow - 1;  // k_bar = y / a0_slow: mine >= x
  const uint64_t k_bar = p->a0_slow <= UINT32_MAX ? quotient(y, (uint32_t)p->a0_slow)
                                                  : y / p->a0_slow;
  if (k_bar <= 1) return true;
  const uint32_t k = k_bar - 1 < p->rest - 1 ? (uint32_t)(k_bar - 1) : p->rest - 1;
  return theirs(p, k) >= x;
}

uint32_t runner_plan_alone(const uint32_t* workgroups, const uint32_t* cycles,
                           uint32_t harts, uint32_t mode) {
  // Together the harts ran at the cap's rate of one alone: a0 is the cap over
  // the sum of their rates (closer to a0 timed alone than hart 0's rate as
  // if each hart had cap/n).  Rates in workgroups per 2^28 cycles.
  uint64_t rate = 0;
  for (uint32_t h = 0; h < harts; ++h) {
    if (workgroups[h] && cycles[h]) {
      rate += quotient((uint64_t)workgroups[h] << 28, cycles[h]);
    }
  }
  if (!rate || rate > UINT32_MAX) return 0;  // under a cycle a workgroup
  return (cap16(mode) << 24) / (uint32_t)rate;
}

bool runner_plan_too_small(uint64_t alone) { return alone <= 4 * OVERHEAD; }

uint32_t runner_plan_choose(uint32_t rest, uint32_t a0, uint32_t mode,
                            runner_plan_bytes_t bytes, uint32_t max_harts,
                            uint32_t* first) {
  *first = 0;
  if (rest < 2 || !cap16(mode)) return 1;
  const uint64_t alone = (uint64_t)rest * a0;
  // At best the harts together run at the cap's rate, so no prediction is
  // under 11/16 of `alone` plus OVERHEAD (caps below 1.4): a dispatch of at
  // most 4 OVERHEADs cannot beat its 15/16, and needs no prediction.
  if (runner_plan_too_small(alone)) return 1;
  uint64_t bar = alone - alone / 16;  // what a prediction must beat
  uint32_t harts = 1;
  const uint32_t per_rest = UINT32_MAX / rest;
  for (uint32_t n = 2; n <= max_harts && n <= rest; ++n) {
    const plan_t p = plan_for(rest, per_rest, a0, mode, bytes, n);
    if (cannot_beat(&p, bar)) continue;
    uint32_t k;
    const uint64_t t = best_split(&p, &k);
    if (t < bar) bar = t - t / EXTRA_HART_MARGIN, harts = n, *first = k;
  }
  return harts;
}
