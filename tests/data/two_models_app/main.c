// An application (APP=): kws and ad in one image, through the ireerv API, on
// the inputs their runner images are built with (kws: 490 values, ad: 640; the
// values below), printing each output's bytes and each call's cycles.
#include <stdint.h>
#include <stdio.h>

#include "ad.h"
#include "bsp_cycles.h"
#include "ireerv.h"
#include "kws.h"

static uint8_t kws_arena[KWS_ARENA_BYTES] __attribute__((aligned(16)));
static uint8_t ad_arena[AD_ARENA_BYTES] __attribute__((aligned(16)));
static int8_t kws_in[KWS_INPUT0_BYTES], kws_out[KWS_OUTPUT0_BYTES];
static int8_t ad_in[AD_INPUT0_BYTES], ad_out[AD_OUTPUT0_BYTES];

static int run(const char *name, const ireerv_model_t *model, void *arena, size_t bytes,
               const void *input, void *output, unsigned out_bytes) {
  int error = 0;
  ireerv_instance_t *instance = ireerv_open(model, arena, bytes, &error);
  if (!instance) {
    printf("%s: open: %s\n", name, ireerv_error(error));
    return 1;
  }
  const void *inputs[] = {input};
  void *outputs[] = {output};
  for (int call = 0; call < 2; ++call) {
    const uint64_t begin = bsp_cycles();
    error = ireerv_run(instance, inputs, outputs);
    const uint64_t cycles = bsp_cycles() - begin;
    if (error) {
      printf("%s: run: %s\n", name, ireerv_error(error));
      return 1;
    }
    printf("CYCLES %s call %d %lu\n", name, call, (unsigned long)cycles);
  }
  printf("%s:", name);
  for (unsigned i = 0; i < out_bytes; ++i) printf(" %d", ((int8_t *)output)[i]);
  printf("\n");
  return 0;
}

int main(void) {
  for (unsigned i = 0; i < sizeof kws_in; ++i) kws_in[i] = (int8_t)(i * 7);
  for (unsigned i = 0; i < sizeof ad_in; ++i) ad_in[i] = (int8_t)(i * 3);
  return run("kws", &kws_model, kws_arena, sizeof kws_arena, kws_in, kws_out, sizeof kws_out) ||
         run("ad", &ad_model, ad_arena, sizeof ad_arena, ad_in, ad_out, sizeof ad_out);
}
