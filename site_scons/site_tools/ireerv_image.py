"""One model's image for one board: the `image` target.

Adds env.ModelImage(board, model, size, runtime) -> Image and env.IreeCompilePath(), with
the IreeCompile builder they use.  The recipe is ireerv.image.recipe.  Needs the
ireerv_setup tool.
"""

from __future__ import annotations

from ireerv import targets
from ireerv.image import recipe
from ireerv.targets import Target


def generate(env) -> None:
    env.Tool("ireerv_setup")  # the lock, the fetcher and the toolchain
    env.Append(BUILDERS={"IreeCompile": env.Builder(
        action=env.Action(recipe.compile_action,
                          strfunction=lambda target, source, env: f"IREE    {source[0]}",
                          varlist=["IREE_FLAGS", "IREE_COMPILER_ID"]),
        emitter=recipe.compile_emitter)})
    env.Tool("ireerv_mlir_import")  # MLIR specialised to the inputs' shapes
    env.AddMethod(recipe.model_image, "ModelImage")
    env.AddMethod(recipe.iree_compile_path, "IreeCompilePath")
    env.Tool("ireerv_board")  # each board's cross environment and BSP
    env.Tool("ireerv_softfloat")
    env.Tool("ireerv_runtime")  # IREE's bare-metal runtime for each board's flags
    env.Tool("ireerv_trimmed_hal")  # its HAL module and device, per image
    env.Tool("ireerv_hart_check")  # may harts 1.. run the kernels from their scratchpads?
    targets.declare(
        env,
        Target("image", "build the ELF image of MODEL for BOARD, with .hex, .map and .dis "
               "(default)", "build", lambda env, request: request.image.outputs),
    )


def exists(env) -> bool:
    return True
