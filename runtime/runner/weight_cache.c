// The weight cache: copies of constant bindings kept in the scratchpad the
// heap leaves free, from one dispatch and one call to the next, so that each
// crosses the shared path once per run instead of once per call (staging.c
// stages the rest per dispatch).
//
// One block at the heap's top (bsp_heap_reserve): the staging area at its
// start, grown to the largest dispatch's need and kept there (allocated anew
// below a smaller one, it would leave a hole the transient buffers of the
// next call cannot use), and the copies above it, placed downward from the
// heap's end in the order kept, as long as the heap's break leaves room.
// Room goes back latest copy first: to the heap when sbrk runs short
// (bsp_heap_short), to the staging area when it must grow.  Copies are found
// by address in a table of open addressing, which removing the latest entry
// undoes exactly.
#include "weight_cache.h"

#include "bsp_memory.h"

#define SLOTS 256  // at most half of them used
typedef struct kept_t {
  const void* from;
  uint32_t length;
  void* copy;
  uint32_t below;  // the cache's bytes before this copy was added
} kept_t;
static kept_t kept[SLOTS];
static uint16_t order[SLOTS / 2];  // slots, in the order kept
static uint32_t count;

static uint8_t* area;
static size_t area_size;
static uint8_t* heap_end;  // the block's end, once there is a block
static size_t cache_size;
static bool pinned;

// The block for an area and a cache of these sizes; false when the heap's
// break is too close (nothing changes then).
static bool reserve(size_t new_area, size_t new_cache) {
  uint8_t* block = bsp_heap_reserve(new_area, new_cache);
  if (!block) return false;
  area = block;
  area_size = new_area;
  cache_size = new_cache;
  heap_end = block + new_area + new_cache;
  return true;
}

static uint32_t slot_of(const void* from) {
  return ((uint32_t)(uintptr_t)from * 2654435761u) >> 24;  // 256 slots
}

// Where [from, + length) is kept, or the free slot it would take.
static uint32_t lookup(const void* from, uint32_t length) {
  uint32_t s = slot_of(from);
  while (kept[s].from && (kept[s].from != from || kept[s].length != length)) {
    s = (s + 1) % SLOTS;
  }
  return s;
}

void* runner_cache_find(const void* from, uint32_t length) {
  return kept[lookup(from, length)].copy;  // NULL in a free slot
}

void* runner_cache_add(const void* from, uint32_t length) {
  const uint32_t s = lookup(from, length);  // a free slot: not kept yet
  uintptr_t first;
  const uint32_t words = runner_word_span(from, length, &first);
  const size_t bytes = (64 + 4 * (size_t)words + 63) & ~(size_t)63;
  const size_t below = cache_size;
  if (count == SLOTS / 2 || !reserve(area_size, below + bytes)) return NULL;
  uint8_t* copy = heap_end - cache_size + ((uintptr_t)from & 63);
  kept[s] = (kept_t){from, length, copy, (uint32_t)below};
  order[count++] = (uint16_t)s;
  return copy;
}

// Drops the latest copy and gives its room back to the heap.
static void drop_latest(void) {
  kept_t* latest = &kept[order[--count]];
  const size_t cache = latest->below;
  *latest = (kept_t){0};
  reserve(area_size, cache);  // smaller: always there
}

bool runner_cache_area(size_t bytes) {
  if (bytes <= area_size) return true;
  while (!reserve(bytes, cache_size)) {
    if (!count) return false;
    drop_latest();
  }
  return true;
}

void bsp_heap_short(size_t bytes) {
  const size_t want = cache_size > bytes ? cache_size - bytes : 0;
  while (!pinned && count && cache_size > want) drop_latest();
}

uint8_t* runner_cache_area_start(void) { return area; }
uint32_t runner_cache_count(void) { return count; }
size_t runner_cache_bytes(void) { return cache_size; }
void runner_cache_pin(bool pin) { pinned = pin; }
