/* The board's placing of an int8 layer's output channels (formats/pruned_outputs.py):
 * a layer with pruned filters computes only its live channels, part [P][CP], and
 * output pixel p's channel c is part[p][positions[c]] where positions[c] >= 0, else
 * the pruned channel's number, numbers[c] (the spec's @ireerv_place hands each such op
 * here).  IREE's loop over the output bytes took about 10 cycles a byte (vww: about
 * 45,000 cycles a 6x6x128 layer, on hart 0 alone); here a pixel's numbers are copied
 * as words and its computed channels stored over them. */
#include <stddef.h>
#include <stdint.h>

/* Channels whose places fit the table on the stack (2 bytes each); more take the
 * loop over the output bytes. */
#define MAX_CHANNELS 1024

static void place_bytes(const int8_t *part, const int32_t *positions, const int8_t *numbers,
                        int8_t *out, size_t pixels, size_t cp, size_t c) {
  for (size_t p = 0; p < pixels; ++p, part += cp)
    for (size_t ch = 0; ch < c; ++ch)
      *out++ = positions[ch] >= 0 ? part[positions[ch]] : numbers[ch];
}

void ireerv_place_q8(const int8_t *part, size_t part_offset, const int32_t *positions,
                     size_t positions_offset, const int8_t *numbers, size_t numbers_offset,
                     int8_t *out, size_t out_offset, size_t pixels, size_t cp, size_t c) {
  part += part_offset;
  positions += positions_offset;
  numbers += numbers_offset;
  out += out_offset;
  const int words = !(c % 4) && !((uintptr_t)out % 4) && !((uintptr_t)numbers % 4);
  if (c > MAX_CHANNELS || cp > c || !words) {
    place_bytes(part, positions, numbers, out, pixels, cp, c);
    return;
  }
  uint16_t where[MAX_CHANNELS]; /* computed channel k's output channel */
  for (size_t ch = 0; ch < c; ++ch)
    if (positions[ch] >= 0 && (size_t)positions[ch] < cp) where[positions[ch]] = (uint16_t)ch;
  const uint32_t *fixed = (const uint32_t *)numbers;
  for (size_t p = 0; p < pixels; ++p, part += cp, out += c) {
    uint32_t *to = (uint32_t *)out;
    for (size_t i = 0; i < c / 4; ++i) to[i] = fixed[i];
    for (size_t k = 0; k < cp; ++k) out[where[k]] = part[k];
  }
}
