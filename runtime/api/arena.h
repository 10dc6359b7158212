// An iree_allocator_t over the caller's arena: first fit, freed blocks
// merged with their neighbours (arena.c).  No malloc anywhere.

#ifndef IREERV_ARENA_H_
#define IREERV_ARENA_H_

#include <stddef.h>

#include "iree/base/api.h"

typedef struct ireerv_block ireerv_block_t;

typedef struct {
  ireerv_block_t *free;  // free blocks in address order
  char *begin, *end;     // the memory it manages
  size_t used;           // bytes in blocks handed out (headers included)
  size_t peak_low;       // the highest end of a small block ever, from begin
  size_t peak_high;      // the lowest start of a large block ever, from end
  size_t peak;           // the two added: what must fit
  int exhausted;         // a request did not fit
} ireerv_arena_t;

void ireerv_arena_init(ireerv_arena_t *arena, void *memory, size_t bytes);
iree_allocator_t ireerv_arena_allocator(ireerv_arena_t *arena);

#endif  // IREERV_ARENA_H_
