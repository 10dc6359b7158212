/* Reads "rest a0 mode in in_split out" lines, prints "harts first" for each
 * (runner_plan_choose with up to 4 harts). */
#include <stdio.h>

#include "hart_plan.h"

int main(void) {
  unsigned rest, a0, mode, in, split, out;
  while (scanf("%u %u %u %u %u %u", &rest, &a0, &mode, &in, &split, &out) == 6) {
    uint32_t first;
    const runner_plan_bytes_t bytes = {in, split, out};
    const uint32_t harts = runner_plan_choose(rest, a0, mode, bytes, 4, &first);
    printf("%u %u\n", harts, first);
  }
  return 0;
}
