"""C source that describes one model to the generic runner (run/runner_output.py parses what
it prints).

The runner (runtime/runner/runner.c) is the same for every model; the generated
file holds the model's description as the library's archives carry it (`<m>_model`,
written by library/model_source.py: the vm-c module's create function, the kernel
libraries' query functions, the function to call, its inputs and outputs), and defines
`runner_model` (see runtime/runner/runner.h): that description, the inputs' data as exact
bit patterns and the repeat count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # NumPy is imported where data is made: a no-op build needs none
    import numpy as np

    from ireerv.library.model_source import Tensor

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# iree-compile's kernel header declares `<name>_library_query(` for each library.
_LIBRARY_QUERY = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*_library_query)\s*\(")
_VALUES_PER_LINE = 8


class RunnerDataError(ValueError):
    """A model description the runner cannot take."""


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
    outputs: Sequence[Tensor] = (),
    tensors: Sequence[Tensor] | None = None,
    name: str = "model",
) -> str:
    """C source for calling `<module_name>.<function_name>(*inputs)`: the model's
    description as the library's archives carry it (`<name>_model`, from the library's
    generator), each input's data and the repeat count as `runner_model`.

    `module_name` is the vm-c module's name ("module" unless the MLIR module is
    named); `library_queries` names the static kernel libraries' query functions;
    `outputs` the results (library.model_source.outputs); `tensors` the inputs' names
    and quantisation (library.model_source.inputs), else input0, input1, ...
    """
    from ireerv.library import model_source as description

    _check_identifier(module_name, "module name")
    _check_identifier(name, "model name")
    if not function_name:
        raise RunnerDataError("function name is empty")
    for query in library_queries:
        _check_identifier(query, "library query function")
    if repeat < 1:
        raise RunnerDataError(f"repeat count must be at least 1, not {repeat}")
    datas, decls = [], []
    for index, array in enumerate(inputs):
        more, data = _input_data(index, array)
        decls += more
        datas.append(data)
    if tensors is None:
        tensors = [_tensor_of(index, array) for index, array in enumerate(inputs)]
    try:
        text = description.descriptor_source(name, module_name, function_name,
                                             list(library_queries), list(tensors),
                                             list(outputs))
    except description.LibraryError as err:
        raise RunnerDataError(str(err)) from None
    lines = [text.replace('#include "ireerv_model.h"', '#include "runner.h"', 1), *decls,
             "static const void* const input_data[] = {",
             *(f"    {d}," for d in datas), *(["    NULL,"] if not datas else []), "};", "",
             "const runner_model_t runner_model = {",
             f"    &{name}_model, input_data, {repeat},", "};"]
    return "\n".join(lines) + "\n"


def _tensor_of(index: int, array: np.ndarray) -> Tensor:
    from ireerv.library import model_source as description

    dtype = description.dtype_of(array)
    if dtype is None:
        raise RunnerDataError(f"input {index}: dtype {array.dtype} has no ireerv dtype")
    return description.Tensor(f"input{index}", dtype, tuple(array.shape))


def _input_data(index: int, array: np.ndarray) -> tuple[list[str], str]:
    """Declarations of one input's data (its exact bits), and its name or NULL."""
    import numpy as np

    if not isinstance(array, np.ndarray):
        raise RunnerDataError(f"input {index} is a {type(array).__name__}, not a numpy array")
    size = array.dtype.itemsize
    # The target is little-endian; the data keeps each element's exact bits.
    little = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))
    words = little.reshape(-1).view(f"<u{size}")
    if not words.size:  # a pointer all the same: the API refuses NULL inputs
        return [f"static const uint32_t input{index}_data[1];  // no elements", ""], \
            f"input{index}_data"
    digits = size * 2
    suffix = "ull" if size == 8 else "u"
    values = [f"0x{int(w):0{digits}x}{suffix}" for w in words]
    # Word-aligned: with staged constants the runner copies it in word by word.
    align = " __attribute__((aligned(4)))" if size < 4 else ""
    decls = [f"static const uint{size * 8}_t input{index}_data[]{align} = {{"]
    for start in range(0, len(values), _VALUES_PER_LINE):
        decls.append("    " + ", ".join(values[start : start + _VALUES_PER_LINE]) + ",")
    return [*decls, "};", ""], f"input{index}_data"


def _check_identifier(name: str, what: str) -> None:
    if not _IDENTIFIER.match(name):
        raise RunnerDataError(f"{what} {name!r} is not a C identifier")


def _check_header_name(name: str) -> None:
    if not name or any(c in name for c in '"\n\\'):
        raise RunnerDataError(f"header name {name!r} cannot be included")
