"""A board's cross environment: the toolchain, the board's flags, its generated header
and linker script, and its BSP objects; one per board, placement and toolchain.

Adds env.BoardEnv(board).  Every Tool that compiles for a board starts from it.
"""

from __future__ import annotations

from ireerv import services
from ireerv.boards import CONFIG_HEADER, Board, config_header, linker_script
from ireerv.boards.board import KERNEL_ALIGN, KERNEL_OPT
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.inputs.toolchain import ToolchainError
from ireerv.inputs.toolchain_build import ToolchainBuildError
from ireerv.paths import BUILD
from ireerv.util.scons import short_action, user_error, write_value


def _toolchain_suffix(env) -> str:
    """Objects of the two toolchains never share a folder (switching rebuilds nothing)."""
    kind = env.get("TOOLCHAIN_KIND", "debian")
    return "" if kind == "debian" else f"-{kind}"


def _board_env(env, board: Board):
    """A cross environment for the board, with its BSP objects; one per board."""
    envs = services.of(env).board_envs
    if board.build_name in envs:
        return envs[board.build_name]
    try:
        toolchain = env.GetToolchain()
    except (FetchError, ToolchainError, ToolchainBuildError) as err:
        user_error(err)
    benv = env.Clone(TOOLCHAIN=toolchain, BOARD_SPEC=board,
                     IREE_COMPILER_ID=identity.compiler(env["LOCK"]))
    benv.Tool("cross_gcc")
    benv.Tool("compilation_db")  # after the compiler: it wraps the object builders' emitters
    bdir = f"{BUILD}/{board.build_name}{_toolchain_suffix(env)}"
    write = short_action(write_value)
    header = benv.Command(f"{bdir}/include/{CONFIG_HEADER}", benv.Value(config_header(board)),
                          write)
    script = benv.Command(f"{bdir}/link.ld", benv.Value(linker_script(board)), write)
    benv.Append(CPPPATH=[f"{bdir}/include", *map(str, board.include_dirs())])
    benv.Append(LINKFLAGS=["-T", script[0].path])  # relative: the same in every clone
    objects = []
    for src in board.bsp_sources():
        obj = benv.Object(f"{bdir}/bsp/{src.stem}.o", str(src))
        benv.Depends(obj, header)
        objects += obj
    for src in board.kernel_sources:
        objects += benv.Object(f"{bdir}/bsp/{src.stem}.o", str(src),
                               CCFLAGS=[*benv["CCFLAGS"], KERNEL_OPT, *KERNEL_ALIGN])
    benv["BSP_OBJECTS"] = objects
    benv["LINKER_SCRIPT"] = script
    benv["BOARD_DIR"] = bdir  # per board, placement and toolchain: objects never mix
    envs[board.build_name] = benv
    return benv


def generate(env) -> None:
    env.Tool("ireerv_setup")  # the toolchain
    env.AddMethod(_board_env, "BoardEnv")


def exists(env) -> bool:
    return True
