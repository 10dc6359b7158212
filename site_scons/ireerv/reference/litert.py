"""The reference of a TFLite model: the TFLite interpreter (LiteRT) on the original file.

An independent implementation: it shares neither the translator nor the
compiler with the image.  Its own kernels (XNNPACK delegate off), one thread.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ireerv.reference.host import framework_child, package_identity, run_child

_CHILD = framework_child("""
    from ai_edge_litert import interpreter as litert
    interp = litert.Interpreter(model_path=model, num_threads=1,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interp.allocate_tensors()
    for detail, value in zip(interp.get_input_details(), inputs):
        interp.set_tensor(detail["index"], value)
    interp.invoke()
    outputs = [interp.get_tensor(d["index"]) for d in interp.get_output_details()]
""")


def runtime_identity() -> str:
    """LiteRT's version: the reference depends on it."""
    return package_identity("ai-edge-litert")


def compute(tflite_file: Path, inputs: list[np.ndarray], *,
            timeout: float = 600) -> list[np.ndarray]:
    """LiteRT's outputs for `inputs`, computed in a child process with a time limit."""
    where = f"the LiteRT reference ({tflite_file.name})"
    with tempfile.TemporaryDirectory(prefix="ireerv-litert-") as tmp:
        return run_child(_CHILD, Path(tmp), inputs, [str(tflite_file)], where, timeout)
