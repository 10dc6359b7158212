"""The reference of an imported model: ONNX Runtime on the original .onnx file.

An independent implementation: it shares neither the importer nor the
compiler with the image, so an import or lowering error shows as a mismatch.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ireerv.reference.host import ReferenceError, framework_child, package_identity, run_child

# One thread, the CPU provider: the same answer on every run of one host.
_CHILD = framework_child("""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    outputs = session.run(None, dict(zip(names, inputs)))
""")


def runtime_identity() -> str:
    """ONNX Runtime's version: the reference depends on it."""
    return package_identity("onnxruntime")


def compute(onnx_file: Path, input_names: list[str], inputs: list[np.ndarray], *,
            timeout: float = 600) -> list[np.ndarray]:
    """ONNX Runtime's outputs for `inputs`, computed in a child process with a time limit."""
    where = f"the ONNX Runtime reference ({onnx_file.name})"
    with tempfile.TemporaryDirectory(prefix="ireerv-ort-") as tmp:
        try:
            return run_child(_CHILD, Path(tmp), inputs, [str(onnx_file), *input_names], where,
                             timeout)
        except ReferenceError as err:
            raise ReferenceError(
                f"{err}; ONNX Runtime cannot check this model: put ONNX's test data beside it "
                f"(test_data_set_0/input_<k>.pb and output_<k>.pb, serialised TensorProto) "
                "to check it against recorded outputs instead") from None
