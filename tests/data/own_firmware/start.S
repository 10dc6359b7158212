# The firmware's own start-up: hart 0 runs main on its own stack, the others
# wait; main's result goes to QEMU virt's test device (pass or fail).
  .section .text.start, "ax"
  .globl _start
_start:
  csrr t0, mhartid
  bnez t0, park
  la sp, stack_top
  la t0, bss_start
  la t1, bss_end
zero:
  bgeu t0, t1, run
  sw zero, 0(t0)
  addi t0, t0, 4
  j zero
run:
  call main
  li t0, 0x100000
  li t1, 0x5555
  beqz a0, finish
  slli a0, a0, 16
  li t1, 0x3333
  or t1, t1, a0
finish:
  sw t1, 0(t0)
park:
  wfi
  j park
