// Generated: the model description for the generic runner.
#include "runner.h"

extern iree_status_t module_create(iree_vm_instance_t* instance,
    iree_allocator_t allocator, iree_vm_module_t** out_module);
extern const iree_hal_executable_library_header_t** matmul_f32f32f32_dispatch_0_library_query(
    iree_hal_executable_library_version_t max_version,
    const iree_hal_executable_environment_v0_t* environment);

static const iree_hal_executable_library_query_fn_t libraries[] = {
    matmul_f32f32f32_dispatch_0_library_query,
};

static const iree_hal_dim_t input0_shape[] = {4, 4};
static const uint32_t input0_data[] = {
    0x00000000u, 0x00000000u, 0x40000000u, 0x40800000u, 0xc0800000u, 0xc0400000u, 0x40400000u, 0x40800000u,
    0xc0000000u, 0xc0000000u, 0x40400000u, 0xbf800000u, 0xc0000000u, 0x40400000u, 0xc0000000u, 0xbf800000u,
};

static const iree_hal_dim_t input1_shape[] = {4, 4};
static const uint32_t input1_data[] = {
    0x40400000u, 0xc0000000u, 0xc0800000u, 0xc0000000u, 0xbf800000u, 0x40400000u, 0x00000000u, 0xc0800000u,
    0xbf800000u, 0x3f800000u, 0x40400000u, 0x40000000u, 0x40800000u, 0xc0400000u, 0x40400000u, 0xc0800000u,
};

static const runner_tensor_t inputs[] = {
    {IREE_HAL_ELEMENT_TYPE_FLOAT_32, 2, input0_shape, input0_data, 64},
    {IREE_HAL_ELEMENT_TYPE_FLOAT_32, 2, input1_shape, input1_data, 64},
};

const runner_model_t runner_model = {
    .function_name = "module.matmul_f32f32f32",
    .module_create = module_create,
    .libraries = libraries,
    .library_count = 1,
    .inputs = inputs,
    .input_count = 2,
    .repeat = 2,
};
