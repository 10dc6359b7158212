"""Which tuning an image compiles with: `<model folder>/tuning/<board>.mlir` (`scons tune`).

A model folder has one, wherever it is (models/<name> or a folder given as MODEL); a model
given as a single file has none.  Which folder MODEL names is decided once, by
formats.load_model (Model.folder).  A board may borrow another's tunings for models that
have none of its own (board.toml `tunings_from`: Board.tuning_boards)."""

from __future__ import annotations

from pathlib import Path

from ireerv.boards import Board
from ireerv.formats.base import Model

FOLDER = "tuning"
TUNED, UNTUNED = "model", "none"  # TUNING's values: the model's tuning file, or none
MERGED = "tiles.mlir"  # in the image's folder: the board's library with the tuning merged in


def folder(model: Model) -> Path | None:
    """The model's tuning folder: its folder's, None for a single file."""
    return model.folder / FOLDER if model.folder is not None else None


def _existing(model: Model, name: str) -> Path | None:
    found = folder(model)
    return found / name if found and (found / name).is_file() else None


def spec_path(model: Model, board: Board) -> Path | None:
    """The tuned configurations for `board`, when the model has them: its own, else those of
    the board it borrows tunings from."""
    for name in board.tuning_boards:
        found = _existing(model, f"{name}.mlir")
        if found is not None:
            return found
    return None


def used_by(model: Model, board: Board, tuning: str = TUNED) -> Path | None:
    """The tuning file an image uses, with one hart or several: none with TUNING=none."""
    return spec_path(model, board) if tuning == TUNED else None


def record_path(model: Model, board: Board) -> Path | None:
    """The tune's record of `board`'s own configurations: none for a tuning written by hand
    or borrowed from another board (its figures are that board's)."""
    own = spec_path(model, board)
    return _existing(model, f"{board.name}.json") if own and own.stem == board.name else None
