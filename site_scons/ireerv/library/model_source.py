"""What a model archive holds besides the compiled program: the model's description
(`<m>_model`, runtime/api/ireerv_model.h) as C, and its public header `<m>.h`."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ireerv.formats.base import Model
from ireerv.formats.given_data import tensor_names
from ireerv.formats.schema import DEMOTED

if TYPE_CHECKING:  # NumPy is imported where arrays are read: a no-op build needs none
    import numpy as np

# ireerv.h's dtype constants, by the model's element type names (the last ones for the
# runner's inputs of any type, runtime/runner/runner.h).
DTYPES = {"f32": "IREERV_FLOAT32", "i8": "IREERV_INT8", "i16": "IREERV_INT16",
          "i32": "IREERV_INT32", "i64": "IREERV_INT64", "u8": "IREERV_UINT8",
          "b8": "IREERV_BOOL8", "f16": "IREERV_FLOAT16", "bf16": "IREERV_BFLOAT16",
          "f64": "IREERV_FLOAT64", "u16": "IREERV_UINT16", "u32": "IREERV_UINT32",
          "u64": "IREERV_UINT64"}
_ITEMSIZE = {"f32": 4, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "b8": 1, "f16": 2,
             "bf16": 2, "f64": 8, "u16": 2, "u32": 4, "u64": 8}
_MLIR_TENSOR = re.compile(r"tensor<((?:(?:\d+|\?)x)*)(bf16|f16|f32|f64|i1|i8|i16|i32|i64|ui8|"
                          r"ui16|ui32|ui64)>")
_MLIR_DTYPE = {"i1": "b8", "ui8": "u8", "ui16": "u16", "ui32": "u32", "ui64": "u64"}
DYNAMIC = -1  # a dimension only the call knows (the runner's SHAPES=dynamic images)
MAX_RANK = 8  # ireerv_tensor_t.dims


class LibraryError(ValueError):
    """A model the library cannot describe."""


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str  # a key of DTYPES
    shape: tuple[int, ...]
    scale: float = 0.0
    zero_point: int = 0

    @property
    def bytes(self) -> int:
        """0 for a tensor of dynamic shape."""
        return 0 if DYNAMIC in self.shape else math.prod(self.shape) * _ITEMSIZE[self.dtype]


def c_name(model_name: str) -> str:
    """The model's name as a C identifier: `kws`, `kws_float`, `_1net`."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", model_name)
    return f"_{name}" if name[:1].isdigit() or not name else name


def _quantisation(info) -> tuple[float, int]:
    scale, zero = getattr(info, "scale", ()), getattr(info, "zero_point", ())
    return (float(scale[0]), int(zero[0])) if len(scale) == 1 and len(zero) == 1 else (0.0, 0)


def dtype_of(array: np.ndarray) -> str | None:
    """The key of DTYPES for an array's element type (None: none)."""
    import numpy as np

    dtype = np.dtype(array.dtype)
    if dtype == np.bool_:
        return "b8"
    kind = {"f": "bf" if dtype.name == "bfloat16" else "f", "i": "i", "u": "u"}.get(dtype.kind)
    name = f"{kind}{dtype.itemsize * 8}" if kind else None
    return name if name in DTYPES else None


def inputs(model: Model, size: int | None, arrays: list | None = None) -> list[Tensor]:
    """The model's inputs as the compiled program takes them (`arrays`: those already
    made)."""
    names = tensor_names(model, "inputs", len(model.inputs))
    origin = list(getattr(model.origin, "inputs", None) or ())
    found = []
    arrays = model.device_inputs(size) if arrays is None else arrays
    for index, (name, array) in enumerate(zip(names, arrays, strict=True)):
        dtype = dtype_of(array)
        if dtype is None:
            raise LibraryError(f"input {name}: {array.dtype} has no ireerv dtype")
        quant = _quantisation(origin[index]) if len(origin) == len(names) else (0.0, 0)
        found.append(Tensor(name, dtype, tuple(array.shape), *quant))
    return found


def outputs(model: Model, mlir_text: str, dynamic: bool = False) -> list[Tensor]:
    """The outputs, from the framework's file where it names them, else from the result
    types of the MLIR function iree-compile compiles (`dynamic`: dimensions it leaves to
    the call are DYNAMIC, for the runner, which reads results as they come)."""
    origin = list(getattr(model.origin, "outputs", None) or ())
    if origin and all(all(isinstance(d, int) and d >= 0 for d in t.shape) for t in origin) \
            and all(DEMOTED.get(t.dtype, t.dtype) in DTYPES for t in origin):
        return [Tensor(t.name, DEMOTED.get(t.dtype, t.dtype), tuple(t.shape),
                       *_quantisation(t)) for t in origin]
    match = re.search(rf"@{re.escape(model.function)}\((.*?)\)\s*->\s*\(?([^{{]*)",
                      mlir_text, re.S)
    if not match:
        raise LibraryError(f"model {model.name}: function @{model.function} not found")
    types = _MLIR_TENSOR.findall(match.group(2))
    if not types or (not dynamic and any("?" in dims for dims, _ in types)):
        raise LibraryError(f"model {model.name}: the results of @{model.function} are not "
                           "tensors of static shape")
    names = tensor_names(model, "outputs", len(types))
    return [Tensor(name, DEMOTED.get(dtype, _MLIR_DTYPE.get(dtype, dtype)),
                   tuple(DYNAMIC if d == "?" else int(d) for d in dims.split("x") if d))
            for name, (dims, dtype) in zip(names, types, strict=True)]


def c_string(text: str) -> str:
    """`text` as a C string literal (UTF-8, octal escapes outside printable ASCII)."""
    out = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _tensor_c(tensor: Tensor) -> str:
    if len(tensor.shape) > MAX_RANK:
        raise LibraryError(f"{tensor.name}: rank {len(tensor.shape)}, at most {MAX_RANK}")
    dims = ", ".join(map(str, tensor.shape)) or "0"
    return (f"    {{{c_string(tensor.name)}, {DTYPES[tensor.dtype]}, {len(tensor.shape)}, "
            f"{{{dims}}}, "
            f"{tensor.bytes}u, {tensor.scale!r}f, {tensor.zero_point}}},")


def descriptor_source(name: str, module: str, function: str, queries: list[str],
                      ins: list[Tensor], outs: list[Tensor], harts: bool = False) -> str:
    """`const ireerv_model_t <name>_model`: the only global symbol of the model archive;
    with `harts`, it names the archive's dispatcher (runtime/api/model_harts.c), and
    `runner_model` gives that dispatcher the model (its kernel libraries)."""
    lines = ["// Generated: the model's description for the ireerv runtime.",
             '#include "ireerv_model.h"', *(['#include "runner.h"'] if harts else []), "",
             f"extern iree_status_t {module}_create(iree_vm_instance_t *instance,",
             "    iree_allocator_t allocator, iree_vm_module_t **out_module);"]
    for query in queries:
        lines += [f"extern const iree_hal_executable_library_header_t **{query}(",
                  "    iree_hal_executable_library_version_t max_version,",
                  "    const iree_hal_executable_environment_v0_t *environment);"]
    lines += ["", "static const iree_hal_executable_library_query_fn_t libraries[] = {",
              *(f"    {q}," for q in queries), *(["    NULL,"] if not queries else []), "};",
              "static const ireerv_tensor_t inputs[] = {", *map(_tensor_c, ins),
              *(["    {0},"] if not ins else []), "};",
              "static const ireerv_tensor_t outputs[] = {", *map(_tensor_c, outs),
              *(["    {0},"] if not outs else []), "};", ""]
    if harts:
        lines += ["extern const ireerv_harts_t ireerv_model_harts;", ""]
    lines += [f"const ireerv_model_t {name}_model = {{",
              "    IREERV_MODEL_MAGIC, IREERV_MODEL_VERSION,",
              f"    {c_string(name)}, {c_string(f'{module}.{function}')}, {module}_create,",
              f"    libraries, {len(queries)}u, inputs, {len(ins)}u, outputs, {len(outs)}u,",
              f"    {'&ireerv_model_harts' if harts else 'NULL'},",
              "};"]
    if harts:  # what the dispatcher reads of the model (runtime/runner/runner.h)
        lines += ["", f"const runner_model_t runner_model = {{&{name}_model, NULL, 0}};"]
    return "\n".join(lines) + "\n"


def header(name: str, arena_bytes: int, ins: list[Tensor], outs: list[Tensor],
           sections: list[str]) -> str:
    """<m>.h: the model, its arena size, and its tensors' sizes as constants."""
    big = name.upper()
    lines = [f"// Generated: model {name} for the ireerv runtime (docs/firmware.md).",
             f"#ifndef IREERV_MODEL_{big}_H_", f"#define IREERV_MODEL_{big}_H_", "",
             '#include "ireerv.h"', "", '#ifdef __cplusplus', 'extern "C" {', "#endif", "",
             f"extern const ireerv_model_t {name}_model;", "",
             "// What ireerv_open needs for this model: measured when the library was built",
             "// (the runtime's peak in the arena over three calls), plus a margin.",
             f"#define {big}_ARENA_BYTES {arena_bytes}u",
             f"#define {big}_INPUTS {len(ins)}", f"#define {big}_OUTPUTS {len(outs)}"]
    for kind, tensors in (("INPUT", ins), ("OUTPUT", outs)):
        for index, tensor in enumerate(tensors):
            lines.append(f"#define {big}_{kind}{index}_BYTES {tensor.bytes}u  "
                         f"// {tensor.name}: {tensor.dtype} "
                         f"[{','.join(map(str, tensor.shape))}]")
    if sections:
        lines += ["", "// Constants of 1 MiB and more: their own sections, for the linker "
                  "script to place.", *(f'#define {big}_CONSTANTS_SECTION{i} "{s}"'
                                        for i, s in enumerate(sections))]
    lines += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif  // IREERV_MODEL_{big}_H_"]
    return "\n".join(lines) + "\n"


def arena_bytes(measured: int) -> int:
    """<M>_ARENA_BYTES from the measured peak: 1/8 more and 1 KiB, in whole 64 bytes (the
    runtime's blocks are the same every call; the margin covers another C library's
    string functions and a future runtime's small allocations)."""
    return (measured + measured // 8 + 1024 + 63) // 64 * 64
