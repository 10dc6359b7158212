// An iree_allocator_t over the caller's arena.  IREE allocates a few dozen
// blocks at start-up and a handful per call, freeing the call's own at its
// end: a free list in address order, merged on free, with small blocks from
// the bottom and large ones from the top (take), keeps the arena from
// fragmenting over many calls.  Its peak is how far blocks ever reached from
// either end, added (not the most bytes in use at once: with holes between
// blocks that would be too little), and <M>_ARENA_BYTES is measured from it.

#include "arena.h"

#include <string.h>

#define ALIGN 16u  // iree_max_align_t on every board

// A block's header: its size (header included) and, while free, the next one.
struct ireerv_block {
  size_t size;
  ireerv_block_t *next;
  size_t pad[2];  // keeps the payload 16-byte aligned
};

static size_t round_up(size_t n) { return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1); }

void ireerv_arena_init(ireerv_arena_t *arena, void *memory, size_t bytes) {
  memset(arena, 0, sizeof(*arena));
  char *begin = (char *)round_up((size_t)memory);
  char *end = (char *)(((size_t)memory + bytes) & ~(size_t)(ALIGN - 1));
  arena->begin = begin;
  arena->end = end;
  if (end > begin + sizeof(ireerv_block_t)) {
    arena->free = (ireerv_block_t *)begin;
    arena->free->size = (size_t)(end - begin);
    arena->free->next = NULL;
  }
}

// Large blocks (a call's buffers) are cut from the top of the highest free
// block that fits, small ones (the runtime's long-lived state) from the bottom
// of the lowest: the two kinds never interleave, so a call's buffers leave no
// holes between blocks that live on.
#define LARGE 1024u

static void note_peak(ireerv_arena_t *arena, ireerv_block_t *block, int large) {
  if (large) {
    const size_t high = (size_t)(arena->end - (char *)block);
    if (high > arena->peak_high) arena->peak_high = high;
  } else {
    const size_t low = (size_t)((char *)block + block->size - arena->begin);
    if (low > arena->peak_low) arena->peak_low = low;
  }
  arena->peak = arena->peak_low + arena->peak_high;
}

static void *take(ireerv_arena_t *arena, size_t length) {
  const size_t size = round_up(length) + sizeof(ireerv_block_t);
  const int large = length >= LARGE;
  ireerv_block_t **link = &arena->free, **chosen = NULL;
  for (ireerv_block_t *block = *link; block; link = &block->next, block = *link) {
    if (block->size < size) continue;
    chosen = link;
    if (!large) break;  // the lowest fit; a large block takes the highest
  }
  if (!chosen) {
    arena->exhausted = 1;
    return NULL;
  }
  ireerv_block_t *block = *chosen;
  if (block->size - size >= 2 * sizeof(ireerv_block_t)) {  // split
    if (large) {  // the top part is taken, the bottom stays free in place
      block->size -= size;
      block = (ireerv_block_t *)((char *)block + block->size);
      block->size = size;
    } else {
      ireerv_block_t *rest = (ireerv_block_t *)((char *)block + size);
      rest->size = block->size - size;
      rest->next = block->next;
      block->size = size;
      *chosen = rest;
    }
  } else {
    *chosen = block->next;
  }
  arena->used += block->size;
  note_peak(arena, block, large);
  return block + 1;
}

static void give_back(ireerv_arena_t *arena, void *pointer) {
  if (!pointer) return;
  ireerv_block_t *block = (ireerv_block_t *)pointer - 1;
  arena->used -= block->size;
  ireerv_block_t **link = &arena->free;
  while (*link && *link < block) link = &(*link)->next;
  block->next = *link;
  *link = block;
  if (block->next && (char *)block + block->size == (char *)block->next) {
    block->size += block->next->size;
    block->next = block->next->next;
  }
  // Merge with the one before: found again from the start (the list is short).
  for (ireerv_block_t *before = arena->free; before && before != block;
       before = before->next) {
    if (before->next == block && (char *)before + before->size == (char *)block) {
      before->size += block->size;
      before->next = block->next;
      break;
    }
  }
}

static iree_status_t arena_ctl(void *self, iree_allocator_command_t command,
                               const void *params, void **inout_ptr) {
  ireerv_arena_t *arena = (ireerv_arena_t *)self;
  if (command == IREE_ALLOCATOR_COMMAND_FREE) {
    give_back(arena, *inout_ptr);
    return iree_ok_status();
  }
  const size_t length =
      ((const iree_allocator_alloc_params_t *)params)->byte_length;
  void *old = command == IREE_ALLOCATOR_COMMAND_REALLOC ? *inout_ptr : NULL;
  void *fresh = take(arena, length ? length : 1);
  if (!fresh) return iree_status_from_code(IREE_STATUS_RESOURCE_EXHAUSTED);
  if (old) {
    const size_t had = ((ireerv_block_t *)old - 1)->size - sizeof(ireerv_block_t);
    memcpy(fresh, old, had < length ? had : length);
    give_back(arena, old);
  } else if (command == IREE_ALLOCATOR_COMMAND_CALLOC) {
    memset(fresh, 0, length);
  }
  *inout_ptr = fresh;
  return iree_ok_status();
}

iree_allocator_t ireerv_arena_allocator(ireerv_arena_t *arena) {
  iree_allocator_t allocator = {arena, arena_ctl};
  return allocator;
}
