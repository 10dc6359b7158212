/* A known program for the profiler: one call to a hot loop, measured the way
 * the runner measures (two counter reads around each figure). */
#include <stdint.h>
#include <stdio.h>

#include "bsp_cycles.h"

volatile uint32_t sink;

__attribute__((noinline)) static uint32_t cold(uint32_t x) { return x * 3u + 1u; }

__attribute__((noinline)) static uint32_t hot_loop(uint32_t n) {
  uint32_t acc = 0;
  for (uint32_t i = 0; i < n; ++i) acc += (i ^ acc) >> 1;
  return acc;
}

int main(void) {
  uint64_t begin = bsp_cycles();
  sink = cold(7);
  uint64_t end = bsp_cycles();
  printf("CYCLES startup %lu\n", (unsigned long)(end - begin));
  for (int i = 0; i < 2; ++i) {
    begin = bsp_cycles();
    sink = cold(hot_loop(5000));
    end = bsp_cycles();
    printf("CYCLES call %d %lu\n", i, (unsigned long)(end - begin));
  }
  printf("STATUS OK\n");
  return 0;
}
