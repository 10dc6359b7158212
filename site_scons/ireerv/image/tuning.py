"""Which tuning an image compiles with: `<model folder>/tuning/<board>.mlir` (`scons tune`).

A model folder has one, wherever it is (models/<name> or a folder given as MODEL); a model
given as a single file has none.  Which folder MODEL names is decided once, by
formats.load_model (Model.folder).  A board may borrow another's tunings (board.toml
`tunings_from`: Board.tuning_boards): an image merges the board's own tuning and the
other board's, its own winning where both configure a dispatch."""

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
    """The tuned configurations for `board` that come first, when the model has any: its
    own, else those of the board it borrows tunings from."""
    found = files(model, board)
    return found[0] if found else None


def files(model: Model, board: Board) -> tuple[Path, ...]:
    """Every tuning an image for `board` merges, first the one that wins: the board's own,
    then the board's it borrows from (its matchers take what the own file leaves)."""
    return tuple(found for name in board.tuning_boards
                 if (found := _existing(model, f"{name}.mlir")) is not None)


def borrowed(tuning: Path, board: Board) -> bool:
    """Whether a tuning file files() gave is another board's, not `board`'s own."""
    return tuning.stem != board.name


def used_by(model: Model, board: Board, tuning: str = TUNED) -> tuple[Path, ...]:
    """The tuning files an image uses (files()), with one hart or several: none with
    TUNING=none."""
    return files(model, board) if tuning == TUNED else ()


def record_path(model: Model, board: Board) -> Path | None:
    """The tune's record of `board`'s own configurations: none for a tuning written by hand
    (or only borrowed: its figures are the other board's)."""
    return _existing(model, f"{board.name}.json") if _existing(model, f"{board.name}.mlir") \
        else None
