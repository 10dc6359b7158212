/* The cluster's cap on several harts: the same loop on 1..BSP_HARTS harts.
 *
 * Every active hart runs the same kernel on the same operands in its own
 * scratchpad (hart 0's in spm0; hart h copies them once onto its stack,
 * and its slice of bsp_wake_harts() stacks is scratchpad h); idle harts
 * sleep in `wfi`.  Each hart reads its own
 * counters around its loop: mcycle, minstret and mhpmcounter3, which
 * mhpmevent3 points at one of CV32E40P's events (cv32e40p_cs_registers.sv:
 * bit 4 cycles waiting for an instruction fetch, bit 7 jumps, bit 9 taken
 * branches, bit 10 compressed instructions; the core has one such counter,
 * NUM_MHPMCOUNTERS = 1 in the testbench).
 *
 * Kernels: mac (int32 multiply-accumulate), mac8 (the same unrolled 8x),
 * f32 (a*b+c through the linked soft-float routines), divu (a divide loop),
 * i8tile (int8 products summed in a 2x4 tile of int32 registers, the shape
 * of the int8 matmul kernel that bsp/common/iree-tiles.mlir asks for).
 *
 * Output (hart 0 alone prints):
 *   CAPINFO <softfloat> <loops> <elements> <harts>
 *   CAPEV <kernel> <event> <cycles> <instret> <count>      one hart, per event
 *   CAP <kernel> <harts> <hart> <cycles> <instret> <fetch waits>
 *   STATUS OK, or STATUS ERROR after a CAPERR line when a hart's loop
 *   computed something else than hart 0's or a hart did not answer in time
 *
 * Control: harts 1..BSP_HARTS-1 are woken once (bsp_wake_harts) into
 * worker(), which sleeps in wfi until the command word changes.  Hart 0
 * posts a command in its scratchpad, raises the board's wake signal, waits
 * until every worker has seen it, withdraws the signal and runs its own
 * share.  Workers reach hart 0's scratchpad only through bsp_io.h (the
 * scratchpad rule, bsp/README.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bsp.h"
#include "bsp_io.h"

#ifndef CAP_LOOPS
#define CAP_LOOPS 32 /* passes over the data per measurement */
#endif
#ifndef CAP_SOFTFLOAT
#define CAP_SOFTFLOAT "unknown"
#endif
#define ELEMS 64
#define NOINLINE __attribute__((noinline))

/* mhpmevent3 selections (a bit per event; the counter counts cycles with any). */
#define EV_FETCH_WAIT (1u << 4)
#define EV_TRANSFERS ((1u << 7) | (1u << 9)) /* jumps + taken branches: one a cycle */
#define EV_COMPRESSED (1u << 10)

typedef struct {
  int32_t a[ELEMS], b[ELEMS];
  float fa[ELEMS], fb[ELEMS], fc[ELEMS], fo[ELEMS];
  uint32_t num[ELEMS], den[ELEMS];
  int8_t qa[2][ELEMS], qb[ELEMS][4];
} data_t;

static inline float u2f(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof(f));
  return f;
}
static inline uint32_t f2u(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof(bits));
  return bits;
}

/* -- kernels: `loops` passes over the data ------------------------------------------ */

static NOINLINE uint32_t k_mac(data_t *d, unsigned loops) {
  int32_t acc = 0;
  for (unsigned r = 0; r < loops; ++r) {
#pragma GCC unroll 1
    for (unsigned i = 0; i < ELEMS; ++i) acc += d->a[i] * d->b[i];
    __asm__ volatile("" ::: "memory"); /* every pass loads again */
  }
  return (uint32_t)acc;
}

static NOINLINE uint32_t k_mac8(data_t *d, unsigned loops) {
  int32_t acc = 0;
  for (unsigned r = 0; r < loops; ++r) {
#pragma GCC unroll 8
    for (unsigned i = 0; i < ELEMS; ++i) acc += d->a[i] * d->b[i];
    __asm__ volatile("" ::: "memory");
  }
  return (uint32_t)acc;
}

static NOINLINE uint32_t k_f32(data_t *d, unsigned loops) {
  for (unsigned r = 0; r < loops; ++r) {
#pragma GCC unroll 1
    for (unsigned i = 0; i < ELEMS; ++i) d->fo[i] = d->fa[i] * d->fb[i] + d->fc[i];
    __asm__ volatile("" ::: "memory");
  }
  return 0;
}

static NOINLINE uint32_t k_divu(data_t *d, unsigned loops) {
  uint32_t acc = 0;
  for (unsigned r = 0; r < loops; ++r) {
#pragma GCC unroll 1
    for (unsigned i = 0; i < ELEMS; ++i) acc += d->num[i] / d->den[i];
    __asm__ volatile("" ::: "memory");
  }
  return acc;
}

static NOINLINE uint32_t k_i8tile(data_t *d, unsigned loops) {
  uint32_t sum = 0;
  for (unsigned r = 0; r < loops; ++r) {
    int32_t c[2][4] = {{0}};
#pragma GCC unroll 1
    for (unsigned k = 0; k < ELEMS; ++k) {
      const int32_t a0 = d->qa[0][k], a1 = d->qa[1][k];
      for (unsigned j = 0; j < 4; ++j) {
        const int32_t b = d->qb[k][j];
        c[0][j] += a0 * b;
        c[1][j] += a1 * b;
      }
    }
    for (unsigned j = 0; j < 4; ++j) sum = sum * 31u + (uint32_t)(c[0][j] ^ c[1][j]);
    __asm__ volatile("" ::: "memory");
  }
  return sum;
}

static const char *const kernel_names[] = {"mac", "mac8", "f32", "divu", "i8tile"};
#define KERNELS (sizeof(kernel_names) / sizeof(kernel_names[0]))

/* Harts other than 0 must not read anything in .rodata/.data/.bss (hart 0's
 * scratchpad) directly: no tables here, no jump tables (-fno-jump-tables),
 * and positive normal f32 operands, so libgcc's __addsf3 never needs
 * __clzsi2 and its table. */
static uint32_t run_kernel(unsigned kernel, data_t *d) {
  if (kernel == 0) return k_mac(d, CAP_LOOPS);
  if (kernel == 1) return k_mac8(d, CAP_LOOPS);
  if (kernel == 2) {
    k_f32(d, CAP_LOOPS);
    uint32_t sum = 0;
    for (unsigned i = 0; i < ELEMS; ++i) sum = sum * 31u + f2u(d->fo[i]);
    return sum;
  }
  if (kernel == 3) return k_divu(d, CAP_LOOPS);
  return k_i8tile(d, CAP_LOOPS);
}

/* Hart 0's operands; the others copy them (the same operands, the same instructions). */
static data_t data0;

static void fill(data_t *d) {
  uint32_t x = 0x9e3779b9u;
  for (unsigned i = 0; i < ELEMS; ++i) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    d->a[i] = (int32_t)(x >> 8) - (1 << 23);
    d->b[i] = (int32_t)(x & 0xffffu) - 0x8000;
    /* positive normal values in [2^-7, 2^9), built from bits (no soft-float here) */
    d->fa[i] = u2f((120u + (x & 15u)) << 23 | (x >> 9));
    d->fb[i] = u2f((120u + ((x >> 4) & 15u)) << 23 | (x & 0x7fffffu));
    d->fc[i] = u2f((120u + ((x >> 8) & 15u)) << 23 | ((x >> 3) & 0x7fffffu));
    d->fo[i] = 0.0f;
    d->num[i] = x | 0x80000000u; /* large quotients: the divider's slow case */
    d->den[i] = 3u + (x >> 28);
    d->qa[0][i] = (int8_t)(x >> 3), d->qa[1][i] = (int8_t)(x >> 11);
    for (unsigned j = 0; j < 4; ++j) d->qb[i][j] = (int8_t)(x >> (5 * j + 2));
  }
}

/* -- one measurement on one hart ----------------------------------------------------- */

typedef struct {
  uint32_t cycles, instret, count, result;
} counts_t;

#define CSR_READ(num, var) __asm__ volatile("csrr %0, " #num : "=r"(var))

static counts_t measure(unsigned kernel, uint32_t event, data_t *d) {
  uint32_t c0, c1, i0, i1, h0, h1;
  __asm__ volatile("csrw 0x323, %0" ::"r"(event)); /* mhpmevent3 */
  __asm__ volatile("csrw 0xb03, zero");             /* mhpmcounter3 */
  CSR_READ(0xb03, h0);
  CSR_READ(0xb02, i0); /* minstret */
  CSR_READ(0xb00, c0); /* mcycle */
  uint32_t result = run_kernel(kernel, d);
  CSR_READ(0xb00, c1);
  CSR_READ(0xb02, i1);
  CSR_READ(0xb03, h1);
  return (counts_t){c1 - c0, i1 - i0, h1 - h0, result};
}

/* -- hart control -------------------------------------------------------------------- */

/* The command word: sequence number << 16 | event << 8 | kernel << 4 | harts. */
#define CMD(seq, ev, kernel, harts) ((seq) << 16 | (ev) << 8 | (kernel) << 4 | (harts))
#define CMD_SEQ(c) ((c) >> 16)
#define CMD_EV(c) (((c) >> 8) & 0xfu)
#define CMD_KERNEL(c) (((c) >> 4) & 0xfu)
#define CMD_HARTS(c) ((c) & 0xfu)
#define QUIT 0xfu

enum { FETCH_WAIT, COMPRESSED, TRANSFERS, EVENTS };
static const char *const event_names[EVENTS] = {"fetch_wait", "compressed", "transfers"};

static uint32_t event_mask(unsigned ev) {
  return ev == COMPRESSED ? EV_COMPRESSED : ev == TRANSFERS ? EV_TRANSFERS : EV_FETCH_WAIT;
}

/* In hart 0's scratchpad; the other harts use bsp_io.h for every access. */
static volatile uint32_t command;
static volatile uint32_t acked[BSP_HARTS], done[BSP_HARTS];
static volatile counts_t results[BSP_HARTS];

#define ADDR(x) ((uintptr_t) & (x))

static void worker(unsigned hart, void *arg) {
  (void)arg;
  data_t d;
  for (unsigned i = 0; i < sizeof(d) / 4; ++i) {
    ((uint32_t *)&d)[i] = bsp_io_read32(ADDR(data0) + 4u * i);
  }
  __asm__ volatile("csrw 0x320, zero"); /* mcountinhibit: a hart's counters start inhibited */
  __asm__ volatile("csrw mie, %0" ::"r"(1u << BSP_WAKE_IRQ));
  uint32_t seen = 0;
  for (;;) {
    uint32_t cmd = bsp_io_read32(ADDR(command));
    if (CMD_SEQ(cmd) == seen) { /* nothing new: sleep until the wake signal */
      __asm__ volatile("wfi");
      continue;
    }
    seen = CMD_SEQ(cmd);
    bsp_io_write32(ADDR(acked[hart]), seen);
    if (CMD_KERNEL(cmd) == QUIT) return;
    if (hart < CMD_HARTS(cmd)) {
      counts_t c = measure(CMD_KERNEL(cmd), event_mask(CMD_EV(cmd)), &d);
      bsp_io_write32(ADDR(results[hart].cycles), c.cycles);
      bsp_io_write32(ADDR(results[hart].instret), c.instret);
      bsp_io_write32(ADDR(results[hart].count), c.count);
      bsp_io_write32(ADDR(results[hart].result), c.result);
      bsp_io_write32(ADDR(done[hart]), seen);
    }
  }
}

static uint32_t seq;

/* A hart that does not answer within this many cycles ends the run with an error
 * (after its loop: a few times hart 0's own loop). */
#define ACK_CYCLES 1000000u

static int late(unsigned hart, const char *what) {
  printf("CAPERR hart %u did not %s\n", hart, what);
  return 0;
}

/* Post a command, wake the workers, run hart 0's share, wait for the active ones.
 * 0 when a hart did not answer in time. */
static int trial(unsigned kernel, unsigned ev, unsigned harts) {
  ++seq;
  __asm__ volatile("fence rw, rw" ::: "memory");
  command = CMD(seq, ev, kernel, harts);
  __asm__ volatile("fence rw, rw" ::: "memory");
  bsp_wake_raise();
  uint64_t deadline = bsp_cycles() + ACK_CYCLES;
  for (unsigned h = 1; h < BSP_HARTS; ++h) {
    while (acked[h] != seq) {
      if (bsp_cycles() > deadline) return late(h, "wake up");
    }
  }
  bsp_wake_lower();
  if (kernel == QUIT) return 1;
  results[0] = measure(kernel, event_mask(ev), &data0);
  deadline = bsp_cycles() + 8u * (uint64_t)results[0].cycles + ACK_CYCLES;
  for (unsigned h = 1; h < harts; ++h) {
    while (done[h] != seq) { /* poll rarely: a divide is one fetch for many cycles */
      for (unsigned k = 0; k < 8; ++k) __asm__ volatile("divu zero, %0, %0" ::"r"(h + 1u));
      if (bsp_cycles() > deadline) return late(h, "finish its loop");
    }
  }
  return 1;
}

/* Every hart's loop computed what hart 0's did. */
static int same_results(unsigned kernel, unsigned harts) {
  int ok = 1;
  for (unsigned h = 1; h < harts; ++h) {
    if (results[h].result != results[0].result) {
      printf("CAPERR %s %u hart %u result %08lx, hart 0 %08lx\n", kernel_names[kernel], harts,
             h, (unsigned long)results[h].result, (unsigned long)results[0].result);
      ok = 0;
    }
  }
  return ok;
}

int main(void) {
  fill(&data0);
  printf("CAPINFO %s %u %u %u\n", CAP_SOFTFLOAT, (unsigned)CAP_LOOPS, (unsigned)ELEMS,
         (unsigned)BSP_HARTS);
  /* Harts h >= 1: their whole scratchpad is their stack (and so their data). */
  if (bsp_wake_harts(worker, NULL, (void *)(BSP_MEM_SPM0_ORIGIN + BSP_MEM_SPM0_LENGTH),
                     BSP_MEM_SPM0_LENGTH) < 0) {
    printf("STATUS ERROR bsp_wake_harts\n");
    return 1;
  }
  int ok = 1;
  for (unsigned k = 0; k < KERNELS; ++k) {
    for (unsigned ev = COMPRESSED; ev < EVENTS; ++ev) {
      if (!trial(k, ev, 1)) goto stuck;
      printf("CAPEV %s %s %lu %lu %lu\n", kernel_names[k], event_names[ev],
             (unsigned long)results[0].cycles, (unsigned long)results[0].instret,
             (unsigned long)results[0].count);
    }
    for (unsigned n = 1; n <= BSP_HARTS; ++n) {
      if (!trial(k, FETCH_WAIT, n)) goto stuck;
      for (unsigned h = 0; h < n; ++h) {
        printf("CAP %s %u %u %lu %lu %lu\n", kernel_names[k], n, h,
               (unsigned long)results[h].cycles, (unsigned long)results[h].instret,
               (unsigned long)results[h].count);
      }
      ok &= same_results(k, n);
    }
  }
  if (!trial(QUIT, 0, 0)) goto stuck;
  printf(ok ? "STATUS OK\n" : "STATUS ERROR results differ between harts\n");
  return ok ? 0 : 1;
stuck:
  printf("STATUS ERROR a hart did not answer\n");
  return 1;
}
