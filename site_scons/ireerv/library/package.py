"""The library folder's build files (CMake package, make include, pkg-config) and its
example, as text: each names the cross toolchain the library was built with and the
board's flags, so the folder alone builds a firmware."""

from __future__ import annotations

from dataclasses import dataclass

RUNTIME_ARCHIVE = "lib/libireerv.a"
BOARD_FILES = ("board/board.o", "board/link.ld")  # the BSP as one object, its script


@dataclass(frozen=True)
class Flags:
    """What compiling and linking for the board takes."""

    gcc: str  # the pinned cross GCC, by absolute path
    compile: tuple[str, ...]  # -march, -mabi, the C library's
    link: tuple[str, ...]  # the link -march (multilib), -mabi, the C library's


def model_archive(name: str) -> str:
    return f"lib/lib{name}.a"


def example_source(name: str) -> str:
    """The shortest program that runs the model once: zeros in, the outputs' bytes out."""
    big = name.upper()
    return f"""\
// Runs model {name} once on zeros and prints its outputs' bytes: the shortest
// firmware over the ireerv library (docs/firmware.md).
#include <stdio.h>
#include <string.h>

#include "{name}.h"
#include "ireerv.h"

static unsigned char arena[{big}_ARENA_BYTES] __attribute__((aligned(16)));
static unsigned char input[{big}_INPUT0_BYTES];
static unsigned char output[{big}_OUTPUT0_BYTES];

int main(void) {{
  int error = 0;
  ireerv_instance_t *model = ireerv_open(&{name}_model, arena, sizeof arena, &error);
  if (!model) {{
    printf("open: %s\\n", ireerv_error(error));
    return 1;
  }}
  memset(input, 0, sizeof input);
  const void *inputs[{big}_INPUTS] = {{input}};
  void *outputs[{big}_OUTPUTS] = {{output}};
  error = ireerv_run(model, inputs, outputs);
  if (error) {{
    printf("run: %s\\n", ireerv_error(error));
    return 1;
  }}
  printf("%s:", ireerv_output(&{name}_model, 0)->name);
  for (unsigned i = 0; i < sizeof output; ++i) printf(" %d", output[i]);
  printf("\\narena: %u of %u bytes\\n", (unsigned)ireerv_arena_used(model),
         (unsigned){big}_ARENA_BYTES);
  return 0;
}}
"""


def _list(items: tuple[str, ...] | list[str]) -> str:
    return " ".join(items)


def toolchain_cmake(flags: Flags) -> str:
    return f"""\
# The cross toolchain the ireerv library was built with (override IREERV_GCC).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
if(NOT IREERV_GCC)
  set(IREERV_GCC "{flags.gcc}")
endif()
set(CMAKE_C_COMPILER "${{IREERV_GCC}}")
set(CMAKE_ASM_COMPILER "${{IREERV_GCC}}")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
"""


def cmake_config(name: str, flags: Flags) -> str:
    """lib/cmake/ireerv/ireerv-config.cmake: ireerv::runtime, ireerv::<m>, ireerv::board."""
    return f"""\
# find_package(ireerv): the ireerv runtime, model {name} and the board's start-up.
get_filename_component(_ireerv_root "${{CMAKE_CURRENT_LIST_DIR}}/../../.." ABSOLUTE)
set(IREERV_TOOLCHAIN_FILE "${{_ireerv_root}}/cmake/toolchain.cmake")
set(IREERV_COMPILE_OPTIONS {_list(flags.compile)})
set(IREERV_LINK_OPTIONS {_list(flags.link)})
if(NOT TARGET ireerv::runtime)
  add_library(ireerv::runtime STATIC IMPORTED)
  set_target_properties(ireerv::runtime PROPERTIES
    IMPORTED_LOCATION "${{_ireerv_root}}/{RUNTIME_ARCHIVE}"
    INTERFACE_INCLUDE_DIRECTORIES "${{_ireerv_root}}/include"
    INTERFACE_COMPILE_OPTIONS "${{IREERV_COMPILE_OPTIONS}}"
    INTERFACE_LINK_OPTIONS "${{IREERV_LINK_OPTIONS}};-Wl,--gc-sections")
endif()
if(NOT TARGET ireerv::{name})
  add_library(ireerv::{name} STATIC IMPORTED)
  set_target_properties(ireerv::{name} PROPERTIES
    IMPORTED_LOCATION "${{_ireerv_root}}/{model_archive(name)}"
    INTERFACE_LINK_LIBRARIES ireerv::runtime)
endif()
# The board's start-up, console and linker script, for a firmware without its own.
if(NOT TARGET ireerv::board)
  add_library(ireerv::board INTERFACE IMPORTED)
  set_target_properties(ireerv::board PROPERTIES
    INTERFACE_LINK_OPTIONS "-nostartfiles;-T;${{_ireerv_root}}/board/link.ld"
    INTERFACE_LINK_LIBRARIES "${{_ireerv_root}}/board/board.o")
endif()
"""


def make_include(name: str, flags: Flags) -> str:
    return f"""\
# include ireerv.mk: the ireerv runtime, model {name} and the board's start-up.
IREERV_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
IREERV_GCC ?= {flags.gcc}
IREERV_CFLAGS := {_list(flags.compile)} -I$(IREERV_DIR)/include
IREERV_LDFLAGS := {_list(flags.link)} -Wl,--gc-sections
IREERV_LIBS := $(IREERV_DIR)/{model_archive(name)} $(IREERV_DIR)/{RUNTIME_ARCHIVE}
IREERV_BOARD_LDFLAGS := -nostartfiles -T $(IREERV_DIR)/board/link.ld
IREERV_BOARD_LIBS := $(IREERV_DIR)/board/board.o
"""


def pkg_config(name: str, flags: Flags, version: str) -> dict[str, str]:
    """lib/pkgconfig/ireerv.pc and ireerv-<m>.pc."""
    head = "prefix=${pcfiledir}/../..\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\n"
    runtime = (f"{head}gcc={flags.gcc}\n\nName: ireerv\nDescription: the ireerv runtime "
               f"(IREE, inline HAL) for bare-metal RISC-V\nVersion: {version}\n"
               f"Cflags: {_list(flags.compile)} -I${{includedir}}\n"
               f"Libs: {_list(flags.link)} -Wl,--gc-sections ${{libdir}}/libireerv.a\n")
    model = (f"{head}\nName: ireerv-{name}\nDescription: model {name} for the ireerv "
             f"runtime\nVersion: {version}\nRequires: ireerv\n"
             f"Libs: ${{libdir}}/lib{name}.a\n")
    return {"lib/pkgconfig/ireerv.pc": runtime, f"lib/pkgconfig/ireerv-{name}.pc": model}


def example_cmake(name: str) -> str:
    return f"""\
cmake_minimum_required(VERSION 3.16)
# The library's own toolchain file, unless one is given.
if(NOT CMAKE_TOOLCHAIN_FILE)
  set(CMAKE_TOOLCHAIN_FILE "${{CMAKE_CURRENT_LIST_DIR}}/../cmake/toolchain.cmake")
endif()
project(ireerv_example C)
list(APPEND CMAKE_PREFIX_PATH "${{CMAKE_CURRENT_LIST_DIR}}/..")
find_package(ireerv REQUIRED)
add_executable(example main.c)
set_target_properties(example PROPERTIES SUFFIX .elf)
target_link_libraries(example PRIVATE ireerv::{name} ireerv::board)
"""


def example_makefile() -> str:
    return """\
# make: example.elf from main.c and the library folder above.
include ../ireerv.mk

example.elf: main.o
\t$(IREERV_GCC) -o $@ main.o $(IREERV_BOARD_LIBS) $(IREERV_LIBS) \\
\t  $(IREERV_LDFLAGS) $(IREERV_BOARD_LDFLAGS)

main.o: main.c
\t$(IREERV_GCC) $(IREERV_CFLAGS) -Os -c -o $@ main.c

clean:
\trm -f example.elf main.o
"""


def probe_source(name: str) -> str:
    """The firmware that measures the model's arena: the BSP's heap as the arena (less the
    tensors' buffers, cut from its top), three calls on zeros, then the instance's peak."""
    return f"""\
// Generated: measures what ireerv_open and three calls of {name} take of the arena.
#include <stdio.h>
#include <string.h>

#include "ireerv.h"

extern const ireerv_model_t {name}_model;
extern char __heap_start[], __heap_end[];

int main(void) {{
  const ireerv_model_t *m = &{name}_model;
  const void *inputs[16] = {{0}};
  void *outputs[16] = {{0}};
  char *top = (char *)((unsigned long)__heap_end & ~15ul);
  for (int i = 0; ireerv_input(m, i); ++i) {{
    top -= (ireerv_input(m, i)->bytes + 15) & ~15u;
    inputs[i] = memset(top, 0, ireerv_input(m, i)->bytes);
  }}
  for (int i = 0; ireerv_output(m, i); ++i) {{
    top -= (ireerv_output(m, i)->bytes + 15) & ~15u;
    outputs[i] = top;
  }}
  char *arena = (char *)(((unsigned long)__heap_start + 15) & ~15ul);
  int error = 0;
  ireerv_instance_t *model = ireerv_open(m, arena, (size_t)(top - arena), &error);
  for (int call = 0; model && !error && call < 3; ++call) {{
    error = ireerv_run(model, inputs, outputs);
  }}
  if (error) {{
    printf("STATUS %s\\n", ireerv_error(error));
    return 1;
  }}
  printf("ARENA %u\\nSTATUS OK\\n", (unsigned)ireerv_arena_used(model));
  return 0;
}}
"""
