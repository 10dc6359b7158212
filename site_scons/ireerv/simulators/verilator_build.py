"""Build Verilator from its pinned source, and the 4-core cluster model with it.

Both results live in the cache under tools/, keyed by what went into them:
    tools/verilator-<verilator input key>/          an installed Verilator
    tools/cluster4-sim-<key>/Vtb_top_verilator      the cluster simulator
The cached source trees are never written to: every build runs in a copy or
in its own output directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ireerv.inputs import cache
from ireerv.inputs.fetch import Fetcher
from ireerv.simulators.testbench import Testbench
from ireerv.util.buildlog import BuildError, run_logged, start_log

# Part of the cache key of a Verilator build: raise it when build_verilator's
# steps change, so a Verilator built the old way is not reused.
VERILATOR_RECIPE = 2

# Fixed, so nothing in a build depends on when it ran.
_SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01
# Variables from the caller's environment that would change what is built.
_ENV_DROP = (
    "CC", "CXX", "CPP", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LIBS", "MAKEFLAGS",
    "MFLAGS", "MAKELEVEL", "VERILATOR_ROOT", "VERILATOR_BIN", "OBJCACHE", "SOURCE_DATE_EPOCH",
    "GIT_DIR", "GIT_WORK_TREE",
)  # fmt: skip
# The programs Verilator's `make install` installs, less verilator_bin_dbg.
_COVERAGE_BIN = "verilator_coverage_bin_dbg"
_BINARIES = ("verilator_bin", _COVERAGE_BIN)
_AC_VERSION = re.compile(r"AC_INIT\(\[Verilator\],\s*\[([0-9][^\s\]]*)")


class VerilatorBuildError(BuildError):
    """A build step failed; carries the command and the log to read."""


# ---------------------------------------------------------------------------
# Running commands


def _build_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    # ccache would be recorded in the installed verilated.mk and write outside the cache.
    env.update({"LC_ALL": "C", "TZ": "UTC", "SOURCE_DATE_EPOCH": _SOURCE_DATE_EPOCH,
                "ac_cv_prog_OBJCACHE": ""})  # fmt: skip
    env.update(extra)
    return env


def _run(
    command: Sequence[str | Path], log_path: Path, *, cwd: Path, env: Mapping[str, str]
) -> None:
    run_logged(command, log_path, cwd=cwd, env=env, error=VerilatorBuildError)


def _finish_log(log_path: Path, what: str, start: float) -> None:
    with log_path.open("a") as log:
        log.write(f"# {what} took {time.monotonic() - start:.0f} s\n")


def _jobs(jobs: int | None) -> int:
    return jobs or os.cpu_count() or 1


# ---------------------------------------------------------------------------
# Verilator


def source_version(src: Path) -> str:
    """The release of a Verilator source tree, from configure.ac ("v5.050")."""
    try:
        match = _AC_VERSION.search((src / "configure.ac").read_text())
    except OSError as error:
        raise VerilatorBuildError(f"{src} is not a Verilator source tree: {error}") from error
    if not match:
        raise VerilatorBuildError(f"{src}/configure.ac names no Verilator version")
    return "v" + match.group(1)


def build_verilator(
    src: Path,
    prefix: Path,
    *,
    log_path: Path,
    jobs: int | None = None,
    install_dir: Path | None = None,
    work_dir: Path | None = None,
) -> Path:
    """Configure, build and install Verilator from `src` for `prefix`.

    The build runs in a copy of `src` under `work_dir` (a temporary directory
    when None), which is removed afterwards.  `prefix` is compiled into the
    tools; when `install_dir` is given, the installed files are put there
    instead, for the caller to move to `prefix` (a cache entry made under a
    temporary name).  Returns the path of `bin/verilator` under `prefix`.
    """
    src, prefix, log_path = Path(src).resolve(), Path(prefix).resolve(), Path(log_path)
    install_dir = Path(install_dir).resolve() if install_dir else prefix
    version = source_version(src)
    start_log(log_path, f"Verilator {version} from {src}, prefix {prefix}")
    start = time.monotonic()
    own_work = work_dir is None
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="verilator-build-"))
    try:
        work.mkdir(parents=True, exist_ok=True)
        build = work / "src"
        shutil.copytree(src, build, symlinks=True)
        env = _build_env({
            # The version string comes from git or the date otherwise; neither is wanted.
            "VERILATOR_SRC_VERSION": version,
            "GIT_CEILING_DIRECTORIES": str(work),  # keep git away from any enclosing repo
        })  # fmt: skip
        flags = f"-ffile-prefix-map={build}=verilator"  # no build paths in debug info
        _run(["autoconf"], log_path, cwd=build, env=env)
        _run(["./configure", f"--prefix={prefix}", f"CXXFLAGS={flags}", f"CFLAGS={flags}"],
             log_path, cwd=build, env=env)  # fmt: skip
        # Only the optimised verilator_bin: the default build also makes a debug build
        # of the whole compiler, which doubles the build time and is not used here.
        # The coverage tool exists only as a debug build; it is one small file.
        _run(["make", f"-j{_jobs(jobs)}", "-C", "src", "opt", f"../bin/{_COVERAGE_BIN}"],
             log_path, cwd=build, env=env)  # fmt: skip
        install = ["make", "install-all", f"VL_INST_PUBLIC_BIN_FILES={' '.join(_BINARIES)}"]
        if install_dir == prefix:
            _run(install, log_path, cwd=build, env=env)
        else:
            stage = work / "stage"
            _run([*install, f"DESTDIR={stage}"], log_path, cwd=build, env=env)
            staged = stage / prefix.relative_to(prefix.anchor)
            install_dir.mkdir(parents=True, exist_ok=True)
            for item in staged.iterdir():
                os.rename(item, install_dir / item.name)
    finally:
        if own_work:
            cache.remove_tree(work)
    exe = install_dir / "bin" / "verilator"
    if not exe.is_file():
        raise VerilatorBuildError(f"Verilator installed no {exe}", log_path=log_path)
    _finish_log(log_path, "Verilator build", start)
    return prefix / "bin" / "verilator"


# ---------------------------------------------------------------------------
# The cluster model


def build_cluster_model(
    tb_src: Path,
    tb: Testbench,
    verilator_prefix: Path,
    out_dir: Path,
    *,
    log_path: Path,
    jobs: int | None = None,
    keep_objects: bool = False,
) -> Path:
    """Verilate the cluster testbench in `tb_src` and compile its simulator into `out_dir`.

    Returns the simulator executable, `out_dir`/Vtb_top_verilator.  The generated
    C++ and objects (`out_dir`/obj_dir) are removed unless `keep_objects`.
    """
    tb_src, out_dir = Path(tb_src).resolve(), Path(out_dir).resolve()
    verilator = Path(verilator_prefix).resolve() / "bin" / "verilator"
    if not verilator.is_file():
        raise VerilatorBuildError(f"no Verilator at {verilator}")
    for part in (*tb.sources, tb.main, tb.manifest, tb.rtl_dir):
        if not (tb_src / part).exists():
            hint = " (the cv32e40p submodule belongs there)" if part.startswith("cv32e40p") else ""
            raise VerilatorBuildError(f"cluster testbench at {tb_src} lacks {part}{hint}")
    start_log(log_path, f"cluster model from {tb_src} with {verilator}")
    start = time.monotonic()
    obj_dir = out_dir / "obj_dir"
    out_dir.mkdir(parents=True, exist_ok=True)
    # Run from the testbench with relative Verilog paths, so messages the model
    # prints name tb/... and cv32e40p/rtl/... rather than a cache path.
    env = _build_env({"DESIGN_RTL_DIR": tb.rtl_dir})
    _run(
        [
            verilator, *tb.flags(), *tb.sources, "-f", tb.manifest, tb_src / tb.main,
            "--Mdir", obj_dir, "-CFLAGS", " ".join(tb.cflags),
        ],
        log_path, cwd=tb_src, env=env,
    )  # fmt: skip
    _run(["make", "-C", obj_dir, "-f", f"{tb.executable}.mk", f"-j{_jobs(jobs)}"],
         log_path, cwd=out_dir, env=env)  # fmt: skip
    built = obj_dir / tb.executable
    if not built.is_file():
        raise VerilatorBuildError(f"the model build made no {built}", log_path=log_path)
    exe = out_dir / tb.executable
    os.replace(built, exe)
    if not keep_objects:
        cache.remove_tree(obj_dir)
    _finish_log(log_path, "cluster model build", start)
    return exe


# ---------------------------------------------------------------------------
# Cached builds


def _ensure(fetcher: Fetcher, final: Path, make: Callable[[Path], None], what: str) -> None:
    def wait() -> None:
        fetcher.config.log(f"waiting for another process to build {what}")

    cache.ensure_dir(final, make, lock_dir=fetcher.root / "locks", on_wait=wait)


def verilator_entry(fetcher: Fetcher) -> Path:
    """The cache directory of the Verilator build (installed or not)."""
    parts = {"verilator": fetcher.lock.input("verilator").key(), "recipe": VERILATOR_RECIPE}
    key = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
    return fetcher.root / "tools" / f"verilator-{key}"


def cluster_simulator_entry(fetcher: Fetcher, tb: Testbench) -> Path:
    """The cache directory of the cluster simulator (built or not)."""
    parts = {
        tb.input: fetcher.lock.input(tb.input).key(),
        "verilator": verilator_entry(fetcher).name,  # its pin and its build recipe
        "recipe": tb.recipe(),
    }
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return fetcher.root / "tools" / f"cluster4-sim-{key}"


def _describe(fetcher: Fetcher, name: str) -> str:
    inp = fetcher.lock.input(name)
    return inp.tag or (inp.commit or "")[:12]


def verilator(
    fetcher: Fetcher,
    log_dir: Path,
    *,
    jobs: int | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """The `verilator` executable of the pinned Verilator, built into the cache if needed."""
    final = fetcher.located(verilator_entry(fetcher))
    exe = final / "bin" / "verilator"
    if exe.is_file():
        return exe
    src = fetcher.path("verilator")

    def make(tmp: Path) -> None:
        log(f"building Verilator {_describe(fetcher, 'verilator')} (about 7 min)...")
        build_verilator(src, final, log_path=Path(log_dir) / "verilator-build.log", jobs=jobs,
                        install_dir=tmp, work_dir=tmp / ".build")  # fmt: skip
        cache.remove_tree(tmp / ".build")

    _ensure(fetcher, final, make, "Verilator")
    if not exe.is_file():
        raise VerilatorBuildError(f"the cached Verilator {final} has no bin/verilator")
    return exe


def cluster_simulator(
    fetcher: Fetcher,
    tb: Testbench,
    log_dir: Path,
    *,
    jobs: int | None = None,
    log: Callable[[str], None] = print,
) -> Path:
    """The cluster simulator executable, built into the cache if needed."""
    final = fetcher.located(cluster_simulator_entry(fetcher, tb))
    exe = final / tb.executable
    if exe.is_file():
        return exe
    tb_src = fetcher.path(tb.input)
    prefix = verilator(fetcher, log_dir, jobs=jobs, log=log).parent.parent

    def make(tmp: Path) -> None:
        version = _describe(fetcher, "verilator")
        log(f"building the cluster simulator with Verilator {version} (about 1 min)...")
        build_cluster_model(tb_src, tb, prefix, tmp, jobs=jobs,
                            log_path=Path(log_dir) / "cluster4-sim-build.log")

    _ensure(fetcher, final, make, "the cluster simulator")
    if not exe.is_file():
        raise VerilatorBuildError(f"the cached simulator {final} has no {tb.executable}")
    return exe
