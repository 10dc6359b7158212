/* Generated from bsp/cluster4-pulp/board.toml: do not edit. */
#ifndef BSP_CONFIG_H
#define BSP_CONFIG_H

#define BSP_BOARD_NAME "cluster4-pulp"
#define BSP_BOARD_CLUSTER4_PULP 1
#define BSP_HARTS 4
#define BSP_STACK_SIZE 0x8000
/* 1: device and shared-memory accesses must complete before the next access */
#define BSP_IO_BARRIER 1
/* 1: the model's constants lie apart from the data (__constants_start/_end) */
#define BSP_STAGED_CONSTANTS 0

/* Memory regions */
#define BSP_MEM_SHARED_ORIGIN 0x00000000
#define BSP_MEM_SHARED_LENGTH 0x4000000
#define BSP_MEM_SPM0_ORIGIN 0x18000000
#define BSP_MEM_SPM0_LENGTH 0x40000
/* Every hart's own copy of a region: hart h's at ORIGIN + h * LENGTH */
#define BSP_HART_LOCAL_ORIGIN 0x18000000
#define BSP_HART_LOCAL_LENGTH 0x40000

/* Devices */
#define BSP_CONSOLE_KIND_TB_PRINT 1
#define BSP_CONSOLE_ADDR 0x10000000
#define BSP_EXIT_KIND_TB_EXIT 1
#define BSP_EXIT_ADDR 0x20000004
#define BSP_CYCLES_KIND_MCYCLE 1
#define BSP_TICKS_KIND_TB_TICKS 1
#define BSP_TICKS_ADDR 0x15001004
#define BSP_WAKE_KIND_TB_EVENT_UNIT 1
#define BSP_WAKE_ADDR 0x15002000
#define BSP_WAKE_IRQ 0x1e
#define BSP_TIMER_KIND_TB_TIMER 1
#define BSP_TIMER_ADDR 0x15000000
#define BSP_TIMER_IRQ 0x1d

/* What sharing a dispatch among the harts costs ([sharing]) */
#define BSP_SHARING_COPY_IN_CYCLES 26
#define BSP_SHARING_WRITE_BACK_CYCLES 24
#define BSP_SHARING_OVERHEAD_CYCLES 2000
#define BSP_SHARING_HELPER16 17
#define BSP_SHARING_CAP16_LOCAL 21
#define BSP_SHARING_BUSY16_LOCAL_LENGTH 5
#define BSP_SHARING_BUSY16_LOCAL {16, 16, 22, 33, 45}
#define BSP_SHARING_CAP16_FETCH_BOUND 20
#define BSP_SHARING_BUSY16_FETCH_BOUND_LENGTH 5
#define BSP_SHARING_BUSY16_FETCH_BOUND {16, 16, 27, 39, 51}

#endif /* BSP_CONFIG_H */
