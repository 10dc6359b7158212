"""Bare-metal C images built with the real cross compiler against a board's BSP, without
SCons: the BSP tests and the source-toolchain tests share them."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ireerv import boards
from ireerv import formats as models
from ireerv.image import plain_c
from ireerv.inputs.toolchain import Toolchain
from ireerv.paths import PROJECT_ROOT

MATMUL_C = PROJECT_ROOT / "models" / "matmul" / plain_c.SOURCE_NAME


def matmul_inputs_header(size: int) -> str:
    return plain_c.inputs_header(models.load_model("matmul").generate_inputs(size))


def matmul_expected(size: int) -> list[str]:
    lhs, rhs = models.load_model("matmul").generate_inputs(size)
    bits = (lhs @ rhs).astype(np.float32).reshape(-1).view(np.uint32)
    return [f"0x{int(b):08x}" for b in bits]


class ImageBuilder:
    """Compiles the BSP once per board, then links C-only images against it."""

    def __init__(self, toolchain: Toolchain, root: Path) -> None:
        self.toolchain = toolchain
        self.root = root
        self._bsp: dict[str, list[Path]] = {}

    def _cflags(self, board: boards.Board, gen: Path) -> list[str]:
        return [
            *board.compile_flags(), *self.toolchain.libc_flags(), "-O2", "-g",
            "-ffunction-sections", "-fdata-sections", "-Wall", "-Wextra", "-Werror",
            f"-I{gen}", *(f"-I{d}" for d in board.include_dirs()),
            "-DPICOLIBC_INTEGER_PRINTF_SCANF",
        ]  # fmt: skip

    def _compile(self, board: boards.Board, gen: Path, src: Path, obj: Path,
                 defines: Sequence[str] = (), flags: Sequence[str] = ()) -> Path:
        cmd = [str(self.toolchain.tool("gcc")), *self._cflags(board, gen), *flags,
               *(f"-D{d}" for d in defines), "-c", str(src), "-o", str(obj)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
        return obj

    def bsp(self, board: boards.Board) -> tuple[Path, list[Path]]:
        gen = self.root / board.name / "gen"
        if board.name not in self._bsp:
            gen.mkdir(parents=True, exist_ok=True)
            (gen / boards.CONFIG_HEADER).write_text(boards.config_header(board))
            (gen / "link.ld").write_text(boards.linker_script(board))
            objs = [self._compile(board, gen, src, gen / f"bsp-{src.parent.name}-{src.stem}.o")
                    for src in board.bsp_sources()]
            self._bsp[board.name] = objs
        return gen, self._bsp[board.name]

    def image(self, board: boards.Board, name: str, source: Path,
              defines: Sequence[str] = (), flags: Sequence[str] = ()) -> tuple[Path, Path]:
        """Build `source` for `board` (with `flags` besides the BSP's); returns (ELF, hex)."""
        gen, bsp_objs = self.bsp(board)
        out = self.root / board.name / name
        out.mkdir(parents=True, exist_ok=True)
        obj = self._compile(board, gen, source, out / "app.o", defines, flags)
        elf, hexfile = out / "app.elf", out / "app.hex"
        cmd = [str(self.toolchain.tool("gcc")), *board.link_flags(),
               *self.toolchain.libc_flags(), "-DPICOLIBC_INTEGER_PRINTF_SCANF",
               "-T", str(gen / "link.ld"), "-Wl,--gc-sections", "-Wl,--no-warn-rwx-segments",
               f"-Wl,-Map={out / 'app.map'}", *map(str, bsp_objs), str(obj), "-o", str(elf)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
        subprocess.run([str(self.toolchain.tool("objcopy")), "-O", "verilog", str(elf),
                        str(hexfile)], check=True)
        return elf, hexfile
