/* The requantisation of the board's int8 kernels (conv_sdotp.c, depthwise_q8.c):
 * the translator's columns (formats/requant_generic.py, the same bits) and the op. */
#ifndef REQUANT_Q8_H
#define REQUANT_Q8_H
#include <stddef.h>
#include <stdint.h>

#include "xcv_insn.h"

/* The translator's requantisation columns, one word each for a filter ([F][COLUMNS],
 * the kernel checks' reference, which the spec packs into the kernels' tables): the
 * convolution's own bias, requant_generic.OPERANDS, and the left shift that turns the
 * sums into the translator's prescaled ones (0, or 2 + d for a layer whose int16
 * weights carry 4 * 2^d: formats/prescaled.py; the kernel takes them as int8). */
enum {
  BIAS, BIASES, LEFTS, MULTIPLIERS, SIGNS, NUDGES, SHIFTS, AFTER, LOW, HIGH, PRE, COLUMNS
};

/* The convolution kernel's table [F][Q_COLUMNS] (iree-data-tiling.mlir's
 * @ireerv_q8_table makes it at compile time from the columns above): the bias, the
 * prescaled layers' biases, the multiplier, the nudge, SHIFT and MODE.  SHIFT's bytes:
 * the shift (cv.addNr reads a shift's low 5 bits), PRE (in a PLAIN layer, which has
 * none, the requantisation's left shift: read without MODE's byte and its mask) and
 * the layer's kind (columns_kind's), each one load.  6 words
 * a filter, not 12: the table is a constant staged at each call where the weight
 * cache has no room for it. */
enum { Q_BIAS, Q_BIASES, Q_M, Q_NUDGE, Q_SHIFT, Q_MODE, Q_COLUMNS };
#define Q_PRE_BYTE 1  /* bytes of SHIFT */
#define Q_KIND_BYTE 2

/* MODE, the two kernels' packed word: the clamp's low and high and the constant after
 * the shift as bytes 0-2; byte 3 the requantisation's left shift (bits 24-28) and the
 * sign term (bit 31).  As bytes each field is one load, as a column of its own was (a
 * shift reads its amount's low 5 bits, and byte 3 is negative with the sign term):
 * as a word and shifts, kws's pointwise layer took 5 % longer in the kernel. */
#define MODE_SIGNED (1u << 31)
#define MODE_LOW(mode) ((int32_t)(int8_t)(mode))
#define MODE_HIGH(mode) ((int32_t)(int8_t)((mode) >> 8))
#define MODE_AFTER(mode) ((int32_t)(int8_t)((mode) >> 16))
#define MODE_LEFT(mode) ((int32_t)(((mode) >> 24) & 31))


/* TFLite's requantisation of sum v (requant_generic's op, in C): the high word of
 * (v << left) * m, the sign term where `signed_` (a constant: ReLU layers have
 * none), the nudge and the shift (cv.addNr), the constant and the clamp (cv.max, cv.min); where
 * `clipped` (a constant: columns_kind's CLIPPED, below) one cv.clip instead. */
static inline __attribute__((always_inline)) int32_t requantise(
    int32_t v, int32_t left, int32_t m, int signed_, int32_t nudge, int32_t shift,
    int32_t after, int32_t low, int32_t high, int clipped) {
  const int32_t x = (int32_t)((uint32_t)v << left);
  int32_t r = (int32_t)(((int64_t)x * m) >> 32);
  if (signed_) r += (int32_t)((uint32_t)(v >> 31) << 1);
  r = cv_add_shift(r, nudge, shift);
  /* A word: store_byte keeps its low byte. */
  if (clipped) return cv_clip8(r);
  return cv_min(cv_max(r + after, low), high);
}

/* The kinds of a layer's columns (conv_sdotp.c's rows have a copy each): CLIPPED, no
 * filter adds a constant after the shift and each clamps to int8, [-128, 127]
 * (requantise's `clipped`: every layer of the networks here but kws's last pointwise
 * one); PLAIN, none is prescaled or has the sign term (kws's layers, resnet8's ReLU
 * ones): the value requantised is the sum itself. */
enum { CLIPPED = 1, PLAIN = 2 };

/* The kinds of the n filters of `table` ([n][stride]): what the spec's @ireerv_q8_kinds
 * computes for SHIFT's kind byte (the kernel checks' reference; scanning the columns
 * took ireerv_conv_q8 1,900 cycles a call of kws). */
static inline int columns_kind(const int32_t *table, size_t n, size_t stride) {
  int32_t clamp = 0, other = 0;
  for (const int32_t *t = table, *end = table + n * stride; t != end; t += stride) {
    clamp |= t[AFTER] | (t[LOW] + 128) | (t[HIGH] - 127);
    other |= t[PRE] | t[BIASES] | t[SIGNS];
  }
  return (clamp ? 0 : CLIPPED) | (other ? 0 : PLAIN);
}

#endif
