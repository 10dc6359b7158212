/* For compiling runtime/runner/hart_plan.c on the host (tests/test_hart_plan.py):
 * only the names its headers mention, none of IREE. */
#include <stddef.h>
typedef size_t iree_host_size_t;
typedef struct iree_hal_executable_environment_v0_t iree_hal_executable_environment_v0_t;
typedef struct iree_hal_executable_dispatch_state_v0_t iree_hal_executable_dispatch_state_v0_t;
typedef struct iree_hal_local_executable_t iree_hal_local_executable_t;
typedef int (*iree_hal_executable_dispatch_v0_t)(void);
