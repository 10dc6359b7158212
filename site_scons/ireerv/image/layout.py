"""Where an image's and a runtime's files go in the build tree, and what identifies them."""

from __future__ import annotations

import hashlib

from ireerv.boards import Board
from ireerv.formats.base import Model, ModelError
from ireerv.image.key import DEFAULT_SHAPES, ImageKey, env_values
from ireerv.paths import BUILD


def check_harts(board: Board, runtime: str, harts: int) -> None:
    """HARTS is 1 .. the board's hart count (IREE and the plain C version alike)."""
    if not 1 <= harts <= board.harts:
        raise ModelError(f"HARTS must be 1 to {board.harts} on board {board.name!r}, not {harts}")


def specializes(model: Model, runtime: str, shapes: str) -> bool:
    """Whether the image's model is compiled for its inputs' shapes (importer_mlir.specialize)."""
    return runtime == "iree" and model.is_dynamic and shapes == "static"


def image_key(env, board: Board, model: Model, size: int | None, runtime: str, harts: int,
              model_arg: str = "") -> ImageKey:
    """The key of an image built in `env` (SHAPES counts only where it applies)."""
    shapes = env.get("SHAPES", DEFAULT_SHAPES)
    if runtime != "iree" or not model.is_dynamic:
        shapes = DEFAULT_SHAPES
    return ImageKey.of(
        model=model_arg or model.name, variant=model.variant(size), board=board.name,
        placement=board.placement_name, size=model.resolve_size(size),
        default_size=model.resolve_size(None),
        values=env_values(env, RUNTIME=runtime, HARTS=harts, SHAPES=shapes))


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
