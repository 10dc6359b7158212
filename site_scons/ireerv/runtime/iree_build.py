"""Configure and build IREE's host tools and the bare-metal runtime with CMake and Ninja.

The options, defines and library list live in runtime/config.toml; the CMake
toolchain file is generated from runtime/toolchain.cmake.in.  A build
directory remembers the configuration it was made with and starts over when
that changes, so stale CMake cache entries never leak into a build.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.boards import Board
from ireerv.inputs.toolchain import Toolchain
from ireerv.paths import BUILD, PROJECT_ROOT
from ireerv.runtime import hot_sources
from ireerv.util.buildlog import BuildError, run_logged, start_log
from ireerv.util.files import atomic_write

RUNTIME_DIR = PROJECT_ROOT / "runtime"
CONFIG_FILE = RUNTIME_DIR / "config.toml"
TOOLCHAIN_TEMPLATE = RUNTIME_DIR / "toolchain.cmake.in"
RUNNER_DIR = RUNTIME_DIR / "runner"

# Written into a build directory once CMake has configured it.
STAMP_NAME = "ireerv-configuration.txt"
# Environment variables CMake would fold into compiler choice or flags.
_COMPILER_ENV = ("CC", "CXX", "ASM", "CFLAGS", "CXXFLAGS", "ASMFLAGS", "CPPFLAGS", "LDFLAGS")
_COMMIT = re.compile(r"@\s*([0-9a-f]{40})\b")


class IreeBuildError(BuildError):
    """A configure or build step failed; carries the command and the log to read."""


@dataclass(frozen=True)
class RuntimeBuild:
    """What an application needs to compile against and link the runtime."""

    build_dir: Path
    libraries: list[Path]      # archives, in link order
    include_dirs: list[Path]
    defines: list[str]         # "NAME=VALUE"; every file including IREE headers needs them


# ---------------------------------------------------------------------------
# Configuration


@functools.cache
def load_config(path: Path = CONFIG_FILE) -> dict[str, Any]:
    """runtime/config.toml, checked for the keys the build uses; read once per path."""
    try:
        config = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise IreeBuildError(f"cannot read runtime configuration {path}: {error}") from error
    if config.get("schema") != 1:
        raise IreeBuildError(f"{path}: unsupported schema {config.get('schema')!r} (expected 1)")
    for section, keys in {"host": ("targets", "build_type", "cmake"),
                          "target": ("targets", "libraries", "include_dirs", "cmake")}.items():
        for key in keys:
            if key not in config.get(section, {}):
                raise IreeBuildError(f"{path}: [{section}] lacks {key!r}")
    if not config.get("profiles"):
        raise IreeBuildError(f"{path}: no [profiles]")
    return config


def _profile(config: Mapping[str, Any], profile: str) -> Mapping[str, Any]:
    profiles = config["profiles"]
    if profile not in profiles:
        known = ", ".join(sorted(profiles))
        raise IreeBuildError(f"unknown runtime profile {profile!r}; known: {known}")
    return profiles[profile]


def _define_flags(defines: Mapping[str, str]) -> list[str]:
    return [f"-D{name}={value}" for name, value in defines.items()]


def app_defines(profile: str, config: Mapping[str, Any] | None = None) -> list[str]:
    """The "NAME=VALUE" defines application code must share with the runtime."""
    config = config or load_config()
    merged = {**config["target"].get("defines", {}), **_profile(config, profile).get("defines", {})}
    return [f"{name}={value}" for name, value in merged.items()]


def runtime_only_defines(config: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The defines the runtime's own sources are built with and application code is not."""
    config = config or load_config()
    return dict(config["target"].get("runtime_defines", {}))


def lto_flags(profile: str, config: Mapping[str, Any] | None = None
              ) -> tuple[list[str], list[str]]:
    """(compile flags, link flags) of the profile's link-time optimisation; empty without."""
    config = config or load_config()
    lto = _profile(config, profile).get("lto", {})
    return list(lto.get("cflags", [])), list(lto.get("link_flags", []))


def hot_cflags(profile: str, source: str, config: Mapping[str, Any] | None = None) -> list[str]:
    """The extra flags the profile's [hot] table gives `source` (relative to runtime/src/iree)."""
    config = config or load_config()
    try:
        cflags, sources = hot_sources.hot_table(_profile(config, profile), str(CONFIG_FILE))
    except hot_sources.HotSourcesError as error:
        raise IreeBuildError(str(error)) from error
    return list(cflags) if source in sources else []


def target_c_flags(iree_src: Path, build_dir: Path, toolchain: Toolchain, cflags: Sequence[str],
                   profile: str, config: Mapping[str, Any] | None = None) -> list[str]:
    """Every runtime compile flag except the profile's optimisation flags."""
    config = config or load_config()
    target = config["target"]
    prefix_maps = [
        f"-ffile-prefix-map={iree_src}=iree",
        f"-ffile-prefix-map={build_dir}=iree-build",
        f"-ffile-prefix-map={toolchain.root}=toolchain",
    ]
    return [
        *toolchain.libc_flags(),
        *cflags,
        *target.get("cflags", []),
        *prefix_maps,
        *("-D" + d for d in app_defines(profile, config)),
        *_define_flags(target.get("runtime_defines", {})),
    ]


def _cmake_string(text: str) -> str:
    """A CMake quoted argument holding `text` literally."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def toolchain_file_text(toolchain: Toolchain, c_flags: Sequence[str],
                        template: Path = TOOLCHAIN_TEMPLATE) -> str:
    """The CMake toolchain file for `toolchain` with `c_flags` as the initial flags."""
    # Ninja runs each command through /bin/sh: every flag is shell-quoted once.
    values = {
        "SYSTEM_PROCESSOR": "riscv32",
        "C_COMPILER": str(toolchain.tool("gcc")),
        "CXX_COMPILER": str(toolchain.tool("g++")),
        "AR": str(toolchain.tool("ar")),
        "RANLIB": str(toolchain.tool("ranlib")),
        "TOOLCHAIN_ROOT": str(toolchain.root),
        "C_FLAGS": " ".join(shlex.quote(flag) for flag in c_flags),
    }
    text = template.read_text()
    for name, value in values.items():
        text = text.replace(f"@{name}@", _cmake_string(value))
    if leftover := re.findall(r"@[A-Z_]+@", text):
        raise IreeBuildError(f"{template}: unknown placeholders {sorted(set(leftover))}")
    return text


def _cmake_options(options: Mapping[str, str]) -> list[str]:
    return [f"-D{name}={value}" for name, value in options.items()]


# ---------------------------------------------------------------------------
# Running commands


def _tool(name: str) -> str:
    path = shutil.which(name)
    if not path:
        raise IreeBuildError(f"{name} is not on PATH; install it (the build needs CMake and Ninja)")
    return path


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _COMPILER_ENV}


def _run(command: Sequence[str], log_path: Path) -> None:
    run_logged(command, log_path, env=_clean_env(), error=IreeBuildError)


def _prepare_build_dir(build_dir: Path, stamp: str) -> bool:
    """Whether CMake must configure `build_dir`; a differently configured one is removed."""
    stamp_path = build_dir / STAMP_NAME
    if stamp_path.is_file() and stamp_path.read_text() == stamp:
        return False
    if (build_dir / "CMakeCache.txt").exists() or stamp_path.exists():
        shutil.rmtree(build_dir)
    build_dir.mkdir(parents=True, exist_ok=True)
    return True


def _check_source(iree_src: Path) -> None:
    parts = ("CMakeLists.txt", "runtime/src/iree/base/api.h", "third_party/flatcc/CMakeLists.txt")
    for part in parts:
        if not (iree_src / part).is_file():
            hint = " (the third_party/flatcc submodule belongs there)" if "flatcc" in part else ""
            raise IreeBuildError(f"IREE source at {iree_src} lacks {part}{hint}")


def _configure_and_build(iree_src: Path, build_dir: Path, cmake_args: Sequence[str],
                         targets: Sequence[str], log_path: Path, log_title: str,
                         toolchain_text: str, jobs: int | None, project_include: str = "") -> None:
    """Configure `build_dir` unless already configured identically, then build `targets`.

    `project_include`, if any, is CMake code IREE's top-level project includes."""
    cmake, ninja = _tool("cmake"), _tool("ninja")
    include_path = build_dir / hot_sources.FILE_NAME
    if project_include:
        cmake_args = [*cmake_args, f"-DCMAKE_PROJECT_IREE_INCLUDE={include_path}"]
    configure = [cmake, "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}",
                 "-S", str(iree_src), "-B", str(build_dir), *cmake_args]
    stamp = "\n".join([shlex.join(configure), toolchain_text, project_include, ""])
    must_configure = _prepare_build_dir(build_dir, stamp)
    start_log(log_path, log_title)  # after any clean-up: the log may live in build_dir
    if must_configure:
        if toolchain_text:
            atomic_write(build_dir / "toolchain.cmake", toolchain_text)
        if project_include:
            atomic_write(include_path, project_include)
        _run(configure, log_path)
        atomic_write(build_dir / STAMP_NAME, stamp)
    _run([ninja, "-C", str(build_dir), *([f"-j{jobs}"] if jobs else []), *targets], log_path)


# ---------------------------------------------------------------------------
# Public entry points


def build_host_tools(iree_src: Path, out_dir: Path, *, log_path: Path,
                     jobs: int | None = None) -> dict[str, Path]:
    """Build iree-flatcc-cli and iree-c-embed-data for the build machine.

    Returns tool name -> executable; all of them sit in one directory, which is
    what build_runtime takes as `host_bin`.
    """
    iree_src, out_dir = Path(iree_src).resolve(), Path(out_dir).resolve()
    _check_source(iree_src)
    config = load_config()
    host = config["host"]
    args = [f"-DCMAKE_BUILD_TYPE={host['build_type']}", *_cmake_options(host["cmake"])]
    _configure_and_build(iree_src, out_dir, args, host["targets"], log_path,
                         f"IREE host tools from {iree_src}", "", jobs)
    tools = {name: out_dir / "tools" / name for name in host["targets"]}
    for path in tools.values():
        if not path.is_file():
            raise IreeBuildError(f"host build finished but {path} is missing", log_path=log_path)
    return tools


def build_runtime(iree_src: Path, build_dir: Path, toolchain: Toolchain, host_bin: Path, *,
                  profile: str, cflags: Sequence[str], log_path: Path,
                  jobs: int | None = None) -> RuntimeBuild:
    """Cross-build the runtime libraries for `toolchain` with the board's `cflags`."""
    iree_src, build_dir, host_bin = (Path(p).resolve() for p in (iree_src, build_dir, host_bin))
    _check_source(iree_src)
    config = load_config()
    target = config["target"]
    settings = _profile(config, profile)
    for tool in config["host"]["targets"]:
        if not (host_bin / tool).is_file():
            raise IreeBuildError(
                f"host tool {tool} is not in {host_bin}; build the host tools first")

    c_flags = target_c_flags(iree_src, build_dir, toolchain, cflags, profile, config)
    toolchain_text = toolchain_file_text(toolchain, c_flags)
    build_type = settings["build_type"]
    opt_flags = " ".join(shlex.quote(f) for f in [*settings.get("cflags", []),
                                                   *lto_flags(profile, config)[0]])
    try:
        hot = hot_sources.cmake_text(iree_src, *hot_sources.hot_table(settings, str(CONFIG_FILE)))
    except hot_sources.HotSourcesError as error:
        raise IreeBuildError(str(error)) from error
    args = [
        f"-DCMAKE_TOOLCHAIN_FILE={build_dir / 'toolchain.cmake'}",
        f"-DCMAKE_BUILD_TYPE={build_type}",
        *(f"-DCMAKE_{lang}_FLAGS_{build_type.upper()}={opt_flags}" for lang in ("C", "CXX", "ASM")),
        f"-DIREE_HOST_BIN_DIR={host_bin}",
        *_cmake_options(target["cmake"]),
    ]
    _configure_and_build(iree_src, build_dir, args, target["targets"], log_path,
                         f"IREE runtime ({profile}) from {iree_src}", toolchain_text, jobs, hot)

    layout = runtime_layout(iree_src, build_dir, profile)
    for library in layout.libraries:
        if not library.is_file():
            raise IreeBuildError(f"runtime build finished but {library} is missing",
                                 log_path=log_path)
    return layout


def runtime_layout(iree_src: Path, build_dir: Path, profile: str) -> RuntimeBuild:
    """Where a runtime build in `build_dir` puts its libraries, and what code using it needs."""
    config = load_config()
    target = config["target"]
    include_dirs = [Path(d.format(src=iree_src, build=build_dir)) for d in target["include_dirs"]]
    return RuntimeBuild(build_dir=build_dir,
                        libraries=[build_dir / lib for lib in target["libraries"]],
                        include_dirs=include_dirs, defines=app_defines(profile, config))


def host_tools_key(iree_key: str) -> str:
    """The cache key of the host tools: the IREE pin and the [host] configuration."""
    recipe = json.dumps({"iree": iree_key, "host": load_config()["host"]}, sort_keys=True)
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


def compiler_commit(iree_compile: Path) -> str:
    """The IREE commit `iree-compile --version` says the compiler was built from."""
    try:
        result = subprocess.run([str(iree_compile), "--version"], capture_output=True, text=True,
                                check=False)
    except OSError as error:
        raise IreeBuildError(f"cannot run {iree_compile}: {error}",
                             command=[str(iree_compile), "--version"]) from error
    output = result.stdout + result.stderr
    match = _COMMIT.search(output)
    if result.returncode != 0 or not match:
        raise IreeBuildError(f"{iree_compile} --version printed no commit:\n{output.strip()}",
                             command=[str(iree_compile), "--version"])
    return match.group(1)


def check_compiler_commit(iree_compile: Path, expected_commit: str) -> None:
    """Raise unless iree-compile was built from the runtime's commit."""
    actual = compiler_commit(iree_compile)
    if actual != expected_commit.lower():
        raise IreeBuildError(
            f"{iree_compile} was built from IREE commit {actual}, but the runtime source is "
            f"commit {expected_commit}; modules and runtime must come from the same commit",
            command=[str(iree_compile), "--version"])


def runtime_dir(board: Board, profile: str, toolchain: str = "debian") -> str:
    """The runtime build's folder: one per set of flags, shared by boards and placements."""
    own = "" if toolchain == "debian" else f"-{toolchain}"  # no CMake cache shared between them
    return f"{BUILD}/runtime/{profile}-{board.march}-{board.mabi}{own}"
