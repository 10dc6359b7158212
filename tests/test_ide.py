"""IDE integration: build/compile_commands.json names every C file a build compiles, and
each entry's command compiles its file."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from scons_helpers import scons

NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)


@pytest.mark.upstream
@pytest.mark.own_builds  # recompiles its objects by hand: they must be its own
def test_compile_commands_cover_the_build_and_compile(tree: Path) -> None:
    scons(tree, "image", "MODEL=matmul", "BOARD=qemu-virt")
    entries = json.loads((tree / "build/compile_commands.json").read_text())
    files = {e["file"] for e in entries}
    for own in ("bsp/common/start.S", "runtime/runner/runner.c", "softfloat/fmaf.c",
                "build/qemu-virt/matmul-4/model_module.c"):
        assert own in files, own
    assert any(f.endswith("iree/vm/context.c") for f in files)  # CMake's, merged in
    ours = [e for e in entries if not Path(e["file"]).is_absolute()
            or "runtime/src/iree/vm/context.c" in e["file"]]
    for entry in ours:
        folder = Path(entry["directory"])
        assert (folder / entry["file"]).is_file(), entry["file"]
        command = entry.get("command") or shlex.join(entry["arguments"])
        proc = subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True)
        assert proc.returncode == 0, f"{entry['file']}: {proc.stderr[-2000:]}"
    again = scons(tree, "image", "MODEL=matmul", "BOARD=qemu-virt").stdout
    assert "is up to date" in again and "compile" not in again.lower()  # a quiet no-op
