/* Reads lines of "rest a0 mode in in_split out" and prints "harts first" for
 * each (runner_plan_choose with up to 4 harts); a line "alone mode harts n0 t0
 * n1 t1 ..." prints runner_plan_alone's a0 for those workgroups and cycles. */
#include <stdio.h>
#include <string.h>

#include "hart_plan.h"

static void alone(const char* line) {
  unsigned mode, harts, n[4] = {0}, t[4] = {0};
  sscanf(line, "alone %u %u %u %u %u %u %u %u %u %u", &mode, &harts, &n[0], &t[0],
         &n[1], &t[1], &n[2], &t[2], &n[3], &t[3]);
  const uint32_t workgroups[4] = {n[0], n[1], n[2], n[3]};
  const uint32_t cycles[4] = {t[0], t[1], t[2], t[3]};
  printf("%u\n", runner_plan_alone(workgroups, cycles, harts, mode));
}

int main(void) {
  char line[256];
  while (fgets(line, sizeof line, stdin)) {
    unsigned rest, a0, mode, in, split, out;
    if (strncmp(line, "alone", 5) == 0) {
      alone(line);
    } else if (sscanf(line, "%u %u %u %u %u %u", &rest, &a0, &mode, &in, &split,
                      &out) == 6) {
      uint32_t first;
      const runner_plan_bytes_t bytes = {in, split, out};
      const uint32_t harts = runner_plan_choose(rest, a0, mode, bytes, 4, &first);
      printf("%u %u\n", harts, first);
    }
  }
  return 0;
}
