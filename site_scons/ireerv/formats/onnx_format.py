"""ONNX models as build models: an `.onnx` file, or a folder with `model.onnx`.

The entry function, its inputs and outputs come from the ONNX file; a
`model.toml` beside `model.onnx` may override the rest:

    description = "..."
    tolerance = 1e-5           # absolute tolerance of f32 outputs
    rtol = 1e-4                # relative tolerance of f32 outputs
    [dims]                     # sizes of named dynamic dimensions (a batch one is 1)
    seq = 49
    [[inputs]]                 # one per input, in order: how its values are made
    generator = { kind = "randint", low = -4, high = 5, seed = 1 }
    quantize = "int8"          # quantized by the build (onnx_quantize.py; QUANTIZE=int8 too)
    calibration = "calib"      # its samples: a folder of .npy/.npz beside model.toml
    [onnx]                     # instead of model.onnx: a float TFLite file written as ONNX
    tflite = { input = "mlperf-tiny", path = "..." }   # (tflite_onnx.py)
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ireerv.formats import onnx_diagnose, onnx_quantize, onnx_steps, onnx_test_data
from ireerv.formats.base import (
    FrameworkReference,
    InputSpec,
    InputTree,
    Model,
    ModelError,
    ModelFormat,
)
from ireerv.formats.claims import CLAIMS, has_onnx_table
from ireerv.formats.imported import imported_mlir, imported_settings, read_toml
from ireerv.formats.layer_table import onnx_layers
from ireerv.formats.onnx_import import OnnxError, external_data, function_name, read_source
from ireerv.formats.schema import MODEL_TYPES, SchemaError, _generator, _Place, _whole
from ireerv.paths import PROJECT_ROOT
from ireerv.reference import onnx_runtime

TOP_KEYS = ("description", "tolerance", "rtol", "dims", "placement", "inputs", "quantize",
            "calibration", "onnx")


def _settings(toml: Path) -> dict[str, Any]:
    """model.toml's overrides, checked; defaults for what it leaves out."""
    data = read_toml(toml)
    settings = imported_settings(toml, data, TOP_KEYS)
    dims = data.get("dims", {})
    if not isinstance(dims, dict) or not all(_whole(v) and v > 0 for v in dims.values()):
        raise _Place(toml, "top level").error(
            "dims", f"must be a table of positive whole numbers such as [dims] seq = 49, "
                    f"not {dims!r}")
    quantize = data.get("quantize", "")
    if quantize not in ("", "int8"):
        raise _Place(toml, "top level").error("quantize", f'must be "int8", not {quantize!r}')
    calibration = data.get("calibration")
    if calibration is not None and not isinstance(calibration, str):
        raise _Place(toml, "top level").error(
            "calibration", f'must be a folder of .npy/.npz files, not {calibration!r}')
    folder = toml.parent / calibration if calibration else None
    if folder is not None:
        onnx_quantize.calibration_files(folder)
    return {"dims": dims, "quantize": quantize, "calibration": folder,
            "atol_given": "tolerance" in data, **settings}


def _converted(folder: Path, input_tree: InputTree | None) -> Path:
    """The ONNX file of a folder whose model.toml's [onnx] table names a TFLite file."""
    from ireerv.formats import tflite_onnx
    from ireerv.formats.tflite_format import pinned_file

    toml = folder / "model.toml"
    table = read_toml(toml)["onnx"]
    if not isinstance(table, dict) or set(table) != {"tflite"}:
        raise _Place(toml, "[onnx]").error(None, 'must be a table: tflite = { input = '
                                                 '"<toolchain.lock input>", path = "..." }')
    tflite_file = pinned_file(toml, table["tflite"], input_tree)
    out = PROJECT_ROOT / "build" / "converted" / folder.name / "model.onnx"
    return tflite_onnx.write(tflite_file, out, folder.name)


def load_onnx(path: Path, input_tree: InputTree | None = None) -> Model:
    """The model of an `.onnx` file or of a folder holding `model.onnx` (or naming a TFLite
    file in its model.toml's [onnx] table)."""
    onnx_file = path / "model.onnx" if path.is_dir() else path
    if path.is_dir() and has_onnx_table(path):
        try:
            onnx_file = _converted(path, input_tree)
        except SchemaError as err:
            raise ModelError(str(err)) from None
    if not onnx_file.is_file():
        raise ModelError(f"ONNX file {onnx_file} does not exist")
    name = path.name if path.is_dir() else path.stem
    toml = path / "model.toml" if path.is_dir() else path.with_suffix(".toml")
    try:
        settings = _settings(toml)
        source = read_source(onnx_file, settings["dims"])
        data = onnx_test_data.find(onnx_file) if not settings["inputs"] else None
        if data:
            source = replace(source, test_data=data)
        source = replace(source, atol_given=settings["atol_given"],
                         calibration=settings["calibration"])
        function = function_name(onnx_file)
        specs = []
        recorded = onnx_test_data.read(data, "input") if data else []
        if data and len(recorded) != len(source.inputs):
            raise OnnxError(f"{data}: {len(recorded)} inputs, {onnx_file.name} takes "
                            f"{len(source.inputs)}")
        for index, info in enumerate(source.inputs):
            if info.dtype not in MODEL_TYPES:
                raise OnnxError(f"{onnx_file}: input {info.name!r} has element type "
                                f"{info.dtype}, which is not supported (supported: "
                                f"{', '.join(MODEL_TYPES)})")
            given = settings["inputs"][index] if index < len(settings["inputs"]) else {}
            gen = given.get("generator", {"kind": "randint", "seed": index + 1})
            if recorded:
                gen = {"kind": "values", "values": recorded[index].reshape(-1).tolist()}
            gen = _generator(toml, index, gen, info.shape, info.dtype)
            specs.append(InputSpec(info.shape, info.dtype, gen, str(data or toml)))
        if len(settings["inputs"]) > len(specs):
            raise ModelError(f"{toml}: describes {len(settings['inputs'])} inputs, "
                             f"{onnx_file.name} has {len(specs)}")
    except SchemaError as err:
        raise ModelError(str(err)) from None
    model = Model(name=name, mlir=imported_mlir(name), function=function, inputs=tuple(specs),
                  tolerance=settings["tolerance"], rtol=settings["rtol"],
                  description=settings["description"], vm_module="module",
                  placement=settings["placement"], format="onnx", source=onnx_file,
                  origin=source, data_files=external_data(onnx_file))
    return as_int8(model) if settings["quantize"] else model


def as_int8(model: Model) -> Model:
    """The model quantized by the build: its source the quantized file the build writes
    (onnx_quantize.py), its import and reference on that file."""
    source = model.origin
    if source.float_path is not None:
        return model
    if source.test_data:
        raise ModelError(f"{model.given}: a model checked against recorded test data cannot "
                         "be quantized by the build (its outputs are the float model's)")
    out, report = onnx_quantize.quantized_paths(model.name)
    return replace(model, mlir=imported_mlir(f"{model.name}-int8"), source=out,
                   origin=replace(source, path=out, float_path=source.path, report=report))


def _atol(model: Model) -> float:
    """model.toml's tolerance if it gives one; for a QDQ model, at least one step of its
    outputs' quantisation (its integer layers requantise as TFLite does, ONNX Runtime
    with a float multiplier: a result may land one step away)."""
    if model.origin.atol_given or not model.given.is_file():
        return model.tolerance
    import onnx

    from ireerv.formats import onnx_qdq

    step = onnx_qdq.output_step(onnx.load(str(model.given), load_external_data=False))
    return model.tolerance if step is None else max(model.tolerance, step * 1.001)


def _reference(model: Model, inputs: list[np.ndarray], timeout: float) -> list[np.ndarray]:
    if model.origin.test_data:  # the outputs recorded with the inputs
        return onnx_test_data.read(model.origin.test_data, "output")
    names = [i.name for i in model.origin.inputs]
    return onnx_runtime.compute(model.given, names, inputs, timeout=timeout)


def _describe(model: Model) -> str:
    data = model.origin.test_data
    return f"the model's test data ({data.name})" if data else "ONNX Runtime"


def _files(model: Model) -> list[Path]:
    data = model.origin.test_data
    return [model.given, *model.data_files, *(onnx_test_data.files(data) if data else [])]


def _one_node(model: Model) -> str | None:
    """The node of a model that has only one: a wrong result comes from it."""
    return onnx_diagnose.node(model.given, "")


def _explain(onnx_file: Path, diagnostics: str, kept: Path) -> str:
    return onnx_diagnose.explain("iree-compile", onnx_file, diagnostics, kept)


FORMAT = ModelFormat(
    "onnx", CLAIMS["onnx"], load_onnx, import_step=onnx_steps.import_step,
    reference=FrameworkReference("ONNX Runtime", onnx_runtime.runtime_identity, _reference,
                                 _describe, _files, _one_node, _atol), explain=_explain,
    layers=lambda model: onnx_layers(model.given))
