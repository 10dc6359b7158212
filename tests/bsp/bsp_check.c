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
#include <unistd.h>

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

/* bsp/common/string.c against byte loops (volatile: GCC must not turn them
 * into calls of the functions under test), at every alignment of the
 * destination and the source and at lengths across the byte, word and
 * eight-word paths.  Each round fills and compares a window of the buffers
 * a few bytes past what the call may touch.  Returns how many results
 * differed. */
#define STRING_SPAN 96u
static unsigned char string_a[STRING_SPAN], string_b[STRING_SPAN], string_ref[STRING_SPAN];
static const unsigned char string_lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16,
                                               17, 28, 31, 32, 33, 36, 39, 63, 64, 65, 71, 72};

static void string_fill(unsigned char *p, unsigned seed, unsigned window) {
  for (unsigned i = 0; i < window; ++i) ((volatile unsigned char *)p)[i] = (unsigned char)(seed + 7 * i);
}

static int string_same(unsigned window) {
  for (unsigned i = 0; i < window; ++i) {
    if (((volatile unsigned char *)string_a)[i] != ((volatile unsigned char *)string_ref)[i]) return 0;
  }
  return 1;
}

/* memmove's reference: through a copy, so any overlap is right. */
static void string_move_ref(unsigned dst, unsigned src, unsigned n) {
  volatile unsigned char *r = string_ref;
  unsigned char tmp[STRING_SPAN];
  for (unsigned i = 0; i < n; ++i) ((volatile unsigned char *)tmp)[i] = r[src + i];
  for (unsigned i = 0; i < n; ++i) r[dst + i] = ((volatile unsigned char *)tmp)[i];
}

static int sign(int v) { return (v > 0) - (v < 0); }

static unsigned check_strings(void) {
  unsigned bad = 0;
  for (unsigned k = 0; k < sizeof(string_lengths); ++k) {
    const unsigned n = string_lengths[k], window = n + 16;
    for (unsigned off = 0; off < 4; ++off) {
      const int value = n & 1 ? 0xA5 : 0;
      string_fill(string_a, n, window);
      string_fill(string_ref, n, window);
      memset(string_a + off, value, n);
      for (unsigned i = 0; i < n; ++i) ((volatile unsigned char *)string_ref)[off + i] = (unsigned char)value;
      bad += !string_same(window);
      for (unsigned src = 0; src < 4; ++src) {
        string_fill(string_b, 3 * n + src, window);
        string_fill(string_a, n, window);
        string_fill(string_ref, n, window);
        memcpy(string_a + off, string_b + src, n);
        for (unsigned i = 0; i < n; ++i) {
          ((volatile unsigned char *)string_ref)[off + i] = ((volatile unsigned char *)string_b)[src + i];
        }
        bad += !string_same(window);
        for (unsigned forward = 0; forward < 2; ++forward) {  /* overlaps both ways */
          const unsigned dst = forward ? off : off + 5, from = forward ? src + 5 : src;
          string_fill(string_a, n + src, window);
          string_fill(string_ref, n + src, window);
          memmove(string_a + dst, string_a + from, n);
          string_move_ref(dst, from, n);
          bad += !string_same(window);
        }
        string_fill(string_a, n, window);
        string_fill(string_b, n, window);
        bad += memcmp(string_a + off, string_b + off, n) != 0;
        if (n) {
          const unsigned at = (n * 5 + src) % n;
          string_b[off + at] ^= (unsigned char)(0x81 >> src);
          const int want = sign((int)string_a[off + at] - (int)string_b[off + at]);
          bad += sign(memcmp(string_a + off, string_b + off, n)) != want;
          bad += sign(memcmp(string_b + off, string_a + off, n)) != -want;
        }
      }
    }
  }
  return bad;
}

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

  const unsigned string_errors = check_strings();
  check("string", string_errors == 0, string_errors);

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

/* bsp.h: hart 0 sets the barrier up before any hart waits in it. */
static volatile int barrier_ready;

static void barrier_work(unsigned hart, void *arg) {
  (void)arg;
  while (!barrier_ready) {
  }
  bsp_barrier_wait();
  if (hart != BSP_HARTS - 1) bsp_barrier_wait(); /* the last hart leaves */
}

static int run_barrier_timeout(void) {
  bsp_barrier_timeout(CHECK_BARRIER_TICKS);
  bsp_wake_harts(barrier_work, NULL, stacks, 2048);
  bsp_barrier_setup(BSP_HARTS);
  barrier_ready = 1;
  bsp_barrier_wait();
  printf("BARRIER first passed\n");
  bsp_barrier_wait();
  printf("BARRIER second passed\n");
  return 0;
}
#endif

#if CHECK_MODE == 10
/* Known use of the stack and the heap, for their high-water marks. */
__attribute__((noinline)) static unsigned deep(void) {
  volatile unsigned char frame[6000];
  for (unsigned i = 0; i < sizeof(frame); i += 64) frame[i] = (unsigned char)i;
  return frame[64];
}

static int run_memory(void) {
  const size_t before = bsp_heap_peak();
  void *big = sbrk(50000);
  sbrk(-50000); /* given back: the peak stays */
  unsigned sum = deep();
  printf("MEMORY heap %u %u\n", (unsigned)before, (unsigned)bsp_heap_peak());
  printf("MEMORY stack %u %u\n", (unsigned)bsp_stack_used(), sum + (big != 0));
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
#elif CHECK_MODE == 10
  return run_memory();
#endif
}
