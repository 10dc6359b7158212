// What the runtime (ireerv.c) shares with the project's own runner
// (runtime/runner/runner.c), which opens and calls every model it measures
// through this API.  Not part of the public API: ireerv.h keeps the instance
// opaque.
//
// The runner needs three things a firmware's instance does not have: its
// memory from the runner's own heap (whose marks, weight cache and staging
// area the runner reports and manages) instead of an arena, inputs copied by a
// function of its own (a board that keeps constant data in shared RAM copies
// it under the scratchpad rule), and the call's results as IREE's buffer
// views (printed whatever their type and shape, read after the last call)
// with the runtime's own status on failure.

#ifndef IREERV_INTERNAL_H_
#define IREERV_INTERNAL_H_

#include "arena.h"
#include "iree/hal/local/executable_loader.h"
#include "iree/modules/hal/types.h"
#include "ireerv_model.h"

#define IREERV_MAX_TENSORS 16  // inputs + outputs of one model

// Copies a caller's input into the runtime's buffer: memcpy, or a function
// with its signature.
typedef void *(*ireerv_copy_fn_t)(void *to, const void *from, size_t bytes);

struct ireerv_instance {
  const ireerv_model_t *model;
  ireerv_arena_t arena;
  iree_allocator_t host_allocator;
  ireerv_copy_fn_t copy_in;
  // Set by ireerv_open_in: ireerv_run with no output buffers keeps the
  // results until the next call, and a failure's status is kept in `failure`.
  int keep;
  iree_status_t failure;
  iree_vm_instance_t *instance;
  iree_hal_executable_loader_t *loader;
  iree_hal_allocator_t *device_allocator;
#if IREERV_FULL_HAL
  iree_hal_device_t *device;
#endif
  iree_vm_context_t *context;
  iree_vm_function_t function;
  iree_vm_stack_t *stack;
  // The input buffer views, made at open and filled by every call: the inline
  // HAL keeps the storage of the buffers it last mapped, so buffers made anew
  // per call would each stay alive in its cache for a while.
  iree_vm_ref_t inputs[IREERV_MAX_TENSORS];
  iree_vm_ref_t arguments[IREERV_MAX_TENSORS];  // the call's own references to them
  iree_vm_ref_t results[IREERV_MAX_TENSORS];
  iree_alignas(16) uint8_t stack_storage[IREE_VM_STACK_DEFAULT_SIZE];
};

// Opens `model` in `self` (storage the caller places: its VM stack is not
// cleared) with every allocation from `host` and each input copied in by
// `copy_in` (NULL: memcpy).  0 or an ireerv error code; the runtime's status
// of a failure is in self->failure.  ireerv_run(self, inputs, NULL) then keeps
// the call's results: ireerv_result(self, i) until the next call; and
// ireerv_run(self, NULL, ...) calls the model on the inputs an earlier call
// copied in, as they are (the runner's inputs never change: its later calls
// copy nothing, and cost what the model's call costs).
int ireerv_open_in(ireerv_instance_t *self, const ireerv_model_t *model,
                   iree_allocator_t host, ireerv_copy_fn_t copy_in);

// The last call's i-th result of an instance opened by ireerv_open_in (NULL
// past the last or before a call).
static inline iree_hal_buffer_view_t *ireerv_result(const ireerv_instance_t *self,
                                                   int i) {
  if (i < 0 || (uint32_t)i >= self->model->output_count) return NULL;
  return iree_hal_buffer_view_deref(self->results[i]);
}

// Releases what ireerv_open_in made (an arena's instance is never closed).
void ireerv_close(ireerv_instance_t *self);

#endif  // IREERV_INTERNAL_H_
