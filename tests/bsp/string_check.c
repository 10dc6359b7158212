/* The BSP's memset, memcpy, memmove, memcmp and strncmp against byte-at-a-time
 * references, for every alignment of both pointers and lengths 0..67. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SIZE 96
static unsigned char a[SIZE + 8], b[SIZE + 8], want[SIZE + 8];
static int failures;

static void fill(unsigned char* p, unsigned seed) {
  for (int i = 0; i < SIZE + 8; ++i) p[i] = (unsigned char)(seed * 131u + (unsigned)i * 7u + 1u);
}

static void check(int ok, const char* what, int x, int y, int n) {
  if (!ok && failures++ < 10) printf("FAIL %s dst+%d src+%d n=%d\n", what, x, y, n);
}

static int sign(int v) { return (v > 0) - (v < 0); }

int main(void) {
  for (int x = 0; x < 4; ++x) {
    for (int y = 0; y < 4; ++y) {
      for (int n = 0; n < 68; ++n) {
        fill(a, 1); fill(want, 1);
        memset(a + x, 0xA5, (size_t)n);
        for (int i = 0; i < n; ++i) want[x + i] = 0xA5;
        for (int i = 0; i < SIZE + 8; ++i) check(a[i] == want[i], "memset", x, y, n);

        fill(a, 2); fill(b, 3); fill(want, 2);
        memcpy(a + x, b + y, (size_t)n);
        for (int i = 0; i < n; ++i) want[x + i] = b[y + i];
        for (int i = 0; i < SIZE + 8; ++i) check(a[i] == want[i], "memcpy", x, y, n);

        for (int shift = -5; shift <= 5; ++shift) {  /* overlapping moves both ways */
          int from = 8 + y, to = 8 + y + shift;
          fill(a, 4); fill(want, 4);
          unsigned char tmp[SIZE];
          for (int i = 0; i < n; ++i) tmp[i] = a[from + i];
          for (int i = 0; i < n; ++i) want[to + i] = tmp[i];
          memmove(a + to, a + from, (size_t)n);
          for (int i = 0; i < SIZE + 8; ++i) check(a[i] == want[i], "memmove", to, from, n);
        }

        fill(a, 5); memcpy(b + y, a + x, (size_t)n + 4);
        check(memcmp(a + x, b + y, (size_t)n) == 0, "memcmp equal", x, y, n);
        check(strncmp((char*)a + x, (char*)b + y, (size_t)n) == 0, "strncmp equal", x, y, n);
        if (n > 0) {
          b[y + n - 1] ^= 0x80;  /* the last byte differs: sign as unsigned chars */
          int ref = sign((int)a[x + n - 1] - (int)b[y + n - 1]);
          check(sign(memcmp(a + x, b + y, (size_t)n)) == ref, "memcmp last", x, y, n);
          int nul = 0;
          for (int i = 0; i < n - 1; ++i) nul |= a[x + i] == 0;
          if (!nul)
            check(sign(strncmp((char*)a + x, (char*)b + y, (size_t)n)) == ref, "strncmp last",
                  x, y, n);
          b[y + n - 1] ^= 0x80;
          a[x + n / 2] = 0; b[y + n / 2] = 0;  /* equal up to a NUL, different after it */
          if (n / 2 + 1 < n) b[y + n / 2 + 1] ^= 1;
          check(strncmp((char*)a + x, (char*)b + y, (size_t)n) == 0 ||
                memchr(a + x, 0, (size_t)(n / 2)) != NULL, "strncmp nul", x, y, n);
        }
      }
    }
  }
  printf(failures ? "STRING CHECKS FAILED %d\n" : "STRING CHECKS OK\n", failures);
  return failures != 0;
}
