/* C library glue for picolibc: stdio on the board console, exit through
 * the board's exit device, abort, and a bounded heap. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "bsp.h"
#include "bsp_config.h"

/* ---------------------------------------------------------------- stdio */

static int console_put(char c, FILE *file) {
  (void)file;
  bsp_putc(c);
  return (unsigned char)c;
}

/* Unbuffered: every character reaches the console at once, so output before
 * a crash is never lost.  There is no input. */
static FILE console = FDEV_SETUP_STREAM(console_put, NULL, NULL, _FDEV_SETUP_WRITE);

FILE *const stdin = &console;
FILE *const stdout = &console;
FILE *const stderr = &console;

/* ---------------------------------------------------------------- exit */

extern uint32_t __stack_limit[];

static void console_write(const char *text) {
  while (*text) bsp_putc(*text++);
}

_Noreturn void _exit(int code) {
  for (int i = 0; i < BSP_STACK_GUARD_WORDS; ++i) {
    if (__stack_limit[i] != BSP_STACK_GUARD) {
      console_write("\nBSP: stack overflow: raise stack_size in board.toml\n");
      bsp_exit(BSP_EXIT_STACK_OVERFLOW);
    }
  }
  bsp_exit(code);
}

/* abort() is raise(SIGABRT), which picolibc implements with these two. */
pid_t getpid(void) { return 1; }

int kill(pid_t pid, int sig) {
  if (pid != 1) {
    errno = ESRCH;
    return -1;
  }
  console_write("\nBSP: abort\n");
  _exit(128 + sig);
}

/* ---------------------------------------------------------------- heap */

/* The heap is [__heap_start, __heap_end), placed by the linker script above
 * the data; the stack lies below the data, so neither can run into the
 * other.  Hart 0 only: there are no atomics to lock with. */
extern char __heap_start[];
extern char __heap_end[];

static char *heap_break = __heap_start;
static char *heap_peak = __heap_start;
static char *heap_limit = __heap_end;   /* lowered by bsp_heap_reserve */
static size_t top_peak;

/* The application's answer when the break would pass its reservation at the
 * heap's top (bsp_memory.h); by default, none. */
__attribute__((weak)) void bsp_heap_short(size_t bytes) { (void)bytes; }

void *sbrk(ptrdiff_t increment) {
  char *old = heap_break;
  if (increment > 0 && increment > heap_limit - old) {
    bsp_heap_short((size_t)(increment - (heap_limit - old)));
  }
  if (increment > 0 ? increment > heap_limit - old : -increment > old - __heap_start) {
    errno = ENOMEM;
    return (void *)-1;
  }
  if (increment < 0 && old > heap_peak) heap_peak = old; /* only a shrink can hide a peak */
  heap_break = old + increment;
  return old;
}

/* The top `bytes + spare` of the heap, out of sbrk's reach until the next
 * call, which moves the block's start (the contents of its lowest `bytes` are
 * not kept).  A block that only grows never leaves a hole below it, as
 * freeing and allocating anew would. */
void *bsp_heap_reserve(size_t bytes, size_t spare) {
  if (bytes + spare > (size_t)(__heap_end - heap_break)) return NULL;
  heap_limit = __heap_end - bytes - spare;
  if (bytes > top_peak) top_peak = bytes;
  return heap_limit;
}

size_t bsp_heap_peak(void) {
  const char *peak = heap_peak > heap_break ? heap_peak : heap_break;
  return (size_t)(peak - __heap_start) + top_peak;
}

size_t bsp_stack_used(void) {
  extern uint32_t __stack_top[];
  const uint32_t *word = __stack_limit + BSP_STACK_GUARD_WORDS;
  while (word < __stack_top && *word == BSP_STACK_PAINT) ++word;
  return (size_t)((const char *)__stack_top - (const char *)word);
}
