// The runner's host allocator: size classes for small blocks, sbrk for large
// ones (host_allocator.c).

#ifndef RUNNER_HOST_ALLOCATOR_H_
#define RUNNER_HOST_ALLOCATOR_H_

#include "iree/base/api.h"

// malloc/calloc/realloc/free as iree_allocator_system(), with small blocks
// from per-size free lists and large MALLOC blocks uncleared.
iree_allocator_t runner_host_allocator(void);

// The largest block it made for the runtime (IREE's largest transient
// allocation, the device's arena blocks and buffers included; a request under
// 4 KiB counts as its size class, at most a quarter larger).  Call it after
// the runtime has freed its blocks.
size_t runner_host_largest(void);

// The largest allocation it refused for want of room (0: none).
size_t runner_host_refused(void);

#endif  // RUNNER_HOST_ALLOCATOR_H_
