// The interface between the generic runner (runner.c) and one model.
//
// A model is described by a generated C file, model_data.c
// (site_scons/ireerv/image/runner_data.py): the model's description as the
// library's archives carry it (`<m>_model`, runtime/api/ireerv_model.h, from
// the same generator), and `runner_model`: that description, the data of
// each input and how often to call it.  The runner opens and calls the model
// through the library's API (runtime/api), and never changes from one model
// to the next.

#ifndef RUNNER_RUNNER_H_
#define RUNNER_RUNNER_H_

#include <stdint.h>

#include "ireerv_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct runner_model_t {
  const ireerv_model_t* model;
  // Input i's data: ireerv_input(model, i)->bytes bytes, word-aligned.
  const void* const* inputs;
  // How many times the function is called; outputs of the last call print.
  uint32_t repeat;
} runner_model_t;

extern const runner_model_t runner_model;

#ifdef __cplusplus
}
#endif

#endif  // RUNNER_RUNNER_H_
