// ireerv: a compiled model in your own firmware (docs/firmware.md).
//
// One runtime per firmware (libireerv.a), one archive per model (lib<m>.a)
// with its header <m>.h.  Every instance lives in memory the caller gives
// (the arena): the library calls no malloc and needs from the firmware only
// the C library's string functions (memcpy, memset, memmove, memcmp, strlen).
//
//   static uint8_t arena[KWS_ARENA_BYTES] __attribute__((aligned(16)));
//   int error = 0;
//   ireerv_instance_t *kws = ireerv_open(&kws_model, arena, sizeof arena, &error);
//   const void *in[] = {samples};  void *out[] = {scores};
//   error = ireerv_run(kws, in, out);   /* 0, or a code ireerv_error names */

#ifndef IREERV_H_
#define IREERV_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Opaque: one per compiled model (<m>_model in <m>.h).
typedef struct ireerv_model ireerv_model_t;
// Opaque: one open model, inside the caller's arena.
typedef struct ireerv_instance ireerv_instance_t;

// Element types of ireerv_tensor_t.dtype.
enum {
  IREERV_FLOAT32 = 1,
  IREERV_INT8 = 2,
  IREERV_INT16 = 3,
  IREERV_INT32 = 4,
  IREERV_INT64 = 5,
  IREERV_UINT8 = 6,
  IREERV_BOOL8 = 7,
  IREERV_FLOAT16 = 8,
  IREERV_BFLOAT16 = 9,
  IREERV_FLOAT64 = 10,
  IREERV_UINT16 = 11,
  IREERV_UINT32 = 12,
  IREERV_UINT64 = 13,
};

// One input or output: dense, row-major, in the model's own layout and type.
// scale and zero_point: a quantised tensor's (real = scale * (q - zero_point)),
// scale 0 for one that is not quantised.
typedef struct {
  const char *name;
  int dtype;
  int rank;
  int32_t dims[8];
  size_t bytes;
  float scale;
  int32_t zero_point;
} ireerv_tensor_t;

// Error codes: 0 is success; every other value has a name (ireerv_error).
enum {
  IREERV_OK = 0,
  IREERV_ERROR_NULL = 1,         // a NULL instance, model, arena or buffer
  IREERV_ERROR_MODEL = 2,        // not a model of this runtime (or corrupted)
  IREERV_ERROR_ARENA = 3,        // the arena is too small (<M>_ARENA_BYTES)
  IREERV_ERROR_ALIGNMENT = 4,    // the arena is not 16-byte aligned
  IREERV_ERROR_RUNTIME = 16,     // 16 + IREE's status code: the runtime failed
};

// Opens `model` in `arena` (16-byte aligned, <M>_ARENA_BYTES or more).  NULL
// on failure, with the code in *error (error may be NULL).  The arena belongs
// to the instance until the firmware stops using it; there is no close.
ireerv_instance_t *ireerv_open(const ireerv_model_t *model, void *arena,
                               size_t arena_bytes, int *error);

// Runs the model once: inputs[i] holds ireerv_input(model, i)->bytes bytes,
// outputs[i] receives ireerv_output(model, i)->bytes bytes.  0 or an error.
int ireerv_run(ireerv_instance_t *instance, const void *const inputs[],
               void *const outputs[]);

// The model's i-th input or output; NULL past the last (and for a NULL or
// wrong model).
const ireerv_tensor_t *ireerv_input(const ireerv_model_t *model, int i);
const ireerv_tensor_t *ireerv_output(const ireerv_model_t *model, int i);

// The model's name ("kws"), NULL for a wrong model.
const char *ireerv_name(const ireerv_model_t *model);

// An error code's name: "arena too small", "runtime: RESOURCE_EXHAUSTED", ...
const char *ireerv_error(int code);

// The most of its arena the instance has used so far, in bytes.
size_t ireerv_arena_used(const ireerv_instance_t *instance);

// Boards with several harts: harts 1..n-1 call it, each on its own stack,
// with its own hart id; it does not return.  Once every one of them has come,
// ireerv_run shares each dispatch among the harts as HARTS=auto does; until
// then (or without any) a call runs on hart 0 alone.  In a runtime built for
// one hart, and on a hart that is not 1..n-1, it parks the hart (wfi).
void ireerv_worker(unsigned hart);

#ifdef __cplusplus
}
#endif

#endif  // IREERV_H_
