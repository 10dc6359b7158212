"""Soft-float routines per SOFTFLOAT, and the programs that check and measure them.

Adds env.SoftFloatObjects(benv, name) (the objects every image links for a
choice), env.SoftFloatCheck() (bit-exactness on qemu-virt against the host)
and env.SoftFloatBench() (cycles per call on both boards, every choice).
Needs the ireerv_image and ireerv_run tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import SCons.Action
import SCons.Errors

from ireerv import services, simulators, targets
from ireerv.boards import Board, board_with_role, list_boards, load_board
from ireerv.inputs.fetch import FetchError
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.simulators.base import Image, SimulationError
from ireerv.softfloat import bench as softfloat_bench
from ireerv.softfloat import choices as softfloat
from ireerv.targets import Target

CHECK_COUNT = 1 << 20  # random operand sets per operation
CHECK_SEED = 1


def _action(function, label: str):
    return SCons.Action.Action(
        function, strfunction=lambda target, source, env: f"{label:<8}{target[0]}")


def softfloat_objects(env, benv, name: str | None = None) -> list:
    """fmaf.o and, for RVfplib, its routines assembled with the board's flags."""
    name = name or env["SOFTFLOAT"]
    cache, key = services.of(env).softfloat, (benv["BOARD_DIR"], name)
    if key in cache:
        return cache[key]
    try:
        choice = softfloat.choice(name)
        senv = benv.Clone()
        senv.Append(CCFLAGS=["-O2", "-ffp-contract=off"])
        sdir = softfloat.build_dir(name, benv["BOARD_DIR"])
        objects = senv.Object(f"{sdir}/fmaf.o", str(softfloat.FMAF_SOURCE))
        if choice.rvfplib_define:
            root = env.GetFetcher().path(softfloat.RVFPLIB_INPUT)
            aenv = benv.Clone()
            # Ahead of every routine: its placement.  Named from the project's top
            # folder, where commands run, so the command line (and with it a shared
            # BUILD_CACHE's key) is the same in every clone.
            align = softfloat.RVFPLIB_ALIGN.relative_to(PROJECT_ROOT).as_posix()
            aenv.Append(CPPDEFINES=[(choice.rvfplib_define, 1)], ASPPFLAGS=["-include", align])
            if not choice.compressed:
                march = softfloat.without_compressed(benv["BOARD_SPEC"].march)
                aenv["ASFLAGS"] = [f if not str(f).startswith("-march=") else f"-march={march}"
                                   for f in benv["ASFLAGS"]]
            for src in softfloat.rvfplib_sources(root):
                pad = softfloat.RVFPLIB_PADS.get(src.stem, 0) if choice.compressed else 0
                obj = aenv.Object(f"{sdir}/{src.stem}.o", str(src),
                                  CPPDEFINES=[*aenv["CPPDEFINES"], ("RVFPLIB_PAD", pad)])
                aenv.Depends(obj, align)
                objects += obj
    except (softfloat.SoftFloatError, FetchError) as err:
        raise SCons.Errors.StopError(str(err)) from None
    cache[key] = objects
    return objects


def _program(env, board: Board, program: str, name: str, defines: list[str]):
    """A bare-metal program from softfloat/ linked with soft-float choice `name`."""
    benv = env.BoardEnv(board)
    pdir = f"{benv['BOARD_DIR']}/softfloat-{program}-{name}"
    penv = benv.Clone()
    penv.Append(CCFLAGS=["-O2"], CPPDEFINES=defines, CPPPATH=[str(softfloat.SOURCE_DIR)])
    obj = penv.Object(f"{pdir}/{program}.o", str(softfloat.SOURCE_DIR / f"{program}.c"))
    elf = penv.Program(f"{pdir}/image.elf",
                       [*obj, *benv["BSP_OBJECTS"], *softfloat_objects(env, benv, name)])
    penv.Depends(elf, benv["LINKER_SCRIPT"])
    hex_file = penv.Hex(f"{pdir}/image.hex", elf[0])
    return pdir, elf[0], hex_file[0]


def _run(target, source, env):
    from ireerv.run import check  # NumPy: imported by the checks alone, not by every image

    board: Board = env["_BOARD_OBJ"]
    sim = env.SimulatorPath(board)
    print(f"run: softfloat {env['_PROGRAM']} ({env['_CHOICE']}) on {board.name}", flush=True)
    try:
        result = simulators.run(
            board.simulator, sim, Image(Path(str(source[0])), Path(str(source[1]))),
            **simulators.limits(env))
    except SimulationError as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    if not result.passed or "STATUS OK" not in result.program_output:
        raise SCons.Errors.BuildError(
            errstr=f"softfloat {env['_PROGRAM']} on {board.name} failed: "
                   f"{check.ended(result) if not result.passed else result.detail}\n"
                   + result.program_output[-1500:])
    Path(str(target[0])).write_text(result.program_output)


def _run_program(env, board: Board, program: str, name: str, defines: list[str]):
    pdir, elf, hex_file = _program(env, board, program, name, defines)
    return env.Command(f"{pdir}/output.txt", [elf, hex_file], _action(_run, "RUN"),
                       _BOARD_OBJ=board, _PROGRAM=program, _CHOICE=name)


def _judge(target, source, env):
    from ireerv.softfloat import reference as softfloat_ref

    output = Path(str(source[0])).read_text()
    try:
        result = softfloat_ref.compare(output, CHECK_SEED, CHECK_COUNT)
    except softfloat_ref.SoftFloatCheckError as err:
        raise SCons.Errors.BuildError(errstr=str(err)) from None
    name = env["_CHOICE"]
    if not result.passed:
        raise SCons.Errors.BuildError(
            errstr=f"SOFTFLOAT={name}: {len(result.mismatches)} of {result.checked} checksums "
                   "differ from IEEE 754 (host):\n  " + "\n  ".join(result.mismatches[:20]))
    Path(str(target[0])).write_text(json.dumps(
        {"softfloat": name, "checksums": result.checked, "passed": True}) + "\n")
    print(f"PASS: SOFTFLOAT={name} bit-exact: {len(softfloat_ref.OPS)} operations x "
          f"{CHECK_COUNT:,} random operand sets and the edge cases ({result.checked} checksums)")


def softfloat_check(env):
    """Bit-exactness of the current SOFTFLOAT on qemu-virt, against the host's IEEE results."""
    env.Tool("ireerv_run")  # the board's environment and its simulator
    board = board_with_role("functional")
    name = env["SOFTFLOAT"]
    output = _run_program(env, board, "check", name,
                          [f"COUNT={CHECK_COUNT}u", f"SEED={CHECK_SEED}u"])
    node = env.Command(f"{Path(str(output[0])).parent}/check.json", output,
                       _action(_judge, "CHECK"), _CHOICE=name)
    env.AlwaysBuild(node)
    return node


def _write_bench(target, source, env):
    runs = {}
    for node in source[:-1]:
        board, choice = env["_KEYS"][str(node)]
        runs[(board, choice)] = Path(str(node)).read_text()
    table = softfloat_bench.collect(runs, env["_UNITS"], env["_MAIN"])
    out = Path(str(target[0]))
    out.write_text(json.dumps(table, indent=2) + "\n")
    text = softfloat_bench.markdown(table)
    Path(str(target[1])).write_text(text)
    print(text)


def softfloat_bench_target(env):
    """Cycles (cluster4) and instructions (qemu-virt) per call, every choice."""
    env.Tool("ireerv_run")  # the boards' environments and simulators
    sources, keys, units = [], {}, {}
    main = board_with_role("main").name
    for board in sorted(map(load_board, list_boards()), key=lambda b: (b.name != main, b.name)):
        units[board.name] = simulators.progress_unit(board.simulator)
        for name in softfloat.CHOICES:
            node = _run_program(env, board, "bench", name, [])
            sources += node
            keys[str(node[0])] = (board.name, name)
    outputs = [f"{BUILD}/bench/softfloat.json", f"{BUILD}/bench/softfloat.md"]
    return env.Command(outputs, [*sources, env.Value(json.dumps([main, units]))],
                       _action(_write_bench, "BENCH"), _KEYS=keys, _MAIN=main, _UNITS=units)


def generate(env) -> None:
    env.Tool("ireerv_board")  # env.BoardEnv
    env.AddMethod(softfloat_objects, "SoftFloatObjects")
    env.AddMethod(softfloat_check, "SoftFloatCheck")
    env.AddMethod(softfloat_bench_target, "SoftFloatBench")
    targets.declare(
        env,
        Target("softfloat-check", "bit-exactness of SOFTFLOAT's routines on qemu-virt against "
               "IEEE 754 (host)", "measure", lambda env, request: env.SoftFloatCheck()),
        Target("softfloat-bench", "soft-float cycles/instructions per call, every SOFTFLOAT, "
               "both boards", "measure", lambda env, request: env.SoftFloatBench()))


def exists(env) -> bool:
    return True
