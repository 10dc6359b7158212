// An application (APP=) for a cluster board with PLACEMENT=shared: ad, whose
// weights do not fit a scratchpad, and the int8 matmul qmatmul in one image,
// on hart 0 alone, one call each, printing each output's values.
#include <stdint.h>
#include <stdio.h>

#include "ad.h"
#include "ireerv.h"
#include "qmatmul.h"

static uint8_t ad_arena[AD_ARENA_BYTES] __attribute__((aligned(16)));
static uint8_t qmatmul_arena[QMATMUL_ARENA_BYTES] __attribute__((aligned(16)));
static int8_t ad_in[AD_INPUT0_BYTES], ad_out[AD_OUTPUT0_BYTES];
static int8_t lhs[QMATMUL_INPUT0_BYTES], rhs[QMATMUL_INPUT1_BYTES];
static int32_t product[QMATMUL_OUTPUT0_BYTES / sizeof(int32_t)];

static int run(const ireerv_model_t *model, void *arena, size_t bytes,
               const void **inputs, void **outputs) {
  int error = 0;
  ireerv_instance_t *instance = ireerv_open(model, arena, bytes, &error);
  if (instance) error = ireerv_run(instance, inputs, outputs);
  if (error) printf("%s: %s\n", ireerv_name(model), ireerv_error(error));
  return error;
}

int main(void) {
  for (unsigned i = 0; i < sizeof ad_in; ++i) ad_in[i] = (int8_t)(i * 3);
  for (unsigned i = 0; i < sizeof lhs; ++i) lhs[i] = (int8_t)(i * 5);
  for (unsigned i = 0; i < sizeof rhs; ++i) rhs[i] = (int8_t)(i * 11);
  const void *ad_inputs[] = {ad_in}, *qmatmul_inputs[] = {lhs, rhs};
  void *ad_outputs[] = {ad_out}, *qmatmul_outputs[] = {product};
  if (run(&ad_model, ad_arena, sizeof ad_arena, ad_inputs, ad_outputs) ||
      run(&qmatmul_model, qmatmul_arena, sizeof qmatmul_arena, qmatmul_inputs,
          qmatmul_outputs)) {
    return 1;
  }
  printf("ad:");
  for (unsigned i = 0; i < sizeof ad_out; ++i) printf(" %d", ad_out[i]);
  printf("\nqmatmul:");
  for (unsigned i = 0; i < sizeof product / sizeof product[0]; ++i) {
    printf(" %ld", (long)product[i]);
  }
  printf("\n");
  return 0;
}
