// Generated: the model's description for the ireerv runtime.
#include "runner.h"

extern iree_status_t module_create(iree_vm_instance_t *instance,
    iree_allocator_t allocator, iree_vm_module_t **out_module);
extern const iree_hal_executable_library_header_t **matmul_f32f32f32_dispatch_0_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t *environment);

static const iree_hal_executable_library_query_fn_t libraries[] = {
    matmul_f32f32f32_dispatch_0_library_query,
};
static const ireerv_tensor_t inputs[] = {
    {"input0", IREERV_FLOAT32, 2, {4, 4}, 64u, 0.0f, 0},
    {"input1", IREERV_FLOAT32, 2, {4, 4}, 64u, 0.0f, 0},
};
static const ireerv_tensor_t outputs[] = {
    {"output0", IREERV_FLOAT32, 2, {-1, -1}, 0u, 0.0f, 0},
};

const ireerv_model_t matmul_model = {
    IREERV_MODEL_MAGIC, IREERV_MODEL_VERSION,
    "matmul", "module.matmul_f32f32f32", module_create,
    libraries, 1u, inputs, 2u, outputs, 1u,
    NULL,
};

static const uint32_t input0_data[] = {
    0x00000000u, 0x00000000u, 0x40000000u, 0x40800000u, 0xc0800000u, 0xc0400000u, 0x40400000u, 0x40800000u,
    0xc0000000u, 0xc0000000u, 0x40400000u, 0xbf800000u, 0xc0000000u, 0x40400000u, 0xc0000000u, 0xbf800000u,
};

static const uint32_t input1_data[] = {
    0x40400000u, 0xc0000000u, 0xc0800000u, 0xc0000000u, 0xbf800000u, 0x40400000u, 0x00000000u, 0xc0800000u,
    0xbf800000u, 0x3f800000u, 0x40400000u, 0x40000000u, 0x40800000u, 0xc0400000u, 0x40400000u, 0xc0800000u,
};

static const void* const input_data[] = {
    input0_data,
    input1_data,
};

const runner_model_t runner_model = {
    &matmul_model, input_data, 2,
};
