// What a model archive defines (<m>_model, written by the build:
// site_scons/ireerv/library/model_source.py) and the runtime reads.  Not part
// of the public API: ireerv.h keeps the struct opaque.

#ifndef IREERV_MODEL_H_
#define IREERV_MODEL_H_

#include "iree/hal/local/executable_library.h"
#include "iree/hal/local/local_executable.h"
#include "iree/vm/api.h"
#include "ireerv.h"

// "IRRV" and the layout's version: a struct of another build is refused.
#define IREERV_MODEL_MAGIC 0x56525249u
#define IREERV_MODEL_VERSION 2u

typedef iree_status_t (*ireerv_module_create_fn_t)(
    iree_vm_instance_t *instance, iree_allocator_t allocator,
    iree_vm_module_t **out_module);

// A model archive's dispatcher for several harts (model_harts.c: the runner's
// parallel.c, hart_local.c and hart_plan.c compiled with the model's tables).
typedef struct ireerv_harts {
  // Hart 0, before each call: the dispatch hook to install (NULL: IREE's loop).
  iree_hal_local_executable_dispatch_fn_t (*begin_call)(void);
  // Hart h (1 ..): its share of the dispatch hart 0 published.
  void (*share)(unsigned hart);
} ireerv_harts_t;

struct ireerv_model {
  uint32_t magic;
  uint32_t version;
  const char *name;
  const char *function_name;  // "<module>.<function>"
  ireerv_module_create_fn_t module_create;
  const iree_hal_executable_library_query_fn_t *libraries;
  uint32_t library_count;
  const ireerv_tensor_t *inputs;
  uint32_t input_count;
  const ireerv_tensor_t *outputs;
  uint32_t output_count;
  const ireerv_harts_t *harts;  // NULL: the model runs on hart 0 alone
};

#endif  // IREERV_MODEL_H_
