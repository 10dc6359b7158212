"""The generated model description for the generic runner, and parsing what the runner prints."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import require_input

from ireerv.image import runner_data
from ireerv.image.runner_data import RunnerDataError
from ireerv.inputs.fetch import Fetcher
from ireerv.inputs.toolchain import Toolchain
from ireerv.run import runner_output
from ireerv.runtime import iree_build

BOARD_CFLAGS = ["-march=rv32imc_zicsr_zifencei", "-mabi=ilp32"]

# What iree-compile writes next to the kernel object (abridged).
KERNEL_HEADER = """\
#include "iree/hal/local/executable_library.h"
const iree_hal_executable_library_header_t**
matmul_f32f32f32_dispatch_0_library_query(
iree_hal_executable_library_version_t max_version,
const iree_hal_executable_environment_v0_t* environment);
"""


def test_input_dtypes() -> None:
    def dtype(array: np.ndarray) -> str:
        text = runner_data.model_source("module", "f", [array], library_queries=["q"])
        return text.split('{"input0", ')[1].split(",")[0]

    assert dtype(np.zeros(1, np.float32)) == "IREERV_FLOAT32"
    assert dtype(np.zeros(1, np.float16)) == "IREERV_FLOAT16"
    assert dtype(np.zeros(1, np.int8)) == "IREERV_INT8"
    assert dtype(np.zeros(1, np.uint64)) == "IREERV_UINT64"
    assert dtype(np.zeros(1, np.bool_)) == "IREERV_BOOL8"
    with pytest.raises(RunnerDataError, match="complex64"):
        dtype(np.zeros(1, np.complex64))


def test_library_queries_come_from_the_kernel_header() -> None:
    assert runner_data.library_queries(KERNEL_HEADER) == [
        "matmul_f32f32f32_dispatch_0_library_query"]
    with pytest.raises(RunnerDataError, match="no \\*_library_query"):
        runner_data.library_queries("int x;\n")


def test_model_source_holds_exact_bits_and_shapes() -> None:
    a = np.array([[1.0, -2.5], [np.inf, -0.0]], dtype=np.float32)
    b = np.array([1, -1], dtype=">i8")  # big-endian input: stored little-endian
    scalar = np.array(np.nan, dtype=np.float16)
    empty = np.zeros((0, 3), dtype=np.int32)
    text = runner_data.model_source("module", "f", [a, b, scalar, empty],
                                    library_queries=["k_library_query"], repeat=3)
    assert "0x3f800000u, 0xc0200000u, 0x7f800000u, 0x80000000u," in text
    assert "static const uint64_t input1_data[] = {" in text
    assert "0x0000000000000001ull, 0xffffffffffffffffull," in text
    # Narrower elements word-aligned: staged-constant images copy inputs in by words.
    assert ("static const uint16_t input2_data[] __attribute__((aligned(4))) = {\n    0x7e00u,"
            in text)
    # The library's description of each input (runtime/api/ireerv_model.h).
    assert '{"input2", IREERV_FLOAT16, 0, {0}, 2u, 0.0f, 0},' in text
    assert '{"input3", IREERV_INT32, 2, {0, 3}, 0u, 0.0f, 0},' in text
    assert "static const uint32_t input3_data[1];" in text  # not NULL: the API refuses it
    assert '"model", "module.f", module_create,' in text
    assert "input0_data,\n    input1_data,\n    input2_data,\n    input3_data,\n};" in text
    assert "&model_model, input_data, 3," in text


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"module_name": "my-module"}, "module name 'my-module' is not a C identifier"),
        ({"function_name": ""}, "function name is empty"),
        ({"library_queries": ["a b"]}, "'a b' is not a C identifier"),
        ({"repeat": 0}, "at least 1"),
        ({"inputs": [[1.0, 2.0]]}, "input 0 is a list"),
    ],
)
def test_model_source_refuses_bad_input(kwargs: dict, message: str) -> None:
    args = {"module_name": "module", "function_name": "f", "inputs": [],
            "library_queries": ["k_library_query"], **kwargs}
    module_name, function_name, inputs = (args.pop(k) for k in
                                          ("module_name", "function_name", "inputs"))
    with pytest.raises(RunnerDataError, match=message):
        runner_data.model_source(module_name, function_name, inputs, **args)


def test_function_name_is_escaped() -> None:
    text = runner_data.model_source("module", 'we"ird\\name', [], library_queries=["q"])
    assert '"module.we\\"ird\\\\name"' in text
    assert "inputs, 0u, outputs, 0u," in text


def test_module_impl_source() -> None:
    assert runner_data.module_impl_source("model_module.h") == (
        "// Generated: the implementation of the vm-c module.\n"
        "#define EMITC_IMPLEMENTATION\n"
        '#include "model_module.h"\n')
    with pytest.raises(RunnerDataError):
        runner_data.module_impl_source('bad"name.h')


# --- parsing what the runner prints -------------------------------------------------------

RUN_OUTPUT = """\
QEMU banner or BSP lines are ignored
CYCLES startup 75365
CYCLES warmup 6685
CYCLES call 0 483154
CYCLES call 1 220359
OUTPUT 0 f32 2x2: 0x3f800000 0xc0200000 0x7f800000 0x80000000
OUTPUT 1 i8 3: -128 0 127
OUTPUT 2 u16 scalar: 65535
OUTPUT 3 b8 2: 1 0
OUTPUT 4 bf16 1: 0x3f80
STATUS OK
"""


def test_runner_output_parses_exactly() -> None:
    result = runner_output.parse_runner_output(RUN_OUTPUT)
    assert result.ok
    assert result.startup_cycles == 75365
    assert result.warmup_cycles == 6685
    assert result.call_cycles == [483154, 220359]
    f32, i8, u16, b8, bf16 = result.outputs
    np.testing.assert_array_equal(f32, np.array([[1.0, -2.5], [np.inf, -0.0]], np.float32))
    assert np.signbit(f32[1, 1]) and f32.dtype == np.float32
    assert i8.dtype == np.int8 and i8.tolist() == [-128, 0, 127]
    assert u16.shape == () and int(u16) == 65535
    assert b8.dtype == np.bool_ and b8.tolist() == [True, False]
    assert bf16.dtype == np.uint16 and bf16.tolist() == [0x3F80]  # raw bits: NumPy has no bf16


def test_runner_error_status() -> None:
    result = runner_output.parse_runner_output("CYCLES startup 5\nSTATUS INVALID_ARGUMENT\n")
    assert not result.ok and result.status == "INVALID_ARGUMENT" and not result.outputs


def test_runner_output_with_wrong_count_is_an_error() -> None:
    with pytest.raises(runner_output.RunnerOutputError, match="3 values for shape \\(2, 2\\)"):
        runner_output.parse_runner_output("OUTPUT 0 f32 2x2: 0x0 0x0 0x0\n")


# --- the generated C compiles to the exact bytes ------------------------------------------


@pytest.mark.upstream
def test_model_source_compiles_to_exact_bytes(fetcher: Fetcher, toolchain: Toolchain,
                                              tmp_path: Path) -> None:
    iree_src = require_input(fetcher, "iree")
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal((3, 5)).astype(np.float32),
              rng.integers(-128, 128, (7,), dtype=np.int8),
              np.array([True, False, True]),
              rng.standard_normal(4).astype(np.float64)]
    source = tmp_path / "model_data.c"
    source.write_text(runner_data.model_source("module", "f", inputs,
                                               library_queries=["k_library_query"]))
    obj = tmp_path / "model_data.o"
    defines = iree_build.app_defines("release")
    subprocess.run([toolchain.tool("gcc"), *BOARD_CFLAGS, *toolchain.libc_flags(), "-Os",
                    "-fdata-sections", "-Wall", "-Werror", *("-D" + d for d in defines),
                    f"-isystem{iree_src / 'runtime' / 'src'}", f"-I{iree_build.RUNNER_DIR}",
                    f"-I{iree_build.RUNTIME_DIR / 'api'}", "-c", source, "-o", obj], check=True)
    for index, array in enumerate(inputs):
        raw = tmp_path / f"input{index}.bin"
        # Arrays of up to 8 bytes go to the small-data section.
        sections = [f"-j{kind}.input{index}_data" for kind in (".rodata", ".srodata")]
        subprocess.run([toolchain.tool("objcopy"), "-O", "binary", *sections, obj, raw],
                       check=True)
        assert raw.read_bytes() == array.astype(array.dtype.newbyteorder("<")).tobytes()
