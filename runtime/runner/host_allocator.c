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

#include "host_allocator.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#if !defined(RUNNER_HOST_CACHE_SLOTS)
#define RUNNER_HOST_CACHE_SLOTS 8
#endif

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

static iree_status_t allocate(iree_allocator_command_t command,
                              const iree_allocator_alloc_params_t* params,
                              void** inout_ptr) {
  const size_t length = params->byte_length;
  if (length == 0) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                            "allocations must be >0 bytes");
  }
  void* block = NULL;
  if (command == IREE_ALLOCATOR_COMMAND_REALLOC && *inout_ptr) {
    block = realloc(*inout_ptr, length);
  } else {
    block = take_kept(length);
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
      if (*inout_ptr) release(*inout_ptr);
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
