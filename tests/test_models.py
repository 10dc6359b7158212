"""Model discovery, descriptions and inputs; the host reference on real IREE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ireerv import formats as models


def test_every_model_loads_and_generates_inputs() -> None:
    names = models.mlir_models()
    assert {"matmul", "mlp", "qmatmul", "elementwise"} <= set(names)
    for name in names:
        model = models.load_model(name)
        for size in model.sizes or (None,):
            arrays = model.generate_inputs(size)
            assert len(arrays) == len(model.inputs)


def test_inputs_are_seeded_and_exact() -> None:
    model = models.load_model("matmul")
    a1, b1 = model.generate_inputs(16)
    a2, _ = model.generate_inputs(16)
    assert a1.shape == (16, 16) and a1.dtype == np.float32
    assert np.array_equal(a1, a2)
    assert not np.array_equal(a1, b1)
    assert np.array_equal(a1, np.round(a1))


def test_unknown_model_lists_valid_names() -> None:
    with pytest.raises(models.ModelError, match="matmul"):
        models.load_model("no-such-model")


def test_bare_mlir_needs_static_shapes(tmp_path: Path) -> None:
    static = tmp_path / "add.mlir"
    static.write_text(
        "func.func @add(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {\n"
        "  %r = arith.addi %a, %b : tensor<4xi32>\n  return %r : tensor<4xi32>\n}\n"
    )
    model = models.load_model(str(static))
    assert model.function == "add"
    assert [a.shape for a in model.generate_inputs(None)] == [(4,), (4,)]
    dynamic = tmp_path / "dyn.mlir"
    dynamic.write_text(static.read_text().replace("4xi32", "?xi32"))
    with pytest.raises(models.ModelError, match="dynamic shape"):
        models.load_model(str(dynamic))


def test_unsupported_element_type(tmp_path: Path) -> None:
    path = tmp_path / "half.mlir"
    path.write_text(
        "func.func @h(%a: tensor<4xf16>) -> tensor<4xf16> {\n  return %a : tensor<4xf16>\n}\n")
    with pytest.raises(models.ModelError, match="f16.*not supported"):
        models.load_model(str(path))


def test_missing_function_and_files(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    with pytest.raises(models.ModelError, match="no model.mlir"):
        models.load_model(str(folder))
    (folder / "model.mlir").write_text("func.func @other() {\n  return\n}\n")
    (folder / "model.toml").write_text(
        'function = "main"\n[[inputs]]\nshape = [4]\ndtype = "f32"\n')
    with pytest.raises(models.ModelError, match="@main not found.*other"):
        models.load_model(str(folder))


def test_size_rules() -> None:
    assert models.load_model("matmul").variant(None) == "matmul-4"
    with pytest.raises(models.ModelError, match="static shapes"):
        models.load_model("mlp").resolve_size(8)
