// The runner's host allocator: the C library's malloc, calloc, realloc and
// free, with a few freed blocks kept for reuse.
//
// Every call allocates and frees the same handful of objects (its result
// buffer, command buffer, two fences and their semaphores, the result's
// buffer view).  picolibc's malloc clears every block it returns and its free
// list work costs several hundred cycles a block; a block freed by one call
// is handed back, as it is, to the next request it fits.  MALLOC requests get
// it uncleared (their contents are undefined), CALLOC requests cleared.
// Blocks come from malloc and go back to free: realloc and free of a block
// work as with the C library, and at most RUNNER_HOST_CACHE_SLOTS blocks
// stay out of the heap.
//
// Except large MALLOC requests (RUNNER_HOST_UNCLEARED_MIN bytes or more: the
// device's arena blocks, whose contents are undefined): picolibc's malloc
// clears every block, about 2,300 cycles for a 4 KiB one, so these come
// straight from sbrk, uncleared, and never go back to the heap: a freed one
// waits for the next request it fits (at most RUNNER_HOST_UNCLEARED_SLOTS of
// them; past that, malloc as before).

#include "host_allocator.h"

#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(RUNNER_HOST_CACHE_SLOTS)
#define RUNNER_HOST_CACHE_SLOTS 8
#endif
#if !defined(RUNNER_HOST_UNCLEARED_MIN)
#define RUNNER_HOST_UNCLEARED_MIN 4096
#endif
#if !defined(RUNNER_HOST_UNCLEARED_SLOTS)
#define RUNNER_HOST_UNCLEARED_SLOTS 16
#endif
#define UNCLEARED_ALIGN 16u  // at least malloc's alignment

// A kept block serves requests up to its usable size and larger than half of
// it, so a small request does not take a large block.
typedef struct {
  void* block;
  size_t size;  // malloc_usable_size(block)
} kept_block_t;

static kept_block_t kept[RUNNER_HOST_CACHE_SLOTS];
static int kept_count = 0;

static void* take_kept(size_t length) {
  for (int i = kept_count - 1; i >= 0; --i) {
    if (kept[i].size >= length && kept[i].size / 2 < length) {
      void* block = kept[i].block;
      kept[i] = kept[--kept_count];
      return block;
    }
  }
  return NULL;
}

static void release(void* block) {
  if (kept_count < RUNNER_HOST_CACHE_SLOTS) {
    kept[kept_count].block = block;
    kept[kept_count].size = malloc_usable_size(block);
    ++kept_count;
  } else {
    free(block);
  }
}

// Blocks taken from sbrk: never passed to free or realloc.  The word before
// each holds UNCLEARED_MARK, which the word before a malloc block never does
// (picolibc keeps the chunk size there, a multiple of 8): frees and reallocs
// of other blocks tell them apart with one load.
#define UNCLEARED_MARK 0xC1EA2ED1u
typedef struct {
  void* block;
  size_t size;
  bool in_use;
} uncleared_block_t;

static uncleared_block_t uncleared[RUNNER_HOST_UNCLEARED_SLOTS];
static int uncleared_count = 0;

static uncleared_block_t* find_uncleared(const void* block) {
  if (((const uint32_t*)block)[-1] != UNCLEARED_MARK) return NULL;
  for (int i = 0; i < uncleared_count; ++i) {
    if (uncleared[i].block == block) return &uncleared[i];
  }
  return NULL;
}

// A free uncleared block the request fits (not one over twice its size), or
// a new one from sbrk; NULL when none can be had (the caller uses malloc).
static void* take_uncleared(size_t length) {
  for (int i = 0; i < uncleared_count; ++i) {
    uncleared_block_t* u = &uncleared[i];
    if (!u->in_use && u->size >= length && u->size / 2 < length) {
      u->in_use = true;
      return u->block;
    }
  }
  if (uncleared_count == RUNNER_HOST_UNCLEARED_SLOTS) return NULL;
  const size_t size = (length + UNCLEARED_ALIGN - 1) & ~(size_t)(UNCLEARED_ALIGN - 1);
  char* raw = sbrk((ptrdiff_t)(size + UNCLEARED_ALIGN + 3));
  if (raw == (char*)-1) return NULL;
  char* block = (char*)(((uintptr_t)raw + 4 + UNCLEARED_ALIGN - 1) &
                        ~(uintptr_t)(UNCLEARED_ALIGN - 1));
  ((uint32_t*)block)[-1] = UNCLEARED_MARK;
  uncleared[uncleared_count++] = (uncleared_block_t){block, size, true};
  return block;
}

// realloc of an uncleared block (rare): a new block, the contents copied, the
// old block freed for reuse.
static void* move_uncleared(uncleared_block_t* u, size_t length) {
  void* block = length >= RUNNER_HOST_UNCLEARED_MIN ? take_uncleared(length) : NULL;
  if (!block) block = malloc(length);
  if (block) {
    memcpy(block, u->block, u->size < length ? u->size : length);
    u->in_use = false;
  }
  return block;
}

static iree_status_t allocate(iree_allocator_command_t command,
                              const iree_allocator_alloc_params_t* params,
                              void** inout_ptr) {
  const size_t length = params->byte_length;
  if (length == 0) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                            "allocations must be >0 bytes");
  }
  void* block = NULL;
  uncleared_block_t* old = NULL;
  if (command == IREE_ALLOCATOR_COMMAND_REALLOC && *inout_ptr &&
      (old = find_uncleared(*inout_ptr))) {
    block = move_uncleared(old, length);
  } else if (command == IREE_ALLOCATOR_COMMAND_REALLOC && *inout_ptr) {
    block = realloc(*inout_ptr, length);
  } else {
    if (command == IREE_ALLOCATOR_COMMAND_MALLOC &&
        length >= RUNNER_HOST_UNCLEARED_MIN) {
      block = take_uncleared(length);
    }
    if (!block) block = take_kept(length);
    if (block && command == IREE_ALLOCATOR_COMMAND_CALLOC) {
      memset(block, 0, length);
    } else if (!block) {
      block = command == IREE_ALLOCATOR_COMMAND_CALLOC ? calloc(1, length)
                                                       : malloc(length);
    }
  }
  if (!block) {
    return iree_make_status(IREE_STATUS_RESOURCE_EXHAUSTED,
                            "host allocator failed the request");
  }
  *inout_ptr = block;
  return iree_ok_status();
}

static iree_status_t host_ctl(void* self, iree_allocator_command_t command,
                              const void* params, void** inout_ptr) {
  (void)self;
  switch (command) {
    case IREE_ALLOCATOR_COMMAND_MALLOC:
    case IREE_ALLOCATOR_COMMAND_CALLOC:
    case IREE_ALLOCATOR_COMMAND_REALLOC:
      return allocate(command, (const iree_allocator_alloc_params_t*)params,
                      inout_ptr);
    case IREE_ALLOCATOR_COMMAND_FREE:
      if (*inout_ptr) {
        uncleared_block_t* u = find_uncleared(*inout_ptr);
        if (u) {
          u->in_use = false;
        } else {
          release(*inout_ptr);
        }
      }
      *inout_ptr = NULL;
      return iree_ok_status();
    default:
      return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                              "unsupported host allocator command");
  }
}

iree_allocator_t runner_host_allocator(void) {
  const iree_allocator_t allocator = {.self = NULL, .ctl = host_ctl};
  return allocator;
}
