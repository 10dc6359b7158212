// The runner's copy from shared RAM under the cluster's scratchpad rule: the
// same cluster, so cluster4's (a board hook, ../cluster4/bsp_shared_copy.h).
#include "../cluster4/bsp_shared_copy.h"
