"""C source that describes one model to the generic runner (run/runner_output.py parses what
it prints).

The runner (runtime/runner/runner.c) is the same for every model; the generated
file defines `runner_model` (see runtime/runner/runner.h): the vm-c module's
create function, the kernel libraries' query functions, the function to call
and its input tensors as exact bit patterns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported where data is made: a no-op build needs none
    import numpy as np

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# iree-compile's kernel header declares `<name>_library_query(` for each library.
_LIBRARY_QUERY = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*_library_query)\s*\(")
_VALUES_PER_LINE = 8


class RunnerDataError(ValueError):
    """A model description the runner cannot take."""


def element_type(dtype: np.dtype) -> str:
    """The IREE_HAL_ELEMENT_TYPE_* constant for a NumPy dtype."""
    import numpy as np

    dtype = np.dtype(dtype)
    bits = dtype.itemsize * 8
    if dtype == np.bool_:
        return "IREE_HAL_ELEMENT_TYPE_BOOL_8"
    if dtype.name == "bfloat16":  # ml_dtypes
        return "IREE_HAL_ELEMENT_TYPE_BFLOAT_16"
    if dtype.kind == "f" and bits in (16, 32, 64):
        return f"IREE_HAL_ELEMENT_TYPE_FLOAT_{bits}"
    if dtype.kind == "i" and bits in (8, 16, 32, 64):
        return f"IREE_HAL_ELEMENT_TYPE_SINT_{bits}"
    if dtype.kind == "u" and bits in (8, 16, 32, 64):
        return f"IREE_HAL_ELEMENT_TYPE_UINT_{bits}"
    raise RunnerDataError(f"dtype {dtype} has no IREE element type the runner supports")


# The kernel header written for a model without dispatches (iree-compile writes none).
NO_KERNEL_HEADER = "// Generated: the model has no dispatch, so no kernel library.\n"


def library_queries(kernel_header: str) -> list[str]:
    """The library query functions an iree-compile kernel header declares, in order."""
    if kernel_header == NO_KERNEL_HEADER:
        return []
    names = list(dict.fromkeys(_LIBRARY_QUERY.findall(kernel_header)))
    if not names:
        raise RunnerDataError("kernel header declares no *_library_query function")
    return names


def module_impl_source(module_header: str) -> str:
    """The translation unit that compiles a vm-c module header's implementation."""
    _check_header_name(module_header)
    return (
        "// Generated: the implementation of the vm-c module.\n"
        "#define EMITC_IMPLEMENTATION\n"
        f'#include "{module_header}"\n'
    )


def model_source(
    module_name: str,
    function_name: str,
    inputs: Sequence[np.ndarray],
    *,
    library_queries: Sequence[str],
    repeat: int = 2,
) -> str:
    """C source defining `runner_model` for calling `<module_name>.<function_name>(*inputs)`.

    `module_name` is the vm-c module's name ("module" unless the MLIR module is
    named); `library_queries` names the static kernel libraries' query functions.
    """
    _check_identifier(module_name, "module name")
    if not function_name:
        raise RunnerDataError("function name is empty")
    for name in library_queries:
        _check_identifier(name, "library query function")
    if repeat < 1:
        raise RunnerDataError(f"repeat count must be at least 1, not {repeat}")

    lines = [
        "// Generated: the model description for the generic runner.", '#include "runner.h"', "",
        f"extern iree_status_t {module_name}_create(iree_vm_instance_t* instance,",
        "    iree_allocator_t allocator, iree_vm_module_t** out_module);",
    ]
    for name in library_queries:
        lines += [
            f"extern const iree_hal_executable_library_header_t** {name}(",
            "    iree_hal_executable_library_version_t max_version,",
            "    const iree_hal_executable_environment_v0_t* environment);",
        ]
    if library_queries:  # none for a model without dispatches
        lines += ["", "static const iree_hal_executable_library_query_fn_t libraries[] = {",
                  *(f"    {name}," for name in library_queries), "};"]
    lines += [""]

    descriptors = []
    for index, array in enumerate(inputs):
        decls, descriptor = _tensor(index, array)
        lines += decls
        descriptors.append(descriptor)
    if descriptors:
        lines += ["static const runner_tensor_t inputs[] = {"]
        lines += [f"    {d}," for d in descriptors]
        lines += ["};", ""]

    lines += [
        "const runner_model_t runner_model = {",
        f"    .function_name = {_c_string(f'{module_name}.{function_name}')},",
        f"    .module_create = {module_name}_create,",
        f"    .libraries = {'libraries' if library_queries else 'NULL'},",
        f"    .library_count = {len(library_queries)},",
        f"    .inputs = {'inputs' if descriptors else 'NULL'},",
        f"    .input_count = {len(descriptors)},",
        f"    .repeat = {repeat},",
        "};",
    ]
    return "\n".join(lines) + "\n"


def _tensor(index: int, array: np.ndarray) -> tuple[list[str], str]:
    """Declarations of one input's shape and data, and its descriptor initialiser."""
    import numpy as np

    if not isinstance(array, np.ndarray):
        raise RunnerDataError(f"input {index} is a {type(array).__name__}, not a numpy array")
    etype = element_type(array.dtype)
    size = array.dtype.itemsize
    # The target is little-endian; the data keeps each element's exact bits.
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    words = little.reshape(-1).view(f"<u{size}")
    decls = []
    shape = "NULL"
    if array.ndim:
        dims = ", ".join(str(d) for d in array.shape)
        decls.append(f"static const iree_hal_dim_t input{index}_shape[] = {{{dims}}};")
        shape = f"input{index}_shape"
    data = "NULL"
    if words.size:
        digits = size * 2
        suffix = "ull" if size == 8 else "u"
        values = [f"0x{int(w):0{digits}x}{suffix}" for w in words]
        # Word-aligned: with staged constants the runner copies it in word by word.
        align = " __attribute__((aligned(4)))" if size < 4 else ""
        decls.append(f"static const uint{size * 8}_t input{index}_data[]{align} = {{")
        for start in range(0, len(values), _VALUES_PER_LINE):
            decls.append("    " + ", ".join(values[start : start + _VALUES_PER_LINE]) + ",")
        decls.append("};")
        data = f"input{index}_data"
    decls.append("")
    descriptor = f"{{{etype}, {array.ndim}, {shape}, {data}, {words.size * size}}}"
    return decls, descriptor


def _check_identifier(name: str, what: str) -> None:
    if not _IDENTIFIER.match(name):
        raise RunnerDataError(f"{what} {name!r} is not a C identifier")


def _check_header_name(name: str) -> None:
    if not name or any(c in name for c in '"\n\\'):
        raise RunnerDataError(f"header name {name!r} cannot be included")


def _c_string(text: str) -> str:
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
