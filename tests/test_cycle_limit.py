"""MAXCYCLES: a limit only a board whose simulator counts cycles and stops at a count
can keep; anywhere else it is refused with one line, never silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from scons_helpers import scons

from ireerv import simulators
from ireerv.boards import load_board

REFUSAL = ("MAXCYCLES applies to boards with a cycle-accurate simulator; qemu-virt has none "
           "(use TIMEOUT for a wall-clock limit)")


def test_scons_refuses_maxcycles_on_qemu(tree: Path) -> None:
    proc = scons(tree, "run", "BOARD=qemu-virt", "MAXCYCLES=10", check=False)
    printed = proc.stdout + proc.stderr
    assert proc.returncode == 2, printed
    assert "Traceback" not in printed
    assert proc.stderr.strip().splitlines() == [f"scons: *** {REFUSAL}  Stop."]
    assert not (tree / "build" / "qemu-virt").exists()  # refused before anything is built


def test_the_refusal_follows_the_simulator_kind() -> None:
    qemu = load_board("qemu-virt")
    with pytest.raises(simulators.SettingsError) as err:
        simulators.check_cycle_limit(qemu.simulator, qemu.name)
    assert str(err.value) == REFUSAL
    cluster = load_board("cluster4")
    simulators.check_cycle_limit(cluster.simulator, cluster.name)

