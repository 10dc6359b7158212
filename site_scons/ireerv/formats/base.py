"""What every model format produces: a Model with its inputs, and the format's interface.

A format (formats/<name>_format.py, listed in formats/__init__.py) says which
paths it claims, loads them into a Model, and gives the build step that writes
the MLIR iree-compile takes (a callable) and the framework whose runtime is the
reference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ireerv.formats.schema import DEMOTED, MODEL_TYPES

if TYPE_CHECKING:  # numpy is imported where inputs are made: a no-op build needs none
    import numpy as np

# Inputs larger than this fit no board's memory (cluster4 has 64 MiB in all).
MAX_INPUT_BYTES = 64 << 20
# Bytes per element of each NumPy type a model's inputs may have (schema.MODEL_TYPES).
_ITEM_BYTES = {name: int(name.lstrip("abcdefghijklmnopqrstuvwxyz")) // 8
               for name in set(MODEL_TYPES.values())}


class ModelError(Exception):
    """A model that cannot be built: unknown, missing files, bad description."""


# The tree of a toolchain.lock input by name, fetched if needed: a build passes its own
# fetcher's (CACHE_DIR, SHARED_CACHE, OFFLINE and MIRRORS of the command line).
InputTree = Callable[[str], Path]


def pinned_tree(input_tree: InputTree | None, name: str) -> Path:
    """The tree of input `name`, through `input_tree`; without one (outside a build: tests,
    the command line tools) fetched with the IREERV_* variables' settings.

    Raises FetchError or LockError."""
    if input_tree is not None:
        return input_tree(name)
    from ireerv.inputs.fetch import FetchConfig, Fetcher
    from ireerv.inputs.lock import load_lock
    from ireerv.paths import LOCK_FILE

    return Fetcher(load_lock(LOCK_FILE), FetchConfig.from_env()).path(name)


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

    def check(self, size: int | None) -> tuple[int, ...]:
        """The shape the inputs take at `size`, once the generator is known to make them
        (without NumPy: a build that has nothing to do needs none)."""
        shape = self.concrete_shape(size)
        count = math.prod(shape)
        nbytes = count * _ITEM_BYTES[MODEL_TYPES[self.dtype]]
        if nbytes > MAX_INPUT_BYTES:
            raise ModelError(f"{self.source}: an input of shape {list(shape)} ({self.dtype}) "
                             f"takes {nbytes:,} bytes, more than any board holds "
                             f"({MAX_INPUT_BYTES:,}); give a smaller SIZE or [dims]")
        kind = self.generator.get("kind", "randint")
        if kind == "values" and len(self.generator["values"]) != count:
            raise ModelError(f"{self.source}: generator 'values' gives "
                             f"{len(self.generator['values'])} values, but shape {list(shape)} "
                             f"has {count} elements")
        if kind not in ("randint", "values", "file"):
            raise ModelError(f"unknown input generator {kind!r} (use 'randint' or 'values')")
        return shape

    def describe(self, size: int | None) -> str:
        """What the generated input is a function of (with NumPy's version)."""
        return f"{self.dtype} {self.check(size)} {sorted(self.generator.items())}"

    def generate(self, size: int | None) -> np.ndarray:
        import numpy as np

        shape = self.check(size)
        dtype = np.dtype(MODEL_TYPES[self.dtype])
        if self.generator.get("kind", "randint") == "randint":
            rng = np.random.default_rng(self.generator.get("seed", 0))
            low, high = self.generator.get("low", -4), self.generator.get("high", 5)
            return rng.integers(low, high, size=shape).astype(dtype)
        if self.generator.get("kind") == "file":  # INPUT= (given_data.py), checked there
            return _file_input(self.generator, shape, self.source)
        return np.asarray(self.generator["values"], dtype=dtype).reshape(shape)

    @property
    def is_dynamic(self) -> bool:
        return any(isinstance(d, str) for d in self.shape)


def _file_input(generator: dict, shape: tuple[int, ...], source: str) -> np.ndarray:
    """An input read from the user's .npy, or from one array of their .npz."""
    import numpy as np

    key = generator.get("key")
    if key is None:
        array = np.load(generator["path"], allow_pickle=False)
    else:
        with np.load(generator["path"], allow_pickle=False) as data:
            array = np.asarray(data[key])
    if tuple(array.shape) != tuple(shape):
        raise ModelError(f"{source}: shape {list(array.shape)}, the image is built for "
                         f"{list(shape)} (give SIZE to match it)")
    return array


@dataclass(frozen=True)
class Model:
    name: str
    mlir: Path
    function: str
    inputs: tuple[InputSpec, ...]
    sizes: tuple[int, ...] = ()
    tolerance: float = 0.0
    description: str = ""
    # Imported models: the relative tolerance of float outputs, and the vm-c module name
    # the importer's MLIR gives.
    rtol: float = 0.0
    vm_module: str = ""
    # The board placement the model asks for (model.toml), or a table of them by board
    # name; "" for the board's default.
    placement: str | dict[str, str] = ""
    format: str = "mlir"  # the name of its ModelFormat (formats.FORMATS)
    # The file the user gave, when the build writes `mlir` from it (an import step).
    source: Path | None = None
    origin: Any = None  # what its format read from `source` (OnnxSource, TfliteSource, ...)
    # Files the given one reads beside it (ONNX external data): sources of the image too.
    data_files: tuple[Path, ...] = ()
    # MODEL in its one spelling (formats.canonical_model), and the folder it names (where
    # its tuning lives; None for a single file): set by formats.load_model.
    arg: str = ""
    folder: Path | None = None

    def device_inputs(self, size: int | None,
                      generated: list[np.ndarray] | None = None) -> list[np.ndarray]:
        """The inputs as the compiled program takes them (DEMOTED types converted), from
        `generated` when the caller has them already."""
        arrays = self.generate_inputs(size) if generated is None else generated
        return [array.astype(MODEL_TYPES[DEMOTED[spec.dtype]]) if spec.dtype in DEMOTED
                else array for spec, array in zip(self.inputs, arrays, strict=True)]

    @property
    def demoted(self) -> list[str]:
        """What the run converts, said in words ("" each when nothing)."""
        return [f"input {i}: {spec.dtype} passed as {DEMOTED[spec.dtype]}"
                for i, spec in enumerate(self.inputs) if spec.dtype in DEMOTED]

    @property
    def given(self) -> Path:
        """The file the user gave: the imported file, or the MLIR itself."""
        return self.source or self.mlir

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

    def check_inputs(self, size: int | None) -> None:
        """Raise ModelError here if the inputs at `size` cannot be generated."""
        for spec in self.inputs:
            spec.check(self.resolve_size(size))

    def inputs_description(self, size: int | None) -> str:
        """What the generated inputs are a function of, NumPy's version aside."""
        return "\n".join(spec.describe(self.resolve_size(size)) for spec in self.inputs)

    def variant(self, size: int | None) -> str:
        """A build-directory name for this model at this size."""
        resolved = self.resolve_size(size)
        return self.name if resolved is None else f"{self.name}-{resolved}"


@dataclass(frozen=True)
class FrameworkReference:
    """A framework's runtime on the user's original file: the expected outputs."""

    name: str  # as the verdict says it: "ONNX Runtime"
    identity: Callable[[], str]  # its version: a run depends on it
    compute: Callable[[Model, list[np.ndarray], float], list[np.ndarray]]  # (model, inputs, s)
    # What a model's reference is, when it is not always `name`, and the files it reads.
    describe: Callable[[Model], str] | None = None
    files: Callable[[Model], list[Path]] | None = None
    # Where a wrong result must come from, when the model says (its only layer).
    suspect: Callable[[Model], str | None] | None = None
    # The f32 tolerance, read at the run (a QDQ model's output step), if not model.tolerance.
    atol: Callable[[Model], float] | None = None

    def tolerance(self, model: Model) -> float:
        return self.atol(model) if self.atol else model.tolerance

    def label(self, model: Model) -> str:
        return self.describe(model) if self.describe else self.name

    def sources(self, model: Model) -> list[Path]:
        return self.files(model) if self.files else [model.given]


@dataclass(frozen=True)
class LayerInfo:
    """One layer of the user's model, as its framework names it (the per-layer profile)."""

    name: str  # the ONNX node's name; a TFLite operator's output tensor's name
    kind: str  # the operator: Conv, MatMul, CONV_2D, DEPTHWISE_CONV_2D, ...
    shapes: str  # inputs -> outputs, e.g. "1x49x10x1, 64x10x4x1 -> 1x25x5x64"
    macs: int  # multiply-accumulates of one inference (0 for layers without any)


@dataclass(frozen=True)
class ModelFormat:
    """One model format: everything the build asks of it."""

    name: str
    claims: Callable[[Path], bool]  # whether a file or folder holds a model of this format
    load: Callable[[Path, InputTree | None], Model]
    # The build step that writes model.mlir from model.source: (a build environment, the
    # model) -> its nodes, the MLIR first; None when the MLIR is compiled as written.
    import_step: Callable[[Any, Model], list] | None = None
    # The reference outputs: a framework's runtime, or None for the MLIR compiled for the
    # host by IREE.
    reference: FrameworkReference | None = None
    # A compiler failure said in the terms of the user's file: (file, the compiler's
    # diagnostics, the compiler's input kept for a report) -> one line.
    explain: Callable[[Path, str, Path], str] | None = None
    # The model's layers in graph order, named as the importer names their MLIR locations.
    layers: Callable[[Model], list[LayerInfo]] | None = None


def read_text(path: Path) -> str:
    """A model file's text; one clear error when it is not UTF-8."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        bad = err.object[err.start]
        raise ModelError(f"{path}: not UTF-8 text (byte {err.start} is {bad:#04x}); "
                         "save it as UTF-8") from None
    except OSError as err:
        raise ModelError(f"{path}: cannot be read: {err.strerror}") from None
