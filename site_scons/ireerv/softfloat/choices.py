"""The soft-float routines an image links: which ones, from where, built how.

A core without an FPU computes every f32 operation in a library routine
(`__addsf3`, `__mulsf3`, ...).  SOFTFLOAT selects them for every image of a
build (IREE runtime, kernels and plain C alike: they all call the same
entry points):

- `libgcc`: GCC's own, from the rv32im multilib (no compressed instructions);
- `rvfplib`: RVfplib's speed-optimised assembly routines;
- `rvfplib-size`: RVfplib's size-optimised ones;
- `rvfplib-rv32im`: the speed-optimised ones without compressed
  instructions, which shows what compression brings.

RVfplib (pinned in toolchain.lock) is assembled for the board's exact
-march, with compressed instructions, and its objects are linked ahead of
libgcc, so they define the entry points and libgcc's copies are never
pulled in.  Only the single-precision routines the bit-exactness check
covers are taken (softfloat/check.c); double precision stays with libgcc.
Every choice also links softfloat/fmaf.c, a correctly rounded fmaf: the C
library's soft-float fmaf rounds twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ireerv.paths import PROJECT_ROOT

SOURCE_DIR = PROJECT_ROOT / "softfloat"
FMAF_SOURCE = SOURCE_DIR / "fmaf.c"
# Included ahead of each RVfplib routine: the routine starts on a 4-byte
# boundary plus RVFPLIB_PADS[routine] bytes (default 0).  The cluster's core
# fetches aligned 32-bit words, so where a routine's branch targets fall
# changes its cost; left to the link, the placement moved with unrelated code
# and a 16x16 matmul call by up to 10,000 cycles.  Measured on cluster4 (16x16
# call, IREE / plain C, by the parity of the __addsf3 and __mulsf3 entries):
# 0,0: 407,086 / 394,667; 0,2: 411,461 / 397,679; 2,2: 416,935 / 406,345.
# __addsf3.S starts with the 6-byte __subsf3, hence its 2 bytes of padding.
RVFPLIB_ALIGN = SOURCE_DIR / "rvfplib_align.h"
RVFPLIB_PADS: dict[str, int] = {"__addsf3": 2}
RVFPLIB_INPUT = "rvfplib"
RVFPLIB_DIR = Path("src/asm/ieee754")  # with subnormals; ieee754_nd flushes them
# One file per entry point; __addsf3.S also defines __subsf3, __eqsf2.S __nesf2.
RVFPLIB_ROUTINES: tuple[str, ...] = (
    "__addsf3", "__mulsf3", "__divsf3", "__eqsf2", "__ltsf2", "__lesf2", "__gtsf2",
    "__gesf2", "__fixsfsi", "__fixunssfsi", "__floatsisf", "__floatunsisf",
)


class SoftFloatError(ValueError):
    """An unknown choice, or an RVfplib tree without the routines it should have."""


@dataclass(frozen=True)
class Choice:
    name: str
    help: str
    rvfplib_define: str | None = None  # PERFORMANCE / SIZE, RVfplib's variant switch
    compressed: bool = True  # assembled with the board's -march, C extension included


CHOICES: dict[str, Choice] = {c.name: c for c in (
    Choice("libgcc", "GCC's libgcc routines (rv32im multilib, not compressed)"),
    Choice("rvfplib", "RVfplib, speed-optimised, built for the board's -march",
           "PERFORMANCE"),
    Choice("rvfplib-size", "RVfplib, size-optimised, built for the board's -march", "SIZE"),
    Choice("rvfplib-rv32im", "RVfplib, speed-optimised, without compressed instructions "
           "(to measure what they bring)", "PERFORMANCE", compressed=False),
)}
# The fastest per multiply-add on the cluster (scons softfloat-bench; docs/softfloat.md).
DEFAULT = "rvfplib"


def choice(name: str) -> Choice:
    try:
        return CHOICES[name]
    except KeyError:
        raise SoftFloatError(
            f"SOFTFLOAT={name!r} is not one of: {', '.join(CHOICES)}") from None


def without_compressed(march: str) -> str:
    """The -march without the C extension: rv32imc_zicsr -> rv32im_zicsr."""
    base, sep, rest = march.partition("_")
    return base[:4] + base[4:].replace("c", "") + sep + rest


def rvfplib_sources(root: Path) -> list[Path]:
    """The assembly files of the routines taken from an RVfplib tree."""
    sources = [root / RVFPLIB_DIR / f"{name}.S" for name in RVFPLIB_ROUTINES]
    missing = [str(p.relative_to(root)) for p in sources if not p.is_file()]
    if missing:
        raise SoftFloatError(f"RVfplib at {root} lacks {', '.join(missing)}")
    return sources


def build_dir(name: str, board_dir: str) -> str:
    """Where a choice's objects are built in a board's folder (one per board, placement and
    toolchain: objects of two toolchains never share a path)."""
    return f"{board_dir}/softfloat/{name}"
