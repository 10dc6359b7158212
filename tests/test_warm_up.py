"""The warm-up rule: a program is called once with its dispatches skipped only when its
path cannot depend on what the kernels write.  Checked on programs the pinned
iree-compile writes for the cluster (vm-c, inline HAL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ireerv import boards
from ireerv.image import iree_compile, warm_up

# Its path does not depend on the data: every call runs the same dispatches.
STRAIGHT = """\
func.func @straight(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %0 = tensor.empty() : tensor<8x8xi32>
  %c = arith.constant 0 : i32
  %z = linalg.fill ins(%c : i32) outs(%0 : tensor<8x8xi32>) -> tensor<8x8xi32>
  %r = linalg.matmul ins(%a, %b : tensor<8x8xi32>, tensor<8x8xi32>)
                     outs(%z : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}
"""

# Doubles its input until the first element passes a bound: the program reads a value a
# kernel wrote to decide whether to dispatch again.
DATA_DEPENDENT = """\
func.func @loop(%a: tensor<4xi32>) -> tensor<4xi32> {
  %c0 = arith.constant 0 : index
  %bound = arith.constant 1000 : i32
  %r = scf.while (%t = %a) : (tensor<4xi32>) -> tensor<4xi32> {
    %e = tensor.extract %t[%c0] : tensor<4xi32>
    %go = arith.cmpi slt, %e, %bound : i32
    scf.condition(%go) %t : tensor<4xi32>
  } do {
  ^bb0(%t: tensor<4xi32>):
    %d = arith.addi %t, %t : tensor<4xi32>
    scf.yield %d : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}
"""


def _module_text(compiler: Path, tmp_path: Path, name: str, source: str) -> str:
    mlir = tmp_path / f"{name}.mlir"
    mlir.write_text(source)
    header = tmp_path / name / "model_module.h"
    header.parent.mkdir()
    iree_compile.compile_model(compiler, iree_compile.flags(boards.load_board("cluster4")),
                               mlir, header)
    return header.read_text()


def test_a_straight_program_is_warmed_up(compiler: Path, tmp_path: Path) -> None:
    assert warm_up.allowed(_module_text(compiler, tmp_path, "straight", STRAIGHT))


def test_a_program_that_reads_what_a_kernel_wrote_is_not(compiler: Path,
                                                          tmp_path: Path) -> None:
    text = _module_text(compiler, tmp_path, "loop", DATA_DEPENDENT)
    assert not warm_up.allowed(text)


@pytest.mark.parametrize("warm", [False, True])
def test_the_header_says_so(warm: bool, tmp_path: Path) -> None:
    module = tmp_path / "model_module.h"
    module.write_text("vm_buffer_load_i32(" if not warm else "iree_vm_buffer_deref(")
    target = tmp_path / warm_up.HEADER
    warm_up.write_header(module, target)
    assert f"#define RUNNER_WARM_UP {int(warm)}\n" in target.read_text()
