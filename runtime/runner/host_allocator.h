// The runner's host allocator: the C library's, with freed blocks kept for
// reuse (host_allocator.c).

#ifndef IREERV_RUNNER_HOST_ALLOCATOR_H_
#define IREERV_RUNNER_HOST_ALLOCATOR_H_

#include "iree/base/api.h"

// malloc/calloc/realloc/free as iree_allocator_system(), except that a freed
// block is kept (up to a few) and handed out again for a request it fits.
iree_allocator_t runner_host_allocator(void);

#endif  // IREERV_RUNNER_HOST_ALLOCATOR_H_
