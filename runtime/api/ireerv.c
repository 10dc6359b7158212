// The public API (ireerv.h) over IREE's VM and inline HAL, with every
// allocation in the caller's arena (arena.c) and buffers copied in and out of
// the caller's.  The project's runner (runtime/runner/runner.c) calls every
// model it measures through it (ireerv_internal.h): built with IREERV_FULL_HAL
// for a program compiled for the full HAL (a local-sync device).

#include "ireerv.h"

#include <string.h>

#include "harts.h"
#include "iree/hal/local/loaders/static_library_loader.h"
#if IREERV_FULL_HAL
#include "iree/hal/drivers/local_sync/sync_device.h"
#include "iree/modules/hal/module.h"
#else
#include "iree/modules/hal/inline/module.h"
#include "iree/modules/hal/loader/module.h"
#endif
#include "ireerv_internal.h"

static int valid(const ireerv_model_t *model) {
  return model && model->magic == IREERV_MODEL_MAGIC &&
         model->version == IREERV_MODEL_VERSION &&
         model->input_count + model->output_count <= IREERV_MAX_TENSORS;
}

const ireerv_tensor_t *ireerv_input(const ireerv_model_t *model, int i) {
  if (!valid(model) || i < 0 || (uint32_t)i >= model->input_count) return NULL;
  return &model->inputs[i];
}

const ireerv_tensor_t *ireerv_output(const ireerv_model_t *model, int i) {
  if (!valid(model) || i < 0 || (uint32_t)i >= model->output_count) return NULL;
  return &model->outputs[i];
}

const char *ireerv_name(const ireerv_model_t *model) {
  return valid(model) ? model->name : NULL;
}

size_t ireerv_arena_used(const ireerv_instance_t *instance) {
  return instance ? sizeof(*instance) + instance->arena.peak : 0;
}

const char *ireerv_error(int code) {
  static const char *const names[] = {
      "ok", "NULL argument", "not a model of this runtime", "arena too small",
      "arena not 16-byte aligned"};
  if (code >= 0 && code < (int)(sizeof(names) / sizeof(names[0]))) return names[code];
  if (code >= IREERV_ERROR_RUNTIME && code < IREERV_ERROR_RUNTIME + 32) {
    return iree_status_code_string((iree_status_code_t)(code - IREERV_ERROR_RUNTIME));
  }
  return "unknown error";
}

// An IREE status as an error code (it is freed): a request the arena could not
// serve is IREERV_ERROR_ARENA.
static int code_of(ireerv_instance_t *instance, iree_status_t status) {
  if (iree_status_is_ok(status)) return IREERV_OK;
  const iree_status_code_t code = iree_status_code(status);
  if (instance->keep) {  // the runner prints it
    iree_status_free(instance->failure);
    instance->failure = status;
  } else {
    iree_status_free(status);
  }
  if (instance->arena.exhausted) return IREERV_ERROR_ARENA;
  return IREERV_ERROR_RUNTIME + (int)code;
}

static iree_status_t check_signature(ireerv_instance_t *self) {
  iree_vm_function_signature_t signature = iree_vm_function_signature(&self->function);
  iree_string_view_t arguments, results;
  IREE_RETURN_IF_ERROR(
      iree_vm_function_call_get_cconv_fragments(&signature, &arguments, &results));
  if (arguments.size != self->model->input_count ||
      results.size != self->model->output_count) {
    return iree_status_from_code(IREE_STATUS_INVALID_ARGUMENT);
  }
  for (iree_host_size_t i = 0; i < arguments.size; ++i) {
    if (arguments.data[i] != 'r') return iree_status_from_code(IREE_STATUS_UNIMPLEMENTED);
  }
  for (iree_host_size_t i = 0; i < results.size; ++i) {
    if (results.data[i] != 'r') return iree_status_from_code(IREE_STATUS_UNIMPLEMENTED);
  }
  return iree_ok_status();
}

static iree_status_t make_inputs(ireerv_instance_t *self);

// The modules the program imports from, the model's module imports them: with
// the inline HAL (hal_inline, hal_loader) the program calls its kernels itself,
// with the full one (hal) it records them for a local-sync device.
#if IREERV_FULL_HAL
#define HAL_MODULES 1
#ifndef IREERV_ARENA_BLOCK_SIZE
// The device's transient arena blocks (IREE's default is 32 KiB): small ones
// keep the heap small on boards with little RAM.
#define IREERV_ARENA_BLOCK_SIZE (4 * 1024)
#endif
static iree_status_t hal_modules(ireerv_instance_t *self, iree_vm_module_t **modules) {
  iree_hal_sync_device_params_t params;
  iree_hal_sync_device_params_initialize(&params);
  params.arena_block_size = IREERV_ARENA_BLOCK_SIZE;
  IREE_RETURN_IF_ERROR(iree_hal_sync_device_create(
      iree_make_cstring_view("local-sync"), &params, 1, &self->loader,
      self->device_allocator, self->host_allocator, &self->device));
  return iree_hal_module_create(self->instance, iree_hal_module_device_policy_default(), 1,
                                &self->device, IREE_HAL_MODULE_FLAG_NONE,
                                iree_hal_module_debug_sink_null(), self->host_allocator,
                                &modules[0]);
}
#else
#define HAL_MODULES 2
static iree_status_t hal_modules(ireerv_instance_t *self, iree_vm_module_t **modules) {
  IREE_RETURN_IF_ERROR(iree_hal_inline_module_create(
      self->instance, IREE_HAL_INLINE_MODULE_FLAG_NONE, iree_hal_module_debug_sink_null(),
      self->device_allocator, self->host_allocator, &modules[0]));
  return iree_hal_loader_module_create(self->instance, IREE_HAL_LOADER_MODULE_FLAG_NONE, 1,
                                       &self->loader, self->host_allocator, &modules[1]);
}
#endif

static iree_status_t start(ireerv_instance_t *self) {
  const ireerv_model_t *model = self->model;
  iree_allocator_t host = self->host_allocator;
  IREE_RETURN_IF_ERROR(
      iree_vm_instance_create(IREE_VM_TYPE_CAPACITY_DEFAULT, host, &self->instance));
  IREE_RETURN_IF_ERROR(iree_hal_module_register_all_types(self->instance));
  IREE_RETURN_IF_ERROR(iree_hal_static_library_loader_create(
      model->library_count, model->libraries, iree_hal_executable_import_provider_null(),
      host, &self->loader));
  IREE_RETURN_IF_ERROR(iree_hal_allocator_create_heap(
      iree_make_cstring_view("local-sync"), host, host, &self->device_allocator));
  iree_vm_module_t *modules[HAL_MODULES + 1] = {NULL};
  iree_status_t status = hal_modules(self, modules);
  if (iree_status_is_ok(status)) {
    status = model->module_create(self->instance, host, &modules[HAL_MODULES]);
  }
  if (iree_status_is_ok(status)) {
    status = iree_vm_context_create_with_modules(self->instance, IREE_VM_CONTEXT_FLAG_NONE,
                                                 HAL_MODULES + 1, modules, host,
                                                 &self->context);
  }
  for (int i = 0; i <= HAL_MODULES; ++i) iree_vm_module_release(modules[i]);
  IREE_RETURN_IF_ERROR(status);
  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      self->context, iree_make_cstring_view(model->function_name), &self->function));
  IREE_RETURN_IF_ERROR(check_signature(self));
  IREE_RETURN_IF_ERROR(make_inputs(self));
  return iree_vm_stack_initialize(
      iree_make_byte_span(self->stack_storage, sizeof(self->stack_storage)),
      IREE_VM_INVOCATION_FLAG_NONE, iree_vm_context_state_resolver(self->context), host,
      &self->stack);
}

ireerv_instance_t *ireerv_open(const ireerv_model_t *model, void *arena,
                               size_t arena_bytes, int *error) {
  int ignored;
  if (!error) error = &ignored;
  *error = IREERV_OK;
  if (!model || !arena) {
    *error = IREERV_ERROR_NULL;
    return NULL;
  }
  if (!valid(model)) {
    *error = IREERV_ERROR_MODEL;
    return NULL;
  }
  if ((uintptr_t)arena % 16) {
    *error = IREERV_ERROR_ALIGNMENT;
    return NULL;
  }
  if (arena_bytes < sizeof(ireerv_instance_t) + 1024) {
    *error = IREERV_ERROR_ARENA;
    return NULL;
  }
  ireerv_instance_t *self = (ireerv_instance_t *)arena;
  memset(self, 0, offsetof(ireerv_instance_t, stack_storage));
  self->model = model;
  self->copy_in = memcpy;
  ireerv_arena_init(&self->arena, self + 1, arena_bytes - sizeof(*self));
  self->host_allocator = ireerv_arena_allocator(&self->arena);
  *error = code_of(self, start(self));
  return *error ? NULL : self;
}

int ireerv_open_in(ireerv_instance_t *self, const ireerv_model_t *model,
                   iree_allocator_t host, ireerv_copy_fn_t copy_in) {
  memset(self, 0, offsetof(ireerv_instance_t, stack_storage));
  self->keep = 1;
  if (!valid(model)) return IREERV_ERROR_MODEL;
  self->model = model;
  self->copy_in = copy_in ? copy_in : memcpy;
  self->host_allocator = host;
  return code_of(self, start(self));
}

void ireerv_close(ireerv_instance_t *self) {
  if (self->model) {
    for (uint32_t i = 0; i < self->model->input_count; ++i) {
      iree_vm_ref_release(&self->inputs[i]);
    }
    for (uint32_t i = 0; i < self->model->output_count; ++i) {
      iree_vm_ref_release(&self->results[i]);
    }
  }
  if (self->stack) iree_vm_stack_deinitialize(self->stack);
  iree_vm_context_release(self->context);
#if IREERV_FULL_HAL
  iree_hal_device_release(self->device);
#endif
  iree_hal_allocator_release(self->device_allocator);
  iree_hal_executable_loader_release(self->loader);
  iree_vm_instance_release(self->instance);
}

static iree_hal_element_type_t element_type(int dtype) {
  switch (dtype) {
    case IREERV_FLOAT32: return IREE_HAL_ELEMENT_TYPE_FLOAT_32;
    case IREERV_INT8: return IREE_HAL_ELEMENT_TYPE_SINT_8;
    case IREERV_INT16: return IREE_HAL_ELEMENT_TYPE_SINT_16;
    case IREERV_INT32: return IREE_HAL_ELEMENT_TYPE_SINT_32;
    case IREERV_INT64: return IREE_HAL_ELEMENT_TYPE_SINT_64;
    case IREERV_UINT8: return IREE_HAL_ELEMENT_TYPE_UINT_8;
    case IREERV_FLOAT16: return IREE_HAL_ELEMENT_TYPE_FLOAT_16;
    case IREERV_BFLOAT16: return IREE_HAL_ELEMENT_TYPE_BFLOAT_16;
    case IREERV_FLOAT64: return IREE_HAL_ELEMENT_TYPE_FLOAT_64;
    case IREERV_UINT16: return IREE_HAL_ELEMENT_TYPE_UINT_16;
    case IREERV_UINT32: return IREE_HAL_ELEMENT_TYPE_UINT_32;
    case IREERV_UINT64: return IREE_HAL_ELEMENT_TYPE_UINT_64;
    default: return IREE_HAL_ELEMENT_TYPE_BOOL_8;
  }
}

// An input's buffer view, made once (ireerv_open).
static iree_status_t make_input(ireerv_instance_t *self, const ireerv_tensor_t *tensor,
                                iree_vm_ref_t *out_ref) {
  const iree_hal_buffer_params_t params = {
      .type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL | IREE_HAL_MEMORY_TYPE_HOST_VISIBLE,
      .access = IREE_HAL_MEMORY_ACCESS_ALL,
      .usage = IREE_HAL_BUFFER_USAGE_DEFAULT | IREE_HAL_BUFFER_USAGE_MAPPING,
  };
  iree_hal_buffer_t *buffer = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_allocator_allocate_buffer(self->device_allocator, params,
                                                          tensor->bytes, &buffer));
  iree_hal_dim_t shape[8];
  for (int d = 0; d < tensor->rank; ++d) shape[d] = (iree_hal_dim_t)tensor->dims[d];
  iree_hal_buffer_view_t *view = NULL;
  iree_status_t status = iree_hal_buffer_view_create(
      buffer, (iree_host_size_t)tensor->rank, shape, element_type(tensor->dtype),
      IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR, self->host_allocator, &view);
  iree_hal_buffer_release(buffer);
  if (iree_status_is_ok(status)) *out_ref = iree_hal_buffer_view_move_ref(view);
  return status;
}

static iree_status_t make_inputs(ireerv_instance_t *self) {
  for (uint32_t i = 0; i < self->model->input_count; ++i) {
    IREE_RETURN_IF_ERROR(make_input(self, &self->model->inputs[i], &self->inputs[i]));
  }
  return iree_ok_status();
}

// The caller's data copied into an input's buffer through a host mapping.
static iree_status_t fill_input(ireerv_instance_t *self, iree_vm_ref_t ref, const void *data,
                                size_t bytes) {
  iree_hal_buffer_view_t *view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_check_deref(ref, &view));
  iree_hal_buffer_mapping_t mapping;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_map_range(
      iree_hal_buffer_view_buffer(view), IREE_HAL_MAPPING_MODE_SCOPED,
      IREE_HAL_MEMORY_ACCESS_DISCARD_WRITE, 0, bytes, &mapping));
  self->copy_in(mapping.contents.data, data, bytes);
  return iree_hal_buffer_unmap_range(&mapping);
}

// A result copied out to the caller's buffer, checked against the model's size.
static iree_status_t read_output(const ireerv_tensor_t *tensor, iree_vm_ref_t ref,
                                 void *data) {
  iree_hal_buffer_view_t *view = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_view_check_deref(ref, &view));
  if (iree_hal_buffer_view_byte_length(view) != tensor->bytes) {
    return iree_status_from_code(IREE_STATUS_OUT_OF_RANGE);
  }
  return iree_hal_buffer_map_read(iree_hal_buffer_view_buffer(view), 0, data, tensor->bytes);
}

static iree_status_t call(ireerv_instance_t *self, const void *const inputs[],
                          void *const outputs[]) {
  const ireerv_model_t *model = self->model;
  iree_status_t status = iree_ok_status();
  // Results an earlier call kept (ireerv_open_in) go back before this one.
  for (uint32_t i = 0; i < model->output_count; ++i) iree_vm_ref_release(&self->results[i]);
  for (uint32_t i = 0; i < model->input_count && iree_status_is_ok(status); ++i) {
    if (inputs) status = fill_input(self, self->inputs[i], inputs[i], model->inputs[i].bytes);
    if (iree_status_is_ok(status)) iree_vm_ref_retain(&self->inputs[i], &self->arguments[i]);
  }
  if (iree_status_is_ok(status)) {
    const iree_vm_function_call_t invocation = {
        .function = self->function,
        .arguments = iree_make_byte_span(self->arguments,
                                         model->input_count * sizeof(iree_vm_ref_t)),
        .results = iree_make_byte_span(self->results,
                                       model->output_count * sizeof(iree_vm_ref_t)),
    };
    iree_vm_module_t *module = self->function.module;
    status = module->begin_call(module->self, self->stack, invocation);
    if (iree_status_is_deferred(status)) {  // the program never waits
      status = iree_status_from_code(IREE_STATUS_FAILED_PRECONDITION);
    }
  }
  for (uint32_t i = 0; i < model->input_count; ++i) iree_vm_ref_release(&self->arguments[i]);
  if (!outputs) return status;  // kept for the caller (ireerv_result)
  for (uint32_t i = 0; i < model->output_count && iree_status_is_ok(status); ++i) {
    status = read_output(&model->outputs[i], self->results[i], outputs[i]);
  }
  // Every buffer of the call goes back to the arena before the next one.
  for (uint32_t i = 0; i < model->output_count; ++i) iree_vm_ref_release(&self->results[i]);
  return status;
}

int ireerv_run(ireerv_instance_t *instance, const void *const inputs[],
               void *const outputs[]) {
  if (!instance || (!inputs && instance->model->input_count && !instance->keep) ||
      (!outputs && instance->model->output_count && !instance->keep)) {
    return IREERV_ERROR_NULL;
  }
  if (!valid(instance->model)) return IREERV_ERROR_MODEL;
  for (uint32_t i = 0; inputs && i < instance->model->input_count; ++i) {
    if (!inputs[i]) return IREERV_ERROR_NULL;
  }
  for (uint32_t i = 0; outputs && i < instance->model->output_count; ++i) {
    if (!outputs[i]) return IREERV_ERROR_NULL;
  }
  instance->arena.exhausted = 0;
  ireerv_harts_begin(instance->model->harts);
  const int code = code_of(instance, call(instance, inputs, outputs));
  ireerv_harts_end();
  return code;
}
