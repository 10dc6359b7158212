"""The cross toolchain built from pinned sources (TOOLCHAIN=source).

binutils, GCC (C only, one multilib: the boards' exact ISA, so libgcc is built
with compressed instructions) and picolibc, configured by the recipe below and
`[toolchain.source]` in toolchain.lock, built into one cache entry:
    tools/toolchain-source-<key>/usr/...
The key covers the three source pins and the whole recipe (configure options),
so a changed option builds a new toolchain rather than reusing an old one.
The tools are configured for prefix /usr and installed with DESTDIR: GCC and
binutils find each other relative to their own location, so the entry does not
depend on where the cache is, and the tree has the Debian packages' layout.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ireerv.inputs import cache
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.util.buildlog import BuildError, run_logged, start_log

# Raise when the steps below change in a way the option lists do not show.
RECIPE_VERSION = 3  # 2: assembler sources' debug info without build paths; 3: LTO
TARGET = "riscv64-unknown-elf"
PREFIX = "/usr"
PICOLIBC_DIR = f"lib/picolibc/{TARGET}"  # the Debian package's layout
_SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01: nothing depends on when it was built
_ENV_DROP = (
    "CC", "CXX", "CPP", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LIBS", "MAKEFLAGS",
    "MFLAGS", "MAKELEVEL", "GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH", "C_INCLUDE_PATH",
    "CPATH", "SOURCE_DATE_EPOCH", "GIT_DIR", "GIT_WORK_TREE",
)  # fmt: skip
_FIELDS = ("binutils", "gcc", "picolibc", "arch", "abi")


class ToolchainBuildError(BuildError):
    """The source toolchain's recipe is invalid or one of its build steps failed."""


@dataclass(frozen=True)
class SourceSpec:
    """`[toolchain.source]`: which inputs hold the sources, and the target ISA."""

    binutils: str
    gcc: str
    picolibc: str
    arch: str
    abi: str

    @classmethod
    def from_lock(cls, data: Mapping[str, Any] | None, lock_path: Path) -> SourceSpec:
        where = f"{lock_path}: [toolchain.source]"
        if not isinstance(data, Mapping):
            raise ToolchainBuildError(f"{where} is missing: TOOLCHAIN=source needs it")
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise ToolchainBuildError(f"{where}: unknown field(s) {', '.join(unknown)} "
                                      f"(allowed: {', '.join(_FIELDS)})")
        for name in _FIELDS:
            if not isinstance(data.get(name), str) or not data[name]:
                raise ToolchainBuildError(f"{where}: field '{name}' must be a non-empty string")
        return cls(**{name: data[name] for name in _FIELDS})


def binutils_options() -> list[str]:
    return [
        f"--target={TARGET}", f"--prefix={PREFIX}", "--disable-nls", "--disable-werror",
        "--disable-gdb", "--disable-gdbserver", "--disable-sim", "--disable-gprofng",
        "--disable-readline", "--disable-libdecnumber", "--with-system-zlib",
        "--enable-deterministic-archives",
    ]  # fmt: skip


def gcc_options(spec: SourceSpec) -> list[str]:
    # A freestanding compiler; picolibc is built with it afterwards.  C++ only for
    # IREE's CMake, which checks for a C++ compiler (no libstdc++ is built).
    return [
        f"--target={TARGET}", f"--prefix={PREFIX}", f"--with-arch={spec.arch}",
        f"--with-abi={spec.abi}", "--disable-multilib", "--enable-languages=c,c++",
        "--with-newlib", "--without-headers", "--disable-shared", "--disable-threads",
        "--disable-nls", "--disable-libssp", "--disable-libquadmath", "--disable-libgomp",
        "--disable-libatomic", "--disable-libstdcxx", "--disable-decimal-float",
        "--disable-gcov",  # not used by the build; shorter GCC build (LTO is: release images)
        "--with-system-zlib", "--with-pkgversion=ireerv source toolchain",
    ]  # fmt: skip


def picolibc_options() -> list[str]:
    return [
        f"--prefix={PREFIX}", f"-Dspecsdir={PICOLIBC_DIR}", f"-Dincludedir={PICOLIBC_DIR}/include",
        f"-Dlibdir={PICOLIBC_DIR}/lib", "-Dmultilib=true", "-Dtests=false",
    ]  # fmt: skip


# picolibc's own cross file for this target, with the tools named by path.
_PICOLIBC_C_ARGS = ["-msave-restore"]


def recipe(spec: SourceSpec) -> dict[str, Any]:
    """Everything about the build that is not a source pin; part of the cache key."""
    return {
        "version": RECIPE_VERSION, "target": TARGET, "prefix": PREFIX,
        "binutils": binutils_options(), "gcc": gcc_options(spec),
        "picolibc": picolibc_options(), "picolibc_c_args": _PICOLIBC_C_ARGS,
    }  # fmt: skip


def entry(fetcher: Fetcher) -> Path:
    """The cache directory of the source toolchain (built or not)."""
    spec = SourceSpec.from_lock(fetcher.lock.toolchain.source, fetcher.lock.path)
    parts = {
        "pins": {n: fetcher.lock.input(n).key() for n in (spec.binutils, spec.gcc, spec.picolibc)},
        "recipe": recipe(spec),
    }
    canonical = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    key = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    return fetcher.root / "tools" / f"toolchain-source-{key}"


def manifest(fetcher: Fetcher, kind: str) -> dict[str, Any]:
    """The pins (and for `source` the recipe) of the TOOLCHAIN in use, for a release manifest."""
    if kind != "source":
        lock = fetcher.lock
        pins = {n: {k: v for k, v in lock.input(n).pin().items() if v}
                for n in lock.toolchain.inputs}
        return {"kind": kind, "key": lock.toolchain_key(), "pins": pins}
    spec = SourceSpec.from_lock(fetcher.lock.toolchain.source, fetcher.lock.path)
    pins = {}
    for name in (spec.binutils, spec.gcc, spec.picolibc):
        inp = fetcher.lock.input(name)
        pins[name] = {k: v for k, v in inp.pin().items() if v}
    return {"kind": "source", "entry": entry(fetcher).name, "pins": pins, "recipe": recipe(spec)}


# ---------------------------------------------------------------------------
# Building


def _env(path_dirs: Sequence[Path]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _ENV_DROP}
    env["PATH"] = os.pathsep.join([*map(str, path_dirs), env.get("PATH", "")])
    env.update({"LC_ALL": "C", "TZ": "UTC", "SOURCE_DATE_EPOCH": _SOURCE_DATE_EPOCH})
    return env


def _one(pattern: str, where: Path) -> Path:
    found = sorted(where.glob(pattern))
    if len(found) != 1:
        names = ", ".join(p.name for p in found) or "nothing"
        raise ToolchainBuildError(f"expected one {pattern} in {where}, found {names}")
    return found[0]


def _unpack_tarball(b: _Build, tarball: Path) -> Path:
    """Unpack a source tarball into the work directory; returns its top directory."""
    into = b.work / f"{tarball.name}.d"
    into.mkdir()
    # tar rather than Python's tarfile: GCC's 80 MB .tar.xz takes minutes in Python.
    b.run(["tar", "-xf", tarball, "--no-same-owner"], into, _env([]))
    tops = list(into.iterdir())
    if len(tops) != 1 or not tops[0].is_dir():
        raise ToolchainBuildError(f"{tarball.name} has no single top directory")
    return tops[0]


@dataclass
class _Build:
    """One build of the toolchain: a work directory, a stage to install into, a log."""

    work: Path
    stage: Path
    log_path: Path
    jobs: int
    progress: Callable[[str], None]

    def run(self, cmd: Sequence[str | Path], cwd: Path, env: Mapping[str, str]) -> None:
        # nice: a long build on shared cores should not slow interactive work.
        run_logged(["nice", "-n", "10", *cmd], self.log_path, cwd=cwd, env=env,
                   error=ToolchainBuildError)

    def step(self, what: str) -> float:
        self.progress(f"  toolchain: {what}")
        with self.log_path.open("a") as log:
            log.write(f"# --- {what}\n")
        return time.monotonic()

    def prefix_map(self) -> str:
        """No path of the (temporary, randomly named) build folders in the libraries' debug
        info: for C through the compiler, for assembly (libgcc's save-restore.S, picolibc's
        string routines) through the assembler, which the compiler does not tell."""
        return " ".join(path_maps({self.work: "/toolchain-build", self.stage: "/toolchain"}))

    def stage_bin(self) -> Path:
        return self.stage / PREFIX.lstrip("/") / "bin"


def path_maps(maps: Mapping[Path, str]) -> list[str]:
    """Compiler and assembler options that rewrite each folder to its name (the longest
    folder last: GCC and the assembler try the last given first)."""
    flags = []
    for folder, name in sorted(maps.items(), key=lambda kv: len(str(kv[0]))):
        flags += [f"-ffile-prefix-map={folder}={name}", f"-Wa,--debug-prefix-map={folder}={name}"]
    return flags


def _autotools(b: _Build, name: str, src: Path, options: list[str],
               make_targets: list[str], install_targets: list[str], env: dict[str, str]) -> None:
    build = b.work / f"{name}-build"
    build.mkdir()
    b.step(f"{name}: configure")
    b.run([src / "configure", *options], build, env)
    b.step(f"{name}: build")
    b.run(["make", f"-j{b.jobs}", "MAKEINFO=true", *make_targets], build, env)
    if name == "gcc":
        # Debian's source tarball lacks the documentation (non-free licence); its
        # tm.texi check would fail at install time, and no documentation is installed.
        (build / "gcc" / "s-tm-texi").touch()
    b.step(f"{name}: install")
    b.run(["make", "MAKEINFO=true", f"DESTDIR={b.stage}", *install_targets], build, env)


def _picolibc(b: _Build, src: Path, env: dict[str, str]) -> None:
    tools = b.stage_bin()
    args = [*_PICOLIBC_C_ARGS, *b.prefix_map().split(), *path_maps({src: "picolibc"})]
    cross = b.work / "cross-picolibc.txt"
    cross.write_text(
        "[binaries]\n"
        f"c = ['{tools}/{TARGET}-gcc', '-nostdlib']\n"
        + "".join(f"{t} = '{tools}/{TARGET}-{t}'\n" for t in ("ar", "as", "strip", "nm"))
        + "\n[host_machine]\nsystem = 'unknown'\ncpu_family = 'riscv64'\ncpu = 'riscv'\n"
        "endian = 'little'\n\n[properties]\n"
        f"c_args = {args!r}\nskip_sanity_check = true\n"
    )
    build = b.work / "picolibc-build"
    b.step("picolibc: configure")
    b.run(["meson", "setup", *picolibc_options(), f"--cross-file={cross}", build, src],
          b.work, env)  # fmt: skip
    b.step("picolibc: build")
    b.run(["ninja", "-C", build, f"-j{b.jobs}"], b.work, env)
    b.step("picolibc: install")
    b.run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", b.stage],
          b.work, env)  # fmt: skip


def build_toolchain(sources: Mapping[str, Path], spec: SourceSpec, stage: Path, *,
                    log_path: Path, work: Path, jobs: int | None = None,
                    progress: Callable[[str], None] = print) -> None:
    """Build binutils, GCC and picolibc from the unpacked source inputs into `stage`.

    `sources` maps "binutils", "gcc", "picolibc" to the cached input trees (the
    source packages' trees, picolibc's checkout); they are only read.
    """
    start_log(log_path, f"source toolchain for {spec.arch}/{spec.abi} into {stage}")
    start = time.monotonic()
    b = _Build(work=work, stage=stage, log_path=log_path, jobs=jobs or os.cpu_count() or 1,
               progress=progress)  # fmt: skip
    work.mkdir(parents=True, exist_ok=True)
    env = _env([b.stage_bin()])
    b.step("unpacking binutils and GCC")
    binutils_src = _unpack_tarball(b, _one("usr/src/binutils/binutils-*.tar.*",
                                           sources["binutils"]))
    gcc_src = _unpack_tarball(b, _one("usr/src/gcc-*/gcc-*.tar.*", sources["gcc"]))
    _autotools(b, "binutils", binutils_src, binutils_options(), [], ["install"], env)
    target_flags = f"-g -O2 {b.prefix_map()}"
    gcc_env = {**env, "CFLAGS_FOR_TARGET": target_flags}
    _autotools(b, "gcc", gcc_src, gcc_options(spec), ["all-gcc", "all-target-libgcc"],
               ["install-gcc", "install-target-libgcc"], gcc_env)
    _picolibc(b, Path(sources["picolibc"]), env)
    _prune(stage)
    if not (b.stage_bin() / f"{TARGET}-gcc").is_file():
        raise ToolchainBuildError(f"the build installed no {TARGET}-gcc", log_path=log_path)
    with log_path.open("a") as log:
        log.write(f"# source toolchain build took {time.monotonic() - start:.0f} s\n")


def _prune(stage: Path) -> None:
    # Documentation is not needed to build and differs with the host's tools.
    for sub in ("share/man", "share/info", "share/doc"):
        cache.remove_tree(stage / PREFIX.lstrip("/") / sub)


# ---------------------------------------------------------------------------
# The cached toolchain


def _toolchain(root: Path) -> Toolchain:
    usr = root / PREFIX.lstrip("/")
    return Toolchain(root=root, bin_dir=usr / "bin", prefix=f"{TARGET}-", libc="picolibc",
                     libc_prefix=usr)


def source_toolchain(fetcher: Fetcher, log_dir: Path, *, jobs: int | None = None,
                     log: Callable[[str], None] = print) -> Toolchain:
    """The toolchain built from the pinned sources, built into the cache if needed."""
    spec = SourceSpec.from_lock(fetcher.lock.toolchain.source, fetcher.lock.path)
    final = fetcher.located(entry(fetcher))
    gcc = final / PREFIX.lstrip("/") / "bin" / f"{TARGET}-gcc"
    if gcc.is_file():
        return _toolchain(final)
    names = {"binutils": spec.binutils, "gcc": spec.gcc, "picolibc": spec.picolibc}
    sources = {part: fetcher.path(name) for part, name in names.items()}
    log_path = Path(log_dir) / "toolchain-source-build.log"

    def make(tmp: Path) -> None:
        versions = ", ".join(f"{n} {fetcher.lock.input(n).version or fetcher.lock.input(n).tag}"
                             for n in names.values())
        log(f"building the cross toolchain from source ({versions}; 30-60 min on 2 cores), "
            f"log: {log_path}")
        build_toolchain(sources, spec, tmp, log_path=log_path, work=tmp / ".build", jobs=jobs,
                        progress=log)  # fmt: skip
        cache.remove_tree(tmp / ".build")

    def wait() -> None:
        log("waiting for another process to build the source toolchain")

    cache.ensure_dir(final, make, lock_dir=fetcher.root / "locks", on_wait=wait)
    if not gcc.is_file():
        raise ToolchainBuildError(f"the cached toolchain {final} has no {gcc.name}")
    return _toolchain(final)
