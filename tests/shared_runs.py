"""Runs that several test modules read, made once per test session.

One private copy of the project serves every pytest-xdist worker of the session: the
first worker that asks for a run makes it (SCons's checkout lock keeps two builds apart)
and keeps its output; any later request, from any worker, reads it back.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scons_helpers import copy_project, scons


@dataclass(frozen=True)
class Run:
    stdout: str
    folder: Path  # the image's build folder

    @property
    def record(self) -> dict[str, Any]:
        return json.loads((self.folder / "run.json").read_text())


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


class SharedRuns:
    """`scons run` in one copy of the project under `root`, once per set of arguments."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def tree(self) -> Path:
        tree = self.root / "src"
        with _locked(self.root / "tree.lock"):
            if not (tree / "SConstruct").is_file():
                copy_project(tree)
        return tree

    def once(self, *args: str) -> str:
        """The output of `scons <args>` (which must succeed), made once per session."""
        tree = self.tree
        name = hashlib.sha256("\0".join(sorted(args)).encode()).hexdigest()  # any order
        kept = self.root / "outputs" / f"{name}.txt"
        with _locked(self.root / "outputs.lock"):
            if not kept.is_file():
                out = scons(tree, *args).stdout
                kept.parent.mkdir(parents=True, exist_ok=True)
                kept.write_text(out)
        return kept.read_text()

    def run(self, *args: str) -> Run:
        """`scons run <args>`, which must pass: its output and the image's folder."""
        out = self.once("run", *args, "VERBOSE=1")
        records = [line.split()[-1] for line in out.splitlines()
                   if line.startswith("RUN") and line.endswith("/run.json")]
        assert len(records) == 1, f"no single run record named in:\n{out[-2000:]}"
        return Run(out, self.tree / Path(records[0]).parent)
