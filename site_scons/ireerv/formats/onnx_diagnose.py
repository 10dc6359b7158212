"""When a tool fails on an ONNX model: the node it failed on, the tool's own first error
line, and whether it looks like a defect of the pinned compiler rather than of the model.

Tools speak of MLIR; users know their graph.  The operator is found in the tool's
diagnostics (`onnx.<Op>` in the importer's ops, or the linalg op the compiler names),
and the node in the model by that operator.
"""

from __future__ import annotations

import re
from pathlib import Path

# Compiler messages that say the compiler, not the model, is at fault.
DEFECTS = ("LLVM Translation failed", "failed to translate", "failed to serialize",
           "failed to configure", "failed to run configuration", "failed to legalize operation")
_ONNX_OP = re.compile(r"onnx\.(\w+)")
# linalg and tensor ops of the lowered model -> the ONNX operators they come from
_LOWERED = {"conv": ("Conv", "ConvTranspose"), "pad": ("Pad",), "pooling": (
    "MaxPool", "AveragePool"), "matmul": ("MatMul", "Gemm"), "softmax": ("Softmax",)}
_LOWERED_OP = re.compile(r"\b(?:linalg|tensor)\.(\w+)")


def first_error(diagnostics: str) -> str:
    """The first `error:` line, without its location, or the first line at all."""
    for line in diagnostics.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    lines = [ln.strip() for ln in diagnostics.splitlines() if ln.strip()]
    return lines[0] if lines else "no message"


def _operators(diagnostics: str) -> tuple[str, ...]:
    found = _ONNX_OP.findall(diagnostics)
    if found:
        return (found[0],)
    for name in _LOWERED_OP.findall(diagnostics):
        for key, ops in _LOWERED.items():
            if key in name:
                return ops
    return ()


def node(onnx_file: Path, diagnostics: str) -> str | None:
    """'node <name> (<Op>, inputs [shapes])' when the diagnostics point at one node (or
    the model has only one)."""
    import onnx
    from onnx import shape_inference

    model = shape_inference.infer_shapes(onnx.load(str(onnx_file)))
    ops = _operators(diagnostics) or tuple({n.op_type for n in model.graph.node
                                            if len(model.graph.node) == 1})
    if not ops:
        return None
    shapes = {vi.name: [d.dim_value or d.dim_param or "?" for d in vi.type.tensor_type.shape.dim]
              for vi in [*model.graph.input, *model.graph.value_info, *model.graph.output]}
    shapes.update({init.name: list(init.dims) for init in model.graph.initializer})
    nodes = [n for n in model.graph.node if n.op_type in ops]
    if len(nodes) != 1:
        return f"operator {ops[0]} ({len(nodes)} such nodes)" if nodes else None
    hit = nodes[0]
    inputs = ", ".join(str(shapes.get(name, "?")) for name in hit.input if name)
    return f"node {hit.name or hit.output[0]!r} ({hit.op_type}, inputs {inputs})"


def explain(tool: str, onnx_file: Path, diagnostics: str, kept: Path | None = None) -> str:
    """One line: the model, the node, what the tool said; a defect is called one."""
    where = node(onnx_file, diagnostics)
    text = f"{onnx_file}: {where + ': ' if where else ''}{tool} failed: {first_error(diagnostics)}"
    if any(mark in diagnostics for mark in DEFECTS):
        text += "; this looks like a defect of the pinned compiler, not of the model"
        if kept is not None:
            text += f" (its input is kept for a report: {kept})"
    return text
