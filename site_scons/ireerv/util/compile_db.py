"""compile_commands.json: the compile commands of every C file a build compiles, for
editors and language servers (clangd, VS Code, CLion)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from ireerv.util.files import atomic_write


def merge(databases: Iterable[Path], out: Path) -> int:
    """One database from several (SCons's and CMake's), by file; returns the entry count."""
    entries = []
    for path in databases:
        if path.is_file():
            entries += json.loads(path.read_text())
    entries.sort(key=lambda e: (e["file"], e.get("output", "")))
    atomic_write(out, json.dumps(entries, indent=1) + "\n")
    return len(entries)
