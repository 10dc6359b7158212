"""Package inputs: Debian packages through `apt-get download`, wheels through `pip download`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ireerv.inputs.fetch_common import (
    FetchContext,
    FetchError,
)
from ireerv.inputs.lock import Input
from ireerv.util.files import sha256_file


def _run_tool(
    fetcher: FetchContext, inp: Input, cmd: list[str], cwd: Path, env: dict[str, str], hint: str
) -> None:
    # Verbose: the tool talks to the terminal; else its output is kept for the error.
    out = None if fetcher.config.verbose else subprocess.PIPE
    err = None if fetcher.config.verbose else subprocess.STDOUT
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, text=True, stdout=out, stderr=err)
    except FileNotFoundError:
        raise FetchError(f"input '{inp.name}': `{cmd[0]}` not found; {hint}") from None
    if proc.returncode != 0:
        text = (proc.stdout or "").strip()
        detail = f":\n{text}" if text else ""
        raise FetchError(f"input '{inp.name}': `{' '.join(cmd)}` failed{detail}\n{hint}")


def _single(fetcher: FetchContext, inp: Input, tmp: Path, pattern: str, tool: str) -> Path:
    found = sorted(tmp.glob(pattern))
    if len(found) != 1:
        names = ", ".join(f.name for f in found) or "nothing"
        raise FetchError(f"input '{inp.name}': {tool} left {names}, not one {pattern} file")
    return found[0]


def fetch_deb(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    if fetcher.config.offline:
        raise fetcher._offline_error(inp, "a machine whose apt sources carry the package")
    spec = f"{inp.package}={inp.version}"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    hint = (
        f"Downloading Debian packages needs apt-get and apt sources that carry {spec} "
        "(run `apt-get update` first); on other systems fill the cache on a Debian machine "
        "and copy it."
    )
    fetcher.config.log(f"{inp.name}: apt-get download {spec}")
    _run_tool(fetcher, inp, ["apt-get", "download", spec], tmp, env, hint)
    deb = _single(fetcher, inp, tmp, "*.deb", "apt-get download")
    actual = sha256_file(deb)
    if actual != inp.sha256:
        deb.unlink()
        raise FetchError(
            f"input '{inp.name}': {deb.name} has sha256 {actual}, but the lock pins "
            f"{inp.sha256}; the file was deleted. The package archive serves a different "
            f"file for {spec}: check it and update 'sha256' in {fetcher.lock.path}."
        )


def fetch_wheel(fetcher: FetchContext, inp: Input, tmp: Path) -> None:
    if fetcher.config.offline:
        hint = "pip's own configuration for a local index (PIP_FIND_LINKS)"
        raise fetcher._offline_error(inp, hint)
    spec = f"{inp.package}=={inp.version}"
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "-d", str(tmp), spec,
    ]  # fmt: skip
    fetcher.config.log(f"{inp.name}: pip download {spec}")
    hint = f"Check that {spec} has a wheel for this platform and that pip can reach its index."
    _run_tool(fetcher, inp, cmd, tmp, dict(os.environ), hint)
    wheel = _single(fetcher, inp, tmp, "*.whl", "pip download")
    actual = sha256_file(wheel)
    expected = inp.files.get(wheel.name)
    if expected is None:
        wheel.unlink()
        raise FetchError(
            f"input '{inp.name}': no pinned hash for this platform's wheel {wheel.name} "
            f"(its sha256 is {actual}); after checking it against the package index, add it to "
            f"'files' in [inputs.{inp.name}] of {fetcher.lock.path}."
        )
    if actual != expected:
        wheel.unlink()
        raise FetchError(
            f"input '{inp.name}': {wheel.name} has sha256 {actual}, but the lock pins "
            f"{expected}; the file was deleted. Check the wheel and update 'files' in "
            f"{fetcher.lock.path}."
        )
