// Generic runner: an application over the library's API (runtime/api,
// docs/firmware.md) that opens one model and calls it, and prints results and
// cycle counts.  The model comes from the generated `runner_model` (runner.h);
// cycle counts from the board's `bsp_cycles()` (bsp_cycles.h) and memory marks
// (bsp_memory.h).  Beyond a firmware's use of the API (ireerv_internal.h): the
// instance's memory is the runner's heap, inputs are copied in by the runner's
// copy where the board keeps them in shared RAM, and the results are read as
// IREE's buffer views after the last call.
//
// Output lines, in this order (all integers in decimal unless noted):
//   CYCLES startup <n>        from entering main: ireerv_open (VM instance, HAL
//                             and model modules, context, function lookup,
//                             input buffer views)
//   CYCLES warmup <n>         the warm-up call (below), where the build allows
//   CYCLES call <i> <n>       one ireerv_run, i = 0 .. repeat-1 (the inputs are
//                             copied in by the first call: the warm-up, where
//                             there is one)
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
// Compile-time settings: RUNNER_HARTS (harts sharing each dispatch, default
// 1); the API's IREERV_FULL_HAL (1: the program was compiled for the full HAL).

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsp_config.h"
#include "bsp_cycles.h"
#include "bsp_decimal.h"
#include "bsp_memory.h"
#include "host_allocator.h"
#include "iree/hal/local/local_executable.h"
#include "ireerv_internal.h"
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

// The instance, in static storage as a firmware would place it; its memory
// comes from the runner's heap (ireerv_open_in), whose marks print below.
static ireerv_instance_t instance;

#if BSP_STAGED_CONSTANTS
// With staged constants the inputs lie in shared RAM beside them (the linker
// script's .constants), not in the scratchpad, where they would take room the
// staging area needs: each call copies them in under the scratchpad rule.
static void* copy_input(void* to, const void* from, size_t bytes) {
  runner_copy_from_shared(to, from, bytes);
  return to;
}
#define COPY_INPUT copy_input
#else
#define COPY_INPUT NULL  // memcpy
#endif

// An ireerv error code as a status: the runtime's own when it failed.
static iree_status_t status_of(int error) {
  if (!error) return iree_ok_status();
  if (instance.failure) {
    iree_status_t status = instance.failure;
    instance.failure = iree_ok_status();
    return status;
  }
  return iree_make_status(IREE_STATUS_FAILED_PRECONDITION, "%s",
                          ireerv_error(error));
}

// The first call (the warm-up where there is one) copies the inputs in; they
// never change, so later calls find them in place (ireerv_internal.h) and
// measure the model's call alone.
static bool inputs_in_place = false;

static iree_status_t invoke(void) {
  const void* const* inputs = inputs_in_place ? NULL : runner_model.inputs;
  IREE_RETURN_IF_ERROR(status_of(ireerv_run(&instance, inputs, NULL)));
  inputs_in_place = true;
  return iree_ok_status();
}

static iree_status_t print_outputs(void) {
  for (int i = 0; i < (int)runner_model.model->output_count; ++i) {
    iree_hal_buffer_view_t* view = ireerv_result(&instance, i);
    if (!view) return iree_make_status(IREE_STATUS_NOT_FOUND, "no result %d", i);
    IREE_RETURN_IF_ERROR(print_output((iree_host_size_t)i, view));
  }
  return iree_ok_status();
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
// cache (staging.c), or in the woken harts' scratchpads for the dispatches
// they run in its stead (parallel.c: those run, on whatever the buffers
// hold).  The runtime's
// lazy set-up (storage buffers, library lookups, module state) and the
// weight cache's fill happen then, once, as a start-up cost: the first call
// costs what later ones do.  Its outputs are never read.
static iree_status_t skip_dispatch(
    iree_hal_local_executable_t* executable, iree_host_size_t ordinal,
    const iree_hal_executable_dispatch_state_v0_t* dispatch_state,
    uint32_t processor_id, iree_byte_span_t local_memory) {
  (void)processor_id;
  return runner_harts_warm_up(executable, ordinal, dispatch_state, local_memory);
}

static iree_status_t warm_up(void) {
  iree_hal_local_executable_dispatch_fn_t hook =
      iree_hal_local_executable_dispatch_hook;
  iree_hal_local_executable_dispatch_hook = skip_dispatch;
  iree_status_t status = invoke();
  iree_hal_local_executable_dispatch_hook = hook;
  return status;
}
#endif

static iree_status_t run(uint64_t t_begin) {
  IREE_RETURN_IF_ERROR(runner_harts_start());
  // The VM, the HAL modules, the model's module and its input buffers.
  IREE_RETURN_IF_ERROR(status_of(ireerv_open_in(&instance, runner_model.model,
                                                runner_host_allocator(),
                                                COPY_INPUT)));
  uint64_t t_end = bsp_cycles();
  out_cycles("startup", -1, t_end - t_begin);
#if RUNNER_WARM_UP
  t_begin = bsp_cycles();
  IREE_RETURN_IF_ERROR(warm_up());
  t_end = bsp_cycles();
  out_cycles("warmup", -1, t_end - t_begin);
#endif

  const uint32_t repeat = runner_model.repeat ? runner_model.repeat : 1;
  for (uint32_t i = 0; i < repeat; ++i) {
    runner_harts_next_call();
    t_begin = bsp_cycles();
    IREE_RETURN_IF_ERROR(invoke());
    t_end = bsp_cycles();
    out_cycles("call", (int64_t)i, t_end - t_begin);
  }
  runner_harts_print_counts();
  return print_outputs();
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
  iree_status_t status = run(t_begin);
  ireerv_close(&instance);
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
