/* High-water marks of a run's memory, read at exit (bsp/common/syscalls.c): the
 * bytes of hart 0's stack that were ever used (start-up paints it with
 * BSP_STACK_PAINT before main; what was overwritten was used), and the most the
 * heap's break ever was above the heap's start (sbrk's, so malloc's too), plus
 * the largest block taken from the heap's top (bsp_heap_reserve's `bytes`).
 *
 * bsp_heap_reserve(bytes, spare) takes the top bytes + spare of the heap from
 * sbrk (NULL when the break is too close): `bytes` at the block's start, which
 * it returns, and above them `spare` bytes the application keeps as a cache
 * it can do without.  They do not count in the heap's peak: when sbrk runs
 * short it calls bsp_heap_short(missing) (weak; the application's), which may
 * give spare bytes back with a smaller bsp_heap_reserve(). */
#ifndef BSP_MEMORY_H
#define BSP_MEMORY_H

#include <stddef.h>

size_t bsp_stack_used(void);
size_t bsp_heap_peak(void);
void *bsp_heap_reserve(size_t bytes, size_t spare);
void bsp_heap_short(size_t bytes);

#endif
