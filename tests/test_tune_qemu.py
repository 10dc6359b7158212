"""scons tune for real on qemu-virt: a model folder outside models/ is tuned into its own
tuning/ folder, and Ctrl-C stops a tune at once without storing the rounds it cut short
(the cluster's tunes: tests/test_tune_cluster.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from scons_helpers import scons, scons_interrupted

NEEDS_INPUTS = ("toolchain", "iree", "flatcc", "iree-compiler")


@pytest.mark.upstream
def test_an_interrupted_tune_stores_nothing_it_cut_short(tree: Path, tmp_path: Path) -> None:
    model = tmp_path / "mine"
    shutil.copytree(tree / "models/qmatmul64", model)
    tune = ("tune", f"MODEL={model}", "BOARD=qemu-virt", "BUDGET=2")
    status, out = scons_interrupted(tree, *tune, after="tune: untuned")
    assert status != 0 and "Traceback" not in out, out
    assert "tune: interrupted; no tuning file written" in out, out
    assert "(failed)" not in out and "tune: round" not in out, out
    assert not (model / "tuning").exists()
    rounds = json.loads((tree / "build/tune/mine-qemu-virt/rounds.json").read_text())
    assert [r["passed"] for r in rounds.values()] == [True]  # the untuned round alone

    done = scons(tree, *tune).stdout  # goes on from the untuned round
    assert "(failed)" not in done and f"tune: {model}/tuning/qemu-virt.mlir" in done, done
    assert json.loads((model / "tuning/qemu-virt.json").read_text())["model"] == "mine"
    assert not (tree / "models/qmatmul64/tuning").exists()  # its namesake is untouched
    # The folder's tuning file is merged into its image's kernel library.
    dry = scons(tree, "-n", "image", f"MODEL={model}", "BOARD=qemu-virt").stdout
    assert "tiles.mlir" in dry, dry
