"""hart_local_check.h: may harts 1.. run an image's kernels from their own scratchpads, how,
and which bytes of each binding a workgroup touches.

Adds env.HartLocalCheck(idir, mlir, kernel_o) -> the header node.  The logic is in
ireerv.harts.hart_local and hart_slices; needs the ireerv_image tool (IreeCompilePath).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from ireerv.boards import Board
from ireerv.harts import dispatch_counts, hart_local
from ireerv.image import iree_compile
from ireerv.inputs.fetch import FetchError
from ireerv.runtime import inline_hal
from ireerv.util.scons import build_error, short_action, write_value
from ireerv.util.sources import module_files


def hart_local_check(renv, idir: str, mlir, kernel_o) -> list:
    """hart_local_check.h: may harts 1.. run the kernels from their own scratchpads, and how?"""
    board: Board = renv["BOARD_SPEC"]
    target = f"{idir}/{hart_local.HEADER}"
    if not any(r.per_hart for r in board.memory):
        text = renv.Value(hart_local.header("the board has no per-hart memory"))
        return renv.Command(target, text, short_action(write_value))
    softfloat = renv["SOFTFLOAT_OBJECTS"]
    header = renv.Command(target, [mlir, kernel_o, *softfloat, *renv["BSP_OBJECTS"]],
                          short_action(_write_hart_local_check),
                          SOFTFLOAT_COUNT=len(softfloat))
    renv.Depends(header, module_files(hart_local, iree_compile, inline_hal, dispatch_counts))
    renv.Depends(header, find_spec("ireerv.harts.kernel_slices").origin)  # imported late
    # The flags the check compiles with: the kernel object alone may not change with them.
    renv.Depends(header, renv.Value(" ".join(renv["IREE_FLAGS"])))
    return header


def _write_hart_local_check(target, source, env):
    # Only when the check runs: their patterns are many.
    from ireerv.harts import hart_slices, kernel_slices

    try:
        objects = [Path(str(s)) for s in source[2:]]
        count = env["SOFTFLOAT_COUNT"]
        kernel = Path(str(source[1]))
        checks = hart_local.check_entries(kernel, objects[:count], objects[count:])
        order = hart_local.export_order(kernel)
        reason, word_stores = hart_local.summary(checks)
        entries = slices = None
        if any(c.reason is None for c in checks.values()):
            compiler, mlir = env.IreeCompilePath(), Path(str(source[0]))
            flags = inline_hal.phases_flags(env["IREE_FLAGS"])
            sources = iree_compile.executable_sources(compiler, flags, mlir)
            entries = hart_local.entry_bindings(sources)
            slices = hart_slices.entry_slices(iree_compile.distributed_ir(
                compiler, flags, mlir, hart_slices.PASS))
            kernel_slices.add_entries(sources, entries, slices)
    except (hart_local.HartLocalError, iree_compile.CompileError, FetchError) as err:
        build_error(err)
    Path(str(target[0])).write_text(hart_local.header(reason, word_stores, entries, slices, checks,
                                                      order))


def generate(env) -> None:
    env.AddMethod(hart_local_check, "HartLocalCheck")


def exists(env) -> bool:
    return True
