"""A board added as a user adds one: a folder under bsp/ and nothing else.  Copies of both
boards under new names, each with its own [sharing] figures, build images with several
harts and staged constants; the QEMU one runs and passes.  Nothing outside the new folders
changes, and nothing of the boards they were copied from leaks into them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import needs_qemu
from scons_helpers import scons

NEEDS_INPUTS = ("toolchain", "iree", "iree-compiler")  # for the `tree` fixture (conftest.py)


def add_board(tree: Path, original: str, name: str, copy_in_cycles: int) -> Path:
    """bsp/<name>/: a copy of bsp/<original>/ under its own name, playing no role (the
    original keeps its own), with copy-in costs of its own."""
    folder = tree / "bsp" / name
    shutil.copytree(tree / "bsp" / original, folder)
    text = (folder / "board.toml").read_text()
    text = text.replace(f'name = "{original}"', f'name = "{name}"', 1)
    text = re.sub(r"^roles = .*$", "roles = []", text, count=1, flags=re.M)
    text = re.sub(r"^copy_in_cycles = \d+", f"copy_in_cycles = {copy_in_cycles}", text,
                  count=1, flags=re.M)
    (folder / "board.toml").write_text(text)
    return folder


def config(tree: Path, build_name: str) -> dict[str, str]:
    text = (tree / "build" / build_name / "include" / "bsp_config.h").read_text()
    return dict(re.findall(r"^#define (\w+) (.+)$", text, re.M))


def changes(tree: Path) -> set[str]:
    """The tree's paths that differ from its commit, build/ left out."""
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=tree, capture_output=True, text=True, check=True).stdout
    return {line[3:] for line in status.splitlines() if not line[3:].startswith("build/")}


@pytest.mark.upstream
@needs_qemu
def test_a_third_board_needs_only_its_folder(tree: Path) -> None:
    before = changes(tree)
    add_board(tree, "cluster4", "cluster4-copy", 31)
    add_board(tree, "qemu-virt", "qemu-copy", 29)
    added = changes(tree) - before
    assert added and all(p.startswith(("bsp/cluster4-copy/", "bsp/qemu-copy/")) for p in added)

    # Several harts, its constants staged: the cost model and the copy are its own.
    scons(tree, "image", "MODEL=matmul", "SIZE=32", "BOARD=cluster4-copy", "HARTS=auto",
          "PLACEMENT=large")
    assert list((tree / "build/cluster4-copy.large").glob("matmul-32*/image.elf"))
    defines = config(tree, "cluster4-copy.large")
    assert defines["BSP_BOARD_NAME"] == '"cluster4-copy"'
    assert defines["BSP_SHARING_COPY_IN_CYCLES"] == "31"
    assert defines["BSP_STAGED_CONSTANTS"] == "1"

    out = scons(tree, "run", "MODEL=matmul", "SIZE=32", "BOARD=qemu-copy", "HARTS=auto").stdout
    assert "PASS" in out
    assert config(tree, "qemu-copy")["BSP_SHARING_COPY_IN_CYCLES"] == "29"
