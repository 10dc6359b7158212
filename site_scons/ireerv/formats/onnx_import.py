"""ONNX models: the signature read with the `onnx` package, and the import to MLIR.

The import is IREE's own ONNX importer (`iree-import-onnx`, shipped in the
pinned compiler wheel), run on a prepared copy of the model: dynamic
dimensions fixed (a dynamic batch dimension is 1), the opset raised to
TARGET_OPSET (IREE's importer refuses some operators at older opsets, Softmax
at 11 among them) and shapes inferred, so the MLIR has static shapes only.
Then torch-mlir's pipelines (in the compiler's iree-opt) lower it to linalg.
"""

from __future__ import annotations

import difflib
import re
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from ireerv.formats import onnx_diagnose, onnx_legacy
from ireerv.formats.base import ModelError
from ireerv.util.mlir_tools import SINGLE_THREADED, CompileError, run_tool

TARGET_OPSET = 17
# torch-mlir's pipelines, run with the compiler's iree-opt: the importer's ONNX ops to
# linalg on plain tensors.  iree-compile would take the importer's output directly,
# but it then exports the entry with the torch ABI (an async function with fences and
# a sync wrapper), whose second call traps in the bare-metal runtime; lowered, the entry
# is a plain `func.func` like a hand-written model's.  An operator without a
# conversion stops here, named.
LOWERING = ("builtin.module(func.func(convert-torch-onnx-to-torch),"
            "torch-onnx-to-torch-backend-pipeline,"
            "torch-backend-to-linalg-on-tensors-backend-pipeline)")

# ONNX TensorProto element types the runner takes, by their enum value.
_ELEMENT_TYPES = {1: "f32", 3: "i8", 5: "i16", 6: "i32", 7: "i64", 9: "bool", 11: "f64"}
# iree-compile's diagnostic for an ONNX operator without a conversion.
_UNCONVERTED = re.compile(r"failed to legalize operation 'torch\.operator'.*?\"onnx\.(\w+)\"",
                          re.S)


class OnnxError(ModelError):
    """An ONNX model that cannot be read, prepared or imported."""


@dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]
    dtype: str  # a key of schema.ELEMENT_TYPES, or the ONNX type name if unsupported


@dataclass(frozen=True)
class OnnxSource:
    """What an imported model carries from its ONNX file."""

    path: Path
    dims: tuple[tuple[str, int], ...]  # sizes of the named dynamic dimensions
    inputs: tuple[TensorInfo, ...]
    outputs: tuple[TensorInfo, ...]
    test_data: Path | None = None  # ONNX's test data set beside it (onnx_test_data.py)
    opset: int = TARGET_OPSET  # the file's own; the import raises an older one
    atol_given: bool = False  # model.toml gives the tolerance (else: a QDQ model's step)
    # Quantized by the build (onnx_quantize.py): the float model, the calibration folder
    # (None: the input generators) and the report beside the quantized `path`.
    float_path: Path | None = None
    calibration: Path | None = None
    report: Path | None = None

    @property
    def notes(self) -> tuple[str, ...]:
        """What the import changes, in words."""
        notes = []
        if self.opset < TARGET_OPSET:
            notes.append(f"opset {self.opset} raised to {TARGET_OPSET} (onnx.version_converter)")
        if self.report is not None:
            from ireerv.formats.onnx_quantize import note

            notes.append(note(self.report))
        return tuple(notes)


def _onnx():
    try:
        import onnx
    except ImportError:
        raise OnnxError("ONNX models need the `onnx` package: install requirements.txt "
                        "into the virtual environment (./bootstrap --setup-only)") from None
    return onnx


def _load(path: Path):
    onnx = _onnx()
    try:
        return onnx.load(str(path))
    except Exception as err:  # protobuf's DecodeError and friends: not an ONNX file
        raise OnnxError(f"{path}: not a readable ONNX model ({type(err).__name__}: "
                        f"{' '.join(str(err).split())[:200]})") from None


def _entry_inputs(graph) -> list:
    """The graph's real inputs: old exporters also list the initializers as inputs."""
    weights = {init.name for init in graph.initializer}
    return [vi for vi in graph.input if vi.name not in weights]


def _resolve(path: Path, vi, dims: dict[str, int], fixed: dict[str, int]) -> tuple[int, ...]:
    """The static shape of input `vi`; records what each named dimension became in `fixed`."""
    if not vi.type.HasField("tensor_type") or not vi.type.tensor_type.HasField("shape"):
        raise OnnxError(f"{path}: input {vi.name!r} has no shape; give the graph input a "
                        "tensor type with a shape (its dimensions may be named)")
    shape = []
    for axis, dim in enumerate(vi.type.tensor_type.shape.dim):
        if dim.HasField("dim_value"):
            if dim.dim_value <= 0:
                raise OnnxError(f"{path}: input {vi.name!r} has dimension {axis} of size "
                                f"{dim.dim_value}: a tensor without elements cannot be run")
            shape.append(dim.dim_value)
            continue
        name = dim.dim_param
        if name in dims:
            value = dims[name]
        elif axis == 0:
            value = 1  # a dynamic batch dimension: one sample
        else:
            hint = f"[dims] {name} = <size>" if name else "a static shape"
            near = difflib.get_close_matches(name, list(dims), n=1, cutoff=0.5) if name else []
            if near:
                hint += f"; [dims] {near[0]} there names no dimension: a misspelling?"
            raise OnnxError(f"{path}: input {vi.name!r} has a dynamic dimension {axis} "
                            f"({name or 'unnamed'}); give its size in model.toml ({hint})")
        if name:
            fixed[name] = value
        dim.Clear()
        dim.dim_value = value
        shape.append(value)
    return tuple(shape)


def _info(vi, shape: tuple[int, ...]) -> TensorInfo:
    onnx = _onnx()
    elem = vi.type.tensor_type.elem_type
    dtype = _ELEMENT_TYPES.get(elem) or onnx.TensorProto.DataType.Name(elem).lower()
    return TensorInfo(vi.name, shape, dtype)


def _static_model(path: Path, dims: dict[str, int]):
    """The model with its inputs' dynamic dimensions fixed, and its input infos."""
    model = _load(path)
    if not model.graph.output:
        raise OnnxError(f"{path}: the graph has no outputs")
    newest = _onnx().defs.onnx_opset_version()
    if _opset(model) > newest:
        raise OnnxError(f"{path}: opset {_opset(model)} is newer than the pinned ONNX tools know "
                        f"(up to {newest}); export the model with opset {newest} or older")
    fixed: dict[str, int] = {}
    inputs = [_info(vi, _resolve(path, vi, dims, fixed)) for vi in _entry_inputs(model.graph)]
    _check_dims_used(path, dims, fixed)
    for vi in model.graph.output:  # named output dimensions follow the inputs' values
        for dim in vi.type.tensor_type.shape.dim:
            if dim.HasField("dim_param") and dim.dim_param in fixed:
                value = fixed[dim.dim_param]
                dim.Clear()
                dim.dim_value = value
    return model, inputs


def _check_dims_used(path: Path, dims: dict[str, int], fixed: dict[str, int]) -> None:
    """A [dims] entry that names no dynamic dimension of an input is a typo, not a no-op."""
    for name in sorted(set(dims) - set(fixed)):
        named = sorted(fixed)
        near = difflib.get_close_matches(name, named, n=1, cutoff=0.6)
        hint = (f"did you mean {near[0]!r}?" if near else
                f"its named dynamic dimensions: {', '.join(named)}" if named else
                "it has no named dynamic dimension")
        raise OnnxError(f"{path.with_name('model.toml') if path.name == 'model.onnx' else path}"
                        f": [dims] {name} names no dynamic dimension of {path.name}'s inputs; "
                        f"{hint}")


def _opset(model) -> int:
    return max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=0)


def prepare(path: Path, dims: dict[str, int]):
    """The model ready for the importer: static shapes, opset >= TARGET_OPSET, shapes inferred."""
    onnx = _onnx()
    from onnx import shape_inference, version_converter

    model, _ = _static_model(path, dims)
    model.graph.name = entry_name(model.graph.name)
    onnx_legacy.prelu_slopes_per_channel(model, _opset(model))
    if _opset(model) < TARGET_OPSET:
        try:
            model = version_converter.convert_version(model, TARGET_OPSET)
        except Exception as err:
            raise OnnxError(f"{path}: cannot raise opset {_opset(model)} to {TARGET_OPSET}: "
                            f"{' '.join(str(err).split())[:300]}") from None
    onnx_legacy.initializers_as_inputs(model)  # the converter adds some (Pad's pads)
    from ireerv.formats import onnx_qoperator

    try:
        onnx_qoperator.to_qdq(model, path)  # QOperator nodes in their QDQ form
    except ModelError as err:
        raise OnnxError(str(err)) from None
    for node in model.graph.node:  # the importer names each node's ops after the node
        node.name = node.name or node.output[0]
    try:
        model = shape_inference.infer_shapes(model, strict_mode=True)
        onnx.checker.check_model(model)
    except Exception as err:
        raise OnnxError(f"{path}: {' '.join(str(err).split())[:400]}") from None
    return model


def _tensors(graph):
    """Every tensor of a graph and its subgraphs: initializers and node attributes."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield from (sparse.values, sparse.indices)
    for node in graph.node:
        for attr in node.attribute:
            yield from ([attr.t] if attr.HasField("t") else [])
            yield from attr.tensors
            for sub in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                yield from _tensors(sub)


def external_data(path: Path) -> tuple[Path, ...]:
    """The files beside the model that hold its external data (weights.bin...), which the
    model's bytes are as much as the .onnx file itself."""
    onnx = _onnx()
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as err:  # protobuf's DecodeError and friends: not an ONNX file
        raise OnnxError(f"{path}: not a readable ONNX model ({type(err).__name__})") from None
    locations = {entry.value for tensor in _tensors(model.graph)
                 if tensor.data_location == onnx.TensorProto.EXTERNAL
                 for entry in tensor.external_data if entry.key == "location"}
    return tuple(sorted(path.parent / location for location in locations))


def read_source(path: Path, dims: dict[str, int]) -> OnnxSource:
    """The entry's inputs and outputs, with the dynamic dimensions fixed."""
    model = prepare(path, dims)
    inputs = _entry_inputs(model.graph)
    outputs = []
    for vi in model.graph.output:
        shape = tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)
        outputs.append(_info(vi, shape))
    static = [_info(vi, tuple(d.dim_value for d in vi.type.tensor_type.shape.dim))
              for vi in inputs]
    opset = _opset(_load(path))
    return OnnxSource(path, tuple(sorted(dims.items())), tuple(static), tuple(outputs),
                      opset=opset)


def entry_name(graph_name: str) -> str:
    """The entry function's name: the graph's, made a C identifier.

    The importer names the function after the graph (`@"pre-alpha"`), and the
    vm-c program names C functions after it: `-` or `.` there do not compile."""
    name = re.sub(r"\W", "_", graph_name, flags=re.ASCII) or "main"
    return f"_{name}" if name[0].isdigit() else name


def function_name(path: Path) -> str:
    """The entry function of the imported model."""
    return entry_name(_load(path).graph.name)


# IREE's importer (its own argument parsing and loading), its MLIR printed with each op's
# location: the importer names them after the ONNX nodes, which the per-layer profile reads.
IMPORTER = "import_onnx"
_IMPORT_WITH_LOCATIONS = """
import sys
from iree.compiler.tools.import_onnx import __main__ as tool
args = tool.parse_arguments(sys.argv[1:])
info = tool.onnx_importer.ModelInfo(tool.load_onnx_model(args))
module = info.create_module(context=tool.Context()).operation
tool.onnx_importer.NodeImporter.define_function(info.main_graph, module).import_all()
module.verify()
with open(args.output_file, "w") as out:
    # An empty name (a nameless node in a subgraph) breaks iree-compile's consteval.
    text = module.get_asm(enable_debug_info=True, assume_verified=True)
    print(text.replace('loc("")', "loc(unknown)"), file=out)
"""


def outputs(mlir: Path) -> tuple[Path, Path, Path]:
    """What one import writes: the lowered MLIR, the prepared .onnx, the importer's MLIR."""
    return mlir, mlir.with_suffix(".onnx"), mlir.with_suffix(".torch.mlir")


def _run(cmd: list[str], tool: str, onnx_file: Path, env: dict[str, str] | None = None) -> None:
    if Path(cmd[0]).name == "iree-opt":
        cmd = [cmd[0], SINGLE_THREADED, *cmd[1:]]
    try:
        proc = run_tool(cmd, env=env)
    except CompileError as err:
        raise OnnxError(f"{onnx_file}: {err}") from None
    if proc.returncode < 0:
        raise OnnxError(f"{onnx_file}: {crash(cmd, proc.returncode, proc.stderr)}")
    if proc.returncode != 0:
        operator = unconverted_operator(proc.stderr)
        if operator:
            where = onnx_diagnose.node(onnx_file, proc.stderr) or f"operator {operator}"
            raise OnnxError(f"{onnx_file}: {where}: the ONNX operator {operator} cannot be "
                            "imported (IREE's ONNX route has no conversion for it)")
        raise OnnxError(onnx_diagnose.explain(tool, onnx_file, proc.stderr))


def import_model(source: OnnxSource, compiler_wheel: Path, mlir: Path) -> None:
    """Prepare the model, run IREE's importer and lower to linalg; writes outputs(mlir)."""
    onnx = _onnx()
    _, prepared, torch_mlir = outputs(mlir)
    mlir.parent.mkdir(parents=True, exist_ok=True)
    tmp = [path.with_name(path.name + ".tmp") for path in outputs(mlir)]
    try:
        prepared = prepare(source.path, dict(source.dims))
        onnx.save(prepared, str(tmp[1]))
        if _integer_import(prepared, source.path, tmp):
            for part, final in zip(tmp, outputs(mlir), strict=True):
                part.replace(final)
            return
        env = {"PYTHONPATH": str(compiler_wheel)}
        _run([sys.executable, "-c", _IMPORT_WITH_LOCATIONS, str(tmp[1]), "-o", str(tmp[2])],
             "IREE's ONNX importer", source.path, env)
        iree_opt = compiler_wheel / "iree" / "compiler" / "_mlir_libs" / "iree-opt"
        _run([str(iree_opt), f"--pass-pipeline={LOWERING}", "--mlir-print-debuginfo",
              str(tmp[2]), "-o", str(tmp[0])],
             "the lowering to linalg (iree-opt)", source.path)
        for part, final in zip(tmp, outputs(mlir), strict=True):
            part.replace(final)
    finally:
        for part in tmp:
            part.unlink(missing_ok=True)


def _integer_import(prepared, onnx_file: Path, tmp: list[Path]) -> bool:
    """A QDQ model translated to TOSA on the integer kernels (onnx_qdq.py), as TFLite's
    int8 models are; False for a float model, or a QDQ one with a node outside the
    integer route (said in one line: it then runs as IREE's importer gives it)."""
    from ireerv.formats import onnx_int8_tosa, onnx_qdq, onnx_qdq_nodes

    if not onnx_qdq.is_qdq(prepared):
        return False
    try:
        graph = onnx_qdq_nodes.read(prepared, onnx_file)
    except onnx_qdq.NotInteger as err:
        print(f"note: {err}; the model runs as IREE's ONNX importer gives it (float "
              "between its Q/DQ nodes)")
        return False
    onnx_int8_tosa.write(graph, entry_name(prepared.graph.name), tmp[0])
    tmp[2].write_text("// a QDQ model: translated to TOSA on the integer kernels, without "
                      "IREE's ONNX importer\n")
    return True


def crash(cmd: list[str], returncode: int, diagnostics: str) -> str:
    """What to say when a tool was killed by a signal: the tool, the signal, the operator
    it was working on if its diagnostics name one."""
    if cmd[1:2] == ["-c"]:  # the importer, run from its own functions
        tool = IMPORTER
    elif cmd[1:2] == ["-m"]:  # a Python tool: named by its module
        tool = cmd[2].rsplit(".", 1)[-1]
    else:
        tool = Path(cmd[0]).name
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    found = re.findall(r"onnx\.(\w+)", diagnostics)
    on = f" while converting the ONNX operator {found[-1]}" if found else ""
    return f"{tool} crashed ({name}){on}: a defect of the pinned compiler, not of the model"


def unconverted_operator(diagnostics: str) -> str | None:
    """The ONNX operator iree-compile could not convert, if that is why it failed."""
    match = _UNCONVERTED.search(diagnostics)
    return match.group(1) if match else None
