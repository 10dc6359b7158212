"""SHAPES: a model with dynamic dimensions compiled for the shapes of its image's inputs.

The rewrite runs in the pinned compiler's Python bindings (mlir_reflect.py specialize);
those tests skip without the wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv.formats import ModelError, load_model
from ireerv.formats import importer_mlir as mlir_models
from ireerv.image import key as image_key
from ireerv.image import layout

MATMUL = load_model("matmul")
MLP = load_model("mlp")


def test_only_dynamic_iree_models_are_specialised() -> None:
    assert layout.specializes(MATMUL, "iree", "static")
    assert not layout.specializes(MATMUL, "iree", "dynamic")
    assert not layout.specializes(MATMUL, "none", "static")  # the plain C loop has N fixed
    assert not layout.specializes(MLP, "iree", "static")  # already static
    assert image_key.DEFAULT_SHAPES == "static"


def test_input_shapes_follow_size() -> None:
    assert mlir_models.input_shapes(MATMUL, 16) == [[16, 16], [16, 16]]
    assert mlir_models.input_shapes(MATMUL, None) == [[4, 4], [4, 4]]  # the first size


def test_entry_takes_the_shapes_and_calls_the_original(wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "static.mlir"
    mlir_models.specialize(wheel, MATMUL.mlir, MATMUL.function, [[16, 16], [16, 16]], out)
    text = out.read_text()
    assert ("func.func @matmul_f32f32f32(%a0: tensor<16x16xf32>, %a1: tensor<16x16xf32>) "
            "-> (tensor<?x?xf32>)") in text
    assert "func.func private @matmul_f32f32f32__any_shape(" in text
    assert "tensor.cast %a0 : tensor<16x16xf32> to tensor<?x?xf32>" in text
    assert not list(tmp_path.glob("*.tmp"))


def test_a_shape_that_does_not_fit_is_one_clear_error(wheel: Path, tmp_path: Path) -> None:
    out = tmp_path / "static.mlir"
    with pytest.raises(ModelError, match=r"input 0 of @matmul_f32f32f32 has type "
                                         r"tensor<\?x\?xf32>, which cannot take shape \[4, 4, 1\]"):
        mlir_models.specialize(wheel, MATMUL.mlir, MATMUL.function, [[4, 4, 1], [4, 4]], out)
    with pytest.raises(ModelError, match="takes 2 inputs, not 1"):
        mlir_models.specialize(wheel, MATMUL.mlir, MATMUL.function, [[4, 4]], out)
    assert not out.exists() and not list(tmp_path.glob("*.tmp"))
