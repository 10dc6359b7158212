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

#endif  // RUNNER_SHARED_COPY_H_
