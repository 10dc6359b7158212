"""The identity of each tool the build runs: what its outputs depend on besides their sources.

SCons sees a Python action's source files, not the tool it runs: a Builder
whose tool is the pinned iree-compile, the host runtime or a simulator lists
the tool's identity (a Value, or a construction variable in its varlist), so
a pin change rebuilds exactly what that tool produced.  Tools run by command
line (the cross GCC, objcopy) have their pinned cache path in the command, so
SCons sees their identity already.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

from ireerv.inputs.lock import Lock

COMPILER = "iree-compiler"


def compiler(lock: Lock) -> str:
    """The pinned iree-compile: package, version and the key of its wheel files."""
    inp = lock.input(COMPILER)
    return f"{inp.package}=={inp.version} {inp.key()}"


@functools.cache
def host_runtime() -> str:
    """The IREE Python runtime that runs the host reference (from requirements.txt)."""
    from importlib import metadata

    for name in ("iree-base-runtime", "iree-runtime"):
        try:
            return f"{name}=={metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return "iree-runtime: not installed"


@functools.cache
def qemu(binary: str) -> str:
    """QEMU's identity: the first line of `--version` (not pinned: it comes from the system)."""
    path = shutil.which(binary)
    if path is None:
        return f"{binary}: not found"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return f"{binary}: no version"
    return (out.stdout.strip().splitlines() or [f"{binary}: no version"])[0]
