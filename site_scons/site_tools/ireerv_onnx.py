"""ONNX models imported to MLIR inside the build.

Adds env.OnnxImport(model) -> the imported MLIR node (the prepared .onnx beside
it is declared too).  The logic is in ireerv.formats.onnx_import.
"""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import onnx_import as import_logic
from ireerv.formats.base import Model
from ireerv.formats.onnx_import import LOWERING, TARGET_OPSET, OnnxError, import_model, outputs
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files


def _emitter(target, source, env):
    mlir = target[0]
    return [mlir.dir.File(path.name) for path in outputs(Path(mlir.name))], source


def _import(target, source, env):
    try:
        import_model(env["_ONNX_SOURCE"], env.GetFetcher().path("iree-compiler"),
                     Path(str(target[0])))
    except (OnnxError, FetchError) as err:
        build_error(err)


def generate(env) -> None:
    env.Tool("ireerv_setup")  # the lock, the fetcher and the toolchain
    env.Append(BUILDERS={"OnnxImportFile": env.Builder(
        action=short_action(_import, "IMPORT"), emitter=_emitter)})
    env.AddMethod(onnx_import, "OnnxImport")


def onnx_import(env, model: Model) -> list:
    """The MLIR of an ONNX model, imported by IREE's importer of the pinned compiler."""
    source = model.origin  # OnnxSource
    # What the import depends on beyond the file: the fixed dimensions, the opset
    # it is raised to, the lowering, and the importer (the compiler wheel).
    key = env.Value(f"{sorted(source.dims)} opset {TARGET_OPSET} {LOWERING} "
                    f"{identity.compiler(env['LOCK'])}")
    # The import's logic is a source too: a change to any of its modules re-imports.
    # Its external data files are the model as much as the file is.
    return env.OnnxImportFile(str(model.mlir), [str(source.path), *map(str, model.data_files),
                                                key, *module_files(import_logic)],
                              _ONNX_SOURCE=source)


def exists(env) -> bool:
    return True
