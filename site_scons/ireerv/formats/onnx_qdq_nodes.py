"""The ONNX nodes of a QDQ model as the TFLite translator's int8 operators: `read` walks
the model's nodes in graph order and writes each one's (onnx_qdq.Reader holds the graph
being written; onnx_qdq_ops.py has Mul, Concat, Sigmoid, LeakyRelu, Transpose and
ConvTranspose)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from ireerv.formats import onnx_qdq_ops
from ireerv.formats.onnx_qdq import (
    DQ,
    NotInteger,
    Reader,
    _int8,
    bias_tensor,
    node_attrs,
    weights_tensor,
)
from ireerv.formats.tflite_reader import Tensor, TfliteGraph


def _dequantize(r: Reader, node) -> None:
    source = node.input[0]
    if source in r.consts:  # weights or a bias: read by the node that takes them
        scale, zero, axis = r.qparams(node)
        data = r.consts[source]
        if data.dtype == np.int32:
            r.weights[node.output[0]] = (data, scale, zero.astype(np.int32), axis)
        else:
            r.weights[node.output[0]] = (_int8(data), scale, _int8(zero).astype(np.int32), axis)
        return
    if node.output[0] in r.outputs:  # the model's float result
        index = r.plain(source)
        t = r.tensors[index]
        out = r.add(Tensor(node.output[0], t.shape, "f32"))
        r.op("DEQUANTIZE", [index], [out])
        r.floats[node.output[0]] = out
        return
    r.acts[node.output[0]] = r.acts[source]  # the same numbers, read as reals


def _quantize(r: Reader, node) -> None:
    source, shape = node.input[0], r.shapes[node.output[0]]
    if source in r.floats:
        out = r.add(r.act_tensor(node.output[0], shape, node))
        r.op("QUANTIZE", [r.floats[source]], [out])
        r.acts[node.output[0]] = (out, False)
        return
    if source not in r.acts:
        raise NotInteger(f"{r.path}: node {node.name!r} (QuantizeLinear) quantizes "
                         f"{source!r}, which no integer operator wrote")
    index, nhwc = r.acts[source]
    t = r.tensors[index]
    want = r.act_tensor(node.output[0], t.shape, node)
    if (want.scale, want.zero_point) == (t.scale, t.zero_point):
        r.acts[node.output[0]] = (index, nhwc)
        return
    out = r.add(want)
    r.op("QUANTIZE", [index], [out])
    r.acts[node.output[0]] = (out, nhwc)


def _conv(r: Reader, node) -> None:
    a = node_attrs(node)
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotInteger(f"{r.path}: node {node.name!r} (Conv) with auto_pad")
    x = r.nhwc(node.input[0])
    tx = r.tensors[x]
    data, scale, zero, _ = r.const_weights(node, node.input[1])
    if data.ndim != 4:
        raise NotInteger(f"{r.path}: node {node.name!r} (Conv) is not two-dimensional")
    outs, per_group, kh, kw = data.shape
    groups, cin = a.get("group", 1), tx.shape[3]
    pads = a.get("pads", [0, 0, 0, 0])
    strides, dilations = a.get("strides", [1, 1]), a.get("dilations", [1, 1])
    n, _, oh, ow = r.shapes[node.output[0]]
    options = {"Padding": "EXPLICIT", "Pads": (pads[0], pads[2], pads[1], pads[3]),
               "StrideH": strides[0], "StrideW": strides[1],
               "DilationHFactor": dilations[0], "DilationWFactor": dilations[1]}
    if groups == cin and per_group == 1 and groups > 1:
        kind, weights = "DEPTHWISE_CONV_2D", np.transpose(data, (1, 2, 3, 0))
        options["DepthMultiplier"], axis = outs // cin, 3
    else:
        kind, axis = "CONV_2D", 0
        weights = np.zeros((outs, kh, kw, cin), np.int8)
        size = outs // groups
        for g in range(groups):  # groups as one convolution with zeros between them
            weights[g * size:(g + 1) * size, :, :, g * per_group:(g + 1) * per_group] = \
                np.transpose(data[g * size:(g + 1) * size], (0, 2, 3, 1))
    w = weights_tensor(r, node, node.input[1], np.ascontiguousarray(weights), scale, zero, axis)
    b = bias_tensor(r, node, node.input[2] if len(node.input) > 2 else None, tx, scale, outs)
    out, act = r.result(node, (n, oh, ow, outs), True)
    r.op(kind, [x, w, b], [out], **options, **act)


def _gemm(r: Reader, node) -> None:
    a = node_attrs(node)
    if a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0 or a.get("transA", 0):
        raise NotInteger(f"{r.path}: node {node.name!r} (Gemm) with alpha, beta or transA")
    x = r.plain(node.input[0])
    data, scale, zero, axis = r.const_weights(node, node.input[1])
    if data.ndim != 2:
        raise NotInteger(f"{r.path}: node {node.name!r}: weights of rank {data.ndim}")
    if not a.get("transB", 0):
        data, axis = data.T, 1 - axis
    outs = data.shape[0]
    w = weights_tensor(r, node, node.input[1], np.ascontiguousarray(data), scale, zero, 0)
    bias = node.input[2] if len(node.input) > 2 else None
    b = bias_tensor(r, node, bias, r.tensors[x], scale, outs)
    out, act = r.result(node, r.shapes[node.output[0]], False)
    r.op("FULLY_CONNECTED", [x, w, b], [out], WeightsFormat=0, **act)


def _global_average(r: Reader, node) -> None:
    x = r.nhwc(node.input[0])
    n, h, w, c = r.tensors[x].shape
    out, act = r.result(node, (n, 1, 1, c), True)
    r.op("GLOBAL_AVERAGE", [x], [out], **act)


def _pool(r: Reader, node) -> None:
    a = node_attrs(node)
    if a.get("ceil_mode", 0) or a.get("count_include_pad", 0) or a.get("dilations", [1, 1]) \
            != [1, 1] or a.get("auto_pad", "NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotInteger(f"{r.path}: node {node.name!r} ({node.op_type}) with ceil_mode, "
                         "count_include_pad, dilations or auto_pad")
    x = r.nhwc(node.input[0])
    tx = r.tensors[x]
    kh, kw = a["kernel_shape"]
    pads, strides = a.get("pads", [0, 0, 0, 0]), a.get("strides", [1, 1])
    n, c, oh, ow = r.shapes[node.output[0]]
    qnode, bounds = r.output_q(node)
    want = r.act_tensor(node.name, (n, oh, ow, c), qnode)
    same = (want.scale, want.zero_point) == (tx.scale, tx.zero_point)
    pooled = r.add(Tensor(node.name, want.shape, "i8", tx.scale, tx.zero_point))
    options = {"Padding": "EXPLICIT", "Pads": (pads[0], pads[2], pads[1], pads[3]),
               "StrideH": strides[0], "StrideW": strides[1], "FilterHeight": kh,
               "FilterWidth": kw, "FusedActivationFunction": "NONE"}
    if bounds is not None:
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after a pool")
    name = "MAX_POOL_2D" if node.op_type == "MaxPool" else "AVERAGE_POOL_2D"
    r.op(name, [x], [pooled], **options)
    out = pooled
    if not same:
        out = r.add(want)
        r.op("QUANTIZE", [pooled], [out])
    r.acts[qnode.output[0]] = (out, True)


def _add(r: Reader, node) -> None:
    left, right = (r.acts[name] for name in node.input[:2])
    both = left[1] or right[1]
    a, b = (r.nhwc(name) if both else r.plain(name) for name in node.input[:2])
    if r.tensors[a].shape != r.tensors[b].shape:
        raise NotInteger(f"{r.path}: node {node.name!r} (Add) broadcasts")
    out, act = r.result(node, r.tensors[a].shape, both)
    r.op("ADD", [a, b], [out], **act)


def _reshape(r: Reader, node) -> None:
    """Between a DQ and a Q (QDQ), or on the int8 tensor itself (QOperator): the same
    numbers in another shape, requantised if the Q after it says so."""
    x = r.plain(node.input[0])
    tx = r.tensors[x]
    users = r.consumers[node.output[0]]
    if not (len(users) == 1 and users[0].op_type == "QuantizeLinear"):
        out = r.add(Tensor(node.name, r.shapes[node.output[0]], "i8", tx.scale, tx.zero_point))
        r.op("RESHAPE", [x], [out])
        r.acts[node.output[0]] = (out, False)
        return
    qnode, bounds = r.output_q(node)
    want = r.act_tensor(node.name, r.shapes[node.output[0]], qnode)
    if bounds is not None:
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after a reshape")
    out = r.add(Tensor(node.name, want.shape, "i8", tx.scale, tx.zero_point))
    r.op("RESHAPE", [x], [out])
    if (want.scale, want.zero_point) != (tx.scale, tx.zero_point):
        moved = r.add(want)
        r.op("QUANTIZE", [out], [moved])
        out = moved
    r.acts[qnode.output[0]] = (out, False)


def _softmax(r: Reader, node) -> None:
    """Over the last axis: TFLite's int8 softmax (a table of exponentials) where its
    output quantisation allows, else in f32 between the int8 tensors (tflite_tosa)."""
    x = r.plain(node.input[0])
    rank = len(r.tensors[x].shape)
    if node_attrs(node).get("axis", -1) not in (-1, rank - 1):
        raise NotInteger(f"{r.path}: node {node.name!r} (Softmax) over another axis than the "
                         "last")
    out, act = r.result(node, r.tensors[x].shape, False)
    if act["FusedActivationFunction"] != "NONE":
        raise NotInteger(f"{r.path}: node {node.name!r}: an activation after a softmax")
    r.op("SOFTMAX", [x], [out], Beta=1.0)


HANDLERS: dict[str, Callable[[Reader, object], None]] = {
    DQ: _dequantize, "QuantizeLinear": _quantize, "Conv": _conv, "Gemm": _gemm,
    "MatMul": lambda r, node: _gemm(r, node), "GlobalAveragePool": _global_average,
    "MaxPool": _pool, "AveragePool": _pool, "Add": _add, "Flatten": _reshape,
    "Reshape": _reshape, "Squeeze": _reshape, "Unsqueeze": _reshape, "Softmax": _softmax,
    **onnx_qdq_ops.HANDLERS,
}


def read(model, path: Path) -> TfliteGraph:
    """The int8 graph of a QDQ model (prepared: static shapes inferred)."""
    reader = Reader(model, path)
    for vi in model.graph.input:
        if vi.name in reader.consts:
            continue
        reader.floats[vi.name] = reader.add(Tensor(vi.name, reader.shapes[vi.name], "f32"))
    inputs = list(reader.floats.values())
    for node in model.graph.node:
        if node.name in reader.fused or node.op_type == "Constant":
            continue
        handler = HANDLERS.get(node.op_type)
        if handler is None:
            raise NotInteger(f"{path}: node {node.name!r} ({node.op_type}) has no integer "
                             "translation")
        try:
            handler(reader, node)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            raise NotInteger(f"{path}: node {node.name!r} ({node.op_type}) cannot run on "
                             f"integers: {type(err).__name__}: {err}") from None
    outputs = []
    for name in reader.outputs:
        if name in reader.floats:
            outputs.append(reader.floats[name])
        elif name in reader.acts:
            outputs.append(reader.plain(name))
        else:
            raise NotInteger(f"{path}: output {name!r} is not written by the integer graph")
    return TfliteGraph(path, tuple(reader.tensors), tuple(reader.ops), tuple(inputs),
                       tuple(outputs))
