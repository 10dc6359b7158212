// The weight cache and the staging area of staged constants (staging.c), at
// the heap's top (weight_cache.c).
#ifndef RUNNER_WEIGHT_CACHE_H_
#define RUNNER_WEIGHT_CACHE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The whole words that hold bytes [from, from + length): the first one's
// address in *first, their number returned.
static inline uint32_t runner_word_span(const void* from, size_t length,
                                        uintptr_t* first) {
  *first = (uintptr_t)from & ~(uintptr_t)3;
  return (uint32_t)(((uintptr_t)from + length - *first + 3) / 4);
}

// The kept copy of the constant bytes [from, from + length), or NULL.
void* runner_cache_find(const void* from, uint32_t length);

// Keeps a copy of [from, from + length), not kept yet, if the heap leaves
// room: returns where the copy of `from` goes (same address modulo 64), for
// the caller to fill, or NULL.
void* runner_cache_add(const void* from, uint32_t length);

// Makes the staging area at least `bytes` long, dropping the latest copies
// when the heap leaves no room; false when even an empty cache leaves none.
bool runner_cache_area(size_t bytes);

// The staging area's start (NULL before the first runner_cache_area()).
uint8_t* runner_cache_area_start(void);

// Copies kept; it falls when runner_cache_area() drops some.
uint32_t runner_cache_count(void);

// The cache's bytes at the heap's top.
size_t runner_cache_bytes(void);

// While pinned (a dispatch reads the area and the copies) nothing moves: the
// heap cannot take room from the cache.
void runner_cache_pin(bool pinned);

#ifdef __cplusplus
}
#endif

#endif  // RUNNER_WEIGHT_CACHE_H_
