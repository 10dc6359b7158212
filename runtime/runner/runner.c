// Generic runner: calls one function of a vm-c module with statically linked
// kernels, through IREE's inline HAL or on a local-sync device (the full
// HAL), and prints results and cycle counts.  The model comes from the
// generated `runner_model` (runner.h); cycle counts from the board's
// `bsp_cycles()` (bsp_cycles.h) and memory marks (bsp_memory.h).
//
// Output lines, in this order (all integers in decimal unless noted):
//   CYCLES startup <n>        from entering main: VM instance, device, HAL and
//                             model modules, context, function lookup
//   CYCLES inputs <n>         input buffer views created from runner_model
//   CYCLES warmup <n>         the warm-up call (below), where the build allows
//   CYCLES call <i> <n>       one invocation, i = 0 .. repeat-1
//   WORKGROUPS <x>x<y>x<z> ...  workgroup counts of the last call's dispatches,
//                             in order (only with RUNNER_HARTS > 1, parallel.c)
//   HART_CYCLES <c0> <c1> ... cycles each hart spent on its shares of them
//   OUTPUT <i> <dtype> <shape>: <v> <v> ...
//                             outputs of the last call; dtype is f32, i8, u16,
//                             b8, bf16, ...; shape is "4x4" (or "scalar");
//                             floats print as hex bit patterns (0x3f800000),
//                             integers as decimal
//   MEMORY heap_peak <n>      the heap's high-water mark (bytes above its start)
//   MEMORY largest_allocation <n>   the largest single host allocation
//   MEMORY refused_allocation <n>   the largest one refused (only if any)
//   MEMORY stack <hart> <n>   bytes of that hart's stack ever used
//   MEMORY weight_cache <n>   staged constants: bytes of them kept in the
//                             scratchpad at the end (not in the heap's peak)
//   STATUS OK | STATUS <error>
// main returns 0 on success and 1 on any IREE error.  Numbers are formatted
// here and written with fputs: no printf.  Release statuses are bare codes and
// print by name, so release images link no printf machinery at all.
// site_scons/ireerv/run/runner_output.py reads these lines.
//
// Compile-time settings: RUNNER_ARENA_BLOCK_SIZE (bytes, default 4096),
// RUNNER_HARTS (harts sharing each dispatch, default 1), RUNNER_INLINE_HAL
// (1: the program was compiled for the inline HAL, default 0).

#include <stdio.h>
#include <string.h>

#include "bsp_config.h"
#include "bsp_cycles.h"
#include "bsp_decimal.h"
#include "bsp_memory.h"
#include "host_allocator.h"
#include "iree/hal/local/loaders/static_library_loader.h"
#include "iree/modules/hal/types.h"
#ifndef RUNNER_INLINE_HAL
#define RUNNER_INLINE_HAL 0
#endif
#if RUNNER_INLINE_HAL
#include "iree/modules/hal/inline/module.h"
#include "iree/modules/hal/loader/module.h"
#else
#include "iree/hal/drivers/local_sync/sync_device.h"
#include "iree/modules/hal/module.h"
#endif
#include "parallel.h"
#include "runner.h"
#include "staging.h"
#include "weight_cache.h"

//===----------------------------------------------------------------------===//
// Text output
//===----------------------------------------------------------------------===//

static char out_buffer[128];
static size_t out_length = 0;

static void out_flush(void) {
  out_buffer[out_length] = '\0';
  fputs(out_buffer, stdout);
  out_length = 0;
}

static void out_char(char c) {
  if (out_length + 1 >= sizeof(out_buffer)) out_flush();
  out_buffer[out_length++] = c;
}

static void out_str(const char* s) {
  while (*s) out_char(*s++);
}

static void out_end_line(void) {
  out_char('\n');
  out_flush();
  fflush(stdout);
}

static void out_u64(uint64_t value) {
  char digits[20];
  int count = bsp_decimal_digits64(value, digits);
  while (count) out_char(digits[--count]);
}

static void out_i64(int64_t value) {
  if (value < 0) {
    out_char('-');
    out_u64(0 - (uint64_t)value);
  } else {
    out_u64((uint64_t)value);
  }
}

static void out_hex(uint64_t value, int digit_count) {
  out_str("0x");
  for (int i = digit_count - 1; i >= 0; --i) {
    out_char("0123456789abcdef"[(value >> (4 * i)) & 0xF]);
  }
}

static void out_cycles(const char* what, int64_t index, uint64_t cycles) {
  out_str("CYCLES ");
  out_str(what);
  out_char(' ');
  if (index >= 0) {
    out_i64(index);
    out_char(' ');
  }
  out_u64(cycles);
  out_end_line();
}

//===----------------------------------------------------------------------===//
// Output tensors
//===----------------------------------------------------------------------===//

// How an element prints: its dtype prefix and whether the value is a float
// (hex bits), a signed or an unsigned integer (decimal).
typedef enum { KIND_FLOAT, KIND_SIGNED, KIND_UNSIGNED, KIND_RAW } kind_t;

static kind_t element_kind(iree_hal_element_type_t type, const char** name) {
  switch (iree_hal_element_numerical_type(type)) {
    case IREE_HAL_NUMERICAL_TYPE_FLOAT_IEEE:
      *name = "f";
      return KIND_FLOAT;
    case IREE_HAL_NUMERICAL_TYPE_FLOAT_BRAIN:
      *name = "bf";
      return KIND_FLOAT;
    case IREE_HAL_NUMERICAL_TYPE_INTEGER:
    case IREE_HAL_NUMERICAL_TYPE_INTEGER_SIGNED:
      *name = "i";
      return KIND_SIGNED;
    case IREE_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED:
      *name = "u";
      return KIND_UNSIGNED;
    case IREE_HAL_NUMERICAL_TYPE_BOOLEAN:
      *name = "b";
      return KIND_UNSIGNED;
    default:
      *name = "x";
      return KIND_RAW;
  }
}

static iree_status_t print_output(iree_host_size_t index,
                                  iree_hal_buffer_view_t* view) {
  iree_hal_element_type_t type = iree_hal_buffer_view_element_type(view);
  const iree_host_size_t bits = iree_hal_element_bit_count(type);
  const iree_host_size_t size = bits / 8;
  if (bits % 8 != 0 || size == 0 || size > 8) {
    return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                            "output element type 0x%08x cannot print",
                            (unsigned)type);
  }
  const char* name = NULL;
  const kind_t kind = element_kind(type, &name);

  out_str("OUTPUT ");
  out_u64(index);
  out_char(' ');
  out_str(name);
  out_u64(bits);
  out_char(' ');
  const iree_host_size_t rank = iree_hal_buffer_view_shape_rank(view);
  const iree_hal_dim_t* dims = iree_hal_buffer_view_shape_dims(view);
  if (rank == 0) out_str("scalar");
  for (iree_host_size_t i = 0; i < rank; ++i) {
    if (i) out_char('x');
    out_u64(dims[i]);
  }
  out_char(':');

  iree_hal_buffer_mapping_t mapping;
  IREE_RETURN_IF_ERROR(iree_hal_buffer_map_range(
      iree_hal_buffer_view_buffer(view), IREE_HAL_MAPPING_MODE_SCOPED,
      IREE_HAL_MEMORY_ACCESS_READ, 0, iree_hal_buffer_view_byte_length(view),
      &mapping));
  const uint8_t* data = mapping.contents.data;
  const iree_host_size_t count = mapping.contents.data_length / size;
  for (iree_host_size_t i = 0; i < count; ++i) {
    uint64_t raw = 0;
    memcpy(&raw, data + i * size, size);  // little-endian host
    out_char(' ');
    if (kind == KIND_SIGNED) {
      const int shift = 64 - (int)bits;  // sign-extend from the top bit
      out_i64((int64_t)(raw << shift) >> shift);
    } else if (kind == KIND_UNSIGNED) {
      out_u64(raw);
    } else {
      out_hex(raw, (int)(size * 2));
    }
  }
  out_end_line();
  return iree_hal_buffer_unmap_range(&mapping);
}

//===----------------------------------------------------------------------===//
// Running the model
//===----------------------------------------------------------------------===//

#if !defined(RUNNER_ARENA_BLOCK_SIZE)
// Block size of the device's transient arena (IREE's default is 32 KiB): small
// blocks keep the heap small on boards with little RAM.
#define RUNNER_ARENA_BLOCK_SIZE (4 * 1024)
#endif

// What the program's HAL modules are made of: the kernels' loader and the heap
// allocator of every buffer, and with the full HAL a local-sync device.
typedef struct runner_hal_t {
  iree_hal_executable_loader_t* loader;
  iree_hal_allocator_t* allocator;
#if !RUNNER_INLINE_HAL
  iree_hal_device_t* device;
#endif
} runner_hal_t;

static iree_status_t create_hal(iree_allocator_t host_allocator,
                                runner_hal_t* out_hal) {
  IREE_RETURN_IF_ERROR(iree_hal_static_library_loader_create(
      runner_model.library_count, runner_model.libraries,
      iree_hal_executable_import_provider_null(), host_allocator,
      &out_hal->loader));
  const iree_string_view_t identifier = iree_make_cstring_view("local-sync");
  IREE_RETURN_IF_ERROR(iree_hal_allocator_create_heap(
      identifier, host_allocator, host_allocator, &out_hal->allocator));
#if !RUNNER_INLINE_HAL
  iree_hal_sync_device_params_t params;
  iree_hal_sync_device_params_initialize(&params);
  params.arena_block_size = RUNNER_ARENA_BLOCK_SIZE;
  IREE_RETURN_IF_ERROR(iree_hal_sync_device_create(
      identifier, &params, 1, &out_hal->loader, out_hal->allocator,
      host_allocator, &out_hal->device));
#endif
  return iree_ok_status();
}

static void release_hal(runner_hal_t* hal) {
#if !RUNNER_INLINE_HAL
  iree_hal_device_release(hal->device);
#endif
  iree_hal_allocator_release(hal->allocator);
  iree_hal_executable_loader_release(hal->loader);
}

// The modules the program imports from, in `modules`: with the inline HAL
// (hal_inline and hal_loader) the program calls its kernels itself, with the
// full one (hal) it records them into command buffers of the device.
#if RUNNER_INLINE_HAL
#define RUNNER_HAL_MODULES 2
static iree_status_t create_hal_modules(iree_vm_instance_t* instance,
                                        runner_hal_t* hal,
                                        iree_allocator_t host_allocator,
                                        iree_vm_module_t** modules) {
  IREE_RETURN_IF_ERROR(iree_hal_inline_module_create(
      instance, IREE_HAL_INLINE_MODULE_FLAG_NONE,
      iree_hal_module_debug_sink_null(), hal->allocator, host_allocator,
      &modules[0]));
  return iree_hal_loader_module_create(instance,
                                       IREE_HAL_LOADER_MODULE_FLAG_NONE, 1,
                                       &hal->loader, host_allocator,
                                       &modules[1]);
}
#else
#define RUNNER_HAL_MODULES 1
static iree_status_t create_hal_modules(iree_vm_instance_t* instance,
                                        runner_hal_t* hal,
                                        iree_allocator_t host_allocator,
                                        iree_vm_module_t** modules) {
  return iree_hal_module_create(
      instance, iree_hal_module_device_policy_default(), 1, &hal->device,
      IREE_HAL_MODULE_FLAG_NONE, iree_hal_module_debug_sink_null(),
      host_allocator, &modules[0]);
}
#endif

// The VM is driven directly (no iree/runtime instance or session): those pull
// in the HAL driver registry and, through it, flag parsing with static
// constructors that section garbage collection cannot drop.  The function is
// called as the control program calls the HAL module: arguments and results
// laid out as its calling convention says (buffer views only, so references),
// on a VM stack in static storage.  iree_vm_invoke would convert variant lists
// to and from that layout and parse the convention on every call (and link
// 4 KiB of list and invocation code).
typedef struct runner_state_t {
  iree_allocator_t host_allocator;
  iree_vm_instance_t* instance;
  runner_hal_t hal;
  iree_vm_context_t* context;
  iree_vm_function_t function;
  iree_host_size_t result_count;
  iree_vm_ref_t* inputs;     // runner_model.input_count buffer views
  iree_vm_ref_t* arguments;  // a call's own references to them
  iree_vm_ref_t* results;    // result_count: the last call's
  iree_vm_stack_t* stack;    // every call's: empty between calls
} runner_state_t;

// Storage of the VM stack: initialised by iree_vm_stack_initialize as far as
// used (clearing all of it would cost 8 KiB of stores).
static iree_alignas(iree_max_align_t) uint8_t
    stack_storage[IREE_VM_STACK_DEFAULT_SIZE];

// The number of values of a calling-convention fragment that holds only
// references ("rr"); anything else is not a function of buffer views.
static iree_status_t count_references(iree_string_view_t fragment,
                                      iree_host_size_t* out_count) {
  for (iree_host_size_t i = 0; i < fragment.size; ++i) {
    if (fragment.data[i] != 'r') {
      return iree_make_status(IREE_STATUS_UNIMPLEMENTED,
                              "the runner passes and takes buffer views only");
    }
  }
  *out_count = fragment.size;
  return iree_ok_status();
}

static iree_status_t start(runner_state_t* state) {
  IREE_RETURN_IF_ERROR(iree_vm_instance_create(IREE_VM_TYPE_CAPACITY_DEFAULT,
                                               state->host_allocator,
                                               &state->instance));
  IREE_RETURN_IF_ERROR(iree_hal_module_register_all_types(state->instance));
  IREE_RETURN_IF_ERROR(create_hal(state->host_allocator, &state->hal));

  // The HAL modules first: the model module imports from them.
  iree_vm_module_t* modules[RUNNER_HAL_MODULES + 1] = {NULL};
  iree_status_t status = create_hal_modules(state->instance, &state->hal,
                                            state->host_allocator, modules);
  if (iree_status_is_ok(status)) {
    status = runner_model.module_create(state->instance, state->host_allocator,
                                        &modules[RUNNER_HAL_MODULES]);
  }
  if (iree_status_is_ok(status)) {
    status = iree_vm_context_create_with_modules(
        state->instance, IREE_VM_CONTEXT_FLAG_NONE, IREE_ARRAYSIZE(modules),
        modules, state->host_allocator, &state->context);
  }
  for (iree_host_size_t i = 0; i < IREE_ARRAYSIZE(modules); ++i) {
    iree_vm_module_release(modules[i]);  // the context holds references
  }
  IREE_RETURN_IF_ERROR(status);

  IREE_RETURN_IF_ERROR(iree_vm_context_resolve_function(
      state->context, iree_make_cstring_view(runner_model.function_name),
      &state->function));
  iree_vm_function_signature_t signature =
      iree_vm_function_signature(&state->function);
  iree_string_view_t arguments, results;
  IREE_RETURN_IF_ERROR(iree_vm_function_call_get_cconv_fragments(
      &signature, &arguments, &results));
  iree_host_size_t argument_count = 0;
  IREE_RETURN_IF_ERROR(count_references(arguments, &argument_count));
  IREE_RETURN_IF_ERROR(count_references(results, &state->result_count));
  if (argument_count != runner_model.input_count) {
    return iree_make_status(IREE_STATUS_INVALID_ARGUMENT,
                            "the function takes another number of inputs");
  }
  const iree_host_size_t refs = 2 * argument_count + state->result_count;
  IREE_RETURN_IF_ERROR(iree_allocator_malloc(
      state->host_allocator, refs * sizeof(iree_vm_ref_t),
      (void**)&state->inputs));
  state->arguments = state->inputs + argument_count;
  state->results = state->arguments + argument_count;
  // One stack for every call (empty between calls): the module states it
  // looked up stay known to it.
  return iree_vm_stack_initialize(
      iree_make_byte_span(stack_storage, sizeof(stack_storage)),
      IREE_VM_INVOCATION_FLAG_NONE,
      iree_vm_context_state_resolver(state->context), state->host_allocator,
      &state->stack);
}

#if BSP_STAGED_CONSTANTS
// With staged constants the inputs lie in shared RAM beside them (the linker
// script's .constants), not in the scratchpad, where they would take room the
// staging area needs: copied in under the scratchpad rule.
#define COPY_INPUT runner_copy_from_shared
#else
#define COPY_INPUT memcpy
#endif

// An input's buffer, mapped and filled by the host: no transfer command buffer
// (iree_hal_buffer_view_allocate_buffer_copy would link one, 1.3 KiB).
static iree_status_t make_input(runner_state_t* state,
                                const runner_tensor_t* input,
                                iree_hal_buffer_view_t** out_view) {
  const iree_hal_buffer_params_t params = {
      .type = IREE_HAL_MEMORY_TYPE_DEVICE_LOCAL |
              IREE_HAL_MEMORY_TYPE_HOST_VISIBLE,
      .access = IREE_HAL_MEMORY_ACCESS_ALL,
      .usage = IREE_HAL_BUFFER_USAGE_DEFAULT | IREE_HAL_BUFFER_USAGE_MAPPING,
  };
  iree_hal_buffer_t* buffer = NULL;
  IREE_RETURN_IF_ERROR(iree_hal_allocator_allocate_buffer(
      state->hal.allocator, params, input->byte_length,
      &buffer));
  iree_hal_buffer_mapping_t mapping;
  iree_status_t status = iree_hal_buffer_map_range(
      buffer, IREE_HAL_MAPPING_MODE_SCOPED,
      IREE_HAL_MEMORY_ACCESS_DISCARD_WRITE, 0, IREE_HAL_WHOLE_BUFFER, &mapping);
  if (iree_status_is_ok(status)) {
    COPY_INPUT(mapping.contents.data, input->data, input->byte_length);
    status = iree_hal_buffer_unmap_range(&mapping);
  }
  if (iree_status_is_ok(status)) {
    status = iree_hal_buffer_view_create(
        buffer, input->rank, input->shape, input->element_type,
        IREE_HAL_ENCODING_TYPE_DENSE_ROW_MAJOR, state->host_allocator,
        out_view);
  }
  iree_hal_buffer_release(buffer);
  return status;
}

static iree_status_t push_inputs(runner_state_t* state) {
  for (iree_host_size_t i = 0; i < runner_model.input_count; ++i) {
    iree_hal_buffer_view_t* view = NULL;
    IREE_RETURN_IF_ERROR(make_input(state, &runner_model.inputs[i], &view));
    state->inputs[i] = iree_hal_buffer_view_move_ref(view);
  }
  return iree_ok_status();
}

static iree_status_t print_outputs(runner_state_t* state) {
  for (iree_host_size_t i = 0; i < state->result_count; ++i) {
    iree_hal_buffer_view_t* view = NULL;
    IREE_RETURN_IF_ERROR(
        iree_hal_buffer_view_check_deref(state->results[i], &view));
    IREE_RETURN_IF_ERROR(print_output(i, view));
  }
  return iree_ok_status();
}


static iree_status_t invoke(runner_state_t* state) {
  const iree_host_size_t argument_count = runner_model.input_count;
  for (iree_host_size_t i = 0; i < argument_count; ++i) {
    iree_vm_ref_retain(&state->inputs[i], &state->arguments[i]);
  }
  for (iree_host_size_t i = 0; i < state->result_count; ++i) {
    iree_vm_ref_release(&state->results[i]);  // the call writes fresh ones
  }
  const iree_vm_function_call_t call = {
      .function = state->function,
      .arguments = iree_make_byte_span(state->arguments,
                                       argument_count * sizeof(iree_vm_ref_t)),
      .results = iree_make_byte_span(
          state->results, state->result_count * sizeof(iree_vm_ref_t)),
  };
  iree_vm_module_t* module = state->function.module;
  iree_status_t status = module->begin_call(module->self, state->stack, call);
  if (iree_status_is_deferred(status)) {  // the program never waits
    status = iree_make_status(IREE_STATUS_FAILED_PRECONDITION,
                              "the program waited on a synchronous device");
  }
  for (iree_host_size_t i = 0; i < argument_count; ++i) {
    iree_vm_ref_release(&state->arguments[i]);
  }
  return status;
}

// Set by the build (image/warm_up.py): 1 when the program's path does not
// depend on what its kernels write.
#if __has_include("model_warm_up.h")
#include "model_warm_up.h"
#endif
#ifndef RUNNER_WARM_UP
#define RUNNER_WARM_UP 0
#endif

#if RUNNER_WARM_UP
// The warm-up: the program called once before the first measured call with
// every dispatch skipped, apart from keeping its constants in the weight
// cache (staging.c).  The runtime's
// lazy set-up (storage buffers, library lookups, module state) and the
// weight cache's fill happen then, once, as a start-up cost: the first call
// costs what later ones do.  Its outputs are never read.
static iree_status_t skip_dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  (void)executable, (void)ordinal, (void)processor_id, (void)local_memory;
#if BSP_STAGED_CONSTANTS
  return runner_stage_warm_up(dispatch_state);
#else
  (void)dispatch_state;
  return iree_ok_status();
#endif
}

static iree_status_t warm_up(runner_state_t* state) {
  iree_hal_local_executable_dispatch_fn_t hook =
      iree_hal_local_executable_dispatch_hook;
  iree_hal_local_executable_dispatch_hook = skip_dispatch;
  iree_status_t status = invoke(state);
  iree_hal_local_executable_dispatch_hook = hook;
  return status;
}
#endif

static iree_status_t run(runner_state_t* state, uint64_t t_begin) {
  IREE_RETURN_IF_ERROR(runner_harts_start());
  IREE_RETURN_IF_ERROR(start(state));
  uint64_t t_end = bsp_cycles();
  out_cycles("startup", -1, t_end - t_begin);

  t_begin = bsp_cycles();
  IREE_RETURN_IF_ERROR(push_inputs(state));
  t_end = bsp_cycles();
  out_cycles("inputs", -1, t_end - t_begin);
#if RUNNER_WARM_UP
  t_begin = bsp_cycles();
  IREE_RETURN_IF_ERROR(warm_up(state));
  t_end = bsp_cycles();
  out_cycles("warmup", -1, t_end - t_begin);
#endif

  const uint32_t repeat = runner_model.repeat ? runner_model.repeat : 1;
  for (uint32_t i = 0; i < repeat; ++i) {
    runner_harts_next_call();
    t_begin = bsp_cycles();
    IREE_RETURN_IF_ERROR(invoke(state));
    t_end = bsp_cycles();
    out_cycles("call", (int64_t)i, t_end - t_begin);
  }
  runner_harts_print_counts();
  return print_outputs(state);
}

static void stop(runner_state_t* state) {
  if (state->inputs) {
    const iree_host_size_t refs = 2 * runner_model.input_count;
    for (iree_host_size_t i = 0; i < refs + state->result_count; ++i) {
      iree_vm_ref_release(&state->inputs[i]);
    }
    iree_allocator_free(state->host_allocator, state->inputs);
  }
  if (state->stack) iree_vm_stack_deinitialize(state->stack);
  iree_vm_context_release(state->context);
  release_hal(&state->hal);
  iree_vm_instance_release(state->instance);
}

// MEMORY lines: high-water marks of the heap and of each hart's stack, and the
// largest single allocation; read after the run, outside every figure.
static void out_memory(const char* what, int64_t index, uint64_t bytes) {
  out_str("MEMORY ");
  out_str(what);
  out_str(" ");
  if (index >= 0) {
    out_i64(index);
    out_str(" ");
  }
  out_u64(bytes);
  out_end_line();
}

static void print_memory(void) {
  out_memory("heap_peak", -1, bsp_heap_peak());
  out_memory("largest_allocation", -1, runner_host_largest());
  if (runner_host_refused()) {
    out_memory("refused_allocation", -1, runner_host_refused());
  }
#if BSP_STAGED_CONSTANTS
  out_memory("weight_cache", -1, runner_cache_bytes());
#endif
  out_memory("stack", 0, bsp_stack_used());
  for (unsigned h = 1; h < RUNNER_HARTS; ++h) {
    out_memory("stack", (int64_t)h, runner_hart_stack_used(h));
  }
}

int main(void) {
  const uint64_t t_begin = bsp_cycles();
  runner_state_t state;
  memset(&state, 0, sizeof(state));
  state.host_allocator = runner_host_allocator();
  iree_status_t status = run(&state, t_begin);
  stop(&state);
  print_memory();

  if (iree_status_is_ok(status)) {
    out_str("STATUS OK");
    out_end_line();
    return 0;
  }
  out_str("STATUS ");
#if IREE_STATUS_FEATURES == 0
  // A bare code is all iree_status_format would print, through snprintf: the
  // name alone keeps libc's printf machinery out of release images.
  out_str(iree_status_code_string(iree_status_code(status)));
#else
  static char message[256];
  iree_host_size_t length = 0;
  if (!iree_status_format(status, sizeof(message), message, &length)) {
    length = 0;
  }
  message[length < sizeof(message) ? length : sizeof(message) - 1] = '\0';
  out_str(length ? message
                 : iree_status_code_string(iree_status_code(status)));
#endif
  out_end_line();
  iree_status_free(status);
  return 1;
}
