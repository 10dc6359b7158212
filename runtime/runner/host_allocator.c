// The runner's host allocator: size classes for small blocks, sbrk for large
// ones; nothing of the runtime's goes through the C library's malloc (which
// only images of several harts link, for the workgroup local memory of
// harts 1..: parallel.c).
//
// Small requests (under RUNNER_HOST_UNCLEARED_MIN bytes: all of start-up's
// but the device's arena blocks, and all a call allocates but its result
// buffer) come from 40 size classes, each with a free list: a freed block is
// pushed on its class's list and popped by the next request of that class,
// and a new one is cut from memory taken from sbrk a chunk at a time.  A
// request costs a few dozen cycles, a fraction of picolibc's malloc (its
// free-list walk, sbrk and alignment work, and clearing every block it
// returns).  MALLOC requests get a block uncleared (their contents are
// undefined), CALLOC requests cleared.  The classes round a request up by at
// most a quarter (16-byte steps to 256, 64-byte steps to 1 KiB, 256-byte
// steps to 4 KiB), and the runner's objects come back in the same sizes every
// call, so the lists stay short.
//
// Large requests (the device's arena blocks and buffers) come straight from
// sbrk, uncleared unless CALLOC asks (picolibc's malloc cleared every block).
// A freed one waits for the next request it fits; at most
// RUNNER_HOST_UNCLEARED_SLOTS of them exist, and a request past that fails
// with RESOURCE_EXHAUSTED, naming the setting.
//
// The word before each block says where it came from, so free and realloc
// take any block: SMALL_MARK with the class, or UNCLEARED_MARK.

#include "host_allocator.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if !defined(RUNNER_HOST_UNCLEARED_MIN)
#define RUNNER_HOST_UNCLEARED_MIN 4096
#endif
#if !defined(RUNNER_HOST_UNCLEARED_SLOTS)
#define RUNNER_HOST_UNCLEARED_SLOTS 32
#endif
#define UNCLEARED_ALIGN 16u  // at least malloc's alignment

// ---------------------------------------------------------------- small blocks

#define SMALL_CLASSES 40     // up to class_size(39) = 4096 bytes
#define SMALL_HEADER 8u      // the mark word, and malloc's 8-byte alignment
#define SMALL_MARK 0x5A000001u        // | class << 8; odd, unlike chunk sizes
#define SMALL_MARK_MASK 0xFF0000FFu
#define SMALL_CHUNK 2048u    // taken from sbrk at a time; larger blocks alone

static size_t class_of(size_t length) {  // length: 1 .. 4096
  if (length <= 256) return (length + 15) / 16 - 1;
  if (length <= 1024) return 16 + (length - 257) / 64;
  return 28 + (length - 1025) / 256;
}

static size_t class_size(size_t c) {
  if (c < 16) return (c + 1) * 16;
  if (c < 28) return 256 + (c - 15) * 64;
  return 1024 + (c - 27) * 256;
}

static void* free_lists[SMALL_CLASSES];
static char* chunk_next = NULL;
static char* chunk_end = NULL;

static char* from_sbrk(size_t size) {
  char* raw = sbrk((ptrdiff_t)(size + SMALL_HEADER - 1));
  if (raw == (char*)-1) return NULL;
  return (char*)(((uintptr_t)raw + SMALL_HEADER - 1) &
                 ~(uintptr_t)(SMALL_HEADER - 1));
}

// A new block of `size` bytes, header included: cut from the current chunk
// (a new one when it is short: its tail, under a quarter chunk, stays unused).
static char* cut(size_t size) {
  if (size > (size_t)(chunk_end - chunk_next)) {
    if (size > SMALL_CHUNK / 4) return from_sbrk(size);
    char* chunk = from_sbrk(SMALL_CHUNK);
    if (!chunk) return NULL;
    chunk_next = chunk;
    chunk_end = chunk + SMALL_CHUNK;
  }
  char* raw = chunk_next;
  chunk_next += size;
  return raw;
}

static void* take_small(size_t length) {
  const size_t c = class_of(length);
  void* block = free_lists[c];
  if (block) {
    free_lists[c] = *(void**)block;
    return block;
  }
  char* raw = cut(SMALL_HEADER + class_size(c));
  if (!raw) return NULL;
  ((uint32_t*)(void*)raw)[1] = SMALL_MARK | (uint32_t)(c << 8);
  return raw + SMALL_HEADER;
}

static bool small_class(const void* block, size_t* out_class) {
  const uint32_t mark = ((const uint32_t*)block)[-1];
  if ((mark & SMALL_MARK_MASK) != SMALL_MARK) return false;
  *out_class = (mark >> 8) & 0xFFFFu;
  return true;
}

static void free_small(void* block, size_t c) {
  *(void**)block = free_lists[c];
  free_lists[c] = block;
}

// ---------------------------------------------------------- uncleared blocks

// Blocks taken from sbrk: never passed to free or realloc.  The word before
// each holds UNCLEARED_MARK.
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
// a new one from sbrk; NULL when none can be had.
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

// ------------------------------------------------------------------ requests

// A new block of `length` bytes, cleared for CALLOC.
static void* new_block(iree_allocator_command_t command, size_t length) {
  const bool clear = command == IREE_ALLOCATOR_COMMAND_CALLOC;
  void* block = NULL;
  if (length < RUNNER_HOST_UNCLEARED_MIN) {
    block = take_small(length);
  } else {
    block = take_uncleared(length);
  }
  if (block && clear) memset(block, 0, length);
  return block;
}

static void release(void* block) {
  size_t c;
  uncleared_block_t* u;
  if (small_class(block, &c)) {
    free_small(block, c);
  } else if ((u = find_uncleared(block))) {
    u->in_use = false;
  }
}

// realloc: a block that still fits stays; anything else moves to a new block,
// and the old one is freed.
static void* resize(void* old, size_t length) {
  size_t size;
  uncleared_block_t* u;
  if (small_class(old, &size)) {
    size = class_size(size);
  } else if ((u = find_uncleared(old))) {
    size = u->size;
  } else {
    return NULL;  // not one of ours
  }
  if (length <= size) return old;
  void* block = new_block(IREE_ALLOCATOR_COMMAND_MALLOC, length);
  if (block) {
    memcpy(block, old, size < length ? size : length);
    release(old);
  }
  return block;
}

// The largest request the heap could not meet (0: none), for the MEMORY
// lines: release images print a bare RESOURCE_EXHAUSTED, and the host says
// from this how far the heap's region falls short.
static size_t refused;

size_t runner_host_refused(void) { return refused; }

static iree_status_t allocate(iree_allocator_command_t command,
                              const iree_allocator_alloc_params_t* params,
                              void** inout_ptr) {
  const size_t length = params->byte_length;
  if (length == 0) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                            "allocations must be >0 bytes");
  }
  void* block = command == IREE_ALLOCATOR_COMMAND_REALLOC && *inout_ptr
                    ? resize(*inout_ptr, length)
                    : new_block(command, length);
  if (!block) {
    if (length > refused) refused = length;
    return iree_make_status(IREE_STATUS_RESOURCE_EXHAUSTED,
                            "host allocator: no memory left, or more than "
                            "RUNNER_HOST_UNCLEARED_SLOTS large blocks");
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

// Read after the run, when every block is back: the largest uncleared block,
// and the largest class with a block on its free list (a freed block of each
// class made).  Nothing is counted while the runtime allocates.
size_t runner_host_largest(void) {
  size_t largest = 0;
  for (int i = 0; i < uncleared_count; ++i) {
    if (uncleared[i].size > largest) largest = uncleared[i].size;
  }
  for (size_t c = SMALL_CLASSES; c-- > 0;) {
    if (free_lists[c]) {
      if (class_size(c) > largest) largest = class_size(c);
      break;
    }
  }
  return largest;
}
