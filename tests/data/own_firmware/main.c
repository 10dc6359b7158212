// A firmware of its own (no BSP): runs kws and ad through the ireerv library
// and writes their outputs' bytes, in hex, to QEMU virt's UART.
#include <stdint.h>

#include "ad.h"
#include "ireerv.h"
#include "kws.h"

#define UART ((volatile uint8_t *)0x10000000)

static void put(const char *s) {
  while (*s) *UART = (uint8_t)*s++;
}

static void put_bytes(const char *name, const uint8_t *data, unsigned count) {
  put(name);
  for (unsigned i = 0; i < count; ++i) {
    char hex[4] = {' ', "0123456789abcdef"[data[i] >> 4], "0123456789abcdef"[data[i] & 15], 0};
    put(hex);
  }
  put("\n");
}

static uint8_t kws_arena[KWS_ARENA_BYTES] __attribute__((aligned(16)));
static uint8_t ad_arena[AD_ARENA_BYTES] __attribute__((aligned(16)));
static uint8_t kws_in[KWS_INPUT0_BYTES], kws_out[KWS_OUTPUT0_BYTES];
static uint8_t ad_in[AD_INPUT0_BYTES], ad_out[AD_OUTPUT0_BYTES];

int main(void) {
  int error = 0;
  ireerv_instance_t *kws = ireerv_open(&kws_model, kws_arena, sizeof kws_arena, &error);
  if (!kws) return put(ireerv_error(error)), 1;
  ireerv_instance_t *ad = ireerv_open(&ad_model, ad_arena, sizeof ad_arena, &error);
  if (!ad) return put(ireerv_error(error)), 2;
  // Refusals, never traps: a NULL buffer, a wrong model, a small arena.
  const void *none[] = {0};
  void *out_none[] = {kws_out};
  if (ireerv_run(kws, none, out_none) != IREERV_ERROR_NULL) return 3;
  static uint8_t small[12288] __attribute__((aligned(16)));
  ireerv_open((const ireerv_model_t *)small, small, sizeof small, &error);
  if (error != IREERV_ERROR_MODEL) return 4;
  ireerv_open(&kws_model, small, 4096, &error);
  if (error != IREERV_ERROR_ARENA) return 5;
  // Room to open but not to run: the run says so.
  ireerv_instance_t *cramped = ireerv_open(&kws_model, small, sizeof small, &error);
  const void *zeros[] = {kws_in};
  if (cramped && ireerv_run(cramped, zeros, out_none) != IREERV_ERROR_ARENA) return 8;
  if (!cramped && error != IREERV_ERROR_ARENA) return 9;
  for (unsigned i = 0; i < sizeof kws_in; ++i) kws_in[i] = (uint8_t)(i * 7);
  for (unsigned i = 0; i < sizeof ad_in; ++i) ad_in[i] = (uint8_t)(i * 3);
  const void *kws_inputs[] = {kws_in};
  void *kws_outputs[] = {kws_out};
  const void *ad_inputs[] = {ad_in};
  void *ad_outputs[] = {ad_out};
  if ((error = ireerv_run(kws, kws_inputs, kws_outputs)) != 0) return put(ireerv_error(error)), 6;
  if ((error = ireerv_run(ad, ad_inputs, ad_outputs)) != 0) return put(ireerv_error(error)), 7;
  put_bytes("kws:", kws_out, sizeof kws_out);
  put_bytes("ad:", ad_out, sizeof ad_out);
  return 0;
}
