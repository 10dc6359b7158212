"""MLIR as importers write it, lowered inside the build.

Adds env.MlirLower(model) -> the lowered MLIR node (linalg on builtin tensors, the entry
renamed to a C identifier).  The logic is in ireerv.image.mlir_models and mlir_reflect.
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


def generate(env) -> None:
    env.AddMethod(mlir_lower, "MlirLower")


def exists(env) -> bool:
    return True
