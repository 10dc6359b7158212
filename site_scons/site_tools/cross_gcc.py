"""The pinned RISC-V GCC cross toolchain, set up for one board.

Expects env["TOOLCHAIN"] (ireerv.inputs.toolchain.Toolchain) and
env["BOARD_SPEC"] (ireerv.boards.Board).  Registers the Hex and Disassembly builders and gives
Program an emitter that declares the link map.
"""

from __future__ import annotations

import subprocess

import SCons.Action
import SCons.Builder

from ireerv.boards import overflow
from ireerv.paths import PROJECT_ROOT


def _map_emitter(target, source, env):
    elf = target[0]
    target.append(elf.dir.File(elf.name.rsplit(".", 1)[0] + ".map"))
    return target, source


def _spawn_explaining_overflow(board, spawn_other):
    """SCons' SPAWN for the board: a link that overflows a memory region also says which
    placement would hold the image.  (SPAWN is not part of any build signature.)"""

    def spawn(sh, escape, cmd, args, env):
        if "-Wl,--gc-sections" not in args:  # only links need the linker's words
            return spawn_other(sh, escape, cmd, args, env)
        proc = subprocess.run([sh, "-c", " ".join(args)], env=env, stderr=subprocess.PIPE,
                              text=True, errors="replace")
        print(proc.stderr, end="", flush=True)
        hint = overflow.explain(proc.stderr, board) if proc.returncode else None
        if hint:
            print(f"error: {hint}", flush=True)
        return proc.returncode

    return spawn


def generate(env) -> None:
    toolchain = env["TOOLCHAIN"]
    board = env["BOARD_SPEC"]
    env.Tool("gcc")
    env.Tool("gnulink")
    env.Tool("ar")
    env.Tool("as")
    for var, tool in (
        ("CC", "gcc"), ("AS", "gcc"), ("LINK", "gcc"), ("AR", "ar"), ("RANLIB", "ranlib"),
        ("OBJCOPY", "objcopy"), ("OBJDUMP", "objdump"), ("SIZE", "size"),
    ):
        env[var] = str(toolchain.tool(tool))
    libc = toolchain.libc_flags()
    common = board.compile_flags()
    # Path-independent objects: no cache or checkout path in debug info or __FILE__.
    caches = [env["CACHE_DIR"], *([env["SHARED_CACHE"]] if env.get("SHARED_CACHE") else [])]
    prefix_maps = [*(f"-ffile-prefix-map={c}=/cache" for c in caches),
                   f"-ffile-prefix-map={PROJECT_ROOT}=."]
    env["PREFIX_MAPS"] = prefix_maps  # link-time compiles (LTO) need them too
    as_maps = [f"-Wa,--debug-prefix-map={m.split('=', 1)[1]}" for m in prefix_maps]
    # $( $): the maps stay out of the command's signature, so a clone elsewhere
    # (a team's BUILD_CACHE) computes the same signatures and retrieves the objects.
    env.Replace(
        CCFLAGS=[*common, *libc, "$(", *prefix_maps, "$)", "-ffunction-sections",
                 "-fdata-sections", "-g"],
        # The assembler writes its own debug info: it needs the map spelled its way.
        ASFLAGS=[*common, *libc, "$(", *prefix_maps, "$)", "-g", "$(", *as_maps, "$)"],
        ASPPFLAGS=["$ASFLAGS"],
        ASPPCOM="$CC $ASPPFLAGS $CPPFLAGS $_CPPDEFFLAGS $_CPPINCFLAGS -c -o $TARGET $SOURCES",
        CFLAGS=["-std=gnu11", "-Wall"],
        # The multilib is chosen by the link -march: the long compile -march
        # (with Zicsr/Zifencei) would select the 64-bit default libraries.
        LINKFLAGS=[
            *board.link_flags(), *libc, "-Wl,--gc-sections", "-Wl,--no-warn-rwx-segments",
            # picolibc's integer-only printf: nothing prints floats (outputs are hex bits).
            "-DPICOLIBC_INTEGER_PRINTF_SCANF",
            "-Wl,-Map=${TARGET.base}.map",
        ],
        ARFLAGS=["rcD"],  # D: deterministic archives (no timestamps or uids)
        PROGSUFFIX=".elf",
    )
    env.Append(
        BUILDERS={
            "Hex": SCons.Builder.Builder(
                action=SCons.Action.Action("$OBJCOPY -O verilog $SOURCE $TARGET", "$HEXCOMSTR"),
                suffix=".hex", src_suffix=".elf",
            ),
            "Disassembly": SCons.Builder.Builder(
                action=SCons.Action.Action("$OBJDUMP -d -S $SOURCE > $TARGET", "$DISCOMSTR"),
                suffix=".dis", src_suffix=".elf",
            ),
        }
    )
    env.Append(PROGEMITTER=[_map_emitter])
    env["SPAWN"] = _spawn_explaining_overflow(board, env["SPAWN"])


def exists(env) -> bool:
    return "TOOLCHAIN" in env
