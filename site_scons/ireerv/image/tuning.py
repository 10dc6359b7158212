"""Which tuning an image compiles with: `models/<name>/tuning/<board>.mlir` (`scons tune`)."""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import MODELS_DIR

FOLDER = "tuning"
TUNED, UNTUNED = "model", "none"  # TUNING's values: the model's tuning file, or none
MERGED = "tiles.mlir"  # in the image's folder: the board's library with the tuning merged in


def folder(model_arg: str) -> Path | None:
    """The tuning folder of a model named by MODEL (a path given as MODEL has none)."""
    if not model_arg or "/" in model_arg or not (MODELS_DIR / model_arg / "model.toml").is_file():
        return None
    return MODELS_DIR / model_arg / FOLDER


def spec_path(model_arg: str, board: str) -> Path | None:
    """The tuned configurations for `board`, when the model has them."""
    found = folder(model_arg)
    return found / f"{board}.mlir" if found and (found / f"{board}.mlir").is_file() else None


def used_by(model_arg: str, board: str, tuning: str = TUNED) -> Path | None:
    """The tuning file an image uses, with one hart or several: none with TUNING=none."""
    return spec_path(model_arg, board) if tuning == TUNED else None


def record_path(model_arg: str, board: str) -> Path | None:
    found = folder(model_arg)
    return found / f"{board}.json" if found else None
