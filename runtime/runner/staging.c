// Staged constants (bsp/cluster4/board.toml, [placements.large]).
//
// The model's constants stay in shared RAM while stack, heap and data are in
// core 0's scratchpad.  The scratchpad rule (bsp/README.md) forbids a core to
// access its scratchpad while one of its shared-path accesses is still in
// flight, and a kernel interleaves its loads freely; so no kernel reads shared
// RAM.  Before each dispatch the bindings that lie among the constants
// (__constants_start .. __constants_end) are copied into a staging area on
// the heap, and the kernel gets a dispatch state that binds the copies.  The
// copy uses each shared load's result at once (the pipeline waits for it)
// and only then stores it, so no scratchpad access overtakes a shared one.
// With iree-compile's resources one per constant (Board.iree_compile_flags),
// a binding is about the weights that dispatch reads: each weight crosses the
// shared path once per inference, a word at a time.

#include "staging.h"

#include <stdint.h>

#include "bsp_config.h"
#include "bsp_memory.h"
#include "shared_copy.h"

#if BSP_STAGED_CONSTANTS

#define MAX_BINDINGS 32

extern const uint8_t __constants_start[], __constants_end[];

// The heap's top, grown to the largest dispatch's constants and kept there:
// allocated anew below a smaller one, it would leave a hole the transient
// buffers of the next call cannot use.
static uint8_t* area;
static size_t area_size;
static void* staged_ptrs[MAX_BINDINGS];
static iree_hal_executable_dispatch_state_v0_t staged;

// Whole words from shared RAM into the staging area (shared_copy.h).
static void copy_words(uint32_t* to, const uint32_t* from, uint32_t words) {
  const uint32_t* whole = from + (words & ~7u);
  const uint32_t* end = from + words;
  to = runner_copy_blocks(to, from, whole);
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

// Small constants are staged once and kept: the build keeps constants out of
// the kernels for these images, so the per-channel multipliers, shifts and
// biases are bindings, not data inside the kernels read over the shared path.
// Staged anew for every dispatch they cost ad 2,901,830 cycles a call (every
// dispatch on hart 0 of HARTS=auto), kept 2,814,251; one hart with them
// inside the kernels took 2,872,269, kept 2,811,861.  Up to KEPT_BYTES in all
// (vww's scratchpad then has 27 KiB left), bindings of at most KEPT_LIMIT
// bytes each; the rest is staged per dispatch as before.
#define KEPT_BYTES (8 * 1024)
#define KEPT_LIMIT 1024
#define KEPT_ENTRIES 64
static uint8_t kept_pool[KEPT_BYTES] __attribute__((aligned(64)));
static uint32_t kept_used, kept_count;
static struct {
  const void* from;
  uint32_t length;
  void* copy;
} kept[KEPT_ENTRIES];

// The kept copy of binding `i` (copied now if there is room), or NULL.
static void* kept_copy(const iree_hal_executable_dispatch_state_v0_t* d,
                       unsigned i) {
  const void* from = d->binding_ptrs[i];
  const uint32_t length = (uint32_t)d->binding_lengths[i];
  if (length > KEPT_LIMIT) return NULL;
  for (uint32_t k = 0; k < kept_count; ++k) {
    if (kept[k].from == from && kept[k].length == length) return kept[k].copy;
  }
  const uintptr_t first = (uintptr_t)from & ~(uintptr_t)3;
  const uint32_t words = (uint32_t)(((uintptr_t)from + length - first + 3) / 4);
  const uint32_t bytes = 64 + 4 * words;
  if (kept_count == KEPT_ENTRIES || kept_used + bytes > KEPT_BYTES) return NULL;
  uint8_t* at = kept_pool + kept_used;
  copy_words((uint32_t*)(at + (first & 63)), (const uint32_t*)first, words);
  kept[kept_count].from = from;
  kept[kept_count].length = length;
  kept[kept_count].copy = at + ((uintptr_t)from & 63);
  kept_used += (bytes + 63) & ~63u;
  return kept[kept_count++].copy;
}

// Not inlined: its loops would give the dispatch hook a frame of a dozen
// saved registers, paid by every dispatch.
__attribute__((noinline)) iree_status_t runner_stage(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  const iree_hal_executable_dispatch_state_v0_t* d = *dispatch_state;
  uint32_t mask = 0, kept_mask = 0;
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if (among_constants(d->binding_ptrs[i], d->binding_lengths[i])) {
      if (i >= MAX_BINDINGS) {
        return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                                "a dispatch binds constants past binding 31");
      }
      void* copy = kept_copy(d, i);
      if (copy) {
        staged_ptrs[i] = copy;
        kept_mask |= 1u << i;
      } else {
        mask |= 1u << i;
      }
    }
  }
  if (!(mask | kept_mask)) return iree_ok_status();
  const size_t need = staged_bytes(mask, d);
  if (need > area_size) {
    area = bsp_heap_top(need + 63);
    area_size = area ? need : 0;
    if (!area) {
      return iree_make_status(
          IREE_STATUS_RESOURCE_EXHAUSTED,
          "a dispatch's constants (%u bytes) do not fit the heap for staging; "
          "placement 'shared' runs them in place",
          (unsigned)need);
    }
  }
  uint8_t* at = (uint8_t*)(((uintptr_t)area + 63) & ~(uintptr_t)63);
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((kept_mask >> i) & 1) continue;  // its kept copy, set above
    staged_ptrs[i] = d->binding_ptrs[i];
    if (!((mask >> i) & 1)) continue;
    const uintptr_t from = (uintptr_t)d->binding_ptrs[i];
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

// One hart: IREE's own loop, after staging.
static iree_status_t dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  IREE_RETURN_IF_ERROR(runner_stage(&dispatch_state));
  const iree_hal_executable_dispatch_state_v0_t* d = dispatch_state;
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
        IREE_RETURN_IF_ERROR(iree_hal_local_executable_issue_call(
            executable, ordinal, d, &state, /*worker_id=*/0));
      }
    }
  }
  return iree_ok_status();
}

void runner_staging_start(void) {
  iree_hal_local_executable_dispatch_hook = dispatch;
}

#else  // constants lie with the data: nothing to stage

iree_status_t runner_stage(
    const iree_hal_executable_dispatch_state_v0_t** dispatch_state) {
  (void)dispatch_state;
  return iree_ok_status();
}

void runner_staging_start(void) {}

#endif
