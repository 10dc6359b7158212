"""Float ONNX models quantized by the build (QUANTIZE=int8, or `quantize = "int8"` in
model.toml): the pinned ONNX Runtime's quantize_static writes a QDQ model (int8
activations, per-channel int8 weights), which then runs on the integer kernels
(onnx_qdq.py) and is checked against ONNX Runtime on the quantized model itself.

Calibration samples: the .npy / .npz files of model.toml's `calibration` folder, in
name order (an .npz's arrays by input name, or in order), or SAMPLES samples from the
model's own input generators, each with its seed moved on by the sample's number.  The
quantized model's bytes are a function of the float model and the samples alone.  A
report beside it (JSON) says how far the quantized model is from the float one over
the samples: the largest difference and how often both give the same top-1 class.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ireerv.formats.base import InputSpec, ModelError

if TYPE_CHECKING:
    import numpy as np
from ireerv.paths import PROJECT_ROOT

CHOICES = ("model", "int8")  # QUANTIZE: as model.toml says; int8 whatever it says
SAMPLES = 16
SEED_STEP = 1000  # sample k's generator seed: the input's own + k * SEED_STEP


def quantized_paths(name: str) -> tuple[Path, Path]:
    """Where the build writes a model's quantized form and its report."""
    folder = PROJECT_ROOT / "build" / "quantized" / name
    return folder / "model.onnx", folder / "report.json"


def calibration_files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        raise ModelError(f"calibration folder {folder} does not exist")
    files = sorted(p for p in folder.iterdir() if p.suffix in (".npy", ".npz"))
    if not files:
        raise ModelError(f"calibration folder {folder} holds no .npy or .npz files")
    return files


def samples(inputs: tuple[InputSpec, ...], names: list[str],
            folder: Path | None) -> list[dict[str, np.ndarray]]:
    """The calibration samples, one {input name: array} each."""
    import numpy as np

    if folder is not None:
        found = []
        for path in calibration_files(folder):
            data = np.load(path)
            arrays = [data[k] for k in (names if set(names) <= set(data) else data.files)] \
                if path.suffix == ".npz" else [data]
            found.append({n: a.astype(np.float32) for n, a in zip(names, arrays, strict=True)})
        return found
    return [{name: replace(spec, generator={**spec.generator, "seed": spec.generator.get(
        "seed", 0) + k * SEED_STEP}).generate(None) for name, spec in zip(names, inputs,
                                                                          strict=True)}
            for k in range(SAMPLES)]


def quantize(float_file: Path, out: Path, data: list[dict[str, np.ndarray]]) -> None:
    """quantize_static, QDQ with int8 activations and per-channel int8 weights."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.rest = iter(data)

        def get_next(self):
            return next(self.rest, None)

    out.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice on pre-processing, on every model
    try:
        quantize_static(str(float_file), str(out), Reader(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                        per_channel=True)
    finally:
        root.setLevel(level)


def compare(float_file: Path, quantized: Path, data: list[dict[str, np.ndarray]]) -> dict:
    """The quantized model against the float one over the samples (ONNX Runtime, host)."""
    import numpy as np
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    runs = [ort.InferenceSession(str(f), options, providers=["CPUExecutionProvider"])
            for f in (float_file, quantized)]
    largest, same = 0.0, 0
    for sample in data:
        want, got = (s.run(None, sample)[0] for s in runs)
        largest = max(largest, float(np.max(np.abs(want - got))))
        same += int(np.argmax(want) == np.argmax(got))
    return {"samples": len(data), "largest_difference": largest, "top1_agreement": same}


def write(float_file: Path, out: Path, report: Path, data: list[dict[str, np.ndarray]]) -> None:
    quantize(float_file, out, data)
    report.write_text(json.dumps(compare(float_file, out, data), sort_keys=True) + "\n")


def note(report: Path) -> str:
    """The check's extra line: how far the quantized model is from the float one."""
    try:
        found = json.loads(report.read_text())
    except (OSError, ValueError):
        return "quantized by the build to int8 (QDQ): no comparison with the float model"
    return (f"quantized by the build to int8 (QDQ, per-channel weights); against the float "
            f"model over {found['samples']} calibration samples: largest difference "
            f"{found['largest_difference']:.4g}, top-1 agreement {found['top1_agreement']} "
            f"of {found['samples']}")
