// Staged constants: a placement's `constants` region in board.toml
// (BSP_STAGED_CONSTANTS), the model's weights apart from the data.
//
// On the cluster the model's constants stay in shared RAM while stack, heap
// and data are in core 0's scratchpad.  The scratchpad rule (bsp/README.md)
// forbids a core to
// access its scratchpad while one of its shared-path accesses is still in
// flight, and a kernel interleaves its loads freely; so no kernel reads shared
// RAM.  Before each dispatch the bindings that lie among the constants
// (__constants_start .. __constants_end) are found in the weight cache
// (weight_cache.c), kept there now if the heap leaves room, or else copied
// into a staging area on the heap, and the kernel gets a dispatch state that
// binds the copies.  A copy uses each shared load's result at once (the
// pipeline waits for it) and only then stores it, so no scratchpad access
// overtakes a shared one.  With iree-compile's resources one per constant
// (Board.iree_compile_flags), a binding is about the weights that dispatch
// reads: each weight crosses the shared path once per run if kept, else once
// per inference, a word at a time.

#include "staging.h"

#include <stdint.h>

#include "bsp_config.h"
#include "weight_cache.h"
#include "workgroups.h"

#if BSP_STAGED_CONSTANTS

#include "bsp_shared_copy.h"  // the board's copy under its memory rule

extern const uint8_t __constants_start[], __constants_end[];

static void* staged_ptrs[RUNNER_MAX_BINDINGS];
static iree_hal_executable_dispatch_state_v0_t staged;

// Whole words from shared RAM into the staging area (bsp_shared_copy.h).
static void copy_words(uint32_t* to, const uint32_t* from, uint32_t words) {
  const uint32_t* whole = from + (words & ~7u);
  const uint32_t* end = from + words;
  to = bsp_copy_blocks(to, from, whole);
  for (from = whole; from < end; ++from, ++to) {
    uint32_t word;
    __asm__ volatile("lw %0, 0(%1)\n\taddi %0, %0, 0\n\tsw %0, 0(%2)"
                     : "=&r"(word)
                     : "r"(from), "r"(to)
                     : "memory");
  }
}

void runner_copy_from_shared(void* to, const void* from, size_t bytes) {
  copy_words((uint32_t*)to, (const uint32_t*)from, bytes / 4);
  const uint8_t* src = (const uint8_t*)from + (bytes & ~(size_t)3);
  uint8_t* dst = (uint8_t*)to + (bytes & ~(size_t)3);
  for (const uint8_t* end = (const uint8_t*)from + bytes; src < end; ++src, ++dst) {
    uint32_t byte;
    __asm__ volatile("lbu %0, 0(%1)\n\taddi %0, %0, 0\n\tsb %0, 0(%2)"
                     : "=&r"(byte)
                     : "r"(src), "r"(dst)
                     : "memory");
  }
}

static bool among_constants(const void* ptr, size_t length) {
  const uint8_t* p = (const uint8_t*)ptr;
  return p < __constants_end && p + length > __constants_start;
}

// Each staged binding keeps its address modulo 64 (the kernels' alignment).
static size_t staged_bytes(uint32_t mask,
                           const iree_hal_executable_dispatch_state_v0_t* d) {
  size_t bytes = 0;
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((mask >> i) & 1) bytes += 64 + ((d->binding_lengths[i] + 3) & ~3u) + 4;
  }
  return bytes;
}

// Binding `i`'s copy in the weight cache (weight_cache.c), made now if there
// is room, or NULL.
static void* kept_copy(const iree_hal_executable_dispatch_state_v0_t* d,
                       unsigned i) {
  const void* from = d->binding_ptrs[i];
  const uint32_t length = (uint32_t)d->binding_lengths[i];
  void* copy = runner_cache_find(from, length);
  if (copy) return copy;
  copy = runner_cache_add(from, length);
  if (!copy) return NULL;
  uintptr_t first;
  const uint32_t words = runner_word_span(from, length, &first);
  copy_words((uint32_t*)((uint8_t*)copy - ((uintptr_t)from & 3)),
             (const uint32_t*)first, words);
  return copy;
}

void runner_unstage(void) { runner_cache_pin(false); }

// Which bindings lie among the constants: those with a kept copy (which
// staged_ptrs then points to; new copies only with `keep`) and the others.
static iree_status_t sort_bindings(const iree_hal_executable_dispatch_state_v0_t* d,
                                   bool keep, uint32_t* kept_mask, uint32_t* mask) {
  *kept_mask = *mask = 0;
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if (!among_constants(d->binding_ptrs[i], d->binding_lengths[i])) continue;
    if (i >= RUNNER_MAX_BINDINGS) {
      return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                              "a dispatch binds constants past binding 31");
    }
    void* copy = keep ? kept_copy(d, i)
                      : runner_cache_find(d->binding_ptrs[i],
                                          (uint32_t)d->binding_lengths[i]);
    if (copy) {
      staged_ptrs[i] = copy;
      *kept_mask |= 1u << i;
    } else {
      *mask |= 1u << i;
    }
  }
  return iree_ok_status();
}

// Of the dispatch being staged: the bindings with a kept copy, and those
// runner_stage_copy() copies into the staging area.
static uint32_t kept_now, staged_now;

__attribute__((noinline, aligned(4))) iree_status_t runner_stage_sort(
    const iree_hal_executable_dispatch_state_v0_t* d, uint32_t* pending) {
  runner_cache_pin(true);
  const iree_status_t status = sort_bindings(d, true, &kept_now, &staged_now);
  *pending = staged_now;
  return status;
}

// Makes the staging area large enough for the sorted dispatch.  Copies
// evicted to make room for it may be this dispatch's: then its bindings are
// sorted again, keeping nothing new (nothing has read them yet).  Each round
// evicts, so the loop ends.  Not inlined: its loops would give the dispatch
// hook a frame of a dozen saved registers, paid by every dispatch.
static __attribute__((noinline)) iree_status_t make_room(
    const iree_hal_executable_dispatch_state_v0_t* d) {
  for (;;) {
    if (!(staged_now | kept_now)) return iree_ok_status();
    const uint32_t count = runner_cache_count();
    if (!runner_cache_area(staged_bytes(staged_now, d) + 63)) {
      return iree_make_status(
          IREE_STATUS_RESOURCE_EXHAUSTED,
          "a dispatch's constants (%u bytes) do not fit the heap for staging; "
          "placement 'shared' runs them in place",
          (unsigned)staged_bytes(staged_now, d));
    }
    if (runner_cache_count() == count) return iree_ok_status();
    IREE_RETURN_IF_ERROR(sort_bindings(d, false, &kept_now, &staged_now));
  }
}

__attribute__((noinline, aligned(4))) iree_status_t runner_stage_copy(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  const iree_hal_executable_dispatch_state_v0_t* d = *dispatch_state;
  IREE_RETURN_IF_ERROR(make_room(d));
  const uint32_t mask = staged_now, kept_mask = kept_now;
  if (!(mask | kept_mask)) return iree_ok_status();
  uint8_t* at = (uint8_t*)(((uintptr_t)runner_cache_area_start() + 63) &
                           ~(uintptr_t)63);
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((kept_mask >> i) & 1) continue;  // its kept copy, set above
    staged_ptrs[i] = d->binding_ptrs[i];
    if (!((mask >> i) & 1)) continue;
    const uintptr_t from = (uintptr_t)d->binding_ptrs[i];
    // runner_word_span(), written out: the helper gave this loop another
    // schedule (docs/runtime.md, "Measured choices").
    const uintptr_t first = from & ~(uintptr_t)3;
    const size_t words = (from + d->binding_lengths[i] - first + 3) / 4;
    copy_words((uint32_t*)(at + (first & 63)), (const uint32_t*)first, words);
    staged_ptrs[i] = at + (from & 63);
    at += ((first & 63) + 4 * words + 63) & ~(size_t)63;
  }
  staged = *d;
  staged.binding_ptrs = staged_ptrs;
  *dispatch_state = &staged;
  return iree_ok_status();
}

iree_status_t runner_stage(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  uint32_t pending;
  IREE_RETURN_IF_ERROR(runner_stage_sort(*dispatch_state, &pending));
  return runner_stage_copy(dispatch_state);
}

// One hart: IREE's own loop, after staging.  It and runner_stage() run for
// every dispatch: aligned whatever the optimisation level of the link (at -Os
// GCC aligns no function), their branches land where they do in every image.
static __attribute__((aligned(4))) iree_status_t dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  iree_status_t status = runner_stage(&dispatch_state);
  if (iree_status_is_ok(status)) {
    status = runner_run_grid(executable, ordinal, dispatch_state, processor_id,
                             local_memory);
  }
  runner_unstage();
  return status;
}

void runner_staging_start(void) {
  iree_hal_local_executable_dispatch_hook = dispatch;
}

// The runner's warm-up (runner.c): runner_stage() without the copies, so the
// cache and the staging area end as staging would leave them but nothing is
// staged, for nothing reads it.
iree_status_t runner_stage_warm_up(
    const iree_hal_executable_dispatch_state_v0_t* d) {
  uint32_t pending;
  iree_status_t status = runner_stage_sort(d, &pending);
  if (iree_status_is_ok(status)) status = make_room(d);
  runner_unstage();
  return status;
}

#else  // constants lie with the data: nothing to stage

iree_status_t runner_stage_sort(
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t* pending) {
  (void)dispatch_state;
  *pending = 0;
  return iree_ok_status();
}

iree_status_t runner_stage_copy(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  (void)dispatch_state;
  return iree_ok_status();
}

iree_status_t runner_stage(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  (void)dispatch_state;
  return iree_ok_status();
}

void runner_staging_start(void) {}
void runner_unstage(void) {}

iree_status_t runner_stage_warm_up(
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state) {
  (void)dispatch_state;
  return iree_ok_status();
}

#endif
