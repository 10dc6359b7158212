"""MLIR models: a folder with `model.mlir` and `model.toml`, or a bare static-shape `.mlir`.

`model.toml` names the entry function, describes each input (shape, element
type, values or a seeded generator) and, for dynamic shapes, the sizes that
the symbolic dimensions take.  Inputs are generated here, once, and the same
arrays feed the image and the host reference.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ireerv.formats.base import InputSpec, InputTree, Model, ModelError, ModelFormat, read_text
from ireerv.formats.claims import CLAIMS
from ireerv.formats.schema import ELEMENT_TYPES, SchemaError, validate

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
    digits = all(d == "?" or re.fullmatch(r"[0-9]+", d.strip()) for d in dims)
    if not digits or not re.fullmatch(r"\w+", elem):
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
        data = validate(desc, tomllib.loads(read_text(desc)))
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
    signature = _signature(mlir, read_text(mlir), model.function)
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
    text = read_text(path)
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


def load(path: Path, _input_tree: InputTree | None = None) -> Model:
    return _load_folder(path) if path.is_dir() else _load_bare_mlir(path)


FORMAT = ModelFormat("mlir", CLAIMS["mlir"], load)
