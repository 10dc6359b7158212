"""scons cap: the cluster's cap on several harts, measured (microbench/cap.c).

Adds env.CapBench() -> cap.json and cap.md in build/bench/: the program built
with each soft-float choice of plan.toml's [cap] table, run on its board, its
lines tabled by ireerv.bench.cap.  Needs the ireerv_image and ireerv_run tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import SCons.Errors

from ireerv import simulators, targets
from ireerv.bench import cap
from ireerv.boards import Board, load_board
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.run import check
from ireerv.simulators.base import Image, SimulationError
from ireerv.targets import Target
from ireerv.util.files import atomic_write
from ireerv.util.scons import build_error, short_action, user_error

SOURCE = PROJECT_ROOT / "microbench" / "cap.c"


def _program(env, board: Board, choice: str, loops: int):
    """The program linked with soft-float choice `choice`: ELF and hex."""
    benv = env.BoardEnv(board)
    pdir = f"{benv['BOARD_DIR']}/cap-{choice}"
    penv = benv.Clone()
    penv.Append(CCFLAGS=["-O2", "-ffp-contract=off", "-fno-jump-tables"],
                CPPDEFINES=[("CAP_LOOPS", loops), ("CAP_SOFTFLOAT", f'\\"{choice}\\"')])
    obj = penv.Object(f"{pdir}/cap.o", str(SOURCE))
    elf = penv.Program(f"{pdir}/image.elf",
                       [*obj, *benv["BSP_OBJECTS"], *env.SoftFloatObjects(benv, choice)])
    penv.Depends(elf, benv["LINKER_SCRIPT"])
    return pdir, elf[0], penv.Hex(f"{pdir}/image.hex", elf[0])[0]


def _run(target, source, env):
    board: Board = env["_BOARD_OBJ"]
    print(f"run: cap ({env['_CHOICE']}) on {board.name}", flush=True)
    try:
        result = simulators.run(
            board.simulator, env.SimulatorPath(board),
            Image(Path(str(source[0])), Path(str(source[1]))),
            **simulators.limits(env))
    except SimulationError as err:
        build_error(err)
    if not result.passed or "STATUS OK" not in result.program_output:
        raise SCons.Errors.BuildError(
            errstr=f"cap ({env['_CHOICE']}) on {board.name} failed: "
                   f"{check.ended(result) if not result.passed else result.detail}\n"
                   + result.program_output[-1500:])
    atomic_write(Path(str(target[0])), result.program_output)


def _write(target, source, env):
    try:
        doc = cap.collect([Path(str(s)).read_text() for s in source], env["_BOARD_NAME"])
    except cap.CapError as err:
        build_error(err)
    atomic_write(Path(str(target[0])), json.dumps(doc, indent=2) + "\n")
    text = cap.markdown(doc)
    atomic_write(Path(str(target[1])), text)
    print(text)


def cap_bench(env):
    """cap.json and cap.md: every soft-float choice of the plan and SOFTFLOAT, on the plan's
    board."""
    try:
        plan = cap.load_plan()
    except cap.CapError as err:
        user_error(err)
    board = load_board(plan.board)
    loops = int(env["CAP_LOOPS"]) if env.get("CAP_LOOPS") else plan.loops
    # the simulator that runs them is a dependency too
    tools = env.Value(simulators.identity(board.simulator, env.GetFetcher()))
    outputs = []
    for choice in dict.fromkeys([*plan.softfloat, env["SOFTFLOAT"]]):
        pdir, elf, hex_file = _program(env, board, choice, loops)
        outputs += env.Command(f"{pdir}/output.txt", [elf, hex_file, tools],
                               short_action(_run, "RUN"), _BOARD_OBJ=board, _CHOICE=choice)
    return env.Command([f"{BUILD}/bench/cap.json", f"{BUILD}/bench/cap.md"], outputs,
                       short_action(_write, "CAP"), _BOARD_NAME=board.name)


def generate(env) -> None:
    env.Tool("ireerv_board")  # env.BoardEnv
    env.Tool("ireerv_run")
    env.AddMethod(cap_bench, "CapBench")
    targets.declare(env, Target(
        "cap", "the cluster's cap on several harts: four loops on 1..4 harts, speed-up next to "
        "min(N, 1/(IPC1*w)) from the cores' counters (also part of bench)", "measure",
        lambda env, request: env.CapBench()))


def exists(env) -> bool:
    return True
