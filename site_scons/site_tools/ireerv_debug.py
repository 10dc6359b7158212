"""scons debug: the image on its board's simulator, stopped at reset with a GDB stub, and
gdb-multiarch attached with the image's symbols, stopped at main.

GDB_SCRIPT=<file> runs a batch session instead of an interactive one.  The logic is in
ireerv.run.debug; each simulator kind says how it is debugged (or why it cannot be).
"""

from __future__ import annotations

from pathlib import Path

import SCons.Action

from ireerv import simulators, targets
from ireerv.run import debug
from ireerv.simulators.base import SimulationError
from ireerv.targets import Target
from ireerv.util.scons import build_error


def _debug(target, source, env):
    image = env["DEBUG_IMAGE"]
    board, elf = image.board, Path(image.elf.abspath)
    port = debug.free_port()
    try:
        simulators.debug_command(board.simulator, Path(), elf, port)  # can it be debugged?
        cmd = simulators.debug_command(board.simulator, env.SimulatorPath(board), elf, port)
        folder = elf.parent
        init = folder / "gdbinit"
        init.write_text(debug.gdbinit(port))
        script = Path(env["GDB_SCRIPT"]).resolve() if env["GDB_SCRIPT"] else None
        print(f"debug: {image.model.name} on {board.name}; `break-layer TEXT` breaks in the "
              f"dispatches whose names hold TEXT; simulator output: {folder / 'debug.log'}")
        status = debug.session(cmd, elf, init, script, folder / "debug.log")
    except (SimulationError, debug.DebugError) as err:
        build_error(err)
    if status != 0:
        build_error(f"debug: gdb ended with status {status}")


def debug_target(env, image):
    node = env.Alias("debug-session", image.outputs, SCons.Action.Action(_debug, None),
                     DEBUG_IMAGE=image)
    env.AlwaysBuild(node)
    return node


def generate(env) -> None:
    env.Tool("ireerv_run")  # the image and its simulator
    env.AddMethod(debug_target, "Debug")
    targets.declare(env, Target(
        "debug", "run the image stopped at reset and attach gdb-multiarch, stopped at main "
        "(qemu-virt); GDB_SCRIPT=<file> runs a batch session", "measure",
        lambda env, request: env.Debug(request.image)))


def exists(env) -> bool:
    return True
