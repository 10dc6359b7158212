"""Which layer of a model differs: the model copied with every layer's output made an
output of the graph, built and run like the model itself, each output checked against the
framework's own intermediate tensor in the graph's order (scons layer-check).  ONNX files
are rewritten with `onnx`, TFLite files with LiteRT's flatbuffer schema (its object API).

The copy gets a model.toml whose inputs are the original run's, value for value, so
both runs see the same numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ireerv.formats import onnx_qdq, onnx_qoperator
from ireerv.formats.base import Model, ModelError

SUPPORTED = {1, 3, 5, 6, 7, 9}  # TensorProto types the runner prints (f32, i8, i16, i32, i64, bool)


@dataclass(frozen=True)
class Layer:
    output: str  # the tensor
    node: str  # the node that makes it
    op: str
    index: int  # the node's place in the graph


def expose(model: Model, folder: Path) -> list[Layer]:
    """Write the copy into `folder` (model.onnx or model.tflite, and model.toml); the
    layers, in the copy's output order."""
    writers = {"onnx": _expose_onnx, "tflite": _expose_tflite}
    if model.format not in writers:
        raise ModelError(f"layer-check: {model.name} is a {model.format} model; the layer "
                         "check takes ONNX and TFLite models")
    folder.mkdir(parents=True, exist_ok=True)
    layers_ = writers[model.format](model, folder)
    _write_toml(model, folder / "model.toml")
    (folder / "layers.json").write_text(json.dumps([vars(layer) for layer in layers_]) + "\n")
    return layers_


def _expose_onnx(model: Model, folder: Path) -> list[Layer]:
    """Every node output a graph output, the original outputs first."""
    import onnx
    from onnx import shape_inference

    original = onnx.load(str(model.given))
    inferred = shape_inference.infer_shapes(original)
    types = {vi.name: vi for vi in [*inferred.graph.value_info, *inferred.graph.output]}
    made_by = {out: (i, node) for i, node in enumerate(original.graph.node)
               for out in node.output}
    # A QDQ model's layers are its quantized results, named after the Conv or MatMul (an
    # output's DequantizeLinear too).
    quantized = onnx_qdq.layer_outputs(original.graph) \
        if onnx_qdq.is_qdq(original) and not onnx_qoperator.is_qoperator(original) else None

    def maker(out: str):
        node = made_by[out][1]
        if quantized is not None and node.op_type == "DequantizeLinear":
            return quantized.get(node.input[0], node)
        return node
    layers = [Layer(o.name, maker(o.name).name or o.name, maker(o.name).op_type,
                    made_by[o.name][0]) for o in original.graph.output if o.name in made_by]
    listed = {o.name for o in original.graph.output}
    for i, node in enumerate(original.graph.node):
        for out in node.output:
            vi = types.get(out)
            if out in listed or vi is None or vi.type.tensor_type.elem_type not in SUPPORTED:
                continue
            if quantized is not None and out not in quantized:
                continue
            named = quantized[out] if quantized is not None else node
            original.graph.output.append(vi)
            listed.add(out)
            layers.append(Layer(out, named.name or out, named.op_type, i))
    onnx.save(original, str(folder / "model.onnx"))
    return layers


def _expose_tflite(model: Model, folder: Path) -> list[Layer]:
    """Every operator's output a subgraph output, the original outputs first."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    raw = model.given.read_bytes()
    tree = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(raw, 0))
    graph = tree.subgraphs[0]
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith("_")}
    made_by = {int(out): (i, op) for i, op in enumerate(graph.operators) for out in op.outputs}
    outputs = [int(o) for o in graph.outputs]
    for out in sorted(made_by, key=lambda t: made_by[t][0]):
        if out not in outputs:
            outputs.append(out)
    graph.outputs = outputs

    def layer(tensor: int) -> Layer:
        index, op = made_by[tensor]
        code = tree.operatorCodes[op.opcodeIndex]
        kind = names.get(max(code.builtinCode, code.deprecatedBuiltinCode), "CUSTOM")
        name = graph.tensors[tensor].name
        name = name.decode() if isinstance(name, bytes) else str(name)
        return Layer(name, f"{kind}#{index}", kind, index)

    builder = flatbuffers.Builder(len(raw) + 1024)
    builder.Finish(tree.Pack(builder), file_identifier=b"TFL3")
    (folder / "model.tflite").write_bytes(bytes(builder.Output()))
    return [layer(t) for t in outputs if t in made_by]


def _write_toml(model: Model, toml: Path) -> None:
    """The original run's inputs, value for value, and its tolerances."""
    # A tolerance the copy derives itself (a QDQ model's output step) stays derived.
    given = getattr(model.origin, "atol_given", True)
    lines = [*([f"tolerance = {model.tolerance!r}"] if given else []), f"rtol = {model.rtol!r}"]
    for array in model.generate_inputs(None):
        values = array.reshape(-1).tolist()
        lines += ["[[inputs]]", f'generator = {{ kind = "values", values = {values!r} }}']
    toml.write_text("\n".join(lines).replace("True", "true").replace("False", "false") + "\n")


def layers(folder: Path) -> list[Layer]:
    try:
        return [Layer(**item) for item in json.loads((folder / "layers.json").read_text())]
    except (OSError, ValueError, TypeError) as err:
        raise ModelError(f"{folder}: no layer list ({err})") from None


def first_difference(layers_: list[Layer], problems: list[str | None],
                     worst: list[float | None]) -> str:
    """One line: the first layer in the graph's order whose output differs, and by how much."""
    differing = [i for i, p in enumerate(problems) if p]
    if not differing:
        return f"layer check: all {len(layers_)} layer outputs match"
    first = min(differing, key=lambda i: layers_[i].index)
    layer = layers_[first]
    size = f"; largest difference {worst[first]:.6g}" if worst[first] is not None else ""
    return (f"layer check: the first layer that differs is node {layer.node!r} ({layer.op}, "
            f"output {layer.output!r}): {problems[first]}{size}; "
            f"{len(differing)} of {len(layers_)} layer outputs differ")


def largest_difference(got: np.ndarray, want: np.ndarray) -> float | None:
    if got.shape != want.shape or got.size == 0:
        return None
    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return float(np.nan_to_num(diff, nan=np.inf).max())
