"""Which layer of an ONNX model differs: the model with every node's output made a graph
output, built and run like the model itself, each output checked against ONNX Runtime's
intermediate tensor in the graph's order (scons layer-check).

The copy gets a model.toml whose inputs are the original run's, value for value, so
both runs see the same numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ireerv.formats.base import Model, ModelError

SUPPORTED = {1, 3, 5, 6, 7, 9}  # TensorProto types the runner prints (f32, i8, i16, i32, i64, bool)


@dataclass(frozen=True)
class Layer:
    output: str  # the tensor
    node: str  # the node that makes it
    op: str
    index: int  # the node's place in the graph


def expose(model: Model, folder: Path) -> list[Layer]:
    """Write `folder`/model.onnx (every node output a graph output, the original outputs
    first) and its model.toml; the layers, in output order."""
    import onnx
    from onnx import shape_inference

    original = onnx.load(str(model.given))
    inferred = shape_inference.infer_shapes(original)
    types = {vi.name: vi for vi in [*inferred.graph.value_info, *inferred.graph.output]}
    made_by = {out: (i, node) for i, node in enumerate(original.graph.node)
               for out in node.output}
    layers = [Layer(o.name, made_by[o.name][1].name or o.name, made_by[o.name][1].op_type,
                    made_by[o.name][0]) for o in original.graph.output if o.name in made_by]
    listed = {o.name for o in original.graph.output}
    for i, node in enumerate(original.graph.node):
        for out in node.output:
            vi = types.get(out)
            if out in listed or vi is None or vi.type.tensor_type.elem_type not in SUPPORTED:
                continue
            original.graph.output.append(vi)
            listed.add(out)
            layers.append(Layer(out, node.name or out, node.op_type, i))
    folder.mkdir(parents=True, exist_ok=True)
    onnx.save(original, str(folder / "model.onnx"))
    _write_toml(model, folder / "model.toml")
    (folder / "layers.json").write_text(json.dumps([vars(layer) for layer in layers]) + "\n")
    return layers


def _write_toml(model: Model, toml: Path) -> None:
    """The original run's inputs, value for value, and its tolerances."""
    lines = [f"tolerance = {model.tolerance!r}", f"rtol = {model.rtol!r}"]
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
