/* The board's int8 depthwise convolution: iree-data-tiling.mlir hands it the
 * prescaled int8 depthwise convolutions (3x3 of stride 1 or 2 in the networks
 * here) of 8 rows or more (5 at stride 2), of 5 outputs or more, one workgroup per
 * group of output rows (ireerv_group_of: 4 or 5 of them in the networks here; fewer
 * than 8 rows, one).  IREE's
 * own code took 3.7-5.5 cycles a MAC on vww's, its requantisation a separate pass
 * over int32 sums.
 *
 * Layouts: input [IH][IW][C] (padded already), weights [KH][KW][C] (int8),
 * outputs [OH][OW][C], the table [C][DW_COLUMNS]: the filter's rows as words and the
 * requantisation's figures (below).  A channel at a time along its
 * rows: its filter words and columns in registers, the window's rows as words too,
 * each output one new input a row (cv.lbu with post-increment by C) and a cv.sdotsp.b
 * a row; without the sign term, hardware loop 0 of 18 instructions an output with
 * cv.clip, 15 words fetched (17 and 14 where the sums take no left shift, 20 and 17
 * with cv.max, cv.min and the constant after the shift; the requantisation's mulh
 * takes 5 of its cycles, cv.addNr adds the nudge and shifts), inside hardware loop 1
 * over the rows. */
#include <stddef.h>
#include <stdint.h>

#include "requant_q8.h"
#include "xcv_insn.h"

/* A channel's row of the table, 8 words (iree-data-tiling.mlir's @ireerv_dw_table makes
 * them at compile time from the translator's columns, requant_q8.h's): the three rows
 * of a 3x3 filter as words that meet SHIFT_IN's (a row's 3 weights last first, then 0:
 * bytes w[2], w[1], w[0], 0; built here, a channel's 9 byte loads and their shifts
 * cost about 20 cycles a row of outputs, which kws's rows of 5 outputs could not
 * repay); the multiplier, the nudge, the shift with the left shift of the sums above
 * it (bits 8 on; cv.addNr reads a shift's low 5 bits) and the constant added to the
 * sums, OUTPUT's `pre` and `base` (the fill, the bias and a prescaled
 * layer's biases: ((fill + bias) << pre) + biases, and without the sign term the
 * requantisation's left shift applied too); MODE, the clamp's low and high and the
 * constant after the shift as bytes 0-2, the requantisation's left shift (bits 24-28,
 * for the sign term's channels) and the sign term (bit 31).  The table is a constant
 * staged at each call where the weight cache has no room for it (vww: 1,176 channels;
 * 15 words a channel before, then 9). */
enum { ROW0, ROW1, ROW2, DW_M, DW_NUDGE, DW_SHIFT, DW_BASE, DW_MODE, DW_COLUMNS };
#define DW_PRE(shift_word) ((shift_word) >> 8) /* the sums' left shift, above the shift */
#define DW_SIGNED MODE_SIGNED /* MODE's fields: requant_q8.h */

/* Shift the next input of each of the window's rows into its word (the pointers move
 * on by c): a word's bytes are the row's inputs newest first, so the window's 3 are
 * its low 3 and the 4th, older, meets a zero weight.  The loads first: a load's
 * result used by the next instruction stalls it a cycle. */
#define SHIFT_IN()                                                               \
  do {                                                                         \
    const uint32_t n0 = LBU_POST_REG(p0, c), n1 = LBU_POST_REG(p1, c);          \
    const uint32_t n2 = LBU_POST_REG(p2, c);                                   \
    r0 = (r0 << 8) | n0; r1 = (r1 << 8) | n1; r2 = (r2 << 8) | n2;             \
  } while (0)

/* The next output from the window's rows r0..r2, requantised with the sign term, to
 * *o (o moves on by c); the kind without it is OUTPUT_ASM. */
#define OUTPUT()                                                                 \
  do {                                                                         \
    int32_t s = 0;                                                             \
    s = sdotsp_b(s, r0, k0); s = sdotsp_b(s, r1, k1); s = sdotsp_b(s, r2, k2);  \
    const int32_t v = (int32_t)((uint32_t)s << pre) + base;                    \
    int32_t q = (int32_t)(((int64_t)(int32_t)((uint32_t)v << left) * m) >> 32); \
    q += (int32_t)((uint32_t)(v >> 31) << 1);                                  \
    store_byte(o, cv_min(cv_max(cv_add_shift(q, nudge, shift) + after, low), high)); \
    o += c;                                                                    \
  } while (0)

/* SHIFT_IN, and an output without the sign term (its two left shifts one: the sum's
 * `pre` and the requantisation's `left`, with `base` shifted at the start), in
 * assembly for ROWS_LOOP: the rows below p0 read `pitch` and `pitch2` bytes from it
 * (an asm takes at most 30 operands).  The shifts by 8, the ors and the additions are
 * compressed (COMPRESSED: 2 bytes each; c.or takes registers x8-x15 only, so ROWS_LOOP
 * gives the window's words and the loaded bytes a0-a5): the cluster's harts share one
 * instruction-fetch port, so a loop's fetched words bound what they do together.  The
 * lengths stay whole words, the body's last instruction 4 bytes (ROWS_LOOP's rules;
 * the assembler checks them: an instruction that cannot be compressed breaks them). */
#define COMPRESSED(insns) ".option rvc\n\t" insns ".option norvc\n\t"
#define SHIFT_IN_ASM /* 24 bytes */                                              \
  ".insn r 0x2b, 3, 0x0c, %[n1], %[p0], %[pitch]\n\t" /* cv.lbu n1, pitch(p0) */ \
  ".insn r 0x2b, 3, 0x0c, %[n2], %[p0], %[pitch2]\n\t"                         \
  ".insn r 0x2b, 3, 0x08, %[n0], %[p0], %[c]\n\t" /* cv.lbu n0, c(p0!) */      \
  COMPRESSED("slli %[r0], %[r0], 8\n\tslli %[r1], %[r1], 8\n\tslli %[r2], %[r2], 8\n\t" \
             "or %[r0], %[r0], %[n0]\n\tor %[r1], %[r1], %[n1]\n\tor %[r2], %[r2], %[n2]\n\t")
/* An output's sum: a cv.sdotsp.b a row of the window (cv.dotsp.b first: no sum
 * before), 12 bytes. */
#define DOTS_ASM                                                                 \
  ".insn r 0x7b, 1, 0x48, %[s], %[r0], %[k0]\n\t" /* cv.dotsp.b */              \
  ".insn r 0x7b, 1, 0x54, %[s], %[r1], %[k1]\n\t" /* cv.sdotsp.b */            \
  ".insn r 0x7b, 1, 0x54, %[s], %[r2], %[k2]\n\t"
#define OUTPUT_ASM /* 44 bytes */                                                \
  DOTS_ASM                                                                     \
  "sll %[s], %[s], %[pre]\n\tadd %[s], %[s], %[base]\n\t"                      \
  "mulh %[s], %[s], %[m]\n\t"                                                   \
  ".insn r 0x2b, 3, 0x40, %[s], %[nudge], %[shift]\n\t" /* cv.addNr */        \
  "add %[s], %[s], %[after]\n\t"                                               \
  ".insn r 0x2b, 3, 0x2d, %[s], %[s], %[low]\n\t" /* cv.max */                 \
  ".insn r 0x2b, 3, 0x2b, %[s], %[s], %[high]\n\t" /* cv.min */                \
  ".insn r 0x2b, 3, 0x10, %[c], %[o], %[s]\n\t" /* cv.sb s, c(o!) */
/* OUTPUT_ASM for columns with no constant after the shift and the clamp of int8
 * (every layer of the networks here): cv.clip. */
#define OUTPUT_CLIP_ASM /* 36 bytes */                                           \
  DOTS_ASM                                                                     \
  "sll %[s], %[s], %[pre]\n\tadd %[s], %[s], %[base]\n\t"                      \
  "mulh %[s], %[s], %[m]\n\t"                                                   \
  ".insn r 0x2b, 3, 0x40, %[s], %[nudge], %[shift]\n\t"                        \
  ".insn r 0x2b, 3, 0x38, %[s], %[s], x8\n\t" /* cv.clip s, s, 8 */           \
  ".insn r 0x2b, 3, 0x10, %[c], %[o], %[s]\n\t"
/* OUTPUT_CLIP_ASM for channels whose sums take no left shift (no prescaled weights,
 * no requantisation's left shift: vww's layers of the translator's other form). */
#define OUTPUT_CLIP_UNSHIFTED_ASM /* 32 bytes */                                 \
  DOTS_ASM                                                                     \
  "add %[s], %[s], %[base]\n\tmulh %[s], %[s], %[m]\n\t"                       \
  ".insn r 0x2b, 3, 0x40, %[s], %[nudge], %[shift]\n\t"                        \
  ".insn r 0x2b, 3, 0x38, %[s], %[s], x8\n\t"                                  \
  ".insn r 0x2b, 3, 0x10, %[c], %[o], %[s]\n\t"
/* ROWS_LOOP's operands for OUTPUT_ASM's clamp. */
#define CLAMP_OPERANDS , [after] "r"(after), [low] "r"(low), [high] "r"(high)

/* `rows` rows (at least 1) of ow outputs (at least 1): hardware loop 1 over the rows,
 * each FIRST (FIRST_WORDS words: the row's first inputs shifted in), then ow
 * iterations of BODY as hardware loop 0, then p0 on by `skip` to the next row's first
 * input, and a 4-byte nop (the core's rule: loop 1 ends at least 2 instructions after
 * loop 0).  cv.setup: no branch, no counter.  BODY is 4 * (WORDS - 1) bytes long: loop
 * 0 ends at the address WORDS words after its cv.setup, the one after the body's last
 * instruction, which must be 4 bytes long (the assembler checks the lengths), and a
 * loop's first and last instructions lie at addresses of whole words (the core's rule:
 * otherwise the loop runs once). */
#define ROWS_LOOP(FIRST, FIRST_WORDS, BODY, WORDS, MORE_OPERANDS)                 \
  do {                                                                         \
    /* r: a row's first shifts push out what they held; a0-a5 for c.or */        \
    register uint32_t r0 __asm__("a0"), r1 __asm__("a1"), r2 __asm__("a2");     \
    register uint32_t n0 __asm__("a3"), n1 __asm__("a4"), n2 __asm__("a5");     \
    int32_t s;                                                                 \
    __asm__ volatile(".balign 4\n\t.option push\n\t.option norvc\n\t"        \
                     ".option norelax\n\t"                                     \
                     ".insn i 0x2b, 4, x15, %[rows], " #FIRST_WORDS " + " #WORDS " + 3\n" \
                     ".Lrow%=:\n\t" FIRST                                      \
                     ".Lsetup%=:\n\t.insn i 0x2b, 4, x14, %[ow], " #WORDS "\n" \
                     ".Lbody%=:\n\t" BODY ".Lend%=:\n\t"                       \
                     "add %[p0], %[p0], %[skip]\n\taddi x0, x0, 0\n.Lrows_end%=:\n\t" \
                     ".if .Lend%= - .Lbody%= != 4 * (" #WORDS " - 1)\n\t"        \
                     ".error \"the hardware loop's body is not WORDS - 1 words long\"\n\t" \
                     ".endif\n\t"                                               \
                     ".if .Lsetup%= - .Lrow%= != 4 * " #FIRST_WORDS "\n\t"        \
                     ".error \"a row's first shifts are not FIRST_WORDS words long\"\n\t" \
                     ".endif\n\t.option pop"                                    \
                     : [p0] "+r"(p0), [o] "+r"(o), [r0] "=&r"(r0), [r1] "=&r"(r1),  \
                       [r2] "=&r"(r2), [n0] "=&r"(n0), [n1] "=&r"(n1), [n2] "=&r"(n2), \
                       [s] "=&r"(s)                                             \
                     : [c] "r"(c), [pitch] "r"(pitch), [pitch2] "r"(2 * pitch),     \
                       [k0] "r"(k0), [k1] "r"(k1), [k2] "r"(k2),                 \
                       [pre] "r"(pre), [base] "r"(base), [m] "r"(m), [nudge] "r"(nudge), \
                       [shift] "r"(shift), [rows] "r"(rows), [ow] "r"(ow),      \
                       [skip] "r"(skip) MORE_OPERANDS                            \
                     : "memory");                                              \
  } while (0)

/* One channel's outputs along `rows` rows, 3x3 taps, strides 1 or 2 across (`sw` and
 * `signed_` constants): top points at the channel's first input of the first window's
 * top row, rows `down` bytes apart; t at its columns (with its filter words).  An
 * output: 3 cv.sdotsp.b on the words of the window's rows, and per row one new input
 * shifted in (two at stride 2).  The channel's registers are set once for all its
 * rows: kws's rows are 5 outputs, and setting them took 45 cycles a row. */
static inline __attribute__((always_inline)) void channel_3x3(
    int8_t *out, const int8_t *top, size_t pitch, size_t c, size_t ow, const int32_t *t,
    size_t rows, size_t down, const int sw, const int signed_) {
  const uint32_t k0 = (uint32_t)t[ROW0], k1 = (uint32_t)t[ROW1], k2 = (uint32_t)t[ROW2];
  const int32_t m = t[DW_M], nudge = t[DW_NUDGE], shift = t[DW_SHIFT];
  const uint32_t mode = (uint32_t)t[DW_MODE];
  const int32_t after = MODE_AFTER(mode), low = MODE_LOW(mode), high = MODE_HIGH(mode);
  const int32_t left = MODE_LEFT(mode), pre = DW_PRE(t[DW_SHIFT]), base = t[DW_BASE];
  const int clipped = !(after | (low + 128) | (high - 127));
  if (!signed_) {
    /* A row's first window takes 2 inputs a row before its loop (1 at stride 2), each
     * output 1 (2): p0 then stands that many inputs on from the row's first. */
    const size_t skip = down - (sw == 1 ? ow + 2 : 2 * ow + 1) * c;
    const int8_t *p0 = top;
    int8_t *o = out;
    if (sw == 2 && clipped && !pre)
      ROWS_LOOP(SHIFT_IN_ASM, 6, SHIFT_IN_ASM SHIFT_IN_ASM OUTPUT_CLIP_UNSHIFTED_ASM, 21, );
    else if (sw == 2 && clipped)
      ROWS_LOOP(SHIFT_IN_ASM, 6, SHIFT_IN_ASM SHIFT_IN_ASM OUTPUT_CLIP_ASM, 22, );
    else if (sw == 2)
      ROWS_LOOP(SHIFT_IN_ASM, 6, SHIFT_IN_ASM SHIFT_IN_ASM OUTPUT_ASM, 24, CLAMP_OPERANDS);
    else if (clipped && !pre)
      ROWS_LOOP(SHIFT_IN_ASM SHIFT_IN_ASM, 12, SHIFT_IN_ASM OUTPUT_CLIP_UNSHIFTED_ASM, 15, );
    else if (clipped)
      ROWS_LOOP(SHIFT_IN_ASM SHIFT_IN_ASM, 12, SHIFT_IN_ASM OUTPUT_CLIP_ASM, 16, );
    else
      ROWS_LOOP(SHIFT_IN_ASM SHIFT_IN_ASM, 12, SHIFT_IN_ASM OUTPUT_ASM, 18, CLAMP_OPERANDS);
    return;
  }
  for (size_t row = 0; row < rows; ++row, top += down, out += ow * c) {
    int8_t *o = out;
    const int8_t *p0 = top, *p1 = top + pitch, *p2 = top + 2 * pitch;
    const int8_t *end = o + ow * c;
    uint32_t r0 = 0, r1 = 0, r2 = 0;
    SHIFT_IN();
    if (sw == 2) {
      while (o != end) {
        SHIFT_IN();
        SHIFT_IN();
        OUTPUT();
      }
    } else {
      SHIFT_IN();
      while (o != end) {
        SHIFT_IN();
        OUTPUT();
      }
    }
  }
}

/* `rows` rows of every channel, strides 1 or 2 (`sw` a constant), input rows `down`
 * bytes apart: a function of its own, so that the loop over the channels keeps little
 * beside channel_3x3's registers (inlined into ireerv_dw_q8's loop, the
 * requantisation's columns lived on the stack: 48 cycles an output, 30 so). */
#define ROW(name, sw)                                                            \
  static __attribute__((noinline)) void name(                                  \
      int8_t *o, const int8_t *in, size_t pitch, size_t c, size_t ow, const int32_t *t, \
      size_t rows, size_t down) {                                              \
    for (const int32_t *last = t + c * DW_COLUMNS; t != last; ++o, ++in, t += DW_COLUMNS) \
      if ((uint32_t)t[DW_MODE] & DW_SIGNED)                                    \
        channel_3x3(o, in, pitch, c, ow, t, rows, down, sw, 1);                \
      else                                                                     \
        channel_3x3(o, in, pitch, c, ow, t, rows, down, sw, 0);                \
  }
ROW(rows_s1, 1)
ROW(rows_s2, 2)

/* Any other window and stride: the products one at a time. */
static void channel_any(int8_t *o, const int8_t *in, size_t pitch, size_t c, size_t ow,
                        const int8_t *w, const int32_t *t, size_t kh, size_t kw, size_t sw) {
  const uint32_t mode = (uint32_t)t[DW_MODE];
  const int32_t after = MODE_AFTER(mode), low = MODE_LOW(mode), high = MODE_HIGH(mode);
  for (size_t x = 0; x < ow; ++x, o += c) {
    int32_t s = 0;
    for (size_t r = 0; r < kh; ++r)
      for (size_t j = 0; j < kw; ++j)
        s += in[r * pitch + (x * sw + j) * c] * w[(r * kw + j) * c];
    const int32_t v = (int32_t)((uint32_t)s << DW_PRE(t[DW_SHIFT])) + t[DW_BASE];
    store_byte(o, mode & DW_SIGNED
                      ? requantise(v, MODE_LEFT(mode), t[DW_M], 1, t[DW_NUDGE], t[DW_SHIFT],
                                   after, low, high, 0)
                      : requantise(v, 0, t[DW_M], 0, t[DW_NUDGE], t[DW_SHIFT], after, low,
                                   high, 0));
  }
}

/* Output rows [row * rows, row * rows + rows) of a kh x kw depthwise convolution of c
 * channels, strides sh down and sw across, requantised to int8 with the columns `table`
 * ([C][DW_COLUMNS]; its filter words serve 3x3 windows, the others read `weights`,
 * [KH][KW][C]).  `span`, the input rows they read ((rows - 1) * sh + kh), and
 * `w_bytes`, the weights' (a word with 3x3 windows), are for the harts' copies
 * (harts/kernel_slices.py); `fill`, the sums' first value, is in the table's DW_BASE. */
void ireerv_dw_q8(const int8_t *in, size_t in_offset, const int8_t *weights,
                  size_t weights_offset, const int32_t *table, size_t table_offset,
                  int8_t *bytes, size_t bytes_offset, size_t iw, size_t c, size_t ow,
                  size_t kh, size_t kw, size_t sh, size_t sw, size_t rows, size_t span,
                  int32_t fill, size_t w_bytes, size_t row) {
  const size_t pitch = iw * c, down = sh * pitch;
  const int8_t *first = in + in_offset + row * rows * down;
  int8_t *out = bytes + bytes_offset + row * rows * ow * c;
  (void)span;
  (void)fill;
  (void)w_bytes;
  weights += weights_offset;
  table += table_offset;
  if (kh == 3 && kw == 3 && sw == 1)
    rows_s1(out, first, pitch, c, ow, table, rows, down);
  else if (kh == 3 && kw == 3 && sw == 2)
    rows_s2(out, first, pitch, c, ow, table, rows, down);
  else
    for (size_t r = 0; r < rows; ++r, first += down, out += ow * c)
      for (size_t ch = 0; ch < c; ++ch)
        channel_any(out + ch, first + ch, pitch, c, ow, weights + ch, table + ch * DW_COLUMNS,
                    kh, kw, sw);
}
