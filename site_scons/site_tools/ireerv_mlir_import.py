"""MLIR rewritten inside the build: as importers write it, lowered; with dynamic shapes,
specialised to the shapes of the image's inputs.

Adds env.MlirLower(model) -> the lowered MLIR node (linalg on builtin tensors, the entry
renamed to a C identifier) and env.MlirSpecialize(model, size, mlir, folder) -> the MLIR
whose entry takes the shapes of the inputs at that size.  The logic is in
ireerv.image.mlir_models and mlir_reflect.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.image import mlir_models, mlir_reflect
from ireerv.image.models import Model, ModelError
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.util.scons import build_error, short_action


def _lower(target, source, env):
    try:
        mlir_models.lower(env.GetFetcher().path("iree-compiler"), env["_MODEL"],
                          Path(str(target[0])))
    except (ModelError, FetchError) as err:
        build_error(err)


def mlir_lower(env, model: Model) -> list:
    # Beyond the file: the entry and its C name, the lowering, the compiler, and the logic.
    key = env.Value(f"{model.importer_function} {model.function} {mlir_reflect.LOWERING} "
                    f"{identity.compiler(env['LOCK'])}")
    return env.Command(str(model.mlir), [str(model.importer_mlir), key, mlir_models.__file__,
                                         mlir_reflect.__file__],
                       short_action(_lower, "LOWER"), _MODEL=model)


def _specialize(target, source, env):
    try:
        mlir_models.specialize(env.GetFetcher().path("iree-compiler"), Path(str(source[0])),
                               env["_MODEL"].function, env["_SHAPES"], Path(str(target[0])))
    except (ModelError, FetchError) as err:
        build_error(err)


def mlir_specialize(env, model: Model, size: int | None, mlir, folder: str) -> list:
    shapes = mlir_models.input_shapes(model, size)
    key = env.Value(f"{model.function} {shapes} {identity.compiler(env['LOCK'])}")
    return env.Command(f"{folder}/model_static.mlir",
                       [mlir, key, mlir_models.__file__, mlir_reflect.__file__],
                       short_action(_specialize, "SHAPES"), _MODEL=model, _SHAPES=shapes)


def generate(env) -> None:
    env.AddMethod(mlir_lower, "MlirLower")
    env.AddMethod(mlir_specialize, "MlirSpecialize")


def exists(env) -> bool:
    return True
