/* Drives runtime/runner/weight_cache.c on the host over a heap laid out as
 * the BSP's (bsp/common/syscalls.c: bsp_heap_reserve, and sbrk's call of
 * bsp_heap_short).  One command per line on stdin, one answer line each:
 *   add <offset> <length>   find <offset> <length>   (a constant at
 *       CONSTANTS + offset): the copy's distance below the heap's end, or -1
 *   area <bytes>  grow <bytes>  pin <0|1>: 1 or 0 for done or refused
 * and after each answer the state: cache bytes, copies, the heap's limit and
 * break (distances from the heap's start). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bsp_memory.h"
#include "weight_cache.h"

#define HEAP 65536
#define CONSTANTS 0x40000000u

static _Alignas(64) char heap[HEAP];
static char* heap_break = heap;
static char* heap_limit = heap + HEAP;

void* bsp_heap_reserve(size_t bytes, size_t spare) {
  if (bytes + spare > (size_t)(heap + HEAP - heap_break)) return NULL;
  heap_limit = heap + HEAP - bytes - spare;
  return heap_limit;
}

static int grow(long n) {
  if (n > heap_limit - heap_break) bsp_heap_short((size_t)(n - (heap_limit - heap_break)));
  if (n > heap_limit - heap_break || -n > heap_break - heap) return 0;
  heap_break += n;
  return 1;
}

static long below_end(const void* copy) {
  return copy ? (long)(heap + HEAP - (const char*)copy) : -1;
}

int main(void) {
  char command[16];
  unsigned long a, b = 0;
  while (scanf("%15s %lu", command, &a) == 2) {
    const void* from = (const void*)(uintptr_t)(CONSTANTS + a);
    if (!strcmp(command, "add") || !strcmp(command, "find")) {
      if (scanf("%lu", &b) != 1) return 2;
      printf("%ld", below_end(!strcmp(command, "add") ? runner_cache_add(from, (uint32_t)b)
                                                      : runner_cache_find(from, (uint32_t)b)));
    } else if (!strcmp(command, "area")) {
      printf("%d", runner_cache_area(a));
    } else if (!strcmp(command, "grow")) {
      printf("%d", grow((long)a));
    } else if (!strcmp(command, "pin")) {
      runner_cache_pin(a != 0);
      printf("1");
    } else {
      return 2;
    }
    printf(" %zu %u %ld %ld\n", runner_cache_bytes(), runner_cache_count(),
           (long)(heap_limit - heap), (long)(heap_break - heap));
  }
  return 0;
}
