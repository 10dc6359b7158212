"""The build steps of an ONNX model (the format's import step): for a model quantized by
the build, the quantized .onnx and its report first; then the MLIR, imported by IREE's
importer of the pinned compiler (the prepared .onnx beside it declared too)."""

from __future__ import annotations

from pathlib import Path

from ireerv.formats import onnx_import, onnx_quantize
from ireerv.formats.base import Model
from ireerv.formats.onnx_import import OnnxError
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files


def _import(target, source, env):
    try:
        onnx_import.import_model(env["_ONNX_SOURCE"], env.GetFetcher().path("iree-compiler"),
                                 Path(str(target[0])))
    except (OnnxError, FetchError) as err:
        build_error(err)


def _quantize(target, source, env):
    model = env["_QUANTIZE_MODEL"]
    origin = model.origin
    try:
        data = onnx_quantize.samples(model.inputs, [i.name for i in origin.inputs],
                                     origin.calibration)
        onnx_quantize.write(origin.float_path, Path(str(target[0])), Path(str(target[1])),
                            data)
    except Exception as err:  # quantize_static's own failures: the model, said in one line
        build_error(f"{origin.float_path}: quantize_static failed: {type(err).__name__}: "
                    f"{' '.join(str(err).split())[:300]}")


def quantize_step(env, model: Model) -> list:
    """The quantized .onnx of a model quantized by the build, and its report."""
    from ireerv.reference import onnx_runtime

    origin = model.origin
    calibration = (onnx_quantize.calibration_files(origin.calibration)
                   if origin.calibration else [])
    # What the bytes depend on: the float model, the samples and the quantizer.
    key = env.Value(f"{onnx_runtime.runtime_identity()} samples "
                    f"{[(s.dtype, s.shape, sorted(s.generator.items())) for s in model.inputs]} "
                    f"{onnx_quantize.SAMPLES} {onnx_quantize.SEED_STEP}")
    return env.Command([str(origin.path), str(origin.report)],
                       [str(origin.float_path), *map(str, model.data_files),
                        *map(str, calibration), key, *module_files(onnx_quantize)],
                       short_action(_quantize, "QUANTIZE"), _QUANTIZE_MODEL=model)


def import_step(env, model: Model) -> list:
    """The MLIR of an ONNX model (the .onnx quantized first where the build quantizes it)."""
    source = model.origin  # OnnxSource
    if source.float_path is not None:
        quantize_step(env, model)
    # What the import depends on beyond the file: the fixed dimensions, the opset
    # it is raised to, the lowering, and the importer (the compiler wheel).
    key = env.Value(f"{sorted(source.dims)} opset {onnx_import.TARGET_OPSET} "
                    f"{onnx_import.LOWERING} {identity.compiler(env['LOCK'])}")
    # The import's logic is a source too: a change to any of its modules re-imports.
    # Its external data files are the model as much as the file is.
    return env.Command([str(p) for p in onnx_import.outputs(model.mlir)],
                       [str(source.path), *map(str, model.data_files), key,
                        *module_files(onnx_import)],
                       short_action(_import, "IMPORT"), _ONNX_SOURCE=source)
