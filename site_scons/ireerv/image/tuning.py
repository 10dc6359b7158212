"""Which tuning an image compiles with: `<model folder>/tuning/<board>.mlir` (`scons tune`).

A model folder has one, wherever it is (models/<name> or a folder given as MODEL); a model
given as a single file has none."""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import MODELS_DIR

FOLDER = "tuning"
TUNED, UNTUNED = "model", "none"  # TUNING's values: the model's tuning file, or none
MERGED = "tiles.mlir"  # in the image's folder: the board's library with the tuning merged in


def folder(model_arg: str) -> Path | None:
    """The tuning folder of the model MODEL names: its folder's, None for a single file."""
    if not model_arg:
        return None
    named = "/" not in model_arg and (MODELS_DIR / model_arg).is_dir()
    path = MODELS_DIR / model_arg if named else Path(model_arg).resolve()
    return path / FOLDER if path.is_dir() else None


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
