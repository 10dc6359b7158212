"""What old ONNX files (IR version 3, opsets before 7) need before the version converter
and the importer see them: rules of their time that the converter does not carry over."""

from __future__ import annotations


def prelu_slopes_per_channel(model, opset: int) -> None:
    """Before opset 7, a PRelu slope of shape [C] applied per channel (axis 1) of an input
    of rank 3 or more; since then a slope broadcasts from the right.  Such a slope (an
    initializer) becomes [C, 1, ...], which means the same under both rules."""
    if opset >= 7:
        return
    from onnx import shape_inference

    inferred = shape_inference.infer_shapes(model)
    ranks = {vi.name: len(vi.type.tensor_type.shape.dim)
             for vi in [*inferred.graph.input, *inferred.graph.value_info]}
    initializers = {init.name: init for init in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "PRelu" or len(node.input) < 2:
            continue
        slope, rank = initializers.get(node.input[1]), ranks.get(node.input[0], 0)
        if slope is None or len(slope.dims) != 1 or rank < 3:
            continue
        shape = [slope.dims[0], *[1] * (rank - 2)]
        slope.dims[:] = shape
        for vi in model.graph.input:  # IR 3 lists initializers as inputs too
            if vi.name == slope.name:
                vi.type.tensor_type.shape.ClearField("dim")
                for size in shape:
                    vi.type.tensor_type.shape.dim.add().dim_value = size


def initializers_as_inputs(model) -> None:
    """IR version 3 wants every initializer listed as a graph input; the version converter
    adds initializers that are not: list them, as ONNX Runtime reads such files."""
    if model.ir_version >= 4:
        return
    from onnx import helper

    listed = {vi.name for vi in model.graph.input}
    for init in model.graph.initializer:
        if init.name not in listed:
            model.graph.input.append(helper.make_tensor_value_info(
                init.name, init.data_type, list(init.dims)))
