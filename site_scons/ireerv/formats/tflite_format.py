"""TFLite models as build models: a `.tflite` file, or a folder with `model.tflite` or
with a `model.toml` whose [tflite] table names a file inside a toolchain.lock input.

The entry's inputs and outputs come from the file (the flatbuffer schema); a
`model.toml` may add:

    description = "..."
    tolerance = 1e-4           # absolute tolerance of f32 outputs
    rtol = 1e-3                # relative tolerance of f32 outputs
    placement = "large"        # the board placement it needs (data beyond a scratchpad)
    [tflite]                   # the file, from a pinned input (instead of model.tflite)
    input = "mlperf-tiny"
    path = "benchmark/.../kws_ref_model.tflite"
    [[inputs]]                 # one per input, in order: how its values are made
    generator = { kind = "randint", low = -128, high = 128, seed = 1 }

Inputs default to seeded integers: over the whole int8 range for a quantised
input, in [-4, 4] for a float one.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ireerv.formats.base import (
    FrameworkReference,
    InputSpec,
    InputTree,
    Model,
    ModelError,
    ModelFormat,
    pinned_tree,
)
from ireerv.formats.claims import CLAIMS
from ireerv.formats.imported import imported_mlir, imported_settings, read_toml
from ireerv.formats.layer_table import tflite_layers
from ireerv.formats.schema import ELEMENT_TYPES, SchemaError, _generator, _Place
from ireerv.formats.tflite_reader import Tensor, TfliteError, read
from ireerv.reference import litert
from ireerv.util.files import atomic_write
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files

TOP_KEYS = ("description", "tolerance", "rtol", "tflite", "placement", "inputs")
SOURCE_KEYS = ("input", "path")
FUNCTION = "main"


@dataclass(frozen=True)
class TfliteSource:
    """What an imported model carries from its TFLite file."""

    path: Path
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]


def pinned_file(toml: Path, table: Any, input_tree: InputTree | None) -> Path:
    """The file a [tflite] table names inside a toolchain.lock input (fetched if needed)."""
    place = _Place(toml, "[tflite]")
    if not isinstance(table, dict):
        raise place.error(None, 'must be a table: input = "<toolchain.lock input>", path = "..."')
    place.check_keys(table, SOURCE_KEYS)
    name, rel = table.get("input"), table.get("path")
    if not isinstance(name, str) or not isinstance(rel, str) or not name or not rel:
        raise place.error(None, "needs input (a toolchain.lock input) and path (a file in it)")
    if Path(rel).is_absolute() or ".." in Path(rel).parts:
        raise place.error("path", f"{rel!r} leaves input {name!r}: give a path inside it, "
                                  "relative to its top")
    from ireerv.inputs.fetch import FetchError
    from ireerv.inputs.lock import LockError

    try:
        root = pinned_tree(input_tree, name)
    except (FetchError, LockError) as err:
        raise ModelError(f"{toml}: [tflite] input {name!r}: {err}") from None
    file = root / rel
    if not file.resolve().is_relative_to(root.resolve()):  # through a link in the input
        raise place.error("path", f"{rel!r} leaves input {name!r}: give a path inside it, "
                                  "relative to its top")
    if not file.is_file():
        raise place.error("path", f"{rel!r} is not a file of input {name!r}")
    return file


def _settings(toml: Path, data: dict[str, Any]) -> dict[str, Any]:
    return imported_settings(toml, data, TOP_KEYS)


def _default_generator(tensor: Tensor, index: int) -> dict[str, Any]:
    if tensor.quantized and tensor.dtype == "i8":
        return {"kind": "randint", "low": -128, "high": 128, "seed": index + 1}
    return {"kind": "randint", "seed": index + 1}


def _specs(file: Path, toml: Path, graph_inputs: tuple[Tensor, ...],
           given: list[dict[str, Any]]) -> list[InputSpec]:
    specs = []
    for index, tensor in enumerate(graph_inputs):
        if tensor.dtype not in ELEMENT_TYPES:
            raise TfliteError(f"{file}: input {tensor.name!r} has element type {tensor.dtype}, "
                              f"which is not supported (supported: {', '.join(ELEMENT_TYPES)})")
        gen = given[index].get("generator") if index < len(given) else None
        gen = _generator(toml, index, gen or _default_generator(tensor, index), tensor.shape,
                         tensor.dtype)
        specs.append(InputSpec(tensor.shape, tensor.dtype, gen, str(toml)))
    if len(given) > len(specs):
        raise ModelError(f"{toml}: describes {len(given)} inputs, {file.name} has {len(specs)}")
    return specs


def load_tflite(path: Path, input_tree: InputTree | None = None) -> Model:
    """The model of a `.tflite` file or of a TFLite model folder; a [tflite] table's input
    is found through `input_tree` (see pinned_tree)."""
    folder = path if path.is_dir() else None
    toml = path / "model.toml" if folder else path.with_suffix(".toml")
    name = path.name if folder else path.stem
    try:
        data = read_toml(toml)
        if "tflite" in data:
            file = pinned_file(toml, data["tflite"], input_tree)
        else:
            file = path / "model.tflite" if folder else path
        if not file.is_file():
            raise ModelError(f"TFLite file {file} does not exist")
        settings = _settings(toml, data)
        graph = read(file)
        inputs = tuple(graph.tensors[i] for i in graph.inputs)
        outputs = tuple(graph.tensors[i] for i in graph.outputs)
        specs = _specs(file, toml, inputs, settings["inputs"])
    except SchemaError as err:
        raise ModelError(str(err)) from None
    return Model(name=name, mlir=imported_mlir(name), function=FUNCTION, inputs=tuple(specs),
                 tolerance=settings["tolerance"], rtol=settings["rtol"],
                 description=settings["description"],
                 vm_module="module", placement=settings["placement"], format="tflite",
                 source=file, origin=TfliteSource(file, inputs, outputs))


def _reference(model: Model, inputs: list[np.ndarray], timeout: float) -> list[np.ndarray]:
    return litert.compute(model.given, inputs, timeout=timeout)


def _import(target, source, env):
    try:
        import_model(Path(str(source[0])), Path(str(target[0])))
    except TfliteError as err:
        build_error(err)


def import_step(env, model: Model) -> list:
    """The build step: the TOSA of a TFLite model, written by the translator."""
    # The translator's modules are sources too: a change to any re-translates.
    return env.Command(str(model.mlir), [str(model.source), *module_files(sys.modules[__name__])],
                       short_action(_import, "IMPORT"))


FORMAT = ModelFormat(
    "tflite", CLAIMS["tflite"], load_tflite, import_step=import_step,
    reference=FrameworkReference("LiteRT", litert.runtime_identity, _reference),
    layers=lambda model: tflite_layers(model.given))


def import_model(tflite_file: Path, mlir: Path) -> None:
    """Translate the file to TOSA and write it to `mlir` (whole, or not at all)."""
    from ireerv.formats.tflite_tosa import translate

    atomic_write(mlir, translate(read(tflite_file), FUNCTION))
