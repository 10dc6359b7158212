"""ONNX's standard test data beside a model: `test_data_set_<n>/input_<k>.pb` and
`output_<k>.pb` (serialised TensorProto), as the `onnx` package ships its backend tests.

When a model's folder has them, the image runs with set 0's inputs and is checked
against its outputs; users can record expected outputs the same way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ireerv.formats.base import ModelError

SET = "test_data_set_0"


def find(onnx_file: Path) -> Path | None:
    """The folder of test data set 0 beside the model, if there is one."""
    folder = onnx_file.parent / SET
    return folder if (folder / "input_0.pb").is_file() else None


def read(folder: Path, kind: str) -> list[np.ndarray]:
    """The arrays of `kind` ("input" or "output"), in order."""
    from onnx import TensorProto, numpy_helper

    arrays = []
    while (path := folder / f"{kind}_{len(arrays)}.pb").is_file():
        tensor = TensorProto()
        try:
            tensor.ParseFromString(path.read_bytes())
            arrays.append(numpy_helper.to_array(tensor))
        except Exception as err:  # protobuf's DecodeError: not a serialised tensor
            raise ModelError(f"{path}: not an ONNX tensor ({type(err).__name__})") from None
    return arrays


def files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.pb"))
