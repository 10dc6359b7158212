"""IREE's bare-metal runtime, built from the pinned source with CMake and Ninja for a
board's flags and PROFILE: the host tools first (once per pin, into the cache), then the
runtime libraries (one build per set of flags, shared by boards and placements).

Adds env.IreeRuntime(board) -> the libraries in link order, and env.RuntimeDir() (in a
board's environment).  The logic is in ireerv.runtime.iree_build.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ireerv import services, targets
from ireerv.boards import Board
from ireerv.inputs.cache import ensure_dir
from ireerv.inputs.fetch import FetchError
from ireerv.runtime import iree_build
from ireerv.targets import Target
from ireerv.util.scons import build_error, short_action

# CMake's compile commands of the runtime, copied where SCons may remove it before a build.
RUNTIME_DB = "ireerv-compile-commands.json"


def _host_tools(env) -> Path:
    """IREE's host tools, built once per IREE pin and host configuration into the cache."""
    fetcher = env.GetFetcher()
    src = fetcher.path("iree")
    key = iree_build.host_tools_key(env["LOCK"].input("iree").key())
    final = fetcher.located(Path(env["CACHE_DIR"]) / "tools" / f"iree-host-tools-{key}")
    log = Path(env["CACHE_DIR"]) / "logs" / f"{final.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)

    def build(tmp: Path) -> None:
        print("building IREE host tools (iree-flatcc-cli, iree-c-embed-data)...")
        iree_build.build_host_tools(src, tmp, log_path=log)

    ensure_dir(final, build)
    return final / "tools"


def _runtime_dir(benv) -> str:
    return iree_build.runtime_dir(benv["BOARD_SPEC"], benv["PROFILE"], benv["TOOLCHAIN_KIND"])


def _build_runtime(target, source, env):
    try:
        build_dir = Path(env.Dir(_runtime_dir(env)).abspath)
        iree_build.build_runtime(
            env.GetFetcher().path("iree"), build_dir, env["TOOLCHAIN"], _host_tools(env),
            profile=env["PROFILE"], cflags=env["BOARD_SPEC"].compile_flags(),
            log_path=build_dir.with_suffix(".log"))
        shutil.copyfile(build_dir / "compile_commands.json", build_dir / RUNTIME_DB)
    except (iree_build.IreeBuildError, FetchError) as err:
        build_error(err)  # the message names the failing command, its log and the log's tail


def iree_runtime(env, board: Board) -> list:
    """The runtime libraries for this board's flags and PROFILE, in link order.  Boards with
    the same flags (and placements of one board) share one runtime build."""
    benv = env.BoardEnv(board)
    if "IREE_RUNTIME" not in benv:
        rdir = iree_build.runtime_dir(board, env["PROFILE"], env["TOOLCHAIN_KIND"])
        shared = services.of(env).runtimes
        if rdir not in shared:
            libs = iree_build.load_config()["target"]["libraries"]
            # What the runtime depends on, beyond its configuration files.
            key = "\n".join([env["LOCK"].input("iree").key(), benv.ToolchainKey(),
                             env["PROFILE"], *board.compile_flags()])
            nodes = benv.Command(
                [*(f"{rdir}/{lib}" for lib in libs), f"{rdir}/{RUNTIME_DB}"],
                [benv.Value(key), str(iree_build.CONFIG_FILE),
                 str(iree_build.TOOLCHAIN_TEMPLATE)],
                short_action(_build_runtime, "RUNTIME"))
            shared[rdir], services.of(env).runtime_dbs[rdir] = nodes[:-1], nodes[-1]
        benv["IREE_RUNTIME"] = shared[rdir]
    return benv["IREE_RUNTIME"]


def generate(env) -> None:
    env.Tool("ireerv_board")  # env.BoardEnv
    env.Tool("ireerv_setup")
    env.AddMethod(iree_runtime, "IreeRuntime")
    env.AddMethod(_runtime_dir, "RuntimeDir")
    targets.declare(env, Target(
        "runtime", "build IREE's host tools and the bare-metal runtime", "inputs",
        lambda env, request: env.IreeRuntime(request.placed_board)))


def exists(env) -> bool:
    return True
