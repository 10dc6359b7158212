"""Runtime sources compiled for the host, to test their logic against a rule written in
Python: a program of the given sources with warnings as errors."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import IN_CI


def build(folder: Path, name: str, sources: Sequence[Path], includes: Sequence[Path]) -> Path:
    """The program `folder/name`; skipped without a host C compiler (failed in CI)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        if IN_CI:
            pytest.fail("no host C compiler (Debian package gcc)")
        pytest.skip("no host C compiler (Debian package gcc)")
    exe = folder / name
    subprocess.run([cc, "-std=gnu11", "-O2", "-Wall", "-Werror",
                    *(f"-I{i}" for i in includes), *map(str, sources), "-o", str(exe)],
                   check=True)
    return exe
