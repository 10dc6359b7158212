/* picolibc glue for the testbench's own programs: stdout on the testbench's print
 * register, _exit as its bsp/syscalls.c does (hart 0 ends the run). */
#include <stdio.h>
#define STDOUT_REG 0x10000000
#define EXIT_REG 0x20000004
static int tb_put(char c, FILE *file) {
  (void)file;
  *(volatile int *)STDOUT_REG = c;
  return (unsigned char)c;
}
static FILE tb_console = FDEV_SETUP_STREAM(tb_put, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdin = &tb_console;
FILE *const stdout = &tb_console;
FILE *const stderr = &tb_console;
void _exit(int code) {
  unsigned int hart;
  __asm__ volatile("csrr %0, mhartid" : "=r"(hart));
  if (hart == 0u) *(volatile int *)EXIT_REG = code;
  for (;;) __asm__ volatile("wfi");
}
/* The handlers' ecall entry: no program here makes a system call. */
long handle_syscall(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long n) {
  (void)a0; (void)a1; (void)a2; (void)a3; (void)a4; (void)a5; (void)a6; (void)n;
  _exit(125);
}
