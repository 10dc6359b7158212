"""Where an image's files go in the build tree, and what identifies them: its key, its harts."""

from __future__ import annotations

from ireerv.boards import Board
from ireerv.formats.base import Model, ModelError
from ireerv.image import tuning as image_tuning
from ireerv.image.key import DEFAULT_HAL, DEFAULT_SHAPES, ImageKey, default_harts, env_values
from ireerv.image.model_build import ModelBuild


def check_harts(board: Board, runtime: str, harts: int) -> None:
    """HARTS is 1 .. the board's hart count (IREE and the plain C version alike)."""
    if not 1 <= harts <= board.harts:
        raise ModelError(f"HARTS must be 1 to {board.harts} on board {board.name!r}, not {harts}")


AUTO = "auto"  # HARTS=auto: each dispatch chooses how many of the board's harts it uses


def parse_harts(value: str | int | None, board: Board,
                runtime: str = "iree") -> tuple[int, bool]:
    """HARTS as given (none: default_harts): (the harts the image's team has, whether each
    dispatch chooses how many of them it uses).  auto: all the board's harts, chosen per
    dispatch."""
    if value is None or not str(value).strip():
        value = default_harts(board, runtime)
    if str(value).strip().lower() == AUTO:
        return board.harts, True
    try:
        return int(value), False
    except ValueError:
        raise ModelError(f"HARTS must be 1 to {board.harts} or {AUTO!r} on board "
                         f"{board.name!r}, not {value!r}") from None


def specializes(model: Model, runtime: str, shapes: str) -> bool:
    """Whether the image's model is compiled for its inputs' shapes (importer_mlir.specialize)."""
    return runtime == "iree" and model.is_dynamic and shapes == "static"


def image_key(env, board: Board, build: ModelBuild, runtime: str, harts: int | str,
              tuning: str | None = None) -> ImageKey:
    """The key of an image of `build` made in `env` (SHAPES, HAL and TUNING count only
    where they apply)."""
    model = build.model
    shapes = env.get("SHAPES", DEFAULT_SHAPES)
    if runtime != "iree" or not model.is_dynamic:
        shapes = DEFAULT_SHAPES
    hal = env.get("HAL", DEFAULT_HAL)
    if runtime != "iree":
        hal = DEFAULT_HAL
    tuning = tuning or env.get("TUNING", image_tuning.TUNED)
    if runtime != "iree" or image_tuning.spec_path(model, board) is None:
        tuning = image_tuning.TUNED
    return ImageKey.of(
        model=build.arg, variant=model.variant(build.size), board=board.name,
        placement=board.placement_name, size=build.size, default_size=model.resolve_size(None),
        values=env_values(env, RUNTIME=runtime, HARTS=harts, SHAPES=shapes, HAL=hal,
                          TUNING=tuning))
