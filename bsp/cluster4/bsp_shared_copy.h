// The cluster's copy from shared RAM into a core's scratchpad, under its
// scratchpad rule (../README.md): each load's result is used at once and only
// then stored, so the load has completed before the next access.
//
// A board hook: the runner includes bsp_shared_copy.h from the board's folder
// where woken harts copy their bindings in (runtime/runner/hart_local.c) and
// where constants are staged (runtime/runner/staging.c).  A board that has
// either provides one with bsp_copy_blocks() and BSP_COPY_EIGHT_WORDS (its
// board.toml is refused without it).  Eight words in one straight run of code,
// two loads in flight: the measured costs are in docs/runtime.md ("Measured
// choices").
#ifndef BSP_SHARED_COPY_H_
#define BSP_SHARED_COPY_H_

#include <stdint.h>

#define BSP_COPY_WORD(i)                      \
  "lw %0, " #i "*4(%1)\n\taddi %0, %0, 0\n\t" \
  "sw %0, " #i "*4(%2)\n\t"

// Two words: the second load goes out before the first's result is used (the
// shared path answers in order, and nothing touches the scratchpad between
// them).
#define BSP_COPY_PAIR(i, j)                        \
  "lw %0, " #i "*4(%1)\n\tlw %3, " #j "*4(%1)\n\t" \
  "addi %0, %0, 0\n\taddi %3, %3, 0\n\t"           \
  "sw %0, " #i "*4(%2)\n\tsw %3, " #j "*4(%2)\n\t"

// Eight words from `from` (shared) to `to` (scratchpad); `word` is a scratch
// register variable.
#define BSP_COPY_EIGHT_WORDS(word, from, to)                     \
  __asm__ volatile(BSP_COPY_WORD(0) BSP_COPY_WORD(1)             \
                       BSP_COPY_WORD(2) BSP_COPY_WORD(3)         \
                           BSP_COPY_WORD(4) BSP_COPY_WORD(5)     \
                               BSP_COPY_WORD(6) BSP_COPY_WORD(7) \
                   : "=&r"(word)                                 \
                   : "r"(from), "r"(to)                          \
                   : "memory")

// Copies the blocks of eight words `from` .. `whole` (whole - from a multiple
// of 8 words; both word-aligned) to `to` and returns the word after the last
// one written.  One loop of assembly whose head is word-aligned: the
// CV32E40P pays a cycle for a taken branch to a 32-bit instruction that
// straddles two fetch words, so a loop the compiler placed would cost what
// the code before it decided.  Always inlined: link-time optimisation keeps a
// function with callers in two files out of line, a call more per copy.
static inline __attribute__((always_inline)) uint32_t* bsp_copy_blocks(
    uint32_t* to, const uint32_t* from, const uint32_t* whole) {
  if (from == whole) return to;
  uint32_t word, other;
  __asm__ volatile(
      ".balign 4\n"
      "1:\n\t" BSP_COPY_PAIR(0, 1) BSP_COPY_PAIR(2, 3)
          BSP_COPY_PAIR(4, 5) BSP_COPY_PAIR(6, 7)
      "addi %1, %1, 32\n\t"
      "addi %2, %2, 32\n\t"
      "bltu %1, %4, 1b"
      : "=&r"(word), "+r"(from), "+r"(to), "=&r"(other)
      : "r"(whole)
      : "memory");
  return to;
}

#endif  // BSP_SHARED_COPY_H_
