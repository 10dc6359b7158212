"""Models given as MLIR the way importers write it: torch/ONNX dialect types such as
!torch.vtensor, quoted function names (`@"pre-alpha"`), `util.func`.

The entry function and its inputs are read by the pinned compiler's own parser
(mlir_reflect.py, run with the compiler wheel's Python bindings), never from the text by
pattern.  Inside the build the file is lowered to linalg on builtin tensors with its entry
renamed to a C identifier (import_step), as iree-compile and the vm-c program need it.
A dynamic dimension (a batch) is 1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ireerv.formats import mlir_reflect
from ireerv.formats.base import (
    InputSpec,
    InputTree,
    Model,
    ModelError,
    ModelFormat,
    pinned_tree,
)
from ireerv.formats.claims import CLAIMS
from ireerv.formats.imported import imported_mlir
from ireerv.formats.onnx_import import entry_name
from ireerv.formats.schema import ELEMENT_TYPES
from ireerv.inputs import identity
from ireerv.inputs.fetch import FetchError
from ireerv.util.scons import build_error, short_action
from ireerv.util.sources import module_files

REFLECT = Path(__file__).with_name("mlir_reflect.py")
TIMEOUT = 600


def _compiler_wheel(input_tree: InputTree | None) -> Path:
    from ireerv.inputs.fetch import FetchError
    from ireerv.inputs.lock import LockError

    try:
        return pinned_tree(input_tree, "iree-compiler")
    except (FetchError, LockError) as err:
        raise ModelError(f"reading importer MLIR needs the pinned compiler: {err}") from None


def reflect(wheel: Path, *args: str) -> dict:
    """Run mlir_reflect.py with the wheel's bindings; its JSON answer, or ModelError."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(wheel), *filter(None, [os.environ.get("PYTHONPATH")])])}
    try:
        proc = subprocess.run([sys.executable, str(REFLECT), *args], capture_output=True,
                              text=True, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ModelError(f"{args[1]}: reading it took more than {TIMEOUT} s") from None
    try:
        answer = json.loads(proc.stdout.strip().splitlines()[-1]) if proc.stdout.strip() else {}
    except ValueError:
        answer = {}
    if "error" in answer:
        raise ModelError(f"{args[1]}: {answer['error']}")
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise ModelError(f"{args[1]}: the compiler could not read it: {last}")
    return answer


def load_importer_mlir(path: Path, input_tree: InputTree | None = None,
                       function: str | None = None) -> Model:
    """The model of an importer's MLIR file: signature from the compiler, seeded inputs."""
    answer = reflect(_compiler_wheel(input_tree), "signature", str(path),
                     *([function] if function else []))
    specs = []
    for index, item in enumerate(answer["inputs"]):
        dtype = next((name for name in ELEMENT_TYPES if name == item["element"]), None)
        if dtype is None:
            raise ModelError(f"{path}: input {index} of @{answer['function']} has element "
                             f"type {item['element']}, which the runner does not take "
                             f"({', '.join(ELEMENT_TYPES)})")
        shape = tuple(1 if d is None else d for d in item["shape"])
        specs.append(InputSpec(shape, dtype, {"kind": "randint", "seed": index + 1},
                               f"{path.name} (the compiler's reading)"))
    return Model(name=path.stem, mlir=imported_mlir(path.stem), function=entry_name(
        answer["function"]), inputs=tuple(specs), vm_module="module",
        format="importer-mlir", source=path, origin=answer["function"])


def input_shapes(model: Model, size: int | None) -> list[list[int]]:
    """The shapes of the inputs the image is built with."""
    return [list(spec.concrete_shape(model.resolve_size(size))) for spec in model.inputs]


def specialize(wheel: Path, mlir: Path, function: str, shapes: list[list[int]],
               out: Path) -> None:
    """`mlir` with its entry taking `shapes` (mlir_reflect.py specialize); whole or not at
    all."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    try:
        reflect(wheel, "specialize", str(mlir), str(tmp), function, json.dumps(shapes))
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def lower(wheel: Path, model: Model, out: Path) -> None:
    """The importer's file lowered to linalg, its entry renamed; written whole or not at all."""
    assert model.source is not None
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    try:
        reflect(wheel, "lower", str(model.source), str(tmp), model.origin, model.function)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)


def _lower(target, source, env):
    try:
        lower(env.GetFetcher().path("iree-compiler"), env["_MODEL"], Path(str(target[0])))
    except (ModelError, FetchError) as err:
        build_error(err)


def import_step(env, model: Model) -> list:
    """The build step: the importer's file lowered (linalg on builtin tensors, the entry
    renamed to a C identifier)."""
    # Beyond the file: the entry and its C name, the lowering, the compiler, and the logic.
    key = env.Value(f"{model.origin} {model.function} {mlir_reflect.LOWERING} "
                    f"{identity.compiler(env['LOCK'])}")
    return env.Command(str(model.mlir), [str(model.source), key,
                                         *module_files(sys.modules[__name__], mlir_reflect)],
                       short_action(_lower, "LOWER"), _MODEL=model)


FORMAT = ModelFormat("importer-mlir", CLAIMS["importer-mlir"], load_importer_mlir,
                     import_step=import_step)
