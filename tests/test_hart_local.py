"""Which kernels harts 1.. may run from their own scratchpads: decided from real objects."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ireerv.image import hart_local

KERNELS = {
    # Reads only its arguments and calls nothing: may run from the scratchpad.
    "pure": """
int m_dispatch_0_add(const int* a, int* b, int n) {
  for (int i = 0; i < n; ++i) b[i] += a[i] * 3;
  return 0;
}
""",
    # A constant table in .rodata: that read would cross the shared path.
    "table": """
static const int table[17] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2};
int m_dispatch_0_lookup(const int* a, int* b, int n) {
  for (int i = 0; i < n; ++i) b[i] = table[a[i] & 15];
  return 0;
}
""",
    # Calls a routine of another object (soft-float): bound by instruction fetch.
    "calls": """
float m_dispatch_0_scale(float x, float y) { return x * y; }
""",
    # Helpers that no entry point calls do not count.
    "unused_helper": """
static const int table[4] = {1, 2, 3, 4};
int helper(int i) { return table[i & 3]; }
int m_dispatch_3_sum(const int* a, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += a[i];
  return s;
}
""",
}


@pytest.fixture(scope="module")
def objects(toolchain, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("hart_local")
    built = {}
    for name, source in KERNELS.items():
        c = out / f"{name}.c"
        c.write_text(source)
        built[name] = out / f"{name}.o"
        subprocess.run([str(toolchain.tool("gcc")), "-march=rv32imc", "-mabi=ilp32", "-O2",
                        "-ffunction-sections", "-fdata-sections", "-c", str(c), "-o",
                        str(built[name])], check=True)
    return built


def test_a_kernel_that_reads_only_its_arguments_may_run_locally(objects) -> None:
    assert hart_local.in_place_reason(objects["pure"]) is None
    assert hart_local.in_place_reason(objects["unused_helper"]) is None
    assert "#define RUNNER_HART_LOCAL 1" in hart_local.header(None)


def test_a_constant_table_keeps_the_harts_in_place(objects) -> None:
    reason = hart_local.in_place_reason(objects["table"])
    assert reason is not None and reason.startswith("m_dispatch_0_lookup reads ")
    assert "#define RUNNER_HART_LOCAL 0" in hart_local.header(reason)


def test_a_call_out_keeps_the_harts_in_place(objects) -> None:
    reason = hart_local.in_place_reason(objects["calls"])
    assert reason == "m_dispatch_0_scale calls __mulsf3 (bound by instruction fetch, not data)"


def test_an_unreadable_object_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "model_kernel.o"
    bad.write_bytes(b"not an object")
    with pytest.raises(hart_local.HartLocalError, match="cannot read the object"):
        hart_local.in_place_reason(bad)
