"""Reads and rewrites MLIR as importers write it, with the pinned compiler's own parser.

Run in a child process whose PYTHONPATH holds the unpacked compiler wheel (its Python
bindings, `iree.compiler.ir`), never inside SCons:

    python mlir_reflect.py signature <model.mlir> [function]       -> JSON on stdout
    python mlir_reflect.py lower <model.mlir> <out.mlir> <function> <c_name>
    python mlir_reflect.py specialize <model.mlir> <out.mlir> <function> <shapes JSON>

`signature`: the entry function (the one public func.func or util.func, or the one named)
and its inputs' shapes and element types.  Importer types such as
!torch.vtensor<[1,49,10],f32> are read by lowering a stub with the same signature through
the ONNX/torch pipeline, so the compiler itself says what they are.  `lower`: the module
with its entry renamed to `c_name` (the vm-c program names C functions after it) and
lowered to linalg on builtin tensors, as iree-compile takes it.  `specialize`: the module
with its entry's inputs fixed to the given shapes: the entry becomes a private function
and a public one of the same name, taking those shapes, casts its arguments and calls it
(iree-compile inlines the call, and every dynamic dimension becomes a constant).
"""

from __future__ import annotations

import json
import sys

# Kept in step with onnx_import.LOWERING (this file runs without the project's imports).
LOWERING = ("builtin.module(func.func(convert-torch-onnx-to-torch),"
            "torch-onnx-to-torch-backend-pipeline,"
            "torch-backend-to-linalg-on-tensors-backend-pipeline)")
FUNCTIONS = ("func.func", "util.func")


def _functions(module):
    for op in module.body.operations:
        if op.operation.name in FUNCTIONS:
            attrs = op.operation.attributes
            public = "sym_visibility" not in attrs or str(attrs["sym_visibility"]) == '"public"'
            yield op, _name(attrs["sym_name"]), public


def _name(attr) -> str:
    from iree.compiler import ir

    return ir.StringAttr(attr).value


def _entry(module, wanted: str | None):
    found = list(_functions(module))
    if wanted:
        match = [op for op, name, _ in found if name == wanted]
        if not match:
            _fail(f"function @{wanted} not found (functions: "
                  f"{', '.join(n for _, n, _ in found) or 'none'})")
        return match[0]
    public = [(op, name) for op, name, pub in found if pub]
    if len(public) != 1:
        _fail(f"{len(public)} public functions ({', '.join(n for _, n in public) or 'none'}); "
              "name the entry with `function` in model.toml")
    return public[0][0]


def _types(op):
    from iree.compiler import ir

    ftype = ir.FunctionType(ir.TypeAttr(op.operation.attributes["function_type"]).value)
    return list(ftype.inputs), list(ftype.results)


def _describe(types) -> list[dict]:
    from iree.compiler import ir

    out = []
    for t in types:
        if not ir.RankedTensorType.isinstance(t):
            _fail(f"an argument of type {t} is not a ranked tensor")
        rt = ir.RankedTensorType(t)
        dims = [None if rt.is_dynamic_dim(i) else rt.get_dim_size(i) for i in range(rt.rank)]
        out.append({"shape": dims, "element": str(rt.element_type)})
    return out


def _builtin(ctx, inputs):
    """The argument types as builtin tensors: importer types are lowered through the pipeline
    in a stub function with the same arguments."""
    from iree.compiler import ir, passmanager

    if all(ir.RankedTensorType.isinstance(t) for t in inputs):
        return inputs
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(inputs))
    with ctx:
        # The ONNX conversion wants an opset on every function; the stub has no ops.
        module = ir.Module.parse(f"func.func @stub({args}) attributes "
                                 f"{{torch.onnx_meta.opset_version = 17 : si64}} {{\n"
                                 f"  return\n}}")
        passmanager.PassManager.parse(LOWERING).run(module.operation)
    return _types(next(iter(module.body.operations)))[0]


def _static_type(dynamic, shape: list[int]):
    """`dynamic` (a ranked tensor type) with the dimensions of `shape`, or None if they
    do not fit it (another rank, another static size)."""
    from iree.compiler import ir

    if not ir.RankedTensorType.isinstance(dynamic):
        return None
    rt = ir.RankedTensorType(dynamic)
    if rt.rank != len(shape) or any(
            not rt.is_dynamic_dim(i) and rt.get_dim_size(i) != d for i, d in enumerate(shape)):
        return None
    return ir.RankedTensorType.get(shape, rt.element_type, rt.encoding)


def _specialize(module, entry, shapes: list[list[int]]) -> str:
    """The module's text with a static-shape entry in front of the renamed original."""
    from iree.compiler import ir

    name = _name(entry.operation.attributes["sym_name"])
    inputs, results = _types(entry)
    if len(shapes) != len(inputs):
        _fail(f"@{name} takes {len(inputs)} inputs, not {len(shapes)}")
    static = [_static_type(t, shape) for t, shape in zip(inputs, shapes, strict=True)]
    for index, (have, shape) in enumerate(zip(inputs, shapes, strict=True)):
        if static[index] is None:
            _fail(f"input {index} of @{name} has type {have}, which cannot take shape {shape}")
    taken = {n for _, n, _ in _functions(module)}
    inner = f"{name}__any_shape"
    while inner in taken:
        inner += "_"
    entry.operation.attributes["sym_name"] = ir.StringAttr.get(inner)
    entry.operation.attributes["sym_visibility"] = ir.StringAttr.get("private")
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(static))
    casts = "".join(f"  %c{i} = tensor.cast %a{i} : {s} to {d}\n"
                    for i, (s, d) in enumerate(zip(static, inputs, strict=True)))
    result_list = ", ".join(str(t) for t in results)
    call = (f"func.call @{inner}({', '.join(f'%c{i}' for i in range(len(inputs)))}) : "
            f"({', '.join(str(t) for t in inputs)}) -> ({result_list})")
    if results:
        body = (f"  %r:{len(results)} = {call}\n  return "
                f"{', '.join(f'%r#{i}' for i in range(len(results)))} : {result_list}\n")
    else:
        body = f"  {call}\n  return\n"
    wrapper = f"func.func @{name}({args}) -> ({result_list}) {{\n{casts}{body}}}\n"
    text = str(module).rstrip()
    if not text.endswith("}"):
        _fail("the module does not print as one module")
    return f"{text[:-1]}{wrapper}}}\n"


def _fail(message: str):
    print(json.dumps({"error": message}))
    sys.exit(2)


def main(argv: list[str]) -> None:
    from iree.compiler import ir

    command, path = argv[0], argv[1]
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    try:
        with open(path) as f:
            module = ir.Module.parse(f.read(), ctx)
    except Exception as err:  # the bindings raise MLIRError with the diagnostics
        _fail(f"not valid MLIR: {str(err).strip().splitlines()[-1]}")
    if command == "signature":
        entry = _entry(module, argv[2] if len(argv) > 2 else None)
        inputs = _builtin(ctx, _types(entry)[0])
        print(json.dumps({"function": _name(entry.operation.attributes["sym_name"]),
                          "inputs": _describe(inputs)}))
    elif command == "lower":
        out, function, c_name = argv[2], argv[3], argv[4]
        entry = _entry(module, function)
        with ctx:
            entry.operation.attributes["sym_name"] = ir.StringAttr.get(c_name)
            passmanager.PassManager.parse(LOWERING).run(module.operation)
        with open(out, "w") as f:
            f.write(str(module))
    elif command == "specialize":
        out, function, shapes = argv[2], argv[3], json.loads(argv[4])
        entry = _entry(module, function)
        with ctx, ir.Location.unknown():
            text = _specialize(module, entry, shapes)
            ir.Module.parse(text)  # what iree-compile will read: fail here, not there
        with open(out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    from iree.compiler import passmanager  # noqa: F401  (imported for main's use)

    main(sys.argv[1:])
