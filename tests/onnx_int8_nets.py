"""ONNX networks for the int8 tests, written here from fixed seeds: a DS-CNN of MLPerf
Tiny kws's shape and small convolution networks, in float and quantized by the pinned
ONNX Runtime's quantize_static (QDQ or QOperator, int8 activations, per-channel int8
weights).  Run as a script it writes the DS-CNN's three forms into a folder:

    .venv/bin/python tests/onnx_int8_nets.py /tmp/dscnn
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
CALIBRATION_SAMPLES = 16


def _init(rng: np.random.Generator, name: str, shape: tuple[int, ...],
          fan_in: int) -> object:
    values = rng.normal(0.0, np.sqrt(2.0 / fan_in), shape).astype(np.float32)
    return numpy_helper.from_array(values, name)


def _bias(rng: np.random.Generator, name: str, size: int) -> object:
    return numpy_helper.from_array(rng.normal(0.0, 0.1, size).astype(np.float32), name)


def dscnn(seed: int = 64) -> object:
    """kws's DS-CNN: input 1x1x49x10, a 10x4 convolution of stride 2 to 64 channels, four
    blocks of a 3x3 depthwise and a 1x1 pointwise convolution (each with ReLU), a global
    average pool and a Gemm to 12 (about 2.66 M MACs)."""
    rng = np.random.default_rng(seed)
    inits = [_init(rng, "w0", (64, 1, 10, 4), 40), _bias(rng, "b0", 64)]
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0",
                              kernel_shape=[10, 4], strides=[2, 2], pads=[4, 1, 5, 2]),
             helper.make_node("Relu", ["c0"], ["r0"], name="relu0")]
    last = "r0"
    for block in range(1, 5):
        dw, pw = f"dw{block}", f"pw{block}"
        inits += [_init(rng, f"{dw}_w", (64, 1, 3, 3), 9), _bias(rng, f"{dw}_b", 64),
                  _init(rng, f"{pw}_w", (64, 64, 1, 1), 64), _bias(rng, f"{pw}_b", 64)]
        nodes += [helper.make_node("Conv", [last, f"{dw}_w", f"{dw}_b"], [f"{dw}_c"],
                                   name=dw, group=64, kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                  helper.make_node("Relu", [f"{dw}_c"], [f"{dw}_r"], name=f"{dw}_relu"),
                  helper.make_node("Conv", [f"{dw}_r", f"{pw}_w", f"{pw}_b"], [f"{pw}_c"],
                                   name=pw, kernel_shape=[1, 1]),
                  helper.make_node("Relu", [f"{pw}_c"], [f"{pw}_r"], name=f"{pw}_relu")]
        last = f"{pw}_r"
    inits += [_init(rng, "fc_w", (64, 12), 64), _bias(rng, "fc_b", 12)]
    nodes += [helper.make_node("GlobalAveragePool", [last], ["pool"], name="pool"),
              helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"),
              helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], name="fc")]
    return _model(nodes, inits, "dscnn", (1, 1, 49, 10), (1, 12))


def small_conv(seed: int = 7) -> object:
    """A small network of the int8 path's operators: a padded strided convolution, a
    depthwise one, a pointwise one with a residual Add, a global average pool and a Gemm."""
    rng = np.random.default_rng(seed)
    inits = [_init(rng, "w0", (8, 2, 3, 3), 18), _bias(rng, "b0", 8),
             _init(rng, "dw", (8, 1, 3, 3), 9), _bias(rng, "dwb", 8),
             _init(rng, "pw", (8, 8, 1, 1), 8), _bias(rng, "pwb", 8),
             _init(rng, "fc", (8, 5), 8), _bias(rng, "fcb", 5)]
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0",
                              kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
             helper.make_node("Conv", ["r0", "dw", "dwb"], ["c1"], name="dw", group=8,
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "pw", "pwb"], ["c2"], name="pw",
                              kernel_shape=[1, 1]),
             helper.make_node("Add", ["c2", "r0"], ["a"], name="residual"),
             helper.make_node("GlobalAveragePool", ["a"], ["p"], name="pool"),
             helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc")]
    return _model(nodes, inits, "small_conv", (1, 2, 12, 12), (1, 5))


def operators(seed: int = 5, conv_transpose: bool = True) -> object:
    """The operators between Q/DQ pairs beyond the contractions: a convolution, a Sigmoid
    and a Mul of the two (a swish), a LeakyRelu, a Concat of inputs of different scales,
    a ConvTranspose of stride 2 (or, for the QOperator form, whose quantizer leaves a
    ConvTranspose in float, a pointwise convolution), a global average pool, Squeeze,
    Unsqueeze, Transpose, Reshape and a Gemm."""
    rng = np.random.default_rng(seed)
    inits = [_init(rng, "w0", (4, 2, 3, 3), 18), _bias(rng, "b0", 4),
             _init(rng, "w1", (8, 4, 2, 2) if conv_transpose else (4, 8, 1, 1), 32),
             _bias(rng, "b1", 4), _init(rng, "fc", (4, 3), 4), _bias(rng, "fcb", 3),
             numpy_helper.from_array(np.array([2, 3], np.int64), "ax23"),
             numpy_helper.from_array(np.array([1], np.int64), "ax1"),
             numpy_helper.from_array(np.array([1, 4], np.int64), "shape")]
    up = (helper.make_node("ConvTranspose", ["cat", "w1", "b1"], ["t"], name="up",
                           kernel_shape=[2, 2], strides=[2, 2]) if conv_transpose else
          helper.make_node("Conv", ["cat", "w1", "b1"], ["t"], name="up", kernel_shape=[1, 1]))
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Sigmoid", ["c0"], ["s"], name="sigmoid"),
             helper.make_node("Mul", ["c0", "s"], ["m"], name="mul"),
             helper.make_node("LeakyRelu", ["m"], ["l"], name="leaky", alpha=0.1),
             helper.make_node("Concat", ["l", "c0"], ["cat"], name="concat", axis=1), up,
             helper.make_node("GlobalAveragePool", ["t"], ["p"], name="pool"),
             helper.make_node("Squeeze", ["p", "ax23"], ["sq"], name="squeeze"),
             helper.make_node("Unsqueeze", ["sq", "ax1"], ["us"], name="unsqueeze"),
             helper.make_node("Transpose", ["us"], ["tr"], name="transpose", perm=[0, 2, 1]),
             helper.make_node("Reshape", ["tr", "shape"], ["f"], name="reshape"),
             helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc")]
    return _model(nodes, inits, "operators", (1, 2, 8, 8), (1, 3))


def dynamic(float_file: Path, out: Path, seed: int = 3) -> Path:
    """A convolution and a MatMul quantized by the pinned ONNX Runtime's quantize_dynamic:
    DynamicQuantizeLinear, ConvInteger and MatMulInteger (int32 sums scaled at run time);
    the float model is written to `float_file`."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    rng = np.random.default_rng(seed)
    inits = [_init(rng, "w0", (4, 2, 3, 3), 18), _bias(rng, "b0", 4),
             _init(rng, "fc", (256, 5), 64), _bias(rng, "fcb", 5)]
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], name="conv0",
                              kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c0"], ["r0"], name="relu0"),
             helper.make_node("Flatten", ["r0"], ["f"], name="flatten"),
             helper.make_node("MatMul", ["f", "fc"], ["mm"], name="mm"),
             helper.make_node("Add", ["mm", "fcb"], ["y"], name="bias")]
    onnx.save(_model(nodes, inits, "dynamic", (1, 2, 8, 8), (1, 5)), str(float_file))
    quantize_dynamic(str(float_file), str(out), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["Conv", "MatMul"])
    return out


def _model(nodes, inits, name: str, shape: tuple[int, ...], out: tuple[int, ...]) -> object:
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out)],
                              inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def samples(shape: tuple[int, ...], count: int = CALIBRATION_SAMPLES,
            seed: int = 1) -> list[np.ndarray]:
    """The calibration samples: seeded integers in [-4, 4], the project's default inputs."""
    rng = np.random.default_rng(seed)
    return [rng.integers(-4, 5, shape).astype(np.float32) for _ in range(count)]


def quantized(float_file: Path, out: Path, fmt: str = "QDQ") -> Path:
    """The model quantized by the pinned ONNX Runtime: int8 activations, per-channel int8
    weights, 16 calibration samples (`fmt`: QDQ or QOperator)."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    model = onnx.load(str(float_file))
    name = model.graph.input[0].name
    shape = tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.data = iter([{name: s} for s in samples(shape)])

        def get_next(self):
            return next(self.data, None)

    quantize_static(str(float_file), str(out), Reader(), quant_format=getattr(QuantFormat, fmt),
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    per_channel=True)
    return out


def write_forms(model, folder: Path) -> dict[str, Path]:
    """The model's float, QDQ and QOperator forms, each a model folder under `folder`."""
    import onnx

    paths = {}
    for form in ("float", "qdq", "qoperator"):
        (folder / form).mkdir(parents=True, exist_ok=True)
        paths[form] = folder / form / "model.onnx"
    onnx.save(model, str(paths["float"]))
    quantized(paths["float"], paths["qdq"], "QDQ")
    quantized(paths["float"], paths["qoperator"], "QOperator")
    return paths


if __name__ == "__main__":
    for form, path in write_forms(dscnn(), Path(sys.argv[1])).items():
        print(form, path)
