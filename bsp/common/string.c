/* Word-wise memset, memcpy, memmove, memcmp and strncmp.  picolibc's size-optimised build copies and
 * clears one byte at a time; the IREE runtime clears kilobytes per call (the
 * VM stack of every invocation, command buffers, calloc), which made memset
 * the largest single cost of a small call.  These replace the C library's
 * versions at link time (the BSP's objects come before libc.a). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* These are on every call's path: optimise them for speed whatever the BSP is
 * built with (the rest of the BSP keeps its flags: code run by woken harts
 * relies on the order of its scratchpad and shared-path accesses). */
#pragma GCC optimize("O2")

/* Keep GCC from turning the loops below back into calls to themselves. */
#define BSP_NO_BUILTIN __attribute__((optimize("no-tree-loop-distribute-patterns")))

BSP_NO_BUILTIN void* memset(void* dst, int value, size_t n) {
  unsigned char* d = dst;
  const unsigned char byte = (unsigned char)value;
  if ((((uintptr_t)d | n) & 3u) == 0) {  /* the usual case: whole aligned words */
    const uint32_t word = byte ? byte * 0x01010101u : 0u;  /* mostly clears */
    uint32_t* w = (uint32_t*)(void*)d;
    uint32_t* const end = (uint32_t*)(void*)(d + n);
    for (; end - w >= 8; w += 8) {  /* 8 words a step: one taken branch per 32 bytes */
      w[0] = word;
      w[1] = word;
      w[2] = word;
      w[3] = word;
      w[4] = word;
      w[5] = word;
      w[6] = word;
      w[7] = word;
    }
    while (w != end) *w++ = word;
    return dst;
  }
  while (n && ((uintptr_t)d & 3u)) {
    *d++ = byte;
    --n;
  }
  uint32_t* w = (uint32_t*)(void*)d;
  const uint32_t word = byte * 0x01010101u;
  for (; n >= 16; n -= 16, w += 4) {
    w[0] = word;
    w[1] = word;
    w[2] = word;
    w[3] = word;
  }
  for (; n >= 4; n -= 4) *w++ = word;
  d = (unsigned char*)w;
  while (n--) *d++ = byte;
  return dst;
}

BSP_NO_BUILTIN void* memcpy(void* restrict dst, const void* restrict src, size_t n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  if ((((uintptr_t)d | (uintptr_t)s | n) & 3u) == 0) {  /* the usual case: whole words */
    uint32_t* wd = (uint32_t*)(void*)d;
    const uint32_t* ws = (const uint32_t*)(const void*)s;
    uint32_t* const end = (uint32_t*)(void*)(d + n);
    for (; end - wd >= 2; wd += 2, ws += 2) {
      const uint32_t a = ws[0], b = ws[1];
      wd[0] = a;
      wd[1] = b;
    }
    if (wd != end) *wd = *ws;
    return dst;
  }
  if ((((uintptr_t)d ^ (uintptr_t)s) & 3u) == 0) {
    while (n && ((uintptr_t)d & 3u)) {
      *d++ = *s++;
      --n;
    }
    uint32_t* wd = (uint32_t*)(void*)d;
    const uint32_t* ws = (const uint32_t*)(const void*)s;
    for (; n >= 16; n -= 16, wd += 4, ws += 4) {
      const uint32_t a = ws[0], b = ws[1], c = ws[2], e = ws[3];
      wd[0] = a;
      wd[1] = b;
      wd[2] = c;
      wd[3] = e;
    }
    for (; n >= 4; n -= 4) *wd++ = *ws++;
    d = (unsigned char*)wd;
    s = (const unsigned char*)ws;
  }
  while (n--) *d++ = *s++;
  return dst;
}

/* IREE's resource sets shift their entries with memmove on every dispatch. */
BSP_NO_BUILTIN void* memmove(void* dst, const void* src, size_t n) {
  unsigned char* d = dst;
  const unsigned char* s = src;
  if (d <= s || d >= s + n) return memcpy(dst, src, n);  /* no harmful overlap */
  d += n;
  s += n;
  if ((((uintptr_t)d ^ (uintptr_t)s) & 3u) == 0) {
    while (n && ((uintptr_t)d & 3u)) {
      *--d = *--s;
      --n;
    }
    uint32_t* wd = (uint32_t*)(void*)d;
    const uint32_t* ws = (const uint32_t*)(const void*)s;
    for (; n >= 4; n -= 4) *--wd = *--ws;
    d = (unsigned char*)wd;
    s = (const unsigned char*)ws;
  }
  while (n--) *--d = *--s;
  return dst;
}

/* The VM resolves every import by name at start-up (binary search with
 * strncmp, type lookups with memcmp): compare a word at a time where both
 * sides are aligned alike.  A macro, not a function: GCC does not inline a
 * function into callers with other optimisation attributes. */
#define BSP_HAS_ZERO_BYTE(w) ((((w) - 0x01010101u) & ~(w) & 0x80808080u) != 0)

BSP_NO_BUILTIN int memcmp(const void* a, const void* b, size_t n) {
  const unsigned char* p = a;
  const unsigned char* q = b;
  if ((((uintptr_t)p | (uintptr_t)q) & 3u) == 0) {
    while (n >= 4 && *(const uint32_t*)(const void*)p == *(const uint32_t*)(const void*)q) {
      p += 4;
      q += 4;
      n -= 4;
    }
  }
  for (; n; --n, ++p, ++q) {
    if (*p != *q) return *p - *q;
  }
  return 0;
}

/* Names in a binary search mostly differ within their first bytes: the byte
 * loop comes first and stays short; a word loop takes over only for long
 * equal runs on pointers aligned alike. */
BSP_NO_BUILTIN int strncmp(const char* a, const char* b, size_t n) {
  const unsigned char* p = (const unsigned char*)a;
  const unsigned char* q = (const unsigned char*)b;
  if ((((uintptr_t)p ^ (uintptr_t)q) & 3u) == 0) {
    for (; n && ((uintptr_t)p & 3u); --n, ++p, ++q) {
      const unsigned c = *p;
      if (c != *q) return (int)c - *q;
      if (c == 0) return 0;
    }
    for (; n >= 4; n -= 4, p += 4, q += 4) {
      const uint32_t w = *(const uint32_t*)(const void*)p;
      if (w != *(const uint32_t*)(const void*)q || BSP_HAS_ZERO_BYTE(w)) break;
    }
  }
  for (; n; --n, ++p, ++q) {
    const unsigned c = *p;
    if (c != *q) return (int)c - *q;
    if (c == 0) return 0;
  }
  return 0;
}

/* Names for the VM (every import and export at start-up) go through strlen
 * and memchr: word-wise once aligned, instead of picolibc's byte loops. */
BSP_NO_BUILTIN size_t strlen(const char* s) {
  const char* p = s;
  for (; (uintptr_t)p & 3u; ++p) {
    if (*p == 0) return (size_t)(p - s);
  }
  const uint32_t* w = (const uint32_t*)(const void*)p;
  while (!BSP_HAS_ZERO_BYTE(*w)) ++w;
  for (p = (const char*)w; *p; ++p) {
  }
  return (size_t)(p - s);
}

BSP_NO_BUILTIN void* memchr(const void* s, int c, size_t n) {
  const unsigned char* p = s;
  const unsigned char byte = (unsigned char)c;
  for (; n; --n, ++p) {
    if (*p == byte) return (void*)p;
  }
  return NULL;
}
