"""Every model builds to the same bytes: run after run, at another path, with another
environment and stack limit (iree-compile's output once followed its memory layout)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import need_module, require_input
from scons_helpers import copy_project, scons

from ireerv.inputs.fetch import Fetcher

pytestmark = pytest.mark.own_builds  # compares builds: each file built here

onnx = need_module("onnx")
OUTPUTS = ("model_module.h", "model_kernel.o", "image.elf", "image.hex")


def multi_output_model(folder: Path) -> Path:
    """A 1x128 . 128x600 MatMul and its ReLU, both graph outputs."""
    h = onnx.helper
    f32 = onnx.TensorProto.FLOAT
    w = np.random.default_rng(0).standard_normal((128, 600)).astype(np.float32)
    graph = h.make_graph(
        [h.make_node("MatMul", ["x", "w"], ["y"]), h.make_node("Relu", ["y"], ["z"])], "multi",
        [h.make_tensor_value_info("x", f32, [1, 128])],
        [h.make_tensor_value_info(n, f32, [1, 600]) for n in ("y", "z")],
        [onnx.numpy_helper.from_array(w, "w")])
    folder.mkdir(parents=True)
    onnx.save(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]),
              str(folder / "model.onnx"))
    return folder


def _build(tree: Path, model: Path) -> dict[str, bytes]:
    out = tree / "build/qemu-virt" / model.name
    if out.exists():
        for name in OUTPUTS:
            (out / name).unlink(missing_ok=True)
    scons(tree, "image", f"MODEL={model}", "BOARD=qemu-virt")
    return {name: (out / name).read_bytes() for name in OUTPUTS}


@pytest.mark.upstream
def test_a_multi_output_model_builds_bit_for_bit(tmp_path: Path, fetcher: Fetcher,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("iree", "flatcc", "iree-compiler"):
        require_input(fetcher, name)
    model = multi_output_model(tmp_path / "models" / "multi")
    first = copy_project(tmp_path / "a")
    builds = [_build(first, model) for _ in range(3)]
    second = copy_project(tmp_path / "somewhere" / "with-a-longer-path" / "b")
    monkeypatch.setenv("IREERV_TEST_PADDING", "x" * 4096)  # moves the stack of every child
    builds.append(_build(second, model))
    for name in OUTPUTS:
        assert len({b[name] for b in builds}) == 1, f"{name} differs between builds"
