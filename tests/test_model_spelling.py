"""One model, one spelling: `kws`, `models/kws`, `./models/kws/` and its absolute path are
the same model, with the same tuning and the same image; a folder elsewhere has its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scons_helpers import scons

from ireerv.boards import load_board
from ireerv.formats import MODELS_DIR, canonical_model, load_model
from ireerv.image import tuning

NEEDS_INPUTS = ("toolchain", "iree", "flatcc", "iree-compiler")


def test_every_spelling_of_a_model_folder_is_its_name(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(MODELS_DIR.parent)
    for spelling in ("kws", "models/kws", "./models/kws/", str(MODELS_DIR / "kws"),
                     "models/../models/kws"):
        assert canonical_model(spelling) == "kws", spelling
    outside = tmp_path / "kws"
    outside.mkdir()
    assert canonical_model(str(outside)) == str(outside)
    assert canonical_model("models/kws/model.toml") == "models/kws/model.toml"  # a file


def test_a_model_folder_anywhere_has_its_own_tuning(tmp_path: Path) -> None:
    for spelling in ("qmatmul64", "models/qmatmul64", str(MODELS_DIR / "qmatmul64")):
        named = load_model(spelling)
        assert (named.arg, tuning.folder(named)) == (
            "qmatmul64", MODELS_DIR / "qmatmul64" / "tuning"), spelling
    assert tuning.folder(load_model(str(MODELS_DIR / "qmatmul64" / "model.mlir"))) is None
    folder = tmp_path / "mine"
    shutil.copytree(MODELS_DIR / "qmatmul64", folder)
    model = load_model(str(folder))
    assert (model.arg, tuning.folder(model)) == (str(folder), folder / "tuning")
    spec = folder / "tuning" / "cluster4.mlir"
    spec.parent.mkdir()
    spec.write_text("")
    cluster4, pulp = load_board("cluster4"), load_board("cluster4-pulp")
    assert tuning.used_by(model, cluster4) == (spec,)
    assert tuning.used_by(model, cluster4, tuning.UNTUNED) == ()
    # cluster4-pulp borrows cluster4's tunings (board.toml tunings_from), not its record;
    # with a tuning of its own it merges both, its own first.
    spec.with_suffix(".json").write_text("{}")
    assert tuning.used_by(model, pulp) == (spec,) and tuning.record_path(model, pulp) is None
    own = spec.with_name("cluster4-pulp.mlir")
    own.write_text("")
    assert tuning.used_by(model, pulp) == (own, spec) and tuning.spec_path(model, pulp) == own
    assert tuning.record_path(model, pulp) is None
    assert tuning.record_path(model, cluster4) == spec.with_suffix(".json")

@pytest.mark.upstream
def test_a_model_builds_the_same_however_it_is_spelled(tree: Path) -> None:
    # A tuning file for the board: only a build that finds it merges it into tiles.mlir.
    found = tree / "models/kws/tuning/cluster4.mlir"
    (tree / "models/qmatmul64/tuning").mkdir()
    (tree / "models/qmatmul64/tuning/qemu-virt.mlir").write_text(found.read_text())
    plans = {spelling: scons(tree, "-n", "image", f"MODEL={spelling}", "BOARD=qemu-virt").stdout
             for spelling in ("qmatmul64", "models/qmatmul64", "./models/qmatmul64/",
                              str(tree / "models/qmatmul64"))}
    assert "tiles.mlir" in plans["qmatmul64"], plans["qmatmul64"]
    assert len(set(plans.values())) == 1, plans
