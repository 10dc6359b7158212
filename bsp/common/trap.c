/* Fatal trap report: mcause, mepc and mtval on the console, then the exit
 * device with BSP_EXIT_TRAP.  Uses no stdio and no heap, so it works even
 * when those are what broke.  The first line starts with "BSP TRAP", which
 * the run logic (site_scons/ireerv/simulate.py) recognises. */
#include <stdint.h>

#include "bsp.h"

static void put_str(const char *s) {
  while (*s) bsp_putc(*s++);
}

static void put_hex(uint32_t value) {
  put_str("0x");
  for (int shift = 28; shift >= 0; shift -= 4) bsp_putc("0123456789abcdef"[(value >> shift) & 0xf]);
}

static const char *cause_name(uint32_t mcause) {
  if (mcause & 0x80000000u) return "interrupt";
  switch (mcause) {
    case 0: return "instruction address misaligned";
    case 1: return "instruction access fault";
    case 2: return "illegal instruction";
    case 3: return "breakpoint (ebreak: often a NULL dereference GCC caught)";
    case 4: return "load address misaligned";
    case 5: return "load access fault";
    case 6: return "store address misaligned";
    case 7: return "store access fault";
    case 11: return "environment call";
    default: return "exception";
  }
}

_Noreturn void __bsp_trap(uint32_t mcause, uint32_t mepc, uint32_t mtval, uint32_t hart) {
  put_str("\nBSP TRAP hart ");
  bsp_putc((char)('0' + hart % 10));
  put_str(": ");
  put_str(cause_name(mcause));
  put_str("\n  mcause ");
  put_hex(mcause);
  put_str(" mepc ");
  put_hex(mepc);
  put_str(" mtval ");
  put_hex(mtval);
  bsp_putc('\n');
  bsp_exit(BSP_EXIT_TRAP);
}
