"""Models: a folder with `model.mlir` and `model.toml`, or a bare static-shape `.mlir`.

`model.toml` names the entry function, describes each input (shape, element
type, values or a seeded generator) and, for dynamic shapes, the sizes that
the symbolic dimensions take.  Inputs are generated here, once, and the same
arrays feed the image and the host reference.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ireerv.image.model_schema import ELEMENT_TYPES, SchemaError, validate
from ireerv.paths import PROJECT_ROOT

if TYPE_CHECKING:
    from ireerv.image.onnx_import import OnnxSource
    from ireerv.image.tflite_models import TfliteSource

MODELS_DIR = PROJECT_ROOT / "models"

class ModelError(Exception):
    """A model that cannot be built: unknown, missing files, bad description."""


@dataclass(frozen=True)
class InputSpec:
    shape: tuple[int | str, ...]
    dtype: str
    generator: dict = field(default_factory=dict)
    source: str = "the model"  # where the spec comes from, for messages

    def concrete_shape(self, size: int | None) -> tuple[int, ...]:
        dims = []
        for dim in self.shape:
            if isinstance(dim, str):
                if size is None:
                    raise ModelError(f"dimension {dim!r} needs a size")
                dims.append(size)
            else:
                dims.append(dim)
        return tuple(dims)

    def generate(self, size: int | None) -> np.ndarray:
        shape = self.concrete_shape(size)
        dtype = np.dtype(ELEMENT_TYPES[self.dtype])
        kind = self.generator.get("kind", "randint")
        if kind == "randint":
            rng = np.random.default_rng(self.generator.get("seed", 0))
            low, high = self.generator.get("low", -4), self.generator.get("high", 5)
            return rng.integers(low, high, size=shape).astype(dtype)
        if kind == "values":
            values = np.asarray(self.generator["values"], dtype=dtype)
            if values.size != int(np.prod(shape)):
                raise ModelError(f"{self.source}: generator 'values' gives {values.size} values, "
                                 f"but shape {list(shape)} has {int(np.prod(shape))} elements")
            return values.reshape(shape)
        raise ModelError(f"unknown input generator {kind!r} (use 'randint' or 'values')")

    @property
    def is_dynamic(self) -> bool:
        return any(isinstance(d, str) for d in self.shape)


@dataclass(frozen=True)
class Model:
    name: str
    mlir: Path
    function: str
    inputs: tuple[InputSpec, ...]
    sizes: tuple[int, ...] = ()
    tolerance: float = 0.0
    description: str = ""
    # Imported models: the ONNX file they come from (also their reference), the relative
    # tolerance of float outputs, and the vm-c module name the importer's MLIR gives.
    onnx: OnnxSource | None = None
    rtol: float = 0.0
    vm_module: str = ""
    # The board placement the model asks for (model.toml), "" for the board's default.
    placement: str = ""
    # MLIR as an importer wrote it (torch types, quoted names): lowered in the build to
    # `mlir`, whose entry `function` is `importer_function` renamed to a C identifier.
    importer_mlir: Path | None = None
    importer_function: str = ""
    tflite: TfliteSource | None = None  # imported from TFLite: the file, also the reference

    @property
    def is_dynamic(self) -> bool:
        return any(spec.is_dynamic for spec in self.inputs)

    def resolve_size(self, size: int | None) -> int | None:
        """The size to build: the given one (checked) or the model's default."""
        if not self.is_dynamic:
            if size is not None:
                raise ModelError(f"model {self.name!r} has static shapes; SIZE does not apply")
            return None
        if size is None:
            return self.sizes[0]
        if size <= 0:
            raise ModelError(f"SIZE must be positive, not {size}")
        return size

    def generate_inputs(self, size: int | None) -> list[np.ndarray]:
        return [spec.generate(self.resolve_size(size)) for spec in self.inputs]

    def variant(self, size: int | None) -> str:
        """A build-directory name for this model at this size."""
        resolved = self.resolve_size(size)
        return self.name if resolved is None else f"{self.name}-{resolved}"


def list_models() -> list[str]:
    return sorted(p.parent.name for p in MODELS_DIR.glob("*/model.toml"))


def mlir_models() -> list[str]:
    """The models written in MLIR (not imported from a framework's file)."""
    return [name for name in list_models() if (MODELS_DIR / name / "model.mlir").is_file()]


_FUNC_RE = re.compile(r"func\.func\s+(?:public\s+)?@([\w$.]+)\s*\(([^)]*)\)", re.S)
_TENSOR_RE = re.compile(r"tensor<([^>]*)>")


def parse_signature(text: str, function: str) -> list[tuple[tuple[int | str, ...], str]]:
    """Argument shapes and element types of `function`, read from MLIR text."""
    for match in _FUNC_RE.finditer(text):
        if match.group(1) != function:
            continue
        args = []
        for index, tensor in enumerate(_TENSOR_RE.findall(match.group(2))):
            args.append(_tensor_type(function, index, tensor))
        return args
    found = [m.group(1) for m in _FUNC_RE.finditer(text)]
    raise ModelError(
        f"function @{function} not found in the MLIR"
        + (f" (functions there: {', '.join(found)})" if found else " (no func.func found)")
    )


def _tensor_type(function: str, index: int, tensor: str) -> tuple[tuple[int | str, ...], str]:
    """(dims, element type) of `tensor<...>`; what the runner cannot take is a ModelError."""
    *dims, elem = tensor.split("x")
    elem = elem.strip()
    if tensor.startswith("*"):
        raise ModelError(f"@{function} input {index} is unranked (tensor<{tensor}>); the runner "
                         "needs a ranked tensor such as tensor<?xf32> or tensor<4x4xf32>")
    if not all(d == "?" or d.strip().isdigit() for d in dims) or not re.fullmatch(r"\w+", elem):
        raise ModelError(f"@{function} input {index} has the type tensor<{tensor}>, which the "
                         f"runner does not take (supported: ranked tensors of "
                         f"{', '.join(ELEMENT_TYPES)})")
    return tuple("?" if d == "?" else int(d) for d in dims), elem


def _signature(path: Path, text: str, function: str) -> list[tuple[tuple[int | str, ...], str]]:
    try:
        return parse_signature(text, function)
    except ModelError as err:
        raise ModelError(f"{path}: {err}") from None


def _check_types(name: str, signature: list[tuple[tuple[int | str, ...], str]]) -> None:
    for index, (_, elem) in enumerate(signature):
        if elem not in ELEMENT_TYPES:
            raise ModelError(
                f"model {name!r}: input {index} has element type {elem}, which is not "
                f"supported (supported: {', '.join(ELEMENT_TYPES)})"
            )


def _load_folder(folder: Path) -> Model:
    mlir, desc = folder / "model.mlir", folder / "model.toml"
    for path in (mlir, desc):
        if not path.is_file():
            raise ModelError(f"model folder {folder} has no {path.name}")
    try:
        data = validate(desc, tomllib.loads(desc.read_text()))
    except tomllib.TOMLDecodeError as err:
        raise ModelError(f"{desc}: {err}") from err
    except SchemaError as err:
        raise ModelError(str(err)) from None
    specs = [InputSpec(i["shape"], i["dtype"], i["generator"], str(desc)) for i in data["inputs"]]
    model = Model(
        name=folder.name, mlir=mlir, function=data["function"], inputs=tuple(specs),
        sizes=tuple(data["sizes"]), tolerance=data["tolerance"],
        description=data["description"], placement=data["placement"],
    )
    signature = _signature(mlir, mlir.read_text(), model.function)
    _check_types(model.name, signature)
    if len(signature) != len(specs):
        raise ModelError(
            f"{desc}: describes {len(specs)} inputs but @{model.function} takes {len(signature)}"
        )
    for index, ((dims, elem), spec) in enumerate(zip(signature, specs, strict=True)):
        if elem != spec.dtype or len(dims) != len(spec.shape):
            raise ModelError(
                f"{desc}: input {index} is {spec.dtype} of rank {len(spec.shape)} here "
                f"but {elem} of rank {len(dims)} in the MLIR"
            )
        for axis, (mlir_dim, dim) in enumerate(zip(dims, spec.shape, strict=True)):
            if mlir_dim != "?" and mlir_dim != dim:
                raise ModelError(
                    f"{desc}: [[inputs]] {index}, key 'shape': dimension {axis} is {dim!r} "
                    f"here but {mlir_dim} in @{model.function}; make shape match "
                    f"tensor<{'x'.join(map(str, dims))}x{elem}>"
                )
    return model


def _load_bare_mlir(path: Path) -> Model:
    """A bare .mlir: its first function, static shapes only, seeded inputs."""
    text = path.read_text()
    match = _FUNC_RE.search(text)
    if not match:
        raise ModelError(f"{path}: no func.func found")
    function = match.group(1)
    signature = _signature(path, text, function)
    _check_types(path.stem, signature)
    specs = []
    for index, (dims, elem) in enumerate(signature):
        if "?" in dims:
            raise ModelError(
                f"{path}: input {index} of @{function} has a dynamic shape; put the model in a "
                "folder with a model.toml that gives its sizes"
            )
        specs.append(InputSpec(dims, elem, {"kind": "randint", "seed": index + 1}))
    return Model(name=path.stem, mlir=path, function=function, inputs=tuple(specs))


def load_model(spec: str) -> Model:
    """A model by name (a folder under models/) or by path (folder or bare .mlir)."""
    if not spec:
        raise ModelError(f"no MODEL given; models: {', '.join(list_models())}")
    folder = MODELS_DIR / spec if (MODELS_DIR / spec).is_dir() else Path(spec)
    if folder.suffix == ".onnx" or (folder / "model.onnx").is_file():
        from ireerv.image.onnx_models import load_onnx  # only ONNX models need `onnx`

        return load_onnx(folder.resolve())
    from ireerv.image.tflite_models import has_tflite, load_tflite

    if folder.suffix == ".tflite" or (folder.is_dir() and has_tflite(folder)):
        return load_tflite(folder.resolve())
    if (MODELS_DIR / spec / "model.toml").is_file():
        return _load_folder(MODELS_DIR / spec)
    path = Path(spec)
    if path.suffix == ".mlir":
        if not path.is_file():
            raise ModelError(f"MLIR file {path} does not exist")
        from ireerv.image import mlir_models  # the compiler reads importers' MLIR

        if mlir_models.is_importer_mlir(path.read_text(errors="replace")):
            return mlir_models.load_importer_mlir(path.resolve())
        return _load_bare_mlir(path.resolve())
    if path.is_dir():
        return _load_folder(path.resolve())
    raise ModelError(
        f"unknown model {spec!r}; models: {', '.join(list_models())} "
        "(or a path to a model folder, an .onnx or .tflite file or a static-shape .mlir)"
    )
