"""bsp_config.h: the board's addresses and sizes as C/assembler #defines."""

from __future__ import annotations

import re

from ireerv.boards.board import Board
from ireerv.boards.sharing import header_lines


def _macro(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def config_header(board: Board) -> str:
    """C/assembler #defines for the board; plain hex numbers so assembly can use them too."""
    p = board.placement
    lines = [
        f"/* Generated from bsp/{board.name}/board.toml: do not edit. */",
        "#ifndef BSP_CONFIG_H",
        "#define BSP_CONFIG_H",
        "",
        f'#define BSP_BOARD_NAME "{board.name}"',
        f"#define BSP_BOARD_{_macro(board.name)} 1",
        f"#define BSP_HARTS {board.harts}",
        f"#define BSP_STACK_SIZE {p.stack_size:#x}",
        "/* 1: device and shared-memory accesses must complete before the next access */",
        f"#define BSP_IO_BARRIER {int(any(r.exclusive_data for r in board.memory))}",
        "/* 1: the model's constants lie apart from the data (__constants_start/_end) */",
        f"#define BSP_STAGED_CONSTANTS {int(p.constants is not None)}",
        "",
        "/* Memory regions */",
    ]
    for r in board.memory:
        m = _macro(r.name)
        lines += [f"#define BSP_MEM_{m}_ORIGIN {r.origin:#010x}",
                  f"#define BSP_MEM_{m}_LENGTH {r.length:#x}"]
    for r in board.memory:
        if r.per_hart:
            lines += ["/* Every hart's own copy of a region: hart h's at ORIGIN + h * LENGTH */",
                      f"#define BSP_HART_LOCAL_ORIGIN {r.origin:#010x}",
                      f"#define BSP_HART_LOCAL_LENGTH {r.length:#x}"]
    lines += ["", "/* Devices */"]
    for d in board.devices.values():
        m = _macro(d.name)
        lines.append(f"#define BSP_{m}_KIND_{_macro(d.kind)} 1")
        if d.address is not None:
            lines.append(f"#define BSP_{m}_ADDR {d.address:#010x}")
        for key, value in sorted(d.params.items()):
            lines.append(f"#define BSP_{m}_{_macro(key)} {value:#x}")
    lines += header_lines(board.sharing)
    lines += ["", "#endif /* BSP_CONFIG_H */", ""]
    return "\n".join(lines)
