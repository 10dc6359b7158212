"""Models that are wrong on the device or on the host, and unusual but valid models.

Each is a real model compiled with the pinned iree-compile, linked with the IREE
runtime and run on QEMU; every bad one ends in one verdict line, a non-zero
exit, a run record saying what failed, and never a crashed build.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu
from scons_helpers import scons

from ireerv.inputs.fetch import Fetcher, FetchError
from ireerv.reference import host

QEMU = "BOARD=qemu-virt"

FOREVER = """\
func.func @forever(%a: tensor<4xi32>) -> tensor<4xi32> {
  %zero = arith.constant 0 : i32
  %step = util.optimization_barrier %zero : i32
  %end = scf.while (%i = %zero) : (i32) -> i32 {
    %go = arith.cmpi sge, %i, %zero : i32
    scf.condition(%go) %i : i32
  } do {
  ^bb0(%j: i32):
    %next = arith.addi %j, %step : i32
    scf.yield %next : i32
  }
  %empty = tensor.empty() : tensor<4xi32>
  %fill = linalg.fill ins(%end : i32) outs(%empty : tensor<4xi32>) -> tensor<4xi32>
  %r = arith.addi %a, %fill : tensor<4xi32>
  return %r : tensor<4xi32>
}
"""
DIV = """\
func.func @div(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.divsi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}
"""
PICK = """\
func.func @pick(%a: tensor<4xi32>, %i: tensor<1xi32>) -> tensor<1xi32> {
  %c0 = arith.constant 0 : index
  %iv = tensor.extract %i[%c0] : tensor<1xi32>
  %idx = arith.index_cast %iv : i32 to index
  %v = tensor.extract %a[%idx] : tensor<4xi32>
  %r = tensor.from_elements %v : tensor<1xi32>
  return %r : tensor<1xi32>
}
"""


def values_model(folder: Path, mlir: str, function: str, *inputs: tuple[list, list]) -> Path:
    """A model folder whose i32 inputs are given values: (shape, values) each."""
    folder.mkdir(parents=True)
    (folder / "model.mlir").write_text(mlir)
    toml = f'function = "{function}"\n'
    for shape, values in inputs:
        toml += (f'\n[[inputs]]\nshape = {shape}\ndtype = "i32"\n'
                 f'generator = {{ kind = "values", values = {values} }}\n')
    (folder / "model.toml").write_text(toml)
    return folder


NEEDS_INPUTS = ("iree",)  # for the `tree` fixture (conftest.py)


def failed_run(tree: Path, model: Path, *args: str) -> tuple[str, dict]:
    proc = scons(tree, "run", f"MODEL={model}", QEMU, *args, check=False)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    record = json.loads((tree / "build" / "qemu-virt" / model.name / "run.json").read_text())
    assert record["passed"] is False
    verdict = [ln for ln in proc.stderr.splitlines() if "FAILED:" in ln]
    assert len(verdict) == 1, proc.stderr
    return verdict[0], record


@needs_qemu
@pytest.mark.upstream
def test_division_by_zero_on_the_host_is_a_verdict(tree: Path, tmp_path: Path) -> None:
    model = values_model(tmp_path / "divzero", DIV, "div", ([4], [7, 8, 9, 10]),
                         ([4], [1, 0, 2, 3]))
    verdict, record = failed_run(tree, model)
    assert verdict.endswith(
        "divzero on qemu-virt FAILED: the host reference (@div of divzero.vmfb) crashed with "
        "SIGFPE (an arithmetic fault such as an integer division by zero): the model is not "
        "defined for these inputs; change the inputs or the model")
    assert "SIGFPE" in record["problems"][0]


@needs_qemu
@pytest.mark.upstream
def test_out_of_bounds_read_traps_the_device_and_crashes_the_reference(
        tree: Path, tmp_path: Path) -> None:
    model = values_model(tmp_path / "oob", PICK, "pick", ([4], [7, 8, 9, 10]), ([1], [400000000]))
    verdict, record = failed_run(tree, model)
    assert "oob on qemu-virt FAILED: run crash: BSP TRAP hart 0: load access fault; the host " \
           "reference (@pick of oob.vmfb) crashed with SIGSEGV" in verdict
    assert record["reason"] == "crash" and record["call_cycles"] == []
    out = scons(tree, "run", f"MODEL={model}", QEMU, check=False).stdout
    assert "cycles: start-up" in out and "; calls none finished" in out
    assert not [ln for ln in out.splitlines() if ln.rstrip().endswith("calls")]


@needs_qemu
@pytest.mark.upstream
def test_timed_out_run_prints_no_dangling_calls(tree: Path, tmp_path: Path) -> None:
    # A call that never returns, however fast the machine: its loop's step is 0.
    (tmp_path / "forever.mlir").write_text(FOREVER)
    proc = scons(tree, "run", f"MODEL={tmp_path / 'forever.mlir'}", "TIMEOUT=2", QEMU,
                 check=False)
    assert proc.returncode != 0
    assert "; calls none finished" in proc.stdout
    assert ("forever on qemu-virt FAILED: run timeout: no exit after 2 s "
            "(TIMEOUT=<seconds> raises it)") in proc.stderr


@needs_qemu
@pytest.mark.upstream
@pytest.mark.parametrize(("name", "mlir"), [
    ("named", "module @m {\n" + DIV.replace("divsi", "addi") + "}\n"),
    ("nodispatch", "func.func @id(%a: tensor<4xi32>) -> tensor<4xi32> {\n"
                   "  return %a : tensor<4xi32>\n}\n"),
    ("wide", "func.func @wide(%a: tensor<4xf32>) -> tensor<4xf64> {\n"
             "  %r = arith.extf %a : tensor<4xf32> to tensor<4xf64>\n"
             "  return %r : tensor<4xf64>\n}\n"),
])
def test_unusual_valid_models_run(tree: Path, tmp_path: Path, name: str, mlir: str) -> None:
    path = tmp_path / f"{name}.mlir"
    path.write_text(mlir)
    out = scons(tree, "run", f"MODEL={path}", QEMU).stdout
    assert "PASS: " in out


@pytest.mark.upstream
def test_compile_diagnostics_name_the_users_path(tree: Path, tmp_path: Path) -> None:
    bad = tmp_path / "typo.mlir"
    bad.write_text("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  return %b : tensor<4xf32>\n}\n")
    proc = scons(tree, "image", f"MODEL={bad}", QEMU, check=False)
    assert proc.returncode != 0
    assert f"{bad}:2:" in proc.stderr and "../" not in proc.stderr


def test_reference_error_is_one_message(compiler: Path, tmp_path: Path) -> None:
    mlir = tmp_path / "div.mlir"
    mlir.write_text(DIV)
    vmfb = tmp_path / "div.vmfb"
    host.compile_for_host(compiler, mlir, vmfb)
    four = np.arange(1, 5, dtype=np.int32)
    assert host.compute(vmfb, "div", [four, four])[0].tolist() == [1, 1, 1, 1]
    with pytest.raises(host.ReferenceError,
                       match=r"the host reference \(@div of div.vmfb\) failed: .*shape"):
        host.compute(vmfb, "div", [four, np.arange(3, dtype=np.int32)])


# -- tool identity -------------------------------------------------------------------------

WHEEL = "iree_base_compiler-{v}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"


def _repin_compiler(lock_text: str, version: str, digest: str) -> str:
    """toolchain.lock with another iree-compiler pin (version and wheel hash together)."""
    lines = []
    section = ""
    for line in lock_text.splitlines():
        if line.startswith("["):
            section = line
        if section == "[inputs.iree-compiler]" and line.startswith("version ="):
            line = f'version = "{version}"'
        elif section == "[inputs.iree-compiler]" and line.startswith("files ="):
            line = f'files = {{ "{WHEEL.format(v=version)}" = "{digest}" }}'
        lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.upstream
def test_compiler_pin_change_recompiles_the_model(tree: Path) -> None:
    scons(tree, "image", "MODEL=mlp", QEMU)
    assert "is up to date" in scons(tree, "image", "MODEL=mlp", QEMU).stdout
    lock = tree / "toolchain.lock"
    original = lock.read_text()
    try:
        # A new compiler pin: a dry run must plan to recompile the model (not fetch it).
        lock.write_text(_repin_compiler(original, "3.8.0", "1" * 64))
        plan = scons(tree, "-n", "image", "MODEL=mlp", QEMU).stdout
        # (What follows is rebuilt if the new compiler's output differs: SCons compares it.)
        assert "IREE    models/mlp/model.mlir" in plan
        # The version alone, changed without the wheel it names: refused, not ignored.
        lock.write_text(original.replace('version = "3.9.0"', 'version = "3.8.0"'))
        proc = scons(tree, "image", "MODEL=mlp", QEMU, check=False)
        assert proc.returncode != 0 and "Traceback" not in proc.stderr
        assert ("[inputs.iree-compiler] field 'version': is '3.8.0', but the wheel "
                f"'{WHEEL.format(v='3.9.0')}' is version '3.9.0'") in proc.stderr
    finally:
        lock.write_text(original)
    assert "is up to date" in scons(tree, "image", "MODEL=mlp", QEMU).stdout


def test_deb_version_is_checked_against_the_package(fetcher: Fetcher, tmp_path: Path) -> None:
    from ireerv.inputs.fetch import FetchConfig
    from ireerv.inputs.lock import load_lock

    binutils = fetcher.lock.input("binutils")
    if not fetcher._download_dir(binutils).is_dir():
        pytest.skip("the pinned binutils package is not in the cache (run `scons fetch`)")
    text = fetcher.lock.path.read_text().replace(
        f'version = "{binutils.version}"', 'version = "2.40-9"', 1)
    (tmp_path / "toolchain.lock").write_text(text)
    lock = load_lock(tmp_path / "toolchain.lock")
    root = fetcher.config.cache_root
    other = Fetcher(lock, FetchConfig(cache_root=root, offline=True, log=lambda _: None))
    with pytest.raises(FetchError, match=(
            r"input 'binutils': 'version' is '2.40-9', but the pinned file \S+\.deb "
            rf"\(sha256 {binutils.sha256}\) is version '{re.escape(binutils.version)}'")):
        other.toolchain()
    assert not other.entry("toolchain").exists()
    assert not [p for p in (root / "src").iterdir() if p.name.startswith(".toolchain-")]


# -- float references: what the device computes, on any host -------------------------------

FMA = """\
func.func @fma(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %m = arith.mulf %a, %b : tensor<4xf32>
  %r = arith.addf %m, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
# a * b + c where a fused multiply-add gives another result than two roundings.
FMA_INPUTS = ([1.000244140625, 1.000244140625, 3.0, 0.1],
              [1.000244140625, 1.000244140625, 0.1, 0.3],
              [-1.00048828125, 0.0, -0.3, -0.03])


def test_float_reference_rounds_like_the_device(wheel: Path, tmp_path: Path) -> None:
    assert not [f for f in host.HOST_FLAGS if f.endswith("=host")]
    mlir = tmp_path / "fma.mlir"
    mlir.write_text(FMA)
    vmfb = tmp_path / "fma.vmfb"
    host.compile_for_host(wheel / "iree" / "compiler" / "_mlir_libs" / "iree-compile",
                               mlir, vmfb)
    a, b, c = (np.array(v, dtype=np.float32) for v in FMA_INPUTS)
    (got,) = host.compute(vmfb, "fma", [a, b, c])
    # NumPy rounds the product and the sum separately, as the soft-float device does;
    # a host FMA would give 2**-24 for the first element instead of 0.
    assert got.tobytes() == (a * b + c).tobytes()


@needs_qemu
@pytest.mark.upstream
def test_float_model_passes_bit_for_bit_on_the_device(tree: Path, tmp_path: Path) -> None:
    folder = tmp_path / "fmaf"
    folder.mkdir()
    (folder / "model.mlir").write_text(FMA)
    (folder / "model.toml").write_text('function = "fma"\n' + "".join(
        f'\n[[inputs]]\nshape = [4]\ndtype = "f32"\n'
        f'generator = {{ kind = "values", values = {values} }}\n' for values in FMA_INPUTS))
    out = scons(tree, "run", f"MODEL={folder}", QEMU).stdout
    assert "PASS: 4 output elements match the host reference (bit for bit)" in out
