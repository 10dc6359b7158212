/* Start-up and C library glue checks, one behaviour per CHECK_MODE:
 *   1 checks   every start-up duty, printed as "CHECK <name> ok|FAIL ..."
 *   2 exit     return CHECK_EXIT_CODE from main
 *   3 abort    abort()
 *   4 trap     execute an illegal instruction
 *   5 silent   return 0 without printing anything
 *   6 hang     never end
 *   7 stack    overflow the stack, then return 0
 *   8 wake     wake the parked harts through bsp_wake_harts()
 *   9 barrier-timeout  one barrier of every hart, then a second one that the
 *                      last hart never reaches: hart 0's wait times out
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsp.h"

#ifndef CHECK_MODE
#define CHECK_MODE 1
#endif
#ifndef CHECK_EXIT_CODE
#define CHECK_EXIT_CODE 3
#endif

#if CHECK_MODE == 1
static int failures;

static void check(const char *name, int ok, unsigned long detail) {
  printf("CHECK %s %s %lu\n", name, ok ? "ok" : "FAIL", detail);
  if (!ok) ++failures;
}

static volatile uint32_t data_word = 0x12345678u;
static volatile uint32_t bss_words[64];
static int constructor_calls;
static const char rodata_text[] = "read-only";
extern char __stack_limit[], __stack_top[], __heap_start[], __heap_end[];
extern char __tls_base[], __tls_size[];

__attribute__((constructor)) static void count_constructor(void) { ++constructor_calls; }

static int run_checks(void) {
  printf("MAIN hart %u\n", bsp_hart_id());
  check("data", data_word == 0x12345678u, data_word);
  uint32_t any = 0;
  for (unsigned i = 0; i < 64; ++i) any |= bss_words[i];
  check("bss", any == 0, any);
  check("rodata", strcmp(rodata_text, "read-only") == 0, 0);
  check("constructors", constructor_calls == 1, (unsigned long)constructor_calls);

  char here;
  check("stack", &here > __stack_limit && &here < __stack_top, (unsigned long)(uintptr_t)&here);

  errno = 0;
  errno = 42;
  char *tls_end = __tls_base + (uintptr_t)__tls_size;
  check("errno-tls", errno == 42 && (char *)&errno >= __tls_base && (char *)&errno < tls_end,
        (unsigned long)(uintptr_t)&errno);

  uint32_t inhibit;
  __asm__ volatile("csrr %0, 0x320" : "=r"(inhibit));
  uint64_t before = bsp_cycles();
  for (volatile int i = 0; i < 100; ++i) {
  }
  uint64_t after = bsp_cycles();
  check("counters", inhibit == 0 && after > before, (unsigned long)(after - before));

  char *block = malloc(1000);
  check("malloc", block != NULL && block >= __heap_start && block + 1000 <= __heap_end,
        (unsigned long)(uintptr_t)block);
  free(block);
  errno = 0;
  void *huge = malloc((size_t)(__heap_end - __heap_start) + 4096);
  check("heap-limit", huge == NULL && errno == ENOMEM, (unsigned long)errno);
  return failures ? 1 : 0;
}
#endif

#if CHECK_MODE == 7
/* Each frame writes all of its buffer: the overflow reaches the guard. */
static __attribute__((noinline)) unsigned recurse(unsigned depth) {
  volatile uint8_t frame[1024];
  memset((void *)frame, (int)depth, sizeof(frame));
  if (depth == 0) return frame[0];
  return recurse(depth - 1) + frame[depth % sizeof(frame)];
}
#endif

#if CHECK_MODE == 8
static volatile unsigned ran[BSP_HARTS];
static volatile int hart_errno[BSP_HARTS];
static __attribute__((aligned(16))) unsigned char stacks[(BSP_HARTS - 1) * 2048];

static void hart_work(unsigned hart, void *arg) {
  errno = (int)(100 + hart); /* each hart has its own TLS block */
  ran[hart] = *(const unsigned *)arg + hart;
  hart_errno[hart] = errno;
}

static int run_wake(void) {
  static const unsigned base = 1000;
  errno = 7;
  int started = bsp_wake_harts(hart_work, (void *)&base, stacks, 2048);
  for (unsigned h = 1; h < BSP_HARTS; ++h) {
    while (bsp_hart_state(h) != 2) {
    }
  }
  printf("WAKE started %d\n", started);
  for (unsigned h = 1; h < BSP_HARTS; ++h) printf("WAKE hart %u ran %u errno %d\n", h, ran[h], hart_errno[h]);
  printf("WAKE hart 0 errno %d again %d\n", errno, bsp_wake_harts(hart_work, (void *)&base, stacks, 2048));
  return 0;
}
#endif

#if CHECK_MODE == 9
#ifndef CHECK_BARRIER_TICKS
#define CHECK_BARRIER_TICKS 200000
#endif
static __attribute__((aligned(16))) unsigned char stacks[(BSP_HARTS - 1) * 2048];

static void barrier_work(unsigned hart, void *arg) {
  (void)arg;
  bsp_barrier_wait();
  if (hart != BSP_HARTS - 1) bsp_barrier_wait(); /* the last hart leaves */
}

static int run_barrier_timeout(void) {
  bsp_barrier_timeout(CHECK_BARRIER_TICKS);
  bsp_wake_harts(barrier_work, NULL, stacks, 2048);
  bsp_barrier_setup(BSP_HARTS);
  bsp_barrier_wait();
  printf("BARRIER first passed\n");
  bsp_barrier_wait();
  printf("BARRIER second passed\n");
  return 0;
}
#endif

int main(void) {
#if CHECK_MODE == 1
  return run_checks();
#elif CHECK_MODE == 2
  printf("exiting with %d\n", CHECK_EXIT_CODE);
  return CHECK_EXIT_CODE;
#elif CHECK_MODE == 3
  printf("aborting\n");
  abort();
#elif CHECK_MODE == 4
  printf("trapping\n");
  __asm__ volatile(".word 0");  /* all-zero: an illegal instruction */
  return 0;
#elif CHECK_MODE == 5
  return 0;
#elif CHECK_MODE == 6
  printf("hanging\n");
  for (;;) {
  }
#elif CHECK_MODE == 7
  printf("recursing %u\n", recurse(BSP_STACK_SIZE / 1024 + 8));
  return 0;
#elif CHECK_MODE == 8
  return run_wake();
#elif CHECK_MODE == 9
  return run_barrier_timeout();
#endif
}
