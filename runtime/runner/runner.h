// The interface between the generic runner (runner.c) and one model.
//
// A model is described by a generated C file, model_data.c
// (site_scons/ireerv/image/runner_data.py), that defines `runner_model`: the
// vm-c module's create function, the static kernel libraries, the function
// to call and its inputs.  The runner itself never changes from one model to
// the next.

#ifndef RUNNER_RUNNER_H_
#define RUNNER_RUNNER_H_

#include <stdint.h>

#include "iree/hal/api.h"
#include "iree/hal/local/executable_library.h"
#include "iree/vm/api.h"

#ifdef __cplusplus
extern "C" {
#endif

// One input tensor: dense, row-major, data as laid out in memory.
typedef struct runner_tensor_t {
  iree_hal_element_type_t element_type;
  iree_host_size_t rank;
  const iree_hal_dim_t* shape;
  const void* data;
  iree_host_size_t byte_length;
} runner_tensor_t;

// The create function iree-compile emits for a vm-c module (`<name>_create`).
typedef iree_status_t (*runner_module_create_fn_t)(
    iree_vm_instance_t* instance, iree_allocator_t allocator,
    iree_vm_module_t** out_module);

typedef struct runner_model_t {
  // Fully qualified function name: "<module>.<function>".
  const char* function_name;
  runner_module_create_fn_t module_create;
  // Query functions of the statically linked kernel libraries.
  const iree_hal_executable_library_query_fn_t* libraries;
  iree_host_size_t library_count;
  const runner_tensor_t* inputs;
  iree_host_size_t input_count;
  // How many times the function is called; outputs of the last call print.
  uint32_t repeat;
} runner_model_t;

extern const runner_model_t runner_model;

#ifdef __cplusplus
}
#endif

#endif  // RUNNER_RUNNER_H_
