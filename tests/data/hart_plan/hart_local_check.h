/* Stands in for the build's hart_local_check.h: no table of entry points. */
#define RUNNER_HART_LOCAL_ENTRY_COUNT 0
