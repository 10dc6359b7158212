/* The CORE-V instructions the board's kernels use, spelled out with `.insn`:
 * Debian's GCC 12.2 knows none of them. */
#ifndef XCV_INSN_H
#define XCV_INSN_H
#include <stdint.h>

/* cv.sdotsp.b acc, a, b: acc += the sum of the four signed byte products. */
static inline __attribute__((always_inline)) int32_t sdotsp_b(int32_t acc, uint32_t a, uint32_t b) {
  __asm__ volatile(".insn r 0x7b, 0x1, 0x54, %0, %1, %2" : "+r"(acc) : "r"(a), "r"(b));
  return acc;
}

/* cv.max, cv.min: the signed larger and smaller of two words. */
static inline __attribute__((always_inline)) int32_t cv_max(int32_t a, int32_t b) {
  int32_t r;
  __asm__(".insn r 0x2b, 0x3, 0x2d, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

static inline __attribute__((always_inline)) int32_t cv_min(int32_t a, int32_t b) {
  int32_t r;
  __asm__(".insn r 0x2b, 0x3, 0x2b, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/* cv.addNr rd, rs1, rs2: (rd + a) >> shift, arithmetic (one instruction for an
 * addition and a shift: the requantisation's nudge and shift). */
static inline __attribute__((always_inline)) int32_t cv_add_shift(int32_t v, int32_t a,
                                                                  int32_t shift) {
  __asm__(".insn r 0x2b, 0x3, 0x40, %0, %1, %2" : "+r"(v) : "r"(a), "r"(shift));
  return v;
}

/* cv.clip rd, rs1, 8: v clamped to [-128, 127] (one instruction for cv.max and cv.min). */
static inline __attribute__((always_inline)) int32_t cv_clip8(int32_t v) {
  int32_t r;
  __asm__(".insn r 0x2b, 0x3, 0x38, %0, %1, x8" : "=r"(r) : "r"(v)); /* x8: the bound's 8 */
  return r;
}

/* sb: the low byte of a word.  A plain store of (int8_t)v, where the branches
 * that compute v join, costs GCC 12 a sign extension (slli, srai) first. */
static inline __attribute__((always_inline)) void store_byte(int8_t *p, int32_t v) {
  __asm__("sb %1, %0" : "=m"(*p) : "r"(v));
}

/* cv.lw rd, imm(p!): rd = *p, then p += imm bytes (one instruction: no address
 * addition in the loop). */
#define LW_POST(p, imm)                                                          \
  ({                                                                           \
    uint32_t v_;                                                               \
    __asm__ volatile(".insn i 0x0b, 2, %0, %1, %3" : "=r"(v_), "+r"(p) : "m"(*(p)), "i"(imm)); \
    v_;                                                                        \
  })

/* cv.lbu rd, rs2(p!): rd = *(uint8_t *)p, then p += step bytes (a register). */
#define LBU_POST_REG(p, step)                                                    \
  ({                                                                           \
    uint32_t v_;                                                               \
    __asm__ volatile(".insn r 0x2b, 0x3, 0x08, %0, %1, %3"                     \
                     : "=r"(v_), "+r"(p) : "m"(*(p)), "r"(step));              \
    v_;                                                                        \
  })

/* cv.sb v, step(p!): *(int8_t *)p = v, then p += step bytes (a register). */
#define SB_POST_REG(p, v, step)                                                  \
  __asm__ volatile(".insn r 0x2b, 0x3, 0x10, %3, %0, %2"                       \
                   : "+r"(p), "=m"(*(p)) : "r"(v), "r"(step))

#endif
