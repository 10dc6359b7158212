"""MLIR with dynamic shapes specialised, inside the build, to the shapes of the image's
inputs.

Adds env.MlirSpecialize(model, size, mlir, folder) -> the MLIR whose entry takes the
shapes of the inputs at that size.  The logic is in ireerv.formats.importer_mlir and
mlir_reflect.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import importer_mlir, mlir_reflect
from ireerv.formats.base import Model, ModelError
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files


def _specialize(target, source, env):
    try:
        importer_mlir.specialize(env.GetFetcher().path("iree-compiler"), Path(str(source[0])),
                                 env["_MODEL"].function, env["_SHAPES"], Path(str(target[0])))
    except (ModelError, FetchError) as err:
        build_error(err)


def mlir_specialize(env, model: Model, size: int | None, mlir, folder: str) -> list:
    shapes = importer_mlir.input_shapes(model, size)
    key = env.Value(f"{model.function} {shapes} {identity.compiler(env['LOCK'])}")
    return env.Command(f"{folder}/model_static.mlir",
                       [mlir, key, *module_files(importer_mlir, mlir_reflect)],
                       short_action(_specialize, "SHAPES"), _MODEL=model, _SHAPES=shapes)


def generate(env) -> None:
    env.Tool("ireerv_setup")  # the lock, the fetcher and the toolchain
    env.AddMethod(mlir_specialize, "MlirSpecialize")


def exists(env) -> bool:
    return True
