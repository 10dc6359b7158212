// What a model archive defines (<m>_model, written by the build:
// site_scons/ireerv/library/model_source.py) and the runtime reads.  Not part
// of the public API: ireerv.h keeps the struct opaque.

#ifndef IREERV_MODEL_H_
#define IREERV_MODEL_H_

#include "iree/hal/local/executable_library.h"
#include "iree/vm/api.h"
#include "ireerv.h"

// "IRRV" and the layout's version: a struct of another build is refused.
#define IREERV_MODEL_MAGIC 0x56525249u
#define IREERV_MODEL_VERSION 1u

typedef iree_status_t (*ireerv_module_create_fn_t)(
    iree_vm_instance_t *instance, iree_allocator_t allocator,
    iree_vm_module_t **out_module);

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
};

#endif  // IREERV_MODEL_H_
