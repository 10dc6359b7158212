/* Reset and trap entry for every board.
 *
 * All harts start here at once.  Only hart 0 sets up the C environment and
 * runs main; the others park before touching memory (see bsp.h for how to
 * wake them).  Symbols come from the generated linker script
 * (site_scons/ireerv/linkerscript.py), addresses from bsp_config.h.
 */
#include "bsp.h"
#include "bsp_config.h"

#define CSR_MCOUNTINHIBIT 0x320
#define MSTATUS_MIE 0x8

/* Fill [a0, a1) with zeros, word-wise, four words per step.  a0, a1 word
 * aligned.  Clobbers a0. */
.macro CLEAR_WORDS
    addi    t1, a1, -16
1:  bgtu    a0, t1, 2f
    sw      zero, 0(a0)
    sw      zero, 4(a0)
    sw      zero, 8(a0)
    sw      zero, 12(a0)
    addi    a0, a0, 16
    j       1b
2:  bgeu    a0, a1, 3f
    sw      zero, 0(a0)
    addi    a0, a0, 4
    j       2b
3:
.endm

/* Copy [a0, a1) from a2, word-wise, unless it runs where it was loaded.
 * Each store uses the loaded word, so no load is still in flight when the
 * next access starts (see bsp_io.h).  Clobbers a0, a2, t0. */
.macro COPY_WORDS
    beq     a0, a2, 2f
1:  bgeu    a0, a1, 2f
    lw      t0, 0(a2)
    sw      t0, 0(a0)
    addi    a0, a0, 4
    addi    a2, a2, 4
    j       1b
2:
.endm

.macro LOAD_GP
    .option push
    .option norelax
    la      gp, __global_pointer$
    .option pop
.endm

/* ------------------------------------------------------------------ traps
 * 256-byte aligned for CV32E40P's mtvec; on the cluster it sits at address
 * 0, where mtvec points after reset.  A trap is always fatal: report it and
 * exit with BSP_EXIT_TRAP. */
    .section .bsp.trap, "ax", @progbits
    /* The linker script aligns this section (no .balign here: with linker
     * relaxation it would emit padding that is only removed after the
     * reset address is placed). */
    .globl  __bsp_trap_entry
    .type   __bsp_trap_entry, @function
__bsp_trap_entry:
    LOAD_GP
    csrr    a3, mhartid
    la      sp, __stack_top
    slli    t0, a3, 9               /* other harts: 512 bytes apart */
    sub     sp, sp, t0
    csrr    a0, mcause
    csrr    a1, mepc
    csrr    a2, mtval
    call    __bsp_trap
1:  j       1b
    .size   __bsp_trap_entry, . - __bsp_trap_entry

/* ------------------------------------------------------------------ reset */
    .section .bsp.start, "ax", @progbits
    .globl  _start
    .type   _start, @function
_start:
    csrr    t0, mhartid
    bnez    t0, __bsp_park

    LOAD_GP
    la      sp, __stack_top
    la      t0, __bsp_trap_entry
    csrw    mtvec, t0               /* direct mode */
    csrw    CSR_MCOUNTINHIBIT, zero /* counters run (reset value may inhibit) */

    /* .rodata, .data and .tdata: copy from their load addresses. */
    la      a0, __rodata_start
    la      a1, __rodata_end
    la      a2, __rodata_load
    COPY_WORDS
    la      a0, __data_start
    la      a1, __data_end
    la      a2, __data_load
    COPY_WORDS
    la      a0, __tbss_start
    la      a1, __tbss_end
    CLEAR_WORDS
    la      a0, __bss_start
    la      a1, __bss_end
    CLEAR_WORDS

    /* Guard words at the bottom of the stack, checked by _exit. */
    la      a0, __stack_limit
    li      t0, BSP_STACK_GUARD
    .rept   BSP_STACK_GUARD_WORDS
    sw      t0, 0(a0)
    addi    a0, a0, 4
    .endr
    /* The rest of the stack painted, for its high-water mark (bsp_stack_used):
     * before main, so outside every figure the runner measures. */
    li      t0, BSP_STACK_PAINT
    la      a1, __stack_top
4:  bgeu    a0, a1, 5f
    sw      t0, 0(a0)
    addi    a0, a0, 4
    j       4b
5:

    /* Thread pointer: hart 0 uses the image's own TLS block (errno). */
    la      tp, __tls_base

    call    __libc_init_array
    li      a0, 0                   /* argc */
    li      a1, 0                   /* argv */
    li      a2, 0                   /* envp */
    call    main
    call    exit                    /* atexit, destructors, then _exit */
3:  j       3b
    .size   _start, . - _start

/* ------------------------------------------------------------------ parked harts
 * t0 = mhartid.  No stack, no memory access until woken.  Only the wake
 * interrupt is enabled, mstatus.MIE stays clear: wfi returns when it is
 * pending, no handler runs. */
    .globl  __bsp_park
    .type   __bsp_park, @function
__bsp_park:
    la      t1, __bsp_trap_entry
    csrw    mtvec, t1
    csrci   mstatus, MSTATUS_MIE
    li      t1, (1 << BSP_WAKE_IRQ)
    csrw    mie, t1
1:  wfi
    la      t2, __bsp_mailbox
    lw      t3, BSP_MAILBOX_ENTRY(t2)
    beqz    t3, 1b
    csrw    mie, zero
    /* sp = stacks + hart * stack_size: the top of this hart's slice. */
    lw      t4, BSP_MAILBOX_STACKS(t2)
    lw      t5, BSP_MAILBOX_STACK_SIZE(t2)
    mul     t5, t5, t0
    add     sp, t4, t5
    LOAD_GP
    mv      a0, t0
    call    __bsp_hart_main         /* never returns */
2:  wfi
    j       2b
    .size   __bsp_park, . - __bsp_park
