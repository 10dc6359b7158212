"""The reference of an imported model: ONNX Runtime on the original .onnx file.

An independent implementation: it shares neither the importer nor the
compiler with the image, so an import or lowering error shows as a mismatch.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from ireerv.run.reference import run_child

# One thread, the CPU provider: the same answer on every run of one host.
_CHILD = """
import sys
from pathlib import Path
import numpy as np
folder, model, names = Path(sys.argv[2]), sys.argv[3], sys.argv[4:]
with np.load(folder / "inputs.npz") as data:
    inputs = [data[f"a{i}"] for i in range(len(data.files))]
try:
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    outputs = session.run(None, dict(zip(names, inputs)))
except Exception as err:
    text = " ".join(f"{type(err).__name__}: {err}".split())
    sys.stderr.write(text[:600] + "\\n")
    sys.exit(3)
np.savez(folder / "outputs.npz", **{f"a{i}": np.asarray(a) for i, a in enumerate(outputs)})
"""


def runtime_identity() -> str:
    """ONNX Runtime's version (from requirements.txt): the reference depends on it."""
    from importlib import metadata

    try:
        return f"onnxruntime=={metadata.version('onnxruntime')}"
    except metadata.PackageNotFoundError:
        return "onnxruntime (not installed)"


def compute(onnx_file: Path, input_names: list[str], inputs: list[np.ndarray], *,
            timeout: float = 600) -> list[np.ndarray]:
    """ONNX Runtime's outputs for `inputs`, computed in a child process with a time limit."""
    where = f"the ONNX Runtime reference ({onnx_file.name})"
    with tempfile.TemporaryDirectory(prefix="ireerv-ort-") as tmp:
        return run_child(_CHILD, Path(tmp), inputs, [str(onnx_file), *input_names], where,
                         timeout)
