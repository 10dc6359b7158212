"""scons debug: gdb-multiarch on the image in QEMU, stopped at main; a batch session breaks
in a dispatch and prints an argument."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import needs_qemu, needs_tool
from scons_helpers import scons

NEEDS_INPUTS = ("iree", "flatcc", "iree-compiler")  # for the `tree` fixture (conftest.py)
SCRIPT = """break-layer matmul_like
continue
info symbol $pc
print/x $a1
print *(unsigned int *)$a1
"""


@pytest.mark.upstream
@needs_qemu
@needs_tool("gdb-multiarch", "gdb-multiarch")
def test_a_batch_session_breaks_in_a_dispatch(tree: Path, tmp_path: Path) -> None:
    script = tmp_path / "session.gdb"
    script.write_text(SCRIPT)
    out = scons(tree, "debug", "MODEL=matmul", "BOARD=qemu-virt", f"GDB_SCRIPT={script}").stdout
    assert "hit Breakpoint 1, main () at runtime/runner/runner.c" in out, out
    assert "hit Breakpoint 2, matmul_f32f32f32_dispatch_0_matmul_like_4x4x4_f32" in out, out
    assert "$1 = 0x" in out and "$2 = 1" in out, out  # the dispatch state; its first word


@pytest.mark.upstream
def test_the_cluster_says_why_it_cannot_be_debugged(tree: Path) -> None:
    proc = scons(tree, "debug", "MODEL=matmul", "BOARD=cluster4", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "the cluster testbench has no debug interface" in proc.stderr
    assert "BOARD=qemu-virt" in proc.stderr
