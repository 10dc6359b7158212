"""Model formats are plug-ins: a new one is its module and one registry line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import require_input
from scons_helpers import copy_project, scons

from ireerv import formats
from ireerv.formats import base, tflite_format
from ireerv.inputs.fetch import Fetcher

# A toy format: a `.toy` file says `scale <k>`; the model multiplies four i32 values by k.
TOY_MODULE = '''\
"""A toy format for a test: `scale <k>` in a .toy file."""

from pathlib import Path

from ireerv.formats.base import InputSpec, Model, ModelFormat, read_text
from ireerv.formats.imported import imported_mlir

MLIR = """func.func @scale(%x: tensor<4xi32>) -> tensor<4xi32> {{
  %k = arith.constant dense<{k}> : tensor<4xi32>
  %y = arith.muli %x, %k : tensor<4xi32>
  return %y : tensor<4xi32>
}}
"""


def load(path: Path, _input_tree: object = None) -> Model:
    k = int(read_text(path).split()[1])
    mlir = imported_mlir(path.stem)
    mlir.parent.mkdir(parents=True, exist_ok=True)
    mlir.write_text(MLIR.format(k=k))
    spec = InputSpec((4,), "i32", {"kind": "randint", "seed": 1})
    return Model(name=path.stem, mlir=mlir, function="scale", inputs=(spec,), format="toy",
                 source=path)


FORMAT = ModelFormat("toy", lambda path: path.suffix == ".toy", load)
'''


def add_toy_format(tree: Path) -> None:
    package = tree / "site_scons" / "ireerv" / "formats"
    (package / "toy_format.py").write_text(TOY_MODULE)
    registry = package / "__init__.py"
    text = registry.read_text()
    registry.write_text(text.replace('    "tflite": "tflite_format",\n',
                                     '    "tflite": "tflite_format",\n    "toy": "toy_format",\n'))


def test_every_format_is_registered_once() -> None:
    names = [f.name for f in formats.all_formats()]
    assert names == ["mlir", "importer-mlir", "onnx", "tflite"]
    assert formats.model_format("onnx").reference.name == "ONNX Runtime"
    assert formats.model_format("tflite").import_step is tflite_format.import_step
    assert formats.model_format("mlir").import_step is None  # compiled as written
    assert formats.model_format("mlir").reference is None


def test_a_folder_of_two_formats_is_refused(tmp_path: Path) -> None:
    (tmp_path / "model.onnx").write_bytes(b"")
    (tmp_path / "model.tflite").write_bytes(b"")
    with pytest.raises(base.ModelError, match=r"holds a model in several formats "
                                              r"\(onnx, tflite\): keep one of them"):
        formats.load_model(str(tmp_path))


@pytest.mark.upstream
def test_a_toy_format_is_one_module_and_one_line(tmp_path: Path, fetcher: Fetcher) -> None:
    for name in ("iree", "flatcc", "iree-compiler"):
        require_input(fetcher, name)
    tree = copy_project(tmp_path / "ireerv")
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for step in (["add", "-A"], [*who, "commit", "-qm", "t", "--allow-empty"]):
        subprocess.run(["git", "-C", str(tree), *step], check=True)  # the tree as it was
    add_toy_format(tree)
    changed = subprocess.run(["git", "-C", str(tree), "status", "--porcelain"],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    assert sorted(changed) == [" M site_scons/ireerv/formats/__init__.py",
                               "?? site_scons/ireerv/formats/toy_format.py"]
    diff = subprocess.run(["git", "-C", str(tree), "diff", "--numstat"], capture_output=True,
                          text=True, check=True).stdout.split()
    assert diff[:2] == ["1", "0"]  # one line added to the registry, none removed
    toy = tmp_path / "triple.toy"
    toy.write_text("scale 3\n")
    out = scons(tree, "run", f"MODEL={toy}", "BOARD=qemu-virt").stdout
    assert "PASS: 4 output elements match the host reference" in out, out
