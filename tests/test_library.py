"""`scons library`: the model in the user's own firmware.  The folder alone builds its
example with CMake and with make; a firmware with its own start-up code and linker script
links two models' archives and runs them; outputs are the runner's, bit for bit."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_qemu, needs_tool, require_input
from scons_helpers import scons

from ireerv.boards import load_board
from ireerv.library import model_source, package
from ireerv.simulators.qemu import run_qemu

NEEDS_INPUTS = ("iree", "toolchain")  # for the `tree` fixture (conftest.py)
OWN_FIRMWARE = Path(__file__).parent / "data" / "own_firmware"


def test_the_header_names_the_model_and_its_sizes() -> None:
    ins = [model_source.Tensor("input_1", "i8", (1, 49, 10, 1), 0.5, -3)]
    outs = [model_source.Tensor("Identity", "i8", (1, 12))]
    text = model_source.header("kws", 46720, ins, outs, [".rodata.ireerv.kws.constants0"])
    assert "extern const ireerv_model_t kws_model;" in text
    assert "#define KWS_ARENA_BYTES 46720u" in text and "#define KWS_INPUT0_BYTES 490u" in text
    assert '#define KWS_CONSTANTS_SECTION0 ".rodata.ireerv.kws.constants0"' in text
    source = model_source.descriptor_source("kws", "module", "main", ["q"], ins, outs)
    assert '{"input_1", IREERV_INT8, 4, {1, 49, 10, 1}, 490u, 0.5f, -3},' in source
    assert "const ireerv_model_t kws_model = {" in source
    assert "    NULL,\n};" in source and "runner_model" not in source  # hart 0 alone
    shared = model_source.descriptor_source("kws", "module", "main", ["q"], ins, outs,
                                            harts=True)
    assert "    &ireerv_model_harts,\n};" in shared  # the archive's dispatcher (model_harts.c)
    assert "runner_model = {&kws_model, NULL, 0};" in shared  # what it reads
    assert model_source.c_name("kws-float") == "kws_float"
    assert model_source.c_name("1net") == "_1net"


def test_outputs_from_the_mlir_the_library_static_the_runner_any() -> None:
    from ireerv import formats

    model = formats.load_model("matmul")  # its MLIR: tensor<?x?xf32> -> tensor<?x?xf32>
    with pytest.raises(model_source.LibraryError, match="static shape"):
        model_source.outputs(model, model.mlir.read_text())
    (out,) = model_source.outputs(model, model.mlir.read_text(), dynamic=True)
    assert (out.dtype, out.shape, out.bytes) == ("f32", (-1, -1), 0)
    text = f"func.func @{model.function}(%a: tensor<4xi8>) -> (tensor<2x3xi1>, tensor<ui16>)"
    flags, scalar = model_source.outputs(model, text)
    assert (flags.dtype, flags.shape, flags.bytes) == ("b8", (2, 3), 6)
    assert (scalar.dtype, scalar.shape, scalar.bytes) == ("u16", (), 2)


def test_the_arena_has_a_margin() -> None:
    assert model_source.arena_bytes(40592) == 46720
    assert model_source.arena_bytes(0) % 64 == 0 and model_source.arena_bytes(0) >= 1024


def test_build_files_name_the_toolchain_and_flags() -> None:
    flags = package.Flags("/opt/x/bin/riscv64-unknown-elf-gcc",
                          ("-march=rv32imc_zicsr", "-mabi=ilp32"), ("-march=rv32imc",))
    config = package.cmake_config("kws", flags)
    assert "add_library(ireerv::kws STATIC IMPORTED)" in config
    assert "set(IREERV_COMPILE_OPTIONS -march=rv32imc_zicsr -mabi=ilp32)" in config
    assert 'set(IREERV_GCC "/opt/x/bin/riscv64-unknown-elf-gcc")' in package.toolchain_cmake(
        flags)
    assert "lib/libkws.a" in package.make_include("kws", flags)
    pcs = package.pkg_config("kws", flags, "v1")
    assert "Requires: ireerv" in pcs["lib/pkgconfig/ireerv-kws.pc"]


def _library(tree: Path, model: str) -> Path:
    out = scons(tree, "library", f"MODEL={model}", "BOARD=qemu-virt").stdout
    found = re.search(r"^library: (\S+)$", out, re.M)
    assert found, out[-2000:]
    return tree / found.group(1)


def _runner_outputs(tree: Path, tmp_path: Path, model: str, sample: np.ndarray) -> bytes:
    """What the runner image gives for `sample` (INPUT=, OUTPUT=)."""
    np.save(tmp_path / f"{model}-in.npy", sample)
    scons(tree, "run", f"MODEL={model}", "BOARD=qemu-virt", f"INPUT={tmp_path}/{model}-in.npy",
          f"OUTPUT={tmp_path}/{model}-out.npz")
    with np.load(tmp_path / f"{model}-out.npz") as data:
        return b"".join(data[name].tobytes() for name in data.files)


def _qemu(elf: Path) -> str:
    result = run_qemu(elf, args=load_board("qemu-virt").simulator.args, timeout=120)
    assert result.passed, result.output[-2000:]
    return result.program_output


@pytest.mark.upstream
@needs_qemu
@needs_tool("cmake", "cmake")
def test_the_example_builds_from_a_copy_of_the_folder(tree: Path, tmp_path: Path,
                                                       fetcher) -> None:
    require_input(fetcher, "mlperf-tiny")
    copy = tmp_path / "elsewhere" / "kws-lib"
    shutil.copytree(_library(tree, "kws"), copy)
    assert not (tmp_path / "elsewhere").is_relative_to(tree)
    for name in ("manifest.json", "sbom.cdx.json", "lib/libireerv.a", "lib/libkws.a",
                 "include/ireerv.h", "include/kws.h", "lib/pkgconfig/ireerv.pc"):
        assert (copy / name).is_file(), name
    subprocess.run(["make", "-C", str(copy / "example")], check=True, capture_output=True)
    build = copy / "example" / "build"
    subprocess.run(["cmake", "-S", str(copy / "example"), "-B", str(build)], check=True,
                   capture_output=True)
    subprocess.run(["cmake", "--build", str(build)], check=True, capture_output=True)
    want = _runner_outputs(tree, tmp_path, "kws", np.zeros((1, 49, 10, 1), np.int8))
    for elf in (copy / "example" / "example.elf", build / "example.elf"):
        printed = re.search(r"^Identity:((?: -?\d+)+)$", _qemu(elf), re.M)
        assert printed, elf
        assert bytes(int(v) & 0xFF for v in printed.group(1).split()) == want
    again = scons(tree, "library", "MODEL=kws", "BOARD=qemu-virt").stdout
    assert "LIBRARY" not in again and "PROBE" not in again  # a no-op rebuild does nothing


@pytest.mark.upstream
@needs_qemu
def test_own_start_up_and_linker_script_two_models(tree: Path, tmp_path: Path,
                                                   fetcher, toolchain) -> None:
    """No BSP: the firmware's own start.S and link.ld, kws and ad in one link, only the
    C library's string functions from outside; outputs those of the runner images."""
    require_input(fetcher, "mlperf-tiny")
    kws, ad = _library(tree, "kws"), _library(tree, "ad")
    work = tmp_path / "own"
    shutil.copytree(OWN_FIRMWARE, work)
    gcc = str(toolchain.tool("gcc"))
    board = load_board("qemu-virt")
    libc = toolchain.libc_flags()
    compile_flags = [*board.compile_flags(), *libc, "-Os"]
    subprocess.run([gcc, *compile_flags, f"-I{kws}/include", f"-I{ad}/include", "-c",
                    "main.c", "-o", "main.o"], cwd=work, check=True)
    subprocess.run([gcc, *board.compile_flags(), "-c", "start.S", "-o", "start.o"], cwd=work,
                   check=True)
    subprocess.run([gcc, f"-march={board.link_march}", f"-mabi={board.mabi}", *libc,
                    "-nostartfiles", "-T", "link.ld", "-Wl,--gc-sections", "-Wl,-Map=fw.map",
                    "-o", "fw.elf", "start.o", "main.o", f"{kws}/lib/libkws.a",
                    f"{ad}/lib/libad.a", f"{kws}/lib/libireerv.a"], cwd=work, check=True)
    text = _qemu(work / "fw.elf")
    got = {m: bytes.fromhex(v.replace(" ", "")) for m, v in
           re.findall(r"^(kws|ad): ([0-9a-f ]+)$", text, re.M)}
    kws_in = (np.arange(490) * 7 % 256).astype(np.uint8).view(np.int8).reshape(1, 49, 10, 1)
    ad_in = (np.arange(640) * 3 % 256).astype(np.uint8).view(np.int8).reshape(1, 640)
    assert got["kws"] == _runner_outputs(tree, tmp_path, "kws", kws_in)
    assert got["ad"] == _runner_outputs(tree, tmp_path, "ad", ad_in)
    symbols = subprocess.run([str(toolchain.tool("nm")), "fw.elf"], cwd=work, check=True,
                             capture_output=True, text=True).stdout
    defined = {line.split()[-1] for line in symbols.splitlines() if len(line.split()) == 3}
    assert not defined & {"malloc", "calloc", "realloc", "free", "sbrk", "abort", "printf"}
    assert {"memcpy", "memset"} <= defined
