// Copying words from shared RAM into a core's scratchpad under the cluster's
// scratchpad rule (bsp/README.md): each load's result is used at once and only
// then stored, so the load has completed before the next access.  Eight words
// in one straight run of code: a lone hart copying word by word in a loop took
// 39 cycles a word, straight runs 26 (the path itself about 22).  Used by the
// woken harts' copy-in (hart_local.c) and the weight staging (staging.c).
#ifndef RUNNER_SHARED_COPY_H_
#define RUNNER_SHARED_COPY_H_

#include <stdint.h>

#define RUNNER_COPY_WORD(i)                     \
  "lw %0, " #i "*4(%1)\n\taddi %0, %0, 0\n\t" \
  "sw %0, " #i "*4(%2)\n\t"

// Two words: the second load goes out before the first's result is used (the
// shared path answers in order, and nothing touches the scratchpad between
// them).  ad with HARTS=auto: 1,666,731 cycles a call, 1,676,971 a word at a
// time; its first call, which fills the weight cache, 34,000 fewer.
#define RUNNER_COPY_PAIR(i, j)                                        \
  "lw %0, " #i "*4(%1)\n\tlw %3, " #j "*4(%1)\n\t"                  \
  "addi %0, %0, 0\n\taddi %3, %3, 0\n\t"                              \
  "sw %0, " #i "*4(%2)\n\tsw %3, " #j "*4(%2)\n\t"

// Eight words from `from` (shared) to `to` (scratchpad); `word` is a scratch
// register variable.
#define RUNNER_COPY_EIGHT_WORDS(word, from, to)                             \
  __asm__ volatile(RUNNER_COPY_WORD(0) RUNNER_COPY_WORD(1)                  \
                       RUNNER_COPY_WORD(2) RUNNER_COPY_WORD(3)              \
                           RUNNER_COPY_WORD(4) RUNNER_COPY_WORD(5)          \
                               RUNNER_COPY_WORD(6) RUNNER_COPY_WORD(7)      \
                   : "=&r"(word)                                            \
                   : "r"(from), "r"(to)                                     \
                   : "memory")

// Blocks of eight words, `from` .. `whole` (whole - from a multiple of 8
// words), as one loop of assembly whose head is word-aligned: the CV32E40P
// pays a cycle for a taken branch to a 32-bit instruction that straddles two
// fetch words, and where the compiler's loop landed followed the code before
// it (ad's weight staging, 8,400 blocks a call: 17,000 cycles apart between
// two images of the same model).  Always inlined: with callers in two files
// link-time optimisation kept it apart, a call more per copy.
static inline __attribute__((always_inline)) uint32_t* runner_copy_blocks(uint32_t* to, const uint32_t* from,
    const uint32_t* whole) {
  if (from == whole) return to;
  uint32_t word, other;
  __asm__ volatile(
      ".balign 4\n"
      "1:\n\t" RUNNER_COPY_PAIR(0, 1) RUNNER_COPY_PAIR(2, 3)
          RUNNER_COPY_PAIR(4, 5) RUNNER_COPY_PAIR(6, 7)
      "addi %1, %1, 32\n\t"
      "addi %2, %2, 32\n\t"
      "bltu %1, %4, 1b"
      : "=&r"(word), "+r"(from), "+r"(to), "=&r"(other)
      : "r"(whole)
      : "memory");
  return to;
}

#endif  // RUNNER_SHARED_COPY_H_
