// Harts 1.. running their share of a dispatch from their own scratchpads
// (hart_local.h: what it offers parallel.c).
//
// The scratchpad rule (bsp/README.md): a core must not issue an access to its
// own scratchpad while one of its shared-path accesses is still in flight.
// So a woken hart lives in one of two modes and never mixes them:
// - in place (parallel.c, the barrier, this file's runner_local_share): all
//   its data, its stack included, is in core 0's scratchpad, reached over the
//   shared path;
// - local (local_share below): stack, copies and state in its own
//   scratchpad; the only shared-path accesses are the explicit ones here,
//   each waiting for its response before the next access (a load's result is
//   used at once; a store is followed by a load of the same word).
// on_stack switches between them: it first waits for every earlier
// shared-path access (a load from the old stack, used at once: the path
// answers in order), then moves the stack pointer into the hart's own
// scratchpad.  The kernels themselves touch only their arguments, which are
// all local copies, and their stack: RUNNER_HART_LOCAL is 1 only when the
// kernel objects and the code they call refer to no data
// (site_scons/ireerv/harts/hart_local.py).
//
// Copies and writing back, by what iree-compile says of each binding
// (hart_local_check.h): a read-only binding is copied in; a write-only one is
// not (the kernel never reads it): hart 0 zeroes what the harts write of it
// before they start, the hart its copy, and afterwards writes back what is
// not zero; any other binding is copied twice (the copy the kernel works on
// and the untouched original) and what differs is written back.  A read-only
// or write-only binding's subspans bound what the kernel touches of it
// (published.slices, from site_scons/ireerv/harts/hart_slices.py: a
// workgroup's part where the compiler's distribution shows it, else the
// whole subspan, from an offset that may be a push constant): only their
// ranges over the hart's workgroups are copied in, zeroed and written back
// (share_ranges); the rest of the copy is left as it is, and the kernel does
// not touch it.  IREE binds whole buffers, so two bindings may be one buffer
// (bindings_allow), and the weights in .rodata stay in the hart's mirror.
// Workgroups write disjoint parts of the outputs, so a hart never writes what
// it did not change, whatever the other harts did: byte by byte, or word by
// word when the kernels store whole words only (RUNNER_HART_LOCAL_WORD_STORES).

#include "hart_local.h"

#include <stddef.h>
#include <string.h>

#include "bsp_config.h"
#include "bsp_cycles.h"
#include "hart_local_check.h"
#include "runner.h"
#include "workgroups.h"

// Per entry point, at its ordinal: its read-only and write-only bindings
// (iree-compile's executable sources, hart_local_check.h), and the fewest
// cycles its whole dispatch takes on one hart (hart_plan.c; 0: unknown).
static const struct {
  uint32_t read_only, write_only;
  uint32_t mode;  // RUNNER_LOCAL_MODE_*
  uint32_t counts[3];  // workgroups in x, y, z the slices were derived for
  uint32_t first_slice, slice_count;
  uint32_t floor;
} entries[] = {RUNNER_HART_LOCAL_ENTRIES};

static const iree_hal_executable_library_v0_t* find_library(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal) {
  if (!executable->dispatch_attrs && runner_model.model->library_count != 1) {
    return NULL;  // the executable's library cannot be told apart
  }
  for (iree_host_size_t l = 0; l < runner_model.model->library_count; ++l) {
    const iree_hal_executable_library_header_t** header =
        runner_model.model->libraries[l](
            IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST, &executable->environment);
    const iree_hal_executable_library_v0_t* library =
        (const iree_hal_executable_library_v0_t*)header;
    if (library && library->exports.attrs == executable->dispatch_attrs &&
        ordinal < library->exports.count) {
      return library;
    }
  }
  return NULL;
}

// The index in entries[] of a library's entry point `ordinal` (-1: not in the
// table).  The build lists the entry points of the kernel's one library by
// ordinal (hart_local.py export_order): no names to compare (their strings
// would sit in core 0's scratchpad, and comparing them cost every dispatch).
static int find_entry(iree_host_size_t ordinal) {
  return runner_model.model->library_count == 1 &&
                 ordinal < RUNNER_HART_LOCAL_ENTRY_COUNT
             ? (int)ordinal
             : -1;
}

uint32_t runner_local_floor(iree_hal_local_executable_t* executable,
                            iree_host_size_t ordinal) {
  const iree_hal_executable_library_v0_t* library =
      find_library(executable, ordinal);
  const int i = library ? find_entry(ordinal) : -1;
  return i >= 0 ? entries[i].floor : 0;
}

bool runner_local_moves_whole(iree_hal_local_executable_t* executable,
                              iree_host_size_t ordinal,
                              uint32_t binding_count) {
  const iree_hal_executable_library_v0_t* library =
      find_library(executable, ordinal);
  const int i = library ? find_entry(ordinal) : -1;
  if (i < 0 || entries[i].floor || entries[i].mode != RUNNER_LOCAL_MODE_LOCAL) {
    return false;
  }
  const uint32_t all =
      binding_count >= 32 ? ~0u : (1u << binding_count) - 1u;
  return (all & ~(entries[i].read_only | entries[i].write_only)) != 0;
}

#if RUNNER_HART_LOCAL_KERNELS
iree_host_size_t runner_local_site_key(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* d) {
  const int i = find_library(executable, ordinal) ? find_entry(ordinal) : -1;
  if (i < 0 || entries[i].counts[0] != RUNNER_ANY_COUNT || ordinal > 0xFF) {
    return ordinal;
  }
  uint32_t hash = 2166136261u;  // FNV-1a over the push constants
  for (uint32_t k = 0; k < d->constant_count; ++k) {
    hash = (hash ^ d->constants[k]) * 16777619u;
  }
  return 0x80000000u | (hash & 0x7FFFFF00u) | (uint32_t)ordinal;
}
#endif

#if defined(BSP_HART_LOCAL_ORIGIN) && RUNNER_HART_LOCAL

#include "bsp_shared_copy.h"  // the board's copy under its memory rule

#define LOCAL_STACK (16 * 1024)
#define MAX_CONSTANTS 64

// Workgroup (x, y, z) reads or writes only the bytes [base + step . (x, y, z),
// + length) of binding `binding` (from the compiler's distribution:
// site_scons/ireerv/harts/hart_slices.py), base counted from push constant
// `constant` when that is not -1 (IREE binds whole buffers and passes the
// offsets as push constants).  `filled`: the workgroup writes every byte of
// its range.  A board's kernel (site_scons/ireerv/harts/kernel_slices.py) is
// one entry point for layers of several shapes, which reach it as push
// constants: its steps and length are each its literal times up to four push
// constants, `step_terms` and `length_terms` (a byte each: ordinal + 1, 0
// none), resolved for each dispatch (use_slices).
typedef struct runner_slice_t {
  uint32_t binding;
  int32_t base;
  int32_t step[3];
  uint32_t length;
  int32_t constant;
  uint32_t filled;
#if RUNNER_HART_LOCAL_KERNELS
  uint32_t step_terms, length_terms;
#endif
} runner_slice_t;

#define MAX_SLICES 16  // per dispatch; bindings beyond are copied whole
#define MAX_RANGES (MAX_SLICES + RUNNER_MAX_BINDINGS)

// Bytes [from, to) of a binding, copied in or written back; `own`: the hart's
// workgroups write every one of them.
typedef struct range_t {
  uint32_t binding, from, to, own;
} range_t;

// What hart 0 publishes for a dispatch besides the job record (apart from
// it: images whose harts run in place need none of it).  Harts copy in one
// after the other (wait_turn):
// `sequence` numbers the dispatch, and copied[h] is the last sequence hart h
// finished copying in for.
typedef struct published_t {
  uint32_t sequence;
  uint32_t slice_count;  // bindings with a known range (the others: whole)
  runner_slice_t slices[MAX_SLICES];
} published_t;
static published_t published;
static uint32_t copied[BSP_HARTS];

// Read-only data (.rodata: the model's weights among it) never changes, so a
// hart keeps what it has copied of it in a mirror at the top of its region,
// below its stack: a later dispatch, or a later call, finds those bytes
// there instead of copying them again over the shared path.  A map of 64-byte
// blocks says which are there; hart h clears it the first time it runs a
// share (scratchpads start with whatever they held), noted in
// resident_ready[h].  Only when .rodata fits RESIDENT_LIMIT.
#if RUNNER_HARTS_LIBRARY  // a firmware's own linker script may define neither:
// then no mirror (resident_span() 0)
extern const uint8_t __rodata_start[] __attribute__((weak));
extern const uint8_t __rodata_end[] __attribute__((weak));
#else
extern const uint8_t __rodata_start[], __rodata_end[];
#endif
#define RESIDENT_BLOCK 64
#define RESIDENT_LIMIT (96 * 1024)
#define RESIDENT_WORDS (RESIDENT_LIMIT / RESIDENT_BLOCK / 32)
static uint32_t resident_ready[BSP_HARTS];

static inline uint32_t resident_span(void) {
  const uint32_t span = (uint32_t)(__rodata_end - __rodata_start);
  return span <= RESIDENT_LIMIT ? span : 0;
}

// Weights kept apart from the data (placement `large`: BSP_STAGED_CONSTANTS)
// never change either.  A hart keeps the bytes of them it copied in, a
// binding's range at a time, in its own scratchpad below the mirror, from
// one call to the next, for as long as KEEP_RESERVE stays free for the
// share's other copies (parallel.c hands such dispatches to harts 1..:
// delegate).  The table of kept ranges sits there too; hart h empties it the
// first time it runs a share (keep_ready[h]).
#if BSP_STAGED_CONSTANTS && !RUNNER_HARTS_LIBRARY
#define KEEPS_CONSTANTS 1
extern const uint8_t __constants_start[], __constants_end[];
#else
#define KEEPS_CONSTANTS 0
#endif
#define KEPT_MAX 64
#define KEEP_RESERVE (64 * 1024)
typedef struct kept_range_t {
  const uint8_t* from;  // in shared RAM
  uint32_t bytes;
  uint8_t* copy;        // in the hart's scratchpad
} kept_range_t;
typedef struct keep_t {
  uint32_t count;
  uint8_t* bottom;  // the lowest copy's start (the table's, with none)
  kept_range_t ranges[KEPT_MAX];
} keep_t;
static uint32_t keep_ready[BSP_HARTS];

typedef struct local_frame_t {
  runner_local_job_t job;
  published_t published;
  iree_hal_executable_environment_v0_t environment;
  iree_hal_executable_dispatch_state_v0_t dispatch;
  void* bindings[RUNNER_MAX_BINDINGS];
  size_t lengths[RUNNER_MAX_BINDINGS];
  uint8_t* shared[RUNNER_MAX_BINDINGS];
  uint8_t* originals[RUNNER_MAX_BINDINGS];
  range_t ranges[MAX_RANGES];  // the bytes copied, written
  uint32_t range_count;
  uint32_t* resident_map;  // NULL: nothing kept (resident_span() is 0)
  uint8_t* mirror;         // .rodata's bytes at the same offsets
  keep_t* keep;            // NULL: no constants kept (KEEPS_CONSTANTS 0)
  uint32_t constants[MAX_CONSTANTS];
  iree_alignas(64) iree_hal_executable_workgroup_state_v0_t workgroup;
} local_frame_t;

static inline uint32_t round_word(size_t bytes) { return (bytes + 3) & ~3u; }
static inline uint8_t* align64(uint8_t* p) {
  return (uint8_t*)(((uintptr_t)p + 63) & ~(uintptr_t)63);
}

// Shared-path words into the scratchpad (one or two copies), under the
// scratchpad rule (bsp_shared_copy.h).
static void copy_in(uint32_t* copy, uint32_t* second, const uint32_t* shared,
                    uint32_t bytes) {
  const uint32_t* end = shared + bytes / 4;
  const uint32_t* whole = shared + (bytes / 32) * 8;
  if (!second) {
    copy = bsp_copy_blocks(copy, shared, whole);
    shared = whole;
  }
  for (; shared < whole; shared += 8, copy += 8) {
    uint32_t word;
    BSP_COPY_EIGHT_WORDS(word, shared, copy);
    if (second) {
      for (unsigned i = 0; i < 8; ++i) second[i] = copy[i];
      second += 8;
    }
  }
  for (; shared < end; ++shared) {
    uint32_t word;
    __asm__ volatile("lw %0, 0(%1)\n\taddi %0, %0, 0"
                     : "=r"(word)
                     : "r"(shared)
                     : "memory");
    *copy++ = word;
    if (second) *second++ = word;
  }
}

// Stores the bytes of `value` selected by `mask` (bit b: byte b) to the
// shared word at `word` and returns when they have completed: the stores go
// out back to back, then a load of the same word waits for them (the shared
// path answers in order).  One asm block, so that no scratchpad access can
// come between them.
static inline void store_bytes(uint32_t* word, uint32_t value, uint32_t mask) {
  uint32_t t0, t1;
  __asm__ volatile(
      "li %1, 15\n\t"
      "bne %4, %1, 1f\n\t"
      "sw %3, 0(%2)\n\t"
      "j 5f\n"
      "1:\tandi %1, %4, 1\n\t"
      "beqz %1, 2f\n\t"
      "sb %3, 0(%2)\n"
      "2:\tandi %1, %4, 2\n\t"
      "beqz %1, 3f\n\t"
      "srli %0, %3, 8\n\t"
      "sb %0, 1(%2)\n"
      "3:\tandi %1, %4, 4\n\t"
      "beqz %1, 4f\n\t"
      "srli %0, %3, 16\n\t"
      "sb %0, 2(%2)\n"
      "4:\tandi %1, %4, 8\n\t"
      "beqz %1, 5f\n\t"
      "srli %0, %3, 24\n\t"
      "sb %0, 3(%2)\n"
      "5:\tlw %0, 0(%2)\n\t"
      "addi %0, %0, 0"
      : "=&r"(t0), "=&r"(t1)
      : "r"(word), "r"(value), "r"(mask)
      : "memory");
}

// Up to four whole words to the shared path, back to back, then one load
// that waits for all of them (in order).  One asm block: no scratchpad access
// can come between.
static inline void store_words(uint32_t* const at[4], const uint32_t value[4],
                               unsigned n) {
  uint32_t t0;
  __asm__ volatile(
      "sw %2, 0(%6)\n\t"
      "li %0, 1\n\t"
      "beq %1, %0, 1f\n\t"
      "sw %3, 0(%7)\n\t"
      "li %0, 2\n\t"
      "beq %1, %0, 1f\n\t"
      "sw %4, 0(%8)\n\t"
      "li %0, 3\n\t"
      "beq %1, %0, 1f\n\t"
      "sw %5, 0(%9)\n"
      "1:\tlw %0, 0(%6)\n\t"
      "addi %0, %0, 0"
      : "=&r"(t0)
      : "r"(n), "r"(value[0]), "r"(value[1]), "r"(value[2]), "r"(value[3]),
        "r"(at[0]), "r"(at[1]), "r"(at[2]), "r"(at[3])
      : "memory");
}

// Eight whole words from the scratchpad to consecutive shared words: the
// scratchpad loads first, then the stores back to back, then one load that
// waits for all of them (the shared path answers in order).  One asm block:
// no scratchpad access can come between the stores and the load.  Each store
// still waits for the one before it (the path has one transaction in flight
// for the whole cluster), so only the closing load is shared by eight words.
static inline void store_block8(uint32_t* to, const uint32_t* from) {
  uint32_t v0, v1, v2, v3, v4, v5, v6, v7;
  __asm__ volatile(
      "lw %0, 0(%9)\n\tlw %1, 4(%9)\n\tlw %2, 8(%9)\n\tlw %3, 12(%9)\n\t"
      "lw %4, 16(%9)\n\tlw %5, 20(%9)\n\tlw %6, 24(%9)\n\tlw %7, 28(%9)\n\t"
      "sw %0, 0(%8)\n\tsw %1, 4(%8)\n\tsw %2, 8(%8)\n\tsw %3, 12(%8)\n\t"
      "sw %4, 16(%8)\n\tsw %5, 20(%8)\n\tsw %6, 24(%8)\n\tsw %7, 28(%8)\n\t"
      "lw %0, 28(%8)\n\t"
      "addi %0, %0, 0"
      : "=&r"(v0), "=&r"(v1), "=&r"(v2), "=&r"(v3), "=&r"(v4), "=&r"(v5),
        "=&r"(v6), "=&r"(v7)
      : "r"(to), "r"(from)
      : "memory");
}

#if RUNNER_HART_LOCAL_WORD_STORES
// The words of `work[0..words)` that differ from `original` (zero where it is
// NULL) to `shared`, in batches of up to four.
static void write_back_words(uint8_t* shared, const uint32_t* work,
                             const uint32_t* original, uint32_t words) {
  uint32_t* at[4];
  uint32_t value[4];
  unsigned n = 0;
  for (uint32_t i = 0; i < words; ++i) {
    const uint32_t now = work[i];
    if (now == (original ? original[i] : 0)) continue;
    at[n] = (uint32_t*)(shared + 4 * i);
    value[n] = now;
    if (++n == 4) store_words(at, value, n), n = 0;
  }
  if (n) store_words(at, value, n);
}

// A write-only binding, eight words at a time: none of them non-zero (the
// parts other harts write) costs one branch, all of them (the hart's own
// results) one store_block8; only mixed blocks go word by word.  The checks
// are lean on purpose: every fetched instruction here competes with the other
// harts' kernels for the one fetch port (a plain word-by-word scan of the
// 16 KiB output of qmatmul64 took a third of the write-back).
static void write_back_zeroed(uint8_t* shared, const uint32_t* work,
                              uint32_t words) {
  const uint32_t* end = work + (words & ~7u);
  for (const uint32_t* p = work; p < end; p += 8, shared += 32) {
    if (p[0] && p[1] && p[2] && p[3] && p[4] && p[5] && p[6] && p[7]) {
      store_block8((uint32_t*)shared, p);
    } else if ((p[0] | p[1] | p[2] | p[3]) | (p[4] | p[5] | p[6] | p[7])) {
      write_back_words(shared, p, NULL, 8);
    }
  }
  write_back_words(shared, end, NULL, words & 7);
}
#endif

// All of it, whole words, eight at a time: for bytes only this hart writes
// (a range its workgroups tile).  An int8 output's zero byte sends no block
// of eight words through byte stores, up to five shared-path transactions a
// word.
static void write_back_own(uint8_t* shared, const uint32_t* work,
                           uint32_t bytes) {
  const uint32_t words = bytes / 4, blocks = words & ~7u;
  for (uint32_t i = 0; i < blocks; i += 8) {
    store_block8((uint32_t*)(shared + 4 * i), work + i);
  }
  uint32_t* at[4];
  uint32_t value[4];
  unsigned n = 0;
  for (uint32_t i = blocks; i < words; ++i) {
    at[n] = (uint32_t*)(shared + 4 * i);
    value[n] = work[i];
    if (++n == 4) store_words(at, value, n), n = 0;
  }
  if (n) store_words(at, value, n);
}

// What differs from `original` (zero where it is NULL), to `shared`.
static void write_back(uint8_t* shared, const uint32_t* work,
                       const uint32_t* original, uint32_t bytes) {
#if RUNNER_HART_LOCAL_WORD_STORES
  if (original) {
    write_back_words(shared, work, original, bytes / 4);
  } else {
    write_back_zeroed(shared, work, bytes / 4);
  }
#else
  const uint32_t words = bytes / 4;
  for (uint32_t i = 0; i < words; i += 8) {
    const uint32_t* p = work + i;
    const uint32_t n = words - i < 8 ? words - i : 8;
    if (!original && n == 8) {
      // Eight words without a zero byte (the hart's own results, mostly)
      // go out as one block: 9 shared-path transactions instead of 16.
      uint32_t zero_byte = 0;
      for (unsigned k = 0; k < 8; ++k) {
        zero_byte |= (p[k] - 0x01010101u) & ~p[k] & 0x80808080u;
      }
      if (!zero_byte) {
        store_block8((uint32_t*)(shared + 4 * i), p);
        continue;
      }
    }
    for (uint32_t k = 0; k < n; ++k) {
      const uint32_t now = p[k], diff = now ^ (original ? original[i + k] : 0);
      if (!diff) continue;
      const uint32_t mask = ((diff & 0xff) != 0) | ((diff & 0xff00) != 0) << 1 |
                            ((diff & 0xff0000) != 0) << 2 |
                            ((diff & 0xff000000) != 0) << 3;
      store_bytes((uint32_t*)(shared + 4 * (i + k)), now, mask);
    }
  }
#endif
}

// Where a slice starts: its base, plus its push constant's value (use_slices
// publishes only slices whose push constant the dispatch has).
static int32_t slice_base(const runner_slice_t* s, const uint32_t* constants) {
  return s->constant < 0 ? s->base : s->base + (int32_t)constants[s->constant];
}

// Whether the workgroups, one after the other in id order (x first), fill
// ranges each right after the one before: then any run of them writes every
// byte from its first range's start to its last one's end, and the grid all
// of the slice's bytes (vww's 1x1 layers: one output row a workgroup).
static bool tiles(const runner_slice_t* s,
                  const iree_hal_executable_dispatch_state_v0_t* d) {
  if (!s->filled) return false;
  const uint32_t counts[3] = {d->workgroup_count_x, d->workgroup_count_y,
                              d->workgroup_count_z};
  int64_t next = s->length;  // the step the next dimension that moves must have
  for (unsigned k = 0; k < 3; ++k) {
    if (counts[k] == 1) continue;
    if (s->step[k] != next) return false;
    next *= counts[k];
  }
  return true;
}

// The bytes of each binding that workgroups [begin, end) touch: the union of
// each slice's over those workgroups (whole words, within the binding), and
// all of a binding without slices.  The ids are stepped as the workgroup loop
// steps them (workgroups.h).
static void share_ranges(local_frame_t* f, uint32_t begin, uint32_t end) {
  const iree_hal_executable_dispatch_state_v0_t* d = &f->dispatch;
  const uint32_t per_z = d->workgroup_count_x * d->workgroup_count_y;
  uint32_t sliced = 0;
  f->range_count = 0;
  for (uint32_t k = 0; k < f->published.slice_count; ++k) {
    const runner_slice_t* s = &f->published.slices[k];
    if (s->binding >= d->binding_count) continue;
    sliced |= 1u << s->binding;
    const int32_t base = slice_base(s, f->constants);
    int32_t lo = base, hi = base + (int32_t)s->length;
    // Own: ranges the workgroups tile, whole words (no other hart's bytes).
    uint32_t own = 0;
    if (s->step[0] | s->step[1] | s->step[2]) {
      own = tiles(s, d);
      lo = INT32_MAX, hi = INT32_MIN;
      uint32_t id[3];
      RUNNER_WORKGROUP_AT(begin, d->workgroup_count_x, per_z, id[0], id[1],
                          id[2]);
      for (uint32_t w = begin; w < end; ++w) {
        const int32_t at = base + s->step[0] * (int32_t)id[0] +
                           s->step[1] * (int32_t)id[1] +
                           s->step[2] * (int32_t)id[2];
        if (at < lo) lo = at;
        if (at + (int32_t)s->length > hi) hi = at + (int32_t)s->length;
        RUNNER_WORKGROUP_STEP(id[0], id[1], id[2], d->workgroup_count_x,
                              d->workgroup_count_y);
      }
    }
    const int32_t bytes = (int32_t)round_word(f->lengths[s->binding]);
    if ((lo | hi) & 3 || lo < 0 || hi > bytes) own = 0;
    lo = lo < 0 ? 0 : lo & ~3;
    hi = hi > bytes ? bytes : (hi + 3) & ~3;
    if (lo < hi) {
      f->ranges[f->range_count++] =
          (range_t){s->binding, (uint32_t)lo, (uint32_t)hi, own};
    }
  }
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if (!((sliced >> i) & 1)) {
      f->ranges[f->range_count++] =
          (range_t){i, 0, round_word(f->lengths[i]), 0};
    }
  }
}

// The read-only bindings that lie in .rodata, when the hart keeps a mirror.
static uint32_t resident_bindings(const local_frame_t* f) {
  uint32_t mask = 0;
  if (!f->resident_map) return 0;
  for (unsigned i = 0; i < f->dispatch.binding_count; ++i) {
    const uint8_t* at = f->shared[i];
    if (((f->job.read_only >> i) & 1) && at >= __rodata_start &&
        at + f->lengths[i] <= __rodata_end) {
      mask |= 1u << i;
    }
  }
  return mask;
}

// Bytes [offset, + bytes) of .rodata into the mirror, those not there yet.
static void keep_resident(local_frame_t* f, uint32_t offset, uint32_t bytes) {
  const uint32_t span = resident_span();
  for (uint32_t b = offset / RESIDENT_BLOCK;
       b * RESIDENT_BLOCK < offset + bytes; ++b) {
    const uint32_t bit = 1u << (b % 32);
    if (f->resident_map[b / 32] & bit) continue;
    const uint32_t at = b * RESIDENT_BLOCK;
    const uint32_t length = at + RESIDENT_BLOCK <= span ? RESIDENT_BLOCK
                                                        : round_word(span - at);
    copy_in((uint32_t*)(f->mirror + at), NULL,
            (const uint32_t*)(__rodata_start + at), length);
    f->resident_map[b / 32] |= bit;
  }
}

// The bytes [*lo, *hi) of binding i that the share's ranges span (both 0:
// none), *lo a multiple of 64.
static void binding_span(const local_frame_t* f, unsigned i, uint32_t* lo,
                         uint32_t* hi) {
  *lo = UINT32_MAX, *hi = 0;
  for (uint32_t k = 0; k < f->range_count; ++k) {
    const range_t* r = &f->ranges[k];
    if (r->binding != i) continue;
    if (r->from < *lo) *lo = r->from;
    if (r->to > *hi) *hi = r->to;
  }
  if (*lo > *hi) *lo = *hi = 0;  // nothing of it is touched
  *lo &= ~63u;
}

// The kept copy of [from, + bytes), made now if the keep may grow down to
// `floor`, or NULL.
static uint8_t* kept_range_copy(keep_t* k, const uint8_t* from,
                                uint32_t bytes, const uint8_t* floor) {
  for (uint32_t e = 0; e < k->count; ++e) {
    const kept_range_t* r = &k->ranges[e];
    if (r->from == from && r->bytes == bytes) return r->copy;
  }
  uint8_t* copy = (uint8_t*)(((uintptr_t)k->bottom - bytes) & ~(uintptr_t)63);
  if (k->count == KEPT_MAX || copy < floor) return NULL;
  copy_in((uint32_t*)copy, NULL, (const uint32_t*)from, bytes);
  k->ranges[k->count++] = (kept_range_t){from, bytes, copy};
  k->bottom = copy;
  return copy;
}

// Binds the read-only bindings among the kept-apart constants to kept
// copies of their spans (made now where there is room); returns those bound
// and lowers *limit below the keep.
static uint32_t bind_kept(local_frame_t* f, uint32_t resident, uint8_t* free,
                          uint8_t** limit) {
  uint32_t mask = 0;
#if KEEPS_CONSTANTS
  keep_t* k = f->keep;
  for (unsigned i = 0; i < f->dispatch.binding_count; ++i) {
    const uint8_t* at = f->shared[i];
    if (((resident >> i) & 1) || !((f->job.read_only >> i) & 1) ||
        at < __constants_start || at + f->lengths[i] > __constants_end) {
      continue;
    }
    uint32_t lo, hi;
    binding_span(f, i, &lo, &hi);
    if (lo == hi) continue;
    uint8_t* copy = kept_range_copy(k, at + lo, hi - lo, free + KEEP_RESERVE);
    if (!copy) continue;
    f->bindings[i] = copy - lo;
    f->originals[i] = NULL;
    mask |= 1u << i;
  }
  *limit = k->bottom;
#else
  (void)f, (void)resident, (void)free, (void)limit;
#endif
  return mask;
}

// Lays out and fills the copies; returns false if they do not fit.  A
// binding's copy spans its ranges only, placed so that its base pointer keeps
// the shared one's alignment to 64 bytes (what the kernels assume).
static bool copy_bindings(local_frame_t* f, uint8_t* free, uint8_t* limit,
                          uint8_t** local_memory, uint32_t begin,
                          uint32_t end) {
  iree_hal_executable_dispatch_state_v0_t* d = &f->dispatch;
  const unsigned n = d->binding_count;
  copy_in((uint32_t*)f->shared, NULL, (const uint32_t*)d->binding_ptrs, 4 * n);
  copy_in((uint32_t*)f->lengths, NULL, (const uint32_t*)d->binding_lengths,
          4 * n);
  copy_in(f->constants, NULL, d->constants, 4 * d->constant_count);
  share_ranges(f, begin, end);
  const uint32_t changing = ~(f->job.read_only | f->job.write_only);
  const uint32_t resident = resident_bindings(f);
  const uint32_t kept = f->keep ? bind_kept(f, resident, free, &limit) : 0;
  for (unsigned i = 0; i < n; ++i) {
    if ((kept >> i) & 1) continue;  // bound above
    if ((resident >> i) & 1) {
      f->bindings[i] = f->mirror + (f->shared[i] - __rodata_start);
      f->originals[i] = NULL;
      continue;
    }
    uint32_t lo, hi;
    binding_span(f, i, &lo, &hi);
    free = align64(free);
    f->bindings[i] = free - lo;
    free += hi - lo;
    f->originals[i] = (changing >> i) & 1 ? free - lo : NULL;
    if (f->originals[i]) free += hi - lo;
    if (free > limit) return false;
  }
  *local_memory = free = align64(free);
  if (free + f->job.local_memory_size > limit) return false;
  for (uint32_t k = 0; k < f->range_count; ++k) {
    const range_t* r = &f->ranges[k];
    const unsigned i = r->binding;
    uint8_t* copy = (uint8_t*)f->bindings[i] + r->from;
    if ((kept >> i) & 1) continue;  // there since it was kept
    if ((resident >> i) & 1) {
      keep_resident(f, (uint32_t)(f->shared[i] - __rodata_start) + r->from,
                    r->to - r->from);
    } else if ((f->job.write_only >> i) & 1) {
      memset(copy, 0, r->to - r->from);
    } else {
      copy_in((uint32_t*)copy,
              f->originals[i] ? (uint32_t*)(f->originals[i] + r->from) : NULL,
              (const uint32_t*)(f->shared[i] + r->from), r->to - r->from);
    }
  }
  d->binding_ptrs = f->bindings;
  d->binding_lengths = f->lengths;
  d->constants = f->constants;
  return true;
}

// Hart h >= 2 starts its copies when hart h - 1 has finished its own: the
// shared path serves one transaction at a time, so harts copying at once all
// finish late, while in turn the first starts computing early and the last
// about when it did before; their write-backs then come apart too.  Between
// two looks at the flag (one shared-path load each) a chain of eight divides
// waits while fetching next to nothing (a spinning hart would take the fetch
// port from the computing ones).  Hart h - 1 has
// work whenever hart h has (parallel.c gives the larger shares to the lower
// harts), so it comes here too, and passes the turn on even when its copies
// do not fit.  The wait is bounded all the same: past it the hart copies at
// once, which is only slower.
static void wait_turn(const uint32_t* flag, uint32_t sequence) {
  for (uint32_t tries = 0; tries < 16384; ++tries) {
    uint32_t value, x = UINT32_MAX;
    __asm__ volatile("lw %0, 0(%1)\n\taddi %0, %0, 0"
                     : "=r"(value)
                     : "r"(flag)
                     : "memory");
    if (value == sequence) return;
    __asm__ volatile(
        "divu %0, %0, %1\n\tdivu %0, %0, %1\n\tdivu %0, %0, %1\n\t"
        "divu %0, %0, %1\n\tdivu %0, %0, %1\n\tdivu %0, %0, %1\n\t"
        "divu %0, %0, %1\n\tdivu %0, %0, %1"
        : "+r"(x)
        : "r"(1u));
  }
}

// Sets up the hart's mirror of .rodata (resident_ready above), below `limit`.
static void set_up_mirror(uint8_t* base, unsigned hart, uint8_t** limit) {
  local_frame_t* f = (local_frame_t*)base;
  f->resident_map = NULL;
  const uint32_t span = resident_span();
  if (!span) return;
  uint32_t* map = (uint32_t*)(*limit - RESIDENT_WORDS * 4);
  // The mirror keeps .rodata's offset to 64 bytes (the kernels' alignment).
  const uintptr_t phase = (uintptr_t)__rodata_start & 63;
  uint8_t* mirror = (uint8_t*)((((uintptr_t)map - span) & ~(uintptr_t)63) - 64) + phase;
  uint32_t ready;
  copy_in(&ready, NULL, &resident_ready[hart], 4);
  if (!ready) {
    for (unsigned k = 0; k < RESIDENT_WORDS; ++k) map[k] = 0;
    store_bytes(&resident_ready[hart], 1, 15);
  }
  f->resident_map = map;
  f->mirror = mirror;
  *limit = mirror;
}

// Sets up the hart's keep of constants (keep_ready above), below `limit`.
static void set_up_keep(uint8_t* base, unsigned hart, uint8_t* limit) {
  local_frame_t* f = (local_frame_t*)base;
  f->keep = NULL;
  if (!KEEPS_CONSTANTS) return;
  keep_t* k = (keep_t*)(((uintptr_t)limit - sizeof(keep_t)) & ~(uintptr_t)63);
  uint32_t ready;
  copy_in(&ready, NULL, &keep_ready[hart], 4);
  if (!ready) {
    k->count = 0;
    k->bottom = (uint8_t*)k;
    store_bytes(&keep_ready[hart], 1, 15);
  }
  f->keep = k;
}

// Workgroups [begin, end) of the published dispatch on hart `hart`, from its
// own scratchpad: copies in, runs, writes back.  Runs on the hart's own stack
// (on_stack) and touches the shared path only through copy_in, wait_turn,
// store_bytes, store_words and store_block8.  Returns an iree_status_code_t,
// or RUNNER_LOCAL_DOES_NOT_FIT when the copies do not fit (nothing ran).
static uint32_t local_share(const runner_local_job_t* job, unsigned hart,
                            uint32_t begin, uint32_t end) {
  const uint32_t start = bsp_cycles32();
  uint8_t* base = (uint8_t*)(BSP_HART_LOCAL_ORIGIN + hart * BSP_HART_LOCAL_LENGTH);
  uint8_t* limit = base + BSP_HART_LOCAL_LENGTH - LOCAL_STACK;
  set_up_mirror(base, hart, &limit);
  set_up_keep(base, hart, limit);
  local_frame_t* f = (local_frame_t*)base;
  copy_in((uint32_t*)&f->job, NULL, (const uint32_t*)job, sizeof *job);
  copy_in((uint32_t*)&f->published, NULL, (const uint32_t*)&published, 8);
  copy_in((uint32_t*)f->published.slices, NULL,
          (const uint32_t*)published.slices,
          f->published.slice_count * sizeof(runner_slice_t));
  if (hart >= 2) wait_turn(&copied[hart - 1], f->published.sequence);
  copy_in((uint32_t*)&f->environment, NULL,
          (const uint32_t*)f->job.environment, sizeof f->environment);
  copy_in((uint32_t*)&f->dispatch, NULL,
          (const uint32_t*)f->job.dispatch_state, sizeof f->dispatch);
  iree_hal_executable_dispatch_state_v0_t* d = &f->dispatch;
  uint8_t* local_memory = NULL;
  if (d->binding_count > RUNNER_MAX_BINDINGS ||
      d->constant_count > MAX_CONSTANTS ||
      !copy_bindings(f, (uint8_t*)(f + 1), limit, &local_memory, begin, end)) {
    store_bytes(&copied[hart], f->published.sequence, 15);  // next hart's turn
    return RUNNER_LOCAL_DOES_NOT_FIT;
  }
  store_bytes(&copied[hart], f->published.sequence, 15);  // next hart's turn
  store_bytes(&f->job.copy_cycles[hart], bsp_cycles32() - start, 15);
  const uint32_t per_z = d->workgroup_count_x * d->workgroup_count_y;
  iree_hal_executable_workgroup_state_v0_t* w = &f->workgroup;
  *w = (iree_hal_executable_workgroup_state_v0_t){
      .workgroup_id_x = begin % d->workgroup_count_x,
      .workgroup_id_y = (begin % per_z) / d->workgroup_count_x,
      .workgroup_id_z = begin / per_z,
      .processor_id = hart,
      .local_memory = local_memory,
      .local_memory_size = f->job.local_memory_size,
  };
  uint32_t code = IREE_STATUS_OK;
  for (uint32_t i = begin; i < end && code == IREE_STATUS_OK; ++i) {
    if (f->job.fn(&f->environment, d, w)) code = IREE_STATUS_INTERNAL;
    RUNNER_WORKGROUP_STEP(w->workgroup_id_x, w->workgroup_id_y,
                          w->workgroup_id_z, d->workgroup_count_x,
                          d->workgroup_count_y);
  }
  for (uint32_t k = 0; k < f->range_count; ++k) {
    const range_t* r = &f->ranges[k];
    if ((f->job.read_only >> r->binding) & 1) continue;
    const uint8_t* work = (const uint8_t*)f->bindings[r->binding] + r->from;
    const uint32_t* original =
        f->originals[r->binding]
            ? (const uint32_t*)(f->originals[r->binding] + r->from)
            : NULL;
    if (r->own && !original) {
      write_back_own(f->shared[r->binding] + r->from, (const uint32_t*)work,
                     r->to - r->from);
    } else {
      write_back(f->shared[r->binding] + r->from, (const uint32_t*)work,
                 original, r->to - r->from);
    }
  }
  return code;
}

// fn(a0, a1, a2, a3) on the stack whose top is `top`, after every earlier
// shared-path access has completed (see the top of this file).
__attribute__((naked, noinline)) static uint32_t on_stack(
    const runner_local_job_t* job, unsigned hart, uint32_t begin, uint32_t end,
    uint32_t (*fn)(const runner_local_job_t*, unsigned, uint32_t, uint32_t),
    uintptr_t top) {
  __asm__ volatile(
      "addi sp, sp, -16\n\t"
      "sw ra, 12(sp)\n\t"
      "sw s0, 8(sp)\n\t"
      "mv s0, sp\n\t"
      "lw t0, 8(sp)\n\t"
      "addi t0, t0, 0\n\t"
      "mv sp, a5\n\t"
      "jalr a4\n\t"
      "mv sp, s0\n\t"
      "lw s0, 8(sp)\n\t"
      "lw ra, 12(sp)\n\t"
      "addi sp, sp, 16\n\t"
      "ret");
}

uint32_t runner_local_share(const runner_local_job_t* job, unsigned hart,
                            uint32_t begin, uint32_t end) {
  const uintptr_t top =
      BSP_HART_LOCAL_ORIGIN + (uintptr_t)(hart + 1) * BSP_HART_LOCAL_LENGTH;
  return on_stack(job, hart, begin, end, local_share, top);
}

static const runner_slice_t slices[] = {RUNNER_HART_LOCAL_SLICES};

bool runner_local_splits(iree_hal_local_executable_t* executable,
                         iree_host_size_t ordinal, uint32_t bindings) {
  const int i = find_library(executable, ordinal) ? find_entry(ordinal) : -1;
  if (i < 0 || entries[i].mode != RUNNER_LOCAL_MODE_LOCAL ||
      (bindings & ~entries[i].read_only)) {
    return false;
  }
  uint32_t split = 0;
  for (uint32_t k = entries[i].first_slice;
       k < entries[i].first_slice + entries[i].slice_count; ++k) {
    const runner_slice_t* s = &slices[k];
    if (s->step[0] | s->step[1] | s->step[2]) split |= 1u << s->binding;
  }
  return (bindings & ~split) == 0;
}

// The one dimension with more than one workgroup, or -1.
static int only_dimension(const uint32_t counts[3]) {
  int found = -1;
  for (int k = 0; k < 3; ++k) {
    if (counts[k] > 1) {
      if (found >= 0) return -1;
      found = k;
    }
  }
  return found;
}

// Slice `s` made the bytes all workgroups of grid `counts` touch together.
static void whole_grid(runner_slice_t* s, const uint32_t counts[3]) {
  int32_t lo = 0, hi = (int32_t)s->length;
  for (unsigned k = 0; k < 3; ++k) {
    const int32_t reach = s->step[k] * (int32_t)(counts[k] ? counts[k] - 1 : 0);
    if (reach < 0) lo += reach;
    else hi += reach;
    s->step[k] = 0;
  }
  s->base += lo;
  s->length = (uint32_t)(hi - lo);
  s->filled = 0;
}

#if RUNNER_HART_LOCAL_KERNELS
// Whether the dispatch has every push constant `terms` names.
static bool terms_known(uint32_t terms,
                        const iree_hal_executable_dispatch_state_v0_t* d) {
  for (; terms; terms >>= 8) {
    if ((terms & 0xFF) > d->constant_count) return false;
  }
  return true;
}

// `literal` times the push constants `terms` names (runner_slice_t).
static uint32_t scaled(uint32_t literal, uint32_t terms,
                       const iree_hal_executable_dispatch_state_v0_t* d) {
  for (; terms; terms >>= 8) {
    if (terms & 0xFF) literal *= d->constants[(terms & 0xFF) - 1];
  }
  return literal;
}
#endif

// An entry point's slices (of its read-only and write-only bindings).  Those
// that move with the workgroup id hold for the workgroup counts they were
// derived for (counts 0: none move), or for the same count along another
// dimension when only one has more than one workgroup (later passes may move
// the forall's y to x: resnet8's convolutions, (1, 32, 1) run as 32x1x1),
// or for any count in x (RUNNER_ANY_COUNT); otherwise their bindings are
// copied whole.  Steps and lengths made of push constants get their values.
static void use_slices(const runner_local_job_t* job, const uint32_t counts[3],
                       uint32_t first, uint32_t count,
                       const iree_hal_executable_dispatch_state_v0_t* d) {
  const uint32_t runs[3] = {d->workgroup_count_x, d->workgroup_count_y,
                            d->workgroup_count_z};
  const int from = only_dimension(counts), to = only_dimension(runs);
  const bool same = counts[0] == runs[0] && counts[1] == runs[1] &&
                    counts[2] == runs[2];
#if RUNNER_HART_LOCAL_KERNELS
  const bool any = counts[0] == RUNNER_ANY_COUNT && runs[1] == 1 && runs[2] == 1;
#else
  const bool any = false;
#endif
  const bool moved = !same && !any && from >= 0 && to >= 0 &&
                     counts[from] == runs[to];
  uint32_t usable_count = 0;
  uint32_t unknown = 0;  // a push constant the dispatch lacks: copied whole
  for (uint32_t k = first; k < first + count; ++k) {
    const runner_slice_t* s = &slices[k];
    if (s->constant >= 0 && (uint32_t)s->constant >= d->constant_count) {
      unknown |= 1u << s->binding;
    }
#if RUNNER_HART_LOCAL_KERNELS
    if (!terms_known(s->step_terms, d) || !terms_known(s->length_terms, d)) {
      unknown |= 1u << s->binding;
    }
#endif
  }
  // Derived for another grid (IREE may still linearise the workgroups: the
  // forall's 16x8 of a pack runs as 128x1x1): the grid's bytes, not moving.
  const bool flatten = !(same || moved || any);
  const uint32_t usable = (job->read_only | job->write_only) & ~unknown;
  for (uint32_t k = first; k < first + count; ++k) {
    if ((usable >> slices[k].binding) & 1) ++usable_count;
  }
  if (usable_count > MAX_SLICES) return;  // every binding whole
  for (uint32_t k = first; k < first + count; ++k) {
    if (!((usable >> slices[k].binding) & 1)) continue;
    runner_slice_t* s = &published.slices[published.slice_count++];
    *s = slices[k];
#if RUNNER_HART_LOCAL_KERNELS
    for (unsigned j = 0; j < 3; ++j) {
      s->step[j] = (int32_t)scaled((uint32_t)s->step[j], s->step_terms, d);
    }
    s->length = scaled(s->length, s->length_terms, d);
    s->step_terms = s->length_terms = 0;
#endif
    if (moved && from != to) s->step[to] = s->step[from], s->step[from] = 0;
    if (flatten && (s->step[0] | s->step[1] | s->step[2])) whole_grid(s, counts);
  }
}

// Bytes [lo, hi) of the binding that a slice covers over every workgroup.
static void grid_range(const runner_slice_t* s,
                       const iree_hal_executable_dispatch_state_v0_t* d,
                       int32_t* lo, int32_t* hi) {
  const uint32_t counts[3] = {d->workgroup_count_x, d->workgroup_count_y,
                              d->workgroup_count_z};
  *lo = slice_base(s, d->constants);
  *hi = *lo + (int32_t)s->length;
  for (unsigned k = 0; k < 3; ++k) {
    const int32_t reach = s->step[k] * (int32_t)(counts[k] - 1);
    if (reach < 0) *lo += reach;
    else *hi += reach;
  }
}

// Whether binding i's bytes (all of them, or its slices' over every
// workgroup) meet binding j's, in memory.
static bool bytes_meet(const iree_hal_executable_dispatch_state_v0_t* d,
                       uint32_t sliced, unsigned i, unsigned j) {
  const uintptr_t a = (uintptr_t)d->binding_ptrs[i];
  const uintptr_t b = (uintptr_t)d->binding_ptrs[j];
  if (!(a < b + d->binding_lengths[j] && b < a + d->binding_lengths[i])) {
    return false;
  }
  if (!((sliced >> i) & (sliced >> j) & 1)) return true;
  for (uint32_t p = 0; p < published.slice_count; ++p) {
    if (published.slices[p].binding != i) continue;
    int32_t lo_p, hi_p;
    grid_range(&published.slices[p], d, &lo_p, &hi_p);
    for (uint32_t q = 0; q < published.slice_count; ++q) {
      if (published.slices[q].binding != j) continue;
      int32_t lo_q, hi_q;
      grid_range(&published.slices[q], d, &lo_q, &hi_q);
      if ((intptr_t)a + lo_p < (intptr_t)b + hi_q &&
          (intptr_t)b + lo_q < (intptr_t)a + hi_p) {
        return true;
      }
    }
  }
  return false;
}

// The copies keep one binding's bytes apart from another's: bindings may be
// the same buffer (IREE binds whole buffers, offsets in push constants) as
// long as what one writes meets nothing the other touches.
static bool bindings_allow(const runner_local_job_t* job,
                           const iree_hal_executable_dispatch_state_v0_t* d) {
  uint32_t sliced = 0;
  for (uint32_t p = 0; p < published.slice_count; ++p) {
    sliced |= 1u << published.slices[p].binding;
  }
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((uintptr_t)d->binding_ptrs[i] & 3) return false;
    for (unsigned j = 0; j < i; ++j) {
      const bool both_read = (job->read_only >> i) & (job->read_only >> j) & 1;
      if (!both_read && bytes_meet(d, sliced, i, j)) return false;
    }
  }
  return true;
}

// Hart 0 zeroes what the harts write of a write-only binding before they
// start; they write back what is not zero.  Exactly those bytes: the same
// buffer may hold the dispatch's inputs.  Also sums what a hart copies in and
// writes back, for HARTS=auto.
static void zero_outputs(runner_local_job_t* job,
                         const iree_hal_executable_dispatch_state_v0_t* d) {
  uint32_t sliced = 0;
  job->bytes_in = job->bytes_in_split = job->bytes_out = 0;
  const uint32_t store_cost = RUNNER_HART_LOCAL_WORD_STORES ? 1 : 2;
  for (uint32_t p = 0; p < published.slice_count; ++p) {
    const runner_slice_t* s = &published.slices[p];
    sliced |= 1u << s->binding;
    int32_t lo, hi;
    grid_range(s, d, &lo, &hi);
    const int32_t length = (int32_t)d->binding_lengths[s->binding];
    lo = lo < 0 ? 0 : lo;
    hi = hi > length ? length : hi;
    if (lo >= hi) continue;
    const bool moving = s->step[0] | s->step[1] | s->step[2];
    const uint8_t* at = d->binding_ptrs[s->binding];
    if ((job->write_only >> s->binding) & 1) {
      // Tiled: every byte is written, and harts 1.. write theirs back whole.
      const bool tiled = moving && tiles(s, d);
      if (!tiled) memset((uint8_t*)at + lo, 0, (size_t)(hi - lo));
      job->bytes_out += (tiled ? 1 : store_cost) * (uint32_t)(hi - lo);
    } else if (!resident_span() || at < __rodata_start || at >= __rodata_end) {
      // (.rodata is copied once: keep_resident)
      *(moving ? &job->bytes_in_split : &job->bytes_in) += (uint32_t)(hi - lo);
    }
  }
  // A write-only binding without a range may be a buffer that holds other
  // values too (IREE binds whole buffers): copied and compared as read-write,
  // never zeroed whole.
  job->write_only &= sliced;
  for (unsigned i = 0; i < d->binding_count; ++i) {
    if ((sliced >> i) & 1) continue;
    const uint32_t length = (uint32_t)d->binding_lengths[i];
    job->bytes_in += length;
    if (!((job->read_only >> i) & 1)) job->bytes_out += store_cost * length;
  }
}

void runner_local_prepare(
    runner_local_job_t* job, iree_hal_local_executable_t* executable,
    iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t local_memory_size) {
  job->fn = NULL;
  job->mode = RUNNER_LOCAL_MODE_IN_PLACE;
  job->environment = &executable->environment;
  job->dispatch_state = dispatch_state;
  job->local_memory_size = local_memory_size;
  job->read_only = job->write_only = 0;
  published.slice_count = 0;
  ++published.sequence;
  const iree_hal_executable_library_v0_t* library =
      find_library(executable, ordinal);
  if (!library || library->imports.count || library->constants.count) return;
  const int i = find_entry(ordinal);
  if (i >= 0) {
    job->mode = entries[i].mode;
    if (job->mode != RUNNER_LOCAL_MODE_LOCAL) return;
    job->read_only = entries[i].read_only;
    job->write_only = entries[i].write_only;
    use_slices(job, &entries[i].counts[0], entries[i].first_slice,
               entries[i].slice_count, dispatch_state);
  }
  if (i < 0 && !RUNNER_HART_LOCAL_ENTRY_COUNT) {  // no table: one mode for all
    job->mode = RUNNER_HART_LOCAL_DEFAULT_MODE;
  }
  if (job->mode != RUNNER_LOCAL_MODE_LOCAL) return;  // not in the table
  if (!bindings_allow(job, dispatch_state)) {
    job->mode = RUNNER_LOCAL_MODE_IN_PLACE;
    return;
  }
  zero_outputs(job, dispatch_state);
  job->fn = library->exports.ptrs[ordinal];
}

#else  // harts run their shares in place

bool runner_local_splits(iree_hal_local_executable_t* executable,
                         iree_host_size_t ordinal, uint32_t bindings) {
  (void)executable, (void)ordinal, (void)bindings;
  return false;
}

uint32_t runner_local_share(const runner_local_job_t* job, unsigned hart,
                            uint32_t begin, uint32_t end) {
  (void)job, (void)hart, (void)begin, (void)end;
  return RUNNER_LOCAL_DOES_NOT_FIT;
}

void runner_local_prepare(
    runner_local_job_t* job, iree_hal_local_executable_t* executable,
    iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t local_memory_size) {
  (void)executable, (void)ordinal, (void)dispatch_state,
      (void)local_memory_size;
  job->fn = NULL;
  job->mode = RUNNER_HART_LOCAL_DEFAULT_MODE;
}

#endif
