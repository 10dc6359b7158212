"""The user's own data in and out (`INPUT=`, `OUTPUT=`): inputs read from .npy or .npz
files and checked against the model before anything is built, outputs written as .npz.

A model with given inputs is the same Model whose InputSpecs generate from the files
(generator kind "file"), so the image, the framework's reference and the image key all
see the same arrays.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ireerv.formats.base import InputSpec, Model, ModelError
from ireerv.formats.schema import MODEL_TYPES

if TYPE_CHECKING:
    import numpy as np


def tensor_names(model: Model, kind: str, count: int) -> list[str]:
    """The model's input or output names (`kind`: "inputs" or "outputs") as its framework
    gives them; `input0`, `output1`... where it names none, or names another count."""
    named = getattr(model.origin, kind, None) or ()
    names = [getattr(t, "name", "") for t in named]
    if len(names) != count or not all(names) or len(set(names)) != count:
        return [f"{kind[:-1]}{i}" for i in range(count)]
    return names


def expected(model: Model, size: int | None) -> str:
    """What the model takes, in one line: `input_1 int8 [1,49,10,1], ...`."""
    names = tensor_names(model, "inputs", len(model.inputs))
    shapes = [_shape(spec, size) for spec in model.inputs]
    parts = [f"{n} {MODEL_TYPES[s.dtype]} [{','.join(map(str, shape))}]"
             for n, s, shape in zip(names, model.inputs, shapes, strict=True)]
    count = len(model.inputs)
    return f"model {model.name} takes {count} input{'s' if count != 1 else ''}: " + (
        ", ".join(parts) or "none")


def _shape(spec: InputSpec, size: int | None) -> tuple[int | str, ...]:
    return spec.concrete_shape(size) if size is not None or not spec.is_dynamic else tuple(
        d for d in spec.shape)


def parse_paths(value: str) -> list[Path]:
    """INPUT as given: files separated by commas."""
    return [Path(p.strip()) for p in value.split(",") if p.strip()]


def load(path: Path, key: str | None) -> np.ndarray:
    """One array: a .npy file, or the array `key` of a .npz file."""
    import numpy as np  # here: a build without INPUT needs no NumPy to start

    try:
        if key is None:
            return np.load(path, allow_pickle=False)
        with np.load(path, allow_pickle=False) as data:
            return np.asarray(data[key])
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
        raise ModelError(f"INPUT {path}: not a NumPy .npy or .npz file ({err})") from None


def _is_npz(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(4) == b"PK\x03\x04"


def _sources(model: Model, paths: Sequence[Path]) -> list[tuple[Path, str | None]]:
    """(file, key in it) per model input, from the files given."""
    names = tensor_names(model, "inputs", len(model.inputs))
    for path in paths:
        if not path.is_file():
            raise ModelError(f"INPUT {path}: no such file")
    if len(paths) == 1 and _is_npz(paths[0]):
        import numpy as np

        with np.load(paths[0], allow_pickle=False) as data:
            keys = set(data.files)
        if keys != set(names):
            raise ModelError(f"INPUT {paths[0]}: holds {', '.join(sorted(keys)) or 'nothing'}; "
                             + expected(model, None))
        return [(paths[0], name) for name in names]
    if len(paths) != len(model.inputs) or any(_is_npz(p) for p in paths):
        raise ModelError(f"INPUT: {len(paths)} file{'s' if len(paths) != 1 else ''} given; "
                         f"{expected(model, None)} (one .npy each, in order, or one .npz "
                         "by name)")
    return [(path, None) for path in paths]


def with_inputs(model: Model, paths: Sequence[Path], size: int | None) -> Model:
    """`model` with its inputs read from `paths`, each checked against what it takes."""
    import numpy as np

    sources = _sources(model, paths)
    specs = []
    for spec, (path, key) in zip(model.inputs, sources, strict=True):
        array = load(path, key)
        want = np.dtype(MODEL_TYPES[spec.dtype])
        shape = tuple(array.shape)
        fits = len(shape) == len(spec.shape) and all(
            isinstance(d, str) or d == got for d, got in zip(spec.shape, shape, strict=True))
        if array.dtype != want or not fits:
            where = f"{path}" + (f" [{key}]" if key else "")
            raise ModelError(f"INPUT {where}: {array.dtype} [{','.join(map(str, shape))}]; "
                             + expected(model, size))
        generator = {"kind": "file", "path": str(path.resolve()), "key": key}
        specs.append(dataclasses.replace(spec, generator=generator, source=f"INPUT {path}"))
    given = dataclasses.replace(model, inputs=tuple(specs))
    given.generate_inputs(size)  # a dynamic dimension must agree with SIZE
    return given


def digest(paths: Sequence[Path]) -> str:
    """The given files' contents, hashed: the image key's tag for INPUT."""
    hashed = hashlib.sha256()
    for path in paths:
        hashed.update(Path(path).read_bytes())
    return hashed.hexdigest()[:12]


def write_outputs(path: Path, model: Model, outputs: Sequence[np.ndarray]) -> None:
    """The run's outputs as an .npz by output name (written whole, then renamed)."""
    import numpy as np

    names = tensor_names(model, "outputs", len(outputs))
    buffer = io.BytesIO()
    np.savez(buffer, **dict(zip(names, outputs, strict=True)))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(buffer.getvalue())
    partial.replace(path)
