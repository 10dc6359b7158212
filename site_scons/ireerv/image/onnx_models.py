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
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from ireerv.image.model_schema import (
    ELEMENT_TYPES,
    SchemaError,
    _generator,
    _Place,
    _whole,
    placement,
)
from ireerv.image.models import InputSpec, Model, ModelError
from ireerv.image.onnx_import import OnnxError, function_name, read_source
from ireerv.paths import PROJECT_ROOT

# The comparison with ONNX Runtime for f32 outputs: |got - want| <= ATOL + RTOL * |want|.
# The device computes in soft float with its own order of operations and its own
# exp(); ONNX Runtime uses the host's vector units: equal results are not expected.
DEFAULT_ATOL = 1e-4
DEFAULT_RTOL = 1e-3

TOP_KEYS = ("description", "tolerance", "rtol", "dims", "placement", "inputs")
INPUT_KEYS = ("generator",)


def imported_mlir(name: str) -> Path:
    """Where the importer's MLIR for model `name` goes in the build tree."""
    return PROJECT_ROOT / "build" / "imported" / name / "model.mlir"


def _tolerance(top: _Place, data: dict[str, Any], key: str, default: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise top.error(key, f"must be a number >= 0, not {value!r}")
    return float(value)


def _settings(toml: Path) -> dict[str, Any]:
    """model.toml's overrides, checked; defaults for what it leaves out."""
    data: dict[str, Any] = {}
    if toml.is_file():
        try:
            data = tomllib.loads(toml.read_text())
        except tomllib.TOMLDecodeError as err:
            raise ModelError(f"{toml}: {err}") from None
    settings = imported_settings(toml, data, TOP_KEYS)
    dims = data.get("dims", {})
    if not isinstance(dims, dict) or not all(_whole(v) and v > 0 for v in dims.values()):
        raise _Place(toml, "top level").error(
            "dims", f"must be a table of positive whole numbers such as [dims] seq = 49, "
                    f"not {dims!r}")
    return {"dims": dims, **settings}


def imported_settings(toml: Path, data: dict[str, Any], top_keys: tuple[str, ...]
                      ) -> dict[str, Any]:
    """What every imported model's model.toml may set (ONNX and TFLite alike), checked."""
    top = _Place(toml, "top level")
    top.check_keys(data, top_keys)
    given = data.get("inputs", [])
    if not isinstance(given, list) or not all(isinstance(i, dict) for i in given):
        raise top.error("inputs", "must be an array of tables, written [[inputs]]")
    for index, item in enumerate(given):
        _Place(toml, f"[[inputs]] {index}").check_keys(item, INPUT_KEYS)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise top.error("description", f"must be a string, not {description!r}")
    return {"inputs": given, "description": description,
            "tolerance": _tolerance(top, data, "tolerance", DEFAULT_ATOL),
            "rtol": _tolerance(top, data, "rtol", DEFAULT_RTOL),
            "placement": placement(top, data)}


def load_onnx(path: Path) -> Model:
    """The model of an `.onnx` file or of a folder holding `model.onnx`."""
    onnx_file = path / "model.onnx" if path.is_dir() else path
    if not onnx_file.is_file():
        raise ModelError(f"ONNX file {onnx_file} does not exist")
    name = path.name if path.is_dir() else path.stem
    toml = onnx_file.with_name("model.toml") if path.is_dir() else path.with_suffix(".toml")
    try:
        settings = _settings(toml)
        source = read_source(onnx_file, settings["dims"])
        function = function_name(onnx_file)
        specs = []
        for index, info in enumerate(source.inputs):
            if info.dtype not in ELEMENT_TYPES:
                raise OnnxError(f"{onnx_file}: input {info.name!r} has element type "
                                f"{info.dtype}, which is not supported (supported: "
                                f"{', '.join(ELEMENT_TYPES)})")
            given = settings["inputs"][index] if index < len(settings["inputs"]) else {}
            gen = given.get("generator", {"kind": "randint", "seed": index + 1})
            gen = _generator(toml, index, gen, info.shape, info.dtype)
            specs.append(InputSpec(info.shape, info.dtype, gen, str(toml)))
        if len(settings["inputs"]) > len(specs):
            raise ModelError(f"{toml}: describes {len(settings['inputs'])} inputs, "
                             f"{onnx_file.name} has {len(specs)}")
    except SchemaError as err:
        raise ModelError(str(err)) from None
    return Model(name=name, mlir=imported_mlir(name), function=function, inputs=tuple(specs),
                 tolerance=settings["tolerance"], rtol=settings["rtol"],
                 description=settings["description"], onnx=source, vm_module="module",
                 placement=settings["placement"])
