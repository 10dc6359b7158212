// An application (APP=): kws and ad in one image, through the ireerv API,
// printing each output's bytes, and cycles as the runner prints them (each
// figure between two reads of the counter: `scons profile` splits its trace
// by them): the start-up (both opens), then calls 0 and 1 of kws, 2 and 3 of ad.
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

static ireerv_instance_t *open(const ireerv_model_t *model, void *arena, size_t bytes) {
  int error = 0;
  ireerv_instance_t *instance = ireerv_open(model, arena, bytes, &error);
  if (!instance) printf("%s: open: %s\n", ireerv_name(model), ireerv_error(error));
  return instance;
}

static int call(ireerv_instance_t *instance, int index, const void *input, void *output) {
  const void *inputs[] = {input};
  void *outputs[] = {output};
  const uint64_t begin = bsp_cycles();
  const int error = ireerv_run(instance, inputs, outputs);
  const uint64_t cycles = bsp_cycles() - begin;
  if (error) {
    printf("call %d: %s\n", index, ireerv_error(error));
    return 1;
  }
  printf("CYCLES call %d %lu\n", index, (unsigned long)cycles);
  return 0;
}

static void print(const char *name, const int8_t *data, unsigned count) {
  printf("%s:", name);
  for (unsigned i = 0; i < count; ++i) printf(" %d", data[i]);
  printf("\n");
}

int main(void) {
  for (unsigned i = 0; i < sizeof kws_in; ++i) kws_in[i] = (int8_t)(i * 7);
  for (unsigned i = 0; i < sizeof ad_in; ++i) ad_in[i] = (int8_t)(i * 3);
  const uint64_t begin = bsp_cycles();
  ireerv_instance_t *kws = open(&kws_model, kws_arena, sizeof kws_arena);
  ireerv_instance_t *ad = open(&ad_model, ad_arena, sizeof ad_arena);
  const uint64_t cycles = bsp_cycles() - begin;
  if (!kws || !ad) return 1;
  printf("CYCLES startup %lu\n", (unsigned long)cycles);
  if (call(kws, 0, kws_in, kws_out) || call(kws, 1, kws_in, kws_out) ||
      call(ad, 2, ad_in, ad_out) || call(ad, 3, ad_in, ad_out)) {
    return 1;
  }
  print("kws", kws_out, sizeof kws_out);
  print("ad", ad_out, sizeof ad_out);
  return 0;
}
