"""Hostile inputs a new user might give: each one clear line, exit status 2, no traceback.

Model files are real (ONNX written with `onnx.helper`, TFLite with the schema's
builders); the SCons runs are real builds of a private copy of the project.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, require_input
from scons_helpers import copy_project, scons
from tflite_builder import Graph, save

from ireerv.formats import load_model, onnx_import, tflite_reader
from ireerv.formats.base import MAX_INPUT_BYTES, ModelError
from ireerv.image import iree_compile
from ireerv.paths import PROJECT_ROOT
from ireerv.util import numbers

onnx = need_module("onnx")
helper = onnx.helper
F32 = onnx.TensorProto.FLOAT




def refused(tree: Path, *args: str) -> str:
    """A build that must stop with one clear error: what it printed on stderr."""
    proc = scons(tree, *args, check=False)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    return proc.stderr.strip()


def relu_onnx(path: Path, shape: list, *, dims: str = "") -> Path:
    x = helper.make_tensor_value_info("x", F32, shape)
    y = helper.make_tensor_value_info("y", F32, shape)
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    if dims:
        (path.parent / "model.toml").write_text(dims)
    return path


# -- numbers on the command line ---------------------------------------------------------

@pytest.mark.parametrize(("name", "value", "message"), [
    ("REPEAT", "4294967297", "REPEAT=4294967297 is more than 2,147,483,647 (the runner counts "
                             "its calls in 32 bits)"),
    ("SIZE", "٣", "SIZE must be a positive whole number written with the digits 0-9, not '٣'"),
    ("SIZE", "²", "SIZE must be a positive whole number written with the digits 0-9, not '²'"),
    ("MAXCYCLES", "0", "MAXCYCLES must be a positive whole number, not '0'"),
    ("TOP", "-3", "TOP must be a positive whole number written with the digits 0-9, not '-3'"),
])
def test_numbers_are_ascii_and_within_limits(name: str, value: str, message: str) -> None:
    with pytest.raises(numbers.NumberError) as err:
        numbers.whole_number(name, value)
    assert str(err.value) == message


@pytest.mark.parametrize(("arg", "message"), [
    ("REPEAT=4294967297", "REPEAT=4294967297 is more than 2,147,483,647"),
    ("SIZE=٣", "SIZE must be a positive whole number written with the digits 0-9"),
    ("HARTS=٢", "HARTS must be a whole number from 1 to 4"),
    ("MODEL=", "no MODEL given; models: "),
])
def test_scons_refuses_numbers_and_names(tree: Path, arg: str, message: str) -> None:
    assert message in refused(tree, "image", arg)


def test_inputs_too_large_for_any_board_are_refused(tree: Path) -> None:
    spec = load_model("matmul").inputs[0]
    with pytest.raises(ModelError, match=f"more than any board holds \\({MAX_INPUT_BYTES:,}\\)"):
        spec.generate(100_000)
    assert "give a smaller SIZE or [dims]" in refused(tree, "image", "SIZE=100000")


# -- model files -------------------------------------------------------------------------

def test_files_that_are_not_utf8_are_named(tree: Path, tmp_path: Path) -> None:
    bad = tmp_path / "latin.mlir"
    bad.write_bytes(b"// caf\xe9\nfunc.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {}\n")
    with pytest.raises(ModelError, match=r"latin.mlir: not UTF-8 text \(byte 6 is 0xe9\)"):
        load_model(str(bad))
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "model.mlir").write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32>\n")
    (folder / "model.toml").write_bytes(b'function = "f"\ndescription = "\xff"\n')
    assert "model.toml: not UTF-8 text" in refused(tree, "image", f"MODEL={folder}")


@pytest.mark.parametrize(("line", "message"), [
    ('placement = "lage"\n', "no board has a placement 'lage'; did you mean 'large'\\?"),
    ('placement = { cluster9 = "large" }\n', "no board is called 'cluster9'; boards: "),
    ('placement = { qemu-virt = "large" }\n', "board qemu-virt has no placement 'large'"),
    ("tolerance = inf\n", "key 'tolerance': must be a finite number >= 0, not inf"),
])
def test_a_bad_model_toml_value_is_refused(tmp_path: Path, line: str, message: str) -> None:
    folder = tmp_path / "m"
    relu_onnx(folder / "model.onnx", [1, 4], dims=line)
    with pytest.raises(ModelError, match=message):
        load_model(str(folder))


def test_a_folder_of_onnx_and_tflite_is_refused(tree: Path, tmp_path: Path) -> None:
    folder = tmp_path / "both"
    relu_onnx(folder / "model.onnx", [1, 4])
    g = Graph()
    x, y = g.tensor("x", (1, 4)), g.tensor("y", (1, 4))
    g.op("RELU", [x], [y])
    save(g, folder / "model.tflite", [x], [y])
    assert "holds a model in several formats (onnx, tflite): keep one of them" in refused(
        tree, "image", f"MODEL={folder}")


# -- ONNX ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("shape", "dims", "message"), [
    ([1, 0], "", "input 'x' has dimension 1 of size 0: a tensor without elements cannot be run"),
    (["batch", 4], "[dims]\nsequence = 4\n",
     "[dims] sequence names no dynamic dimension of model.onnx's inputs; its named dynamic "
     "dimensions: batch"),
    (["batch", "seq"], "[dims]\nsequence = 4\n",
     "give its size in model.toml ([dims] seq = <size>; [dims] sequence there names no "
     "dimension: a misspelling?)"),
])
def test_onnx_dimensions(tmp_path: Path, shape: list, dims: str, message: str) -> None:
    folder = tmp_path / "m"
    relu_onnx(folder / "model.onnx", shape, dims=dims)
    with pytest.raises(ModelError) as err:
        load_model(str(folder))
    assert message in str(err.value)


def test_an_opset_newer_than_the_tools_is_refused_at_once(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", F32, [1, 4])
    y = helper.make_tensor_value_info("y", F32, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    newest = onnx.defs.onnx_opset_version()
    path = tmp_path / "future.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", newest + 2)]),
              str(path))
    with pytest.raises(ModelError, match=f"opset {newest + 2} is newer than the pinned ONNX "
                                         f"tools know \\(up to {newest}\\)"):
        load_model(str(path))


def test_an_onnx_input_without_shape_is_named(tmp_path: Path) -> None:
    x = helper.make_tensor_value_info("x", F32, None)
    y = helper.make_tensor_value_info("y", F32, [1, 4])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    path = tmp_path / "shapeless.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    with pytest.raises(ModelError, match="input 'x' has no shape; give the graph input a tensor "
                                         "type with a shape"):
        load_model(str(path))


def test_a_crashed_tool_is_named_with_its_signal() -> None:
    said = onnx_import.crash(["/x/iree-opt", "--pass-pipeline=p", "m.mlir"], -11,
                             'error: "onnx.Unique" (here)\n')
    assert said == ("iree-opt crashed (SIGSEGV) while converting the ONNX operator Unique: "
                    "a defect of the pinned compiler, not of the model")
    said = onnx_import.crash(["python", "-c", "import ..."], -9, "")
    assert said.startswith("import_onnx crashed (SIGKILL):")


# -- TFLite -------------------------------------------------------------------------------

def _relu_tflite(path: Path, inputs: list[int], outputs: list[int],
                 shape: tuple = (1, 4)) -> Path:
    g = Graph()
    x, y = g.tensor("x", shape), g.tensor("y", shape)
    g.op("RELU", [x], [y])
    return save(g, path, inputs, outputs)


@pytest.mark.parametrize(("inputs", "outputs", "message"), [
    ([5], [1], "the subgraph's inputs name tensor 5, but it has tensors 0 to 1"),
    ([0], [-2], "the subgraph's outputs name tensor -2, but it has tensors 0 to 1"),
])
def test_tflite_indices_out_of_range(tmp_path: Path, inputs: list, outputs: list,
                                     message: str) -> None:
    path = _relu_tflite(tmp_path / "m.tflite", inputs, outputs)
    with pytest.raises(tflite_reader.TfliteError, match=message):
        tflite_reader.read(path)


def test_negative_tflite_dimensions(tmp_path: Path) -> None:
    path = _relu_tflite(tmp_path / "m.tflite", [0], [1], shape=(1, -4))
    with pytest.raises(ModelError, match=r"tensor 'x' has the shape \[1, -4\]; dimensions "
                                         "cannot be negative"):
        load_model(str(path))


def test_a_pinned_path_stays_inside_its_input(tree: Path, tmp_path: Path) -> None:
    for rel in ("../../../../etc/passwd", "/etc/passwd"):
        folder = tmp_path / f"m{len(rel)}"
        folder.mkdir()
        (folder / "model.toml").write_text(f'[tflite]\ninput = "rvfplib"\npath = "{rel}"\n')
        message = f"[tflite], key 'path': '{rel}' leaves input 'rvfplib': give a path inside it"
        assert message in refused(tree, "image", f"MODEL={folder}")


@pytest.mark.upstream
def test_fifty_megabytes_of_weights_fail_fast_with_honest_advice(
        tree: Path, tmp_path: Path, fetcher) -> None:
    """The weights reach the image as bytes (no C text to parse): the build gets to the link
    in seconds, and the overflow advises no placement that would not hold them either."""
    for name in ("iree", "flatcc", "iree-compiler"):
        require_input(fetcher, name)
    weights = np.random.default_rng(0).standard_normal((3500, 3600)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], "big",
        [helper.make_tensor_value_info("x", F32, [1, 3500])],
        [helper.make_tensor_value_info("y", F32, [1, 3600])],
        [onnx.numpy_helper.from_array(weights, "w")])
    folder = tmp_path / "big"
    folder.mkdir()
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    proc = scons(tree, "image", f"MODEL={folder}", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr
    assert re.search(r"the image does not fit region spm0 \(board cluster4, placement "
                     r"'default'\): 50,\d{3},\d{3} bytes too many; use placement 'large'",
                     proc.stdout), proc.stdout
    header = tree / "build/cluster4/big/model_module.h"
    assert header.stat().st_size < 1 << 20  # the weights are not C text
    assert (tree / "build/cluster4/big/model_rodata.bin").stat().st_size == weights.nbytes


# -- kernel libraries ----------------------------------------------------------------------

def test_a_library_iree_compile_did_not_load_is_an_error() -> None:
    """iree-compile says so and goes on without it, with exit status 0."""
    library = PROJECT_ROOT / "build/qemu-virt/kws/tiles.mlir"
    stderr = (f"{library}:487:5: error: custom op 'transform.no_such_op' is unknown\n"
              "model.mlir:10:10: error: Failed to load transform library module: "
              f"{library}\nmodel.mlir:16:10: note: called from\n")
    with pytest.raises(iree_compile.LibraryError) as err:
        iree_compile.check_library_loaded(stderr)
    assert str(err.value) == ("build/qemu-virt/kws/tiles.mlir:487:5: iree-compile cannot load "
                              "this kernel library: custom op 'transform.no_such_op' is unknown")
    iree_compile.check_library_loaded("model.mlir:1:1: warning: while creating CPU target\n")


@pytest.mark.upstream
def test_a_tuning_file_with_an_unknown_op_stops_the_build(tree: Path, toolchain) -> None:
    text = (tree / "models/kws/tuning/cluster4.mlir").read_text()
    at = text.index("    %config = transform.param.constant")
    tuned = tree / "models/matmul/tuning/qemu-virt.mlir"
    tuned.parent.mkdir()
    tuned.write_text(text[:at] + "    transform.no_such_op\n" + text[at:])
    try:
        said = refused(tree, "image", "MODEL=matmul", "BOARD=qemu-virt")
    finally:
        tuned.unlink()
        tuned.parent.rmdir()
    line = text[:at].count("\n") + 1
    assert said.endswith(f"] models/matmul/tuning/qemu-virt.mlir:{line}:5: iree-compile cannot "
                         "load this kernel library: custom op 'transform.no_such_op' is "
                         "unknown"), said
    assert len(said.splitlines()) == 1, said


@pytest.mark.upstream
@pytest.mark.own_builds  # compares two builds of the kernel
def test_a_linked_build_folder_keeps_the_kernel_library(tree: Path, tmp_path: Path,
                                                        toolchain) -> None:
    """Through `build/` a link to a folder elsewhere, the image loads the same bytes: with
    the board's library, not without it.  (Its debug information names where the runtime's
    headers really lie: GCC resolves the links in system header paths.)"""
    linked = copy_project(tmp_path / "src")
    elsewhere = tmp_path / "elsewhere" / "build"
    elsewhere.mkdir(parents=True)
    (linked / "build").symlink_to(elsewhere, target_is_directory=True)
    args = ("image", "MODEL=matmul", "BOARD=qemu-virt")
    scons(tree, *args)
    scons(linked, *args)
    for name in ("model_kernel.o", "image.hex"):
        built = f"build/qemu-virt/matmul-4/{name}"
        assert (linked / built).read_bytes() == (tree / built).read_bytes(), name


# -- releases ------------------------------------------------------------------------------

@pytest.mark.upstream
def test_release_digests_refuse_any_other_configuration(tree: Path, toolchain) -> None:
    digests = (tree / "release-digests.toml").read_bytes()
    for arg in ("HARTS=4", "SHAPES=dynamic", "SOFTFLOAT=libgcc", "PLACEMENT=large", "REPEAT=5"):
        said = refused(tree, "release-digests", arg, "ALLOW_DIRTY=1")
        said = " ".join(said.split())
        assert f"cover each board's reference release only; run it without {arg}" in said
    assert (tree / "release-digests.toml").read_bytes() == digests


@pytest.mark.upstream
def test_release_check_rebuilds_the_same_configuration(tmp_path: Path, toolchain) -> None:
    """A plain C release with REPEAT=5 and a relative MODEL path: the fresh build gets both."""
    tree = copy_project(tmp_path / "src")
    mine = tree.parent / "mine"
    mine.mkdir()
    for name in ("model.mlir", "model.toml", "plain.c"):
        (mine / name).write_bytes((tree / "models/matmul" / name).read_bytes())
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for step in (["add", "-A"], [*who, "commit", "-qm", "t", "--allow-empty"]):
        subprocess.run(["git", "-C", str(tree), *step], check=True)
    out = scons(tree, "release-check", "MODEL=../mine", "RUNTIME=none", "BOARD=qemu-virt",
                "REPEAT=5").stdout
    assert "files identical byte for byte (dist/mine-4-c-r5-qemu-virt-" in out, out
    assert "this one has MODEL=../mine" in out and "REPEAT=5" in out
