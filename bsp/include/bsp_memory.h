/* High-water marks of a run's memory, read at exit (bsp/common/syscalls.c): the
 * bytes of hart 0's stack that were ever used (start-up paints it with
 * BSP_STACK_PAINT before main; what was overwritten was used), and the most the
 * heap's break ever was above the heap's start (sbrk's, so malloc's too), plus
 * the largest block taken from the heap's top (bsp_heap_top, NULL when the
 * break is too close). */
#ifndef BSP_MEMORY_H
#define BSP_MEMORY_H

#include <stddef.h>

size_t bsp_stack_used(void);
size_t bsp_heap_peak(void);
void *bsp_heap_top(size_t bytes);

#endif
