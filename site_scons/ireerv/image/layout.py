"""Where an image's and a runtime's files go in the build tree, and what identifies them."""

from __future__ import annotations

import hashlib

from ireerv.boards import Board
from ireerv.image.models import Model, ModelError
from ireerv.paths import BUILD


def image_dir(board: Board, model: Model, size: int | None, runtime: str) -> str:
    """build/<board>[.<placement>]/<model>[-<N>][-c]: sizes, placements and the plain C twin
    never overwrite each other."""
    variant = model.variant(size) if model.is_dynamic else model.name
    if runtime == "none":
        variant += "-c"
    return f"{BUILD}/{board.build_name}/{variant}"


def check_harts(board: Board, runtime: str, harts: int) -> None:
    """HARTS is 1 .. the board's hart count (IREE and the plain C version alike)."""
    if not 1 <= harts <= board.harts:
        raise ModelError(f"HARTS must be 1 to {board.harts} on board {board.name!r}, not {harts}")


def harts_suffix(harts: int) -> str:
    """Image folders of more than one hart carry the count: -h4."""
    return f"-h{harts}" if harts > 1 else ""


# SHAPES: how the build compiles a model with dynamic dimensions.  static: for the
# shapes of the inputs it is built with (SIZE), as the plain C version is; dynamic: as
# written, for any shape.  Models with static shapes are compiled as they are.
SHAPES = ("static", "dynamic")
DEFAULT_SHAPES = "static"


def specializes(model: Model, runtime: str, shapes: str) -> bool:
    """Whether the image's model is compiled for its inputs' shapes (mlir_models.specialize)."""
    return runtime == "iree" and model.is_dynamic and shapes == "static"


def shapes_suffix(model: Model, runtime: str, shapes: str) -> str:
    """Dynamic-shape models compiled as written carry -dynamic (the default has none)."""
    return "-dynamic" if runtime == "iree" and model.is_dynamic and shapes == "dynamic" else ""


def runtime_dir(board: Board, profile: str, toolchain: str = "debian") -> str:
    own = "" if toolchain == "debian" else f"-{toolchain}"  # no CMake cache shared between them
    return f"{BUILD}/runtime/{profile}-{board.march}-{board.mabi}{own}"


def inputs_digest(model: Model, size: int | None) -> str:
    """A digest of the generated inputs: generated data changes rebuild what embeds them."""
    digest = hashlib.sha256()
    for array in model.generate_inputs(size):
        digest.update(f"{array.dtype}{array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()
