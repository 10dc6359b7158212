/* Generated from bsp/qemu-virt/board.toml: do not edit. */
#ifndef BSP_CONFIG_H
#define BSP_CONFIG_H

#define BSP_BOARD_NAME "qemu-virt"
#define BSP_BOARD_QEMU_VIRT 1
#define BSP_HARTS 4
#define BSP_STACK_SIZE 0x10000
/* 1: device and shared-memory accesses must complete before the next access */
#define BSP_IO_BARRIER 0
/* 1: the model's constants lie apart from the data (__constants_start/_end) */
#define BSP_STAGED_CONSTANTS 0

/* Memory regions */
#define BSP_MEM_ROM_ORIGIN 0x80000000
#define BSP_MEM_ROM_LENGTH 0x2000000
#define BSP_MEM_RAM_ORIGIN 0x82000000
#define BSP_MEM_RAM_LENGTH 0x6000000

/* Devices */
#define BSP_CONSOLE_KIND_NS16550 1
#define BSP_CONSOLE_ADDR 0x10000000
#define BSP_EXIT_KIND_SIFIVE_TEST 1
#define BSP_EXIT_ADDR 0x00100000
#define BSP_CYCLES_KIND_MCYCLE 1
#define BSP_WAKE_KIND_CLINT_MSIP 1
#define BSP_WAKE_ADDR 0x02000000
#define BSP_WAKE_IRQ 0x3

/* What sharing a dispatch among the harts costs ([sharing]) */
#define BSP_SHARING_COPY_IN_CYCLES 26
#define BSP_SHARING_WRITE_BACK_CYCLES 24
#define BSP_SHARING_OVERHEAD_CYCLES 2000
#define BSP_SHARING_HELPER16 17
#define BSP_SHARING_CAP16_LOCAL 21
#define BSP_SHARING_BUSY16_LOCAL_LENGTH 5
#define BSP_SHARING_BUSY16_LOCAL {16, 16, 24, 32, 43}
#define BSP_SHARING_CAP16_FETCH_BOUND 20
#define BSP_SHARING_BUSY16_FETCH_BOUND_LENGTH 5
#define BSP_SHARING_BUSY16_FETCH_BOUND {16, 16, 27, 39, 51}

#endif /* BSP_CONFIG_H */
